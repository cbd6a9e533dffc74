"""Fixtures shared by the whole test suite.

* ``pki`` (session): the test PKI of ``_pki.py``; ``pki["good"]``, ``pki["expired"]``, ...
* ``_clean_tls_environment`` (autouse): no test sees the developer's TLS variables, proxies or
  user policy.
* ``loopback_host``: parametrizes a test over ``localhost``, ``127.0.0.1`` and ``::1``.
* ``https_server``, ``smtp_server``, ``ftps_server``, ``imap_server``, ``pop3_server``,
  ``nntp_server``, ``plain_tcp_server``: each a function that starts a server of ``_servers.py``
  (same arguments as the matching ``serve_*``), returns its ``ServerAddress`` and stops it when
  the test ends. Call it several times to start several servers.

Helper modules live beside this file and are imported by name (``import _pki``) from every
test directory (``unit/<layer>``, ``loopback``, ``system``, ``project``, ``lint``): pytest puts
this directory on ``sys.path`` because ``tests/`` is not a package. Keep every directory
without ``__init__.py``, and every test file's name unique (docs/architecture.md, "Tests").
"""

from __future__ import annotations

import contextlib
import gc
import os
import socket
import sys
from typing import TYPE_CHECKING, Any

import pytest

import _pki
import _servers

# Policy files, injection and in-memory handshakes: see _fixtures.py.
pytest_plugins = ["_fixtures"]


class _CollectAfterEachTest:
    """Collect garbage after each test that runs asyncio clients, inside that test.

    A transport leaked in a reference cycle is otherwise finalised whenever the collector
    next runs, often at the end of the session: outside any test, where pytest reports it as
    an error that names no test (3.11, once in about twenty runs of the suite). Collected
    here, the leak fails the test that made it. On 3.10 the test's warning filters (below)
    still apply when it is finalised.
    """

    # Where asyncio clients connect most in this process, and where their handshakes fail
    # (test_infra has one asyncio test among ~190: a collection after each cost 6 s there).
    MODULES = ("test_thirdparty_clients", "test_exceptions", "test_stdlib_clients")

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_call(self, item: pytest.Item) -> object:
        try:
            return (yield)
        finally:
            if item.path.stem in self.MODULES:
                gc.collect()


def pytest_configure(config: pytest.Config) -> None:
    """Collect after asyncio tests; tolerate aiosmtpd's deprecated import and 3.10's leaks.

    3.10's asyncio leaves the transports of a connection whose handshake failed (whatever the
    cause: a rejected certificate is the point of many tests here) to the garbage collector,
    and when ``asyncio.run`` closes its loop first they are never closed at all. The sslproto
    rewrite of 3.11 fixed this; on 3.11+ every leak still fails the suite.
    """
    config.pluginmanager.register(_CollectAfterEachTest(), "sslcustomize-gc")
    # aiosmtpd (1.4.6, the test SMTP server) imports typing.ByteString, which 3.15 deprecates.
    config.addinivalue_line(
        "filterwarnings",
        "ignore:'typing.ByteString' and 'collections.abc.ByteString' are deprecated"
        ":DeprecationWarning:aiosmtpd.proxy_protocol",
    )
    if sys.version_info >= (3, 11):
        return
    for line in (
        "ignore:unclosed transport:ResourceWarning",
        "ignore:unclosed <socket.socket:ResourceWarning",
        "ignore:Exception ignored in. <function _SSLProtocolTransport.__del__"
        ":pytest.PytestUnraisableExceptionWarning",
        "ignore:Exception ignored in. <function _SelectorTransport.__del__"
        ":pytest.PytestUnraisableExceptionWarning",
        "ignore:Exception ignored in. <socket.socket:pytest.PytestUnraisableExceptionWarning",
    ):
        config.addinivalue_line("filterwarnings", line)


if TYPE_CHECKING:
    from collections.abc import Callable, Iterator

    #: What the server fixtures return: start(case, host="127.0.0.1", **options) -> address.
    StartServer = Callable[..., _servers.ServerAddress]

# Variables that change which certificates Python or a client library trusts, or route a
# connection elsewhere. Tests that need one set it themselves (monkeypatch.setenv).
_TLS_AND_PROXY_VARIABLES = (
    "SSL_CERT_FILE",
    "SSL_CERT_DIR",
    "REQUESTS_CA_BUNDLE",
    "CURL_CA_BUNDLE",
    "PIP_CERT",
    "SSLCUSTOMIZE_POLICY",
    "PYTHONHTTPSVERIFY",
    *(
        name
        for base in ("http_proxy", "https_proxy", "ftp_proxy", "all_proxy", "no_proxy")
        for name in (base, base.upper())
    ),
)


@pytest.fixture(scope="session")
def pki() -> _pki.TestPKI:
    """The session's test PKI: a root, an intermediate and one chain per certificate case."""
    return _pki.TestPKI()


@pytest.fixture(autouse=True)
def _clean_tls_environment(
    monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """Strip TLS and proxy variables; point the XDG directories at an empty per-test dir.

    So that no test reads the developer's user policy ($XDG_CONFIG_HOME/sslcustomize) or writes
    reports into their state directory.
    """
    for name in _TLS_AND_PROXY_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    xdg = tmp_path_factory.mktemp("xdg")
    for name, sub in (
        ("XDG_CONFIG_HOME", "config"),
        ("XDG_STATE_HOME", "state"),
        ("XDG_CACHE_HOME", "cache"),
    ):
        monkeypatch.setenv(name, str(xdg / sub))


# What system scope writes on the real machine. Tests that exercise it run in private mount
# namespaces with throw-away overlays; a test that changes any of these on the host fails.
_SYSTEM_PATHS = ("/etc/sslcustomize", "/usr/local/lib/sslcustomize", "/var/spool/sslcustomize")


def _stamp(path: str) -> tuple[int, int] | None:
    try:
        info = os.lstat(path)
    except OSError:
        return None
    return (info.st_mtime_ns, info.st_ino)


def _system_state() -> dict[str, tuple[int, int] | None]:
    return {path: _stamp(path) for path in _SYSTEM_PATHS}


@pytest.fixture(autouse=True)
def _host_system_untouched() -> Iterator[None]:
    """Fail the test that created or changed the host's own system-scope files."""
    before = _system_state()
    yield
    after = _system_state()
    changed = [path for path in _SYSTEM_PATHS if before[path] != after[path]]
    assert not changed, f"this test changed the host's {changed}: use tests/_namespace.py"


def _ipv6_loopback_works() -> bool:
    try:
        with socket.socket(socket.AF_INET6, socket.SOCK_STREAM) as sock:
            sock.bind(("::1", 0))
    except OSError:
        return False
    return True


_IPV6 = _ipv6_loopback_works()


@pytest.fixture(params=_pki.LOOPBACK_NAMES)
def loopback_host(request: pytest.FixtureRequest) -> str:
    """Each loopback name in turn: ``localhost``, ``127.0.0.1``, ``::1`` (skipped without IPv6)."""
    host: str = request.param
    if host == "::1" and not _IPV6:
        pytest.skip("no IPv6 loopback on this machine")
    return host


def _started_by(
    serve: Callable[..., contextlib.AbstractContextManager[_servers.ServerAddress]],
) -> Iterator[StartServer]:
    """Yield a function starting servers with *serve*; stop them all afterwards."""
    with contextlib.ExitStack() as stack:

        def start(*args: object, **kwargs: object) -> _servers.ServerAddress:
            return stack.enter_context(serve(*args, **kwargs))

        yield start


@pytest.fixture
def https_server() -> Iterator[StartServer]:
    """``https_server(case, host="127.0.0.1", *, client_ca_pem=None, maximum_version=None)``."""
    yield from _started_by(_servers.serve_https)


@pytest.fixture
def smtp_server() -> Iterator[StartServer]:
    """``smtp_server(case, host="127.0.0.1", *, starttls=False)``: aiosmtpd."""
    yield from _started_by(_servers.serve_smtp)


@pytest.fixture
def ftps_server() -> Iterator[StartServer]:
    """``ftps_server(case, host="127.0.0.1")``: pyftpdlib, explicit TLS (AUTH TLS)."""
    yield from _started_by(_servers.serve_ftps)


@pytest.fixture
def imap_server() -> Iterator[StartServer]:
    """``imap_server(case, host="127.0.0.1", *, starttls=False)``: a minimal IMAP4rev1 stub."""
    yield from _started_by(_servers.serve_imap)


@pytest.fixture
def pop3_server() -> Iterator[StartServer]:
    """``pop3_server(case, host="127.0.0.1", *, starttls=False)``: a minimal POP3 stub."""
    yield from _started_by(_servers.serve_pop3)


@pytest.fixture
def nntp_server() -> Iterator[StartServer]:
    """``nntp_server(case, host="127.0.0.1")``: a minimal NNTP stub, implicit TLS."""
    yield from _started_by(_servers.serve_nntp)


@pytest.fixture
def plain_tcp_server() -> Iterator[StartServer]:
    """``plain_tcp_server(host="127.0.0.1", *, reply=b"220 ...")``: never speaks TLS."""
    yield from _started_by(_servers.serve_plain_tcp)


@pytest.fixture
def wss_server(pki: _pki.TestPKI) -> Iterator[Callable[[str], str]]:
    """``wss_server(case)``: a websockets echo server on localhost; returns its wss:// URL."""
    import threading

    from websockets.sync.server import ServerConnection, serve

    servers: list[Any] = []

    def echo(connection: ServerConnection) -> None:
        for message in connection:
            connection.send(message)

    def start(case: str) -> str:
        context = _servers.server_context(pki[case])
        # No TLS 1.3 session tickets. websockets' sync connections read in one thread while
        # writing in another, on the same OpenSSL connection, which OpenSSL does not support:
        # when the tickets arrive as the client writes its request, the request can be lost
        # ("[SSL] internal error" on write, or a handshake that times out). Measured on 3.10,
        # 2,000 connections each: 10 failed with a plain context, 11 under a policy, none
        # without tickets. A race of the library's design, not of verification.
        context.num_tickets = 0
        # As patient as its clients (30 s; the server's default is 10 s).
        server = serve(echo, "127.0.0.1", 0, ssl=context, open_timeout=30)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        servers.append(server)
        # By address: "localhost" may try ::1 first, which this server does not listen on.
        return f"wss://127.0.0.1:{server.socket.getsockname()[1]}/"

    yield start
    for server in servers:
        server.shutdown()
