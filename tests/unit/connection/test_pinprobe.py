"""When a pinned server is probed before the client certificate goes, and where the probe goes."""

from __future__ import annotations

import contextlib
import datetime as dt
import socket
import ssl
import threading
from collections.abc import Iterator

import pytest

from sslcustomize._connection import _pinprobe
from sslcustomize._connection._pinprobe import needs_probe
from sslcustomize._connection._target import Target
from sslcustomize._decision._decide import decide
from sslcustomize._decision._engine import Settings, settings_of
from sslcustomize._decision._plan import Plan, make_plan
from sslcustomize._policy._load import merge_layers
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


@pytest.mark.parametrize("kind", [None, "socks4", "https"])
def test_nothing_is_probed_through_a_proxy_of_unknown_kind_or_without_a_port(
    unconnected: socket.socket, kind: str | None
) -> None:
    """A proxy the probe cannot speak to (a direct probe would go around it), no port: none."""
    through = Target(host=HOST, port=443, proxy=("127.0.0.1", 3128), proxy_kind=kind)
    assert _pinprobe._probe_address(None, HOST, 443, through) is None
    assert _pinprobe._probe_address(unconnected, HOST, 443, through) is None
    assert _pinprobe._probe_address(None, HOST, None) is None
    assert _pinprobe._probe_address(None, None, 443) is None


@pytest.mark.parametrize("kind", ["http", "socks5"])
def test_a_memory_bio_through_a_known_proxy_is_probed_through_it(
    unconnected: socket.socket, kind: str
) -> None:
    """aiohttp's tunnel, asyncio through python-socks: to the proxy stated, for a tunnel."""
    through = Target(host=HOST, port=443, proxy=("127.0.0.1", 3128), proxy_kind=kind)
    where = _pinprobe._probe_address(None, HOST, 443, through)
    assert where == (("127.0.0.1", 3128), _pinprobe._PROBE_TIMEOUT, None, (kind, HOST, 443))
    unconnected.settimeout(4)
    where = _pinprobe._probe_address(unconnected, HOST, 443, through)
    assert where == (("127.0.0.1", 3128), 4, None, (kind, HOST, 443))


def test_a_socket_connected_to_the_stated_proxy_is_probed_through_its_peer() -> None:
    """python-socks' socket: its peer is the SOCKS5 proxy stated, asked for a tunnel."""
    with socket.create_server(("127.0.0.1", 0)) as listener:
        proxy_port = listener.getsockname()[1]
        with socket.create_connection(("127.0.0.1", proxy_port), timeout=5) as sock:
            through = Target(
                host=HOST, port=proxy_port, proxy=("localhost", proxy_port), proxy_kind="socks5"
            )
            proxied = _pinprobe._probe_address(sock, HOST, proxy_port, through)
            assert proxied is not None
            assert proxied[0][:2] == ("127.0.0.1", proxy_port)
            assert proxied[1:] == (5, socket.AF_INET, ("socks5", HOST, proxy_port))
            # The twin: without a stated proxy, a peer on the server's port is the server.
            direct = _pinprobe._probe_address(sock, HOST, proxy_port)
            assert direct is not None
            assert direct[1:] == (5, socket.AF_INET, None)


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


class _Proxy:
    """A scripted SOCKS5 proxy on a socketpair: one answer per message, what it was sent kept."""

    def __init__(self, *answers: bytes) -> None:
        self.answers = answers
        self.sent = b""

    def _serve(self, theirs: socket.socket) -> None:
        with contextlib.suppress(OSError):
            for answer in self.answers:
                self.sent += theirs.recv(1024)  # each of the probe's messages: one sendall
                theirs.sendall(answer)
            theirs.shutdown(socket.SHUT_WR)
            while chunk := theirs.recv(1024):
                self.sent += chunk

    def run(self, host: str = HOST, port: int = 8443) -> None:
        """Run the probe's exchange against the scripted answers; keep what the probe sent."""
        mine, theirs = socket.socketpair()
        with mine, theirs:
            mine.settimeout(5)
            theirs.settimeout(5)
            proxy = threading.Thread(target=self._serve, args=(theirs,))
            proxy.start()
            try:
                _pinprobe._socks5(mine, host, port)
            finally:
                mine.shutdown(socket.SHUT_WR)
                proxy.join(10)


_GREETING = b"\x05\x01\x00"  # version 5, one method: no authentication
_SUCCESS = b"\x05\x00\x00\x01" + bytes(6)


@pytest.mark.parametrize(
    ("host", "address"),
    [
        (HOST, b"\x03\x10" + HOST.encode()),
        ("127.0.0.1", b"\x01\x7f\x00\x00\x01"),
        ("[::1]", b"\x04" + bytes(15) + b"\x01"),
    ],
)
def test_a_probe_through_socks5_asks_for_a_tunnel_without_credentials(
    host: str, address: bytes
) -> None:
    """Only "no authentication" offered; CONNECT by name (an address literal as an address)."""
    proxy = _Proxy(b"\x05\x00", _SUCCESS)
    proxy.run(host, 8443)
    assert proxy.sent == _GREETING + b"\x05\x01\x00" + address + b"\x20\xfb"


@pytest.mark.parametrize(
    "reply",
    [
        _SUCCESS,
        b"\x05\x00\x00\x04" + bytes(18),  # bound to an IPv6 address
        b"\x05\x00\x00\x03\x05proxy\x01\xbb",  # bound to a name
    ],
)
def test_every_form_of_a_socks5_success_opens_the_tunnel(reply: bytes) -> None:
    """Each address type of RFC 1928's reply is read to its end, and no further."""
    proxy = _Proxy(b"\x05\x00", reply)
    proxy.run()
    assert proxy.sent.startswith(_GREETING)


@pytest.mark.parametrize(
    ("answers", "sends_request"),
    [
        ((b"\x05\xff",), False),  # no acceptable method: it wants credentials
        ((b"\x05\x02",), False),  # username and password, never offered: never sent
        ((b"\x04\x00",), False),  # not SOCKS5
        ((b"\x05\x00", b"\x05\x02\x00\x01" + bytes(6)), True),  # refused by its rules
        ((b"\x05\x00", b"\x05\x05\x00\x01" + bytes(6)), True),  # connection refused
        ((b"\x05",), False),  # a short greeting, then it closes
        ((b"\x05\x00", b"\x05\x00\x00\x01\x7f"), True),  # a short reply, then it closes
        ((b"\x05\x00", b"\x05\x00\x00\x07" + bytes(6)), True),  # an unknown address type
        ((b"\x05\x00\x00",), False),  # more than the greeting's answer
        ((b"\x05\x00", _SUCCESS + b"\x16\x03\x01"), True),  # bytes after the reply
        ((b"\x05\x00", _SUCCESS + bytes(4096)), True),  # an oversized reply
    ],
)
def test_a_socks5_proxy_that_does_not_open_a_plain_tunnel_fails_the_probe(
    answers: tuple[bytes, ...], sends_request: bool
) -> None:
    """Anything but "no authentication" and a success of the exact length fails the probe."""
    proxy = _Proxy(*answers)
    with pytest.raises(OSError, match="proxy"):
        proxy.run()
    # The greeting, and the request only once "no authentication" was chosen: never a
    # username and password (RFC 1929), whatever the proxy asked for.
    request = b"\x05\x01\x00\x03\x10" + HOST.encode() + b"\x20\xfb"
    assert proxy.sent == (_GREETING + request if sends_request else _GREETING)


@pytest.mark.parametrize("host", ["ü.example", "a" * 256, ""])
def test_a_name_socks5_cannot_carry_fails_the_probe(host: str) -> None:
    """Not ASCII, longer than 255 bytes or empty: nothing is asked."""
    proxy = _Proxy(b"\x05\x00", _SUCCESS)
    with pytest.raises(ValueError, match=r"SOCKS5|ascii"):
        proxy.run(host)
    assert proxy.sent == _GREETING
