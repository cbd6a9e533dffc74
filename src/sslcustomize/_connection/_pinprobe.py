"""The first mutual-TLS connection to a pinned server: learn its key before the certificate goes.

A pin names a key, and OpenSSL trusts certificates, so a pinned server's first connection
cannot verify natively: a separate handshake without the client certificate reads the
server's chain, which is judged; a leaf whose key matches a pin is learned, and the
caller's own handshake then trusts exactly it (enforce) or it besides what Python trusts
(report mode). See docs/security.md for where the probe goes and where it does not.
"""

from __future__ import annotations

import socket
import ssl

from sslcustomize._connection._rejection import unjudgeable
from sslcustomize._decision._engine import EngineSpec, Settings
from sslcustomize._decision._plan import Plan
from sslcustomize._runtime._runtime import Runtime
from sslcustomize._verdict._verify import Verdict
from sslcustomize._x509._der import pin_or_none
from sslcustomize._x509._replay import der_chain

# The first handshake of a hooked process imports this module: not typing (see _notyping).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    from sslcustomize._connection._target import Target

    #: Where a probe goes: the address, the timeout, the family (``None``: resolve the
    #: address), and the ``(kind, host, port)`` of the tunnel to ask a proxy there for.
    Where = tuple[Any, float | None, int | None, tuple[str, str, int] | None]

__all__ = ["needs_probe", "probe_pinned"]

_wrap_socket = ssl.SSLContext._wrap_socket  # type: ignore[attr-defined]  # noqa: SLF001

#: How long a probe may wait where the caller's socket does not say (non-blocking, not yet
#: connected, a memory BIO): a probe is made once per pinned key and process.
_PROBE_TIMEOUT = 10.0


def needs_probe(plan: Plan, settings: Settings) -> bool:
    """Tell whether a pinned server's key must be learned before the client certificate goes.

    In enforce the certificate is withheld until then; in report mode it goes only where
    Python itself would send it (the floor), and the pinned key's holder is added once seen.
    """
    engine, decision = plan.engine, plan.decision
    return (
        engine is not None
        and not engine.leaves
        and settings.has_client_certificate
        and bool(decision.pins)
        and decision.exception is not None
        and (engine.withhold_client_certificate or plan.floor is not None)
    )


#: The longest answer to CONNECT a probe reads.
_MAX_PROXY_ANSWER = 16384

#: The kinds of proxy a probe can ask for a tunnel of its own (see ``Target.proxy_kind``).
_PROXY_KINDS = ("http", "socks5")


def _probe_address(
    sock: object, host: str | None, port: int | None, target: Target | None = None
) -> Where | None:
    """Where a probe of the server goes, or ``None``.

    Returns ``(address, timeout, family, tunnel)``: ``family`` ``None`` to resolve
    ``address`` as a name; ``tunnel`` the ``(kind, host, port)`` of the tunnel to ask the
    proxy at ``address`` for, if any.

    Where the connection's hook stated a proxy of a kind the probe speaks (``target``: an
    HTTP proxy spoken to in the clear, or SOCKS5), the probe goes to that proxy and asks it
    for a tunnel of its own: at the socket's peer if that is the proxy, else at the proxy's
    address (a memory BIO: aiohttp's tunnels, asyncio through python-socks). A proxy of
    another kind (in TLS, SOCKS4, unknown): ``None``, a direct probe would go around it.
    Without a stated proxy: a connected socket's own peer, with its timeout (a bounded one if
    it has none); a socket not yet connected (wrapped before ``connect()``) and a memory BIO
    have no peer yet: the server's name and port, the family left to the resolver; a
    connected socket whose peer is not the server is a proxy's (code that opened a tunnel
    itself): the probe asks it for a CONNECT tunnel. ``None`` where the port or the name is
    unknown. A proxy that wants credentials refuses the probe, which never sends any.
    Where the probe goes decides only whether the first connection works, not what it
    trusts: the caller's handshake verifies against the leaf learned.
    """
    if port is None or host is None:
        return None
    own = sock if isinstance(sock, socket.socket) else None
    peer = None if own is None else _peer_of(own)
    timeout = None if own is None else own.gettimeout()
    bounded = timeout or _PROBE_TIMEOUT  # non-blocking or no peer yet: the probe cannot wait
    if target is not None and target.proxy is not None:
        return _through_proxy(target, own, peer, bounded, host=host, port=port)
    if own is None or peer is None:
        return (host, port), bounded, None, None
    if len(peer) < 2:
        return None  # an AF_UNIX socket's peer: nothing a probe can reach
    if peer[1] == port:
        # A blocking caller's own wait; a non-blocking caller waits on its own, the probe cannot.
        return peer, _PROBE_TIMEOUT if timeout == 0.0 else timeout, int(own.family), None
    return peer, bounded, int(own.family), ("http", host, port)


def _through_proxy(
    target: Target, own: socket.socket | None, peer: tuple[Any, ...] | None,
    timeout: float, *, host: str, port: int,
) -> Where | None:  # fmt: skip
    """Where a probe goes through the proxy ``target`` states: at the socket's peer if it is it."""
    if target.proxy is None or target.proxy_kind not in _PROXY_KINDS:
        return None  # a proxy the probe cannot speak to: a direct probe would go around it
    tunnel = (str(target.proxy_kind), host, port)
    if own is not None and peer and len(peer) >= 2 and peer[1] == target.proxy[1]:
        return peer, timeout, int(own.family), tunnel
    return target.proxy, timeout, None, tunnel


def _peer_of(sock: socket.socket) -> tuple[Any, ...] | None:
    """Return a connected socket's peer (``()`` if not an address), ``None`` if not connected."""
    try:
        peer = sock.getpeername()
    except OSError:  # not connected yet: ssl's connect() wraps first, then connects
        return None
    return peer if isinstance(peer, tuple) else ()


def _tunnel(probe: socket.socket, target: str) -> None:
    """Ask the HTTP proxy at the other end of ``probe`` for a tunnel to ``target``.

    Raises:
        OSError: The proxy refused, or its answer is not HTTP or too long.
    """
    probe.sendall(f"CONNECT {target} HTTP/1.1\r\nHost: {target}\r\n\r\n".encode("ascii"))
    answer = b""
    while b"\r\n\r\n" not in answer:
        chunk = probe.recv(1024)
        if not chunk or len(answer) > _MAX_PROXY_ANSWER:
            raise OSError("the proxy gave no tunnel to the probe")
        answer += chunk
    status = answer.split(b"\r\n", 1)[0].split()
    if len(status) < 2 or not status[0].startswith(b"HTTP/") or status[1] != b"200":
        raise OSError("the proxy refused a tunnel to the probe")
    if not answer.endswith(b"\r\n\r\n"):
        raise OSError("the proxy sent more than its answer")  # in TLS the client speaks first


def _socks5(probe: socket.socket, host: str, port: int) -> None:
    """Ask the SOCKS5 proxy at the other end of ``probe`` for a tunnel to ``host:port``.

    RFC 1928 with one method offered, "no authentication": a probe never sends credentials.
    The server goes by its name (an address literal as an address), as the caller asked.

    Raises:
        OSError: The proxy wants another method, refused, or answered other than SOCKS5.
        ValueError: The name cannot be sent (not ASCII, longer than 255 bytes).
    """
    probe.sendall(b"\x05\x01\x00")
    method = _socks5_answer(probe, lambda _: 2)
    if method != b"\x05\x00":
        raise OSError("the proxy gave no tunnel to the probe without credentials")
    probe.sendall(b"\x05\x01\x00" + _socks5_address(host) + port.to_bytes(2, "big"))
    _socks5_answer(probe, _socks5_reply_length)  # a success, or OSError


def _socks5_address(host: str) -> bytes:
    """Encode ``host`` as a SOCKS5 address: ``ATYP`` and the address."""
    name = host.strip("[]")
    if ":" in name:  # no host name has one: an IPv6 address (OSError if it is not one)
        return b"\x04" + socket.inet_pton(socket.AF_INET6, name)
    try:
        return b"\x01" + socket.inet_pton(socket.AF_INET, name)
    except OSError:
        pass  # a name
    encoded = name.encode("ascii")
    if not 0 < len(encoded) < 256:
        raise ValueError("a name SOCKS5 cannot carry")
    return b"\x03" + bytes([len(encoded)]) + encoded


def _socks5_reply_length(answer: bytes) -> int | None:
    """Return the length of the SOCKS5 reply ``answer`` begins, ``None`` if not known yet.

    Raises:
        OSError: Not a SOCKS5 reply, or a refusal (known from its second byte).
    """
    if len(answer) >= 2 and (answer[0] != 5 or answer[1] != 0):
        raise OSError("the proxy refused a tunnel to the probe")
    if len(answer) < 5:
        return None
    lengths = {1: 10, 4: 22, 3: 7 + answer[4]}  # VER REP RSV ATYP, BND.ADDR, BND.PORT
    if answer[3] not in lengths:
        raise OSError("the proxy's answer is not SOCKS5")
    return lengths[answer[3]]


def _socks5_answer(probe: socket.socket, length: Callable[[bytes], int | None]) -> bytes:
    """Read one answer of a SOCKS5 proxy, ``length(answer)`` bytes long (bounded: at most 262).

    Raises:
        OSError: The proxy closed before it answered, or sent more than its answer.
    """
    answer = b""
    while True:
        needed = length(answer)
        if needed is not None and len(answer) >= needed:
            break
        chunk = probe.recv(512)
        if not chunk:
            raise OSError("the proxy gave no tunnel to the probe")
        answer += chunk
    if len(answer) > needed:
        raise OSError("the proxy sent more than its answer")  # in TLS the client speaks first
    return answer


def _probe_chain(
    engine: ssl.SSLContext, where: Where,
    host: str | None,
) -> tuple[bytes, ...]:  # fmt: skip
    """Return the chain a server presents to a handshake of ``engine`` at ``where``."""
    address, timeout, family, tunnel = where
    if family is None:
        probe = socket.create_connection(address, timeout)
    else:
        probe = socket.socket(family, socket.SOCK_STREAM)
        probe.settimeout(timeout)
    with probe:
        if family is not None:
            probe.connect(address)
        if tunnel is not None:
            kind, server, port = tunnel
            if kind == "socks5":
                _socks5(probe, server, port)
            else:
                _tunnel(probe, f"[{server}]:{port}" if ":" in server else f"{server}:{port}")
        raw = _wrap_socket(engine, probe, False, host)
        try:  # noqa: SIM105 - no contextlib on the first handshake (see _notyping)
            raw.do_handshake()
        except ssl.SSLError:  # TLS 1.2: a refusal after its certificate; the chain is read
            pass
        return der_chain(raw)


def probe_pinned(
    runtime: Runtime, settings: Settings, plan: Plan, arguments: tuple[Any, ...],
    target: Target | None = None,
) -> tuple[Verdict, tuple[bytes, ...]] | None:  # fmt: skip
    """Judge the pinned server's chain in a handshake of its own, without the client certificate.

    A pinned exception's first connection cannot verify natively (a pin names a key, and
    OpenSSL trusts certificates), so its client certificate would be withheld, and a server
    that requires one would refuse it. Instead a separate connection to the same server
    makes a handshake without the client certificate and has its chain judged. An accepted
    leaf whose key matches a pin is learned: the caller's connection then verifies natively
    against exactly that certificate and sends the client certificate only to the holder of
    the pinned key. Through an HTTP or SOCKS5 proxy (``target``, as the connection's hook
    stated it) the probe asks the proxy for a tunnel of its own (see :func:`_probe_address`).
    When the probe itself fails, the certificate stays withheld (enforce) or goes only where
    Python would send it (report mode).

    Returns:
        The verdict and the chain, or ``None`` when nothing could be judged.
    """
    sock = arguments[0] if len(arguments) == 1 else None
    where = _probe_address(sock, plan.host, plan.port, target)
    exception = plan.decision.exception
    if where is None or exception is None:
        return None
    try:
        # The deferred engine (no client certificate), without anchors: it verifies nothing.
        spec = EngineSpec(
            verify=False, withhold_client_certificate=True, anchors=False,
            minimum_version=plan.verify.minimum_version,
        )  # fmt: skip
        engine = runtime.engine(settings, spec)
        chain = _probe_chain(engine, where, plan.host)
    except (OSError, ValueError):
        return None
    if not chain:
        return None
    try:
        verdict = runtime.verdict(settings, plan.verify, plan.decision, chain, plan.host)
    except Exception as error:  # noqa: BLE001 - whatever fails, the verdict is a rejection
        verdict = unjudgeable(error)
    if verdict.accepted and pin_or_none(chain[0]) in plan.decision.pins:
        runtime.learn_leaf(exception, chain[0])
    elif verdict.accepted:
        return None  # a pinned CA's chain: judged again after the caller's own handshake
    return verdict, chain
