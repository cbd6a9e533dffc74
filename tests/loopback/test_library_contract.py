"""A hooked library does not notice the hook except in the verdict (issue 31).

Each test runs a program in a fresh interpreter started through the ``.pth`` hook under a
policy that trusts only the test CA, the way users get sslcustomize, and checks that the
library behaves as it does without sslcustomize: its other backends (pyOpenSSL, HTTP/2), its
own checks (an encrypted key without a password), what it reads at each call
(``SSLKEYLOGFILE``, ``REQUESTS_CA_BUNDLE``) and its warnings. Each is paired with the
verdict the policy still gives (a MITM with a CA of its own is refused).
"""

from __future__ import annotations

import contextlib
import os
import ssl
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest
import trustme
from cryptography.hazmat.primitives import serialization

from _proxy import serve_proxy
from _servers import ServerAddress, serve_h2, serve_tls

PRELUDE = """
import json, os, ssl, sys, warnings
args = sys.argv[1:]
def outcome(call):
    try:
        call()
    except Exception as error:  # noqa: BLE001 - the test reads the kind of failure
        seen, pending = [], [error]
        while pending:
            item = pending.pop()
            if isinstance(item, BaseException) and item not in seen:
                seen.append(item)
                pending += [item.__cause__, item.__context__, *item.args]
                pending.append(getattr(item, "reason", None))
        kinds = [type(item).__name__ for item in seen]
        if "CertificateRejected" in kinds or "SSLCertVerificationError" in kinds:
            return "REJECTED"
        if any("certificate verify failed" in str(item) for item in seen):
            return "REJECTED"  # pyOpenSSL's own refusal
        return "ERROR " + " | ".join(f"{type(i).__name__}: {i}" for i in seen[:3])
    return "OK"
"""


class Pair:
    """The test CA's server and an attacker's (a CA of its own), and the policy."""

    def __init__(self, tmp: Path) -> None:
        self.tmp = tmp
        self.ca = trustme.CA()
        self.attacker = trustme.CA()
        self.ca_file = tmp / "ca.pem"
        self.ca_file.write_bytes(self.ca.cert_pem.bytes())
        self.policy = tmp / "policy.toml"
        self.policy.write_text(f'version = 1\ntrust = ["{self.ca_file}"]\n')

    def context(self, ca: trustme.CA, *, client_ca: trustme.CA | None = None) -> ssl.SSLContext:
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ca.issue_cert("localhost", "127.0.0.1").configure_cert(context)
        if client_ca is not None:
            client_ca.configure_trust(context)
            context.verify_mode = ssl.CERT_REQUIRED
        return context

    def run(self, code: str, *args: object, env: dict[str, str] | None = None) -> list[str]:
        environment = {
            key: value
            for key, value in os.environ.items()
            if key not in ("SSL_CERT_FILE", "SSL_CERT_DIR", "REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE")
        }
        environment.update(SSLCUSTOMIZE_POLICY=str(self.policy), HOME=str(self.tmp))
        environment.update(env or {})
        result = subprocess.run(
            [sys.executable, "-c", PRELUDE + textwrap.dedent(code), *map(str, args)],
            capture_output=True, text=True, env=environment, timeout=60, check=False,
        )  # fmt: skip
        assert result.returncode == 0, result.stderr
        return result.stdout.splitlines()


@pytest.fixture
def pair(tmp_path: Path) -> Pair:
    """The test CA, an attacker's CA and a policy trusting only the first."""
    return Pair(tmp_path)


@contextlib.contextmanager
def servers(pair: Pair, **options: trustme.CA) -> Iterator[tuple[ServerAddress, ServerAddress]]:
    """Serve HTTPS with the test CA's certificate and with the attacker's."""
    with (
        serve_tls(pair.context(pair.ca, **options)) as good,
        serve_tls(pair.context(pair.attacker, **options)) as evil,
    ):
        yield good, evil


PYOPENSSL = """
import urllib3
import urllib3.contrib.pyopenssl as pyopenssl
def get(url, **kw):
    with urllib3.PoolManager(retries=False, timeout=10, **kw) as pool:
        assert pool.request("GET", url).data == b"ok"
good, evil, ca = args
pyopenssl.inject_into_urllib3()
print(outcome(lambda: get(good, ca_certs=ca)))
print(outcome(lambda: get(evil, ca_certs=ca)))
pyopenssl.extract_from_urllib3()
print(type(urllib3.util.ssl_.SSLContext).__name__, urllib3.util.ssl_.SSLContext.__name__)
print(outcome(lambda: get(good)))  # the policy's anchors again
print(outcome(lambda: get(evil)))
"""


def test_urllib3_with_pyopenssl_keeps_working(pair: Pair) -> None:
    """urllib3's pyOpenSSL backend works as without the hook, and extraction gives it back.

    With pyOpenSSL injected, pyOpenSSL verifies (with urllib3's ``ca_certs``); once it is
    extracted, urllib3's contexts are the policy's again: the policy's CA, the MITM refused.
    """
    with servers(pair) as (good, evil):
        lines = pair.run(PYOPENSSL, good.url(), evil.url(), pair.ca_file)
    assert lines == ["OK", "REJECTED", "type Urllib3Context", "OK", "REJECTED"]


HTTP2_LATE = """
import urllib3, urllib3.http2
def get(url):
    with urllib3.PoolManager(retries=False, timeout=10) as pool:
        assert pool.request("GET", url).data == b"ok"
http1, h2, h2_evil = args
print(outcome(lambda: get(http1)))
urllib3.http2.inject_into_urllib3()  # after a first request
print(outcome(lambda: get(h2)))
print(outcome(lambda: get(h2_evil)))
urllib3.http2.extract_from_urllib3()
print(outcome(lambda: get(http1)))
"""


def test_urllib3_http2_enabled_after_a_request(pair: Pair) -> None:
    """HTTP/2 turned on after a first HTTPS request negotiates h2 and keeps verifying."""
    pytest.importorskip("urllib3.http2")
    with (
        servers(pair) as (http1, _),
        serve_h2(pair.context(pair.ca)) as h2,
        serve_h2(pair.context(pair.attacker)) as h2_evil,
    ):
        lines = pair.run(HTTP2_LATE, http1.url(), h2.url(), h2_evil.url())
    assert lines == ["OK", "OK", "REJECTED", "OK"]


ENCRYPTED_KEY = """
import urllib3
good, evil, cert, key = args
def get(url, **kw):
    with urllib3.PoolManager(retries=False, timeout=10, cert_file=cert, key_file=key, **kw) as pool:
        assert pool.request("GET", url).data == b"ok"
print(outcome(lambda: get(good)))
print(outcome(lambda: get(good, key_password="secret")))
print(outcome(lambda: get(evil, key_password="secret")))
"""


def test_urllib3_encrypted_client_key(pair: Pair) -> None:
    """An encrypted key without a password gets urllib3's own error, with one it works.

    OpenSSL must never prompt (stdin is closed here: a prompt would fail differently), and
    the MITM never gets the client certificate.
    """
    client_ca = trustme.CA()
    identity = client_ca.issue_cert("client.test")
    key = serialization.load_pem_private_key(identity.private_key_pem.bytes(), password=None)
    encrypted = key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.TraditionalOpenSSL,
        serialization.BestAvailableEncryption(b"secret"),
    )
    cert_file, key_file = pair.tmp / "client.pem", pair.tmp / "client.key"
    cert_file.write_bytes(identity.cert_chain_pems[0].bytes())
    key_file.write_bytes(encrypted)
    with servers(pair, client_ca=client_ca) as (good, evil):
        lines = pair.run(ENCRYPTED_KEY, good.url(), evil.url(), cert_file, key_file)
    assert lines[0].startswith("ERROR SSLError: Client private key is encrypted, password is")
    assert lines[1:] == ["OK", "REJECTED"]


KEYLOG_LATE = """
import urllib3
good, keylog = args
def get(url):
    with urllib3.PoolManager(retries=False, timeout=10) as pool:
        assert pool.request("GET", url).data == b"ok"
print(outcome(lambda: get(good)))
os.environ["SSLKEYLOGFILE"] = keylog  # after the first connection, as urllib3 reads it
print(outcome(lambda: get(good)))
print(os.path.getsize(keylog) > 0)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    for _ in range(2):
        urllib3.util.ssl_.create_urllib3_context(ssl_version=ssl.PROTOCOL_TLSv1_2)
print(sum(issubclass(w.category, FutureWarning) for w in caught))
"""


def test_urllib3_reads_sslkeylogfile_and_warns_at_each_call(pair: Pair) -> None:
    """``SSLKEYLOGFILE`` set after a first connection is used; ``ssl_version`` warns each time."""
    keylog = pair.tmp / "keys.log"
    with servers(pair) as (good, _):
        lines = pair.run(KEYLOG_LATE, good.url(), keylog)
    assert lines == ["OK", "OK", "True", "2"]


REQUESTS_BUNDLE = """
import requests
url, bundle = args
def get():
    assert requests.get(url, timeout=10).text == "ok"
print(outcome(get))  # set when the program started
del os.environ["REQUESTS_CA_BUNDLE"]
print(outcome(get))
os.environ["REQUESTS_CA_BUNDLE"] = bundle
print(outcome(get))
"""


def test_requests_ca_bundle_follows_the_environment_of_the_call(pair: Pair) -> None:
    """A CA that only ``REQUESTS_CA_BUNDLE`` names is trusted while it is set, not after.

    requests reads the variable at each request; so does the policy's environment trust,
    whether the variable was set when the program started or later.
    """
    other = trustme.CA()
    bundle = pair.tmp / "other.pem"
    bundle.write_bytes(other.cert_pem.bytes())
    with serve_tls(pair.context(other)) as server:
        lines = pair.run(
            REQUESTS_BUNDLE, server.url(), bundle, env={"REQUESTS_CA_BUNDLE": str(bundle)}
        )
    assert lines == ["OK", "REJECTED", "OK"]


PROXIED = """
import requests
url, = args
try:
    requests.get(url, timeout=10)
except requests.exceptions.SSLError as error:
    pending, fixes = [error], []
    while pending:
        item = pending.pop()
        if isinstance(item, BaseException):
            if type(item).__name__ == "CertificateRejected":
                fixes.append(item.fix)
                break
            pending += [item.__cause__, item.__context__, *item.args, getattr(item, "reason", 0)]
    print(fixes[0] if fixes else "no rejection")
"""


def test_a_rejection_through_a_proxy_never_advises_pinning(pair: Pair) -> None:
    """Through an intercepting proxy the fix is the proxy's CA, never a pin of its key.

    The twin: the same server reached without a proxy gets the pin advice for its own key.
    """
    inspecting = trustme.CA()
    with (
        serve_tls(pair.context(trustme.CA())) as server,
        serve_proxy(intercept=inspecting) as proxy,
    ):
        env = {"HTTPS_PROXY": proxy.url, "https_proxy": proxy.url}
        (through,) = pair.run(PROXIED, server.url(), env=env)
        (direct,) = pair.run(PROXIED, server.url())
    assert f"a proxy is configured ({proxy.url})" in through
    assert "sslcustomize trust --ca-file PROXY-CA.pem" in through
    assert f"sslcustomize trust 127.0.0.1:{server.port}" not in through
    assert f"sslcustomize trust 127.0.0.1:{server.port}" in direct
    assert "proxy" not in direct


SERVER_SIDE = """
import socket, threading, urllib3.util.ssl_ as better_ssl
certfile, = args
server_context = better_ssl.SSLContext(ssl.PROTOCOL_TLS)  # urllib3's tests serve with it
server_context.load_cert_chain(certfile)
listener = socket.create_server(("127.0.0.1", 0))
def serve():
    sock = listener.accept()[0]
    with server_context.wrap_socket(sock, server_side=True) as tls:
        tls.sendall(b"ok")
threading.Thread(target=serve, daemon=True).start()
def fetch():
    client = ssl.create_default_context()
    with socket.create_connection(listener.getsockname()) as raw:
        with client.wrap_socket(raw, server_hostname="localhost") as tls:
            assert tls.recv(2) == b"ok"
print(outcome(fetch))
"""


def test_urllib3s_context_class_still_makes_server_contexts(pair: Pair) -> None:
    """Code that serves with urllib3's SSLContext class (its own tests do) gets a server.

    The class urllib3 makes its client contexts with is the policy's; a server context made
    with it keeps Python's settings (no host name check) and is reached by a policy client.
    """
    served = pair.tmp / "server.pem"
    served.write_bytes(pair.ca.issue_cert("localhost").private_key_and_cert_chain_pem.bytes())
    assert pair.run(SERVER_SIDE, served) == ["OK"]
