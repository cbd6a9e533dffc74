"""Mutual TLS to a pinned host on every connection path, in report mode and in enforce.

A server that requires a client certificate must get it wherever Python itself would send
it (report mode never breaks a connection that succeeds without sslcustomize), and wherever
the server holds the pinned key (enforce); a MITM with a certificate from its own CA never
gets it, and is refused. Each client runs in a fresh interpreter through the ``.pth`` hook.
"""

from __future__ import annotations

import json
import re
import socket
import ssl
from collections.abc import Iterator
from pathlib import Path

import pytest
import trustme

from _proxy import serve_proxy
from _servers import connect_proxy, socks5_proxy
from test_connection_path import Recorder, World, _pin_of, client

PATHS = """
import asyncio, http.client, select

def blocking(ctx, port):
    sock = socket.create_connection(("127.0.0.1", port), timeout=10)
    with ctx.wrap_socket(sock, server_hostname="127.0.0.1") as tls:
        tls.sendall(b"x\\n"); return tls.recv(3).decode().strip()

def deferred(ctx, port):
    sock = socket.create_connection(("127.0.0.1", port), timeout=10)
    with ctx.wrap_socket(sock, server_hostname="127.0.0.1", do_handshake_on_connect=False) as tls:
        tls.do_handshake(); tls.sendall(b"x\\n"); return tls.recv(3).decode().strip()

def nonblocking(ctx, port):
    sock = socket.create_connection(("127.0.0.1", port), timeout=10)
    sock.setblocking(False)
    with ctx.wrap_socket(sock, server_hostname="127.0.0.1", do_handshake_on_connect=False) as tls:
        while True:
            try:
                tls.do_handshake()
                break
            except ssl.SSLWantReadError:
                select.select([tls], [], [], 10)
            except ssl.SSLWantWriteError:
                select.select([], [tls], [], 10)
        tls.settimeout(10)
        tls.sendall(b"x\\n"); return tls.recv(3).decode().strip()

def preconnect(ctx, port):
    with ctx.wrap_socket(socket.socket(), server_hostname="127.0.0.1") as tls:
        tls.settimeout(10)
        tls.connect(("127.0.0.1", port))
        tls.sendall(b"x\\n"); return tls.recv(3).decode().strip()

def memory(ctx, port):
    sock = socket.create_connection(("127.0.0.1", port), timeout=10)
    incoming, outgoing = ssl.MemoryBIO(), ssl.MemoryBIO()
    tls = ctx.wrap_bio(incoming, outgoing, server_hostname="127.0.0.1")
    def step(call, *arguments):
        while True:
            try:
                result = call(*arguments)
                sock.sendall(outgoing.read())
                return result
            except ssl.SSLWantReadError:
                sock.sendall(outgoing.read())
                data = sock.recv(65536)
                if not data:
                    raise ConnectionResetError("closed")
                incoming.write(data)
    with sock:
        step(tls.do_handshake); step(tls.write, b"x\\n")
        return step(tls.read, 3).decode().strip()

def via_asyncio(ctx, port):
    async def go():
        reader, writer = await asyncio.wait_for(asyncio.open_connection(
            "127.0.0.1", port, ssl=ctx, server_hostname="127.0.0.1"), 10)
        writer.write(b"x\\n")
        line = await asyncio.wait_for(reader.readline(), 10)
        writer.close()
        return line.decode().strip() or "ERROR closed"
    return asyncio.run(go())

def proxied(ctx, port):
    conn = http.client.HTTPSConnection("127.0.0.1", int(args[4]), context=ctx, timeout=10)
    conn.set_tunnel("127.0.0.1", port)
    try:
        conn.connect()
        conn.sock.sendall(b"x\\n"); return conn.sock.recv(3).decode().strip()
    finally:
        conn.close()

path = globals()[args[0]]
def go(port):
    ctx = ssl.create_default_context(cafile=args[2] or None)
    ctx.load_cert_chain(args[1])
    return path(ctx, port)
for port in args[5:]:
    print(outcome(lambda: go(int(port))))
"""

ALL_PATHS: tuple[str, ...] = ("blocking", "deferred", "nonblocking", "preconnect", "memory")
ALL_PATHS += ("via_asyncio", "proxied")


@pytest.fixture(name="world")
def _world(tmp_path: Path) -> Iterator[World]:
    """A legitimate CA, an attacker's CA, and the servers a test starts."""
    made = World(trustme.CA(), trustme.CA(), tmp_path)
    yield made
    for server in made.servers:
        server.stop()


def _policy(world: World, pin: str, *, mode: str) -> tuple[Path, Path]:
    sink = world.tmp / "records.jsonl"
    policy = world.policy(f"""
        version = 1
        mode = "{mode.partition("_")[0]}"
        [report]
        sink = "jsonl"
        path = "{sink}"
        [[exception]]
        host = "127.0.0.1"
        pin = ["{pin}"]
        reason = "appliance that requires a client certificate"
        """)
    return policy, sink


_PATHS_AND_MODES = [
    (path, mode) for path in ALL_PATHS for mode in ("report", "report_pin_only", "enforce")
]


@pytest.mark.parametrize(("path", "mode"), _PATHS_AND_MODES)
def test_a_pinned_server_that_requires_a_client_certificate_gets_it(
    world: World, path: str, mode: str
) -> None:
    """The real server gets the certificate on the first connection and on the next.

    ``report``: the caller trusts the server's CA (the connection succeeds without
    sslcustomize), and the pin matches: nothing is recorded. ``report_pin_only`` and
    ``enforce``: only the pin vouches for the server.
    """
    client_ca, key = world.client_identity()
    real_port, real, leaf = world.server(world.ca, client_ca=client_ca, required=True)
    policy, sink = _policy(
        world, _pin_of(leaf.cert_chain_pems[0]), mode=mode.split("_", maxsplit=1)[0]
    )
    cafile = world.ca_file if mode == "report" else ""
    with serve_proxy() as proxy:
        lines = client(PATHS, policy, path, key, cafile, "", proxy.port, real_port, real_port)
    assert lines == ["OK", "OK"]
    assert real.client_certificates == [True, True]
    assert real.received == [b"x\n", b"x\n"]
    assert not sink.exists()


@pytest.mark.parametrize("path", ALL_PATHS)
@pytest.mark.parametrize("mode", ["report", "report_pin_only", "enforce"])
def test_a_mitm_never_gets_the_client_certificate(world: World, path: str, mode: str) -> None:
    """A MITM with a certificate of its own CA is refused, and never sees the certificate.

    Report mode refuses it as Python would (the caller trusts the real CA, or nothing but
    the system store); enforce refuses it for the pin. Before and after the real server's
    key has been seen.
    """
    client_ca, key = world.client_identity()
    evil_port, evil, _ = world.server(world.attacker_ca, client_ca=client_ca, required=False)
    real_port, _, leaf = world.server(world.ca, client_ca=client_ca, required=False)
    policy, _ = _policy(
        world, _pin_of(leaf.cert_chain_pems[0]), mode=mode.split("_", maxsplit=1)[0]
    )
    cafile = world.ca_file if mode == "report" else ""
    with serve_proxy() as proxy:
        lines = client(
            PATHS, policy, path, key, cafile, "", proxy.port, evil_port, real_port, evil_port
        )
    assert lines[0].startswith("REJECTED"), lines
    assert lines[1] == "OK"
    assert lines[2].startswith("REJECTED"), lines
    assert True not in evil.client_certificates
    assert set(evil.received) <= {b""}


UNVERIFIED = """
def go(port):
    ctx = ssl._create_stdlib_context()
    ctx.load_cert_chain(args[0])
    with ctx.wrap_socket(socket.create_connection(("127.0.0.1", port), timeout=10),
                         server_hostname="127.0.0.1") as tls:
        tls.sendall(b"x\\n"); return tls.recv(3).decode().strip()
for port in args[1:]:
    print(outcome(lambda: go(int(port))))
"""


@pytest.mark.parametrize("mode", ["report", "enforce"])
def test_a_client_python_does_not_verify_meets_a_mitm(world: World, mode: str) -> None:
    """smtplib's kind of context (gh-91826) with a client certificate and a pinned host.

    Enforce refuses the MITM before its certificate; report mode lets it through as Python
    does and records the pin mismatch. The real server gets the certificate in both.
    """
    client_ca, key = world.client_identity()
    evil_port, evil, _ = world.server(world.attacker_ca, client_ca=client_ca, required=False)
    real_port, real, leaf = world.server(world.ca, client_ca=client_ca, required=True)
    policy, sink = _policy(world, _pin_of(leaf.cert_chain_pems[0]), mode=mode)
    lines = client(UNVERIFIED, policy, key, evil_port, real_port)
    assert lines[1] == "OK"
    assert real.client_certificates == [True]
    records = [json.loads(line) for line in sink.read_text().splitlines()] if sink.exists() else []
    if mode == "enforce":
        assert lines[0].startswith("REJECTED pin_mismatch")
        assert True not in evil.client_certificates
        assert records == []
    else:
        assert lines[0] == "OK"
        assert [r["verdict"] for r in records] == ["rejected"]
        assert "pin_mismatch" in records[0]["reasons"]


@pytest.mark.parametrize("path", ["blocking", "memory"])
def test_report_mode_with_a_pinned_ca_sends_the_certificate_to_its_servers(
    world: World, path: str
) -> None:
    """A pin of the policy's CA's key in report mode: its server gets the certificate.

    Enforce withholds it from a CA's pin (judged after the handshake); report mode sends it
    where its floor (Python's and the policy's anchors) verifies in the handshake. The MITM
    twin is refused and gets nothing.
    """
    client_ca, key = world.client_identity()
    real_port, real, _ = world.server(world.ca, client_ca=client_ca, required=True)
    evil_port, evil, _ = world.server(world.attacker_ca, client_ca=client_ca, required=False)
    policy = world.policy(f"""
        version = 1
        mode = "report"
        trust = ["{world.ca_file}"]
        [report]
        sink = "none"
        [[exception]]
        host = "127.0.0.1"
        pin = ["{_pin_of(world.ca.cert_pem)}"]
        reason = "test"
        """)
    lines = client(PATHS, policy, path, key, "", "", 0, real_port, real_port, evil_port)
    assert lines[:2] == ["OK", "OK"]
    assert lines[2].startswith("REJECTED"), lines
    assert True in real.client_certificates
    assert True not in evil.client_certificates


# --- Through a SOCKS5 proxy and aiohttp's CONNECT tunnel -----------------------------------------

PROXIED = """
import asyncio

def certificate_error(error):
    # What each library raised, down to the rejection (aiohttp and httpx wrap it).
    seen = error
    while seen is not None:
        if isinstance(seen, ssl.SSLCertVerificationError):
            return seen
        seen = (
            getattr(seen, "certificate_error", None) or getattr(seen, "reason", None)
            or seen.__cause__ or seen.__context__
        )
    return OSError(type(error).__name__)

# The HTTP clients POST: aiohttp retries a GET once on a new connection, which would hide a
# first connection refused for want of the certificate.
REQUEST = b"GET / HTTP/1.1\\r\\nHost: 127.0.0.1\\r\\n\\r\\n"

def aiohttp_tunnel(ctx, port):
    import aiohttp
    async def go():
        async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=20)) as session:
            url = f"https://127.0.0.1:{port}/"
            async with session.post(url, data=b"x", proxy=HTTP_PROXY, ssl=ctx) as r:
                return await r.text()
    return asyncio.run(go())

def aiohttp_socks(ctx, port):
    import aiohttp
    from aiohttp_socks import ProxyConnector
    async def go():
        connector = ProxyConnector.from_url(SOCKS_PROXY)
        timeout = aiohttp.ClientTimeout(total=20)
        async with aiohttp.ClientSession(connector=connector, timeout=timeout) as session:
            async with session.post(f"https://127.0.0.1:{port}/", data=b"x", ssl=ctx) as r:
                return await r.text()
    return asyncio.run(go())

def httpx_socks(ctx, port):
    import httpx
    with httpx.Client(proxy=SOCKS_PROXY, verify=ctx, timeout=10) as client:
        return client.get(f"https://127.0.0.1:{port}/").text

def requests_socks(ctx, port):
    import requests
    proxies = {"https": SOCKS_PROXY.replace("socks5:", "socks5h:")}
    response = requests.post(
        f"https://127.0.0.1:{port}/", data=b"x", proxies=proxies, timeout=10,
        cert=args[1], verify=args[2] or True,
    )
    return response.text

def python_socks(ctx, port):
    from python_socks.sync import Proxy
    sock = Proxy.from_url(SOCKS_PROXY).connect("127.0.0.1", port, timeout=10)
    with ctx.wrap_socket(sock, server_hostname="127.0.0.1") as tls:
        tls.sendall(REQUEST)
        return tls.recv(4096).split(b"\\r\\n\\r\\n")[-1].decode()

HTTP_PROXY = SOCKS_PROXY = args[3]

def go(port):
    ctx = ssl.create_default_context(cafile=args[2] or None)
    ctx.load_cert_chain(args[1])
    try:
        return globals()[args[0]](ctx, port)
    except Exception as error:
        raise certificate_error(error) from None
for port in args[4:]:
    print(outcome(lambda: go(int(port))))
"""

#: Each client and the proxy it goes through. Each proxy speaks only its own protocol: one
#: that spoke both would open the CONNECT tunnel a probe that does not know SOCKS asks of it.
PROXIED_PATHS = {
    "aiohttp_tunnel": connect_proxy,
    "aiohttp_socks": socks5_proxy,
    "httpx_socks": socks5_proxy,
    "python_socks": socks5_proxy,
    "requests_socks": socks5_proxy,  # urllib3.contrib.socks: PySocks
}


class _HTTPRecorder(Recorder):
    """A :class:`Recorder` that answers one HTTP request with ``OK``, as these clients expect."""

    def _handle(self, conn: socket.socket) -> None:
        conn.settimeout(10)
        try:
            with self.context.wrap_socket(conn, server_side=True) as tls:
                self.client_certificates.append(tls.getpeercert(binary_form=True) is not None)
                data = b""
                while b"\r\n\r\n" not in data and (chunk := tls.recv(4096)):
                    data += chunk
                # The body too: closing with bytes unread would reset the connection.
                head, _, body = data.partition(b"\r\n\r\n")
                length = re.search(rb"(?im)^content-length: *(\d+)", head)
                while length and len(body) < int(length[1]) and (chunk := tls.recv(4096)):
                    body += chunk
                if data:
                    tls.sendall(
                        b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nOK"
                    )
                self.received.append(data)
        except (OSError, ValueError):
            conn.close()


def _http_server(
    world: World, ca: trustme.CA, client_ca: trustme.CA, *, required: bool
) -> tuple[int, Recorder, trustme.LeafCert]:
    """Start an HTTPS server with a certificate from ``ca`` that asks for a client's."""
    leaf = ca.issue_cert("127.0.0.1", "localhost")
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    leaf.configure_cert(context)
    client_ca.configure_trust(context)
    context.verify_mode = ssl.CERT_REQUIRED if required else ssl.CERT_OPTIONAL
    recorder = _HTTPRecorder(context)
    port = recorder.start()
    world.servers.append(recorder)
    return port, recorder, leaf


@pytest.mark.parametrize("mode", ["report", "report_pin_only", "enforce"])
@pytest.mark.parametrize("path", list(PROXIED_PATHS))
def test_a_pinned_server_behind_a_proxy_gets_the_client_certificate(
    world: World, path: str, mode: str
) -> None:
    """Through SOCKS5 or aiohttp's tunnel, the first connection sends the certificate too.

    The probe asks the same proxy for a tunnel of its own (a third request to the proxy,
    before the first connection's handshake); the server gets the certificate on the first
    connection and on the next, and nothing is recorded.
    """
    client_ca, key = world.client_identity()
    real_port, real, leaf = _http_server(world, world.ca, client_ca, required=True)
    policy, sink = _policy(
        world, _pin_of(leaf.cert_chain_pems[0]), mode=mode.split("_", maxsplit=1)[0]
    )
    cafile = world.ca_file if mode == "report" else ""
    with PROXIED_PATHS[path]() as (proxy, tunnelled):
        lines = client(PROXIED, policy, path, key, cafile, proxy, real_port, real_port)
    assert lines == ["OK", "OK"]
    assert real.client_certificates == [True, True]
    assert all(request.split(b" ", 1)[0] in {b"GET", b"POST"} for request in real.received)
    assert len(real.received) == 2
    # The probe's tunnel and the two connections'.
    assert tunnelled == [f"127.0.0.1:{real_port}"] * 3
    assert not sink.exists()


@pytest.mark.parametrize("mode", ["report", "report_pin_only", "enforce"])
@pytest.mark.parametrize("path", list(PROXIED_PATHS))
def test_a_mitm_behind_the_proxy_never_gets_the_client_certificate(
    world: World, path: str, mode: str
) -> None:
    """The attack twin: the proxy leads to a MITM with its own CA's certificate.

    Refused before the real server's key is seen (the probe sees the MITM's key: enforce
    refuses before the caller's handshake, report mode's handshake verifies as Python
    would) and after (the caller's handshake trusts exactly the real server's leaf). The
    MITM never gets the certificate nor a byte of the request.
    """
    client_ca, key = world.client_identity()
    evil_port, evil, _ = _http_server(world, world.attacker_ca, client_ca, required=False)
    real_port, real, leaf = _http_server(world, world.ca, client_ca, required=False)
    policy, _ = _policy(
        world, _pin_of(leaf.cert_chain_pems[0]), mode=mode.split("_", maxsplit=1)[0]
    )
    cafile = world.ca_file if mode == "report" else ""
    with PROXIED_PATHS[path]() as (proxy, _):
        lines = client(PROXIED, policy, path, key, cafile, proxy, evil_port, real_port, evil_port)
    assert lines[0].startswith("REJECTED"), lines
    assert lines[1] == "OK"
    assert lines[2].startswith("REJECTED"), lines
    assert True not in evil.client_certificates
    assert set(evil.received) <= {b""}
    # The real server: the probe's handshake without the certificate, then the connection's.
    assert real.client_certificates in ([True], [False, True])
