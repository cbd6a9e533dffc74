"""requests, urllib3, httpx and aiohttp verify under the policy, against real loopback servers.

In this process, with ``inject(policy)``: the policy trusts only the test root (no
``REQUESTS_CA_BUNDLE``, no ``SSL_CERT_FILE``), so each library's own default (certifi) would
reject the good server and accept nothing the policy rejects. Every success has its failure
twin. Import order and the ``.pth`` hook are in ``test_thirdparty_startup.py``.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
import ssl
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import aiohttp
import httpx
import pytest
import requests
import trustme
import urllib3

import _pki
import _servers
import sslcustomize
from _fixtures import WritePolicy, wrapped_rejection
from sslcustomize._runtime import _state

if TYPE_CHECKING:
    from conftest import StartServer

Fetch = Callable[..., str]


def _requests(url: str, *, verify: Any = True, cert: Any = None) -> str:
    with requests.Session() as session:
        return session.get(url, timeout=10, verify=verify, cert=cert).text


def _urllib3(url: str, *, verify: Any = True, cert: Any = None) -> str:
    options: dict[str, Any] = {"cert_reqs": "CERT_NONE" if verify is False else "CERT_REQUIRED"}
    if isinstance(verify, str):
        options["ca_certs"] = verify
    if cert:
        options["cert_file"], options["key_file"] = cert
    with urllib3.PoolManager(retries=False, timeout=10, **options) as pool:
        return pool.request("GET", url).data.decode()


def _httpx_verify(verify: Any, cert: Any) -> Any:
    if isinstance(verify, str) or cert:
        context = ssl.create_default_context(cafile=verify if isinstance(verify, str) else None)
        if cert:
            context.load_cert_chain(*cert)
        return context
    return verify


def _httpx(url: str, *, verify: Any = True, cert: Any = None) -> str:
    with httpx.Client(verify=_httpx_verify(verify, cert), timeout=10) as client:
        return client.get(url).text


def _httpx_async(url: str, *, verify: Any = True, cert: Any = None) -> str:
    async def main() -> str:
        async with httpx.AsyncClient(verify=_httpx_verify(verify, cert), timeout=10) as client:
            return (await client.get(url)).text

    return asyncio.run(main())


def _aiohttp(url: str, *, verify: Any = True, cert: Any = None) -> str:
    ssl_option: Any = True if verify is True else verify
    if isinstance(verify, str) or cert:
        ssl_option = ssl.create_default_context(cafile=verify if isinstance(verify, str) else None)
        if cert:
            ssl_option.load_cert_chain(*cert)

    async def main() -> str:
        async with aiohttp.ClientSession() as session, session.get(url, ssl=ssl_option) as r:
            return await r.text()

    return asyncio.run(main())


CLIENTS: dict[str, Fetch] = {
    "requests": _requests,
    "urllib3": _urllib3,
    "httpx": _httpx,
    "httpx-async": _httpx_async,
    "aiohttp": _aiohttp,
}


def reasons(fetch: Fetch, url: str, **options: Any) -> tuple[str, ...]:
    """Fetch; return () on success, else the rejection's reasons (fail if not a rejection)."""
    try:
        assert fetch(url, **options) == "ok"
    except Exception as error:
        found = wrapped_rejection(error)
        if found is None:
            raise
        return found.reasons
    return ()


@pytest.fixture
def root_file(pki: _pki.TestPKI, tmp_path: Path) -> Path:
    """The test root as a PEM file."""
    path = tmp_path / "root.pem"
    path.write_bytes(pki.root_pem)
    return path


@pytest.fixture
def enforce(root_file: Path, write_policy: WritePolicy) -> Callable[[str], None]:
    """Inject a policy trusting the test root, plus the given TOML."""

    def inject(extra: str = "") -> None:
        sslcustomize.inject(write_policy(f"trust = ['{root_file}']\n{extra}"))

    return inject


@pytest.fixture(autouse=True)
def _no_urllib3_insecure_warning() -> Iterator[None]:
    """urllib3 warns on every unverified request; these tests look at sslcustomize's warnings."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", urllib3.exceptions.InsecureRequestWarning)
        yield


@pytest.mark.parametrize("client", sorted(CLIENTS))
def test_policy_root_trusted_and_failures_rejected(
    client: str, pki: _pki.TestPKI, https_server: StartServer, enforce: Callable[[str], None]
) -> None:
    """The policy's CA is trusted; self-signed, wrong host and expired are rejected."""
    enforce("")
    fetch = CLIENTS[client]
    assert reasons(fetch, https_server(pki["good"], "localhost").url()) == ()
    for case in ("self_signed", "wrong_host", "expired"):
        url = https_server(pki[case], "localhost").url()
        assert reasons(fetch, url) == (pki[case].reason,), case


@pytest.mark.parametrize("client", sorted(CLIENTS))
def test_library_default_without_policy_rejects_the_corporate_ca(
    client: str, pki: _pki.TestPKI, https_server: StartServer
) -> None:
    """Without sslcustomize, each library (certifi) rejects the test root's server."""
    url = https_server(pki["good"], "localhost").url()
    with pytest.raises(Exception) as caught:  # noqa: PT011 - each library has its own type
        CLIENTS[client](url)
    assert "CERTIFICATE_VERIFY_FAILED" in repr(caught.value) or "certificate verify" in repr(
        caught.value
    )


@pytest.mark.parametrize("client", sorted(CLIENTS))
def test_pinned_self_signed_host(
    client: str, pki: _pki.TestPKI, https_server: StartServer, enforce: Callable[[str], None]
) -> None:
    """A pin exception accepts a self-signed host; a wrong pin rejects it."""
    url = https_server(pki["self_signed"], "localhost").url()
    pin = pki["self_signed"].pin
    enforce(f"[[exception]]\nhost = 'localhost'\npin = ['{pin}']\nreason = 'test'\n")
    assert reasons(CLIENTS[client], url) == ()
    wrong = "sha256/" + "A" * 43 + "="
    enforce(f"[[exception]]\nhost = 'localhost'\npin = ['{wrong}']\nreason = 'test'\n")
    assert reasons(CLIENTS[client], url)[0] == "pin_mismatch"


def test_requests_import_time_context_trusts_the_policy(
    pki: _pki.TestPKI,
    https_server: StartServer,
    enforce: Callable[[str], None],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """requests 2.32.0-2.32.4's context made at import (certifi's) gives way to the policy's."""
    enforce("")
    # What requests 2.32.0-2.32.4 do: one context made at import with certifi's bundle,
    # handed to every pool for verify=True.
    preloaded = urllib3.util.ssl_.create_urllib3_context()
    preloaded.load_verify_locations(requests.utils.DEFAULT_CA_BUNDLE_PATH)
    monkeypatch.setattr(requests.adapters, "_preloaded_ssl_context", preloaded, raising=False)
    original = requests.adapters._urllib3_request_context

    def as_in_2_32(*args: Any) -> tuple[dict[str, Any], dict[str, Any]]:
        host, pool = original(*args)
        if args[1] is True and args[2] is None:
            pool["ssl_context"] = preloaded
        return host, pool

    monkeypatch.setattr(requests.adapters, "_urllib3_request_context", as_in_2_32)
    contexts = []
    for _ in range(2):
        url = https_server(pki["good"], "localhost").url()
        with requests.Session() as session:
            # The test root is in no certifi bundle: only the policy's anchors accept it.
            assert session.get(url, timeout=10).text == "ok"
            request = requests.Request("GET", url).prepare()
            adapter = session.get_adapter(url)
            assert isinstance(adapter, requests.adapters.HTTPAdapter)
            pool = adapter.get_connection_with_tls_context(request, True)
            contexts.append(pool.conn_kw["ssl_context"])
    assert contexts[0] is contexts[1]  # shared by requests' pools, as requests shares its own
    assert contexts[0] is not preloaded
    for case in ("self_signed", "wrong_host", "expired"):
        url = https_server(pki[case], "localhost").url()
        assert reasons(_requests, url) == (pki[case].reason,), case


def _records(path: Path) -> list[dict[str, Any]]:
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines()]


@pytest.mark.parametrize("client", sorted(CLIENTS))
def test_report_mode_proceeds_and_records(
    client: str,
    pki: _pki.TestPKI,
    https_server: StartServer,
    root_file: Path,
    write_policy: WritePolicy,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Report mode: what only the policy refuses connects and is recorded; what Python refuses not.

    Python's own store (SSL_CERT_FILE) trusts the test root; the policy trusts another CA only,
    and ignores SSL_CERT_FILE because the system layer locks trust. A good certificate then
    fails only the policy: report mode lets it through with a record, enforce mode rejects it.
    An expired one fails Python's own verification too: report mode refuses it as the library
    alone would.
    """
    monkeypatch.setenv("SSL_CERT_FILE", str(root_file))
    other = tmp_path / "other-ca.pem"
    other.write_bytes(trustme.CA().cert_pem.bytes())
    system = write_policy(f"trust = ['{other}']\nlock = ['trust']\n")
    monkeypatch.setattr("sslcustomize._support._bootstrap.SYSTEM_POLICY", str(system))
    sink = tmp_path / "r.jsonl"
    good = https_server(pki["good"], "localhost").url()
    expired = https_server(pki["expired"], "localhost").url()
    # Not quiet, which a system layer makes the default: the warning is looked at here.
    base = f"[report]\nsink = 'jsonl'\npath = '{sink}'\nquiet = false\n"
    monkeypatch.setenv("SSLCUSTOMIZE_POLICY", str(write_policy("mode = 'report'\n" + base)))
    sslcustomize.inject()
    with pytest.warns(sslcustomize.UnverifiedConnectionWarning):
        assert reasons(CLIENTS[client], good) == ()
    (record,) = [r for r in _records(sink) if r["verdict"] != "ignored"]
    assert record["reasons"] == ["unknown_issuer"]
    assert record["context"].split(".")[0] == client.split("-", maxsplit=1)[0]
    assert "expired" in reasons(CLIENTS[client], expired)
    monkeypatch.setenv("SSLCUSTOMIZE_POLICY", str(write_policy(base)))
    _state.set_policy(None)
    assert reasons(CLIENTS[client], good) == ("unknown_issuer",)


@pytest.mark.parametrize("client", sorted(CLIENTS))
def test_verify_false_obeyed_or_refused(
    client: str,
    pki: _pki.TestPKI,
    https_server: StartServer,
    enforce: Callable[[str], None],
    tmp_path: Path,
) -> None:
    """verify=False is a recorded code opt-out; refused where allow_code_opt_out = false."""
    sink = tmp_path / "r.jsonl"
    url = https_server(pki["self_signed"], "localhost").url()
    enforce(f"[report]\nsink = 'jsonl'\npath = '{sink}'\n")
    with warnings.catch_warnings():  # the libraries' own (InsecureRequestWarning), not ours
        warnings.simplefilter("ignore")
        warnings.simplefilter("error", sslcustomize.SSLCustomizeWarning)
        assert reasons(CLIENTS[client], url, verify=False) == ()
    (record,) = _records(sink)
    assert record["reasons"] == ["code_opt_out", "self_signed"]
    enforce("allow_code_opt_out = false\n")
    assert reasons(CLIENTS[client], url, verify=False) == ("self_signed",)


@pytest.mark.parametrize("client", sorted(CLIENTS))
def test_verify_path_replaces_the_anchors(
    client: str,
    pki: _pki.TestPKI,
    https_server: StartServer,
    write_policy: WritePolicy,
    root_file: Path,
    tmp_path: Path,
) -> None:
    """verify=PATH (ssl=ctx for aiohttp) trusts PATH instead of the policy's anchors."""
    sslcustomize.inject(write_policy("version = 1\n"))  # the system store, not the test root
    url = https_server(pki["good"], "localhost").url()
    assert reasons(CLIENTS[client], url, verify=str(root_file)) == ()
    foreign = tmp_path / "foreign.pem"
    foreign.write_bytes(pki.foreign_root_pem)
    assert reasons(CLIENTS[client], url, verify=str(foreign)) == ("unknown_issuer",)


# asyncio before 3.11 leaks the transport of a connection the server aborts after a TLS 1.3
# handshake (the twin without a client certificate); that is asyncio's, not under test here.
@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")
@pytest.mark.filterwarnings("ignore::ResourceWarning")
@pytest.mark.parametrize("client", sorted(CLIENTS))
def test_client_certificate(
    client: str,
    pki: _pki.TestPKI,
    https_server: StartServer,
    enforce: Callable[[str], None],
    tmp_path: Path,
) -> None:
    """Mutual TLS still works: the server sees the client certificate; without it, no access."""
    enforce("")
    url = https_server(pki["good"], "localhost", client_ca_pem=pki.client_cert.ca_pem).url()
    cert = tuple(map(str, pki.client_cert.write(tmp_path)))
    assert reasons(CLIENTS[client], url, cert=cert) == ()
    with pytest.raises(Exception):  # noqa: B017, PT011 - the server drops the connection
        CLIENTS[client](url)


# -- websockets, HTTP/2, proxies ---------------------------------------------------------------


def _websockets_async(url: str) -> str:
    from websockets.asyncio.client import connect

    async def main() -> str:
        async with connect(url, open_timeout=30) as websocket:
            await websocket.send("ok")
            return str(await websocket.recv())

    return asyncio.run(main())


def _websockets_sync(url: str) -> str:
    from websockets.sync.client import connect

    with connect(url, open_timeout=30) as websocket:
        websocket.send("ok")
        return str(websocket.recv())


@pytest.mark.parametrize("fetch", [_websockets_async, _websockets_sync])
def test_websockets(
    fetch: Fetch, wss_server: Callable[[str], str], enforce: Callable[[str], None]
) -> None:
    """websockets (wss://, ssl=True by default) trusts the policy's CA and rejects self-signed."""
    enforce("")
    assert reasons(fetch, wss_server("good")) == ()
    assert reasons(fetch, wss_server("self_signed")) == ("self_signed",)


@pytest.fixture
def h2_server(pki: _pki.TestPKI) -> Iterator[Callable[[str], str]]:
    """``h2_server(case)``: an HTTP/2-only server (h2, ALPN "h2") answering "ok"; its URL."""
    with contextlib.ExitStack() as stack:

        def start(case: str) -> str:
            address = stack.enter_context(_servers.serve_h2(_servers.server_context(pki[case])))
            return f"https://localhost:{address.port}/"

        yield start


def test_httpx_http2_alpn(h2_server: Callable[[str], str], enforce: Callable[[str], None]) -> None:
    """httpx with http2=True negotiates h2 over a policy context; a self-signed h2 server fails."""
    enforce("")
    with httpx.Client(http2=True, timeout=10) as client:
        response = client.get(h2_server("good"))
        assert (response.http_version, response.text) == ("HTTP/2", "ok")
        with pytest.raises(httpx.ConnectError) as caught:
            client.get(h2_server("self_signed"))
    found = wrapped_rejection(caught.value)
    assert found is not None
    assert found.reasons == ("self_signed",)


@pytest.fixture
def connect_proxy() -> Iterator[tuple[str, list[str]]]:
    """A minimal HTTP CONNECT proxy on loopback: its URL, and the targets it tunnelled to."""
    with _servers.connect_proxy() as proxy:
        yield proxy


def _requests_via(proxy: str) -> Fetch:
    def via_requests(url: str) -> str:
        with requests.Session() as session:
            return session.get(url, proxies={"https": proxy}, timeout=10).text

    return via_requests


def _httpx_via(proxy: str) -> Fetch:
    def via_httpx(url: str) -> str:
        with httpx.Client(proxy=proxy, timeout=10) as client:
            return client.get(url).text

    return via_httpx


def test_requests_and_httpx_through_a_connect_proxy(
    pki: _pki.TestPKI,
    https_server: StartServer,
    enforce: Callable[[str], None],
    connect_proxy: tuple[str, list[str]],
) -> None:
    """Through an HTTP CONNECT proxy, requests and httpx still verify under the policy."""
    proxy, tunnelled = connect_proxy
    enforce("")
    good = https_server(pki["good"], "localhost").url()
    bad = https_server(pki["self_signed"], "localhost").url()

    via_requests, via_httpx = _requests_via(proxy), _httpx_via(proxy)

    for fetch in (via_requests, via_httpx):
        assert reasons(fetch, good) == ()
        assert reasons(fetch, bad) == ("self_signed",)
    assert len(tunnelled) == 4


# --- Port-scoped exceptions: sockets wrapped before connect(), CONNECT tunnels -------------------


def _pinned_on(port: int, pin: str) -> str:
    return f"[[exception]]\nhost = 'localhost:{port}'\npin = ['{pin}']\nreason = 'appliance'\n"


def _wrapped_before_connect(port: int) -> str:

    context = ssl.create_default_context()
    with context.wrap_socket(socket.socket(), server_hostname="localhost") as tls:
        tls.settimeout(10)
        tls.connect(("127.0.0.1", port))
        return str(tls.version())


def test_port_exception_applies_to_a_socket_wrapped_before_connect(
    pki: _pki.TestPKI, https_server: StartServer, enforce: Callable[[str], None]
) -> None:
    """wrap_socket() then connect(): the exception of the port connected to applies.

    The twin: the same key served on another port is not covered (the port is the one
    connect() reaches, not ignored).
    """
    appliance = pki["self_signed"]
    pinned, other = https_server(appliance, "localhost"), https_server(appliance, "localhost")
    enforce(_pinned_on(pinned[1], appliance.pin))
    assert _wrapped_before_connect(pinned[1]).startswith("TLS")
    with pytest.raises(sslcustomize.CertificateRejected) as caught:
        _wrapped_before_connect(other[1])
    assert caught.value.reasons == ("self_signed",)


def test_port_exception_through_a_connect_proxy_is_the_servers(
    pki: _pki.TestPKI,
    https_server: StartServer,
    enforce: Callable[[str], None],
    connect_proxy: tuple[str, list[str]],
) -> None:
    """Through a CONNECT tunnel the server's port counts, never the proxy's.

    An exception for the proxy's port (localhost:PROXY) used to cover every host tunnelled
    through it under the same name: the MITM twin below is rejected.
    """
    import http.client

    proxy, tunnelled = connect_proxy
    proxy_port = int(proxy.rsplit(":", 1)[1])
    appliance = pki["self_signed"]
    server = https_server(appliance, "localhost")
    url = server.url()

    def via_http_client(url: str) -> str:
        connection = http.client.HTTPSConnection("127.0.0.1", proxy_port, timeout=10)
        connection.set_tunnel("localhost", server[1])
        try:
            connection.request("GET", "/")
            return connection.getresponse().read().decode()
        finally:
            connection.close()

    via_requests, via_httpx = _requests_via(proxy), _httpx_via(proxy)

    def via_httpx_async(url: str) -> str:
        async def fetch() -> str:
            async with httpx.AsyncClient(proxy=proxy, timeout=10) as client:
                return (await client.get(url)).text

        return asyncio.run(fetch())

    def via_aiohttp(url: str) -> str:
        async def fetch() -> str:
            async with aiohttp.ClientSession() as session, session.get(url, proxy=proxy) as r:
                return await r.text()

        return asyncio.run(fetch())

    # httpx's AsyncClient too: anyio makes the TLS object in a worker thread, which runs in a
    # copy of the context where httpcore's hook stated the tunnel's target.
    every = (via_http_client, via_requests, via_httpx, via_aiohttp, via_httpx_async)
    enforce(_pinned_on(server[1], appliance.pin))
    assert [reasons(fetch, url) for fetch in every] == [()] * len(every)
    enforce(_pinned_on(proxy_port, appliance.pin))
    assert [reasons(fetch, url) for fetch in every] == [("self_signed",)] * len(every)
    assert len(tunnelled) == 2 * len(every)


@pytest.fixture
def socks5_proxy() -> Iterator[tuple[str, list[str]]]:
    """A minimal SOCKS5 proxy on loopback (no authentication, CONNECT): its URL and targets."""
    with _servers.socks5_proxy() as proxy:
        yield proxy


def test_port_exception_through_websockets_and_socks_proxies_is_the_servers(
    pki: _pki.TestPKI,
    https_server: StartServer,
    wss_server: Callable[[str], str],
    enforce: Callable[[str], None],
    connect_proxy: tuple[str, list[str]],
    socks5_proxy: tuple[str, list[str]],
) -> None:
    """websockets through a CONNECT proxy, requests through SOCKS5: the server's port counts.

    An exception for the proxy's port used to cover every server reached through it under
    the same name (the MITM twin below is rejected); one for the server's own port applies.
    """
    import sys

    from websockets.asyncio.client import connect

    proxy, tunnelled = connect_proxy
    socks, socks_tunnelled = socks5_proxy
    appliance = pki["self_signed"]
    wss = wss_server("self_signed")
    wss_port = int(wss.rsplit(":", 1)[1].strip("/"))
    https = https_server(appliance, "localhost")

    def via_websockets(url: str) -> str:
        async def main() -> str:
            async with connect(url, proxy=proxy, open_timeout=30) as websocket:
                await websocket.send("ok")
                return str(await websocket.recv())

        return asyncio.run(main())

    def via_socks(url: str) -> str:
        with requests.Session() as session:
            return session.get(url, proxies={"https": socks}, timeout=10).text

    def pinned(*where: str) -> str:
        return "".join(
            f"[[exception]]\nhost = '{w}'\npin = ['{appliance.pin}']\nreason = 'appliance'\n"
            for w in where
        )

    proxy_port, socks_port = (int(url.rsplit(":", 1)[1]) for url in (proxy, socks))
    enforce(pinned(f"127.0.0.1:{wss_port}", f"localhost:{https[1]}"))
    # 3.10 starts TLS through the tunnel from a loop callback, away from websockets' frames:
    # the port is not known there, so a port-scoped exception does not apply (fail strict).
    known = sys.version_info >= (3, 11)
    assert reasons(via_websockets, wss) == (() if known else ("self_signed",))
    assert reasons(via_socks, https.url()) == ()
    enforce(pinned(f"127.0.0.1:{proxy_port}", f"localhost:{socks_port}"))
    assert reasons(via_websockets, wss) == ("self_signed",)
    assert reasons(via_socks, https.url()) == ("self_signed",)
    assert tunnelled == [f"127.0.0.1:{wss_port}"] * 2
    assert socks_tunnelled == [f"127.0.0.1:{https[1]}"] * 2  # socks5: resolved here
