"""Hook the standard library's context factories.

``ssl.create_default_context`` (asyncio, and code that asks for a default context),
``ssl._create_default_https_context`` (http.client, urllib.request, xmlrpc.client) and
``ssl._create_stdlib_context`` (smtplib, imaplib, poplib, ftplib, nntplib: gh-91826),
``ssl._create_unverified_context`` (code that opts out, so that the policy sees it), and on
3.10 and 3.11 ``ssl.wrap_socket`` (which makes an unverified context of its own).
Python 3.12+ urllib.request builds its HTTPS context when ``urlopen()`` first builds the
global opener; such an opener built before injection is dropped so the next call builds a new one.
"""

from __future__ import annotations

import functools
import os
import ssl
import sys
import types
import warnings

from sslcustomize._connection._contexts import (
    PolicyContext,
    build_context,
    caller_module,
    create_default_context,
    named_contexts,
    own_state,
)
from sslcustomize._inject._patcher import Patcher, on_import, state_targets
from sslcustomize._support._bootstrap import FACTORIES, LEGACY
from sslcustomize._support._originals import (
    ORIGINAL_CREATE_DEFAULT_CONTEXT,
    ORIGINAL_CREATE_UNVERIFIED_CONTEXT,
    ORIGINAL_WRAP_SOCKET,
    is_stand_in,
    unwrap_factory,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable
    from typing import Any

    from sslcustomize._runtime._runtime import Runtime

__all__ = [
    "SharedContext",
    "create_default_https_context",
    "create_stdlib_context",
    "create_unverified_context",
    "inject",
    "wrap_socket",
]

# --- The replacements of ssl's factories ---------------------------------------------------------


class SharedContext(PolicyContext):
    """A policy context shared by connections that all set the same on it; then read-only.

    http.client builds a context per connection and sets the same ALPN list and
    ``post_handshake_auth`` on it each time; building a fresh one each time costs a context
    and a cold certificate store. One shared context serves them all instead, frozen once
    built: setting anything to the value it already has is a no-op, and any other change
    raises :class:`~sslcustomize.exceptions.SharedContextError`, so that no caller's change
    (``check_hostname = False`` through ``sock.context``) can ever reach another caller.
    """

    def set_alpn_protocols(self, alpn_protocols: Iterable[str]) -> None:
        """Set the ALPN protocols; the list it was built with again is a no-op at C speed.

        http.client sets ``["http/1.1"]`` at every connection: compared with a private copy
        of the list the context was built with, nothing is normalised or looked up. Returning
        early changes nothing, so a list that only claims to be equal cannot change it either;
        anything else goes the recorded way (refused if it changes the context).
        """
        built = vars(self).get(_BUILT_ALPN)
        if built is not None and type(alpn_protocols) is list and alpn_protocols == built:
            return
        super().set_alpn_protocols(alpn_protocols)


# Where a shared context keeps a copy of the ALPN list it was built with (never handed out).
_BUILT_ALPN = "_sslcustomize_built_alpn"


def _http_client_version() -> int | None:
    """Return http.client's HTTP version when it is the one asking, with nothing of its own.

    http.client asks from ``HTTPSConnection.__init__`` (3.12+ through
    ``_create_https_context``, which urllib.request's ``HTTPSHandler`` calls too, and then
    changes ``check_hostname``: that caller gets a context of its own). On 3.10/3.11 the
    deprecated ``key_file``/``cert_file``/``check_hostname`` arguments change the context:
    such a connection gets one of its own too.
    """
    frame: types.FrameType | None = sys._getframe(2)  # noqa: SLF001 - see the docstring
    while frame is not None and frame.f_globals.get("__name__") == "_sslcustomize_startup":
        frame = frame.f_back  # the startup hook's stand-in, on the first call
    if frame is None:
        return None
    code = frame.f_code
    if code.co_name == "_create_https_context" and frame.f_globals.get("__name__") == "http.client":
        frame = frame.f_back
        if frame is None:
            return None
        code = frame.f_code
    if code.co_name != "__init__" or frame.f_globals.get("__name__") != "http.client":
        return None
    names = frame.f_locals
    if names.get("key_file") or names.get("cert_file"):
        return None
    if names.get("check_hostname") not in (None, True):
        return None
    return int(getattr(names.get("self"), "_http_vsn", 11))


def _shared_http_client_context(runtime: Runtime, version: int) -> SharedContext:
    def build() -> SharedContext:
        context = build_context(SharedContext, "http.client", runtime=runtime)
        if version == 11:
            context.set_alpn_protocols(["http/1.1"])
            vars(context)[_BUILT_ALPN] = ["http/1.1"]
        if context.post_handshake_auth is not None:
            context.post_handshake_auth = True
        context.freeze()
        return context

    return runtime.shared(("http.client", version), build)


def create_default_https_context(
    purpose: ssl.Purpose = ssl.Purpose.SERVER_AUTH,
    *,
    cafile: str | None = None,
    capath: str | None = None,
    cadata: str | bytes | None = None,
) -> ssl.SSLContext:
    """Replace ``ssl._create_default_https_context`` (http.client, urllib.request, xmlrpc).

    Like :func:`create_default_context`, except that http.client's own connections share one
    read-only context per policy (see :class:`SharedContext`).
    """
    if purpose == ssl.Purpose.SERVER_AUTH and not (cafile or capath or cadata):
        version = _http_client_version()
        if version is not None and not named_contexts.registered("http.client"):
            from sslcustomize._runtime._state import current_runtime  # noqa: PLC0415 - not by a first context

            return _shared_http_client_context(current_runtime(), version)
    return create_default_context(purpose, cafile=cafile, capath=capath, cadata=cadata)


class _NotGiven:
    """The default of an argument the caller did not pass (``None`` is a value of its own)."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "<not given>"


NOT_GIVEN: Any = _NotGiven()
# A directory argument that loads nothing: asking Python's own factory what it would do must
# not read the system store (an OpenSSL lookup directory is only searched when verifying).
_NO_ANCHORS = os.devnull


@functools.lru_cache(maxsize=64)
def _python_verifies(
    protocol: int | None, purpose: ssl.Purpose, given: tuple[tuple[str, Any], ...]
) -> bool:
    """Tell whether Python's own ``_create_stdlib_context`` verifies for these arguments.

    Python's function itself is asked, with the caller's ``cert_reqs``/``check_hostname`` and
    its own defaults for the rest, so that its semantics are this Python's, whatever the
    version: since gh-114905 (3.13.18+, 3.14, 3.15 and the code of every 3.10+)
    ``check_hostname=True`` with the default ``cert_reqs=CERT_NONE`` raises ``ValueError``,
    ``cert_reqs=None`` keeps PROTOCOL_TLS_CLIENT's CERT_REQUIRED. Its exceptions propagate:
    the caller gets what Python would have raised.
    """
    # SERVER_AUTH (the only purpose asked here) as the function's own module spells it now:
    # importlib.reload(ssl) re-runs ssl's body in the same namespace, and Python's function
    # then checks its argument against the new classes, not the ones its default was made of.
    del purpose
    own = ORIGINAL_CREATE_UNVERIFIED_CONTEXT.__globals__["Purpose"].SERVER_AUTH
    context = ORIGINAL_CREATE_UNVERIFIED_CONTEXT(
        protocol, purpose=own, capath=_NO_ANCHORS, **dict(given)
    )
    return bool(context.verify_mode != ssl.CERT_NONE)


def _apply_verification(
    context: ssl.SSLContext, *, cert_reqs: Any, check_hostname: Any, opt_out: bool
) -> None:
    """Apply what the caller passed; what it did not pass keeps the policy's verification.

    ``cert_reqs=None`` leaves the context's mode, as Python does. A code opt-out (CERT_NONE,
    given or implied by ``_create_unverified_context``) turns the host check off first, as
    Python's own default ``check_hostname=False`` does (ssl's order: ``check_hostname``
    before ``verify_mode = CERT_NONE``).
    """
    if opt_out and cert_reqs is NOT_GIVEN:
        cert_reqs = ssl.CERT_NONE
    if check_hostname is NOT_GIVEN:
        check_hostname = False if cert_reqs == ssl.CERT_NONE else context.check_hostname
    if not check_hostname:
        context.check_hostname = False  # sslcustomize: allow(the caller's own opt-out, as ssl's)
    if cert_reqs not in (NOT_GIVEN, None):
        context.verify_mode = ssl.VerifyMode(cert_reqs)  # sslcustomize: allow(the caller's own)
    if check_hostname:
        context.check_hostname = True


def _client_context(
    protocol: int | None, *, cafile: str | None, capath: str | None, cadata: str | bytes | None
) -> ssl.SSLContext:
    """Return the calling module's registered context, or a policy context as asked."""
    name = caller_module(3)
    explicit_protocol = protocol not in (None, ssl.PROTOCOL_TLS_CLIENT)
    if not (cafile or capath or cadata or explicit_protocol):
        factory = named_contexts.registered(name)
        if factory is not None:
            return factory()
    return build_context(
        PolicyContext, name, protocol=protocol or ssl.PROTOCOL_TLS_CLIENT,
        cafile=cafile, capath=capath, cadata=cadata,
    )  # fmt: skip


def _stdlib_factory(
    *,
    opt_out: bool,
    protocol: int | None,
    cert_reqs: Any,
    check_hostname: Any,
    purpose: ssl.Purpose,
    certfile: str | None,
    keyfile: str | None,
    cafile: str | None,
    capath: str | None,
    cadata: str | bytes | None,
) -> ssl.SSLContext:
    """Build what ``ssl._create_stdlib_context``/``_create_unverified_context`` return.

    Server-side contexts are built by :mod:`ssl` unchanged. A client gets a
    :class:`PolicyContext` for the calling module (or its registered factory) with the
    protocol asked for. Arguments the caller passed are applied as given (a code opt-out
    when they turn verification off, recorded or refused at each connection); those it did
    not pass keep the policy's verification. Where Python itself would refuse the arguments
    it raises as Python does, and where Python itself would verify, report mode refuses what
    Python refuses (see :func:`_python_verifies`).
    """
    given = tuple(
        (key, value)
        for key, value in (("cert_reqs", cert_reqs), ("check_hostname", check_hostname))
        if value is not NOT_GIVEN
    )
    if purpose != ssl.Purpose.SERVER_AUTH or protocol == ssl.PROTOCOL_TLS_SERVER:
        return ORIGINAL_CREATE_UNVERIFIED_CONTEXT(  # type: ignore[no-any-return]
            protocol, purpose=purpose, certfile=certfile, keyfile=keyfile, cafile=cafile,
            capath=capath, cadata=cadata, **dict(given),
        )  # fmt: skip
    # smtplib & co. pass nothing: Python would not verify (gh-91826), the policy does.
    python_verifies = bool(given or opt_out) and _python_verifies(protocol, purpose, given)
    context = _client_context(protocol, cafile=cafile, capath=capath, cadata=cadata)
    if isinstance(context, PolicyContext):
        own_state(context).python_verifies = python_verifies  # pending or not
    if given or opt_out:
        _apply_verification(
            context, cert_reqs=cert_reqs, check_hostname=check_hostname, opt_out=opt_out
        )
    if certfile or keyfile:
        context.load_cert_chain(certfile, keyfile)  # type: ignore[arg-type]
    return context


def create_stdlib_context(
    protocol: int | None = None,
    *,
    cert_reqs: int | None = NOT_GIVEN,
    check_hostname: bool = NOT_GIVEN,
    purpose: ssl.Purpose = ssl.Purpose.SERVER_AUTH,
    certfile: str | None = None,
    keyfile: str | None = None,
    cafile: str | None = None,
    capath: str | None = None,
    cadata: str | bytes | None = None,
) -> ssl.SSLContext:
    """Replace ``ssl._create_stdlib_context``: verify where the stdlib would not.

    smtplib, imaplib, poplib, ftplib and nntplib call this (CPython gh-91826); it returns a
    verifying context for the calling module, with the caller's protocol and client
    certificate. An explicit ``cert_reqs``/``check_hostname`` is applied as given (a code
    opt-out when it turns verification off: ``ssl.get_server_certificate()`` does), and
    raises ``ValueError`` where Python's own function does (``check_hostname=True`` with the
    default ``cert_reqs``, gh-114905).
    """
    return _stdlib_factory(
        opt_out=False, protocol=protocol, cert_reqs=cert_reqs, check_hostname=check_hostname,
        purpose=purpose, certfile=certfile, keyfile=keyfile, cafile=cafile, capath=capath,
        cadata=cadata,
    )  # fmt: skip


def create_unverified_context(
    protocol: int | None = None,
    *,
    cert_reqs: int | None = ssl.CERT_NONE,
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
        opt_out=True, protocol=protocol, check_hostname=check_hostname, purpose=purpose,
        cert_reqs=cert_reqs,  # sslcustomize: allow(the code opt-out, visible to the policy)
        certfile=certfile, keyfile=keyfile, cafile=cafile, capath=capath, cadata=cadata,
    )  # fmt: skip


def wrap_socket(  # noqa: PLR0917 - ssl.wrap_socket's own signature
    sock: Any,
    keyfile: str | None = None,
    certfile: str | None = None,
    server_side: bool = False,  # noqa: FBT001, FBT002 - ssl.wrap_socket's own signature
    cert_reqs: int = ssl.CERT_NONE,
    ssl_version: int = ssl.PROTOCOL_TLS,
    ca_certs: str | None = None,
    do_handshake_on_connect: bool = True,  # noqa: FBT001, FBT002
    suppress_ragged_eofs: bool = True,  # noqa: FBT001, FBT002
    ciphers: str | None = None,
) -> ssl.SSLSocket:
    """Replace ``ssl.wrap_socket`` (3.10, 3.11): a client socket under the policy.

    Python's own makes a plain ``SSLContext`` that verifies nothing by default and never
    checks a name (it takes no ``server_hostname``). Here a client gets a policy context set
    up as the arguments say: its connections are a code opt-out, recorded, or, where
    ``allow_code_opt_out = false``, refused (there is no name to verify against). Server
    sockets are made by :mod:`ssl` unchanged.
    """
    if server_side:
        return ORIGINAL_WRAP_SOCKET(  # type: ignore[no-any-return]
            sock, keyfile, certfile, server_side, cert_reqs, ssl_version, ca_certs,
            do_handshake_on_connect, suppress_ragged_eofs, ciphers,
        )  # fmt: skip
    warnings.warn(
        "ssl.wrap_socket() is deprecated, use SSLContext.wrap_socket()",
        category=DeprecationWarning,
        stacklevel=2,
    )
    if keyfile and not certfile:
        raise ValueError("certfile must be specified")
    context = _stdlib_factory(
        opt_out=False, protocol=ssl_version, check_hostname=False,
        cert_reqs=cert_reqs,  # sslcustomize: allow(wrap_socket's own; a recorded opt-out)
        purpose=ssl.Purpose.SERVER_AUTH, certfile=certfile, keyfile=keyfile, cafile=ca_certs,
        capath=None, cadata=None,
    )  # fmt: skip
    if ciphers:
        context.set_ciphers(ciphers)
    return context.wrap_socket(
        sock=sock,
        server_side=False,
        do_handshake_on_connect=do_handshake_on_connect,
        suppress_ragged_eofs=suppress_ragged_eofs,
    )


# --- Putting them in place -----------------------------------------------------------------------


def _opener_context(opener: object) -> object:
    for handler in getattr(opener, "handlers", ()):
        context = getattr(handler, "_context", None)
        if context is not None:
            return context
    return None


def _is_default(opener: object) -> bool:
    from urllib.request import build_opener  # noqa: PLC0415 - only if urllib.request is in use

    default = sorted(type(h).__name__ for h in getattr(build_opener(), "handlers", ()))
    return sorted(type(h).__name__ for h in getattr(opener, "handlers", ())) == default


def _drop_prebuilt_opener(patcher: Patcher) -> None:
    request = sys.modules.get("urllib.request")
    if request is None:
        return
    before = getattr(request, "_opener", None)
    if before is not None and _opener_context(before) is not None and _is_default(before):
        # urlopen() built this opener, with a context made before injection (3.12+): have it
        # build a new one on next use. An opener the program installed itself is kept.
        request._opener = None  # type: ignore[attr-defined]  # noqa: SLF001

    def restore() -> None:
        module = sys.modules.get("urllib.request")
        current = getattr(module, "_opener", None)
        if module is not None and isinstance(_opener_context(current), PolicyContext):
            module._opener = before  # type: ignore[attr-defined]  # noqa: SLF001

    patcher.on_undo(restore)


def remove_stand_ins() -> None:
    """Put back the factories the startup hook's stand-ins wrap, if they are still there."""
    for name in (*FACTORIES, *LEGACY):
        current = getattr(ssl, name, None)
        if is_stand_in(current):
            setattr(ssl, name, unwrap_factory(current))
    _restore_gevent()  # gevent.ssl's copies of the stand-ins would inject again when called


# What each ssl attribute holds by default, and the hook that replaces it there.
_DEFAULT, _UNVERIFIED = ORIGINAL_CREATE_DEFAULT_CONTEXT, ORIGINAL_CREATE_UNVERIFIED_CONTEXT
_DEFAULTS = {
    "create_default_context": (_DEFAULT, create_default_context),
    "_create_default_https_context": (_DEFAULT, create_default_https_context),
    "_create_stdlib_context": (_UNVERIFIED, create_stdlib_context),
    "_create_unverified_context": (_UNVERIFIED, create_unverified_context),
}
# A factory moved to another attribute by code keeps its meaning there: the documented global
# opt-out ``ssl._create_default_https_context = ssl._create_unverified_context`` stays an
# opt-out (obeyed and recorded, or refused) at every call.
_MOVED_HOOKS = (create_default_context, create_unverified_context)


def _hook_for(
    name: str, current: object, originals: tuple[object, object] = (_DEFAULT, _UNVERIFIED)
) -> object | None:
    """Return the hook for ssl attribute ``name`` holding ``current``, or ``None`` to keep it.

    ``originals``: Python's ``create_default_context`` and ``_create_unverified_context`` as
    the module holding ``name`` has them (those saved at start-up, or a reloaded body's own).
    """
    current = unwrap_factory(current)  # the startup hook's stand-in
    if current is originals[0 if _DEFAULTS[name][0] is _DEFAULT else 1]:
        return _DEFAULTS[name][1]
    for original, hook in zip(originals, _MOVED_HOOKS, strict=True):
        if current is original:
            return hook
    return None  # code's own factory: kept as it is


_HOOKS = frozenset(hook for _, hook in _DEFAULTS.values())


def _mirror_into_gevent(module: types.ModuleType) -> None:
    """Give ``gevent.ssl`` the factories ``ssl`` has now, where it holds a copy of ssl's.

    ``gevent.ssl`` copies every name of ``ssl`` when it is imported (gevent's
    ``copy_globals``), factories included, and ``from gevent import ssl`` code calls those
    copies. Copied before injection they are Python's own (a context that ignores the
    policy) or the startup hook's stand-ins (which, called after ``extract()``, would inject
    again); copied after, they are the hooks, which ``extract()`` must take back too.
    """
    for name in FACTORIES:
        copied, current = getattr(module, name, None), getattr(ssl, name)
        if current in _HOOKS and unwrap_factory(copied) is _DEFAULTS[name][0]:
            setattr(module, name, current)


def _restore_gevent() -> None:
    """Put back in ``gevent.ssl`` what ``ssl`` holds after extraction (see above)."""
    module = sys.modules.get("gevent.ssl")
    for name in FACTORIES if module is not None else ():
        copied = getattr(module, name, None)
        if copied in _HOOKS or is_stand_in(copied):
            setattr(module, name, unwrap_factory(getattr(ssl, name)))


def _hook_again(patcher: Patcher) -> Callable[[types.ModuleType], None]:
    """Hook ``ssl`` again each time its body runs again (``importlib.reload``, a new import).

    A body that has just run holds Python's own factories again, new function objects that
    are not the originals saved at startup: each is told by what it is in that module (its
    own ``create_default_context`` or ``_create_unverified_context``, also where ssl binds
    one under another name) and replaced like the first time. Module reloaders and
    "pristine module" helpers would otherwise drop the policy for every later context.
    """

    def hook(module: types.ModuleType) -> None:
        if getattr(module, FACTORIES[0], None) in _HOOKS:
            return  # this body is hooked already (the first call, or a callback seen twice)
        fresh = (
            unwrap_factory(getattr(module, "create_default_context", None)),
            unwrap_factory(getattr(module, "_create_unverified_context", None)),
        )
        for name in FACTORIES:
            replacement = _hook_for(name, getattr(module, name, None), fresh)
            if replacement is not None:
                patcher.replace(module, name, replacement)
        legacy = getattr(module, "wrap_socket", None)
        if legacy is not None and getattr(legacy, "__module__", None) != __name__:
            patcher.replace(module, "wrap_socket", wrap_socket)

    return hook


def inject(patcher: Patcher) -> None:
    """Replace the stdlib's factories with the policy's, where they hold Python's own."""
    patcher.on_undo(_restore_gevent)  # first, so undone last: after ssl's own attributes
    for name in FACTORIES:
        hook = _hook_for(name, getattr(ssl, name))
        if hook is not None:
            patcher.replace(ssl, name, hook)
    current = getattr(ssl, "wrap_socket", None)
    if current is not None and unwrap_factory(current) is ORIGINAL_WRAP_SOCKET:
        patcher.replace(ssl, "wrap_socket", wrap_socket)
    _drop_prebuilt_opener(patcher)
    on_import(patcher, "gevent.ssl", _mirror_into_gevent)
    state_targets(patcher)
    # Registered last: called now it finds this body hooked; called again on a new body.
    on_import(patcher, "ssl", _hook_again(patcher))
