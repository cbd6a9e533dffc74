"""Text from certificates and servers is shown, never obeyed: escapes and markup made visible.

A MITM chooses its certificate's subject, issuer and names. Printed raw, terminal escape
sequences in them redraw the screen and rich markup restyles it: the ``trust`` prompt showed
the real appliance's subject and pin above a MITM's key (issue 22 item 5). Each test pairs the
MITM with the legitimate server and reads the screen through a terminal emulator (pyte).
"""

from __future__ import annotations

import datetime
import fcntl
import json
import os
import pty
import select
import struct
import subprocess
import sys
import termios
import warnings
from pathlib import Path
from typing import TYPE_CHECKING

import pyte
import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

import _pki
from _fixtures import run_python
from sslcustomize._cli import main
from sslcustomize._runtime import _state
from sslcustomize._support._escape import visible

if TYPE_CHECKING:
    from conftest import StartServer

COLUMNS, LINES = 400, 40
FAKE_PIN = "sha256/" + "A" * 43 + "="


def _self_signed(common_name: str, organization: str = "Appliance") -> _pki.CertCase:
    """A self-signed leaf for localhost whose subject is ``common_name`` and ``organization``."""
    key = ec.generate_private_key(ec.SECP256R1())
    with warnings.catch_warnings():
        # A MITM ignores the 64-character limit of a common name: so does this test.
        warnings.filterwarnings("ignore", "Attribute's length", UserWarning)
        name = x509.Name([
            x509.NameAttribute(NameOID.ORGANIZATION_NAME, organization),
            x509.NameAttribute(NameOID.COMMON_NAME, common_name, _validate=False),
        ])  # fmt: skip
    now = datetime.datetime.now(datetime.timezone.utc)
    leaf = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(days=1))
        .not_valid_after(now + datetime.timedelta(days=30))
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(x509.SubjectAlternativeName([x509.DNSName("localhost")]), critical=False)
        .sign(key, hashes.SHA256())
    )
    leaf_pem = leaf.public_bytes(serialization.Encoding.PEM)
    key_pem = key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )
    return _pki.CertCase(
        name="mitm",
        chain_pem=leaf_pem,
        key_pem=key_pem,
        ca_pem=leaf_pem,
        reasons=frozenset({"self_signed"}),
        names=("localhost",),
        leaf_pem=leaf_pem,
    )


def _spoofing_case() -> _pki.CertCase:
    """A MITM's certificate whose subject clears the screen and draws the appliance's prompt."""
    drawn = (
        "\x1b[2J\x1b[H\x1b[1mlocalhost\x1b[0m: self_signed\r\n"
        "  subject: CN=appliance.corp\r\n"
        f"  pin:     {FAKE_PIN}\r\n"
    )
    return _self_signed(drawn, organization="[/][bold green]verified[/]\u202e")


def _screen_of(argv: list[str], env: dict[str, str], answer: bytes) -> tuple[pyte.Screen, int]:
    """Run ``sslcustomize ARGV`` on a pseudo-terminal, answer its prompt; return its screen."""
    primary, secondary = pty.openpty()
    fcntl.ioctl(secondary, termios.TIOCSWINSZ, struct.pack("HHHH", LINES, COLUMNS, 0, 0))
    process = subprocess.Popen(
        [sys.executable, "-m", "sslcustomize", *argv],
        stdin=secondary,
        stdout=secondary,
        stderr=secondary,
        env={**os.environ, **env, "TERM": "xterm-256color", "COLUMNS": str(COLUMNS)},
        close_fds=True,
    )
    os.close(secondary)
    output = b""
    answered = False
    try:
        while True:
            ready, _, _ = select.select([primary], [], [], 30)
            if not ready:
                break
            try:
                data = os.read(primary, 65536)
            except OSError:  # EIO: the child closed the terminal
                break
            if not data:
                break
            output += data
            if not answered and b"[y/N]" in output:
                os.write(primary, answer)
                answered = True
    finally:
        os.close(primary)
        status = process.wait(timeout=30)
    screen = pyte.Screen(COLUMNS, LINES)
    pyte.ByteStream(screen).feed(output)
    return screen, status


def _line_starting(screen: pyte.Screen, prefix: str) -> list[str]:
    return [line.rstrip() for line in screen.display if line.strip().startswith(prefix)]


def test_visible_escapes_controls_and_keeps_text() -> None:
    """ESC, CSI, DEL, bidi overrides and line separators become escapes; letters stay."""
    assert visible("caf\u00e9 \u6771\u4eac [b]") == "caf\u00e9 \u6771\u4eac [b]"
    assert visible("a\x1b[2Jb\x9bc\x7f\u202ed\u2028") == "a\\x1b[2Jb\\x9bc\\x7f\\u202ed\\u2028"
    assert visible(visible("\x1b\U000e0001")) == "\\x1b\\U000e0001"


def _trust_screen(port: int, tmp_path: Path) -> tuple[pyte.Screen, int]:
    env = {"XDG_CONFIG_HOME": str(tmp_path / "config"), "XDG_STATE_HOME": str(tmp_path / "st")}
    return _screen_of(["trust", "--scope", "user", f"localhost:{port}"], env, b"n\n")


def test_trust_prompt_shows_the_mitms_real_pin(https_server: StartServer, tmp_path: Path) -> None:
    """A subject that redraws the screen is shown escaped: the prompt names the MITM's pin."""
    mitm = _spoofing_case()
    _, port = https_server(mitm, "localhost")
    screen, status = _trust_screen(port, tmp_path)
    assert status == 1  # answered no: nothing written
    assert not (tmp_path / "config" / "sslcustomize" / "policy.toml").exists()
    assert _line_starting(screen, "pin:") == [f"  pin:     {mitm.pin}"]
    assert mitm.pin != FAKE_PIN
    (subject,) = _line_starting(screen, "subject:")
    assert "\\x1b[2J" in subject  # the escape is on screen as text
    assert "[/][bold green]verified[/]\\u202e" in subject  # markup as written
    assert screen.display[0].startswith(f"localhost:{port}: self_signed")  # nothing cleared


def test_trust_prompt_of_the_legitimate_appliance(
    https_server: StartServer, tmp_path: Path
) -> None:
    """The twin: a plain subject reads as itself, with its pin, and yes writes that pin."""
    appliance = _self_signed("appliance.corp")
    _, port = https_server(appliance, "localhost")
    screen, status = _trust_screen(port, tmp_path)
    assert status == 1
    assert _line_starting(screen, "pin:") == [f"  pin:     {appliance.pin}"]
    assert _line_starting(screen, "subject:") == ["  subject: CN=appliance.corp,O=Appliance"]


def test_check_and_scan_show_the_subject_escaped(
    https_server: StartServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """check (text and JSON) and scan print no control character the server chose."""
    mitm = _self_signed("mitm\x1b[2J\x1b[H", organization="[/][bold green]verified[/]\u202e")
    _, port = https_server(mitm, "localhost")
    assert main(["check", f"localhost:{port}"]) == 1
    out = capsys.readouterr().out
    assert "\x1b" not in out
    assert "\u202e" not in out
    assert "\\x1b[2J" in out
    assert "[/][bold green]verified[/]" in out
    _state.set_policy(None)
    assert main(["check", "--json", f"localhost:{port}"]) == 1
    document = json.loads(capsys.readouterr().out)
    assert document["chain"][0]["subject"].startswith("CN=mitm\x1b[2J")  # data stays exact
    targets = tmp_path / "targets.txt"
    targets.write_text(f"localhost:{port}\n")
    for extra in ([], ["--csv"]):
        _state.set_policy(None)
        assert main(["scan", *extra, str(targets)]) == 1
        out = capsys.readouterr().out
        assert "\x1b" not in out
        assert "\u202e" not in out


def test_rejection_message_shows_the_subject_escaped(https_server: StartServer) -> None:
    """CertificateRejected names the MITM's subject with its escapes visible, in a fresh Python."""
    _, port = https_server(_spoofing_case(), "localhost")
    policy = Path(os.environ["XDG_CONFIG_HOME"]) / "policy.toml"
    policy.parent.mkdir(parents=True, exist_ok=True)
    policy.write_text("version = 1\n")
    result = run_python(
        f"""
        import json
        import urllib.request
        try:
            urllib.request.urlopen("https://localhost:{port}/", timeout=10)
        except Exception as error:
            print(json.dumps(str(error.reason)))
        """,
        env={"SSLCUSTOMIZE_POLICY": str(policy)},
    )
    message = json.loads(result.stdout)
    assert "certificate rejected" in message
    assert "\x1b" not in message
    assert "\\x1b[2J" in message
