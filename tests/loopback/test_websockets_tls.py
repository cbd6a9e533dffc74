"""websockets' TLS client under the policy: the cases of its own client tests (issue 31).

websockets' sdist carries no tests, so its TLS client cases are covered here, on loopback:
``wss://`` with the default context (``ssl.create_default_context()``, which the hook
replaces) and with the code's own, ``server_hostname`` given explicitly, a server the policy
does not trust, and a CONNECT proxy, tunnelling (legitimate) or intercepting (the attack),
for both its asyncio and its sync client.
"""

from __future__ import annotations

import asyncio
import contextlib
import ssl
import threading
from typing import TYPE_CHECKING, Any

import pytest
import websockets.asyncio.client
import websockets.sync.client
import websockets.sync.server

import _pki
import sslcustomize
from _proxy import serve_proxy
from _servers import server_context

if TYPE_CHECKING:
    from collections.abc import Iterator
    from pathlib import Path

    from _fixtures import WritePolicy

# A handshake on a loaded machine can take seconds; this only bounds a hang.
OPEN_TIMEOUT = 30


def _echo(connection: websockets.sync.server.ServerConnection) -> None:
    for message in connection:
        connection.send(message)


@contextlib.contextmanager
def _ws_server(case: _pki.CertCase) -> Iterator[int]:
    """Serve ``wss://`` on 127.0.0.1 presenting ``case``, echoing messages; yield its port."""
    server = websockets.sync.server.serve(_echo, "127.0.0.1", 0, ssl=server_context(case))
    thread = threading.Thread(target=server.serve_forever)
    thread.start()
    try:
        yield server.socket.getsockname()[1]
    finally:
        server.shutdown()
        thread.join()


def _sync(url: str, **options: Any) -> str:
    with websockets.sync.client.connect(url, open_timeout=OPEN_TIMEOUT, **options) as ws:
        ws.send("ping")
        return str(ws.recv())


def _asyncio(url: str, **options: Any) -> str:
    async def main() -> str:
        async with websockets.asyncio.client.connect(
            url, open_timeout=OPEN_TIMEOUT, **options
        ) as ws:
            await ws.send("ping")
            return str(await ws.recv())

    return asyncio.run(main())


CLIENTS = {"sync": _sync, "asyncio": _asyncio}


@pytest.fixture
def root_file(pki: _pki.TestPKI, tmp_path: Path) -> Path:
    """The test root as a PEM file."""
    path = tmp_path / "root.pem"
    path.write_bytes(pki.root_pem)
    return path


@pytest.fixture
def enforce(root_file: Path, write_policy: WritePolicy) -> None:
    """Inject an enforce policy trusting the test root only (no proxy variables: conftest)."""
    sslcustomize.inject(write_policy(f"version = 1\ntrust = ['{root_file}']\n"))


@pytest.mark.usefixtures("enforce")
@pytest.mark.parametrize("client", sorted(CLIENTS))
def test_wss_to_a_server_the_policy_trusts(client: str, pki: _pki.TestPKI) -> None:
    """The default context (ssl.create_default_context) trusts the policy's CA."""
    with _ws_server(pki["good"]) as port:
        assert CLIENTS[client](f"wss://localhost:{port}/") == "ping"


@pytest.mark.usefixtures("enforce")
@pytest.mark.parametrize("client", sorted(CLIENTS))
@pytest.mark.parametrize("case", ["self_signed", "wrong_host", "expired"])
def test_wss_to_a_server_the_policy_refuses(client: str, case: str, pki: _pki.TestPKI) -> None:
    """A self-signed, wrong-host or expired server: the ssl error websockets' callers catch."""
    with _ws_server(pki[case]) as port, pytest.raises(ssl.SSLCertVerificationError) as caught:
        CLIENTS[client](f"wss://localhost:{port}/")
    assert isinstance(caught.value, sslcustomize.CertificateRejected)


@pytest.mark.usefixtures("enforce")
@pytest.mark.parametrize("client", sorted(CLIENTS))
def test_a_refusal_keeps_openssls_words(client: str, pki: _pki.TestPKI) -> None:
    """Code that matches 'certificate verify failed' (websockets' tests do) still finds it."""
    with _ws_server(pki["self_signed"]) as port, pytest.raises(ssl.SSLError) as caught:
        CLIENTS[client](f"wss://localhost:{port}/")
    assert "certificate verify failed" in str(caught.value)


@pytest.mark.usefixtures("enforce")
@pytest.mark.parametrize("client", sorted(CLIENTS))
def test_server_hostname_is_the_name_checked(client: str, pki: _pki.TestPKI) -> None:
    """wss://127.0.0.1 with server_hostname='localhost' passes; another name is refused."""
    with _ws_server(pki["good"]) as port:
        url = f"wss://127.0.0.1:{port}/"
        assert CLIENTS[client](url, server_hostname="localhost") == "ping"
        with pytest.raises(ssl.SSLCertVerificationError):
            CLIENTS[client](url, server_hostname="other.invalid")


@pytest.mark.parametrize("client", sorted(CLIENTS))
def test_the_codes_own_context_trusts_what_it_loaded(
    client: str, pki: _pki.TestPKI, root_file: Path, write_policy: WritePolicy
) -> None:
    """ssl=ctx with the code's CA file: accepted although the policy trusts only another CA."""
    other = _pki.TestPKI()
    bundle = root_file.with_name("other.pem")
    bundle.write_bytes(other.root_pem)
    sslcustomize.inject(write_policy(f"version = 1\ntrust = ['{bundle}']\n"))
    with _ws_server(pki["good"]) as port:
        url = f"wss://localhost:{port}/"
        own = ssl.create_default_context(cafile=str(root_file))
        assert CLIENTS[client](url, ssl=own) == "ping"
        with pytest.raises(ssl.SSLCertVerificationError):
            CLIENTS[client](url)  # the default context: the policy's CA only


@pytest.mark.usefixtures("enforce")
@pytest.mark.parametrize("client", sorted(CLIENTS))
def test_wss_through_a_tunnelling_proxy(client: str, pki: _pki.TestPKI) -> None:
    """A CONNECT proxy that relays bytes: the server's own certificate is verified, and passes."""
    with _ws_server(pki["good"]) as port, serve_proxy() as proxy:
        assert CLIENTS[client](f"wss://localhost:{port}/", proxy=proxy.url) == "ping"
        assert proxy.requests, "the connection did not go through the proxy"


@pytest.mark.usefixtures("enforce")
@pytest.mark.parametrize("client", sorted(CLIENTS))
def test_wss_through_an_intercepting_proxy_is_refused(client: str, pki: _pki.TestPKI) -> None:
    """A proxy answering TLS with its own CA (the MITM): refused under the policy."""
    import trustme

    with _ws_server(pki["good"]) as port, serve_proxy(intercept=trustme.CA()) as proxy:
        with pytest.raises(ssl.SSLCertVerificationError) as caught:
            CLIENTS[client](f"wss://localhost:{port}/", proxy=proxy.url)
        assert proxy.requests, "the connection did not go through the proxy"
    assert isinstance(caught.value, sslcustomize.CertificateRejected)
