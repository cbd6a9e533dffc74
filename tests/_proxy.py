"""A loopback proxy for tests: HTTP CONNECT and SOCKS5, tunnelling or intercepting TLS.

A tunnelling proxy relays bytes to the server asked for (only on loopback); an intercepting
one, as a corporate TLS-inspection proxy does, answers the TLS handshake itself with a
certificate for the requested host issued by its own CA (sent with the chain). No package on
the test machine provides a CONNECT proxy that intercepts, so this is written here; it speaks
just enough of each protocol for clients that connect and do a handshake.
"""

from __future__ import annotations

import contextlib
import ipaddress
import select
import socket
import socketserver
import ssl
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path

import trustme

__all__ = ["LoopbackProxy", "serve_proxy"]


class LoopbackProxy(socketserver.ThreadingTCPServer):
    """The proxy: ``url`` and ``socks_url`` to reach it, ``requests`` it was asked for."""

    daemon_threads = True
    allow_reuse_address = True

    def __init__(
        self, *, intercept: trustme.CA | None = None, refuse: bool = False, headers: int = 0
    ) -> None:
        """Listen on 127.0.0.1; with ``intercept``, present certificates from that CA.

        ``headers``: how many header lines its 200 answer to CONNECT carries.
        """
        super().__init__(("127.0.0.1", 0), _Handler)
        self.intercept = intercept
        self.refuse = refuse
        self.headers = headers
        self.requests: list[str] = []
        self._contexts: dict[str, ssl.SSLContext] = {}
        self._lock = threading.Lock()

    @property
    def port(self) -> int:
        """The port it listens on."""
        port: int = self.server_address[1]
        return port

    @property
    def url(self) -> str:
        """``http://127.0.0.1:PORT``: the CONNECT proxy."""
        return f"http://127.0.0.1:{self.port}"

    @property
    def socks_url(self) -> str:
        """``socks5h://127.0.0.1:PORT``: the same port speaks SOCKS5."""
        return f"socks5h://127.0.0.1:{self.port}"

    def forged_context(self, host: str) -> ssl.SSLContext:
        """A server context presenting a certificate for ``host`` from the intercepting CA."""
        assert self.intercept is not None
        with self._lock:
            context = self._contexts.get(host)
            if context is None:
                leaf = self.intercept.issue_cert(host)
                context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
                with tempfile.TemporaryDirectory() as directory:
                    chain = Path(directory) / "chain.pem"
                    chain.write_bytes(
                        leaf.private_key_and_cert_chain_pem.bytes()
                        + self.intercept.cert_pem.bytes()
                    )
                    context.load_cert_chain(chain)
                self._contexts[host] = context
        return context


def _read_exactly(sock: socket.socket, count: int) -> bytes:
    data = b""
    while len(data) < count:
        chunk = sock.recv(count - len(data))
        if not chunk:
            raise ConnectionError("closed")
        data += chunk
    return data


class _Handler(socketserver.BaseRequestHandler):
    server: LoopbackProxy

    def handle(self) -> None:
        sock: socket.socket = self.request
        sock.settimeout(20)
        try:
            first = sock.recv(1, socket.MSG_PEEK)
            target = self._socks(sock) if first == b"\x05" else self._connect(sock)
            if target is None:
                return
            if self.server.intercept is not None:
                self._intercept(sock, target[0])
            else:
                self._relay(sock, target)
        except (OSError, ConnectionError, ValueError):
            return

    def _connect(self, sock: socket.socket) -> tuple[str, int] | None:
        data = b""
        while b"\r\n\r\n" not in data:
            chunk = sock.recv(4096)
            if not chunk:
                return None
            data += chunk
        method, authority, _ = data.split(b"\r\n", 1)[0].decode("latin-1").split(" ", 2)
        if method != "CONNECT":
            sock.sendall(b"HTTP/1.1 405 Method Not Allowed\r\nContent-Length: 0\r\n\r\n")
            return None
        host, _, port = authority.rpartition(":")
        self.server.requests.append(f"CONNECT {authority}")
        if self.server.refuse:
            sock.sendall(b"HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\n\r\n")
            return None
        extra = b"".join(b"X-Proxy-%d: value\r\n" % n for n in range(self.server.headers))
        sock.sendall(b"HTTP/1.1 200 Connection established\r\n" + extra + b"\r\n")
        return host.strip("[]"), int(port)

    def _socks(self, sock: socket.socket) -> tuple[str, int] | None:
        _, count = _read_exactly(sock, 2)
        _read_exactly(sock, count)
        sock.sendall(b"\x05\x00")
        _, command, _, kind = _read_exactly(sock, 4)
        if kind == 1:
            host = str(ipaddress.IPv4Address(_read_exactly(sock, 4)))
        elif kind == 4:
            host = str(ipaddress.IPv6Address(_read_exactly(sock, 16)))
        else:
            host = _read_exactly(sock, _read_exactly(sock, 1)[0]).decode("idna")
        port = int.from_bytes(_read_exactly(sock, 2), "big")
        self.server.requests.append(f"SOCKS {host}:{port}")
        status = 2 if self.server.refuse or command != 1 else 0
        upstream = None
        if status == 0 and self.server.intercept is None:
            # As a SOCKS server does (RFC 1928, 6): connect first, then say whether it could.
            upstream = self._open_upstream((host, port))
            status = 0 if upstream is not None else 5  # connection refused
        sock.sendall(bytes([5, status, 0, 1, 0, 0, 0, 0, 0, 0]))
        if upstream is not None:
            with upstream:
                self._pipe(sock, upstream)
            return None
        return None if status else (host, port)

    def _intercept(self, sock: socket.socket, host: str) -> None:
        context = self.server.forged_context(host)
        with context.wrap_socket(sock, server_side=True) as tls, contextlib.suppress(OSError):
            tls.recv(1)  # until the client goes away

    def _relay(self, sock: socket.socket, target: tuple[str, int]) -> None:
        upstream = self._open_upstream(target)
        if upstream is None:
            return
        with upstream:
            self._pipe(sock, upstream)

    @staticmethod
    def _open_upstream(target: tuple[str, int]) -> socket.socket | None:
        """Connect to ``target`` if it is on loopback only; ``None`` if not or if refused."""
        addresses = socket.getaddrinfo(target[0], target[1], type=socket.SOCK_STREAM)
        if not all(
            ipaddress.ip_address(str(info[4][0]).partition("%")[0]).is_loopback
            for info in addresses
        ):
            return None  # never anywhere but loopback
        # Every loopback address of the name in turn ("localhost" may be ::1 first).
        try:
            return socket.create_connection(target, timeout=20)
        except OSError:
            return None

    @staticmethod
    def _pipe(sock: socket.socket, upstream: socket.socket) -> None:
        pair = {sock: upstream, upstream: sock}
        while True:
            readable, _, _ = select.select(list(pair), [], [], 20)
            if not readable:
                return
            for side in readable:
                data = side.recv(65536)
                if not data:
                    return
                pair[side].sendall(data)


@contextlib.contextmanager
def serve_proxy(
    *, intercept: trustme.CA | None = None, refuse: bool = False, headers: int = 0
) -> Iterator[LoopbackProxy]:
    """Run a :class:`LoopbackProxy` in a thread; stop it afterwards."""
    proxy = LoopbackProxy(intercept=intercept, refuse=refuse, headers=headers)
    thread = threading.Thread(target=proxy.serve_forever, kwargs={"poll_interval": 0.05})
    thread.start()
    try:
        yield proxy
    finally:
        proxy.shutdown()
        proxy.server_close()
        thread.join()
