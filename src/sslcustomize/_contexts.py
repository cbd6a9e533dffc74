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
from typing import Any, TypeVar, cast

from . import _connection
from ._connection import Plan, base_decision, finish, native_rejection, plan_for
from ._decision import Decision, longest_prefix
from ._policy import SYSTEM_TRUST
from ._replay import der_chain
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


# --- Sockets that explain failures and act on the plan -----------------------------------------

_wrap_lock = threading.RLock()


def _port_of(sock: object) -> int | None:
    try:
        return _port_of_address(sock.getpeername())  # type: ignore[attr-defined]
    except (AttributeError, OSError):
        return None


def _transport_port() -> int | None:
    """Find the peer port of a memory-BIO connection from the asyncio code wrapping it.

    The memory BIO knows no socket; a few frames up, asyncio's connection code has it (a
    ``sock`` local in ``_create_connection_transport``, a ``transport`` in ``start_tls``, or
    the protocol's ``_transport``). Used only to match port-specific exceptions: without it
    they would never apply to asyncio, aiohttp or websockets connections.
    """
    frame: types.FrameType | None = sys._getframe(2)  # noqa: SLF001 - see the docstring
    for _ in range(12):
        if frame is None:
            break
        names = frame.f_locals
        sock = names.get("sock")
        if hasattr(sock, "getpeername"):
            return _port_of(sock)
        for transport in (names.get("transport"), getattr(names.get("self"), "_transport", None)):
            get_extra_info = getattr(transport, "get_extra_info", None)
            if get_extra_info is not None:
                return _port_of_address(get_extra_info("peername"))
        frame = frame.f_back
    return None


def _port_of_address(peer: object) -> int | None:
    if isinstance(peer, tuple) and len(peer) >= 2 and isinstance(peer[1], int):
        return peer[1]
    return None


def _after_handshake(connection: PolicySSLSocket | PolicySSLObject, port: int | None) -> None:
    """Run the plan of a replay-path connection; close and raise if it is rejected."""
    plan: Plan | None = getattr(connection, "_sslcustomize_plan", None)
    if plan is None:
        return
    connection._sslcustomize_plan = None  # noqa: SLF001 - once
    chain = der_chain(getattr(connection, "_sslobj", None))
    rejected = finish(plan, chain)
    if rejected is not None:
        connection._sslcustomize_rejected = rejected  # noqa: SLF001
        if isinstance(connection, ssl.SSLSocket):
            connection.close()
        raise rejected


def _explain(
    error: ssl.SSLCertVerificationError,
    connection: PolicySSLSocket | PolicySSLObject,
    port: int | None,
) -> CertificateRejected:
    decision = getattr(connection.context, "_sslcustomize_decision", None)
    chain = der_chain(getattr(connection, "_sslobj", None))
    return native_rejection(error, decision, chain, connection.server_hostname, port)


class PolicySSLSocket(ssl.SSLSocket):
    """An SSLSocket whose handshake failures explain themselves."""

    _sslcustomize_plan: Plan | None = None
    _sslcustomize_rejected: CertificateRejected | None = None

    def do_handshake(self, block: bool = False) -> None:  # noqa: FBT001, FBT002 - ssl's signature
        """Perform the handshake; raise :class:`CertificateRejected` on a bad certificate."""
        try:
            super().do_handshake(block)
        except CertificateRejected:
            raise
        except ssl.SSLCertVerificationError as error:
            raise _explain(error, self, _port_of(self)) from error
        _after_handshake(self, _port_of(self))


class PolicySSLObject(ssl.SSLObject):
    """An SSLObject (asyncio and other memory-BIO users) whose failures explain themselves."""

    _sslcustomize_port: int | None = None
    _sslcustomize_plan: Plan | None = None
    _sslcustomize_rejected: CertificateRejected | None = None

    def do_handshake(self) -> None:
        """Perform the handshake; raise :class:`CertificateRejected` on a bad certificate."""
        try:
            super().do_handshake()
        except CertificateRejected:
            raise
        except ssl.SSLCertVerificationError as error:
            raise _explain(error, self, self._sslcustomize_port) from error
        _after_handshake(self, self._sslcustomize_port)

    def write(self, data: bytes) -> int:  # type: ignore[override]
        """Write application data, unless the certificate was rejected."""
        if self._sslcustomize_rejected is not None:
            raise self._sslcustomize_rejected
        return super().write(data)

    def read(self, len: int = 1024, buffer: Any = None) -> Any:
        """Read application data, unless the certificate was rejected."""
        if self._sslcustomize_rejected is not None:
            raise self._sslcustomize_rejected
        return super().read(len, buffer)


class PolicyContext(ssl.SSLContext):
    """A client context made under the policy.

    It behaves as the :class:`ssl.SSLContext` it is; callers may set ALPN, ciphers, versions,
    client certificates and ``check_hostname`` on it as on any other.
    """

    sslsocket_class = PolicySSLSocket
    sslobject_class = PolicySSLObject
    _sslcustomize_name: str
    _sslcustomize_decision: Decision

    def _wrap_socket(
        self,
        sock: Any,
        server_side: bool,  # noqa: FBT001 - the signature of _ssl._SSLContext._wrap_socket
        server_hostname: Any = None,
        **kwargs: Any,
    ) -> Any:
        wrap = super()._wrap_socket  # type: ignore[misc]
        return self._wrap(wrap, (sock, server_side, server_hostname), _port_of(sock), kwargs)

    def _wrap_bio(
        self,
        incoming: Any,
        outgoing: Any,
        server_side: bool,  # noqa: FBT001 - the signature of _ssl._SSLContext._wrap_bio
        server_hostname: Any = None,
        **kwargs: Any,
    ) -> Any:
        wrap = super()._wrap_bio  # type: ignore[misc]
        port = None if server_side else _transport_port()
        return self._wrap(wrap, (incoming, outgoing, server_side, server_hostname), port, kwargs)

    def _wrap(
        self, wrap: Any, arguments: tuple[Any, ...], port: int | None, kwargs: dict[str, Any]
    ) -> Any:
        """Create the connection under its plan (see :mod:`._connection`).

        Everything happens under one lock: the plan reads the context's verification
        settings, and the replay path switches them off for an instant (see below); no
        thread may read them half-way.
        """
        server_side, server_hostname = arguments[-2:]
        owner = kwargs.get("owner")
        if isinstance(owner, PolicySSLObject):
            owner._sslcustomize_port = port  # noqa: SLF001 - our own class
        name = getattr(self, "_sslcustomize_name", None)
        if isinstance(server_hostname, bytes):
            server_hostname = server_hostname.decode()
        with _wrap_lock:
            plan = None
            if not server_side and name is not None:
                plan = plan_for(self, name, server_hostname, port)
            if plan is not None and owner is not None:
                owner._sslcustomize_plan = plan  # noqa: SLF001
            if plan is None or plan.opt_out:
                return wrap(*arguments, **kwargs)
            # Replay path: OpenSSL must not verify in this handshake (the plan verifies after
            # it). verify_mode and the host check are copied into the connection when it is
            # created, so they are off only for that instant. Order matters: check_hostname
            # must be off before verify_mode can be CERT_NONE, and back on after it.
            check_hostname, verify_mode = self.check_hostname, self.verify_mode
            self.check_hostname = False
            self.verify_mode = ssl.CERT_NONE
            try:
                return wrap(*arguments, **kwargs)
            finally:
                self.verify_mode = verify_mode
                self.check_hostname = check_hostname


# --- Factories ---------------------------------------------------------------------------------

_warned: set[str] = set()
_warn_lock = threading.Lock()


def reset() -> None:
    """Forget what was said once and the shared contexts (the policy changed)."""
    _warned.clear()
    with _shared_lock:
        _shared.clear()
    _connection.reset()


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
    return build_context(PolicyContext, name, cafile=cafile, capath=capath, cadata=cadata)


AnyPolicyContext = TypeVar("AnyPolicyContext", bound="PolicyContext")


def build_context(
    kind: type[AnyPolicyContext],
    name: str | None,
    *,
    anchors: bool = True,
    cafile: str | None = None,
    capath: str | None = None,
    cadata: str | bytes | None = None,
) -> AnyPolicyContext:
    """Build a context of class ``kind`` for ``name``: the one recipe for every policy context.

    Args:
        kind: :class:`PolicyContext` or a subclass.
        name: The context name.
        anchors: Load the policy's anchors (``False``: the caller loads its own).
        cafile: Trust exactly these anchors instead of the policy's.
        capath: Likewise, a hashed directory.
        cadata: Likewise, PEM text or DER bytes.
    """
    decision = base_decision(name)
    context = kind(ssl.PROTOCOL_TLS_CLIENT)
    _apply_defaults(context, decision.minimum_tls)
    context._sslcustomize_name = name or "__main__"  # noqa: SLF001
    context._sslcustomize_decision = decision  # noqa: SLF001
    if cafile or capath or cadata:
        context.load_verify_locations(cafile, capath, cadata)
    elif anchors:
        _load_anchors(context, decision)
    return context


_SKIPPED = ("ssl", "sslcustomize", "_sslcustomize_startup")


def caller_module(depth: int = 2) -> str:
    """Return the module name of the first caller outside ``ssl`` and sslcustomize."""
    frame: types.FrameType | None = sys._getframe(depth)  # noqa: SLF001 - cheapest way
    while frame is not None:
        name = str(frame.f_globals.get("__name__", ""))
        if name not in _SKIPPED and not name.startswith("sslcustomize."):
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
        return longest_prefix(self._factories, name)

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


class SharedContext(PolicyContext):
    """A policy context shared by every connection of http.client (Python 3.12+).

    On 3.12 and newer, http.client's default path only sets ALPN (``http/1.1``) and
    ``post_handshake_auth`` on the context it gets, the same values every time; building a
    fresh context per connection would cost a context and a cold certificate store each
    time. Re-setting the same ALPN list is skipped: CPython frees and replaces the list even
    when it is unchanged, which must not race with another thread's handshake.
    """

    def set_alpn_protocols(self, alpn_protocols: Any) -> None:
        """Set the ALPN list, unless it is already exactly this one."""
        protocols = list(alpn_protocols)
        with _wrap_lock:
            if getattr(self, "_sslcustomize_alpn", None) != protocols:
                super().set_alpn_protocols(protocols)
                self._sslcustomize_alpn = protocols


_shared: dict[str, SharedContext] = {}
_shared_lock = threading.Lock()


def _shared_context(name: str) -> SharedContext:
    with _shared_lock:
        context = _shared.get(name)
        if context is None:
            context = _shared[name] = build_context(SharedContext, name)
        return context


def create_default_https_context(
    purpose: ssl.Purpose = ssl.Purpose.SERVER_AUTH,
    *,
    cafile: str | None = None,
    capath: str | None = None,
    cadata: str | bytes | None = None,
) -> ssl.SSLContext:
    """Replace ``ssl._create_default_https_context`` (http.client, urllib.request, xmlrpc).

    Like :func:`create_default_context`, except that on Python 3.12+ http.client's own calls
    share one context per policy (see :class:`SharedContext`). On 3.10 and 3.11 http.client
    loads client certificates and sets ``check_hostname`` on the context it gets, so each
    call still gets a new one there.
    """
    if purpose == ssl.Purpose.SERVER_AUTH and not (cafile or capath or cadata):
        name = caller_module()
        if name == "http.client" and _SHARE_HTTP_CLIENT and not named_contexts.registered(name):
            return _shared_context(name)
    return create_default_context(purpose, cafile=cafile, capath=capath, cadata=cadata)


# http.client sets only ALPN and post_handshake_auth on its context from 3.12 on (gh-94172
# removed its key_file, cert_file and check_hostname arguments).
_SHARE_HTTP_CLIENT = sys.version_info >= (3, 12)


def _stdlib_factory(
    original: Any,
    *,
    opt_out: bool,
    protocol: int | None,
    cert_reqs: int | None,
    check_hostname: bool,
    purpose: ssl.Purpose,
    certfile: str | None,
    keyfile: str | None,
    cafile: str | None,
    capath: str | None,
    cadata: str | bytes | None,
) -> ssl.SSLContext:
    """Build what ``ssl._create_stdlib_context``/``_create_unverified_context`` return.

    Server-side contexts are passed to ``original`` unchanged. A client gets a
    :class:`PolicyContext` for the calling module (or its registered factory): verifying, or,
    for an explicit opt-out, set up as the caller asked, so that the plan sees the opt-out.
    """
    if purpose != ssl.Purpose.SERVER_AUTH or protocol == ssl.PROTOCOL_TLS_SERVER:
        return original(  # type: ignore[no-any-return]
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
    if opt_out:
        context.check_hostname = check_hostname
        context.verify_mode = ssl.VerifyMode(ssl.CERT_NONE if cert_reqs is None else cert_reqs)
    if certfile or keyfile:
        context.load_cert_chain(certfile, keyfile)  # type: ignore[arg-type]
    return context


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
    return _stdlib_factory(
        ORIGINAL_CREATE_UNVERIFIED_CONTEXT, opt_out=False, protocol=protocol, cert_reqs=cert_reqs,
        check_hostname=check_hostname, purpose=purpose, certfile=certfile, keyfile=keyfile,
        cafile=cafile, capath=capath, cadata=cadata,
    )  # fmt: skip


def create_unverified_context(
    protocol: int | None = None,
    *,
    cert_reqs: int = ssl.CERT_NONE,
    check_hostname: bool = False,
    purpose: ssl.Purpose = ssl.Purpose.SERVER_AUTH,
    certfile: str | None = None,
    keyfile: str | None = None,
    cafile: str | None = None,
    capath: str | None = None,
    cadata: str | bytes | None = None,
) -> ssl.SSLContext:
    """Replace ``ssl._create_unverified_context``: a code opt-out the policy can see.

    A client context is a :class:`PolicyContext` set up as the caller asked (by default not
    verifying), so that its connections are reported as ``code_opt_out`` and, where
    ``allow_code_opt_out = false``, verified anyway.
    """
    return _stdlib_factory(
        ORIGINAL_CREATE_UNVERIFIED_CONTEXT, opt_out=True, protocol=protocol, cert_reqs=cert_reqs,
        check_hostname=check_hostname, purpose=purpose, certfile=certfile, keyfile=keyfile,
        cafile=cafile, capath=capath, cadata=cadata,
    )  # fmt: skip


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
