"""Read one policy file: TOML to a validated layer, with file, line and key in every error."""

from __future__ import annotations

import base64
import binascii
import os
import sys
from collections.abc import Mapping

from sslcustomize._policy._hosts import HostPattern, parse_host_pattern
from sslcustomize._policy._model import (
    LOCKABLE,
    MODES,
    SCHEMA_VERSION,
    SINKS,
    TLS_VERSIONS,
    ContextRule,
    HostException,
    LayerFile,
    Origin,
    Setting,
    TrustSource,
)
from sslcustomize._policy._tomlcache import CachedDate, cached_parse
from sslcustomize._support._files import read_regular

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any, TypeVar

    from sslcustomize._policy._lines import KeyPath
    from sslcustomize.exceptions import PolicyError

    #: Checks that a trust source works now; raises TrustError when it does not. The trust
    #: layer provides it (``_trust.check_source``): the policy layer does not reach up to it.
    SourceCheck = Callable[[TrustSource], None]
else:
    from sslcustomize._support._notyping import TypeVar

__all__ = [
    "MAX_POLICY_SIZE",
    "SourceCheck",
    "package_parent",
    "parse_policy",
    "read_layer",
    "read_text",
]

T = TypeVar("T")
#: Policy files larger than this are refused unread (a real one is a few KB).
MAX_POLICY_SIZE = 1024 * 1024
_PIN_PREFIX = "sha256/"
_BASE64 = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")


# --- Validation -------------------------------------------------------------------------------


class _Reader:
    """Validate one file's parsed TOML, raising PolicyError with path, line and key."""

    def __init__(
        self, lines: dict[KeyPath, int], path: str, layer: str, check_source: SourceCheck
    ) -> None:
        self.path = path
        self.layer = layer
        self.check_source = check_source
        self.base = os.path.dirname(os.path.abspath(path))
        self.lines = lines

    def origin(self, key: KeyPath) -> Origin:
        for end in range(len(key), 0, -1):
            line = self.lines.get(key[:end])
            if line is not None:
                return Origin(layer=self.layer, path=self.path, line=line)
        return Origin(layer=self.layer, path=self.path, line=None)

    def error(self, key: KeyPath, problem: str) -> PolicyError:
        from sslcustomize.exceptions import PolicyError  # noqa: PLC0415 - loaded with an error, not by a first context

        return PolicyError(problem, path=self.path, line=self.origin(key).line, key=_dotted(key))

    def check_keys(self, table: Mapping[str, Any], allowed: tuple[str, ...], at: KeyPath) -> None:
        for key in table:
            if key not in allowed:
                import difflib  # noqa: PLC0415 - only for a policy with a mistake

                close = difflib.get_close_matches(str(key), allowed, n=1)
                guess = f"; did you mean {close[0]!r}? expected" if close else "; expected"
                hint = f"{guess} one of: {', '.join(allowed)}"
                raise self.error((*at, key), f"unknown key {key!r}{hint}")

    def choice(self, value: Any, choices: tuple[str, ...], key: KeyPath) -> str:
        if not isinstance(value, str) or value not in choices:
            wanted = " or ".join(repr(c) for c in choices)
            raise self.error(key, f"must be {wanted}, not {value!r}")
        return value

    def boolean(self, value: Any, key: KeyPath) -> bool:
        if not isinstance(value, bool):
            raise self.error(key, f"must be true or false, not {value!r}")
        return value

    def string(self, value: Any, key: KeyPath) -> str:
        if not isinstance(value, str) or not value.strip():
            raise self.error(key, f"must be a non-empty string, not {value!r}")
        return value

    def strings(self, value: Any, key: KeyPath) -> list[str]:
        if isinstance(value, str):
            import json  # noqa: PLC0415 - only for error messages; not loaded by hooked processes

            raise self.error(key, f"must be a list of strings: write [{json.dumps(value)}]")
        if not isinstance(value, list):
            raise self.error(key, f"must be a list of strings, not {value!r}")
        return [self.string(item, key) for item in value]

    def setting(self, value: T, key: KeyPath) -> Setting[T]:
        return Setting(value=value, origin=self.origin(key))

    def path_of(self, text: str) -> str:
        return os.path.normpath(os.path.join(self.base, os.path.expanduser(text)))

    def trust(self, value: Any, key: KeyPath) -> tuple[TrustSource, ...]:
        sources = []
        origin = self.origin(key)
        for item in self.strings(value, key):
            if item in ("system", "certifi"):
                source = TrustSource(kind=item, origin=origin)  # type: ignore[arg-type]
                sources.append(self.usable(source, key))
                continue
            sources.append(self.ca_path(item, key, origin))
        return tuple(sources)

    def ca_path(self, item: str, key: KeyPath, origin: Origin) -> TrustSource:
        path = self.path_of(item)
        if os.path.isdir(path):
            return self.usable(TrustSource(kind="directory", path=path, origin=origin), key)
        if not os.path.exists(path):
            raise self.error(key, f"CA file or directory {path!r} does not exist")
        return self.usable(TrustSource(kind="file", path=path, origin=origin), key)

    def usable(self, source: TrustSource, key: KeyPath) -> TrustSource:
        """Check now that a source works, so that it never fails at a handshake."""
        try:
            self.check_source(source)
        except Exception as exc:
            from sslcustomize.exceptions import TrustError  # noqa: PLC0415 - loaded with an error, not by a first context

            if not isinstance(exc, TrustError):
                raise
            raise self.error(key, str(exc)) from None
        return source


def _dotted(key: KeyPath) -> str:
    import json  # noqa: PLC0415 - only for error messages; not loaded by hooked processes
    import re  # noqa: PLC0415 - the same: ssl itself no longer imports re on 3.15 (issue 35)

    text = ""
    for part in key:
        if isinstance(part, int):
            text += f"[{part + 1}]"
        else:
            shown = part if re.fullmatch(r"[A-Za-z0-9_-]+", part) else json.dumps(part)
            text += f".{shown}" if text else shown
    return text


_TOP_KEYS = (
    "version", "mode", "trust", "minimum_tls", "allow_code_opt_out", "lock", "report",
    "exception", "context", "exception_days",
)  # fmt: skip
_REPORT_KEYS = ("sink", "path", "group", "quiet")
_EXCEPTION_KEYS = ("host", "pin", "ca", "check_hostname", "mode", "expires", "reason")
_CONTEXT_KEYS = ("mode", "trust", "minimum_tls", "allow_code_opt_out")


def parse_policy(text: str, *, path: str, layer: str, check_source: SourceCheck) -> LayerFile:
    """Validate one policy file.

    Args:
        text: The file's contents.
        path: Its path, used in messages and to resolve relative CA paths.
        layer: ``system``, ``venv``, ``user`` or ``process``.
        check_source: Checks that each trust source works now (``_trust.check_source``), so
            that a source never fails at a handshake; its ``TrustError`` becomes a
            ``PolicyError`` naming the line. Required: no caller can skip the check.

    Returns:
        The validated settings of that one file.

    Raises:
        PolicyError: The file is not valid TOML or not a valid policy; the error names the
            file, the line and the key.
    """
    try:
        return _parse_policy(text, path=path, layer=layer, check_source=check_source)
    except RecursionError:
        from sslcustomize.exceptions import PolicyError  # noqa: PLC0415 - loaded with an error, not by a first context

        raise PolicyError("nested too deeply to be a policy", path=path) from None


def _toml_parser() -> Any:
    """Return tomllib, or tomli on Python 3.10."""
    if sys.version_info >= (3, 11):
        import tomllib  # noqa: PLC0415 - only when a policy file is read

        return tomllib
    return _tomli_beside()  # pragma: no cover - Python 3.10


def package_parent() -> str:
    """Return the directory that holds the ``sslcustomize`` package.

    A private runtime ships ``tomli`` there, beside the package. Found from the package, not
    from this module's own depth, which a move of modules changes.
    """
    package = sys.modules[__name__.partition(".")[0]]
    return os.path.dirname(os.path.dirname(os.path.abspath(str(package.__file__))))


def _tomli_beside() -> Any:  # pragma: no cover - Python 3.10
    """Return tomli from beside this package (a private runtime ships it there), else any.

    Not the first ``tomli`` on ``sys.path``: that may be the current directory (issue 22 #1).
    """
    if "tomli" in sys.modules:
        found = sys.modules["tomli"]
        if found is None:  # imports of it are blocked, as `import tomli` would say
            raise ImportError("import of tomli halted; None in sys.modules", name="tomli")
        return found
    import importlib.machinery  # noqa: PLC0415 - Python 3.10 only
    import importlib.util  # noqa: PLC0415 - Python 3.10 only

    spec = importlib.machinery.PathFinder.find_spec("tomli", [package_parent()])
    if spec is None or spec.loader is None:
        import tomli  # noqa: PLC0415 - installed elsewhere (a venv's own)

        return tomli
    module = importlib.util.module_from_spec(spec)
    sys.modules["tomli"] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        sys.modules.pop("tomli", None)
        raise
    return module


def _toml_tree(text: str, path: str) -> dict[str, Any]:
    """Parse ``text`` as TOML (see :mod:`._tomlcache`: parsed once per version of a file).

    Raises:
        PolicyError: It is not valid TOML, or this Python has no TOML parser.
    """
    try:
        tomllib = _toml_parser()
    except ImportError:
        from sslcustomize.exceptions import PolicyError  # noqa: PLC0415 - loaded with an error, not by a first context

        raise PolicyError(
            "no TOML parser: this Python has no tomllib and tomli cannot be imported "
            "(pip install tomli, or reinstall sslcustomize)",
            path=path,
        ) from None
    try:
        data: dict[str, Any] = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        import re  # noqa: PLC0415 - only for a broken file: not on the first context's path

        from sslcustomize.exceptions import PolicyError  # noqa: PLC0415 - loaded with an error, not by a first context

        line = re.search(r"line (\d+)", str(exc))
        # "at end of document" names no line: the last one is where the document ended.
        where = int(line.group(1)) if line else max(1, len(text.splitlines()))
        raise PolicyError(f"not valid TOML: {exc}", path=path, line=where) from None
    return data


def _locate_keys(text: str) -> dict[KeyPath, int]:
    """Find each key's line (:func:`._lines.locate_keys`), loaded only when the cache misses."""
    from sslcustomize._policy._lines import locate_keys  # noqa: PLC0415 - a warm cache needs no locating

    return locate_keys(text)


def _parse_policy(text: str, *, path: str, layer: str, check_source: SourceCheck) -> LayerFile:
    data, lines = cached_parse(
        text, path, lambda source: _toml_tree(source, path), _locate_keys, system=layer == "system"
    )
    reader = _Reader(lines, path, layer, check_source)
    reader.check_keys(data, _TOP_KEYS, ())
    version = data.get("version", SCHEMA_VERSION)
    if version != SCHEMA_VERSION or isinstance(version, bool):
        raise reader.error(("version",), f"this sslcustomize reads version 1, not {version!r}")
    scalars: dict[str, Setting[Any]] = {}
    if "mode" in data:
        scalars["mode"] = reader.setting(reader.choice(data["mode"], MODES, ("mode",)), ("mode",))
    if "minimum_tls" in data:
        version_text = reader.choice(data["minimum_tls"], TLS_VERSIONS, ("minimum_tls",))
        scalars["minimum_tls"] = reader.setting(version_text, ("minimum_tls",))
    if "allow_code_opt_out" in data:
        allowed = reader.boolean(data["allow_code_opt_out"], ("allow_code_opt_out",))
        scalars["allow_code_opt_out"] = reader.setting(allowed, ("allow_code_opt_out",))
    if "report" in data:
        _read_report(reader, data["report"], scalars)
    if "exception_days" in data:
        days = data["exception_days"]
        if not isinstance(days, int) or isinstance(days, bool) or not 0 <= days <= 36500:
            raise reader.error(
                ("exception_days",), f"must be a number of days (0 for none), not {days!r}"
            )
        scalars["exception_days"] = reader.setting(days, ("exception_days",))
    trust = reader.trust(data["trust"], ("trust",)) if "trust" in data else ()
    lock = _read_lock(reader, data.get("lock"), layer) if "lock" in data else {}
    exceptions = tuple(_read_exceptions(reader, data.get("exception", [])))
    contexts = _read_contexts(reader, data.get("context", {}))
    return LayerFile(
        layer=layer,
        path=path,
        scalars=scalars,
        trust=trust,
        trust_origin=reader.origin(("trust",)) if "trust" in data else None,
        exceptions=exceptions,
        contexts=contexts,
        lock=lock,
    )


def _read_report(reader: _Reader, table: Any, scalars: dict[str, Setting[Any]]) -> None:
    if not isinstance(table, dict):
        raise reader.error(("report",), "must be a table: write [report] with sink = ...")
    reader.check_keys(table, _REPORT_KEYS, ("report",))
    if "sink" in table:
        sink = reader.choice(table["sink"], SINKS, ("report", "sink"))
        scalars["report_sink"] = reader.setting(sink, ("report", "sink"))
    if "path" in table:
        path = reader.path_of(reader.string(table["path"], ("report", "path")))
        scalars["report_path"] = reader.setting(path, ("report", "path"))
    if "group" in table:
        group = reader.string(table["group"], ("report", "group"))
        import grp  # noqa: PLC0415 - only for a shared log

        try:
            grp.getgrnam(group)
        except KeyError:
            raise reader.error(("report", "group"), f"no group named {group!r}") from None
        scalars["report_group"] = reader.setting(group, ("report", "group"))
    if "quiet" in table:
        quiet = reader.boolean(table["quiet"], ("report", "quiet"))
        scalars["report_quiet"] = reader.setting(quiet, ("report", "quiet"))


def _read_lock(reader: _Reader, value: Any, layer: str) -> dict[str, Origin]:
    if layer != "system":
        raise reader.error(("lock",), "only the system layer (/etc/sslcustomize) may lock keys")
    locked = {}
    for key in reader.strings(value, ("lock",)):
        if key not in LOCKABLE:
            raise reader.error(("lock",), f"cannot lock {key!r}; lockable: {', '.join(LOCKABLE)}")
        locked[key] = reader.origin(("lock",))
    return locked


def _read_exceptions(reader: _Reader, value: Any) -> list[HostException]:
    if not isinstance(value, list):
        raise reader.error(("exception",), "write each exception as an [[exception]] table")
    result = []
    for index, table in enumerate(value):
        at: KeyPath = ("exception", index)
        if not isinstance(table, dict):
            raise reader.error(at, "write each exception as an [[exception]] table")
        reader.check_keys(table, _EXCEPTION_KEYS, at)
        result.append(_read_exception(reader, table, at))
    return result


def _read_exception(reader: _Reader, table: dict[str, Any], at: KeyPath) -> HostException:
    host = _read_exception_host(reader, table, at)
    if "reason" not in table:
        raise reader.error(at, "an exception needs reason = '...' (why it exists, a ticket)")
    reason = reader.string(table["reason"], (*at, "reason"))
    pins = tuple(
        _read_pin(reader, pin, (*at, "pin"))
        for pin in reader.strings(table.get("pin", []), (*at, "pin"))
    )
    origin = reader.origin((*at, "ca"))
    ca = tuple(
        reader.ca_path(item, (*at, "ca"), origin)
        for item in reader.strings(table.get("ca", []), (*at, "ca"))
    )
    check_hostname = reader.boolean(table.get("check_hostname", True), (*at, "check_hostname"))
    if not check_hostname and not pins:
        raise reader.error(
            (*at, "check_hostname"), "check_hostname = false is allowed only together with pin"
        )
    mode = reader.choice(table["mode"], MODES, (*at, "mode")) if "mode" in table else None
    expires = _read_expires(reader, table.get("expires"), (*at, "expires"))
    if not pins and not ca and mode is None:
        raise reader.error(at, "an exception must set pin, ca or mode, or it changes nothing")
    return HostException(
        host=host,
        pins=pins,
        ca=ca,
        check_hostname=check_hostname,
        mode=mode,  # type: ignore[arg-type]
        expires_day=expires,
        reason=reason,
        origin=reader.origin(at),
        mode_origin=reader.origin((*at, "mode")) if mode is not None else None,
    )


def _read_exception_host(reader: _Reader, table: dict[str, Any], at: KeyPath) -> HostPattern:
    if "host" not in table:
        raise reader.error(at, "an exception needs host = '...'")
    try:
        return parse_host_pattern(reader.string(table["host"], (*at, "host")))
    except ValueError as exc:
        raise reader.error((*at, "host"), f"bad host pattern {table['host']!r}: {exc}") from None


def _read_expires(reader: _Reader, expires: Any, key: KeyPath) -> int | None:
    """Return the ordinal of an ``expires`` date (a cached one needs no :mod:`datetime`)."""
    if expires is None:
        return None
    if isinstance(expires, CachedDate):
        return expires.day
    import datetime  # noqa: PLC0415 - only for a freshly parsed date (the parser loaded it)

    if not isinstance(expires, datetime.date) or isinstance(expires, datetime.datetime):
        raise reader.error(key, f"must be a TOML date like 2027-03-01, not {expires!r}")
    return expires.toordinal()


def _read_pin(reader: _Reader, text: str, key: KeyPath) -> str:
    # sha256/, 43 base64 characters and one '=': checked without re (compiling a pattern cost
    # ~0.1 ms of a hooked process's first context), then decoded to exactly 32 bytes.
    encoded = text.strip().removeprefix(_PIN_PREFIX)
    valid = False
    if (
        text.strip().startswith(_PIN_PREFIX)
        and len(encoded) == 44
        and encoded[-1] == "="
        and _BASE64.issuperset(encoded[:43])
    ):
        try:
            valid = len(base64.b64decode(encoded, validate=True)) == 32
        except binascii.Error:
            valid = False
    if not valid:
        raise reader.error(
            key, f"bad pin {text!r}: write 'sha256/' and the base64 SHA-256 of the key (44 chars)"
        )
    return text.strip()


def _read_contexts(reader: _Reader, value: Any) -> dict[str, ContextRule]:
    if not isinstance(value, dict):
        raise reader.error(("context",), 'write named contexts as [context."name"] tables')
    rules = {}
    for name, table in value.items():
        at: KeyPath = ("context", name)
        if not isinstance(table, dict):
            raise reader.error(at, 'write named contexts as [context."name"] tables')
        if not _dotted_module_name(name):
            raise reader.error(at, f"{name!r} is not a dotted module name")
        reader.check_keys(table, _CONTEXT_KEYS, at)
        rules[name] = ContextRule(
            name=name,
            origin=reader.origin(at),
            mode=_optional(reader, table, at, "mode", lambda v, k: reader.choice(v, MODES, k)),
            trust=_optional(reader, table, at, "trust", reader.trust),
            minimum_tls=_optional(
                reader, table, at, "minimum_tls", lambda v, k: reader.choice(v, TLS_VERSIONS, k)
            ),
            allow_code_opt_out=_optional(reader, table, at, "allow_code_opt_out", reader.boolean),
        )
    return rules


def _dotted_module_name(name: str) -> bool:
    """Tell whether ``name`` is ASCII identifiers joined by dots (``myapp.billing``)."""
    return name.isascii() and all(part.isidentifier() for part in name.split("."))


def _optional(reader: _Reader, table: dict[str, Any], at: KeyPath, key: str, read: Any) -> Any:
    if key not in table:
        return None
    return reader.setting(read(table[key], (*at, key)), (*at, key))


def read_layer(layer: str, path: str, *, check_source: SourceCheck) -> LayerFile:
    """Read and validate one policy file (``check_source`` as for :func:`parse_policy`).

    Raises:
        PolicyError: It cannot be read or is not a valid policy.
    """
    return parse_policy(read_text(path), path=path, layer=layer, check_source=check_source)


def read_text(path: str) -> str:
    """Read a policy file: a regular file (symlinks to one are fine), UTF-8, at most 1 MiB.

    A FIFO, a device (``/dev/zero``, ``/dev/stdin``), a socket or a directory is refused
    without reading a byte: it is opened non-blocking (a FIFO with no writer would hang) and
    checked with ``fstat`` on the open descriptor, so a swap after the check changes nothing.
    Symlinks are followed: configuration management often links ``/etc`` files.

    Raises:
        PolicyError: It cannot be read, is not a regular file, is too big or not UTF-8.
    """
    try:
        return read_regular(path, MAX_POLICY_SIZE).decode("utf-8")
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        from sslcustomize.exceptions import PolicyError  # noqa: PLC0415 - loaded with an error, not by a first context

        if isinstance(exc, UnicodeDecodeError):
            message = f"not UTF-8 ({exc})"
        elif isinstance(exc, OSError):
            message = exc.strerror or str(exc)
        else:
            message = str(exc)
        raise PolicyError(f"cannot read the policy file: {message}", path=path) from None
