"""Real TLS servers on loopback, one per standard-library client protocol.

Each ``serve_*`` function is a context manager: it binds port 0 on the requested loopback host,
serves from background daemon threads, yields a :class:`ServerAddress` ``(host, port)`` and,
on exit, stops, closes every socket and joins every thread it started.

Clients that abort the handshake (because they rejected the certificate, which is the point of
most tests) are expected: the servers drop such connections silently. Any *other* exception in
a server thread is a bug in the stub, and is raised again when the context manager exits.

``host`` is what the client should connect to and verify: ``"localhost"``, ``"127.0.0.1"`` or
``"::1"`` (``localhost`` binds 127.0.0.1).
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import socketserver
import ssl
import sys
import tempfile
import threading
import warnings
from http import HTTPStatus
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple
from xmlrpc.server import SimpleXMLRPCDispatcher, SimpleXMLRPCRequestHandler

from cryptography import x509
from cryptography.x509.oid import NameOID

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator

    from _pki import CertCase

__all__ = [
    "FTP_FILE_CONTENT",
    "FTP_FILE_NAME",
    "IO_TIMEOUT",
    "ServerAddress",
    "serve_each",
    "serve_ftps",
    "serve_https",
    "serve_imap",
    "serve_nntp",
    "serve_plain_tcp",
    "serve_pop3",
    "serve_smtp",
    "serve_tls",
    "server_context",
]

#: Seconds a server waits on a silent client before dropping it (so that stopping never hangs).
IO_TIMEOUT = 10.0

#: The file the FTPS server's anonymous home holds.
FTP_FILE_NAME = "hello.txt"
FTP_FILE_CONTENT = b"hello from the sslcustomize test FTPS server\n"

_LINE_LIMIT = 8192


class ServerAddress(NamedTuple):
    """Where a test server listens: unpacks as ``host, port``."""

    host: str
    port: int

    @property
    def netloc(self) -> str:
        """``host:port``, with brackets around an IPv6 address (for URLs)."""
        return f"[{self.host}]:{self.port}" if ":" in self.host else f"{self.host}:{self.port}"

    def url(self, scheme: str = "https", path: str = "/") -> str:
        """Return ``scheme://netloc/path`` for this server."""
        return f"{scheme}://{self.netloc}{path}"


def _bind_host(host: str) -> tuple[str, socket.AddressFamily]:
    if host == "localhost":
        return "127.0.0.1", socket.AF_INET
    return host, socket.AF_INET6 if ":" in host else socket.AF_INET


def server_context(
    case: CertCase,
    *,
    client_ca_pem: bytes | None = None,
    maximum_version: ssl.TLSVersion | None = None,
) -> ssl.SSLContext:
    """Return a server-side ``SSLContext`` that presents *case*'s chain.

    Args:
        case: the certificate case to serve.
        client_ca_pem: if given, require a client certificate issued by this CA (mutual TLS).
        maximum_version: cap the TLS version (e.g. ``ssl.TLSVersion.TLSv1_2``).
    """
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    # OpenSSL's default security level 2 refuses to *load* the weak_key (RSA-1024) and
    # weak_signature (SHA-1) certificates; the server must still present them so that tests can
    # watch clients refuse them. Level 0 only loosens this server, never the clients under test.
    ctx.set_ciphers("DEFAULT:@SECLEVEL=0")
    if maximum_version is not None:
        ctx.maximum_version = maximum_version
    with tempfile.TemporaryDirectory(prefix="sslcustomize-server-") as tmp:
        files = case.write(Path(tmp))
        ctx.load_cert_chain(files.chain, files.key)
    if client_ca_pem is not None:
        ctx.verify_mode = ssl.CERT_REQUIRED
        ctx.load_verify_locations(cadata=client_ca_pem.decode("ascii"))
    return ctx


# -- a threaded TCP server that tolerates aborted handshakes ------------------------------------


class _LoopbackServer(socketserver.TCPServer):
    """A TCP server on loopback, one daemon thread per connection, all joined on stop.

    With ``implicit_tls`` every accepted connection is TLS from the first byte; otherwise the
    handler may upgrade it (STARTTLS) with :meth:`_LineHandler.start_tls`.
    """

    def __init__(
        self,
        host: str,
        handler: type[socketserver.BaseRequestHandler],
        *,
        tls: ssl.SSLContext | None,
        implicit_tls: bool,
        options: dict[str, Any] | None = None,
    ) -> None:
        bind, self.address_family = _bind_host(host)
        self.tls = tls
        self.implicit_tls = implicit_tls
        #: Free-form settings for the handler (e.g. whether STARTTLS is offered).
        self.options: dict[str, Any] = options or {}
        self.errors: list[BaseException] = []
        self._live: set[socket.socket] = set()
        self._workers: list[threading.Thread] = []
        self._lock = threading.Lock()
        super().__init__((bind, 0), handler)

    def get_request(self) -> tuple[socket.socket, Any]:
        sock, addr = super().get_request()
        sock.settimeout(IO_TIMEOUT)
        if self.implicit_tls:
            assert self.tls is not None
            # The handshake runs in the connection's thread (finish_request), so that a client
            # that stalls or aborts it never blocks the accept loop.
            sock = self.tls.wrap_socket(sock, server_side=True, do_handshake_on_connect=False)
        return sock, addr

    def process_request(self, request: Any, client_address: Any) -> None:
        # Like socketserver.ThreadingMixIn, except that daemon threads are joined too (the
        # mixin only tracks non-daemon ones), and the socket is tracked before its thread runs
        # so that stop() can always unblock it.
        self.track(request)
        worker = threading.Thread(
            target=self.process_request_thread,
            args=(request, client_address),
            name=f"{type(self).__name__}-connection",
            daemon=True,
        )
        with self._lock:
            self._workers = [t for t in self._workers if t.is_alive()]
            self._workers.append(worker)
        worker.start()

    def process_request_thread(self, request: Any, client_address: Any) -> None:
        try:
            self.finish_request(request, client_address)
        except Exception:  # noqa: BLE001 - recorded by handle_error, raised again at stop
            self.handle_error(request, client_address)
        finally:
            self.untrack(request)
            self.shutdown_request(request)

    def track(self, sock: socket.socket) -> None:
        """Remember *sock* so that :meth:`stop` can unblock a thread reading from it."""
        with self._lock:
            self._live.add(sock)

    def untrack(self, sock: socket.socket) -> None:
        """Forget *sock* (closed by its thread)."""
        with self._lock:
            self._live.discard(sock)

    def finish_request(self, request: Any, client_address: Any) -> None:
        if isinstance(request, ssl.SSLSocket):
            try:
                request.do_handshake()
            except (ssl.SSLError, OSError):
                return  # the client refused our certificate, or went away: expected
        super().finish_request(request, client_address)

    def handle_error(self, request: Any, client_address: Any) -> None:
        # Called from inside an ``except`` block in the connection's thread.
        error = sys.exc_info()[1]
        if error is None or isinstance(error, OSError):  # includes ssl.SSLError, timeouts
            return
        self.errors.append(error)

    def stop(self) -> None:
        """Stop accepting, unblock every connection thread, close and join everything."""
        self.shutdown()
        self.server_close()
        with self._lock:
            live, workers = list(self._live), list(self._workers)
        for sock in live:
            with contextlib.suppress(OSError):
                # socket.socket.shutdown, not SSLSocket.shutdown: the latter also drops the TLS
                # object under the feet of the thread that is reading from it.
                socket.socket.shutdown(sock, socket.SHUT_RDWR)
        for worker in workers:
            worker.join()


@contextlib.contextmanager
def _running(server: _LoopbackServer, host: str) -> Iterator[ServerAddress]:
    thread = threading.Thread(
        target=server.serve_forever,
        kwargs={"poll_interval": 0.05},
        name=f"{type(server).__name__}-{host}",
        daemon=True,
    )
    thread.start()
    try:
        yield ServerAddress(host, server.server_address[1])
    finally:
        server.stop()
        thread.join()
    if server.errors:
        raise RuntimeError(f"test server {type(server).__name__} failed") from server.errors[0]


# -- line-based protocol stubs (IMAP, POP3, NNTP, plain TCP) --------------------------------------


class _LineHandler(socketserver.StreamRequestHandler):
    """A CRLF line protocol handler that can switch to TLS in the middle (STARTTLS)."""

    server: _LoopbackServer
    timeout = IO_TIMEOUT
    _upgraded: ssl.SSLSocket | None = None

    @property
    def tls_active(self) -> bool:
        return isinstance(self.connection, ssl.SSLSocket)

    @property
    def starttls_offered(self) -> bool:
        return bool(self.server.options.get("starttls")) and not self.tls_active

    def send(self, *lines: str) -> None:
        self.wfile.write(b"".join(line.encode("utf-8") + b"\r\n" for line in lines))

    def readline(self) -> str | None:
        raw = self.rfile.readline(_LINE_LIMIT)
        if not raw:
            return None
        return raw.decode("utf-8", "replace").rstrip("\r\n")

    def start_tls(self) -> bool:
        """Switch the connection to TLS; return False if the client aborted the handshake."""
        assert self.server.tls is not None
        # Nothing can be buffered: the client waits for our "go ahead" before its ClientHello.
        self.wfile.flush()
        self.rfile.close()
        self.wfile.close()
        tls = self.server.tls.wrap_socket(
            self.connection, server_side=True, do_handshake_on_connect=False
        )
        self._upgraded = self.connection = tls
        self.server.track(tls)
        self.rfile = tls.makefile("rb")
        self.wfile = socketserver._SocketWriter(tls)  # type: ignore[attr-defined]  # what StreamRequestHandler uses
        try:
            tls.do_handshake()
        except (ssl.SSLError, OSError):
            return False
        return True

    def finish(self) -> None:
        with contextlib.suppress(OSError):
            super().finish()
        if self._upgraded is not None:
            # socketserver closes the original socket object, which wrap_socket detached.
            self.server.untrack(self._upgraded)
            self._upgraded.close()


class _IMAPHandler(_LineHandler):
    """Just enough IMAP4rev1 for imaplib: CAPABILITY, NOOP, STARTTLS, LOGIN, LOGOUT."""

    def handle(self) -> None:
        self.send("* OK sslcustomize test IMAP server ready")
        while (line := self.readline()) is not None:
            tag, _, rest = line.partition(" ")
            command = rest.partition(" ")[0].upper()
            if command == "CAPABILITY":
                caps = "IMAP4rev1 AUTH=PLAIN" + (" STARTTLS" if self.starttls_offered else "")
                self.send(f"* CAPABILITY {caps}", f"{tag} OK CAPABILITY completed")
            elif command == "STARTTLS" and self.starttls_offered:
                self.send(f"{tag} OK begin TLS negotiation now")
                if not self.start_tls():
                    return
            elif command in {"NOOP", "LOGIN"}:
                self.send(f"{tag} OK {command} completed")
            elif command == "LOGOUT":
                self.send("* BYE logging out", f"{tag} OK LOGOUT completed")
                return
            else:
                self.send(f"{tag} BAD unknown command")


class _POP3Handler(_LineHandler):
    """Just enough POP3 for poplib: CAPA, STLS, USER, PASS, STAT, NOOP, QUIT."""

    def handle(self) -> None:
        self.send("+OK sslcustomize test POP3 server ready")
        while (line := self.readline()) is not None:
            command = line.partition(" ")[0].upper()
            if command == "CAPA":
                caps = ["USER", "STLS"] if self.starttls_offered else ["USER"]
                self.send("+OK capability list follows", *caps, ".")
            elif command == "STLS" and self.starttls_offered:
                self.send("+OK begin TLS negotiation")
                if not self.start_tls():
                    return
            elif command in {"USER", "PASS", "NOOP"}:
                self.send(f"+OK {command} accepted")
            elif command == "STAT":
                self.send("+OK 0 0")
            elif command == "QUIT":
                self.send("+OK bye")
                return
            else:
                self.send("-ERR unknown command")


class _NNTPHandler(_LineHandler):
    """Just enough NNTP for nntplib: CAPABILITIES, MODE READER, DATE, QUIT."""

    def handle(self) -> None:
        self.send("200 sslcustomize test NNTP server ready (posting allowed)")
        while (line := self.readline()) is not None:
            command = line.upper()
            if command == "CAPABILITIES":
                self.send("101 capability list follows", "VERSION 2", "READER", ".")
            elif command == "MODE READER":
                self.send("200 reader mode, posting allowed")
            elif command == "DATE":
                self.send("111 20260101000000")
            elif command == "QUIT":
                self.send("205 bye")
                return
            else:
                self.send("500 unknown command")


class _PlainHandler(_LineHandler):
    """Never speaks TLS: sends a fixed reply (if any), then reads until the client leaves."""

    def handle(self) -> None:
        reply: bytes | None = self.server.options["reply"]
        if reply:
            self.wfile.write(reply)
        # Read what the client sends (a ClientHello, typically) rather than close at once, so
        # that the client sees our bytes, not a connection reset.
        while self.rfile.read1(_LINE_LIMIT):
            pass


def _serve_lines(
    handler: type[_LineHandler],
    case: CertCase | None,
    host: str,
    *,
    starttls: bool,
    options: dict[str, Any] | None = None,
) -> contextlib.AbstractContextManager[ServerAddress]:
    server = _LoopbackServer(
        host,
        handler,
        tls=server_context(case) if case is not None else None,
        implicit_tls=case is not None and not starttls,
        options={"starttls": starttls, **(options or {})},
    )
    return _running(server, host)


def serve_imap(
    case: CertCase, host: str = "127.0.0.1", *, starttls: bool = False
) -> contextlib.AbstractContextManager[ServerAddress]:
    """Serve a minimal IMAP4rev1 server presenting *case*.

    Implicit TLS (for ``imaplib.IMAP4_SSL``) by default; with ``starttls=True`` a plain server
    offering STARTTLS (for ``imaplib.IMAP4(...).starttls()``). Any LOGIN succeeds.
    """
    return _serve_lines(_IMAPHandler, case, host, starttls=starttls)


def serve_pop3(
    case: CertCase, host: str = "127.0.0.1", *, starttls: bool = False
) -> contextlib.AbstractContextManager[ServerAddress]:
    """Serve a minimal POP3 server presenting *case*.

    Implicit TLS (for ``poplib.POP3_SSL``) by default; with ``starttls=True`` a plain server
    offering STLS (for ``poplib.POP3(...).stls()``). Any USER/PASS succeeds.
    """
    return _serve_lines(_POP3Handler, case, host, starttls=starttls)


def serve_nntp(
    case: CertCase, host: str = "127.0.0.1"
) -> contextlib.AbstractContextManager[ServerAddress]:
    """Serve a minimal NNTP server with implicit TLS presenting *case* (``nntplib.NNTP_SSL``)."""
    return _serve_lines(_NNTPHandler, case, host, starttls=False)


def serve_plain_tcp(
    host: str = "127.0.0.1", *, reply: bytes | None = b"220 plain-text service, no TLS here\r\n"
) -> contextlib.AbstractContextManager[ServerAddress]:
    """Serve a TCP port that never speaks TLS (a TLS client gets "wrong version number").

    Args:
        host: the loopback host.
        reply: sent as soon as a client connects; ``None`` to stay silent (the client then
            waits for a ServerHello until its own timeout).
    """
    return _serve_lines(_PlainHandler, None, host, starttls=False, options={"reply": reply})


# -- HTTPS (+ XML-RPC) ------------------------------------------------------------------------


def _ping() -> str:
    return "pong"


class _HTTPSHandler(SimpleXMLRPCRequestHandler):
    """200 "ok" to GET/HEAD/POST anywhere; XML-RPC (``ping() -> "pong"``) on POST /RPC2.

    The subject CN of the client certificate, if any, comes back in ``X-Client-Subject``.
    """

    rpc_paths = ("/RPC2",)
    timeout = IO_TIMEOUT

    def _ok(self, *, body: bool = True) -> None:
        payload = b"ok"
        self.send_response(HTTPStatus.OK)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", str(len(payload)))
        cn = _peer_common_name(self.connection)
        if cn is not None:
            self.send_header("X-Client-Subject", cn)
        self.end_headers()
        if body:
            self.wfile.write(payload)

    def do_GET(self) -> None:  # noqa: N802  # http.server dispatches on this name
        self._ok()

    def do_HEAD(self) -> None:  # noqa: N802  # http.server dispatches on this name
        self._ok(body=False)

    def do_POST(self) -> None:  # noqa: N802  # http.server dispatches on this name
        if self.is_rpc_path_valid():
            super().do_POST()
            return
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        self._ok()

    def log_message(self, format: str, *args: Any) -> None:
        pass  # keep test output clean


def _peer_common_name(conn: object) -> str | None:
    der = conn.getpeercert(binary_form=True) if isinstance(conn, ssl.SSLSocket) else None
    if not der:
        return None
    names = x509.load_der_x509_certificate(der).subject.get_attributes_for_oid(NameOID.COMMON_NAME)
    return str(names[0].value) if names else None


class _HTTPSServer(_LoopbackServer, SimpleXMLRPCDispatcher):
    logRequests = False  # noqa: N815  # read by SimpleXMLRPCRequestHandler

    def __init__(self, host: str, tls: ssl.SSLContext) -> None:
        _LoopbackServer.__init__(self, host, _HTTPSHandler, tls=tls, implicit_tls=True)
        SimpleXMLRPCDispatcher.__init__(self, allow_none=False, encoding=None)
        self.register_function(_ping, "ping")


def serve_https(
    case: CertCase,
    host: str = "127.0.0.1",
    *,
    client_ca_pem: bytes | None = None,
    maximum_version: ssl.TLSVersion | None = None,
) -> contextlib.AbstractContextManager[ServerAddress]:
    """Serve HTTPS presenting *case*: 200 ``ok`` to any GET/HEAD/POST, XML-RPC on ``/RPC2``.

    XML-RPC offers one function, ``ping() -> "pong"``. HTTP/1.0: one request per connection.

    Args:
        case: the certificate case to present.
        host: the loopback host.
        client_ca_pem: require a client certificate from this CA (mutual TLS); the client's
            subject CN is echoed in the ``X-Client-Subject`` response header.
        maximum_version: cap the TLS version the server accepts.
    """
    tls = server_context(case, client_ca_pem=client_ca_pem, maximum_version=maximum_version)
    return _running(_HTTPSServer(host, tls), host)


def serve_tls(
    tls: ssl.SSLContext, host: str = "127.0.0.1"
) -> contextlib.AbstractContextManager[ServerAddress]:
    """Serve HTTPS as :func:`serve_https` does, with a server context the test made itself.

    For tests that set what :func:`server_context` does not (ALPN, groups, signature
    algorithms, an optional client certificate).
    """
    return _running(_HTTPSServer(host, tls), host)


@contextlib.contextmanager
def serve_h2(tls: ssl.SSLContext, host: str = "127.0.0.1") -> Iterator[ServerAddress]:
    """Serve HTTP/2 only (h2, ALPN ``h2``) with ``tls``: 200 ``ok`` to every request."""
    import h2.config
    import h2.connection
    import h2.events

    def handle(connection: ssl.SSLSocket) -> None:
        h2_connection = h2.connection.H2Connection(h2.config.H2Configuration(client_side=False))
        h2_connection.initiate_connection()
        connection.sendall(h2_connection.data_to_send())
        while data := connection.recv(65535):
            for event in h2_connection.receive_data(data):
                if isinstance(event, h2.events.RequestReceived):
                    headers = [(":status", "200"), ("content-length", "2")]
                    h2_connection.send_headers(event.stream_id, headers)
                    h2_connection.send_data(event.stream_id, b"ok", end_stream=True)
            connection.sendall(h2_connection.data_to_send())

    def serve(listener: socket.socket) -> None:
        while True:
            try:
                raw, _ = listener.accept()
            except OSError:
                return
            try:
                with tls.wrap_socket(raw, server_side=True) as connection:
                    handle(connection)
            except (OSError, ssl.SSLError):
                continue

    tls.set_alpn_protocols(["h2"])
    bind, family = _bind_host(host)
    listener = socket.create_server((bind, 0), family=family)
    thread = threading.Thread(target=serve, args=(listener,), daemon=True)
    thread.start()
    try:
        yield ServerAddress(host, listener.getsockname()[1])
    finally:
        listener.close()


# -- SMTP (aiosmtpd) ----------------------------------------------------------------------------


class _SMTPHandler:
    """An aiosmtpd handler that accepts and keeps every message."""

    def __init__(self) -> None:
        self.messages: list[bytes] = []

    async def handle_DATA(self, server: object, session: object, envelope: Any) -> str:  # noqa: N802  # aiosmtpd's hook name
        self.messages.append(bytes(envelope.content))
        return "250 OK message accepted"


@contextlib.contextmanager
def serve_smtp(
    case: CertCase, host: str = "127.0.0.1", *, starttls: bool = False
) -> Iterator[ServerAddress]:
    """Serve SMTP (aiosmtpd) presenting *case*; accepts any message.

    Implicit TLS (for ``smtplib.SMTP_SSL``) by default; with ``starttls=True`` a plain server
    offering STARTTLS (for ``smtplib.SMTP(...).starttls()``).
    """
    from aiosmtpd.smtp import SMTP

    tls = server_context(case)
    bind, family = _bind_host(host)
    loop = asyncio.new_event_loop()
    # Handshakes that clients abort end up here; they are the expected outcome of most tests.
    loop.set_exception_handler(_ignore_connection_errors)
    handler = _SMTPHandler()

    def factory() -> asyncio.BaseProtocol:
        return SMTP(
            handler,
            hostname="sslcustomize-test-smtp",
            tls_context=tls if starttls else None,
            require_starttls=False,
            loop=loop,
        )

    try:
        server = loop.run_until_complete(
            loop.create_server(
                factory, host=bind, port=0, family=family, ssl=None if starttls else tls
            )
        )
        thread = threading.Thread(target=loop.run_forever, name=f"smtp-{host}", daemon=True)
        thread.start()
        try:
            yield ServerAddress(host, server.sockets[0].getsockname()[1])
        finally:
            try:
                asyncio.run_coroutine_threadsafe(_stop_asyncio_server(server), loop).result()
            finally:
                loop.call_soon_threadsafe(loop.stop)
                thread.join()
        loop.run_until_complete(loop.shutdown_asyncgens())
    finally:
        loop.close()


def _ignore_connection_errors(loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
    if isinstance(context.get("exception"), OSError):
        return
    loop.default_exception_handler(context)


async def _stop_asyncio_server(server: asyncio.AbstractServer) -> None:
    server.close()
    # Drop the connections still open (a client that never said QUIT, or never finished its
    # handshake): from 3.12 on, wait_closed() waits for them.
    abort_clients = getattr(server, "abort_clients", None)  # Python 3.13+
    if abort_clients is not None:
        abort_clients()
    else:
        # Before 3.13 a server cannot drop its connections; the selector event loop's private
        # fd -> transport map (there since Python 3.4) is the only way to reach them.
        loop = asyncio.get_running_loop()
        for transport in list(getattr(loop, "_transports", {}).values()):
            transport.abort()
    await asyncio.sleep(0)  # let connection_lost() run
    tasks = [task for task in asyncio.all_tasks() if task is not asyncio.current_task()]
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    await asyncio.wait_for(server.wait_closed(), IO_TIMEOUT)


# -- FTPS (pyftpdlib) ---------------------------------------------------------------------------


@contextlib.contextmanager
def serve_ftps(case: CertCase, host: str = "127.0.0.1") -> Iterator[ServerAddress]:
    """Serve FTP with explicit TLS (AUTH TLS, for ``ftplib.FTP_TLS``) presenting *case*.

    Anonymous login and ``user``/``password`` both work; the home directory holds
    :data:`FTP_FILE_NAME` with :data:`FTP_FILE_CONTENT`. Passive data connections (PASV/EPSV)
    are protected when the client asks (``prot_p()``).
    """
    from OpenSSL import SSL

    with warnings.catch_warnings():
        # On Python 3.10 and 3.11 pyftpdlib imports asyncore/asynchat, which warn that they
        # are deprecated (PEP 594); that is pyftpdlib's business, not a failure of our tests.
        warnings.simplefilter("ignore", DeprecationWarning)
        from pyftpdlib.authorizers import DummyAuthorizer
        from pyftpdlib.handlers import TLS_FTPHandler
        from pyftpdlib.ioloop import IOLoop
        from pyftpdlib.servers import FTPServer

    bind, _ = _bind_host(host)
    with tempfile.TemporaryDirectory(prefix="sslcustomize-ftp-") as tmp:
        work = Path(tmp)
        files = case.write(work / "tls")
        home = work / "home"
        home.mkdir()
        (home / FTP_FILE_NAME).write_bytes(FTP_FILE_CONTENT)

        context = SSL.Context(SSL.TLS_SERVER_METHOD)
        context.set_cipher_list(b"DEFAULT:@SECLEVEL=0")  # see server_context()
        context.use_certificate_chain_file(str(files.chain))
        context.use_privatekey_file(str(files.key))

        authorizer = DummyAuthorizer()
        authorizer.add_anonymous(str(home))
        authorizer.add_user("user", "password", str(home), perm="elr")
        handler_class = type(
            "_FTPSHandler",
            (TLS_FTPHandler,),
            {"ssl_context": context, "authorizer": authorizer, "timeout": IO_TIMEOUT},
        )
        ioloop = IOLoop()  # its own loop: pyftpdlib's default one is a process-wide singleton
        server = FTPServer((bind, 0), handler_class, ioloop=ioloop)
        stop = threading.Event()

        def run() -> None:
            try:
                while not stop.is_set():
                    server.serve_forever(timeout=0.05, blocking=False, handle_exit=False)
            finally:
                server.close_all()

        thread = threading.Thread(target=run, name=f"ftps-{host}", daemon=True)
        thread.start()
        try:
            yield ServerAddress(host, server.address[1])
        finally:
            stop.set()
            thread.join()


# --- Proxies: HTTP CONNECT and SOCKS5, loopback only ---------------------------------------------


def _pipe(source: socket.socket, sink: socket.socket) -> None:
    """Copy ``source`` to ``sink`` until ``source`` ends, then end ``sink``'s writing."""
    with contextlib.suppress(OSError):
        while data := source.recv(65536):
            sink.sendall(data)
    with contextlib.suppress(OSError):
        sink.shutdown(socket.SHUT_WR)


def _relay(client: socket.socket, host: str, port: int, ready: bytes) -> None:
    """Connect to ``host:port``, tell ``client`` with ``ready``, and relay both ways."""
    with socket.create_connection((host, port), timeout=10) as upstream:
        client.sendall(ready)
        back = threading.Thread(target=_pipe, args=(upstream, client), daemon=True)
        back.start()
        _pipe(client, upstream)
        back.join(10)


def serve_each(listener: socket.socket, handle: Callable[[socket.socket], None]) -> None:
    """Accept connections on ``listener`` in a thread, each handled in a thread of its own."""

    def serve() -> None:
        while True:
            try:
                client, _ = listener.accept()
            except OSError:
                return
            threading.Thread(target=handle, args=(client,), daemon=True).start()

    threading.Thread(target=serve, daemon=True).start()


_LOOPBACK_NAMES = ("localhost", "127.0.0.1")


@contextlib.contextmanager
def connect_proxy() -> Iterator[tuple[str, list[str]]]:
    """Run a minimal HTTP CONNECT proxy on loopback: its URL, and the targets it tunnelled to.

    It tunnels only to loopback names (a 403 otherwise).
    """
    listener = socket.create_server(("127.0.0.1", 0))
    tunnelled: list[str] = []

    def tunnel(client: socket.socket) -> None:
        with client:
            request = b""
            while b"\r\n\r\n" not in request:
                chunk = client.recv(4096)
                if not chunk:
                    return
                request += chunk
            method, target, _ = request.split(b"\r\n", 1)[0].decode().split(" ", 2)
            host, _, port = target.rpartition(":")
            if method != "CONNECT" or host not in _LOOPBACK_NAMES:
                client.sendall(b"HTTP/1.1 403 Forbidden\r\n\r\n")  # loopback only
                return
            tunnelled.append(target)
            _relay(client, host, int(port), b"HTTP/1.1 200 Connection established\r\n\r\n")

    serve_each(listener, tunnel)
    try:
        yield f"http://127.0.0.1:{listener.getsockname()[1]}", tunnelled
    finally:
        listener.close()


def _exactly(sock: socket.socket, size: int) -> bytes:
    data = b""
    while len(data) < size:
        chunk = sock.recv(size - len(data))
        if not chunk:
            raise ConnectionError("closed")
        data += chunk
    return data


@contextlib.contextmanager
def socks5_proxy() -> Iterator[tuple[str, list[str]]]:
    """Run a minimal SOCKS5 proxy on loopback (no authentication, CONNECT): URL and targets.

    It connects only to loopback destinations (a refusal otherwise).
    """
    import ipaddress
    import struct

    listener = socket.create_server(("127.0.0.1", 0))
    tunnelled: list[str] = []

    def tunnel(client: socket.socket) -> None:
        with client, contextlib.suppress(OSError):
            _, methods = _exactly(client, 2)
            _exactly(client, methods)
            client.sendall(b"\x05\x00")  # no authentication
            _, command, _, kind = _exactly(client, 4)
            if kind == 1:
                host = str(ipaddress.IPv4Address(_exactly(client, 4)))
            elif kind == 3:
                host = _exactly(client, _exactly(client, 1)[0]).decode()
            else:
                host = str(ipaddress.IPv6Address(_exactly(client, 16)))
            (port,) = struct.unpack("!H", _exactly(client, 2))
            if command != 1 or host not in _LOOPBACK_NAMES:
                client.sendall(b"\x05\x02\x00\x01" + bytes(6))  # loopback only
                return
            tunnelled.append(f"{host}:{port}")
            _relay(client, host, port, b"\x05\x00\x00\x01" + bytes(6))

    serve_each(listener, tunnel)
    try:
        yield f"socks5://127.0.0.1:{listener.getsockname()[1]}", tunnelled
    finally:
        listener.close()
