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
from sslcustomize._connection._target import stated
from sslcustomize._decision._engine import EngineSpec, Settings
from sslcustomize._decision._plan import Plan
from sslcustomize._runtime._runtime import Runtime
from sslcustomize._verdict._verify import Verdict
from sslcustomize._x509._der import pin_or_none
from sslcustomize._x509._replay import der_chain

# The first handshake of a hooked process imports this module: not typing (see _notyping).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

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


def _probe_address(
    sock: object, host: str | None, port: int | None
) -> tuple[Any, float | None, int | None, str | None] | None:
    """Where a probe of the server goes, or ``None``.

    A connected socket's own peer, with its timeout (a bounded one if it has none). A socket
    not yet connected (wrapped before ``connect()``) and a memory BIO have no peer yet: the
    server's name and port, the family left to the resolver. A connected socket whose peer
    is not the server is a proxy's: the probe goes through the same proxy, asking it for a
    CONNECT tunnel to the server (a proxy that wants credentials, or a SOCKS proxy, refuses
    it: the probe fails). ``None`` where the port or the name is unknown, and for aiohttp's
    tunnels (a memory BIO, no proxy address): a direct probe would go around the proxy.
    Where the probe goes decides only whether the first connection works, not what it
    trusts: the caller's handshake verifies against the leaf learned.
    """
    if port is None or host is None:
        return None
    if not isinstance(sock, socket.socket) or (peer := _peer_of(sock)) is None:
        stated_target = stated()
        if stated_target is not None and stated_target.proxy is not None:
            return None  # a tunnel whose proxy the probe cannot reach (aiohttp's)
        timeout = sock.gettimeout() if isinstance(sock, socket.socket) else None
        return (host, port), timeout or _PROBE_TIMEOUT, None, None
    if len(peer) < 2:
        return None  # an AF_UNIX socket's peer: nothing a probe can reach
    timeout = sock.gettimeout()
    if peer[1] == port:
        # A non-blocking caller waits on its own; the probe cannot.
        return peer, _PROBE_TIMEOUT if timeout == 0.0 else timeout, int(sock.family), None
    target = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
    return peer, timeout or _PROBE_TIMEOUT, int(sock.family), target


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


def _probe_chain(
    engine: ssl.SSLContext, where: tuple[Any, float | None, int | None, str | None],
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
            _tunnel(probe, tunnel)
        raw = _wrap_socket(engine, probe, False, host)
        try:  # noqa: SIM105 - no contextlib on the first handshake (see _notyping)
            raw.do_handshake()
        except ssl.SSLError:  # TLS 1.2: a refusal after its certificate; the chain is read
            pass
        return der_chain(raw)


def probe_pinned(
    runtime: Runtime, settings: Settings, plan: Plan, arguments: tuple[Any, ...]
) -> tuple[Verdict, tuple[bytes, ...]] | None:
    """Judge the pinned server's chain in a handshake of its own, without the client certificate.

    A pinned exception's first connection cannot verify natively (a pin names a key, and
    OpenSSL trusts certificates), so its client certificate would be withheld, and a server
    that requires one would refuse it. Instead a separate connection to the same server
    makes a handshake without the client certificate and has its chain judged. An accepted
    leaf whose key matches a pin is learned: the caller's connection then verifies natively
    against exactly that certificate and sends the client certificate only to the holder of
    the pinned key. Through an HTTP proxy the probe asks it for a tunnel of its own; for
    aiohttp's tunnels none is made (see :func:`_probe_address`). When the probe itself
    fails, the certificate stays withheld (enforce) or goes only where Python would send it
    (report mode).

    Returns:
        The verdict and the chain, or ``None`` when nothing could be judged.
    """
    sock = arguments[0] if len(arguments) == 1 else None
    where = _probe_address(sock, plan.host, plan.port)
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
