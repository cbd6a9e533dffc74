"""Load policy files, validate them, merge the layers, and remember where each setting came from.

Layers, in order: system, venv, user, process (``SSLCUSTOMIZE_POLICY``). Lists (``trust``,
``exception``) accumulate; scalars override; the system layer's ``lock`` keeps later layers
from changing the keys it names, wherever the key appears (top level, ``[context.*]``,
``[[exception]]``). Any error makes :func:`load_policy` return the fail-closed fallback
together with the error: a valid system layer exactly as written (its locks included) in
enforce mode, or, when the system layer itself is broken, the strict defaults.
"""

from __future__ import annotations

import base64
import binascii
import datetime as dt
import os
import re
import sys
from collections.abc import Mapping

import _sslcustomize_startup as _startup

from ._files import read_regular
from ._frozen import dataclass, field, replace
from ._hosts import HostIndex, HostPattern, parse_host_pattern
from ._tomlcache import cached_parse
from .exceptions import PolicyError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Generic, Literal, TypeVar

    from ._envtrust import EnvTrust
else:
    from ._notyping import Generic, Literal, TypeVar


__all__ = [
    "DEFAULT_EXCEPTION_DAYS",
    "ContextRule",
    "HostException",
    "LayerFile",
    "Origin",
    "Policy",
    "Setting",
    "TrustSource",
    "load_policy",
    "merge_layers",
    "parse_policy",
]

T = TypeVar("T")
Mode = Literal["enforce", "report"]
SourceKind = Literal["system", "certifi", "file", "directory"]
MODES = ("enforce", "report")
TLS_VERSIONS = ("1.2", "1.3")
SINKS = ("sqlite", "jsonl", "journal", "syslog", "log", "none")
LOCKABLE = ("mode", "trust", "minimum_tls", "allow_code_opt_out", "exception", "context", "report")
SCHEMA_VERSION = 1
#: Policy files larger than this are refused unread (a real one is a few KB).
MAX_POLICY_SIZE = 1024 * 1024
_PIN = r"^sha256/([A-Za-z0-9+/]{43}=)$"


@dataclass(frozen=True, slots=True, kw_only=True)
class Origin:
    """Where a setting came from: layer, file and 1-based line (no file for built-in defaults)."""

    layer: str
    path: str | None = None
    line: int | None = None

    def __str__(self) -> str:
        """Return ``path:line``, or ``<default>`` for a built-in value."""
        if self.path is None:
            return f"<{self.layer}>"
        return self.path if self.line is None else f"{self.path}:{self.line}"


DEFAULT = Origin(layer="default")


@dataclass(frozen=True, slots=True, kw_only=True)
class Setting(Generic[T]):
    """An effective value and where it came from."""

    value: T
    origin: Origin = DEFAULT


@dataclass(frozen=True, slots=True, kw_only=True)
class TrustSource:
    """One source of trust anchors.

    Attributes:
        kind: ``system`` (the platform store), ``certifi``, ``file`` (a PEM bundle) or
            ``directory`` (an OpenSSL hashed directory).
        path: The file or directory for ``file`` and ``directory``.
        origin: Where the policy named it.
    """

    kind: SourceKind
    path: str | None = None
    origin: Origin = DEFAULT

    def __str__(self) -> str:
        """Return the source as a policy file writes it."""
        return self.path if self.path is not None else self.kind


SYSTEM_TRUST = (TrustSource(kind="system"),)


@dataclass(frozen=True, slots=True, kw_only=True)
class HostException:
    """A scoped exception for one host pattern (``[[exception]]``)."""

    host: HostPattern
    pins: tuple[str, ...] = ()
    ca: tuple[TrustSource, ...] = ()
    check_hostname: bool = True
    mode: Mode | None = None
    expires: dt.date | None = None
    reason: str
    origin: Origin
    mode_origin: Origin | None = None

    def expired(self, today: dt.date) -> bool:
        """Tell whether the exception no longer applies on ``today`` (on or after ``expires``)."""
        return self.expires is not None and today >= self.expires


@dataclass(frozen=True, slots=True, kw_only=True)
class ContextRule:
    """Settings for a named context (``[context."name"]``); ``None`` means not set there."""

    name: str
    origin: Origin
    mode: Setting[Mode] | None = None
    trust: Setting[tuple[TrustSource, ...]] | None = None
    minimum_tls: Setting[str] | None = None
    allow_code_opt_out: Setting[bool] | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class LayerFile:
    """One policy file as validated, before merging."""

    layer: str
    path: str
    scalars: Mapping[str, Setting[Any]]
    trust: tuple[TrustSource, ...] = ()
    trust_origin: Origin | None = None
    exceptions: tuple[HostException, ...] = ()
    contexts: Mapping[str, ContextRule] = field(default_factory=dict)
    lock: Mapping[str, Origin] = field(default_factory=dict)


#: How long an exception added by ``sslcustomize trust`` lives unless told (``exception_days``).
DEFAULT_EXCEPTION_DAYS = 90


@dataclass(frozen=True, slots=True, kw_only=True)
class Policy:
    """The effective policy of the process, with provenance.

    Attributes:
        errors: Why the files could not be used. When not empty, this policy is the strict
            fallback and ``fallback`` is true.
        warnings: Settings that were ignored (locked keys), each naming file and line.
        files: The files that were read, in merge order.
        environment: The CA-bundle environment variables (``REQUESTS_CA_BUNDLE``,
            ``SSL_CERT_FILE``...) as this policy reads them: added or ignored (see
            :mod:`._envtrust`).
    """

    mode: Setting[Mode] = Setting(value="enforce")
    trust: tuple[TrustSource, ...] = SYSTEM_TRUST
    minimum_tls: Setting[str] = Setting(value="1.2")
    allow_code_opt_out: Setting[bool] = Setting(value=True)
    report_sink: Setting[str] = Setting(value="sqlite")
    report_path: Setting[str | None] = Setting(value=None)
    report_group: Setting[str | None] = Setting(value=None)
    exception_days: Setting[int] = Setting(value=DEFAULT_EXCEPTION_DAYS)
    exceptions: tuple[HostException, ...] = ()
    contexts: Mapping[str, ContextRule] = field(default_factory=dict)
    locked: Mapping[str, Origin] = field(default_factory=dict)
    files: tuple[LayerFile, ...] = ()
    errors: tuple[PolicyError, ...] = ()
    warnings: tuple[str, ...] = ()
    environment: tuple[EnvTrust, ...] = ()
    index: HostIndex[HostException] = field(default_factory=HostIndex, compare=False)

    @property
    def fallback(self) -> bool:
        """Tell whether this is the fail-closed fallback after an error."""
        return bool(self.errors)

    @property
    def fallback_summary(self) -> str:
        """Say in a few words what applies while the errors last (for the one stderr line)."""
        if any(layer.layer == "system" for layer in self.files):
            return "the system policy as written, in enforce mode, without the other layers"
        return "strict defaults (system trust store, enforce mode, no exceptions)"


# --- Locating keys in the source text -------------------------------------------------------
# Patterns are kept as text: ``re`` compiles (and caches) one when it is first used, so a
# process whose policy needs none of them never pays for compiling them.

_KEY_PART = r"""[A-Za-z0-9_-]+|"(?:[^"\\]|\\.)*"|'[^']*'"""
_HEADER = rf"^\s*(\[\[?)\s*((?:{_KEY_PART})(?:\s*\.\s*(?:{_KEY_PART}))*)\s*\]"
_ASSIGN = rf"^\s*((?:{_KEY_PART})(?:\s*\.\s*(?:{_KEY_PART}))*)\s*="

KeyPath = tuple[str | int, ...]


_ESCAPE = r"(?s)\\(?:u([0-9A-Fa-f]{4})|U([0-9A-Fa-f]{8})|(.))"
_SIMPLE_ESCAPES = {"b": "\b", "t": "\t", "n": "\n", "f": "\f", "r": "\r", '"': '"', "\\": "\\"}


def _unescape(body: str) -> str:
    r"""Decode a TOML basic string's escapes (``\U0001F600`` too, which JSON lacks)."""

    def one(match: re.Match[str]) -> str:
        code = match.group(1) or match.group(2)
        if code is not None:
            try:
                return chr(int(code, 16))
            except (ValueError, OverflowError):
                return "\ufffd"
        return _SIMPLE_ESCAPES.get(match.group(3), match.group(3))

    return re.sub(_ESCAPE, one, body)


def _split_key(text: str) -> list[str]:
    parts = []
    for token in re.findall(_KEY_PART, text):
        if token.startswith('"'):
            parts.append(_unescape(token[1:-1]))
        elif token.startswith("'"):
            parts.append(token[1:-1])
        else:
            parts.append(token)
    return parts


def locate_keys(text: str) -> dict[KeyPath, int]:
    """Map each key path (``("exception", 0, "pin")``) to the line that sets it.

    A light scan, not a parser: it runs only on text that ``tomllib`` already accepted and
    is used for messages, so a line it cannot place falls back to the enclosing table's.
    """
    lines: dict[KeyPath, int] = {}
    table: KeyPath = ()
    arrays: dict[tuple[str, ...], int] = {}
    in_multiline = False
    # TOML ends lines at \n only: str.splitlines() would also split at \x85 or \u2028.
    for number, line in enumerate(text.split("\n"), start=1):
        quotes = line.count('"""') + line.count("'''")
        if in_multiline:
            in_multiline = quotes % 2 == 0
            continue
        if quotes % 2 == 1:
            in_multiline = True
        header = re.match(_HEADER, line)
        if header:
            names = tuple(_split_key(header.group(2)))
            if header.group(1) == "[[":
                arrays[names] = arrays.get(names, -1) + 1
                table = (*names, arrays[names])
            else:
                table = names
            lines.setdefault(table, number)
            continue
        assign = re.match(_ASSIGN, line)
        if assign:
            lines.setdefault((*table, *_split_key(assign.group(1))), number)
    return lines


# --- Validation -------------------------------------------------------------------------------


class _Reader:
    """Validate one file's parsed TOML, raising PolicyError with path, line and key."""

    def __init__(self, lines: dict[KeyPath, int], path: str, layer: str) -> None:
        self.path = path
        self.layer = layer
        self.base = os.path.dirname(os.path.abspath(path))
        self.lines = lines

    def origin(self, key: KeyPath) -> Origin:
        for end in range(len(key), 0, -1):
            line = self.lines.get(key[:end])
            if line is not None:
                return Origin(layer=self.layer, path=self.path, line=line)
        return Origin(layer=self.layer, path=self.path, line=None)

    def error(self, key: KeyPath, problem: str) -> PolicyError:
        return PolicyError(problem, path=self.path, line=self.origin(key).line, key=_dotted(key))

    def check_keys(self, table: Mapping[str, Any], allowed: tuple[str, ...], at: KeyPath) -> None:
        for key in table:
            if key not in allowed:
                hint = f"; expected one of: {', '.join(allowed)}"
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
        from ._trust import TrustError, check_source  # noqa: PLC0415 - _trust imports this module

        try:
            check_source(source)
        except TrustError as exc:
            raise self.error(key, str(exc)) from None
        return source


def _dotted(key: KeyPath) -> str:
    import json  # noqa: PLC0415 - only for error messages; not loaded by hooked processes

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
_REPORT_KEYS = ("sink", "path", "group")
_EXCEPTION_KEYS = ("host", "pin", "ca", "check_hostname", "mode", "expires", "reason")
_CONTEXT_KEYS = ("mode", "trust", "minimum_tls", "allow_code_opt_out")


def parse_policy(text: str, *, path: str, layer: str) -> LayerFile:
    """Validate one policy file.

    Args:
        text: The file's contents.
        path: Its path, used in messages and to resolve relative CA paths.
        layer: ``system``, ``venv``, ``user`` or ``process``.

    Returns:
        The validated settings of that one file.

    Raises:
        PolicyError: The file is not valid TOML or not a valid policy; the error names the
            file, the line and the key.
    """
    try:
        return _parse_policy(text, path=path, layer=layer)
    except RecursionError:
        raise PolicyError("nested too deeply to be a policy", path=path) from None


def _toml_parser() -> Any:
    """Return tomllib, or tomli on Python 3.10."""
    if sys.version_info >= (3, 11):
        import tomllib  # noqa: PLC0415 - only when a policy file is read

        return tomllib
    return _tomli_beside()  # pragma: no cover - Python 3.10


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

    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    spec = importlib.machinery.PathFinder.find_spec("tomli", [here])
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
        raise PolicyError(
            "no TOML parser: this Python has no tomllib and tomli cannot be imported "
            "(pip install tomli, or reinstall sslcustomize)",
            path=path,
        ) from None
    try:
        data: dict[str, Any] = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        line = re.search(r"line (\d+)", str(exc))
        raise PolicyError(
            f"not valid TOML: {exc}", path=path, line=int(line.group(1)) if line else None
        ) from None
    return data


def _parse_policy(text: str, *, path: str, layer: str) -> LayerFile:
    data, lines = cached_parse(
        text, path, lambda source: _toml_tree(source, path), locate_keys, system=layer == "system"
    )
    reader = _Reader(lines, path, layer)
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
    if "host" not in table:
        raise reader.error(at, "an exception needs host = '...'")
    try:
        host = parse_host_pattern(reader.string(table["host"], (*at, "host")))
    except ValueError as exc:
        raise reader.error((*at, "host"), f"bad host pattern {table['host']!r}: {exc}") from None
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
    expires = table.get("expires")
    if expires is not None and (
        not isinstance(expires, dt.date) or isinstance(expires, dt.datetime)
    ):
        raise reader.error(
            (*at, "expires"), f"must be a TOML date like 2027-03-01, not {expires!r}"
        )
    if not pins and not ca and mode is None:
        raise reader.error(at, "an exception must set pin, ca or mode, or it changes nothing")
    return HostException(
        host=host,
        pins=pins,
        ca=ca,
        check_hostname=check_hostname,
        mode=mode,  # type: ignore[arg-type]
        expires=expires,
        reason=reason,
        origin=reader.origin(at),
        mode_origin=reader.origin((*at, "mode")) if mode is not None else None,
    )


def _read_pin(reader: _Reader, text: str, key: KeyPath) -> str:
    match = re.match(_PIN, text.strip())
    valid = False
    if match:
        try:
            valid = len(base64.b64decode(match.group(1), validate=True)) == 32
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
        if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*", name):
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


def _optional(reader: _Reader, table: dict[str, Any], at: KeyPath, key: str, read: Any) -> Any:
    if key not in table:
        return None
    return reader.setting(read(table[key], (*at, key)), (*at, key))


# --- Merging ----------------------------------------------------------------------------------

_CONTEXT_LOCKS = ("mode", "trust", "minimum_tls", "allow_code_opt_out")


def merge_layers(layers: list[LayerFile]) -> Policy:
    """Merge validated layers in order, honouring the system layer's locks.

    Args:
        layers: Validated files, system layer first.

    Returns:
        The effective policy; ``warnings`` lists every locked key a later layer tried to set.
    """
    scalars: dict[str, Setting[Any]] = {}
    trust: list[TrustSource] = []
    trust_set = False
    exceptions: list[HostException | None] = []
    contexts: dict[str, ContextRule] = {}
    locked: dict[str, Origin] = {}
    warnings: list[str] = []

    def allowed(key: str, origin: Origin | None, layer: LayerFile) -> bool:
        if key not in locked or layer.layer == "system":
            return True
        where = origin or Origin(layer=layer.layer, path=layer.path)
        warnings.append(f"{where}: {key!r} is locked by {locked[key]}; the locked value stands")
        return False

    for layer in layers:
        for key, setting in layer.scalars.items():
            lock_key = "report" if key.startswith("report_") else key
            if allowed(lock_key, setting.origin, layer):
                scalars[key] = setting
        if layer.trust and allowed("trust", layer.trust_origin, layer):
            if not trust_set:
                trust = []  # the first layer that names trust replaces the built-in default
                trust_set = True
            trust.extend(s for s in layer.trust if s not in trust)
        if layer.exceptions and allowed("exception", layer.exceptions[0].origin, layer):
            exceptions.extend(_locked_exception(e, layer, allowed) for e in layer.exceptions)
        for name, rule in layer.contexts.items():
            if not allowed("context", rule.origin, layer):
                continue
            contexts[name] = _merge_context(contexts.get(name), rule, locked, layer, allowed)
        locked.update(layer.lock)
    defaults = Policy()
    return Policy(
        mode=scalars.get("mode", defaults.mode),
        minimum_tls=scalars.get("minimum_tls", defaults.minimum_tls),
        allow_code_opt_out=scalars.get("allow_code_opt_out", defaults.allow_code_opt_out),
        report_sink=scalars.get("report_sink", defaults.report_sink),
        report_path=scalars.get("report_path", defaults.report_path),
        report_group=scalars.get("report_group", defaults.report_group),
        exception_days=scalars.get("exception_days", defaults.exception_days),
        trust=tuple(trust) if trust_set else SYSTEM_TRUST,
        exceptions=tuple(e for e in exceptions if e is not None),
        contexts=contexts,
        locked=locked,
        files=tuple(layers),
        warnings=tuple(warnings),
        index=HostIndex((e.host, e) for e in exceptions if e is not None),
    )


def _locked_exception(
    exception: HostException, layer: LayerFile, allowed: Any
) -> HostException | None:
    """Apply a lock on ``mode`` to an exception's own ``mode`` (a per-host mode is a mode).

    The locked mode stands: the exception keeps its pins and CAs; one that only changed the
    mode then changes nothing and is dropped.
    """
    if exception.mode is None or allowed("mode", exception.mode_origin, layer):
        return exception
    if not exception.pins and not exception.ca:
        return None
    return replace(exception, mode=None, mode_origin=None)


def _merge_context(
    old: ContextRule | None,
    new: ContextRule,
    locked: Mapping[str, Origin],
    layer: LayerFile,
    allowed: Any,
) -> ContextRule:
    values: dict[str, Any] = {}
    for key in _CONTEXT_LOCKS:
        setting = getattr(new, key)
        if setting is not None and (key not in locked or allowed(key, setting.origin, layer)):
            values[key] = setting
        elif old is not None:
            values[key] = getattr(old, key)
    return ContextRule(name=new.name, origin=new.origin, **values)


def fallback_policy(errors: list[PolicyError], layers: list[LayerFile]) -> Policy:
    """Return the fail-closed fallback after ``errors``.

    A valid system layer stands exactly as written, its locks included, in enforce mode: a
    typo in a user file must not drop the administrator's trust list or locks. Without one (no
    system file, or the system file is the broken one) the strict defaults apply: system
    trust, enforce, no exceptions, no named contexts.

    Stricter settings that other valid layers chose still hold unless the system layer locked
    them: the highest ``minimum_tls`` and ``allow_code_opt_out = false``. A broken file never
    loosens anything.

    Args:
        errors: Why the files could not be used (at least one).
        layers: The files that were read and are valid, in merge order.
    """
    system = [layer for layer in layers if layer.layer == "system"]
    base = merge_layers(system) if system else Policy()
    minimum = max(
        (
            lay.scalars["minimum_tls"]
            for lay in layers
            if "minimum_tls" in lay.scalars and "minimum_tls" not in base.locked
        ),
        key=lambda s: s.value,
        default=base.minimum_tls,
    )
    minimum = max(minimum, base.minimum_tls, key=lambda s: s.value)
    refusals = [
        lay.scalars["allow_code_opt_out"]
        for lay in layers
        if "allow_code_opt_out" in lay.scalars
        and not lay.scalars["allow_code_opt_out"].value
        and "allow_code_opt_out" not in base.locked
    ]
    allow = base.allow_code_opt_out
    if allow.value and refusals:
        allow = refusals[0]
    return replace(
        base,
        mode=Setting(value="enforce"),
        minimum_tls=minimum,
        allow_code_opt_out=allow,
        files=tuple(system),
        errors=tuple(errors),
        warnings=(),
    )


def policy_files() -> list[tuple[str, str, bool]]:
    """Return ``(layer, path, required)`` for every file that makes up the policy, in order.

    System, venv and user files are read when they exist; files named by
    ``SSLCUSTOMIZE_POLICY`` must exist.
    """
    files = [(layer, path, False) for layer, path in _startup.layer_paths()]
    files += [("process", path, True) for path in _startup.process_policy_paths()]
    return files


def read_layer(layer: str, path: str) -> LayerFile:
    """Read and validate one policy file.

    Raises:
        PolicyError: It cannot be read or is not a valid policy.
    """
    return parse_policy(read_text(path), path=path, layer=layer)


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
    except OSError as exc:
        problem = exc.strerror or str(exc)
        raise PolicyError(f"cannot read the policy file: {problem}", path=path) from None
    except UnicodeDecodeError as exc:
        raise PolicyError(f"cannot read the policy file: not UTF-8 ({exc})", path=path) from None
    except ValueError as exc:
        raise PolicyError(f"cannot read the policy file: {exc}", path=path) from None


def _absent(path: str) -> bool:
    """Tell whether an optional layer's file is absent (not merely unreadable).

    A dangling symlink or a directory this user cannot search is not absence: reading it
    fails, and the failure is an error (fail closed), never "no policy".
    """
    try:
        os.lstat(path)
    except (FileNotFoundError, NotADirectoryError):
        return True
    except OSError:
        return False
    return False


def load_policy(
    files: list[tuple[str, str, bool]] | None = None,
    *,
    environ: Mapping[str, str] | None = None,
) -> Policy:
    """Read every layer and return the effective policy; never raises for bad files.

    Args:
        files: ``(layer, path, required)`` triples; defaults to :func:`policy_files`.
        environ: Where to read the CA-bundle variables (``REQUESTS_CA_BUNDLE``...);
            defaults to ``os.environ``.

    Returns:
        The merged policy, or the strict fallback with ``errors`` set.
    """
    policy = _load_layers(files)
    from ._envtrust import read_environment  # noqa: PLC0415 - _envtrust imports this module

    return replace(policy, environment=read_environment(policy.locked, environ))


def _load_layers(files: list[tuple[str, str, bool]] | None) -> Policy:
    layers: list[LayerFile] = []
    errors: list[PolicyError] = []
    for layer, path, required in files if files is not None else policy_files():
        if not required and _absent(path):
            continue
        try:
            layers.append(read_layer(layer, path))
        except PolicyError as exc:
            errors.append(exc)
    if errors:
        return fallback_policy(errors, layers)
    return merge_layers(layers)
