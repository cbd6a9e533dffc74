"""Where a client connection goes: the target its library's hook states, else a fallback.

A port-scoped exception (``host = "nas.example:8443"``) must match the port of the server the
TLS connection is with. The socket's peer is not always that server: through a CONNECT tunnel
or a SOCKS proxy it is the proxy, and a memory BIO has no socket at all. So each hook of
``sslcustomize._inject`` states the target where its library makes the connection (urllib3's
connection keeps its tunnel's host and port; httpcore's its remote origin):

* :func:`state` and :func:`unstate` set a :class:`Target` around the library's connect call,
  in a context variable: each thread and each asyncio task sees only its own, and asyncio's
  loop callbacks get the one of the code that scheduled them. The innermost statement wins,
  so a hook around a proxy's own TLS connection (urllib3's HTTPS proxy, httpcore's) overrides
  the tunnel's target around it.
* :func:`proxied` remembers the target of a socket that a SOCKS library (python-socks)
  returns connected to its proxy, for the TLS connection the caller starts on it later.

:func:`socket_target` and :func:`transport_target` are what a connection asks, once. A stated
target counts only for a TLS connection named for its host (or for none): one that leaked into
an unrelated connection (a task created inside the statement) cannot lend it its port.

Where no hook can be told (code that calls ``ssl`` itself, an event loop other than asyncio's),
:func:`_search_frames` is the documented fallback: it reads the callers' frames, as every
version of sslcustomize before the hooks did. docs/architecture.md lists which libraries state
their targets and which fall back.
"""

from __future__ import annotations

import contextvars
import socket
import sys

from sslcustomize._support._frozen import dataclass
from sslcustomize._support._locks import fork_safe_lock

# The first handshake of a hooked process imports this module: not typing (see _notyping).
TYPE_CHECKING = False
if TYPE_CHECKING:
    import types

__all__ = [
    "Target",
    "address_port",
    "port_of",
    "proxied",
    "proxied_target",
    "socket_target",
    "starttls_protocol",
    "state",
    "stated",
    "transport_target",
    "unstate",
]


@dataclass(frozen=True, slots=True, kw_only=True)
class Target:
    """The server a client connection is for.

    Attributes:
        host: The server's name (or address) as the client asked for it.
        port: The server's port; ``None`` when unknown (port-scoped exceptions do not apply).
        proxy: The ``(host, port)`` of the proxy the connection goes through, if any.
        proxy_kind: What the proxy speaks, where the hook knows and a probe could ask it for
            a tunnel of its own: ``"http"`` (CONNECT, in the clear) or ``"socks5"``;
            ``None`` when unknown (a proxy spoken to in TLS, SOCKS4, no proxy).
    """

    host: str | None
    port: int | None
    proxy: tuple[str, int] | None = None
    proxy_kind: str | None = None


_STATED: contextvars.ContextVar[Target | None] = contextvars.ContextVar(
    "sslcustomize_target", default=None
)


def state(target: Target) -> contextvars.Token[Target | None]:
    """State ``target`` for the connections of this thread or task, until :func:`unstate`."""
    return _STATED.set(target)


def unstate(token: contextvars.Token[Target | None]) -> None:
    """End the statement :func:`state` returned ``token`` for."""
    _STATED.reset(token)


def stated() -> Target | None:
    """Return the target stated for the current thread or task, if one is."""
    return _STATED.get()


# --- Sockets connected through a SOCKS proxy ----------------------------------------------------

# Keyed by what identifies a connected socket at the moment: its descriptor, its local address
# and its peer (the proxy). ``SSLSocket`` takes over the descriptor of the socket it wraps, so
# the key of the socket python-socks returned is the key of the SSLSocket made from it.
_proxied: dict[tuple[int, object, object], Target] = {}
_proxied_lock = fork_safe_lock()
# Sockets returned and never wrapped: the oldest are forgotten beyond this many.
_PROXIED_LIMIT = 256


def _socket_key(sock: object) -> tuple[int, object, object] | None:
    try:
        return (sock.fileno(), sock.getsockname(), sock.getpeername())  # type: ignore[attr-defined]
    except (AttributeError, OSError):
        return None


def proxied(sock: object, target: Target) -> None:
    """Remember that ``sock``, connected to a proxy, goes to ``target``."""
    key = _socket_key(sock)
    if key is None:
        return
    with _proxied_lock:
        _proxied.pop(key, None)  # the newest: last to be forgotten
        _proxied[key] = target
        while len(_proxied) > _PROXIED_LIMIT:
            del _proxied[next(iter(_proxied))]


def proxied_target(sock: object) -> Target | None:
    """Return (and forget) the target :func:`proxied` remembered for ``sock``, if any.

    Forgotten once asked: the descriptor and local port of a closed socket may come back.
    """
    if not _proxied:  # nothing was proxied: no system call
        return None
    key = _socket_key(sock)
    if key is None:
        return None
    with _proxied_lock:
        return _proxied.pop(key, None)


# --- What a connection asks ---------------------------------------------------------------------


def _same_name(a: str, b: str) -> bool:
    if a == b:
        return True  # the usual case, at every connection: nothing to normalise

    def norm(name: str) -> str:
        return name.strip("[]").rstrip(".").lower()

    return norm(a) == norm(b)


def _name(server_hostname: object) -> str | None:
    if isinstance(server_hostname, bytes):
        return server_hostname.decode(errors="replace")
    return server_hostname if isinstance(server_hostname, str) else None


def _named(target: Target, server_hostname: object) -> Target:
    """``target`` if the connection is named for it, else the connection's name, port unknown."""
    name = _name(server_hostname)
    if name is None or target.host is None or _same_name(target.host, name):
        return target
    return Target(host=name, port=None)


def socket_target(sock: object, server_hostname: object) -> Target:
    """Return the target of a TLS connection over ``sock`` named ``server_hostname``.

    In order: the target a hook stated, the one python-socks' hook remembered for the socket,
    the fallback (:func:`_search_frames`: a socket wrapped before it is connected, PySocks),
    and last the socket's peer.
    """
    target = _STATED.get() or proxied_target(sock)
    if target is not None:
        return _named(target, server_hostname)
    port = _search_frames(sock)
    found = port_of(sock) if port is _UNKNOWN else port
    return Target(host=_name(server_hostname), port=found)  # type: ignore[arg-type]


def transport_target(server_hostname: object) -> Target:
    """Return the target of a memory-BIO connection named ``server_hostname``.

    The target a hook stated (asyncio's ``create_connection``, aiohttp's tunnel, python-socks),
    else the fallback (:func:`_search_frames`), else unknown: port-scoped exceptions then do
    not apply (fail strict).
    """
    target = _STATED.get()
    if target is not None:
        return _named(target, server_hostname)
    port = _search_frames(None)
    found = None if port is _UNKNOWN else port
    return Target(host=_name(server_hostname), port=found)  # type: ignore[arg-type]


def port_of(sock: object) -> int | None:
    """Return the peer port of a connected socket, or ``None``."""
    try:
        return address_port(sock.getpeername())  # type: ignore[attr-defined]
    except (AttributeError, OSError):
        return None


def address_port(peer: object) -> int | None:
    """Return the port of a socket address (``(host, port, ...)``), or ``None``."""
    if isinstance(peer, tuple) and len(peer) >= 2 and isinstance(peer[1], int):
        return peer[1]
    return None


# --- The fallback: the callers' frames ------------------------------------------------------------

_UNKNOWN = object()  # the frames say nothing: the caller decides


def _callers(depth: int) -> list[types.FrameType]:
    """Return up to 16 callers' frames, from ``depth`` frames above the caller of this one."""
    frames: list[types.FrameType] = []
    frame: types.FrameType | None = sys._getframe(depth + 1)  # noqa: SLF001 - the fallback
    while frame is not None and len(frames) < 16:
        frames.append(frame)
        frame = frame.f_back
    return frames


def _search_frames(sock: object) -> object:
    """Find the server's port in the code a few frames up: the fallback where no hook states it.

    Only for what no hook can be told: code that calls ``ssl`` itself.

    * A socket (``sock``) wrapped before ``connect()`` is wrapped from inside ssl's own
      ``SSLSocket._real_connect``, which holds the address it is about to connect to.
    * A socket class that answers ``getpeername()`` itself (PySocks' ``socksocket`` answers
      with the destination it asked the proxy for) is the ``sock`` of ssl's
      ``SSLSocket._create``: ``SSLSocket`` took over its descriptor, whose peer is the proxy.
    * A memory BIO (``sock`` is ``None``) made by an event loop that is not hooked: asyncio's
      connection code has a ``sock`` or a ``transport``. ``loop.start_tls()`` upgrades a
      connection made before, whose peer may be a proxy as well as the server: there only
      websockets, which says which server it asked for (``ws_uri``), is believed.

    Returns:
        The port, ``None`` when it is known to be unknown, or ``_UNKNOWN`` when the frames
        say nothing.
    """
    # Above this function, socket_target or transport_target, then the context's _wrap_socket
    # (called by ssl's SSLSocket._create or _real_connect) or _wrap_bio and SSLContext.wrap_bio.
    if sock is not None:
        return _socket_port(_callers(3))
    return _transport_port(_callers(4))


def _socket_port(frames: list[types.FrameType]) -> object:
    for frame in frames:
        if frame.f_globals.get("__name__") != "ssl":
            continue
        names = frame.f_locals
        if frame.f_code.co_name == "_real_connect":
            return address_port(names.get("addr"))
        original = names.get("sock")
        if (
            frame.f_code.co_name == "_create"
            and isinstance(original, socket.socket)
            and type(original).getpeername is not socket.socket.getpeername
        ):
            return port_of(original)
    return _UNKNOWN


def _transport_port(frames: list[types.FrameType]) -> object:
    upgrade = False
    for frame in frames:
        names = frame.f_locals
        owner = names.get("self")
        if frame.f_code.co_name == "start_tls" and (
            frame.f_globals.get("__name__") == "asyncio.base_events"
        ):
            upgrade = True
        elif upgrade:
            port = getattr(getattr(owner, "ws_uri", None), "port", None)
            if isinstance(port, int):
                return port
        elif getattr(owner, "_call_connection_made", True) is False:
            return None  # 3.10: start_tls's protocol, from a loop callback (no frames above)
        elif hasattr(names.get("sock"), "getpeername"):
            return port_of(names["sock"])
        else:
            for transport in (names.get("transport"), getattr(owner, "_transport", None)):
                get_extra_info = getattr(transport, "get_extra_info", None)
                if get_extra_info is not None:
                    return address_port(get_extra_info("peername"))
    return _UNKNOWN


_STARTTLS = {
    ("smtplib", "starttls"): "smtp",
    ("imaplib", "starttls"): "imap",
    ("poplib", "stls"): "pop3",
    ("ftplib", "auth"): "ftp",
}


def starttls_protocol() -> str | None:
    """Name the STARTTLS protocol whose upgrade is on the call stack, if one is.

    The advice of a rejection (``sslcustomize trust --starttls smtp host:port``) must work
    when pasted: a STARTTLS port does not speak TLS first. Read from the frames: the
    standard library's STARTTLS clients have no hook that could state it.
    """
    frame: types.FrameType | None = sys._getframe(1)  # noqa: SLF001 - only on rejection
    while frame is not None:
        key = (str(frame.f_globals.get("__name__", "")), frame.f_code.co_name)
        if key in _STARTTLS:
            return _STARTTLS[key]
        frame = frame.f_back
    return None
