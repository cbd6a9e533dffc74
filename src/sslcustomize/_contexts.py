"""Build ``SSLContext`` objects under the policy, and the named-context registry.

Contexts are instances of :class:`PolicyContext`, a subclass of :class:`ssl.SSLContext`
whose sockets turn a failed verification into :class:`~sslcustomize.CertificateRejected`.
``ssl.SSLContext`` itself is never rebound (rebinding it is what causes RecursionError
reports against truststore: truststore#121, #143, #214).
"""

from __future__ import annotations

import os
import ssl
import sys
import threading
import types
import warnings
from collections.abc import Callable, Iterator, MutableMapping
from typing import Any, cast

from ._decision import Decision, decide
from ._policy import SYSTEM_TRUST
from ._reasons import diagnose
from ._state import current_policy
from ._trust import TrustError, anchors_for
from .exceptions import CertificateRejected, LegacyContextWarning

__all__ = [
    "ContextFactory",
    "NamedContexts",
    "PolicyContext",
    "caller_module",
    "context_for",
    "create_default_context",
    "create_legacy_context",
    "named_contexts",
    "policy_context",
]

ContextFactory = Callable[[], ssl.SSLContext]

# The factories as the ssl module had them when sslcustomize was first imported.
ORIGINAL_CREATE_DEFAULT_CONTEXT = ssl.create_default_context
ORIGINAL_CREATE_UNVERIFIED_CONTEXT = ssl._create_unverified_context  # noqa: SLF001

_TLS_VERSIONS = {"1.2": ssl.TLSVersion.TLSv1_2, "1.3": ssl.TLSVersion.TLSv1_3}


# --- Sockets that explain failures -------------------------------------------------------------


def _peer_chain(sslobj: Any) -> tuple[bytes, ...]:
    """Return the chain the peer sent, DER, leaf first (empty if OpenSSL kept none)."""
    try:
        chain = sslobj.get_unverified_chain() or []
    except (AttributeError, ValueError, ssl.SSLError):
        return ()
    return tuple(
        cert if isinstance(cert, bytes) else cert.public_bytes(ssl._ssl.ENCODING_DER)  # type: ignore[attr-defined]  # noqa: SLF001
        for cert in chain
    )


def _rejection(
    error: ssl.SSLCertVerificationError,
    context: ssl.SSLContext,
    sslobj: Any,
    host: str | None,
    port: int | None,
) -> CertificateRejected:
    decision: Decision | None = getattr(context, "_sslcustomize_decision", None)
    rule = decision.rule if decision else "caller's own context"
    origin = str(decision.origin) if decision and decision.origin else None
    chain = _peer_chain(sslobj)
    diagnosis = diagnose(
        verify_code=error.verify_code,
        verify_message=error.verify_message,
        chain=chain,
        host=host,
        port=port,
    )
    where = f"{host}:{port}" if port else str(host)
    by = f"rule '{rule}'" + (f" from {origin}" if origin else "")
    fallback = (
        " (strict defaults: the policy files have errors)" if decision and decision.fallback else ""
    )
    message = (
        f"certificate rejected for {where}: {diagnosis.problem} "
        f"[{', '.join(diagnosis.reasons)}] under {by}{fallback}. Fix: {diagnosis.fix}."
    )
    return CertificateRejected(
        message,
        host=host,
        port=port,
        reasons=diagnosis.reasons,
        rule=rule,
        origin=origin,
        fix=diagnosis.fix,
        chain=chain,
        verify_code=error.verify_code,
        verify_message=error.verify_message,
    )


class PolicySSLSocket(ssl.SSLSocket):
    """An SSLSocket whose handshake failures explain themselves."""

    def do_handshake(self, block: bool = False) -> None:  # noqa: FBT001, FBT002 - ssl's signature
        """Perform the handshake; raise :class:`CertificateRejected` on a bad certificate."""
        try:
            super().do_handshake(block)
        except CertificateRejected:
            raise
        except ssl.SSLCertVerificationError as error:
            try:
                port = int(self.getpeername()[1])
            except (OSError, IndexError, TypeError, ValueError):
                port = None
            raise _rejection(
                error, self.context, getattr(self, "_sslobj", None), self.server_hostname, port
            ) from error


class PolicySSLObject(ssl.SSLObject):
    """An SSLObject (asyncio and other memory-BIO users) whose failures explain themselves."""

    def do_handshake(self) -> None:
        """Perform the handshake; raise :class:`CertificateRejected` on a bad certificate."""
        try:
            super().do_handshake()
        except CertificateRejected:
            raise
        except ssl.SSLCertVerificationError as error:
            raise _rejection(
                error, self.context, getattr(self, "_sslobj", None), self.server_hostname, None
            ) from error


class PolicyContext(ssl.SSLContext):
    """A client context made under the policy.

    It behaves as the :class:`ssl.SSLContext` it is; callers may set ALPN, ciphers, versions,
    client certificates and ``check_hostname`` on it as on any other.
    """

    sslsocket_class = PolicySSLSocket
    sslobject_class = PolicySSLObject
    _sslcustomize_name: str
    _sslcustomize_decision: Decision


# --- Factories ---------------------------------------------------------------------------------

_decisions: dict[str | None, Decision] = {}
_warned: set[str] = set()
_warn_lock = threading.Lock()


def reset() -> None:
    """Forget cached decisions (the policy changed)."""
    _decisions.clear()
    _warned.clear()


def base_decision(name: str | None) -> Decision:
    """Return the decision for a context name, before the host is known (cached)."""
    decision = _decisions.get(name)
    if decision is None:
        decision = _decisions[name] = decide(current_policy(), context=name)
    return decision


def _say_once(message: str) -> None:
    with _warn_lock:
        if message in _warned:
            return
        _warned.add(message)
    sys.stderr.write(f"sslcustomize: {message}\n")


def _apply_defaults(context: ssl.SSLContext, minimum_tls: str) -> None:
    """Apply what ``ssl.create_default_context()`` applies on this Python, except the trust."""
    # PROTOCOL_TLS_CLIENT already sets CERT_REQUIRED and check_hostname (in that order).
    if sys.version_info >= (3, 13):  # pragma: no cover - version-specific
        # 3.13's defaults: see "Changed in version 3.13" of ssl.create_default_context.
        context.verify_flags |= ssl.VERIFY_X509_PARTIAL_CHAIN | ssl.VERIFY_X509_STRICT
    context.minimum_version = max(context.minimum_version, _TLS_VERSIONS[minimum_tls])
    keylog = os.environ.get("SSLKEYLOGFILE")
    if keylog and not sys.flags.ignore_environment:
        context.keylog_filename = keylog


def _load_anchors(context: ssl.SSLContext, decision: Decision) -> None:
    """Load the decision's anchors; on a broken source, fall back to the system store."""
    try:
        anchors_for(decision.trust).load_into(context)
    except (TrustError, ssl.SSLError, OSError) as error:
        if decision.trust == SYSTEM_TRUST:
            raise
        _say_once(f"cannot use the policy's trust sources ({error}); using the system store")
        anchors_for(SYSTEM_TRUST).load_into(context)


def policy_context(
    name: str | None,
    *,
    cafile: str | None = None,
    capath: str | None = None,
    cadata: str | bytes | None = None,
) -> PolicyContext:
    """Build a fresh client context for the context ``name`` under the effective policy.

    Args:
        name: The context name (usually the requesting module).
        cafile: Trust exactly these anchors instead of the policy's, as code asked.
        capath: Likewise, a hashed directory.
        cadata: Likewise, PEM text or DER bytes.

    Returns:
        A new context; each call returns a new one, so callers may change it freely.

    Raises:
        TrustError: Not even the system trust store can be found.
    """
    decision = base_decision(name)
    context = PolicyContext(ssl.PROTOCOL_TLS_CLIENT)
    _apply_defaults(context, decision.minimum_tls)
    if cafile or capath or cadata:
        context.load_verify_locations(cafile, capath, cadata)
    else:
        _load_anchors(context, decision)
    context._sslcustomize_name = name or "__main__"  # noqa: SLF001
    context._sslcustomize_decision = decision  # noqa: SLF001
    return context


def caller_module(depth: int = 2) -> str:
    """Return the module name of the first caller outside ``ssl`` and sslcustomize."""
    frame: types.FrameType | None = sys._getframe(depth)  # noqa: SLF001 - cheapest way
    while frame is not None:
        name = str(frame.f_globals.get("__name__", ""))
        if name not in ("ssl", "sslcustomize") and not name.startswith("sslcustomize."):
            return name or "__main__"
        frame = frame.f_back
    return "__main__"


class NamedContexts(MutableMapping[str, ContextFactory]):
    """Context factories by name: ``named_contexts["myapp.billing"] = factory``.

    Looking up a name finds the factory registered under its longest dotted prefix; a name
    with none gets the policy's factory for that name (as a ``defaultdict`` would, without
    storing it). ``in``, ``len`` and iteration see only registered names.
    """

    def __init__(self) -> None:
        """Create an empty registry."""
        self._factories: dict[str, ContextFactory] = {}

    def __getitem__(self, name: str) -> ContextFactory:
        """Return the factory for ``name`` (registered by prefix, else the policy's)."""
        found = self.registered(name)
        if found is not None:
            return found
        return lambda: policy_context(name)

    def registered(self, name: str) -> ContextFactory | None:
        """Return the factory registered for the longest dotted prefix of ``name``, if any."""
        if not self._factories:
            return None
        while True:
            factory = self._factories.get(name)
            if factory is not None:
                return factory
            name, dot, _ = name.rpartition(".")
            if not dot:
                return None

    def __setitem__(self, name: str, factory: ContextFactory) -> None:
        """Register ``factory`` for ``name`` and every dotted name below it."""
        if not callable(cast("object", factory)):
            raise TypeError(f"a context factory must be callable, not {factory!r}")
        self._factories[name] = factory

    def __delitem__(self, name: str) -> None:
        """Unregister ``name``."""
        del self._factories[name]

    def __iter__(self) -> Iterator[str]:
        """Iterate over registered names."""
        return iter(self._factories)

    def __len__(self) -> int:
        """Return how many names are registered."""
        return len(self._factories)

    def __repr__(self) -> str:
        """Show the registered names."""
        return f"NamedContexts({sorted(self._factories)!r})"


named_contexts = NamedContexts()


def context_for(name: str) -> ssl.SSLContext:
    """Return a new client context for the named context ``name``.

    Args:
        name: A dotted name such as ``smtplib`` or ``myapp.billing``.

    Returns:
        What the factory registered in :data:`named_contexts` for the longest prefix of
        ``name`` returns, or else a context under the policy's ``[context."..."]`` rule.
    """
    factory = named_contexts.registered(name)
    return factory() if factory is not None else policy_context(name)


def create_default_context(
    purpose: ssl.Purpose = ssl.Purpose.SERVER_AUTH,
    *,
    cafile: str | None = None,
    capath: str | None = None,
    cadata: str | bytes | None = None,
) -> ssl.SSLContext:
    """Return a client context for the calling module under the policy.

    A drop-in for :func:`ssl.create_default_context`, which it replaces once injected. The
    context is named after the calling module; ``cafile``/``capath``/``cadata`` replace the
    trust anchors, as they do for :mod:`ssl`. Server-side contexts (``Purpose.CLIENT_AUTH``)
    are built by :mod:`ssl` unchanged.

    Returns:
        A new context.
    """
    if purpose != ssl.Purpose.SERVER_AUTH:
        return ORIGINAL_CREATE_DEFAULT_CONTEXT(purpose, cafile=cafile, capath=capath, cadata=cadata)
    name = caller_module()
    if not (cafile or capath or cadata):
        factory = named_contexts.registered(name)
        if factory is not None:
            return factory()
    return policy_context(name, cafile=cafile, capath=capath, cadata=cadata)


def create_stdlib_context(
    protocol: int | None = None,
    *,
    cert_reqs: int | None = None,
    check_hostname: bool = False,
    purpose: ssl.Purpose = ssl.Purpose.SERVER_AUTH,
    certfile: str | None = None,
    keyfile: str | None = None,
    cafile: str | None = None,
    capath: str | None = None,
    cadata: str | bytes | None = None,
) -> ssl.SSLContext:
    """Replace ``ssl._create_stdlib_context``: verify where the stdlib would not.

    smtplib, imaplib, poplib, ftplib and nntplib call this (CPython gh-91826); it returns a
    verifying context for the calling module, with the caller's client certificate loaded.
    """
    if purpose != ssl.Purpose.SERVER_AUTH or protocol == ssl.PROTOCOL_TLS_SERVER:
        return ORIGINAL_CREATE_UNVERIFIED_CONTEXT(
            protocol,
            cert_reqs=ssl.CERT_NONE if cert_reqs is None else cert_reqs,
            check_hostname=check_hostname,
            purpose=purpose,
            certfile=certfile,
            keyfile=keyfile,
            cafile=cafile,
            capath=capath,
            cadata=cadata,
        )
    name = caller_module()
    factory = None if (cafile or capath or cadata) else named_contexts.registered(name)
    if factory is not None:
        context = factory()
    else:
        context = policy_context(name, cafile=cafile, capath=capath, cadata=cadata)
    if certfile or keyfile:
        context.load_cert_chain(certfile, keyfile)  # type: ignore[arg-type]
    return context


def create_legacy_context(
    *, certfile: str | None = None, keyfile: str | None = None
) -> ssl.SSLContext:
    """Return a client context that does not verify, as an explicit, visible opt-out.

    The greppable replacement for ``verify=False`` and ``ssl._create_unverified_context()``.
    It warns with :class:`~sslcustomize.LegacyContextWarning`. Where the policy sets
    ``allow_code_opt_out = false`` for the calling module, the returned context verifies
    anyway.

    .. warning::
        A context that does not verify accepts any certificate: anyone on the network path
        can read and change the traffic. Prefer a scoped policy exception
        (``sslcustomize trust HOST``).

    Returns:
        A new context.
    """
    name = caller_module()
    decision = base_decision(name)
    if not decision.allow_code_opt_out:
        warnings.warn(
            f"{name} asked for a legacy (unverified) context; the policy "
            f"({decision.origin or 'allow_code_opt_out'}) refuses code opt-outs, so it verifies",
            LegacyContextWarning,
            stacklevel=2,
        )
        context = policy_context(name)
    else:
        warnings.warn(
            f"{name} uses a legacy context that does not verify certificates",
            LegacyContextWarning,
            stacklevel=2,
        )
        context = PolicyContext(ssl.PROTOCOL_TLS_CLIENT)
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE  # after check_hostname: ssl requires this order
        context._sslcustomize_name = name  # noqa: SLF001
        context._sslcustomize_decision = decision  # noqa: SLF001
    if certfile or keyfile:
        context.load_cert_chain(certfile, keyfile)  # type: ignore[arg-type]
    return context
