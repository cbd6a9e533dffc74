"""Every printed ``Fix:`` command works when pasted: reject, paste the command, connect again.

Each test does what a person does: a fresh interpreter under a policy (SSLCUSTOMIZE_POLICY)
is rejected by a loopback server; the ``sslcustomize trust ...`` command is taken from the
message, run as printed plus ``--yes --reason``, and the same client then connects.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

import _pki
from sslcustomize._verdict._reasons import explain, target_text, trust_command

if TYPE_CHECKING:
    from conftest import StartServer

# The command in a Fix: sentence ends at ';', at ' (' or at the message's final '.'.
_COMMAND = re.compile(
    r"sslcustomize trust(?: --ca)?(?: --starttls \w+)? \S+?(?=;| \(|\.?$|\.\s)", re.MULTILINE
)

# Every command the tests below pasted, for the report (printed with -s).
PASTED: list[str] = []

_HTTPS_CLIENT = """
import socket, ssl, sys
host, port = sys.argv[1], int(sys.argv[2])
context = ssl.create_default_context()
try:
    with socket.create_connection((host, port), timeout=10) as sock:
        with context.wrap_socket(sock, server_hostname=host):
            pass
except ssl.SSLError as error:
    print(error)
    sys.exit(1)
print("connected")
"""

_SMTP_CLIENT = """
import smtplib, ssl, sys
host, port = sys.argv[1], int(sys.argv[2])
try:
    with smtplib.SMTP(host, port, timeout=10) as smtp:
        smtp.starttls(context=ssl.create_default_context())
        smtp.noop()
except ssl.SSLError as error:
    print(error)
    sys.exit(1)
print("connected")
"""


def _environment(policy: Path) -> dict[str, str]:
    return {**os.environ, "SSLCUSTOMIZE_POLICY": str(policy)}


def _client(code: str, host: str, port: int, policy: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", code, host, str(port)],
        capture_output=True,
        text=True,
        timeout=60,
        env=_environment(policy),
        check=False,
    )


def _paste(message: str, policy: Path) -> str:
    """Find the trust command in ``message``, run it as a person would; return it."""
    found = _COMMAND.search(message)
    assert found, f"no trust command in: {message}"
    command = found.group(0)
    words = shlex.split(command)
    assert words[:2] == ["sslcustomize", "trust"]
    done = subprocess.run(
        [sys.executable, "-m", "sslcustomize", *words[1:], "--yes", "--reason", "pasted"],
        capture_output=True,
        text=True,
        timeout=60,
        env=_environment(policy),
        check=False,
    )
    assert done.returncode == 0, f"{command!r} failed: {done.stderr}"
    PASTED.append(command)
    return command


def _reject_paste_connect(code: str, host: str, port: int, policy: Path, reason: str) -> str:
    before = _client(code, host, port, policy)
    assert before.returncode == 1, before.stdout + before.stderr
    assert reason in before.stdout
    command = _paste(before.stdout, policy)
    after = _client(code, host, port, policy)
    assert (after.returncode, after.stdout.strip()) == (0, "connected"), after.stderr
    return command


def _paste_or_expect(
    code: str, host: str, port: int, policy: Path, reason: str, expected: str
) -> None:
    """Reject, paste; while the message lacks ``expected``, paste ``expected`` instead.

    Either way the client must connect afterwards: the command the advice prints once the
    connection path passes what it knows is proven to work.
    """
    before = _client(code, host, port, policy)
    assert before.returncode == 1, before.stdout + before.stderr
    assert reason in before.stdout
    if expected in before.stdout:
        assert _paste(before.stdout, policy) == expected
    else:
        _paste(expected + ".", policy)
        PASTED.remove(expected)
    after = _client(code, host, port, policy)
    assert (after.returncode, after.stdout.strip()) == (0, "connected"), after.stderr


@pytest.fixture
def policy(write_policy: object, tmp_path: Path) -> Path:
    """The process policy the client and the pasted command share."""
    path = tmp_path / "policy.toml"
    path.write_text("version = 1\nmode = 'enforce'\n", encoding="utf-8")
    return path


def test_self_signed_on_ipv6_loopback(
    pki: _pki.TestPKI, https_server: StartServer, policy: Path
) -> None:
    """A self-signed server on [::1]:port: the printed command brackets the address and works."""
    host, port = https_server(pki["self_signed"], "::1")
    command = _reject_paste_connect(_HTTPS_CLIENT, host, port, policy, "self_signed")
    assert command == f"sslcustomize trust [::1]:{port}"


def test_unknown_issuer_sent_ca_with_a_port(
    pki: _pki.TestPKI, https_server: StartServer, policy: Path
) -> None:
    """A private CA the server sends: the printed `trust --ca host:port` works."""
    host, port = https_server(pki["unknown_issuer"], "127.0.0.1")
    command = _reject_paste_connect(_HTTPS_CLIENT, host, port, policy, "unknown_issuer")
    assert command == f"sslcustomize trust --ca 127.0.0.1:{port}"


def test_pin_mismatch_with_a_port(
    pki: _pki.TestPKI, https_server: StartServer, policy: Path
) -> None:
    """After a key change on a non-443 port, the printed command re-pins that very port."""
    host, port = https_server(pki["self_signed"], "localhost")
    old_pin = pki["good"].pin  # another key: the server's "old" one
    policy.write_text(
        textwrap.dedent(f"""\
            version = 1
            [[exception]]
            host = "localhost:{port}"
            pin = ["{old_pin}"]
            reason = "before the key change"
            """),
        encoding="utf-8",
    )
    expected = f"sslcustomize trust localhost:{port}"
    _paste_or_expect(_HTTPS_CLIENT, host, port, policy, "pin_mismatch", expected)
    assert policy.read_text(encoding="utf-8").count("[[exception]]") == 1  # replaced, not added
    assert expected in PASTED


def test_starttls_smtp(pki: _pki.TestPKI, smtp_server: StartServer, policy: Path) -> None:
    """After smtplib's STARTTLS is rejected, the printed command speaks STARTTLS too."""
    host, port = smtp_server(pki["self_signed"], "localhost", starttls=True)
    expected = f"sslcustomize trust --starttls smtp localhost:{port}"
    _paste_or_expect(_SMTP_CLIENT, host, port, policy, "self_signed", expected)
    assert expected in PASTED


@pytest.mark.parametrize(
    ("host", "port", "starttls", "expected"),
    [
        ("::1", 28441, None, "sslcustomize trust [::1]:28441"),
        ("localhost", 28447, "smtp", "sslcustomize trust --starttls smtp localhost:28447"),
        ("mail.example", 25, "smtp", "sslcustomize trust --starttls smtp mail.example"),
        ("nas.example", 443, None, "sslcustomize trust nas.example"),
        ("nas.example", 8443, None, "sslcustomize trust nas.example:8443"),
    ],
)
def test_trust_command_words(host: str, port: int, starttls: str | None, expected: str) -> None:
    """The command has brackets for IPv6, the port unless it is the default, and --starttls."""
    assert trust_command(host, port, starttls=starttls) == expected


def test_target_text_round_trips_through_the_parser() -> None:
    """What the advice prints, check and trust parse back to the same host and port."""
    from sslcustomize._diagnosis._probe import parse_target

    for host, port, starttls in (("::1", 8443, None), ("10.0.0.1", 443, None), ("h", 21, "ftp")):
        target = parse_target(target_text(host, port, starttls), starttls)
        assert (target.host, target.port) == (host, port)
    wrong = parse_target(target_text("h", 21, "ftp"))  # without --starttls: another port
    assert wrong.port != 21


def test_pin_mismatch_advice_names_port_and_starttls() -> None:
    """explain('pin_mismatch') gives a re-pin command for the very port and protocol."""
    _, fix = explain("pin_mismatch", chain=(), host="::1", port=2525, starttls="smtp")
    assert "sslcustomize trust --starttls smtp [::1]:2525;" in fix


def _check_fixes(target: str, policy: Path, *extra: str) -> list[str]:
    """Run ``check --json`` as a person would; return the fix sentences of its problems."""
    done = subprocess.run(
        [sys.executable, "-m", "sslcustomize", "check", "--json", *extra, target],
        capture_output=True, text=True, timeout=60, env=_environment(policy), check=False,
    )  # fmt: skip
    assert done.returncode == 1, done.stdout + done.stderr
    return [problem["fix"] for problem in json.loads(done.stdout)["problems"]]


@pytest.mark.parametrize(
    ("case", "host", "reason"),
    [("self_signed", "::1", "self_signed"), ("unknown_issuer", "127.0.0.1", "unknown_issuer")],
)
def test_checks_fix_works_when_pasted(
    pki: _pki.TestPKI, https_server: StartServer, policy: Path, case: str, host: str, reason: str
) -> None:
    """`check` prints the same working command the rejection does: pasted, the client connects."""
    host, port = https_server(pki[case], host)
    before = _client(_HTTPS_CLIENT, host, port, policy)
    assert before.returncode == 1
    assert reason in before.stdout
    (fix,) = _check_fixes(target_text(host, port), policy)
    _paste(fix, policy)
    after = _client(_HTTPS_CLIENT, host, port, policy)
    assert (after.returncode, after.stdout.strip()) == (0, "connected"), after.stderr


def test_checks_starttls_fix_works_when_pasted(
    pki: _pki.TestPKI, smtp_server: StartServer, policy: Path
) -> None:
    """`check --starttls smtp`'s fix speaks STARTTLS too: pasted, smtplib connects."""
    host, port = smtp_server(pki["self_signed"], "localhost", starttls=True)
    (fix,) = _check_fixes(f"localhost:{port}", policy, "--starttls", "smtp")
    assert _paste(fix, policy) == f"sslcustomize trust --starttls smtp localhost:{port}"
    after = _client(_SMTP_CLIENT, host, port, policy)
    assert (after.returncode, after.stdout.strip()) == (0, "connected"), after.stderr
