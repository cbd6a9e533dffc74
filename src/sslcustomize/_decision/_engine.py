"""Private contexts that carry out a plan: built from a caller's settings, never handed out.

A connection whose plan is not simply "verify with the caller's own context" runs on an
*engine*: a plain :class:`ssl.SSLContext` rebuilt from everything the caller set on its
:class:`~sslcustomize.PolicyContext` (its :class:`Settings`), with the plan's changes (an
exception's extra CA, a pinned certificate as the only anchor, verification deferred until
the chain is judged). The caller's context is never changed, so no context that a caller,
another thread or another connection can see ever has verification switched off.

The caller's settings are its readable properties plus a *recipe*: every call of a method
that changes a context without a way to read it back (``load_verify_locations``,
``load_cert_chain``, ``set_ciphers``, ``set_alpn_protocols``...), recorded by
:class:`~sslcustomize.PolicyContext` as it happens. Engines are immutable once built and are
cached per runtime by ``(Settings, EngineSpec)``: OpenSSL shares one ``SSL_CTX`` between
connections safely, and a warm certificate store is what keeps a connection cheap.
"""

from __future__ import annotations

import _ssl
import ssl
import sys
from collections.abc import Callable

from sslcustomize._decision._recipe import (
    ANCHOR_STEPS,
    UNCARRIED,
    Keywords,
    Step,
    carried_properties,
    normalize,
)
from sslcustomize._support._frozen import dataclass, replace
from sslcustomize._support._sslclass import PYTHON_SSLCONTEXT, StdlibContext

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any
else:
    from sslcustomize._support._notyping import Any


__all__ = [
    "NO_CHECK_TIME",
    "VERSIONED_PROTOCOLS",
    "EngineSpec",
    "Reading",
    "Settings",
    "UncarriedSettingError",
    "build_engine",
    "build_verifier",
    "python_defaults",
    "read_settings",
    "settings_from",
    "settings_of",
    "weakened_flags",
]

# X509_V_FLAG_NO_CHECK_TIME: OpenSSL's flag to skip validity dates (ssl does not export it).
NO_CHECK_TIME = 0x200000

# --- What Python's default verifies, and what weakens it -----------------------------------------


_defaults: list[tuple[int, int]] = []


def python_defaults() -> tuple[int, int]:
    """Return the verify flags and security level of ``ssl.create_default_context()``.

    Read once, at the first connection (a context costs 1-2 ms with OpenSSL 3: a process
    that only makes contexts does not pay it), from a plain context (never a factory: ssl's
    factories may be the startup hook's stand-ins), with what create_default_context() adds
    on 3.13 (see "Changed in version 3.13" of ssl.create_default_context). The level is read,
    not assumed: Python's cipher string sets 2, a distribution's build may leave it to the
    system's crypto policy.
    """
    if not _defaults:
        plain = StdlibContext(ssl.PROTOCOL_TLS_CLIENT)  # Python's own, not a substitute
        flags = int(plain.verify_flags)
        if sys.version_info >= (3, 13):  # pragma: no cover - version-specific
            # As plain ints: ~ on a VerifyFlags drops the bits it has no member for.
            flags |= int(ssl.VERIFY_X509_PARTIAL_CHAIN) | int(ssl.VERIFY_X509_STRICT)
        _defaults.append((flags, int(plain.security_level)))
    return _defaults[0]


# A weakening is whatever makes the verdict more permissive than Python's default for the
# context, decided by comparing the caller's flags with python_defaults(), not by naming the bad
# ones: a flag added or removed is a weakening unless it is known never to let more through.
# Added, these only add checks (CRL, X509_STRICT, policies, Suite B, a self-signed anchor's
# signature) or narrow or reorder the chain search (NO_ALT_CHAINS, TRUSTED_FIRST);
# NOTIFY_POLICY changes no verdict. Removed, PARTIAL_CHAIN only stops accepting chains that
# end at a trusted intermediate, and TRUSTED_FIRST only changes which path is tried first.
# Any other bit (NO_CHECK_TIME, PARTIAL_CHAIN before 3.13, ALLOW_PROXY_CERTS, IGNORE_CRITICAL,
# X509_STRICT removed on 3.13, a bit OpenSSL adds tomorrow) counts as a weakening.
_CRL_CHECK, _CRL_CHECK_ALL, _X509_STRICT = 0x4, 0x8, 0x20
_POLICY_CHECK, _EXPLICIT_POLICY, _INHIBIT_ANY, _INHIBIT_MAP = 0x80, 0x100, 0x200, 0x400
_NOTIFY_POLICY, _EXTENDED_CRL_SUPPORT, _USE_DELTAS = 0x800, 0x1000, 0x2000
_CHECK_SS_SIGNATURE, _TRUSTED_FIRST, _SUITEB = 0x4000, 0x8000, 0x30000
_PARTIAL_CHAIN, _NO_ALT_CHAINS = 0x80000, 0x100000
_NEVER_LOOSER_ADDED = (
    _CRL_CHECK | _CRL_CHECK_ALL | _X509_STRICT | _POLICY_CHECK | _EXPLICIT_POLICY
    | _INHIBIT_ANY | _INHIBIT_MAP | _NOTIFY_POLICY | _EXTENDED_CRL_SUPPORT | _USE_DELTAS
    | _CHECK_SS_SIGNATURE | _TRUSTED_FIRST | _SUITEB | _NO_ALT_CHAINS
)  # fmt: skip
_NEVER_LOOSER_REMOVED = _PARTIAL_CHAIN | _TRUSTED_FIRST


def weakened_flags(flags: int) -> tuple[int, int]:
    """Return the flags that make ``flags`` more permissive than Python's default.

    Returns:
        ``(added, removed)``: flags the caller added that may accept more, and default flags
        it removed whose absence may accept more. ``(0, 0)`` when ``flags`` are no weaker.
    """
    flags, default = int(flags), python_defaults()[0]
    added = flags & ~default & ~_NEVER_LOOSER_ADDED
    removed = default & ~flags & ~_NEVER_LOOSER_REMOVED
    return added, removed


# What a verifier keeps of a recipe: only what decides which chains verify.
_VERIFIER_STEPS = ANCHOR_STEPS


class UncarriedSettingError(Exception):
    """A caller's setting cannot be carried to an engine: the connection cannot be made there."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Settings:
    """Everything a caller set on its context, as a hashable value.

    Read from the context at each connection (a caller may change its own context between
    connections); the recipe is kept by the context as it is changed. ``carried`` holds the
    properties of a newer Python that nobody has classified yet (see
    :func:`carried_properties`), by name; empty on every Python this code knows.
    """

    protocol: int
    verify_mode: int
    check_hostname: bool
    verify_flags: int
    options: int
    minimum_version: int
    maximum_version: int
    common_name: bool
    post_handshake_auth: bool | None
    keylog_filename: str | None
    security_level: int
    recipe: tuple[Step, ...]
    python_recipe: tuple[Step, ...] | None = None
    carried: tuple[tuple[str, Any], ...] = ()

    @property
    def has_client_certificate(self) -> bool:
        """Tell whether the caller loaded a client certificate."""
        return any(name == "load_cert_chain" for name, _ in self.recipe)


def settings_of(
    context: ssl.SSLContext,
    recipe: tuple[Step, ...],
    python_recipe: tuple[Step, ...] | None = None,
) -> Settings:
    """Read ``context``'s settings.

    Args:
        context: The caller's context.
        recipe: What it recorded of its method calls.
        python_recipe: Report mode's floor, the recipe of a verifier that accepts what Python
            or the policy accepts (``None``: Python would not verify these connections).
    """
    return settings_from(read_settings(context, recipe, python_recipe))


# The getters of ssl's own C class: the values OpenSSL connects with, as plain ints, without
# the enum each of ssl.SSLContext's properties wraps them in (read at every connection).
_C_CLASS = _ssl._SSLContext  # noqa: SLF001 - ssl.SSLContext's own base


def _c_getter(name: str) -> Callable[[ssl.SSLContext], Any]:
    """Return the C getter of ``name``, or a plain read where this build has none."""
    descriptor = _C_CLASS.__dict__.get(name)
    if descriptor is None:  # pragma: no cover - a build without it (no TLS 1.3: no PHA)
        return lambda context: getattr(context, name, None)
    return descriptor.__get__  # type: ignore[no-any-return]


_protocol, _verify_mode, _check_hostname, _verify_flags, _options = map(
    _c_getter, ("protocol", "verify_mode", "check_hostname", "verify_flags", "options")
)
_minimum_version, _maximum_version, _post_handshake_auth, _keylog_filename, _security_level = map(
    _c_getter,
    (
        "minimum_version",
        "maximum_version",
        "post_handshake_auth",
        "keylog_filename",
        "security_level",
    ),
)

#: One reading of a context's settings: :class:`Settings`'s fields, in their order.
Reading = tuple[Any, ...]


def read_settings(
    context: ssl.SSLContext,
    recipe: tuple[Step, ...],
    python_recipe: tuple[Step, ...] | None = None,
) -> Reading:
    """Read ``context``'s settings as a plain tuple, compared and hashed at C speed.

    The connection path reads one per connection and compares it with the last connection's
    (:func:`settings_from` makes the :class:`Settings` only when they differ). Arguments as
    for :func:`settings_of`.
    """
    carried: tuple[tuple[str, Any], ...] = ()
    if _CARRIED_PROPERTIES:  # a newer Python's properties, read generically
        carried = tuple(_carried(name, getattr(context, name)) for name in _CARRIED_PROPERTIES)
    return (
        _protocol(context),
        _verify_mode(context),
        _check_hostname(context),
        _verify_flags(context),
        _options(context),
        _minimum_version(context),
        _maximum_version(context),
        bool(context.hostname_checks_common_name),
        _post_handshake_auth(context),
        _keylog_filename(context),
        _security_level(context),
        recipe,
        python_recipe,
        carried,
    )


def settings_from(reading: Reading) -> Settings:
    """Return the :class:`Settings` of one :func:`read_settings` reading."""
    protocol, verify_mode, check_hostname, verify_flags, options, minimum, maximum = reading[:7]
    common_name, post_handshake_auth, keylog, security_level = reading[7:11]
    recipe, python_recipe, carried = reading[11:]
    return Settings(
        protocol=int(protocol),
        verify_mode=int(verify_mode),
        check_hostname=bool(check_hostname),
        verify_flags=int(verify_flags),
        options=int(options),
        minimum_version=int(minimum),
        maximum_version=int(maximum),
        common_name=common_name,
        post_handshake_auth=post_handshake_auth,
        keylog_filename=keylog,
        security_level=int(security_level),
        recipe=recipe,
        python_recipe=python_recipe,
        carried=carried,
    )


_CARRIED_PROPERTIES = carried_properties(PYTHON_SSLCONTEXT)


def _carried(name: str, value: Any) -> tuple[str, Any]:
    """Return ``(name, value)`` as kept in :class:`Settings`, or ``(UNCARRIED, name)``."""
    value = normalize(value)
    try:
        hash(value)
    except TypeError:
        return (UNCARRIED, name)
    return (name, value)


@dataclass(frozen=True, slots=True, kw_only=True)
class EngineSpec:
    """How an engine differs from the caller's context.

    Attributes:
        verify: Verify in the handshake (``CERT_REQUIRED``); ``False`` defers the verdict
            until after the handshake, before any application data.
        check_hostname: Let OpenSSL check the host name (with ``verify``).
        extra_anchors: Further trust sources for this host only (an exception's ``ca``):
            loaded after the caller's own anchors.
        leaves: Trust exactly these certificates (DER) instead of any anchors: pinned
            leaves already seen and matched. Their dates are not checked (a pin trusts a key).
            With ``python`` (report mode's floor), trust them besides the floor's anchors,
            dates checked: what Python accepts stays accepted, and nothing expired is.
        drop_flags: Verification flags to remove (a refused weakening).
        add_flags: Verification flags to add (a default flag the caller removed, refused; or
            to name every problem of a chain).
        security_level: At least this OpenSSL security level (a refused lowering).
        minimum_version: At least this TLS version (a refused lowering below the policy's
            ``minimum_tls``); 0 keeps the caller's.
        withhold_client_certificate: Do not present the caller's client certificate.
        anchors: Load the caller's trust anchors (``False`` only for an engine that does not
            verify and whose connection serves to read a chain: a pinned server's probe).
        python: Verify with report mode's floor (``Settings.python_recipe``): accept what
            Python's own verification or the policy's accepts, refuse the rest.
    """

    verify: bool = True
    check_hostname: bool = True
    extra_anchors: tuple[Any, ...] = ()
    leaves: tuple[bytes, ...] = ()
    drop_flags: int = 0
    add_flags: int = 0
    security_level: int = 0
    minimum_version: int = 0
    withhold_client_certificate: bool = False
    python: bool = False
    anchors: bool = True


#: The protocols whose contexts have settable minimum and maximum versions.
VERSIONED_PROTOCOLS = frozenset({int(ssl.PROTOCOL_TLS), int(ssl.PROTOCOL_TLS_CLIENT)})


def _replay(context: ssl.SSLContext, recipe: tuple[Step, ...], keep: Callable[[str], bool]) -> None:
    for name, args in recipe:
        if name == UNCARRIED and not keep(str(args[0])):
            continue  # a verifier keeps only the steps that decide which chains verify
        if name == UNCARRIED:
            raise UncarriedSettingError(
                f"the caller set SSLContext.{args[0]}() with arguments that cannot be kept, "
                "and a private copy of its context (report mode, a pin or a ca exception) "
                "would lack that setting"
            )
        if not keep(name):
            continue
        method = getattr(PYTHON_SSLCONTEXT, name)
        if args and isinstance(args[-1], Keywords):
            method(context, *args[:-1], **dict(args[-1]))
        else:
            method(context, *args)


def _carry(context: ssl.SSLContext, carried: tuple[tuple[str, Any], ...]) -> None:
    """Set a newer Python's properties on an engine as the caller had them."""
    for name, value in carried:
        if name == UNCARRIED:
            raise UncarriedSettingError(
                f"the caller's SSLContext.{value} is not a value that can be kept; this "
                "connection needs a private copy of its context and the copy would lack it"
            )
        if getattr(context, name) == value:
            continue
        try:
            setattr(context, name, value)
        except (AttributeError, TypeError, ValueError) as error:
            raise UncarriedSettingError(
                f"cannot carry the caller's SSLContext.{name} = {value!r} to a private copy "
                f"of its context: {error}"
            ) from error


def _verification(
    context: ssl.SSLContext,
    spec: EngineSpec,
    verify_flags: int,
    load_extra: Callable[[ssl.SSLContext, tuple[Any, ...]], None],
) -> None:
    """Give ``context`` the spec's verification settings (anchors already loaded)."""
    flags = (verify_flags | spec.add_flags) & ~spec.drop_flags
    if spec.leaves:
        # A leaf is an anchor of its own only with PARTIAL_CHAIN. Report mode's floor keeps
        # the dates checked: it must never accept what Python refuses.
        flags |= ssl.VERIFY_X509_PARTIAL_CHAIN | (0 if spec.python else NO_CHECK_TIME)
        for leaf in spec.leaves:
            context.load_verify_locations(cadata=leaf)
    if spec.extra_anchors and (spec.python or not spec.leaves):
        load_extra(context, spec.extra_anchors)
    context.verify_flags = ssl.VerifyFlags(flags)
    # Order matters: check_hostname must be off before verify_mode can be CERT_NONE, and
    # verify_mode must be CERT_REQUIRED before check_hostname can be on.
    if spec.verify:
        context.verify_mode = ssl.CERT_REQUIRED
        context.check_hostname = spec.check_hostname
    else:  # the policy judges the chain after the handshake (report mode, pins)
        context.check_hostname = False  # sslcustomize: allow(judged after the handshake)
        context.verify_mode = ssl.CERT_NONE  # sslcustomize: allow(judged after the handshake)


def build_engine(
    settings: Settings,
    spec: EngineSpec,
    load_extra: Callable[[ssl.SSLContext, tuple[Any, ...]], None],
) -> ssl.SSLContext:
    """Build the private context that connects with ``settings`` changed as ``spec`` says.

    Args:
        settings: The caller's settings.
        spec: The plan's changes.
        load_extra: Loads ``spec.extra_anchors`` into a context.

    Raises:
        ssl.SSLError: A recorded call failed on the copy (a file changed since).
        OSError: Likewise.
        UncarriedSettingError: The caller set something a copy cannot have: no engine (the
            connection is made on the caller's own context, see :func:`generic_step`).
    """
    context = StdlibContext(settings.protocol)
    context.check_hostname = False  # sslcustomize: allow(the replay below sets it from the spec)

    def keep(name: str) -> bool:
        if ((spec.leaves and not spec.python) or not spec.anchors) and name in ANCHOR_STEPS:
            return False
        return not (spec.withhold_client_certificate and name == "load_cert_chain")

    recipe = settings.recipe
    if spec.python and settings.python_recipe is not None:
        recipe = settings.python_recipe
    _replay(context, recipe, keep)
    if context.security_level < spec.security_level:
        # The caller lowered it (set_ciphers("...:@SECLEVEL=0")): its cipher list, at the level.
        ciphers = next((args[0] for name, args in reversed(recipe) if name == "set_ciphers"), None)
        context.set_ciphers(f"{ciphers or 'DEFAULT'}:@SECLEVEL={spec.security_level}")
    options = settings.options
    if not spec.verify:
        # A chain judged after the handshake must be the only one: no renegotiation may
        # bring another after the verdict (TLS 1.2; TLS 1.3 has none).
        options |= ssl.OP_NO_RENEGOTIATION
    context.options = ssl.Options(options)
    if settings.protocol in VERSIONED_PROTOCOLS:
        minimum = settings.minimum_version
        if spec.minimum_version and minimum < spec.minimum_version:
            minimum = spec.minimum_version  # a lowering the policy refuses: its floor
        context.minimum_version = ssl.TLSVersion(minimum)
        context.maximum_version = ssl.TLSVersion(settings.maximum_version)
    context.hostname_checks_common_name = settings.common_name
    if settings.post_handshake_auth is not None:
        context.post_handshake_auth = settings.post_handshake_auth
    if settings.keylog_filename:
        context.keylog_filename = settings.keylog_filename
    _carry(context, settings.carried)
    _verification(context, spec, settings.verify_flags, load_extra)
    return context


def build_verifier(
    settings: Settings,
    spec: EngineSpec,
    load_extra: Callable[[ssl.SSLContext, tuple[Any, ...]], None],
) -> ssl.SSLContext:
    """Build the context that judges a chain offline exactly as ``spec`` would in a handshake.

    Only what decides which chains verify is copied (anchors, flags, the host check, the
    security level); the replay speaks TLS 1.2 (see :mod:`.._x509._replay`), whatever the caller's
    versions, ciphers and client certificate.
    """
    context = StdlibContext(ssl.PROTOCOL_TLS_CLIENT)  # Python's own, whatever ssl.SSLContext holds
    context.check_hostname = False  # sslcustomize: allow(offline judge; host checked apart)
    level = max(settings.security_level, spec.security_level)
    context.set_ciphers(f"DEFAULT:@SECLEVEL={level}")
    keep_anchors = spec.python or not spec.leaves
    recipe = settings.recipe
    if spec.python and settings.python_recipe is not None:
        recipe = settings.python_recipe
    _replay(context, recipe, lambda name: keep_anchors and name in _VERIFIER_STEPS)
    context.minimum_version = ssl.TLSVersion.TLSv1_2
    context.maximum_version = ssl.TLSVersion.TLSv1_2
    context.hostname_checks_common_name = settings.common_name
    _verification(context, replace(spec, verify=True), settings.verify_flags, load_extra)
    return context
