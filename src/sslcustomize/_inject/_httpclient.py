"""State the target of http.client's HTTPS connections: through a tunnel, the tunnel's end.

``HTTPSConnection.connect`` connects to ``host:port`` (the proxy, after ``set_tunnel``),
opens the CONNECT tunnel, and wraps the socket for ``_tunnel_host``: the socket's peer is the
proxy, the server is ``_tunnel_host:_tunnel_port``. ``set_tunnel`` documents the tunnel; the
two attributes are where http.client keeps it (3.10 to 3.15), read once per connection.
"""

from __future__ import annotations

import types

from sslcustomize._connection._target import Target
from sslcustomize._inject._patcher import Patcher
from sslcustomize._inject._targets import stating

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

__all__ = ["patch", "target_of"]


def target_of(connection: Any) -> Target:
    """Return the target of ``connection`` (an ``HTTPSConnection``) as it connects now."""
    host, port = connection.host, connection.port
    tunnel_host = getattr(connection, "_tunnel_host", None)
    if tunnel_host:
        tunnel_port = getattr(connection, "_tunnel_port", None)
        return Target(
            host=tunnel_host,
            port=tunnel_port if isinstance(tunnel_port, int) else None,
            proxy=(host, port),
            proxy_kind="http",  # http.client speaks to its proxy in the clear
        )
    if type(host) is not str or type(port) is not int:
        return Target(host=host, port=port if isinstance(port, int) else None)
    key = (host, port)
    target = _direct.get(key)
    if target is None:
        if len(_direct) >= _MAX_DIRECT:
            _direct.clear()
        target = _direct[key] = Target(host=host, port=port)
    return target


# The targets of direct connections (no tunnel), by host and port: a Target is an immutable
# value, made once rather than at every connection. A few, for the servers a process uses.
_direct: dict[tuple[str, int], Target] = {}
_MAX_DIRECT = 64


def patch(patcher: Patcher, trigger: str, client: types.ModuleType) -> None:
    """Wrap ``http.client.HTTPSConnection.connect`` (``trigger``, just imported)."""
    del trigger
    https = getattr(client, "HTTPSConnection", None)  # absent where ssl is not built in
    connect = getattr(https, "connect", None)
    if connect is None or hasattr(connect, "__sslcustomize_original__"):
        return
    wrapped = stating(connect, target_of)
    wrapped.__sslcustomize_original__ = connect  # type: ignore[attr-defined]
    patcher.replace(https, "connect", wrapped)
