"""State the target of httpcore's connections (httpx's transport), sync and async.

* ``HTTPConnection._connect``: a connection to its origin (the server, or an HTTP proxy that
  speaks TLS itself).
* ``TunnelHTTPConnection.handle_request``: a CONNECT tunnel; the TLS connection it starts in
  the tunnel is with its remote origin. The proxy's own connection, made inside it by an
  ``HTTPConnection``, states the proxy's origin around itself.
* ``Socks5Connection.handle_request``: through a SOCKS5 proxy, with its remote origin.

Each keeps its origins as ``Origin(scheme, host, port)`` values (httpcore 0.14 to 1.0).
"""

from __future__ import annotations

import sys
import types

from sslcustomize._connection._target import Target
from sslcustomize._inject._patcher import Patcher
from sslcustomize._inject._targets import stating

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

__all__ = ["HOOKED", "patch"]


def _target(origin: Any, proxy: Any = None, kind: str | None = None) -> Target:
    host = getattr(origin, "host", b"")
    port = getattr(origin, "port", None)
    through = None
    if proxy is not None and isinstance(getattr(proxy, "port", None), int):
        through = (bytes(proxy.host).decode("ascii", "replace"), int(proxy.port))
    return Target(
        host=bytes(host).decode("ascii", "replace") or None,
        port=port if isinstance(port, int) else None,
        proxy=through,
        proxy_kind=kind if through is not None else None,
    )


def _direct(connection: Any, *args: Any, **kwargs: Any) -> Target:
    """The target of ``HTTPConnection._connect``: its origin."""
    del args, kwargs
    return _target(connection._origin)  # noqa: SLF001 - where httpcore keeps it


def _tunnel(connection: Any, *args: Any, **kwargs: Any) -> Target:
    """The target of a CONNECT tunnel: its remote origin, through its proxy.

    A proxy spoken to in the clear is ``"http"``; one spoken to in TLS is of no kind a
    pinned server's probe knows.
    """
    del args, kwargs
    proxy = connection._proxy_origin  # noqa: SLF001 - where httpcore keeps it
    kind = "http" if getattr(proxy, "scheme", None) == b"http" else None
    return _target(connection._remote_origin, proxy, kind)  # noqa: SLF001


def _socks5(connection: Any, *args: Any, **kwargs: Any) -> Target:
    """The target of a SOCKS5 connection: its remote origin, through its proxy."""
    del args, kwargs
    return _target(connection._remote_origin, connection._proxy_origin, "socks5")  # noqa: SLF001


#: ``(module, class, method, target)``: what the hook wraps, in httpcore's sync and async
#: halves (``tests/loopback/test_target_contract.py`` checks that each still exists).
HOOKED: tuple[tuple[str, str, str, Callable[..., Target]], ...] = (
    ("httpcore._sync.connection", "HTTPConnection", "_connect", _direct),
    ("httpcore._async.connection", "AsyncHTTPConnection", "_connect", _direct),
    ("httpcore._sync.http_proxy", "TunnelHTTPConnection", "handle_request", _tunnel),
    ("httpcore._async.http_proxy", "AsyncTunnelHTTPConnection", "handle_async_request", _tunnel),
    ("httpcore._sync.socks_proxy", "Socks5Connection", "handle_request", _socks5),
    ("httpcore._async.socks_proxy", "AsyncSocks5Connection", "handle_async_request", _socks5),
)


def patch(patcher: Patcher, trigger: str, httpcore: types.ModuleType) -> None:
    """Wrap httpcore's connect points (``trigger``: the package, whose body imports them)."""
    del trigger, httpcore
    for module_name, class_name, method, target_of in HOOKED:
        # The SOCKS modules exist only where socksio is installed.
        cls = getattr(sys.modules.get(module_name), class_name, None)
        original = getattr(cls, method, None)
        if original is None or hasattr(original, "__sslcustomize_original__"):
            continue
        wrapped = stating(original, target_of)
        wrapped.__sslcustomize_original__ = original  # type: ignore[attr-defined]
        patcher.replace(cls, method, wrapped)
