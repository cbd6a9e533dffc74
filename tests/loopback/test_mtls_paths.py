"""Mutual TLS to a pinned host on every connection path, in report mode and in enforce.

A server that requires a client certificate must get it wherever Python itself would send
it (report mode never breaks a connection that succeeds without sslcustomize), and wherever
the server holds the pinned key (enforce); a MITM with a certificate from its own CA never
gets it, and is refused. Each client runs in a fresh interpreter through the ``.pth`` hook.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
import trustme

from _proxy import serve_proxy
from test_connection_path import World, _pin_of, client

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
