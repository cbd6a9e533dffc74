"""The policy as values: settings with their origins, trust sources, exceptions, layers.

Frozen values only: reading files is :mod:`._read`, merging layers :mod:`._load`.
"""

from __future__ import annotations

import ssl
from collections.abc import Mapping

from sslcustomize._policy._hosts import HostIndex, HostPattern
from sslcustomize._support._frozen import dataclass, field

TYPE_CHECKING = False
if TYPE_CHECKING:
    # datetime only in annotations: a policy without dates does not load it (~0.4 ms).
    import datetime as dt
    from typing import Any, Generic, Literal, TypeVar

    from sslcustomize.exceptions import PolicyError
else:
    from sslcustomize._support._notyping import Generic, Literal, TypeVar


__all__ = [
    "DEFAULT",
    "DEFAULT_EXCEPTION_DAYS",
    "LOCKABLE",
    "MINIMUM_VERSIONS",
    "MODES",
    "SCHEMA_VERSION",
    "SINKS",
    "SYSTEM_TRUST",
    "TLS_VERSIONS",
    "ContextRule",
    "EnvState",
    "EnvTrust",
    "HostException",
    "LayerFile",
    "Mode",
    "Origin",
    "Policy",
    "Setting",
    "SourceKind",
    "TrustSource",
    "clients_text",
]

T = TypeVar("T")
Mode = Literal["enforce", "report"]
SourceKind = Literal["system", "certifi", "file", "directory"]
MODES = ("enforce", "report")
TLS_VERSIONS = ("1.2", "1.3")
#: What each ``minimum_tls`` value means: versions are compared as versions, not as text.
MINIMUM_VERSIONS = {"1.2": ssl.TLSVersion.TLSv1_2, "1.3": ssl.TLSVersion.TLSv1_3}
SINKS = ("sqlite", "jsonl", "journal", "syslog", "log", "none")
LOCKABLE = ("mode", "trust", "minimum_tls", "allow_code_opt_out", "exception", "context", "report")
SCHEMA_VERSION = 1


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
    #: The ``expires`` date as its ordinal (``date.toordinal()``): a policy read from the
    #: parse cache makes no date objects, so its first context does not import datetime.
    expires_day: int | None = None
    reason: str
    origin: Origin
    mode_origin: Origin | None = None

    @property
    def expires(self) -> dt.date | None:
        """Return the day the exception stops applying, ``None`` if it never does."""
        if self.expires_day is None:
            return None
        import datetime  # noqa: PLC0415 - only where the date is shown

        return datetime.date.fromordinal(self.expires_day)

    def expired(self, today: dt.date) -> bool:
        """Tell whether the exception no longer applies on ``today`` (on or after ``expires``)."""
        return self.expires_day is not None and today.toordinal() >= self.expires_day


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
            :mod:`.._trust._environment`).
    """

    mode: Setting[Mode] = Setting(value="enforce")
    trust: tuple[TrustSource, ...] = SYSTEM_TRUST
    minimum_tls: Setting[str] = Setting(value="1.2")
    allow_code_opt_out: Setting[bool] = Setting(value=True)
    report_sink: Setting[str] = Setting(value="sqlite")
    report_path: Setting[str | None] = Setting(value=None)
    report_group: Setting[str | None] = Setting(value=None)
    report_quiet: Setting[bool | None] = Setting(value=None)
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


EnvState = Literal["added", "ignored", "unusable"]


@dataclass(frozen=True, slots=True, kw_only=True)
class EnvTrust:
    """One CA-bundle variable as the policy reads it.

    Attributes:
        variable: ``REQUESTS_CA_BUNDLE``, ``SSL_CERT_FILE``, ... or :data:`PIP_SETTING`.
        value: Its value, as set.
        clients: Context-name prefixes of the clients that read it; ``()`` for every client.
        state: ``added`` (its CAs join the policy's for those clients), ``ignored`` (the
            system layer locks ``trust``) or ``unusable`` (it names nothing OpenSSL can load).
        sources: The trust sources it adds (only when ``added``).
        why: For ``ignored``, where the lock is (``/etc/sslcustomize/policy.toml:3``); for
            ``unusable``, what is wrong.
    """

    variable: str
    value: str
    clients: tuple[str, ...]
    state: EnvState
    sources: tuple[TrustSource, ...] = ()
    why: str | None = None

    def applies_to(self, name: str | None) -> bool:
        """Tell whether a context of this name is one of the variable's clients."""
        if not self.clients:
            return True
        if not name:
            return False
        return any(name == client or name.startswith(client + ".") for client in self.clients)

    def describe(self) -> str:
        """Say in one sentence what the variable does under this policy."""
        clients = clients_text(self.clients)
        if self.state == "added":
            return f"{self.variable} adds its CAs to the policy's trust for {clients}"
        if self.state == "ignored":
            return (
                f"{self.variable} is ignored for every client: the system policy locks trust "
                f"({self.why})"
            )
        return f"{self.variable} is ignored: {self.why}"


def clients_text(clients: tuple[str, ...]) -> str:
    """Name the clients of a variable for a person: ``requests and pip``, ``every client``."""
    if not clients:
        return "every client"
    return " and ".join(clients)
