"""Hook aiohttp: its two module-wide contexts, made at import, are replaced by policy ones.

aiohttp makes ``_SSL_CONTEXT_VERIFIED`` and ``_SSL_CONTEXT_UNVERIFIED`` when
``aiohttp.connector`` is imported, and ``TCPConnector._get_ssl_context`` returns one of them
unless the code gave its own (``ssl=ctx``). The replacement is needed: the unverified one is a
plain ``ssl.SSLContext`` that no policy governs (``ssl=False`` must be obeyed or refused per
``allow_code_opt_out``), and the verified one is a policy context only when the start-up hook
ran before aiohttp's import, named for ``ssl.create_default_context`` rather than ``aiohttp``,
and bound to the policy of that moment.

So the hook rebinds both module attributes to policy contexts named ``aiohttp`` when the
module is hooked (at its import: building a context reads files, which aiohttp does at import
to keep it out of the event loop), and wraps ``_get_ssl_context``: where it returns one of
them, the policy's current context is returned and bound in their place, so that a connector
made before ``inject()``, a new policy or changed trust sources follow the policy too. The
method and the module attributes stay the same object, as aiohttp's code and tests expect.
``ssl=False`` and ``ssl=aiohttp.Fingerprint(...)`` get the unverified one: a code opt-out,
obeyed or refused per ``allow_code_opt_out`` (aiohttp still checks the fingerprint).
"""

from __future__ import annotations

import functools
import ssl
import types
from collections.abc import Callable

from sslcustomize._connection._target import Target, state, unstate
from sslcustomize._inject._patcher import Patcher
from sslcustomize._inject._shared import ContextCache, library_context, make_opt_out

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


__all__ = ["patch"]

NAME = "aiohttp"
# aiohttp.connector's module-wide contexts: verified (True) and unverified (False).
_ATTRIBUTES = {True: "_SSL_CONTEXT_VERIFIED", False: "_SSL_CONTEXT_UNVERIFIED"}
_cache = ContextCache()


def _context(verified: bool) -> ssl.SSLContext:  # noqa: FBT001
    def build() -> ssl.SSLContext:
        context = library_context(NAME)
        if not verified:
            make_opt_out(context)
        context.set_alpn_protocols(("http/1.1",))  # as aiohttp's own
        return context

    return _cache.get(verified, build)  # type: ignore[no-any-return]


def _tunnel_target(req: Any) -> Target:
    """The target of TLS in a CONNECT tunnel: the request's host and port, through its proxy.

    The proxy is an HTTP one spoken to in the clear (``http://``): a pinned server's probe can
    ask it for a tunnel of its own. One spoken to in TLS (``https://``) is of no kind a probe
    knows.
    """
    port = getattr(req, "port", None)
    proxy = getattr(req, "proxy", None)
    proxy_host, proxy_port = getattr(proxy, "host", None), getattr(proxy, "port", None)
    name = getattr(req, "server_hostname", None) or getattr(req, "host", None)
    through = None
    if isinstance(proxy_host, str) and isinstance(proxy_port, int):
        through = (proxy_host, proxy_port)
    return Target(
        host=name if isinstance(name, str) else None,
        port=port if isinstance(port, int) else None,
        proxy=through,
        proxy_kind="http" if through and getattr(proxy, "scheme", None) == "http" else None,
    )


def _tunnel_tls(original: Callable[..., Any]) -> Callable[..., Any]:
    """Wrap ``_start_tls_connection``: TLS in a CONNECT tunnel is with the request's target.

    The transport under it leads to the proxy: the target is stated around the call instead
    (on 3.10 asyncio makes the TLS object from a loop callback, which runs in a copy of this
    context).
    """

    @functools.wraps(original)
    async def _start_tls_connection(
        self: Any, transport: Any, req: Any, *args: Any, **kw: Any
    ) -> Any:
        token = state(_tunnel_target(req))
        try:
            return await original(self, transport, req, *args, **kw)
        finally:
            unstate(token)

    return _start_tls_connection


def _patch(patcher: Patcher) -> Callable[[types.ModuleType], None]:
    def patch(connector: types.ModuleType) -> None:
        tcp = getattr(connector, "TCPConnector", None)
        tunnel = getattr(tcp, "_start_tls_connection", None)
        if tunnel is not None:
            patcher.replace(tcp, "_start_tls_connection", _tunnel_tls(tunnel))
        original = getattr(tcp, "_get_ssl_context", None)
        verified = getattr(connector, "_SSL_CONTEXT_VERIFIED", None)
        unverified = getattr(connector, "_SSL_CONTEXT_UNVERIFIED", None)
        if original is None or verified is None or unverified is None:
            # An aiohttp laid out otherwise: its contexts are out of the policy's reach.
            raise LookupError("aiohttp.connector.TCPConnector._get_ssl_context not found")
        if hasattr(original, "__sslcustomize_original__"):
            return  # hooked already (the module seen again)
        originals = {True: verified, False: unverified}

        def current(flag: bool, context: object) -> ssl.SSLContext | None:  # noqa: FBT001
            """Return the policy's context where ``context`` is aiohttp's verified/unverified."""
            attribute = _ATTRIBUTES[flag]
            bound = getattr(connector, attribute, None)
            if context is not bound and context is not originals[flag]:
                return None
            policy = _context(flag)
            if bound is not policy:
                setattr(connector, attribute, policy)  # a new policy or trust generation
            return policy

        @functools.wraps(original)
        def _get_ssl_context(self: Any, req: Any) -> Any:
            context = original(self, req)
            for flag in (True, False):
                policy = current(flag, context)
                if policy is not None:
                    return policy
            return context

        def restore() -> None:
            for flag, attribute in _ATTRIBUTES.items():
                setattr(connector, attribute, originals[flag])

        patcher.on_undo(restore)
        for flag in (True, False):
            current(flag, originals[flag])
        # Read above: the hook seeing this class again leaves it hooked once.
        _get_ssl_context.__sslcustomize_original__ = original  # type: ignore[attr-defined]
        patcher.replace(tcp, "_get_ssl_context", _get_ssl_context)

    return patch


def patch(patcher: Patcher, trigger: str, connector: types.ModuleType) -> None:
    """Hook ``aiohttp.connector`` (``trigger``), just imported."""
    _patch(patcher)(connector)
