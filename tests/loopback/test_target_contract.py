"""Each hook states its library's real target, and fails here when the library's internals move.

A port-scoped exception matches the port of the server a connection is with, which the
hooks of ``sslcustomize._inject`` state where each library makes its connections (see
``_connection/_target.py``). Each library has two tests here:

* a contract: the method the hook wraps still exists with the parameters it reads, and the
  attributes it reads are where the library keeps the target; a release that moves them fails
  this test rather than silently changing what an exception matches;
* a connection through a proxy on loopback: an exception scoped to the server's port
  applies, and its attack twin, one scoped to the proxy's port, does not (a MITM on the
  server with the proxy port's pin is refused).

Run against the releases docs/clients.md names (oldest and newest).
"""

from __future__ import annotations

import asyncio
import gc
import http.client
import inspect
import ssl
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

import _pki
import _servers
import sslcustomize
from _fixtures import WritePolicy, wrapped_rejection

StartServer = Callable[..., _servers.ServerAddress]
Fetch = Callable[[str, int], str]


def _parameters(function: Any) -> list[str]:
    return list(inspect.signature(function).parameters)


def _hooked(function: Any) -> bool:
    return hasattr(function, "__sslcustomize_original__")


@pytest.fixture
def enforce(pki: _pki.TestPKI, tmp_path: Path, write_policy: WritePolicy) -> Callable[[str], None]:
    """Inject a policy trusting the test root, plus the given TOML."""
    root = tmp_path / "root.pem"
    root.write_bytes(pki.root_pem)

    def inject(extra: str = "") -> None:
        sslcustomize.inject(write_policy(f"trust = ['{root}']\n{extra}"))

    return inject


@pytest.fixture
def socks5() -> Iterator[tuple[str, list[str]]]:
    """A SOCKS5 proxy on loopback: its URL and the destinations asked of it."""
    with _servers.socks5_proxy() as proxy:
        yield proxy


@pytest.fixture
def tunnel() -> Iterator[tuple[str, list[str]]]:
    """An HTTP CONNECT proxy on loopback: its URL and the targets asked of it."""
    with _servers.connect_proxy() as proxy:
        yield proxy


def _port(url: str) -> int:
    return int(url.rsplit(":", 1)[1])


def _outcome(fetch: Fetch, port: int) -> tuple[str, ...]:
    """Fetch through the proxy; () on success, else the rejection's reasons."""
    try:
        assert fetch("localhost", port) == "ok"
    except Exception as error:
        found = wrapped_rejection(error)
        if found is None:
            raise
        return found.reasons
    return ()


def _pinned(port: int, pin: str) -> str:
    return f"[[exception]]\nhost = 'localhost:{port}'\npin = ['{pin}']\nreason = 'appliance'\n"


def _server_port_counts(
    fetch: Fetch,
    proxy: tuple[str, list[str]],
    pki: _pki.TestPKI,
    https_server: StartServer,
    enforce: Callable[[str], None],
    *,
    exception: Callable[[int], str] | None = None,
) -> None:
    """The exception of the server's port applies through the proxy; the proxy port's does not.

    ``exception(port)`` is the exception's TOML; by default the appliance's key pinned.
    """
    appliance = pki["self_signed"]
    rule = exception or (lambda port: _pinned(port, appliance.pin))
    server = https_server(appliance, "localhost")
    url, asked = proxy
    enforce(rule(server[1]))
    assert _outcome(fetch, server[1]) == ()
    # The attack twin: the proxy's port pinned to the key the MITM on the server presents.
    enforce(rule(_port(url)))
    assert _outcome(fetch, server[1]) == ("self_signed",)
    assert len(asked) == 2
    assert all(target.endswith(f":{server[1]}") for target in asked)


def _https_get(sock: Any) -> str:
    sock.sendall(b"GET / HTTP/1.0\r\nHost: localhost\r\n\r\n")
    data = b""
    while chunk := sock.recv(65536):
        data += chunk
    return data.split(b"\r\n\r\n", 1)[1].decode()


# --- http.client ---------------------------------------------------------------------------------


def test_http_client_contract() -> None:
    """http.client keeps a tunnel in _tunnel_host/_tunnel_port; its connect() is hooked."""
    connection: Any = http.client.HTTPSConnection("127.0.0.1", 3128)
    connection.set_tunnel("nas.example", 8443)
    assert (connection._tunnel_host, connection._tunnel_port) == ("nas.example", 8443)
    assert (connection.host, connection.port) == ("127.0.0.1", 3128)
    assert _parameters(http.client.HTTPSConnection.connect) == ["self"]
    sslcustomize.inject()
    assert _hooked(http.client.HTTPSConnection.connect)
    sslcustomize.extract()
    assert not _hooked(http.client.HTTPSConnection.connect)


def test_http_client_through_a_tunnel(
    pki: _pki.TestPKI,
    https_server: StartServer,
    enforce: Callable[[str], None],
    tunnel: tuple[str, list[str]],
) -> None:
    """http.client through a CONNECT tunnel: the server's port counts, never the proxy's."""

    def fetch(host: str, port: int) -> str:
        connection = http.client.HTTPSConnection("127.0.0.1", _port(tunnel[0]), timeout=10)
        connection.set_tunnel(host, port)
        try:
            connection.request("GET", "/")
            return connection.getresponse().read().decode()
        finally:
            connection.close()

    _server_port_counts(fetch, tunnel, pki, https_server, enforce)


# --- urllib3 -------------------------------------------------------------------------------------


def test_urllib3_contract() -> None:
    """urllib3's HTTPSConnection keeps its tunnel as http.client does; connect() is hooked."""
    import urllib3.connection

    https = urllib3.connection.HTTPSConnection
    connection = https("127.0.0.1", 3128)
    connection.set_tunnel("nas.example", 8443)
    assert (connection._tunnel_host, connection._tunnel_port) == ("nas.example", 8443)
    assert (connection.host, connection.port) == ("127.0.0.1", 3128)
    assert _parameters(https.connect) == ["self"]
    assert _parameters(https._connect_tls_proxy)[:2] == ["self", "hostname"]
    sslcustomize.inject()
    assert _hooked(https.connect)
    assert _hooked(https._connect_tls_proxy)


def test_urllib3_socks_contract() -> None:
    """urllib3's SOCKS connections (PySocks) keep their proxy where the hook reads its kind."""
    from urllib3.contrib.socks import SOCKSProxyManager

    from sslcustomize._connection._target import Target
    from sslcustomize._inject import _urllib3

    for url, kind in [("socks5h://127.0.0.1:1080", "socks5"), ("socks4a://127.0.0.1:1080", None)]:
        with SOCKSProxyManager(url) as manager:
            pool = manager.connection_from_url("https://nas.example:8443/")
            connection: Any = pool._new_conn()
        options = connection._socks_options
        assert options["socks_version"] == (2 if kind else 1)  # PySocks' PROXY_TYPE_SOCKS5/4
        assert (options["proxy_host"], options["proxy_port"]) == ("127.0.0.1", 1080)
        assert _urllib3._connect_target(connection) == Target(
            host="nas.example", port=8443, proxy=("127.0.0.1", 1080) if kind else None,
            proxy_kind=kind,
        )  # fmt: skip


def test_urllib3_through_a_tunnel(
    pki: _pki.TestPKI,
    tmp_path: Path,
    https_server: StartServer,
    enforce: Callable[[str], None],
    tunnel: tuple[str, list[str]],
) -> None:
    """urllib3's ProxyManager through a CONNECT tunnel: the server's port counts."""
    import urllib3

    def fetch(host: str, port: int) -> str:
        with (
            warnings.catch_warnings(),
            urllib3.ProxyManager(tunnel[0], timeout=10, retries=False) as manager,
        ):
            # urllib3 1.26 matches names itself, and warns of a certificate without a SAN
            # (the test's self-signed one).
            no_san = getattr(urllib3.exceptions, "SubjectAltNameWarning", None)
            if no_san is not None:
                warnings.simplefilter("ignore", no_san)
            return str(manager.request("GET", f"https://{host}:{port}/").data.decode())

    # urllib3 1.26 matches names itself on the certificate getpeercert() returns, which a
    # pinned connection verified by sslcustomize does not return: the exception there
    # trusts the appliance's certificate as a CA for that port instead.
    leaf = tmp_path / "appliance.pem"
    leaf.write_bytes(pki["self_signed"].leaf_pem)

    def trusted(port: int) -> str:
        return f"[[exception]]\nhost = 'localhost:{port}'\nca = ['{leaf}']\nreason = 'appliance'\n"

    legacy = str(getattr(urllib3, "__version__", "2")).startswith("1.")
    exception = trusted if legacy else None
    _server_port_counts(fetch, tunnel, pki, https_server, enforce, exception=exception)


# --- httpcore (httpx) ----------------------------------------------------------------------------


def test_httpcore_contract() -> None:
    """httpcore keeps origins on its connections; each method the hook wraps exists."""
    import importlib

    import httpcore

    from sslcustomize._connection._target import Target
    from sslcustomize._inject._httpcore import HOOKED

    remote, proxy = (
        httpcore.Origin(b"https", b"nas.example", 8443),
        httpcore.Origin(b"http", b"127.0.0.1", 3128),
    )
    assert httpcore.HTTPConnection(origin=remote)._origin == remote
    for module_name, class_name, method, target_of in HOOKED:
        cls = getattr(importlib.import_module(module_name), class_name)
        assert _parameters(getattr(cls, method))[:2] == ["self", "request"]
        if "Tunnel" in class_name or "Socks" in class_name:
            made = cls(proxy_origin=proxy, remote_origin=remote)
            assert (made._proxy_origin, made._remote_origin) == (proxy, remote)
            # The kind of proxy a pinned server's probe asks for a tunnel of its own.
            kind = "socks5" if "Socks" in class_name else "http"
            assert target_of(made) == Target(
                host="nas.example", port=8443, proxy=("127.0.0.1", 3128), proxy_kind=kind
            )
    sslcustomize.inject()
    for module_name, class_name, method, _ in HOOKED:
        cls = getattr(importlib.import_module(module_name), class_name)
        assert _hooked(getattr(cls, method)), (class_name, method)


def _httpx(proxy: str, *, use_async: bool) -> Fetch:
    import httpx

    def fetch(host: str, port: int) -> str:
        if not use_async:
            with httpx.Client(proxy=proxy, timeout=10) as client:
                return client.get(f"https://{host}:{port}/").text

        async def main() -> str:
            async with httpx.AsyncClient(proxy=proxy, timeout=10) as client:
                return (await client.get(f"https://{host}:{port}/")).text

        return asyncio.run(main())

    return fetch


@pytest.mark.parametrize("use_async", [False, True], ids=["sync", "async"])
@pytest.mark.parametrize("kind", ["connect", "socks5"])
def test_httpx_through_a_proxy(
    pki: _pki.TestPKI,
    https_server: StartServer,
    enforce: Callable[[str], None],
    tunnel: tuple[str, list[str]],
    socks5: tuple[str, list[str]],
    kind: str,
    use_async: bool,
) -> None:
    """httpx (httpcore) through a CONNECT or SOCKS5 proxy, sync and async: the server's port."""
    proxy = tunnel if kind == "connect" else socks5
    _server_port_counts(_httpx(proxy[0], use_async=use_async), proxy, pki, https_server, enforce)


# --- aiohttp and asyncio -------------------------------------------------------------------------


def test_aiohttp_and_asyncio_contract() -> None:
    """aiohttp's tunnel TLS and asyncio's create_connection take what the hooks read."""
    import aiohttp
    import aiohttp.connector
    from yarl import URL

    from sslcustomize._connection._target import Target
    from sslcustomize._inject import _aiohttp

    start_tls = aiohttp.connector.TCPConnector._start_tls_connection
    assert _parameters(start_tls)[:3] == ["self", "underlying_transport", "req"]
    loop = asyncio.new_event_loop()
    try:
        request = aiohttp.ClientRequest(
            "GET", URL("https://nas.example:8443/"), loop=loop,
            proxy=URL("http://127.0.0.1:3128"),
        )  # fmt: skip
    finally:
        loop.close()
    assert (request.host, request.port, request.server_hostname) == ("nas.example", 8443, None)
    assert request.proxy is not None
    assert (request.proxy.host, request.proxy.port) == ("127.0.0.1", 3128)
    assert _aiohttp._tunnel_target(request) == Target(
        host="nas.example", port=8443, proxy=("127.0.0.1", 3128), proxy_kind="http"
    )
    create = asyncio.base_events.BaseEventLoop.create_connection
    assert _parameters(create)[:4] == ["self", "protocol_factory", "host", "port"]
    keywords = inspect.signature(create).parameters
    assert {"ssl", "sock", "server_hostname"} <= set(keywords)
    sslcustomize.inject()
    assert _hooked(asyncio.base_events.BaseEventLoop.create_connection)


def test_aiohttp_through_a_tunnel(
    pki: _pki.TestPKI,
    https_server: StartServer,
    enforce: Callable[[str], None],
    tunnel: tuple[str, list[str]],
) -> None:
    """aiohttp through a CONNECT tunnel: the server's port counts."""
    import aiohttp

    def fetch(host: str, port: int) -> str:
        async def main() -> str:
            async with (
                aiohttp.ClientSession() as session,
                session.get(f"https://{host}:{port}/", proxy=tunnel[0]) as response,
            ):
                return await response.text()

        return asyncio.run(main())

    _server_port_counts(fetch, tunnel, pki, https_server, enforce)


def test_asyncio_states_the_port_it_connects_to(
    pki: _pki.TestPKI, https_server: StartServer, enforce: Callable[[str], None]
) -> None:
    """asyncio.open_connection(host, port, ssl=...): the port asked for counts, no other."""
    appliance = pki["self_signed"]
    pinned, other = https_server(appliance, "localhost"), https_server(appliance, "localhost")

    def fetch(port: int) -> str:
        async def main() -> str:
            context = ssl.create_default_context()
            reader, writer = await asyncio.open_connection("localhost", port, ssl=context)
            writer.write(b"GET / HTTP/1.0\r\nHost: localhost\r\n\r\n")
            data = await reader.read()
            writer.close()
            return data.split(b"\r\n\r\n", 1)[1].decode()

        return asyncio.run(main())

    enforce(_pinned(pinned[1], appliance.pin))
    assert fetch(pinned[1]) == "ok"
    with pytest.raises(sslcustomize.CertificateRejected):
        fetch(other[1])


# --- python-socks and aiohttp-socks --------------------------------------------------------------


def _made(cls: Any, *, asynchronous: bool) -> Any:
    """Make a proxy of ``cls`` (an asynchronous one in an event loop, where it looks for one)."""
    if not asynchronous:
        return cls.from_url("socks5://127.0.0.1:1080")

    async def make() -> Any:
        return cls.from_url("socks5://127.0.0.1:1080")

    return asyncio.run(make())


def test_python_socks_contract() -> None:
    """python-socks' proxies take dest_host, dest_port and keep the proxy's host and port."""
    import importlib

    from sslcustomize._inject._socks import CLASSES

    found = 0
    for module_name, class_name in CLASSES.items():
        try:
            cls = getattr(importlib.import_module(module_name), class_name)
        except ImportError:  # a backend (trio, anyio) that is not installed
            continue
        found += 1
        assert _parameters(cls.connect)[:3] == ["self", "dest_host", "dest_port"]
        proxy = _made(cls, asynchronous="async_" in module_name)
        assert (proxy._proxy_host, proxy._proxy_port) == ("127.0.0.1", 1080)
        sslcustomize.inject()
        assert _hooked(cls.connect), module_name
    assert found >= 4  # sync and asyncio, v1 and v2, at least


def _python_socks_sync(url: str) -> Fetch:
    from python_socks.sync import Proxy

    def fetch(host: str, port: int) -> str:
        sock = Proxy.from_url(url, rdns=True).connect(dest_host=host, dest_port=port, timeout=10)
        context = ssl.create_default_context()
        with context.wrap_socket(sock, server_hostname=host) as tls:
            return _https_get(tls)

    return fetch


def _python_socks_sync_v2(url: str) -> Fetch:
    from python_socks.sync.v2 import Proxy

    def fetch(host: str, port: int) -> str:
        context = ssl.create_default_context()
        proxy = Proxy.from_url(url, rdns=True)
        stream = proxy.connect(host, port, dest_ssl=context, timeout=10)
        try:
            # write_all before python-socks 2.5, write after.
            write = getattr(stream, "write_all", None) or stream.write
            write(b"GET / HTTP/1.0\r\nHost: localhost\r\n\r\n")
            data = b""
            while chunk := stream.read(65536):
                data += chunk
            return data.split(b"\r\n\r\n", 1)[1].decode()
        finally:
            stream.close()

    return fetch


def _python_socks_asyncio(url: str) -> Fetch:
    from python_socks.async_.asyncio import Proxy

    def fetch(host: str, port: int) -> str:
        async def main() -> str:
            sock = await Proxy.from_url(url, rdns=True).connect(host, port, timeout=10)
            context = ssl.create_default_context()
            reader, writer = await asyncio.open_connection(
                sock=sock, ssl=context, server_hostname=host
            )
            writer.write(b"GET / HTTP/1.0\r\nHost: localhost\r\n\r\n")
            data = await reader.read()
            writer.close()
            return data.split(b"\r\n\r\n", 1)[1].decode()

        return asyncio.run(main())

    return fetch


def _python_socks_asyncio_v2(url: str) -> Fetch:
    from python_socks.async_.asyncio.v2 import Proxy

    def fetch(host: str, port: int) -> str:
        async def main() -> str:
            context = ssl.create_default_context()
            stream = await Proxy.from_url(url, rdns=True).connect(
                host, port, dest_ssl=context, timeout=10
            )
            try:
                # write_all before python-socks 2.5, write after.
                write = getattr(stream, "write_all", None) or stream.write
                await write(b"GET / HTTP/1.0\r\nHost: localhost\r\n\r\n")
                data = b""
                while chunk := await stream.read(65536):
                    data += chunk
                return data.split(b"\r\n\r\n", 1)[1].decode()
            finally:
                await stream.close()

        return asyncio.run(main())

    return fetch


def _aiohttp_socks(url: str) -> Fetch:
    import aiohttp
    from aiohttp_socks import ProxyConnector

    def fetch(host: str, port: int) -> str:
        async def main() -> str:
            connector = ProxyConnector.from_url(url, rdns=True)
            async with (
                aiohttp.ClientSession(connector=connector) as session,
                session.get(f"https://{host}:{port}/") as response,
            ):
                return await response.text()

        try:
            return asyncio.run(main())
        finally:
            gc.collect()  # what aiohttp-socks leaves unclosed is collected in this test

    return fetch


@pytest.mark.parametrize(
    "client",
    [
        pytest.param(_python_socks_sync, id="sync"),
        pytest.param(_python_socks_sync_v2, id="sync-v2"),
        pytest.param(_python_socks_asyncio, id="asyncio"),
        pytest.param(_python_socks_asyncio_v2, id="asyncio-v2"),
        # aiohttp-socks 0.12 leaves the proxy's transport unclosed when the TLS connection in
        # it fails (the twin's rejection): a ResourceWarning at some later collection.
        pytest.param(
            _aiohttp_socks,
            id="aiohttp-socks",
            marks=pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning"),
        ),
    ],
)
def test_python_socks_states_the_destination(
    pki: _pki.TestPKI,
    https_server: StartServer,
    enforce: Callable[[str], None],
    socks5: tuple[str, list[str]],
    client: Callable[[str], Fetch],
) -> None:
    """Through python-socks (and aiohttp-socks) the destination's port counts, not the proxy's.

    The attack twin: a MITM on the destination presenting the key pinned for the proxy's
    port is refused.
    """
    _server_port_counts(client(socks5[0]), socks5, pki, https_server, enforce)


def test_a_proxied_socket_is_forgotten_once_wrapped(
    pki: _pki.TestPKI,
    https_server: StartServer,
    enforce: Callable[[str], None],
    socks5: tuple[str, list[str]],
) -> None:
    """The destination remembered for a python-socks socket is asked once, then forgotten.

    A later socket with the same descriptor and addresses (reused after a close) cannot
    inherit the destination: its TLS connection gets its own peer's port.
    """
    from python_socks.sync import Proxy

    from sslcustomize._connection import _target

    appliance = pki["self_signed"]
    server = https_server(appliance, "localhost")
    enforce(_pinned(server[1], appliance.pin))
    sock = Proxy.from_url(socks5[0], rdns=True).connect("localhost", server[1], timeout=10)
    assert _target.proxied_target(sock) == _target.Target(
        host="localhost", port=server[1], proxy=("127.0.0.1", _port(socks5[0])),
        proxy_kind="socks5",
    )  # fmt: skip
    assert _target.proxied_target(sock) is None
    # Forgotten: wrapped now, the socket's peer is the proxy, whose port no exception covers.
    with pytest.raises(sslcustomize.CertificateRejected) as caught:
        ssl.create_default_context().wrap_socket(sock, server_hostname="localhost")
    assert caught.value.reasons == ("self_signed",)
    assert caught.value.port == _port(socks5[0])
    sock.close()
