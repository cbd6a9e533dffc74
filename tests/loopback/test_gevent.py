"""gevent programs verify under the policy, whichever of gevent and ssl comes first.

``gevent.monkey.patch_all()`` rebinds ``ssl.SSLContext``/``ssl.SSLSocket`` to gevent's
cooperative classes, whose ``SSLSocket`` calls ``context._wrap_socket()`` itself and keeps what
it returns as ``_sslobj``; and ``gevent.ssl`` copies ssl's factories when it is imported. Each
test runs in a fresh interpreter started through the ``.pth`` hook under a policy named by
``SSLCUSTOMIZE_POLICY``, once per import order:

* ``gevent``: ``monkey.patch_all()`` first, then ``import ssl`` (what gevent asks for);
* ``ssl``: ``import ssl`` first, then ``patch_all()`` (gevent warns; tolerated here);
* ``context``: ``import ssl``, a context made (so sslcustomize is loaded on the stdlib
  classes), then ``patch_all()``.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import textwrap
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

import _pki
import _servers
from _fixtures import WritePolicy, run_python
from test_connection_path import SECRET, Recorder
from test_stdlib_clients import CLIENTS as STDLIB_CLIENTS
from test_stdlib_clients import MAIL_CLIENTS

if TYPE_CHECKING:
    from conftest import StartServer

pytest.importorskip("gevent", reason="gevent has no wheel for this Python")

pytestmark = pytest.mark.skipif(
    not any((Path(p) / "sslcustomize.pth").is_file() for p in sys.path if p),
    reason="needs a wheel install (the .pth hook); run through nox",
)

ORDERS = {
    "gevent": "from gevent import monkey; monkey.patch_all()\nimport ssl\n",
    "ssl": "import ssl\nfrom gevent import monkey; monkey.patch_all()\n",
    "context": "import ssl\nssl.create_default_context()\n"
    "from gevent import monkey; monkey.patch_all()\n",
}

PRELUDE = """
import sslcustomize

args = {args!r}

def attempt(call):
    try:
        call()
    except sslcustomize.CertificateRejected as error:
        return "REJECTED " + ",".join(error.reasons)
    return "OK"
"""

CLIENTS = {
    "http.client": STDLIB_CLIENTS["http.client"],
    "urllib.request": STDLIB_CLIENTS["urllib.request"],
    "requests": """
        import requests
        try:
            assert requests.get(f"https://{host}:{port}/", timeout=10).text == "ok"
        except requests.exceptions.SSLError as error:
            raise error.args[0].reason.args[0] from None  # urllib3 wraps the rejection
    """,
    "smtplib": MAIL_CLIENTS[("smtp", False)],
    "smtplib-starttls": MAIL_CLIENTS[("smtp", True)],
}


def _run(order: str, body: str, policy: Path, *args: object) -> list[str]:
    """Run ``body`` after ``order``'s imports in a fresh interpreter; return its lines."""
    code = ORDERS[order] + PRELUDE.format(args=list(map(str, args))) + textwrap.dedent(body)
    result = run_python(code, env={"SSLCUSTOMIZE_POLICY": str(policy)})
    # Warnings (gevent's MonkeyPatchWarning for the "ssl" orders, report mode's) are expected;
    # no traceback (a hook that failed after an import, or a connection's) is.
    assert "Traceback" not in result.stderr, result.stderr
    assert "sslcustomize: " not in result.stderr, result.stderr
    return result.stdout.splitlines()


def _call(client: str) -> str:
    """The body running ``client`` against the good server, then the attacker's."""
    call = textwrap.indent(textwrap.dedent(CLIENTS[client]), "    ")
    return (
        f"def connect(host, port):\n{call}\n"
        "print(attempt(lambda: connect('127.0.0.1', int(args[0]))))\n"
        "print(attempt(lambda: connect('127.0.0.1', int(args[1]))))\n"
    )


@pytest.fixture
def policy(pki: _pki.TestPKI, write_policy: WritePolicy, tmp_path: Path) -> Path:
    """A policy trusting only the test root, in enforce mode."""
    root = tmp_path / "root.pem"
    root.write_bytes(pki.root_pem)
    return write_policy(f"mode = 'enforce'\ntrust = ['{root}']\n")


@pytest.mark.parametrize("order", ORDERS)
@pytest.mark.parametrize("client", ["http.client", "urllib.request", "requests"])
def test_https_clients_verify_under_gevent(
    order: str, client: str, pki: _pki.TestPKI, https_server: StartServer, policy: Path
) -> None:
    """http.client, urllib and requests connect to the CA's server, reject the self-signed twin."""
    good, bad = https_server(pki["good"]), https_server(pki["self_signed"])
    assert _run(order, _call(client), policy, good.port, bad.port) == [
        "OK",
        "REJECTED self_signed",
    ]


@pytest.mark.parametrize("order", ORDERS)
@pytest.mark.parametrize("client", ["smtplib", "smtplib-starttls"])
def test_smtplib_verifies_under_gevent(
    order: str, client: str, pki: _pki.TestPKI, policy: Path, request: pytest.FixtureRequest
) -> None:
    """smtplib (implicit TLS and STARTTLS) connects to the CA's server, rejects the twin."""
    smtp_server: StartServer = request.getfixturevalue("smtp_server")
    starttls = client == "smtplib-starttls"
    good = smtp_server(pki["good"], starttls=starttls)
    bad = smtp_server(pki["self_signed"], starttls=starttls)
    assert _run(order, _call(client), policy, good.port, bad.port) == [
        "OK",
        "REJECTED self_signed",
    ]


SEND_FIRST = f"""
import socket
def send(port):
    raw = socket.create_connection(("127.0.0.1", port))
    tls = ssl.create_default_context().wrap_socket(
        raw, server_hostname="127.0.0.1", do_handshake_on_connect=False
    )
    print(type(tls).__module__)
    try:
        tls.sendall(b"{SECRET.decode()}\\n")
        tls.recv(10)
    finally:
        tls.close()
print(attempt(lambda: send(int(args[0]))))
"""


@pytest.mark.parametrize("order", ORDERS)
def test_attacker_receives_no_byte_under_gevent(
    order: str, pki: _pki.TestPKI, policy: Path
) -> None:
    """sendall() before the handshake on gevent's socket: the twin gets nothing, the CA's all."""
    attacker = Recorder(_servers.server_context(pki["self_signed"]))
    real = Recorder(_servers.server_context(pki["good"]))
    try:
        lines = _run(order, SEND_FIRST, policy, attacker.start())
        assert lines == ["gevent.ssl", "REJECTED self_signed"]
        assert attacker.received in ([], [b""])
        assert _run(order, SEND_FIRST, policy, real.start()) == ["gevent.ssl", "OK"]
        assert real.received == [SECRET + b"\n"]
    finally:
        attacker.stop()
        real.stop()


@pytest.mark.parametrize("order", ORDERS)
def test_report_mode_records_under_gevent(
    order: str, pki: _pki.TestPKI, write_policy: WritePolicy, tmp_path: Path,
    request: pytest.FixtureRequest,
) -> None:  # fmt: skip
    """Report mode: smtplib reaches the self-signed twin and records it; the CA's server not.

    smtplib's context is one Python itself does not verify, so report mode lets the twin
    through; an http.client context keeps Python's own floor and is refused in any mode.
    """
    smtp_server: StartServer = request.getfixturevalue("smtp_server")
    root, sink = tmp_path / "root.pem", tmp_path / "records.jsonl"
    root.write_bytes(pki.root_pem)
    policy = write_policy(f"""
        mode = 'report'
        trust = ['{root}']
        [report]
        sink = 'jsonl'
        path = '{sink}'
        """)
    good, bad = smtp_server(pki["good"]), smtp_server(pki["self_signed"])
    assert _run(order, _call("smtplib"), policy, good.port, bad.port) == ["OK", "OK"]
    (record,) = [json.loads(line) for line in sink.read_text().splitlines()]
    assert record["verdict"] == "rejected"
    assert record["port"] == bad.port
    assert "self_signed" in record["reasons"]


CLASSES = """
import gevent.ssl
for factory in (ssl.create_default_context, ssl._create_stdlib_context,
                gevent.ssl.create_default_context, gevent.ssl._create_stdlib_context):
    context = factory()
    print(type(context).__name__, isinstance(context, ssl.SSLContext),
          isinstance(context, sslcustomize.PolicyContext), context.verify_mode.name,
          context.check_hostname)
context.minimum_version = ssl.TLSVersion.TLSv1_3  # the setter gevent's class provides
print(context.minimum_version.name)
"""


@pytest.mark.parametrize("order", ORDERS)
def test_factories_return_verifying_gevent_contexts(order: str, policy: Path) -> None:
    """After patch_all, every factory (ssl's and gevent.ssl's) gives a verifying gevent context."""
    lines = _run(order, CLASSES, policy)
    assert lines == ["PolicyContext True True CERT_REQUIRED True"] * 4 + ["TLSv1_3"]


EXTRACT = """
import gevent.ssl
NAMES = ("create_default_context", "_create_default_https_context",
         "_create_stdlib_context", "_create_unverified_context")
def state():
    for module in (ssl, gevent.ssl):
        yield [getattr(getattr(module, name), "__module__", "") for name in NAMES]
print(isinstance(gevent.ssl.create_default_context(), sslcustomize.PolicyContext))
print(sslcustomize.is_injected())
sslcustomize.extract()
print(list(state()))
print(all(getattr(gevent.ssl, name) is getattr(ssl, name) for name in NAMES))
print(isinstance(gevent.ssl.create_default_context(), sslcustomize.PolicyContext))
print(isinstance(gevent.ssl._create_stdlib_context(), sslcustomize.PolicyContext))
print(sslcustomize.is_injected())
"""


@pytest.mark.parametrize("order", ORDERS)
def test_extract_restores_ssl_and_gevent_ssl(order: str, policy: Path) -> None:
    """extract() puts Python's factories back in ssl and in gevent.ssl's copies, for good."""
    lines = _run(order, EXTRACT, policy)
    assert lines == [
        "True",
        "True",
        str([["ssl"] * 4, ["ssl"] * 4]),
        "True",
        "False",
        "False",
        "False",
    ]


HOLD = """
import socket, time
raw = socket.create_connection(("127.0.0.1", int(args[0])))
tls = ssl.create_default_context().wrap_socket(
    raw, server_hostname="127.0.0.1", do_handshake_on_connect=False
)
print(attempt(tls.do_handshake), flush=True)
time.sleep(30)  # holds the socket open: only the rejection itself can end the connection
"""


@dataclass
class EndRecorder(Recorder):
    """A Recorder that also tells how each connection ended: ``eof``, ``reset`` or an error.

    Either end is the peer learning at once that the client is gone: with OpenSSL 3.0 the
    client's close reaches the server as a clean EOF; 3.5+ sends the session tickets at the
    server's first read, into a socket the client has closed (a reset, or a broken pipe).
    Only a timeout means the connection was left open.
    """

    ends: list[str] = field(default_factory=list)

    def _handle(self, conn: socket.socket) -> None:
        conn.settimeout(10)
        data, end = b"", "eof"
        try:
            with self.context.wrap_socket(conn, server_side=True) as tls:
                self.client_certificates.append(tls.getpeercert(binary_form=True) is not None)
                while chunk := tls.recv(4096):
                    data += chunk
        except (ConnectionResetError, BrokenPipeError):
            end = "reset"
        except (OSError, ValueError) as error:
            end = f"{type(error).__name__}: {error}"
        finally:
            conn.close()
            self.received.append(data)
            self.ends.append(end)  # last: the test waits for it


@pytest.mark.parametrize("order", ORDERS)
def test_rejected_peer_sees_the_end_under_gevent(
    order: str, pki: _pki.TestPKI, write_policy: WritePolicy
) -> None:
    """A chain judged after the handshake (a pin not seen yet) ends the connection at once."""
    policy = write_policy(f"""
        [[exception]]
        host = "127.0.0.1"
        pin = ["{pki["good"].pin}"]
        reason = "test"
        """)
    attacker = EndRecorder(_servers.server_context(pki["self_signed"]))
    code = ORDERS[order] + PRELUDE.format(args=[str(attacker.start())]) + HOLD
    env = {**os.environ, "SSLCUSTOMIZE_POLICY": str(policy)}
    with subprocess.Popen(
        [sys.executable, "-c", code], stdout=subprocess.PIPE, text=True, env=env
    ) as process:
        try:
            assert process.stdout is not None
            assert process.stdout.readline().startswith("REJECTED pin_mismatch")
            deadline = time.monotonic() + 5
            while not attacker.ends and time.monotonic() < deadline:
                time.sleep(0.05)
            assert attacker.client_certificates == [False]  # the handshake did complete
            assert attacker.ends in (["eof"], ["reset"])  # the peer saw the end at once
            assert attacker.received == [b""]  # with no byte
        finally:
            process.kill()
            attacker.stop()
