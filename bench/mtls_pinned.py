"""The first mutual-TLS connection to a pinned server, against one to a server trusted by CA.

Run it with the Python of an environment where sslcustomize is installed (a wheel, so that
the ``.pth`` hook is in place)::

    python bench/mtls_pinned.py [--rounds N]

A loopback server (its own process) requires a client certificate. Each round starts, in
turn, a fresh process under each of two policies that times its first and its second
connection (TCP connect, handshake, one request and its answer) with the same client
certificate, after a connection by another name that warms up what a process loads for its
first connection:

* ``ca``: an exception whose ``ca`` is the server's CA: verified natively from the first
  connection (the baseline);
* ``pin``: an exception that pins the server's key: the first connection first learns the
  pinned leaf in a handshake of its own without the client certificate, then connects
  verifying natively against it; the second connection verifies against the learned leaf.

It prints the medians in milliseconds and the ratios of the medians against the baseline
of the same run.
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

import trustme
from cryptography import x509
from cryptography.hazmat.primitives import serialization

SERVER = r"""
import socket, ssl, sys, threading
context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
context.load_cert_chain(sys.argv[1])
context.load_verify_locations(sys.argv[2])
context.verify_mode = ssl.CERT_REQUIRED
listener = socket.create_server(("127.0.0.1", 0), backlog=64)
print(listener.getsockname()[1], flush=True)
def handle(conn):
    try:
        with context.wrap_socket(conn, server_side=True) as tls:
            if tls.recv(16):
                tls.sendall(b"ok\n")
    except OSError:
        pass
while True:
    conn, _ = listener.accept()
    threading.Thread(target=handle, args=(conn,), daemon=True).start()
"""

CHILD = r"""
import socket, ssl, sys, time
port, identity, server_ca = int(sys.argv[1]), sys.argv[2], sys.argv[3]
# Warm up what a first connection of the process loads (the connection path, a rejection):
# a connection by another name, which no exception covers and the certificate does not name.
try:
    warm = ssl.create_default_context(cafile=server_ca)
    with warm.wrap_socket(socket.create_connection(("127.0.0.1", port), timeout=10),
                          server_hostname="localhost"):
        pass
except ssl.SSLCertVerificationError:
    pass
def once():
    start = time.perf_counter()
    context = ssl.create_default_context()
    context.load_cert_chain(identity)
    with socket.create_connection(("127.0.0.1", port), timeout=10) as raw:
        with context.wrap_socket(raw, server_hostname="127.0.0.1") as tls:
            tls.sendall(b"x\n")
            assert tls.recv(3) == b"ok\n"
    return (time.perf_counter() - start) * 1000
print(once(), once())
"""


def _pin(pem: bytes) -> str:
    key = x509.load_pem_x509_certificate(pem).public_key()
    der = key.public_bytes(
        serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    return "sha256/" + base64.b64encode(hashlib.sha256(der).digest()).decode()


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark and print its figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=15)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as scratch:
        tmp = Path(scratch)
        server_ca, client_ca = trustme.CA(), trustme.CA()
        leaf = server_ca.issue_cert("127.0.0.1")
        server_pem, client_ca_pem = tmp / "server.pem", tmp / "client-ca.pem"
        server_ca_pem, identity = tmp / "server-ca.pem", tmp / "client.pem"
        leaf.private_key_and_cert_chain_pem.write_to_path(str(server_pem))
        client_ca.cert_pem.write_to_path(str(client_ca_pem))
        server_ca.cert_pem.write_to_path(str(server_ca_pem))
        client_ca.issue_cert("client.test").private_key_and_cert_chain_pem.write_to_path(
            str(identity)
        )
        rule = {
            "ca": f'ca = ["{server_ca_pem}"]',
            "pin": f'pin = ["{_pin(leaf.cert_chain_pems[0].bytes())}"]',
        }
        policies = {}
        for name, line in rule.items():
            policies[name] = tmp / f"{name}.toml"
            policies[name].write_text(
                f'version = 1\n[report]\nsink = "none"\n[[exception]]\nhost = "127.0.0.1"\n'
                f'{line}\nreason = "bench"\n'
            )
        server = subprocess.Popen(
            [sys.executable, "-I", "-c", SERVER, str(server_pem), str(client_ca_pem)],
            stdout=subprocess.PIPE,
            text=True,
        )
        try:
            assert server.stdout is not None
            port = server.stdout.readline().strip()
            times: dict[str, list[tuple[float, float]]] = {name: [] for name in rule}
            for _ in range(args.rounds):
                for name, policy in policies.items():
                    env = {**os.environ, "SSLCUSTOMIZE_POLICY": str(policy)}
                    out = subprocess.run(
                        [sys.executable, "-c", CHILD, port, str(identity), str(server_ca_pem)],
                        capture_output=True, text=True, env=env, check=True, cwd=scratch,
                    ).stdout.split()  # fmt: skip
                    times[name].append((float(out[0]), float(out[1])))
        finally:
            server.kill()
            server.wait()
    print(f"Python {sys.version.split()[0]}, {args.rounds} rounds, mutual TLS to 127.0.0.1")
    base = [statistics.median(t[i] for t in times["ca"]) for i in (0, 1)]
    for name in rule:
        first, second = (statistics.median(t[i] for t in times[name]) for i in (0, 1))
        print(
            f"  {name:4} first {first:6.2f} ms ({first / base[0]:.2f}x)"
            f"  second {second:6.2f} ms ({second / base[1]:.2f}x)"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
