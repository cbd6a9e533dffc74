"""The port a client asked a proxy to tunnel to, for the connection it is starting now."""

from __future__ import annotations

import contextvars

__all__ = ["TUNNEL_PORT"]

#: The port of the server a client is starting TLS with through a CONNECT tunnel, where the
#: frames hold only the proxy's socket (and on 3.10 asyncio starts TLS from a loop callback,
#: into which it copies this context). Set by the aiohttp hook around its tunnel's TLS start.
TUNNEL_PORT: contextvars.ContextVar[int | None] = contextvars.ContextVar(
    "sslcustomize_tunnel_port", default=None
)
