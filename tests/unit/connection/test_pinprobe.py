"""When a pinned server is probed before the client certificate goes, and where the probe goes."""

from __future__ import annotations

import datetime as dt
import socket
import ssl
from collections.abc import Iterator

import pytest

from sslcustomize._connection import _pinprobe
from sslcustomize._connection._pinprobe import needs_probe
from sslcustomize._connection._target import Target, state, unstate
from sslcustomize._decision._decide import decide
from sslcustomize._decision._engine import Settings, settings_of
from sslcustomize._decision._plan import Plan, make_plan
from sslcustomize._policy._merge import merge_layers
from sslcustomize._trust._checked_policy import parse_policy

PIN = "sha256/" + "B" * 43 + "="
HOST = "nas.corp.example"


def _settings(*, client_certificate: bool) -> Settings:
    recipe = (("load_cert_chain", ("/client.pem",)),) if client_certificate else ()
    return settings_of(ssl.create_default_context(), recipe, (("load_default_certs", ()),))


def _plan(mode: str, *, client_certificate: bool, leaves: tuple[bytes, ...] = ()) -> Plan:
    text = f'mode = "{mode}"\n[[exception]]\nhost = "{HOST}"\npin = ["{PIN}"]\nreason = "t"\n'
    policy = merge_layers([parse_policy(text, path="/etc/p.toml", layer="user")])
    decision = decide(policy, host=HOST, port=443, context="app", today=dt.date(2026, 12, 3))
    settings = _settings(client_certificate=client_certificate)
    return make_plan(decision, settings, name="app", host=HOST, port=443, leaves=leaves)


@pytest.mark.parametrize("mode", ["enforce", "report"])
def test_a_first_mutual_tls_connection_to_a_pinned_host_is_probed(mode: str) -> None:
    """A client certificate, a pin, no leaf seen: probe first, in enforce and in report mode."""
    plan = _plan(mode, client_certificate=True)
    assert needs_probe(plan, _settings(client_certificate=True))


@pytest.mark.parametrize("mode", ["enforce", "report"])
def test_no_probe_once_the_leaf_is_known_or_without_a_certificate(mode: str) -> None:
    """The twins: the pinned leaf already learned, or nothing to send: no probe."""
    known = _plan(mode, client_certificate=True, leaves=(b"leaf",))
    assert not needs_probe(known, _settings(client_certificate=True))
    plain = _plan(mode, client_certificate=False)
    assert not needs_probe(plain, _settings(client_certificate=False))


@pytest.fixture
def unconnected() -> Iterator[socket.socket]:
    """A TCP socket not connected yet (wrapped before ``connect()``)."""
    with socket.socket() as sock:
        yield sock


def test_a_socket_not_yet_connected_is_probed_at_the_servers_name(
    unconnected: socket.socket,
) -> None:
    """No peer yet: the server's name and port, with the socket's timeout or a bounded one."""
    where = _pinprobe._probe_address(unconnected, HOST, 8443)
    assert where == ((HOST, 8443), _pinprobe._PROBE_TIMEOUT, None, None)
    unconnected.settimeout(3)
    assert _pinprobe._probe_address(unconnected, HOST, 8443) == ((HOST, 8443), 3, None, None)


def test_a_memory_bio_is_probed_at_the_servers_name() -> None:
    """asyncio and wrap_bio have no socket: the name and port, with a bounded timeout."""
    where = _pinprobe._probe_address(None, HOST, 443)
    assert where == ((HOST, 443), _pinprobe._PROBE_TIMEOUT, None, None)


def test_nothing_is_probed_through_a_tunnel_or_without_a_port(
    unconnected: socket.socket,
) -> None:
    """aiohttp's tunnel (the probe would go around the proxy), or no port, no name: no probe."""
    token = state(Target(host=HOST, port=443, proxy=("127.0.0.1", 3128)))
    try:
        assert _pinprobe._probe_address(None, HOST, 443) is None
        assert _pinprobe._probe_address(unconnected, HOST, 443) is None
    finally:
        unstate(token)
    assert _pinprobe._probe_address(None, HOST, None) is None
    assert _pinprobe._probe_address(None, None, 443) is None


def test_a_socket_whose_peer_is_not_the_server_is_not_probed() -> None:
    """A connected socket whose peer has no port of the server's (here AF_UNIX): no probe."""
    mine, peer = socket.socketpair()
    with mine, peer:
        assert _pinprobe._probe_address(mine, HOST, 443) is None


@pytest.mark.parametrize(
    ("answer", "opened"),
    [
        (b"HTTP/1.1 200 Connection established\r\n\r\n", True),
        (b"HTTP/1.0 200 OK\r\nProxy-Agent: x\r\n\r\n", True),
        (b"HTTP/1.1 407 Proxy Authentication Required\r\n\r\n", False),
        (b"\x05\xff", False),  # a SOCKS5 server's refusal, then it closes
        (b"HTTP/1.1 200 OK\r\n\r\n\x16\x03\x01", False),  # bytes after the answer
    ],
)
def test_a_probe_through_a_proxy_asks_for_its_own_tunnel(answer: bytes, opened: bool) -> None:
    """CONNECT host:port; only a plain 200 opens the tunnel, anything else fails the probe."""
    mine, proxy = socket.socketpair()
    with mine, proxy:
        mine.settimeout(5)
        proxy.sendall(answer)
        proxy.shutdown(socket.SHUT_WR)
        if opened:
            _pinprobe._tunnel(mine, "[::1]:8443")
        else:
            with pytest.raises(OSError, match="proxy"):
                _pinprobe._tunnel(mine, "[::1]:8443")
        assert proxy.recv(100) == b"CONNECT [::1]:8443 HTTP/1.1\r\nHost: [::1]:8443\r\n\r\n"
