"""Every standard-library TLS client verifies under the policy, through the .pth startup hook.

Each test starts real servers on loopback (the stdlib for HTTPS and XML-RPC, aiosmtpd for
SMTP, pyftpdlib for FTPS, protocol stubs for IMAP, POP3 and NNTP) and runs the client in a
fresh interpreter whose only configuration is SSLCUSTOMIZE_POLICY: nothing calls inject().
The policy trusts the test root only. Each test connects twice in that interpreter: to a server
with a good chain (must succeed) and to one with a self-signed certificate (must be rejected
with CertificateRejected and reason self_signed).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

import _pki
import _sslcustomize_startup as startup
from _fixtures import WritePolicy, run_python
from sslcustomize._support import _bootstrap

if TYPE_CHECKING:
    from conftest import StartServer

pytestmark = pytest.mark.skipif(
    not any((Path(p) / "sslcustomize.pth").is_file() for p in sys.path if p),
    reason="needs a wheel install (the .pth hook); run through nox",
)

RUNNER = """
import sys
import sslcustomize

def attempt(host, port):
    try:
{body}
    except sslcustomize.CertificateRejected as error:
        return "REJECTED " + ",".join(error.reasons)
    return "OK"

hosts = sys.argv[1:]
print(attempt(hosts[0], int(hosts[1])))
print(attempt(hosts[2], int(hosts[3])))
print(sslcustomize.is_injected())
"""

CLIENTS = {
    "http.client": """
        import http.client
        connection = http.client.HTTPSConnection(host, port, timeout=10)
        connection.request("GET", "/")
        assert connection.getresponse().read() == b"ok"
    """,
    "urllib.request": """
        import urllib.error, urllib.request
        netloc = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
        try:
            assert urllib.request.urlopen(f"https://{netloc}/", timeout=10).read() == b"ok"
        except urllib.error.URLError as error:
            raise error.reason
    """,
    "xmlrpc.client": """
        import xmlrpc.client
        netloc = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
        assert xmlrpc.client.ServerProxy(f"https://{netloc}/RPC2").ping() == "pong"
    """,
    "asyncio": """
        import asyncio
        async def main():
            reader, writer = await asyncio.open_connection(host, port, ssl=True)
            writer.write(b"GET / HTTP/1.0\\r\\n\\r\\n")
            assert b"200" in await reader.read()
            writer.close()
        asyncio.run(main())
    """,
}

MAIL_CLIENTS = {
    ("smtp", False): """
        import smtplib
        with smtplib.SMTP_SSL(host, port, timeout=10) as client:
            assert client.noop()[0] == 250
    """,
    ("smtp", True): """
        import smtplib
        with smtplib.SMTP(host, port, timeout=10) as client:
            client.starttls()
            assert client.noop()[0] == 250
    """,
    ("imap", False): """
        import imaplib
        client = imaplib.IMAP4_SSL(host, port, timeout=10)
        client.login("user", "password")
        client.logout()
    """,
    ("imap", True): """
        import imaplib
        client = imaplib.IMAP4(host, port, timeout=10)
        client.starttls()
        client.login("user", "password")
        client.logout()
    """,
    ("pop3", False): """
        import poplib
        client = poplib.POP3_SSL(host, port, timeout=10)
        client.user("user"); client.pass_("password"); client.quit()
    """,
    ("pop3", True): """
        import poplib
        client = poplib.POP3(host, port, timeout=10)
        client.stls()
        client.user("user"); client.pass_("password"); client.quit()
    """,
}


def _run(body: str, good: tuple[str, int], bad: tuple[str, int], policy: Path) -> list[str]:
    code = RUNNER.format(body=textwrap.indent(textwrap.dedent(body), " " * 8))
    result = subprocess.run(
        [sys.executable, "-c", code, good[0], str(good[1]), bad[0], str(bad[1])],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        env={**os.environ, "SSLCUSTOMIZE_POLICY": str(policy)},
    )
    assert result.returncode == 0, result.stderr
    return result.stdout.split("\n")[:3]


@pytest.fixture
def policy(pki: _pki.TestPKI, write_policy: WritePolicy, tmp_path: Path) -> Path:
    """A policy trusting only the test root, in enforce mode."""
    root = tmp_path / "root.pem"
    root.write_bytes(pki.root_pem)
    return write_policy(f"mode = 'enforce'\ntrust = ['{root}']\n")


@pytest.mark.parametrize("client", sorted(CLIENTS))
def test_https_clients(
    client: str, pki: _pki.TestPKI, https_server: StartServer, policy: Path
) -> None:
    """http.client, urllib.request, xmlrpc.client and asyncio verify under the policy."""
    good = https_server(pki["good"])
    bad = https_server(pki["self_signed"])
    assert _run(CLIENTS[client], good, bad, policy) == ["OK", "REJECTED self_signed", "True"]


def test_http_client_over_each_loopback_name(
    loopback_host: str, pki: _pki.TestPKI, https_server: StartServer, policy: Path
) -> None:
    """localhost, 127.0.0.1 and ::1 each verify by name or address."""
    good = https_server(pki["good"], loopback_host)
    bad = https_server(pki["self_signed"], loopback_host)
    assert _run(CLIENTS["http.client"], good, bad, policy)[:2] == ["OK", "REJECTED self_signed"]


@pytest.mark.parametrize(("protocol", "starttls"), sorted(MAIL_CLIENTS))
def test_mail_clients(
    protocol: str, starttls: bool, pki: _pki.TestPKI, request: pytest.FixtureRequest, policy: Path
) -> None:
    """smtplib, imaplib and poplib verify, with implicit TLS and with STARTTLS."""
    start = request.getfixturevalue(f"{protocol}_server")
    good = start(pki["good"], starttls=starttls)
    bad = start(pki["self_signed"], starttls=starttls)
    body = MAIL_CLIENTS[(protocol, starttls)]
    assert _run(body, good, bad, policy) == ["OK", "REJECTED self_signed", "True"]


def test_ftplib(pki: _pki.TestPKI, ftps_server: StartServer, policy: Path) -> None:
    """ftplib.FTP_TLS verifies the control connection (and its protected data connection)."""
    good = ftps_server(pki["good"])
    bad = ftps_server(pki["self_signed"])
    body = """
        import ftplib
        client = ftplib.FTP_TLS(timeout=10)
        client.connect(host, port)
        client.login()
        client.prot_p()
        listing = []
        client.retrlines("LIST", listing.append)
        assert listing
        client.quit()
    """
    assert _run(body, good, bad, policy) == ["OK", "REJECTED self_signed", "True"]


@pytest.mark.skipif(sys.version_info >= (3, 13), reason="nntplib was removed in Python 3.13")
def test_nntplib(pki: _pki.TestPKI, nntp_server: StartServer, policy: Path) -> None:
    """nntplib.NNTP_SSL verifies (Python 3.12 and older)."""
    good = nntp_server(pki["good"])
    bad = nntp_server(pki["self_signed"])
    body = """
        import warnings
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            import nntplib
        client = nntplib.NNTP_SSL(host, port, timeout=10)
        client.quit()
    """
    assert _run(body, good, bad, policy) == ["OK", "REJECTED self_signed", "True"]


def test_without_policy_smtplib_accepts_anything(
    pki: _pki.TestPKI, smtp_server: StartServer
) -> None:
    """The problem this fixes: with no policy, smtplib accepts a self-signed certificate."""
    bad = smtp_server(pki["self_signed"])
    out = run_python(
        "import smtplib\n"
        f"c = smtplib.SMTP_SSL({bad[0]!r}, {bad[1]}, timeout=10)\nprint(c.noop()[0])\nc.quit()"
    ).stdout.strip()
    assert out == "250"


@pytest.mark.parametrize("case", ["expired", "wrong_host", "unknown_issuer", "incomplete_chain"])
def test_rejection_reasons_through_smtplib(
    case: str, pki: _pki.TestPKI, smtp_server: StartServer, policy: Path
) -> None:
    """smtplib's failures carry the reason of each certificate case."""
    good = smtp_server(pki["good"])
    bad = smtp_server(pki[case])
    lines = _run(MAIL_CLIENTS[("smtp", False)], good, bad, policy)
    assert lines[1] == f"REJECTED {pki[case].reason}"


def test_report_mode_lets_smtplib_through_and_records(
    pki: _pki.TestPKI, smtp_server: StartServer, write_policy: WritePolicy, tmp_path: Path
) -> None:
    """In report mode a bad certificate connects, and the record names the reason."""
    root = tmp_path / "root.pem"
    root.write_bytes(pki.root_pem)
    sink = tmp_path / "reports.jsonl"
    policy = write_policy(
        f"mode = 'report'\ntrust = ['{root}']\n[report]\nsink = 'jsonl'\npath = '{sink}'\n"
    )
    good = smtp_server(pki["good"])
    bad = smtp_server(pki["expired"])
    assert _run(MAIL_CLIENTS[("smtp", False)], good, bad, policy)[:2] == ["OK", "OK"]
    records = [json.loads(line) for line in sink.read_text().splitlines()]
    assert [(r["context"], r["reasons"], r["port"]) for r in records] == [
        ("smtplib", ["expired"], bad[1])
    ]


EXPLICIT = """
import smtplib, ssl, sys

host, port, root, arguments = sys.argv[1], int(sys.argv[2]), sys.argv[3], eval(sys.argv[4])
try:
    context = ssl._create_stdlib_context(cafile=root, **arguments)
    client = smtplib.SMTP_SSL(host, port, timeout=10, context=context)
    client.noop()
    client.quit()
    print("OK")
except ssl.SSLCertVerificationError as error:
    print("REFUSED", type(error).__name__)
except ValueError as error:
    print("ValueError", error)
"""


@pytest.mark.parametrize(
    "arguments",
    [
        "{'cert_reqs': None, 'check_hostname': True}",
        "{'cert_reqs': ssl.CERT_OPTIONAL, 'check_hostname': True}",
        "{'check_hostname': True}",
    ],
)
@pytest.mark.parametrize("case", ["good", "self_signed"])
def test_report_mode_refuses_what_python_refuses_for_explicit_arguments(
    arguments: str,
    case: str,
    pki: _pki.TestPKI,
    smtp_server: StartServer,
    write_policy: WritePolicy,
    tmp_path: Path,
) -> None:
    """_create_stdlib_context(check_hostname=True, ...): Python's verdict, never less (gh-114905).

    Where Python's own context verifies, report mode refuses the self-signed MITM that Python
    alone refuses, and reaches the good server; where Python raises ValueError, so does the hook.
    """
    root = tmp_path / "root.pem"
    root.write_bytes(pki.root_pem)
    policy = write_policy(f"mode = 'report'\ntrust = ['{root}']\n[report]\nsink = 'none'\n")
    host, port = smtp_server(pki[case])
    argv = [sys.executable, "-c", EXPLICIT, host, str(port), str(root), arguments]

    def outcome(env: dict[str, str]) -> str:
        result = subprocess.run(
            argv, capture_output=True, text=True, timeout=60, check=False, env=env
        )
        assert result.returncode == 0, result.stderr
        return result.stdout.strip()

    alone = outcome(dict(os.environ))
    hooked = outcome({**os.environ, "SSLCUSTOMIZE_POLICY": str(policy)})
    if arguments == "{'check_hostname': True}":
        assert alone.startswith("ValueError Cannot set verify_mode to CERT_NONE")
    else:
        assert alone == ("OK" if case == "good" else "REFUSED SSLCertVerificationError")
    if alone.startswith("REFUSED"):
        assert hooked in ("REFUSED SSLCertVerificationError", "REFUSED CertificateRejected")
    else:
        assert hooked == alone


def test_broken_install_follows_python_for_explicit_check_hostname(
    tmp_path: Path, write_policy: WritePolicy
) -> None:
    """sslcustomize cannot load: smtplib's context verifies, check_hostname=True alone raises."""
    shadow = tmp_path / "shadow" / "sslcustomize"
    shadow.mkdir(parents=True)
    (shadow / "__init__.py").write_text("raise RuntimeError('broken install')\n")
    # The startup module imports the package beside it: both go first on the path. Its leaf
    # (loaded by path, without the package's __init__) is intact; the package is not.
    shutil.copy(startup.__file__, shadow.parent)
    (shadow / "_support").mkdir()
    shutil.copy(_bootstrap.__file__, shadow / "_support")
    code = """
    import ssl
    context = ssl._create_stdlib_context()
    print(context.verify_mode == ssl.CERT_REQUIRED, context.check_hostname)
    context = ssl._create_stdlib_context(cert_reqs=None, check_hostname=True)
    print(context.verify_mode == ssl.CERT_REQUIRED, context.check_hostname)
    try:
        ssl._create_stdlib_context(check_hostname=True)
    except ValueError as error:
        print("ValueError", error)
    """
    env = {
        "SSLCUSTOMIZE_POLICY": str(write_policy("version = 1\n")),
        "PYTHONPATH": str(shadow.parent),
    }
    result = run_python(code, env=env)
    lines = result.stdout.splitlines()
    assert lines[:2] == ["True True", "True True"]
    assert lines[2].startswith("ValueError Cannot set verify_mode to CERT_NONE")
    assert "broken install" in result.stderr
