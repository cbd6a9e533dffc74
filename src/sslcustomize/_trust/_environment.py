"""CA-bundle environment variables under a policy: one meaning for every client.

Without sslcustomize, ``REQUESTS_CA_BUNDLE``, ``CURL_CA_BUNDLE``, ``PIP_CERT`` (and pip's
``cert`` setting) *replace* what requests and pip trust, and ``SSL_CERT_FILE`` and
``SSL_CERT_DIR`` replace OpenSSL's default store. Under an active policy each of them instead
*adds* its CAs to the policy's trust anchors for the clients that read it, as
``sslcustomize run --ca`` adds a bundle, unless the system layer locks ``trust``: then the
variable is ignored for every client, said once per process on stderr and recorded once.

The variables are read with the policy (:func:`read_environment`), so the policy value carries
them: the decision for a context adds the sources of the variables that apply to it, and
``check``, ``explain``, ``doctor`` and a rejection all read the same entries.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping

from sslcustomize._policy._model import EnvState, EnvTrust, Origin, TrustSource, clients_text
from sslcustomize._trust._anchors import TrustCache, is_hashed_directory

TYPE_CHECKING = False
if TYPE_CHECKING:
    from sslcustomize._policy._model import SourceKind

__all__ = [
    "CALL_TIME_VARIABLES",
    "PIP_SETTING",
    "VARIABLES",
    "entry_for_path",
    "first_notice",
    "ignored_notice",
    "pip_config_cert",
    "read_environment",
    "say",
]

#: Each variable, and the context names (dotted prefixes) of the clients that read it; an empty
#: tuple means every client (OpenSSL's default paths, which every context's store starts from).
#: pip's connections run in contexts named ``pip`` and ``pip._vendor.*``; it reads requests'
#: variables too (its vendored requests does, ``trust_env`` being on).
VARIABLES: Mapping[str, tuple[str, ...]] = {
    "SSL_CERT_FILE": (),
    "SSL_CERT_DIR": (),
    "REQUESTS_CA_BUNDLE": ("requests", "pip"),
    "CURL_CA_BUNDLE": ("requests", "pip"),
    "PIP_CERT": ("pip",),
}
#: The variables their client reads again at each call (requests merges them into ``verify`` per
#: request): they add their CAs to the connections of the calls that pass them, not to the
#: context's trust (``_inject._requests``), so a variable removed stops adding at once.
CALL_TIME_VARIABLES = ("REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE")
#: The name under which pip's own ``cert`` setting (``--cert``, ``pip.conf``) is shown.
PIP_SETTING = "pip cert setting"


# What checking one path gave: the kind of trust source it is, or None and why it is none.
_Outcome = tuple["SourceKind | None", str]


def _origin(variable: str) -> Origin:
    return Origin(layer="environment", path=f"${variable}")


def _sources(
    variable: str, value: str, checked: dict[str, _Outcome], trust: TrustCache
) -> tuple[tuple[TrustSource, ...], str | None]:
    """Resolve a variable's value to checked trust sources, or say why it cannot be used.

    ``checked`` holds each path already checked for another variable (four of them often
    name the same bundle): its kind, or why it cannot be used.
    """
    origin = _origin(variable)
    # SSL_CERT_DIR is a list of directories, as OpenSSL reads it; the others name one path.
    paths = [p for p in value.split(os.pathsep) if p] if variable == "SSL_CERT_DIR" else [value]
    sources = []
    problems = []
    for path in paths:
        full = os.path.abspath(os.path.expanduser(path))
        if full not in checked:
            checked[full] = _check(full, trust)
        kind, problem = checked[full]
        if kind is None:
            problems.append(problem)
        else:
            sources.append(TrustSource(kind=kind, path=full, origin=origin))
    if sources:
        return tuple(sources), None
    return (), "; ".join(problems) or "it names nothing"


def _check(full: str, trust: TrustCache) -> _Outcome:
    """Return the kind of trust source ``full`` is, or ``None`` and why it cannot be one."""
    if os.path.isdir(full):
        if is_hashed_directory(full):
            return "directory", ""
        return None, f"{full!r} is not an OpenSSL hashed directory"
    try:
        trust.check(TrustSource(kind="file", path=full))
    except Exception as error:
        from sslcustomize.exceptions import TrustError  # noqa: PLC0415 - loaded with an error, not by a first context

        if not isinstance(error, TrustError):
            raise
        return None, str(error)
    return "file", ""


def read_environment(
    locked: Mapping[str, Origin],
    environ: Mapping[str, str] | None = None,
    *,
    trust: TrustCache | None = None,
) -> tuple[EnvTrust, ...]:
    """Read the CA-bundle variables under a policy whose locked keys are ``locked``.

    An empty value counts as unset (requests reads it so). Under a lock on ``trust`` no file is
    read: the variable is only noted as ignored. Files are checked through ``trust`` (a new
    cache by default), so a bundle several variables name is read once.
    """
    environ = os.environ if environ is None else environ
    trust = TrustCache() if trust is None else trust
    entries = []
    checked: dict[str, _Outcome] = {}
    for variable, clients in VARIABLES.items():
        value = environ.get(variable)
        if not value:
            continue
        lock = locked.get("trust")
        if lock is not None:
            entries.append(
                EnvTrust(
                    variable=variable,
                    value=value,
                    clients=clients,
                    state="ignored",
                    why=str(lock),
                )
            )
            continue
        sources, problem = _sources(variable, value, checked, trust)
        state: EnvState = "added" if sources else "unusable"
        entries.append(
            EnvTrust(
                variable=variable,
                value=value,
                clients=clients,
                state=state,
                sources=sources,
                why=problem,
            )
        )
    return tuple(entries)


def entry_for_path(environment: tuple[EnvTrust, ...], path: str, name: str) -> EnvTrust | None:
    """Return the variable a client's CA path came from, if it is one of them.

    requests merges ``REQUESTS_CA_BUNDLE``/``CURL_CA_BUNDLE`` into ``verify`` (and pip sets
    ``PIP_CERT`` there): by the time the path reaches the connection, only its value tells it
    from a path the code chose. A path equal to the value of a variable that client reads is
    taken to be that variable (a program that passes ``verify=os.environ[...]`` means the same).
    """
    for entry in environment:
        if entry.clients and entry.value == path and entry.applies_to(name):
            return entry
    return None


# --- Said once per process -----------------------------------------------------------------------


def first_notice(variable: str) -> bool:
    """Tell whether ``variable`` has not been announced in this process yet (and mark it)."""
    from sslcustomize._support._once import first_time  # noqa: PLC0415 - only when one is to be said

    return first_time("CA variable", variable)


def ignored_notice(entry: EnvTrust) -> str:
    """Return the one stderr line that says a variable is ignored or unusable."""
    clients = clients_text(entry.clients)
    if entry.state == "ignored":
        return (
            f"sslcustomize: {entry.variable}={entry.value} is ignored: the system policy locks "
            f"trust ({entry.why}), so it adds no CA for {clients}\n"
        )
    return (
        f"sslcustomize: {entry.variable}={entry.value} is ignored: {entry.why}; {clients} "
        "verify with the policy's trust alone\n"
    )


def say(entry: EnvTrust) -> None:
    """Write :func:`ignored_notice` on stderr; never raise."""
    try:  # noqa: SIM105 - contextlib stays out of the first context
        sys.stderr.write(ignored_notice(entry))
    except (OSError, ValueError, AttributeError):  # a closed or no stderr
        pass


# --- pip's configuration, for the commands that show it -------------------------------------------


def _pip_config_files(environ: Mapping[str, str]) -> list[str]:
    """Pip's configuration files on this system, in pip's order (later ones win)."""
    config_file = environ.get("PIP_CONFIG_FILE")
    if config_file == os.devnull:
        return []
    dirs = environ.get("XDG_CONFIG_DIRS") or "/etc/xdg"
    files = [os.path.join(d, "pip", "pip.conf") for d in dirs.split(os.pathsep) if d]
    files.append("/etc/pip.conf")
    home = os.path.expanduser("~")
    config_home = environ.get("XDG_CONFIG_HOME") or os.path.join(home, ".config")
    files += [os.path.join(home, ".pip", "pip.conf"), os.path.join(config_home, "pip", "pip.conf")]
    files.append(os.path.join(sys.prefix, "pip.conf"))
    if config_file:
        files.append(config_file)
    return files


def pip_config_cert(environ: Mapping[str, str] | None = None) -> tuple[str, str] | None:
    """Return pip's ``cert`` setting from its configuration files and where it is set.

    Only for ``doctor`` and ``explain`` (pip reads these files itself; a running pip's setting
    is seen by the hook when pip uses it). ``[global]`` and ``[install]`` are read.
    """
    import configparser  # noqa: PLC0415 - only for the commands

    environ = os.environ if environ is None else environ
    found = None
    for path in _pip_config_files(environ):
        parser = configparser.RawConfigParser()
        try:
            if not parser.read(path, encoding="utf-8"):
                continue
        except (configparser.Error, UnicodeDecodeError):
            continue
        for section in ("global", "install"):
            if parser.has_option(section, "cert"):
                found = (parser.get(section, "cert"), f"{path} [{section}]")
    return found
