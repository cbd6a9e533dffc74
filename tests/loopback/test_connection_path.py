"""The connection path as an attacker meets it: every property has a MITM test and its twin.

The attacker is a loopback TLS server with a certificate from a CA of its own (or a valid
certificate for another name); the legitimate twin is the same client code against the real
server. Clients run in fresh interpreters started through the ``.pth`` hook, the way users get
sslcustomize, under a policy named by ``SSLCUSTOMIZE_POLICY``. The server records what it
received after the handshake and whether the client presented a certificate.
"""

from __future__ import annotations

import base64
import datetime
import hashlib
import json
import os
import socket
import ssl
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
import trustme
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

from _pki import TestPKI
from _servers import serve_each

SECRET = b"secret-password"


def _pin_of(cert: trustme.Blob) -> str:
    der = (
        x509.load_pem_x509_certificate(cert.bytes())
        .public_key()
        .public_bytes(serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo)
    )
    return "sha256/" + base64.b64encode(hashlib.sha256(der).digest()).decode()


@dataclass
class Recorder:
    """A TLS server on 127.0.0.1 that keeps what each client sent and showed."""

    context: ssl.SSLContext
    received: list[bytes] = field(default_factory=list)
    client_certificates: list[bool] = field(default_factory=list)
    sock: socket.socket = field(default_factory=socket.socket)

    def start(self) -> int:
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(64)
        serve_each(self.sock, self._handle)
        return int(self.sock.getsockname()[1])

    def _handle(self, conn: socket.socket) -> None:
        conn.settimeout(10)
        try:
            with self.context.wrap_socket(conn, server_side=True) as tls:
                self.client_certificates.append(tls.getpeercert(binary_form=True) is not None)
                data = b""
                while chunk := tls.recv(4096):
                    data += chunk
                    if b"\n" in data:
                        tls.sendall(b"OK\n")
                        break
                self.received.append(data)
        except (OSError, ValueError):
            conn.close()

    def stop(self) -> None:
        self.sock.close()


@dataclass
class World:
    """The legitimate CA and server, and the attacker's."""

    ca: trustme.CA
    attacker_ca: trustme.CA
    tmp: Path
    servers: list[Recorder] = field(default_factory=list)

    def server(
        self, ca: trustme.CA, *names: str, client_ca: trustme.CA | None = None,
        required: bool = True, tls13: bool = True,
    ) -> tuple[int, Recorder, trustme.LeafCert]:  # fmt: skip
        leaf = ca.issue_cert(*(names or ("127.0.0.1", "localhost")))
        return self.server_with(leaf, client_ca=client_ca, required=required, tls13=tls13)

    def server_with(
        self, leaf: trustme.LeafCert, *, client_ca: trustme.CA | None = None,
        required: bool = True, tls13: bool = True,
    ) -> tuple[int, Recorder, trustme.LeafCert]:  # fmt: skip
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        leaf.configure_cert(context)
        if not tls13:
            context.maximum_version = ssl.TLSVersion.TLSv1_2
        if client_ca is not None:
            client_ca.configure_trust(context)
            context.verify_mode = ssl.CERT_REQUIRED if required else ssl.CERT_OPTIONAL
        recorder = Recorder(context)
        port = recorder.start()
        self.servers.append(recorder)
        return port, recorder, leaf

    def file(self, name: str, data: bytes | str) -> Path:
        path = self.tmp / name
        path.write_bytes(data if isinstance(data, bytes) else data.encode())
        return path

    def policy(self, text: str) -> Path:
        return self.file(f"policy{len(list(self.tmp.glob('policy*')))}.toml", textwrap.dedent(text))

    def client_identity(self) -> tuple[trustme.CA, Path]:
        """A client CA for mutual-TLS servers, and a client key and certificate it issued."""
        client_ca = trustme.CA()
        identity = client_ca.issue_cert("client.test")
        return client_ca, self.file("client.pem", identity.private_key_and_cert_chain_pem.bytes())

    @property
    def ca_file(self) -> Path:
        return self.file("ca.pem", self.ca.cert_pem.bytes())

    @property
    def attacker_ca_file(self) -> Path:
        return self.file("attacker.pem", self.attacker_ca.cert_pem.bytes())


@pytest.fixture
def world(tmp_path: Path) -> Iterator[World]:
    """A legitimate CA, an attacker's CA, and the servers a test starts."""
    made = World(trustme.CA(), trustme.CA(), tmp_path)
    yield made
    for server in made.servers:
        server.stop()


def client(code: str, policy: Path, *args: object) -> list[str]:
    """Run ``code`` in a fresh interpreter under ``policy``; return its printed lines."""
    prelude = textwrap.dedent("""\
        import socket, ssl, sys, warnings
        warnings.simplefilter("ignore")
        import json
        args = sys.argv[1:]
        def outcome(call):
            try:
                result = call()
            except ssl.SSLCertVerificationError as error:
                return "REJECTED " + ",".join(getattr(error, "reasons", ("native",)))
            except (OSError, ValueError) as error:
                return "ERROR " + type(error).__name__
            return "OK" if result is None else str(result)
        """)
    env = {**os.environ, "SSLCUSTOMIZE_POLICY": str(policy)}
    env.pop("SSL_CERT_FILE", None)
    result = subprocess.run(
        [sys.executable, "-c", prelude + textwrap.dedent(code), *map(str, args)],
        capture_output=True, text=True, env=env, timeout=60, check=False,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    return result.stdout.split("\n")[:-1]


def _records(path: Path) -> list[dict[str, object]]:
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines()]


IMPLICIT = f"""
    port = int(args[0])
    def send():
        raw = socket.create_connection(("127.0.0.1", port))
        ctx = ssl.create_default_context()
        tls = ctx.wrap_socket(raw, server_hostname="127.0.0.1", do_handshake_on_connect=False)
        tls.sendall(b"{SECRET.decode()}\\n")
        tls.recv(10)
        tls.close()
    print(outcome(send))
"""


# --- 1. A handshake done implicitly is judged ------------------------------------------------


@pytest.mark.parametrize("kind", ["pin", "ca", "opt_out_refused"])
def test_implicit_handshake_is_judged_before_the_first_byte(world: World, kind: str) -> None:
    """sendall() before do_handshake(): the attacker gets no byte; the real server gets them."""
    attacker_port, attacker, _ = world.server(world.attacker_ca)
    real_port, real, leaf = world.server(world.ca)
    rules = {
        "pin": f'pin = ["{_pin_of(leaf.cert_chain_pems[0])}"]',
        "ca": f'ca = ["{world.ca_file}"]',
        "opt_out_refused": f'ca = ["{world.ca_file}"]',
    }
    extra = "allow_code_opt_out = false\n" if kind == "opt_out_refused" else ""
    policy = world.policy(f"""
        version = 1
        {extra}
        [[exception]]
        host = "127.0.0.1"
        {rules[kind]}
        reason = "test"
        """)
    code = IMPLICIT
    if kind == "opt_out_refused":
        code = code.replace(
            "ctx = ssl.create_default_context()",
            "ctx = ssl.create_default_context(); ctx.check_hostname = False; "
            "ctx.verify_mode = ssl.CERT_NONE",
        )
    assert client(code, policy, attacker_port)[0].startswith("REJECTED")
    assert attacker.received in ([], [b""])
    assert client(code, policy, real_port) == ["OK"]
    assert real.received == [SECRET + b"\n"]


def test_implicit_handshake_in_report_mode_is_recorded(world: World) -> None:
    """Report mode (smtplib's kind of context): it proceeds, recorded before any byte is sent."""
    port, attacker, _ = world.server(world.attacker_ca)
    sink = world.tmp / "records.jsonl"
    policy = world.policy(f"""
        version = 1
        mode = "report"
        [report]
        sink = "jsonl"
        path = "{sink}"
        """)
    code = IMPLICIT.replace("ssl.create_default_context()", "ssl._create_stdlib_context()")
    assert client(code, policy, port) == ["OK"]
    assert attacker.received == [SECRET + b"\n"]
    (record,) = _records(sink)
    assert record["verdict"] == "rejected"
    assert "unknown_issuer" in record["reasons"]  # type: ignore[operator]


def test_sslobject_write_before_handshake_is_judged(world: World) -> None:
    """SSLObject.write() first: the rejection comes before any application record."""
    policy = world.policy(f"""
        version = 1
        [[exception]]
        host = "localhost"
        ca = ["{world.ca_file}"]
        reason = "test"
        """)
    code = """
    import trustme
    from cryptography import x509
    ca = trustme.CA()
    server = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ca.issue_cert("localhost").configure_cert(server)
    c_in, c_out, s_in, s_out = (ssl.MemoryBIO() for _ in range(4))
    client = ssl.create_default_context().wrap_bio(c_in, c_out, server_hostname="localhost")
    srv = server.wrap_bio(s_in, s_out, server_side=True)
    def pump():
        for _ in range(10):
            for call in (lambda: client.write(b"secret"), srv.do_handshake):
                try:
                    call()
                except ssl.SSLWantReadError:
                    pass
            s_in.write(c_out.read()); c_in.write(s_out.read())
    print(outcome(pump))
    try:
        print(srv.read(100))
    except ssl.SSLError as error:
        print("server got nothing")
    """
    lines = client(code, policy)
    assert lines[0].startswith("REJECTED")
    assert lines[1] == "server got nothing"


# --- 2 and 3. No shared context can be changed, no instant with verification off ---------------


def test_a_component_cannot_turn_off_http_clients_name_check(world: World) -> None:
    """HTTPSHandler(check_hostname=False) elsewhere: http.client still checks names."""
    port, attacker, _ = world.server(world.ca, "attacker.test")
    policy = world.policy(f'version = 1\ntrust = ["{world.ca_file}"]\n')
    code = """
    import http.client, urllib.request
    urllib.request.HTTPSHandler(check_hostname=False)
    def get():
        conn = http.client.HTTPSConnection("127.0.0.1", int(args[0]), timeout=10)
        conn.connect()
        conn.sock.sendall(b"x\\n")
    print(outcome(get))
    try:
        conn = http.client.HTTPSConnection("127.0.0.1", int(args[0]), timeout=10)
        conn.connect()
    except ssl.SSLCertVerificationError:
        print("rejected again")
    try:
        conn = http.client.HTTPSConnection("localhost", 1)
        conn._context.check_hostname = False
    except ValueError as error:
        print(type(error).__name__)
    """
    lines = client(code, policy, port)
    assert lines == ["REJECTED hostname_mismatch", "rejected again", "SharedContextError"]
    assert attacker.received in ([], [b""], [b"", b""])


def test_threads_sharing_contexts_never_accept_a_mitm(world: World) -> None:
    """8 threads, 1,000 connections, pinned and unpinned hosts mixed: no MITM, no error."""
    good_port, _, leaf = world.server(world.ca, "localhost")
    evil_port, evil, _ = world.server(world.attacker_ca, "localhost")
    pin = _pin_of(leaf.cert_chain_pems[0])
    policy = world.policy(f"""
        version = 1
        trust = ["{world.ca_file}"]
        [[exception]]
        host = "localhost:{good_port}"
        pin = ["{pin}"]
        reason = "pinned half"
        """)
    code = """
    import threading, http.client
    good, evil = int(args[0]), int(args[1])
    shared = ssl.create_default_context()
    results = {"ok": 0, "rejected": 0, "wrong": 0, "error": 0}
    lock = threading.Lock()
    def work(n):
        for i in range(125):
            port = good if (i + n) % 2 else evil
            ctx = shared if i % 3 else ssl.create_default_context()
            try:
                with socket.create_connection(("127.0.0.1", port)) as raw:
                    with ctx.wrap_socket(raw, server_hostname="localhost") as tls:
                        tls.sendall(b"x\\n"); tls.recv(3)
                key = "ok" if port == good else "wrong"
            except ssl.SSLCertVerificationError:
                key = "rejected" if port == evil else "wrong"
            except OSError:
                key = "error"
            with lock:
                results[key] += 1
    threads = [threading.Thread(target=work, args=(n,)) for n in range(8)]
    for t in threads: t.start()
    for t in threads: t.join()
    print(json.dumps(results))
    """
    (line,) = client(code, policy, good_port, evil_port)
    assert json.loads(line) == {"ok": 500, "rejected": 500, "wrong": 0, "error": 0}
    assert all(data in (b"",) for data in evil.received)


def test_fresh_contexts_of_the_policy_connect_on_one_warm_engine(world: World) -> None:
    """Contexts made per connection share the runtime's engine; a MITM is refused on it."""
    good_port, _, _ = world.server(world.ca, "localhost")
    evil_port, evil, _ = world.server(world.attacker_ca, "localhost")
    other_port, other, _ = world.server(world.ca, "other.test")
    policy = world.policy(f"""
        version = 1
        trust = ["{world.ca_file}"]
        """)
    code = """
    good, evil, other = (int(port) for port in args)
    engines = []
    def fresh(port):
        ctx = ssl.create_default_context()
        with socket.create_connection(("127.0.0.1", port)) as raw:
            with ctx.wrap_socket(raw, server_hostname="localhost") as tls:
                engine = tls._sslobj._raw.context
                engines.append(engine)
                print("caller's context" if tls.context is ctx else "not the caller's")
                print("own" if engine is ctx else "engine")
                tls.sendall(b"x\\n"); tls.recv(3)
    print(outcome(lambda: fresh(good)))
    print(outcome(lambda: fresh(good)))
    print("one engine" if engines[0] is engines[1] else "two engines")
    print(outcome(lambda: fresh(evil)))
    print(outcome(lambda: fresh(other)))
    """
    lines = client(code, policy, good_port, evil_port, other_port)
    assert lines[:7] == [
        "caller's context",
        "engine",
        "OK",
        "caller's context",
        "engine",
        "OK",
        "one engine",
    ]
    assert lines[7].startswith("REJECTED")
    assert "unknown_issuer" in lines[7]
    assert lines[8].startswith("REJECTED")
    assert "hostname_mismatch" in lines[8]
    assert evil.received == []
    assert other.received == []


def test_a_context_with_its_own_anchors_keeps_its_own_context(world: World) -> None:
    """A context that loaded its own CA connects on itself: the engine never lends it trust."""
    good_port, _, _ = world.server(world.ca, "localhost")
    evil_port, evil, _ = world.server(world.attacker_ca, "localhost")
    policy = world.policy(f"""
        version = 1
        trust = ["{world.ca_file}"]
        allow_code_opt_out = true
        """)
    code = """
    good, evil, attacker_ca = int(args[0]), int(args[1]), args[2]
    def connect(port, cafile=None):
        ctx = ssl.create_default_context(cafile=cafile)
        with socket.create_connection(("127.0.0.1", port)) as raw:
            with ctx.wrap_socket(raw, server_hostname="localhost") as tls:
                print("own" if tls._sslobj._raw.context is ctx else "engine")
                tls.sendall(b"x\\n"); tls.recv(3)
    print(outcome(lambda: connect(good)))
    print(outcome(lambda: connect(evil, attacker_ca)))
    print(outcome(lambda: connect(evil)))
    """
    lines = client(code, policy, good_port, evil_port, world.attacker_ca_file)
    # The code's own cafile replaces the anchors, as in Python: it reaches the server it trusts.
    assert lines[:4] == ["engine", "OK", "own", "OK"]
    assert lines[4].startswith("REJECTED")
    assert "unknown_issuer" in lines[4]
    assert evil.received == [b"x\n"]


# --- 4. The caller's own CA and flags count off the native path -------------------------------


def test_report_mode_judges_with_the_callers_own_cafile(world: World) -> None:
    """Report mode: a right cafile is no finding; a wrong one is refused, as Python refuses it."""
    port, server, _ = world.server(world.ca)
    sink = world.tmp / "r.jsonl"
    policy = world.policy(f"""
        version = 1
        mode = "report"
        [report]
        sink = "jsonl"
        path = "{sink}"
        """)
    code = """
    def get(cafile):
        ctx = ssl.create_default_context(cafile=cafile)
        with ctx.wrap_socket(socket.create_connection(("127.0.0.1", int(args[0]))),
                             server_hostname="127.0.0.1") as tls:
            tls.sendall(b"x\\n"); tls.recv(3)
    print(outcome(lambda: get(args[1])))
    print(outcome(lambda: get(args[2])))
    """
    lines = client(code, policy, port, world.ca_file, world.attacker_ca_file)
    assert lines == ["OK", "REJECTED unknown_issuer"]
    assert _records(sink) == []
    assert server.received[0] == b"x\n"
    assert len(server.received) == 1 or server.received[1] == b""


def test_report_mode_never_lets_through_what_python_refuses(world: World) -> None:
    """Report mode over http.client: a MITM Python refuses is refused; the policy's CA passes.

    The twin: a server of the policy's own CA (which Python's default store lacks) connects,
    and one from a CA neither trusts is refused before any byte.
    """
    good_port, good, _ = world.server(world.ca)
    evil_port, evil, _ = world.server(world.attacker_ca)
    sink = world.tmp / "r.jsonl"
    policy = world.policy(f"""
        version = 1
        mode = "report"
        trust = ["{world.ca_file}"]
        [report]
        sink = "jsonl"
        path = "{sink}"
        """)
    code = """
    import http.client
    def get(port):
        conn = http.client.HTTPSConnection("127.0.0.1", port, timeout=10)
        conn.connect(); conn.sock.sendall(b"x\\n"); conn.sock.recv(3); conn.close()
    print(outcome(lambda: get(int(args[0]))))
    print(outcome(lambda: get(int(args[1]))))
    """
    assert client(code, policy, good_port, evil_port) == ["OK", "REJECTED unknown_issuer"]
    assert good.received == [b"x\n"]
    assert evil.received in ([], [b""])


def test_a_host_exception_keeps_the_callers_own_cafile(world: World) -> None:
    """An exception with another CA does not reject what the caller's own cafile trusts."""
    port, _, _ = world.server(world.ca)
    other = world.file("other.pem", trustme.CA().cert_pem.bytes())
    policy = world.policy(f"""
        version = 1
        [[exception]]
        host = "127.0.0.1"
        ca = ["{other}"]
        reason = "test"
        """)
    code = """
    def get(cafile):
        ctx = ssl.create_default_context(cafile=cafile)
        with ctx.wrap_socket(socket.create_connection(("127.0.0.1", int(args[0]))),
                             server_hostname="127.0.0.1") as tls:
            tls.sendall(b"x\\n"); tls.recv(3)
    print(outcome(lambda: get(args[1])))
    print(outcome(lambda: get(args[2])))
    """
    assert client(code, policy, port, world.ca_file, world.attacker_ca_file) == [
        "OK",
        "REJECTED unknown_issuer",
    ]


# --- 5, 6 and 7. Server contexts, explicit arguments, the global opt-out ----------------------


def test_server_contexts_through_the_startup_hook(world: World) -> None:
    """Server-side factories work in a process started through the .pth hook."""
    policy = world.policy("version = 1\n")
    code = """
    a = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    b = ssl._create_stdlib_context(purpose=ssl.Purpose.CLIENT_AUTH)
    c = ssl._create_unverified_context(ssl.PROTOCOL_TLS_SERVER)
    print(a.protocol == b.protocol == c.protocol == ssl.PROTOCOL_TLS_SERVER)
    print(type(ssl.create_default_context()).__name__)
    """
    assert client(code, policy) == ["True", "PolicyContext"]


@pytest.mark.parametrize("allow", [True, False])
def test_get_server_certificate_is_an_explicit_opt_out(world: World, allow: bool) -> None:
    """get_server_certificate() fetches a self-signed certificate, unless opt-outs are refused."""
    port, _, _ = world.server(trustme.CA())
    policy = world.policy(f"version = 1\nallow_code_opt_out = {str(allow).lower()}\n")
    code = """
    print(outcome(lambda: ssl.get_server_certificate(("127.0.0.1", int(args[0])))[:27]))
    """
    (line,) = client(code, policy, port)
    assert line == ("-----BEGIN CERTIFICATE-----" if allow else "REJECTED unknown_issuer")


def test_explicit_protocol_is_kept(world: World) -> None:
    """ssl._create_stdlib_context(protocol) builds a context of that protocol, verifying."""
    policy = world.policy("version = 1\n")
    code = """
    ctx = ssl._create_stdlib_context(ssl.PROTOCOL_TLS)
    print(ctx.protocol == ssl.PROTOCOL_TLS, ctx.verify_mode == ssl.CERT_REQUIRED)
    print(ctx.check_hostname)
    """
    assert client(code, policy) == ["True True", "True"]


@pytest.mark.parametrize("allow", [True, False])
def test_global_opt_out_is_the_same_on_every_call(world: World, allow: bool) -> None:
    """ssl._create_default_https_context = ssl._create_unverified_context: each call alike."""
    port, _, _ = world.server(trustme.CA())
    sink = world.tmp / "r.jsonl"
    policy = world.policy(f"""
        version = 1
        allow_code_opt_out = {str(allow).lower()}
        [report]
        sink = "jsonl"
        path = "{sink}"
        """)
    code = """
    import http.client
    ssl._create_default_https_context = ssl._create_unverified_context
    def get():
        conn = http.client.HTTPSConnection("127.0.0.1", int(args[0]), timeout=10)
        conn.connect(); conn.sock.sendall(b"x\\n"); conn.sock.recv(3); conn.close()
    for _ in range(3):
        print(outcome(get))
    """
    expected = "OK" if allow else "REJECTED unknown_issuer"
    assert client(code, policy, port) == [expected] * 3
    records = _records(sink)
    assert len(records) == (3 if allow else 0)
    assert all("code_opt_out" in r["reasons"] for r in records)  # type: ignore[operator]


# --- 8. Silent opt-outs ------------------------------------------------------------------------


WEAKENINGS = {
    "no_check_time": "ctx.verify_flags |= 0x200000",
    "no_name": "ctx.check_hostname = False; name = None",
    "socket_class": "ctx.sslsocket_class = ssl.SSLSocket",
}


@pytest.mark.parametrize("weakening", sorted(WEAKENINGS))
@pytest.mark.parametrize("allow", [True, False])
def test_weakening_a_hooked_context(world: World, weakening: str, allow: bool) -> None:
    """Flags, a missing name, another socket class: recorded when allowed, else refused."""
    port, _, _ = world.server(world.attacker_ca)
    sink = world.tmp / "r.jsonl"
    policy = world.policy(f"""
        version = 1
        allow_code_opt_out = {str(allow).lower()}
        [report]
        sink = "jsonl"
        path = "{sink}"
        """)
    code = f"""
    def go():
        ctx = ssl.create_default_context()
        name = "127.0.0.1"
        {WEAKENINGS[weakening]}
        ctx.load_verify_locations(args[1])
        with ctx.wrap_socket(socket.create_connection(("127.0.0.1", int(args[0]))),
                             server_hostname=name) as tls:
            tls.sendall(b"x\\n"); tls.recv(3)
    print(outcome(go))
    """
    # The attacker's CA is loaded by the code: only the weakening differs from a verified
    # connection, except for no_check_time where the certificate is fine and socket_class
    # where nothing is weakened at all; an unknown issuer would be rejected either way.
    (line,) = client(code, policy, port, world.attacker_ca_file)
    weakened = weakening != "socket_class"
    if weakening == "socket_class":
        assert line == "OK"
    elif allow:
        assert line == "OK"
        assert any("code_opt_out" in r["reasons"] for r in _records(sink))  # type: ignore[operator]
    else:
        assert line.startswith("REJECTED") if weakening == "no_name" else line == "OK"
    assert weakened or not _records(sink)


def test_no_check_time_refused_on_an_expired_certificate(world: World) -> None:
    """verify_flags |= NO_CHECK_TIME under allow_code_opt_out = false: expired is rejected."""
    from datetime import datetime, timedelta, timezone

    leaf = world.ca.issue_cert(
        "127.0.0.1", not_after=datetime.now(timezone.utc) - timedelta(days=1)
    )
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    leaf.configure_cert(context)
    recorder = Recorder(context)
    port = recorder.start()
    world.servers.append(recorder)
    code = """
    def go():
        ctx = ssl.create_default_context(cafile=args[1])
        ctx.verify_flags |= 0x200000
        with ctx.wrap_socket(socket.create_connection(("127.0.0.1", int(args[0]))),
                             server_hostname="127.0.0.1") as tls:
            tls.sendall(b"x\\n"); tls.recv(3)
    print(outcome(go))
    """
    refused = world.policy("version = 1\nallow_code_opt_out = false\n")
    allowed = world.policy("version = 1\n[report]\nsink = 'none'\n")
    assert client(code, refused, port, world.ca_file) == ["REJECTED expired"]
    assert client(code, allowed, port, world.ca_file) == ["OK"]


# --- 9. A client certificate never reaches a MITM ----------------------------------------------


@pytest.mark.parametrize("kind", ["pin", "ca"])
def test_client_certificate_never_reaches_a_mitm(world: World, kind: str) -> None:
    """Under a pin or a ca exception the attacker never sees the client's certificate."""
    client_ca, key = world.client_identity()
    attacker_port, attacker, _ = world.server(
        world.attacker_ca, client_ca=client_ca, required=False
    )
    real_port, real, leaf = world.server(world.ca, client_ca=client_ca, required=False)
    rule = (
        f'pin = ["{_pin_of(leaf.cert_chain_pems[0])}"]'
        if kind == "pin"
        else f'ca = ["{world.ca_file}"]'
    )
    policy = world.policy(f"""
        version = 1
        [[exception]]
        host = "127.0.0.1"
        {rule}
        reason = "test"
        """)
    code = """
    def go(port):
        ctx = ssl.create_default_context()
        ctx.load_cert_chain(args[1])
        with ctx.wrap_socket(socket.create_connection(("127.0.0.1", port)),
                             server_hostname="127.0.0.1") as tls:
            tls.sendall(b"x\\n"); tls.recv(3)
    print(outcome(lambda: go(int(args[0]))))
    print(outcome(lambda: go(int(args[2]))))
    print(outcome(lambda: go(int(args[2]))))
    """
    lines = client(code, policy, attacker_port, key, real_port)
    assert lines[0].startswith("REJECTED")
    assert lines[1:] == ["OK", "OK"]
    assert True not in attacker.client_certificates
    # A pinned server's key is first learned in a handshake without the certificate; then
    # the connection verifies natively against the pinned leaf and sends it. A CA at once.
    expected = [False, True, True] if kind == "pin" else [True, True]
    assert real.client_certificates == expected


@pytest.mark.parametrize("target", ["attacker", "real"])
def test_a_context_swapped_before_the_handshake_keeps_the_pin(world: World, target: str) -> None:
    """``tls.context = other`` before the handshake does not put the pin's engine on other's CAs.

    Once the pinned leaf is known, a connection with a client certificate verifies natively
    against exactly that leaf. OpenSSL verifies with the trust store of the context a
    connection is moved to, so moving it would trust whatever that context trusts (here the
    attacker's CA, as a public CA would vouch for a public name) and send the certificate.
    """
    client_ca, key = world.client_identity()
    evil_port, evil, _ = world.server(world.attacker_ca, client_ca=client_ca, required=False)
    real_port, real, leaf = world.server(world.ca, client_ca=client_ca, required=False)
    policy = world.policy(f"""
        version = 1
        [[exception]]
        host = "127.0.0.1"
        pin = ["{_pin_of(leaf.cert_chain_pems[0])}"]
        reason = "test"
        """)
    code = """
    def go(port, swap):
        ctx = ssl.create_default_context()
        ctx.load_cert_chain(args[1])
        sock = socket.create_connection(("127.0.0.1", port), timeout=10)
        with ctx.wrap_socket(sock, server_hostname="127.0.0.1",
                             do_handshake_on_connect=False) as tls:
            if swap:
                other = ssl.create_default_context(cafile=args[2])
                other.load_cert_chain(args[1])
                tls.context = other
                assert tls.context is other
            tls.do_handshake()
            tls.sendall(b"x\\n"); tls.recv(3)
    print(outcome(lambda: go(int(args[0]), False)))
    print(outcome(lambda: go(int(args[3]), True)))
    """
    port = evil_port if target == "attacker" else real_port
    lines = client(code, policy, real_port, key, world.attacker_ca_file, port)
    assert lines[0] == "OK"
    if target == "attacker":
        assert lines[1].startswith("REJECTED"), lines
        assert True not in evil.client_certificates
        assert evil.received in ([], [b""])
    else:
        assert lines[1] == "OK"
        assert real.client_certificates[-1] is True


@pytest.mark.parametrize("tls13", [True, False])
def test_mutual_tls_to_a_pinned_host_works_on_the_first_connection(
    world: World, tls13: bool
) -> None:
    """An appliance that requires a client certificate: the first connection presents it.

    The MITM twin also requires one: it sees only handshakes without a certificate, and the
    client is rejected before sending a byte.
    """
    client_ca, key = world.client_identity()
    evil_port, evil, _ = world.server(world.attacker_ca, client_ca=client_ca, tls13=tls13)
    real_port, real, leaf = world.server(world.ca, client_ca=client_ca, tls13=tls13)
    policy = world.policy(f"""
        version = 1
        [[exception]]
        host = "127.0.0.1"
        pin = ["{_pin_of(leaf.cert_chain_pems[0])}"]
        reason = "appliance that requires a client certificate"
        """)
    code = """
    def go(port):
        ctx = ssl.create_default_context()
        ctx.load_cert_chain(args[1])
        with ctx.wrap_socket(socket.create_connection(("127.0.0.1", port), timeout=10),
                             server_hostname="127.0.0.1") as tls:
            tls.sendall(b"x\\n"); return tls.recv(3).decode().strip()
    print(outcome(lambda: go(int(args[0]))))
    print(outcome(lambda: go(int(args[2]))))
    """
    lines = client(code, policy, evil_port, key, real_port)
    assert lines[0].startswith("REJECTED pin_mismatch")
    assert lines[1] == "OK"
    assert True not in evil.client_certificates
    assert evil.received in ([], [b""])
    assert True in real.client_certificates
    assert real.received[-1] == b"x\n"


# --- 10. A CA-key pin never stands for any name ------------------------------------------------


def test_ca_pin_without_name_check_does_not_accept_other_names(world: World) -> None:
    """check_hostname = false with a pin of the CA's key: a leaf for another name is rejected."""
    port, _, _ = world.server(world.ca, "other.test")
    ca_pin = _pin_of(world.ca.cert_pem)
    leaf_port, _, leaf = world.server(world.ca, "other.test")
    code = """
    def go(port):
        with ssl.create_default_context().wrap_socket(
                socket.create_connection(("127.0.0.1", port)), server_hostname="127.0.0.1") as tls:
            tls.sendall(b"x\\n"); tls.recv(3)
    print(outcome(lambda: go(int(args[0]))))
    """
    for pin, expected in ((ca_pin, "REJECTED"), (_pin_of(leaf.cert_chain_pems[0]), "OK")):
        policy = world.policy(f"""
            version = 1
            trust = ["{world.ca_file}"]
            [[exception]]
            host = "127.0.0.1"
            pin = ["{pin}"]
            check_hostname = false
            reason = "test"
            """)
        target = port if expected == "REJECTED" else leaf_port
        assert client(code, policy, target)[0].startswith(expected)


# --- 11. Sessions ------------------------------------------------------------------------------


@pytest.mark.parametrize("tls13", [True, False])
def test_sessions_resume_for_their_host_only(world: World, tls13: bool) -> None:
    """A pinned host's session resumes; the same session offered for another name does not."""
    port, _, leaf = world.server(world.ca, "localhost", "127.0.0.1", tls13=tls13)
    policy = world.policy(f"""
        version = 1
        [[exception]]
        host = "localhost"
        pin = ["{_pin_of(leaf.cert_chain_pems[0])}"]
        reason = "test"
        """)
    code = """
    ctx = ssl.create_default_context()
    def go(name, session=None):
        with ctx.wrap_socket(socket.create_connection(("127.0.0.1", int(args[0]))),
                             server_hostname=name, session=session) as tls:
            tls.sendall(b"x\\n"); tls.recv(3)
            return tls.session, tls.session_reused
    session, _ = go("localhost")
    print(go("localhost", session)[1])
    print(outcome(lambda: go("127.0.0.1", session)[1]))
    """
    assert client(code, policy, port) == ["True", "REJECTED unknown_issuer"]


def test_deferred_connections_refuse_renegotiation(world: World) -> None:
    """Where the chain is judged after the handshake, no renegotiation can bring another."""
    import sslcustomize

    port, _, _ = world.server(world.attacker_ca, tls13=False)
    policy = world.policy("version = 1\nmode = 'report'\n[report]\nsink = 'none'\n")
    sslcustomize.inject(policy)
    try:
        # What smtplib gets: report mode lets it through.
        context: ssl.SSLContext = ssl._create_stdlib_context()  # type: ignore[attr-defined]
        with socket.create_connection(("127.0.0.1", port)) as raw:
            with pytest.warns(sslcustomize.UnverifiedConnectionWarning):
                tls = context.wrap_socket(raw, server_hostname="127.0.0.1")
            engine = tls._sslobj.raw.context  # type: ignore[attr-defined]
            assert engine is not context
            assert engine.options & ssl.OP_NO_RENEGOTIATION
            assert not context.options & ssl.OP_NO_RENEGOTIATION
            assert context.verify_mode == ssl.CERT_REQUIRED  # the caller's, untouched
            tls.close()
    finally:
        sslcustomize.extract()


# --- 12. A refusal that threads cannot defeat ----------------------------------------------------


# Threads that toggle a shared context's verification: see ROUTES below, which does it
# through every route a context can be changed by (a Python setter among them).


# --- 13. Report mode never drops Python's floor, wherever it is set ----------------------------


AUTHORIZED = f"""
import http.client
def get(port):
    conn = http.client.HTTPSConnection("127.0.0.1", port, timeout=10)
    conn.putrequest("GET", "/")
    conn.putheader("Authorization", "Bearer {SECRET.decode()}")
    conn.endheaders()
    conn.sock.recv(3)
    conn.close()
print(outcome(lambda: get(int(args[0]))))
print(outcome(lambda: get(int(args[1]))))
"""

REPORT_RULES = {
    # An exception that only changes the mode: Python's verdict stays the floor.
    "exception_report": 'mode = "report"',
    # The exception's own pin or CA may accept what Python refuses, for this host only.
    "exception_report_pin": 'mode = "report"\npin = ["{pin}"]',
    "exception_report_ca": 'mode = "report"\nca = ["{ca}"]',
    "top_level_report_pin": 'pin = ["{pin}"]',
    "context_report_pin": 'pin = ["{pin}"]',
}


@pytest.mark.parametrize("rule", sorted(REPORT_RULES))
def test_report_mode_exception_keeps_pythons_floor(world: World, rule: str) -> None:
    """Report mode anywhere: http.client refuses a MITM before its Authorization header.

    The twin: the real server, whose CA only the policy trusts (or whose key or CA only the
    exception names), gets the request.
    """
    evil_port, evil, _ = world.server(world.attacker_ca)
    real_port, real, leaf = world.server(world.ca)
    pin = _pin_of(leaf.cert_chain_pems[0])
    by_exception = rule != "exception_report"
    top = "" if by_exception else f'trust = ["{world.ca_file}"]\n'
    mode = 'mode = "report"\n' if rule.startswith("top_level") else ""
    context = '[context."http.client"]\nmode = "report"\n' if rule.startswith("context") else ""
    sink = world.tmp / "r.jsonl"
    policy = world.policy(
        f"version = 1\n{mode}{top}"
        f'[report]\nsink = "jsonl"\npath = "{sink}"\n{context}'
        '[[exception]]\nhost = "127.0.0.1"\nreason = "test"\n'
        + REPORT_RULES[rule].format(pin=pin, ca=world.ca_file)
        + "\n"
    )
    lines = client(AUTHORIZED, policy, evil_port, real_port)
    assert lines[0].startswith("REJECTED")
    assert lines[1] == "OK"
    assert evil.received in ([], [b""])
    assert len(real.received) == 1
    assert real.received[0].startswith(b"GET / HTTP/1.1")
    assert _records(sink) == []


@pytest.mark.parametrize("where", ["exception", "top_level", "context"])
def test_report_mode_pin_mismatch_python_accepts_is_reported(world: World, where: str) -> None:
    """A pinned exception in report mode whose pin fails on a chain Python accepts: recorded."""
    port, real, _ = world.server(world.ca)
    other_pin = _pin_of(world.attacker_ca.issue_cert("127.0.0.1").cert_chain_pems[0])
    sink = world.tmp / "r.jsonl"
    mode = {
        "exception": ("", "", 'mode = "report"'),
        "top_level": ('mode = "report"', "", ""),
        "context": ("", '[context."http.client"]\nmode = "report"', ""),
    }[where]
    policy = world.policy(
        f'version = 1\n{mode[0]}\ntrust = ["{world.ca_file}"]\n'
        f'[report]\nsink = "jsonl"\npath = "{sink}"\n{mode[1]}\n'
        f'[[exception]]\nhost = "127.0.0.1"\n{mode[2]}\npin = ["{other_pin}"]\nreason = "test"\n'
    )
    assert client(AUTHORIZED, policy, port, port) == ["OK", "OK"]
    assert len(real.received) == 2
    records = _records(sink)
    assert records
    assert all(r["reasons"] == ["pin_mismatch"] for r in records)


# --- 14. ssl.wrap_socket() (3.10, 3.11) ----------------------------------------------------------


WRAP_SOCKET = f"""
def send():
    tls = ssl.wrap_socket(socket.create_connection(("127.0.0.1", int(args[0]))))
    tls.sendall(b"{SECRET.decode()}\\n"); tls.recv(3); tls.close()
print(outcome(send))
"""


@pytest.mark.skipif(not hasattr(ssl, "wrap_socket"), reason="ssl.wrap_socket() is gone (3.12+)")
@pytest.mark.parametrize("allow", [True, False])
def test_ssl_wrap_socket_is_a_code_opt_out(world: World, allow: bool) -> None:
    """ssl.wrap_socket(): a refused opt-out reaches no MITM; an allowed one is recorded."""
    port, server, _ = world.server(world.attacker_ca)
    sink = world.tmp / "r.jsonl"
    policy = world.policy(f"""
        version = 1
        allow_code_opt_out = {str(allow).lower()}
        [report]
        sink = "jsonl"
        path = "{sink}"
        """)
    line = client(WRAP_SOCKET, policy, port)[0]
    if allow:
        assert line == "OK"
        assert server.received == [SECRET + b"\n"]
        (record,) = _records(sink)
        assert "code_opt_out" in record["reasons"]  # type: ignore[operator]
    else:
        assert line == "REJECTED hostname_mismatch"
        assert server.received in ([], [b""])
        assert _records(sink) == []


@pytest.mark.skipif(not hasattr(ssl, "wrap_socket"), reason="ssl.wrap_socket() is gone (3.12+)")
def test_ssl_wrap_socket_server_side_is_unchanged(world: World) -> None:
    """ssl.wrap_socket(server_side=True) still makes a server socket under the hook."""
    identity = world.file(
        "server.pem", world.ca.issue_cert("localhost").private_key_and_cert_chain_pem.bytes()
    )
    policy = world.policy("version = 1\nallow_code_opt_out = false\n")
    code = """
    a, b = socket.socketpair()
    server = ssl.wrap_socket(a, server_side=True, certfile=args[0], do_handshake_on_connect=False)
    print(server.server_side, type(server.context).__name__)
    """
    assert client(code, policy, identity) == ["True SSLContext"]


# --- 15. Weakenings are found by comparison with Python's default ------------------------------


def _serve_chain(world: World, chain_pem: bytes, key_pem: bytes) -> tuple[int, Recorder]:
    """Serve ``chain_pem`` (an RSA-1024 leaf too: the server itself accepts any key)."""
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.set_ciphers("DEFAULT:@SECLEVEL=0")
    n = len(world.servers)
    context.load_cert_chain(
        world.file(f"chain{n}.pem", chain_pem), world.file(f"key{n}.pem", key_pem)
    )
    recorder = Recorder(context)
    port = recorder.start()
    world.servers.append(recorder)
    return port, recorder


def _strict_only_chain(pki: TestPKI) -> tuple[bytes, bytes]:
    """A chain that only VERIFY_X509_STRICT refuses: the leaf has no authority key identifier."""
    key = ec.generate_private_key(ec.SECP256R1())
    leaf = pki._leaf_builder(  # the test PKI's own leaf, minus one extension
        key.public_key(),
        subject=x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")]),
        issuer_name=pki.intermediate.cert.subject,
        names=("127.0.0.1",),
        not_before=None,
        not_after=None,
        eku=(ExtendedKeyUsageOID.SERVER_AUTH,),
    ).sign(pki.intermediate.key, hashes.SHA256())
    chain = leaf.public_bytes(serialization.Encoding.PEM) + pki.intermediate_pem
    key_pem = key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )
    return chain, key_pem


WEAKENED_DEFAULTS = {
    "security_level": 'ctx.set_ciphers("DEFAULT:@SECLEVEL=0")',
    "x509_strict_cleared": "ctx.verify_flags &= ~ssl.VERIFY_X509_STRICT",
}

WEAKENED_CLIENT = """
def go(port):
    ctx = ssl.create_default_context(cafile=args[2])
    {weaken}
    with ctx.wrap_socket(socket.create_connection(("127.0.0.1", port)),
                         server_hostname="127.0.0.1") as tls:
        tls.sendall(b"x\\n"); tls.recv(3)
print(outcome(lambda: go(int(args[0]))))
print(outcome(lambda: go(int(args[1]))))
"""


@pytest.mark.parametrize(
    "weakening",
    [
        "security_level",
        pytest.param(
            "x509_strict_cleared",
            marks=pytest.mark.skipif(
                sys.version_info < (3, 13), reason="VERIFY_X509_STRICT is a default from 3.13"
            ),
        ),
    ],
)
@pytest.mark.parametrize("allow", [True, False])
def test_a_default_weakened_is_an_opt_out(
    world: World, pki: TestPKI, weakening: str, allow: bool
) -> None:
    """A lowered security level or a cleared default flag: recorded, or refused before any byte.

    The chain served first is one Python's default refuses only for what the code weakened
    (an RSA-1024 leaf; a leaf without authority key identifier under 3.13's X509_STRICT);
    the twin, a sound chain, connects with the same code under the refusal too.
    """
    if weakening == "x509_strict_cleared":
        chain, key = _strict_only_chain(pki)
    else:
        chain, key = pki["weak_key"].chain_pem, pki["weak_key"].key_pem
    weak_port, weak = _serve_chain(world, chain, key)
    good_port, good = _serve_chain(world, pki["good"].chain_pem, pki["good"].key_pem)
    sink = world.tmp / "r.jsonl"
    policy = world.policy(f"""
        version = 1
        allow_code_opt_out = {str(allow).lower()}
        [report]
        sink = "jsonl"
        path = "{sink}"
        """)
    ca = world.file("root.pem", pki.root_pem)
    code = WEAKENED_CLIENT.format(weaken=WEAKENED_DEFAULTS[weakening])
    lines = client(code, policy, weak_port, good_port, ca)
    assert lines[1] == "OK"
    assert good.received == [b"x\n"]
    if allow:
        assert lines[0] == "OK"
        records = _records(sink)
        assert len(records) == 2
        assert all("code_opt_out" in r["reasons"] for r in records)  # type: ignore[operator]
        assert records[0]["verdict"] == "opt_out"
    else:
        assert lines[0].startswith("REJECTED")
        if weakening == "security_level":
            assert lines[0] == "REJECTED weak_key"
        assert weak.received in ([], [b""])
        assert _records(sink) == []


# Every route by which a context's settings change, one thread toggling through it: a Python
# setter, ssl's C descriptors called directly (past every Python-level hook), and truststore's
# own setters (which write onto its inner context through those descriptors).
ROUTES = """
import _ssl, threading
sys.setswitchinterval(1e-6)  # switch threads as often as the interpreter can
port, rounds, route, weakening = int(args[0]), int(args[1]), args[2], args[3]
if route == "truststore":
    import truststore
    shared = truststore.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    target = shared
else:
    shared = ssl.create_default_context()
    target = shared
C = _ssl._SSLContext
def put(name, value):
    if route == "descriptor":
        getattr(C, name).__set__(target, value)
    else:
        setattr(target, name, value)
strong_flags = int(shared.verify_flags)
def weaken():
    if weakening == "flags":
        put("verify_flags", ssl.VerifyFlags(strong_flags | 0x200000 | 0x40))  # NO_CHECK_TIME, PROXY
    elif weakening == "versions":
        put("minimum_version", ssl.TLSVersion.TLSv1)
    else:
        put("check_hostname", False)
        put("verify_mode", ssl.CERT_NONE)
def restore():
    if weakening == "flags":
        put("verify_flags", ssl.VerifyFlags(strong_flags))
    elif weakening == "versions":
        put("minimum_version", ssl.TLSVersion.TLSv1_2)
    else:
        put("verify_mode", ssl.CERT_REQUIRED)
        put("check_hostname", True)
results = {"ok": 0, "rejected": 0, "error": 0}
lock = threading.Lock()
done = threading.Event()
def toggle():
    while not done.is_set():
        try:
            weaken()
            restore()
        except ValueError:  # the other toggler's half-way state
            pass
def work():
    for _ in range(rounds):
        try:
            with socket.create_connection(("127.0.0.1", port)) as raw:
                with shared.wrap_socket(raw, server_hostname="127.0.0.1") as tls:
                    tls.sendall(b"x\\n"); tls.recv(3)
            key = "ok"
        except ssl.SSLCertVerificationError:
            key = "rejected"
        except OSError:
            key = "error"
        with lock:
            results[key] += 1
togglers = [threading.Thread(target=toggle) for _ in range(2)]
workers = [threading.Thread(target=work) for _ in range(6)]
for t in togglers + workers: t.start()
for t in workers: t.join()
done.set()
for t in togglers: t.join()
print(json.dumps(results))
"""

_ROUTES = ["python", "descriptor", "truststore"]


@pytest.mark.parametrize("weakening", ["verification", "flags"])
@pytest.mark.parametrize("route", _ROUTES)
def test_no_route_of_change_lets_a_mitm_through_a_refusal(
    world: World, route: str, weakening: str
) -> None:
    """8 threads, 2 of them weakening the shared context by ``route``: no MITM gets a byte.

    Through a C descriptor or truststore's setters the change passes every Python-level
    hook; the verdict depends only on the settings read when the connection was planned.
    The attacker: its own CA for ``verification``; a certificate the trusted CA issued, but
    expired, for ``flags`` (``NO_CHECK_TIME`` would accept it).
    """
    if weakening == "flags":
        port, attacker, _ = world.server_with(world.ca.issue_cert(
            "127.0.0.1", not_after=datetime.datetime(2001, 1, 1, tzinfo=datetime.timezone.utc),
            not_before=datetime.datetime(2000, 1, 1, tzinfo=datetime.timezone.utc),
        ))  # fmt: skip
    else:
        port, attacker, _ = world.server(world.attacker_ca)
    policy = world.policy(f'version = 1\nallow_code_opt_out = false\ntrust = ["{world.ca_file}"]\n')
    (line,) = client(ROUTES, policy, port, 60, route, weakening)
    assert json.loads(line) == {"ok": 0, "rejected": 360, "error": 0}
    assert all(data == b"" for data in attacker.received)


@pytest.mark.parametrize("route", _ROUTES)
def test_every_route_of_change_still_reaches_the_real_server(world: World, route: str) -> None:
    """The twin: the same toggling reaches the real server, and versions stay the policy's."""
    port, real, _ = world.server(world.ca)
    policy = world.policy(f'version = 1\nallow_code_opt_out = false\ntrust = ["{world.ca_file}"]\n')
    (line,) = client(ROUTES, policy, port, 60, route, "verification")
    assert json.loads(line) == {"ok": 360, "rejected": 0, "error": 0}
    assert real.received == [b"x\n"] * 360


LOWERED = """
port = int(args[0])
def go():
    ctx = ssl.create_default_context()
    ctx.minimum_version = ssl.TLSVersion.TLSv1_2  # below the policy's floor
    with socket.create_connection(("127.0.0.1", port)) as raw:
        with ctx.wrap_socket(raw, server_hostname="127.0.0.1") as tls:
            tls.sendall(b"x\\n"); tls.recv(3)
            return tls.version()
print(outcome(go))
"""


@pytest.mark.parametrize("allow", [True, False])
def test_a_minimum_tls_version_lowered_by_code_is_the_policys_floor(
    world: World, allow: bool
) -> None:
    """minimum_tls = 1.3: code that lowers a context to TLS 1.2 gets no TLS 1.2 connection.

    Unless the policy obeys code opt-outs: then it connects and the opt-out is recorded. The
    twin: a TLS 1.3 server is reached either way.
    """
    port_12, old, _ = world.server(world.ca, tls13=False)
    port_13, _, _ = world.server(world.ca)
    sink = world.tmp / "records.jsonl"
    policy = world.policy(f"""\
        version = 1
        minimum_tls = "1.3"
        allow_code_opt_out = {str(allow).lower()}
        trust = ["{world.ca_file}"]
        [report]
        sink = "jsonl"
        path = "{sink}"
        """)
    (line,) = client(LOWERED, policy, port_12)
    if allow:
        assert line == "TLSv1.2"
        (record,) = _records(sink)
        assert record["reasons"] == ["code_opt_out"]
    else:
        assert line == "ERROR SSLError"
        assert old.received in ([], [b""])
        assert _records(sink) == []
    assert client(LOWERED, policy, port_13) == ["TLSv1.3"]


REIMPORTED = """
import importlib, http.client
evil, real, how = int(args[0]), int(args[1]), args[2]
ssl.create_default_context()  # the first context: the hooks are in place
if how == "reload":
    ssl = importlib.reload(ssl)
else:
    sys.modules.pop("ssl")
    import ssl
def unverified(port):
    with socket.create_connection(("127.0.0.1", port)) as raw:
        with ssl._create_unverified_context().wrap_socket(raw, server_hostname="127.0.0.1") as tls:
            tls.sendall(b"x\\n"); tls.recv(3)
def https(port):
    conn = http.client.HTTPSConnection("127.0.0.1", port, timeout=10,
                                       context=ssl.create_default_context())
    conn.connect(); conn.sock.sendall(b"x\\n"); conn.sock.recv(3); conn.close()
print(outcome(lambda: unverified(evil)))
print(outcome(lambda: https(evil)))
print(outcome(lambda: https(real)))
print(outcome(lambda: unverified(real)))
"""


@pytest.mark.parametrize("how", ["reload", "import_again"])
def test_a_reimported_ssl_is_hooked_again(world: World, how: str) -> None:
    """After ``importlib.reload(ssl)`` or a fresh ``import ssl``, the policy still decides.

    Under ``allow_code_opt_out = false`` the new module's ``_create_unverified_context()``
    verifies (the MITM gets no byte) and its ``create_default_context()`` trusts the
    policy's CA (the real server, which only the policy trusts, is reached).
    """
    evil, attacker, _ = world.server(world.attacker_ca)
    real, _, _ = world.server(world.ca)
    policy = world.policy(f'version = 1\nallow_code_opt_out = false\ntrust = ["{world.ca_file}"]\n')
    lines = client(REIMPORTED, policy, evil, real, how)
    assert lines == ["REJECTED unknown_issuer", "REJECTED unknown_issuer", "OK", "OK"]
    assert all(data == b"" for data in attacker.received)


# What a hooked process's first handshake must not load: typing and contextlib (about 3 ms,
# see _notyping), and for a connection that nothing records, the report modules.
FIRST_HANDSHAKE = """
context = ssl.create_default_context()
if args[1] == "opt-out":
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
before = set(sys.modules)
def go():
    with socket.create_connection(("127.0.0.1", int(args[0]))) as raw:
        with context.wrap_socket(raw, server_hostname="localhost") as tls:
            tls.sendall(b"x\\n")
            tls.recv(3)
print(outcome(go))
heavy = ("typing", "contextlib", "dataclasses", "inspect", "sslcustomize._report._recording")
loaded = set(sys.modules) - before
print("sslcustomize._connection._connect" in loaded, sorted(set(heavy) & loaded))
"""


@pytest.mark.parametrize("mode", ["enforce", "report"])
def test_the_first_handshake_loads_no_typing(world: World, mode: str) -> None:
    """A hooked process's first handshake loads the connection path, not typing or records.

    The attacker's server is rejected as well without them. The twin: a code opt-out is let
    through and recorded, and the records load the report modules.
    """
    good, _, _ = world.server(world.ca)
    evil, _, _ = world.server(world.attacker_ca)
    sink = world.tmp / "r.jsonl"
    policy = world.policy(f"""
        version = 1
        mode = "{mode}"
        trust = ["{world.ca_file}"]
        [report]
        sink = "jsonl"
        path = "{sink}"
        """)
    client(FIRST_HANDSHAKE, policy, good, "verify")  # parses the policy (tomllib: typing)
    assert client(FIRST_HANDSHAKE, policy, good, "verify") == ["OK", "True []"]
    rejected = client(FIRST_HANDSHAKE, policy, evil, "verify")
    assert rejected == ["REJECTED unknown_issuer", "True []"]
    # Records load the report modules (and, through them, typing: not the handshake's path).
    recorded = client(FIRST_HANDSHAKE, policy, evil, "opt-out")
    assert recorded[0] == "OK"
    assert "'sslcustomize._report._recording'" in recorded[1]
    assert [r["verdict"] for r in _records(sink)] == ["opt_out"]


# --- 16. The policy's anchors in a context's own store: registered when it is used -------------

OWN_STORE = """
import _ssl, asyncio
port, path = int(args[0]), args[1]
def debug(*_):
    pass  # a debugging callback: the connection runs on the caller's own context
def own_socket():
    ctx = ssl.create_default_context()
    ctx._msg_callback = debug
    with socket.create_connection(("127.0.0.1", port), timeout=10) as raw:
        with ctx.wrap_socket(raw, server_hostname="localhost") as tls:
            assert tls._sslobj._raw.context is ctx
            tls.sendall(b"x\\n"); tls.recv(3)
def own_asyncio():
    async def go():
        ctx = ssl.create_default_context()
        ctx._msg_callback = debug
        reader, writer = await asyncio.open_connection(
            "127.0.0.1", port, ssl=ctx, server_hostname="localhost")
        assert writer.get_extra_info("ssl_object")._sslobj._raw.context is ctx
        writer.write(b"x\\n"); await reader.readline()
        writer.close(); await writer.wait_closed()
    asyncio.run(go())
def moved():
    first = ssl.create_default_context()
    first._msg_callback = debug
    with socket.create_connection(("127.0.0.1", port), timeout=10) as raw:
        with first.wrap_socket(raw, server_hostname="localhost",
                               do_handshake_on_connect=False) as tls:
            tls.context = ssl.create_default_context()  # a fresh one: nothing registered yet
            tls.do_handshake()
            tls.sendall(b"x\\n"); tls.recv(3)
def direct():
    # Past the policy: the context handed to _ssl itself, its store read first.
    ctx = ssl.create_default_context()
    ctx.get_ca_certs()
    with socket.create_connection(("127.0.0.1", port), timeout=10) as raw:
        tls = _ssl._SSLContext._wrap_socket(ctx, raw, False, "localhost")
        tls.do_handshake()
        tls.write(b"x\\n"); tls.read(3)
print(outcome({"own_socket": own_socket, "own_asyncio": own_asyncio, "moved": moved,
               "direct": direct}[path]))
"""


@pytest.mark.parametrize("path", ["own_socket", "own_asyncio", "moved", "direct"])
@pytest.mark.parametrize("target", ["attacker", "real"])
def test_a_store_used_by_the_context_itself_has_the_policys_anchors(
    world: World, path: str, target: str
) -> None:
    """Where a context's own store verifies, it trusts the policy's anchors and nothing else.

    The policy's anchors are registered in a context only when its store is read or a
    connection is made on it rather than on the runtime's engine: a debugging callback keeps
    a connection on the caller's context (over a socket and asyncio's memory BIOs), a
    connection can be moved to a fresh context before its handshake, and code can read the
    store and hand the context to ``_ssl`` itself. The real server is reached on each; the
    attacker's (its own CA, a valid name) never gets a byte.
    """
    real_port, real, _ = world.server(world.ca, "localhost")
    evil_port, evil, _ = world.server(world.attacker_ca, "localhost")
    policy = world.policy(f"""
        version = 1
        trust = ["{world.ca_file}"]
        """)
    port = evil_port if target == "attacker" else real_port
    [line] = client(OWN_STORE, policy, port, path)
    if target == "real":
        assert line == "OK"
        assert real.received == [b"x\n"]
    else:
        assert line.startswith("REJECTED"), line
        assert evil.received in ([], [b""])


def test_a_context_handed_to_ssl_directly_refuses_until_its_store_is_read(world: World) -> None:
    """Past the policy, a context whose anchors were never registered refuses every server.

    Its own store is empty: even the real server is refused (fail closed), and the
    attacker's never accepted; once code reads the store, the real server is reached.
    """
    real_port, real, _ = world.server(world.ca, "localhost")
    evil_port, evil, _ = world.server(world.attacker_ca, "localhost")
    policy = world.policy(f"""
        version = 1
        trust = ["{world.ca_file}"]
        """)
    code = """
    import _ssl
    ctx = ssl.create_default_context()
    def direct(port):
        with socket.create_connection(("127.0.0.1", port), timeout=10) as raw:
            tls = _ssl._SSLContext._wrap_socket(ctx, raw, False, "localhost")
            tls.do_handshake()
            tls.write(b"x\\n"); tls.read(3)
    for port in map(int, args):
        print(outcome(lambda: direct(port)))
    ctx.cert_store_stats()
    for port in map(int, args):
        print(outcome(lambda: direct(port)))
    """
    lines = client(code, policy, real_port, evil_port)
    assert lines == ["REJECTED native", "REJECTED native", "OK", "REJECTED native"]
    assert real.received == [b"x\n"]
    assert evil.received == []
