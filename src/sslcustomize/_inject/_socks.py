"""State the target of connections through python-socks (and aiohttp-socks, which uses it).

A python-socks proxy's ``connect(dest_host, dest_port, ...)`` connects to the proxy and asks
it for the destination; the socket it returns has the proxy as its peer. The hook states the
destination around the call (the v2 classes start the destination's TLS inside it, as
aiohttp-socks asks with ``dest_ssl``), and remembers it for a socket returned connected
(:func:`.._connection._target.proxied`), for the TLS connection its caller starts on it.

A proxy that speaks TLS itself (``proxy_ssl``) makes a first TLS connection, to the proxy,
inside the same call: it is named for the proxy, so the destination's target does not count
for it (its port is unknown there). Where the proxy and the destination have the same name,
the destination's port is unknown too: neither connection can be told from the other.
"""

from __future__ import annotations

import socket
import types

from sslcustomize._connection._target import Target, proxied
from sslcustomize._inject._patcher import Patcher
from sslcustomize._inject._targets import stating

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

__all__ = ["CLASSES", "patch", "target_of"]

#: The proxy class of each python-socks module hooked (v1 and v2 of each backend).
CLASSES = {
    "python_socks.sync._proxy": "SyncProxy",
    "python_socks.sync.v2._proxy": "SyncProxy",
    "python_socks.async_.asyncio._proxy": "AsyncioProxy",
    "python_socks.async_.asyncio.v2._proxy": "AsyncioProxy",
    "python_socks.async_.anyio._proxy": "AnyioProxy",
    "python_socks.async_.anyio.v2._proxy": "AnyioProxy",
    "python_socks.async_.trio._proxy": "TrioProxy",
    "python_socks.async_.trio.v2._proxy": "TrioProxy",
}


#: The kind of each python-socks ``ProxyType`` (by name: python-socks is not imported) that a
#: pinned server's probe can ask for a tunnel of its own; SOCKS4 and a proxy spoken to in TLS
#: (``proxy_ssl``) are unknown to it.
_KINDS = {"SOCKS5": "socks5", "HTTP": "http"}


def target_of(
    proxy: Any, dest_host: Any = None, dest_port: Any = None, *args: Any, **kwargs: Any
) -> Target | None:
    """Return the destination of a proxy's ``connect()`` call."""
    del args
    dest_host = kwargs.get("dest_host", dest_host)
    dest_port = kwargs.get("dest_port", dest_port)
    if not isinstance(dest_host, str):
        return None
    proxy_host = getattr(proxy, "_proxy_host", None)
    proxy_port = getattr(proxy, "_proxy_port", None)
    through = (proxy_host, proxy_port) if isinstance(proxy_host, str) else None
    port = dest_port if isinstance(dest_port, int) else None
    proxy_ssl = getattr(proxy, "_proxy_ssl", None) is not None
    if proxy_ssl and proxy_host == dest_host:
        port = None  # two TLS connections with one name: which is which is unknown
    kind = getattr(getattr(proxy, "_proxy_type", None), "name", None)
    return Target(
        host=dest_host, port=port, proxy=through,  # type: ignore[arg-type]
        proxy_kind=None if proxy_ssl else _KINDS.get(kind),  # type: ignore[arg-type]
    )  # fmt: skip


def _remember(result: Any, target: Target | None) -> Any:
    """Remember ``target`` for the socket ``result`` is (v1) or holds (v2 sync, ``socket``)."""
    sock = result if isinstance(result, socket.socket) else getattr(result, "socket", None)
    if target is not None and type(sock) is socket.socket:  # not one already wrapped in TLS
        proxied(sock, target)
    return result


def _remembering(original: Callable[..., Any]) -> Callable[..., Any]:
    """Wrap ``connect`` to state its destination, and remember it for the socket returned."""
    inner = stating(original, target_of)
    if getattr(original.__code__, "co_flags", 0) & 0x80:  # a coroutine function

        async def connect_async(*args: Any, **kwargs: Any) -> Any:
            return _remember(await inner(*args, **kwargs), target_of(*args, **kwargs))

        connect = connect_async
    else:

        def connect_sync(*args: Any, **kwargs: Any) -> Any:
            return _remember(inner(*args, **kwargs), target_of(*args, **kwargs))

        connect = connect_sync
    connect.__name__, connect.__qualname__ = original.__name__, original.__qualname__
    connect.__doc__, connect.__wrapped__ = original.__doc__, original  # type: ignore[attr-defined]
    connect.__sslcustomize_original__ = original  # type: ignore[attr-defined]
    return connect


def patch(patcher: Patcher, trigger: str, module: types.ModuleType) -> None:
    """Wrap the ``connect`` of the proxy class of ``module`` (``trigger``, just imported)."""
    cls = getattr(module, CLASSES[trigger], None)
    original = getattr(cls, "connect", None)
    if original is None or hasattr(original, "__sslcustomize_original__"):
        return
    patcher.replace(cls, "connect", _remembering(original))
