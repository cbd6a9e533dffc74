"""State the target of asyncio's TLS connections: ``loop.create_connection(ssl=...)``.

asyncio makes the TLS object of a connection in a loop callback (``connection_made``), long
after the socket it connected is out of reach; the callback runs in a copy of the context of
the code that scheduled it, so a target stated around ``create_connection`` reaches it. The
target is the ``host`` and ``port`` asked for, or for a socket given connected (``sock=``,
as aiohttp passes), what python-socks' hook remembered for it, else its peer.

``loop.start_tls()`` states nothing of its own: the connection it upgrades may lead to a
proxy (a CONNECT tunnel) as well as to the server; the code that opened the tunnel states
the target around it (aiohttp, python-socks), or the fallback of :mod:`.._connection._target`
applies (websockets).
"""

from __future__ import annotations

import types

from sslcustomize._connection._target import Target, port_of, proxied_target
from sslcustomize._inject._patcher import Patcher
from sslcustomize._inject._targets import stating

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

__all__ = ["patch", "target_of"]


def target_of(
    loop: Any, protocol_factory: Any, host: Any = None, port: Any = None, *args: Any, **kwargs: Any
) -> Target | None:
    """Return the target of a ``create_connection`` call, ``None`` without TLS."""
    del loop, protocol_factory, args
    if not kwargs.get("ssl"):
        return None
    name = kwargs.get("server_hostname") or host
    name = name if isinstance(name, str) else None
    sock = kwargs.get("sock")
    if sock is not None:
        proxied = proxied_target(sock)
        return proxied if proxied is not None else Target(host=name, port=port_of(sock))
    return Target(host=name, port=port if isinstance(port, int) else None)


def patch(patcher: Patcher, trigger: str, base_events: types.ModuleType) -> None:
    """Wrap ``BaseEventLoop.create_connection`` (``trigger``: ``asyncio.base_events``)."""
    del trigger
    loop = getattr(base_events, "BaseEventLoop", None)
    create = getattr(loop, "create_connection", None)
    if create is None or hasattr(create, "__sslcustomize_original__"):
        return
    wrapped = stating(create, target_of)
    wrapped.__sslcustomize_original__ = create  # type: ignore[attr-defined]
    patcher.replace(loop, "create_connection", wrapped)
