"""trust --cert-file: pin a key obtained out of band; a re-key's prompt shows old -> new."""

from __future__ import annotations

import json
import os
import socket
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
import tomlkit
from cryptography.hazmat.primitives.serialization import Encoding

import _pki
from sslcustomize._cli import main
from sslcustomize._runtime import _state

if TYPE_CHECKING:
    from conftest import StartServer

OLD_PIN = "sha256/" + "B" * 43 + "="


@pytest.fixture
def user_policy() -> Path:
    """The user layer's file (XDG_CONFIG_HOME is per test), with a comment to keep."""
    path = Path(os.environ["XDG_CONFIG_HOME"]) / "sslcustomize" / "policy.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("# the appliances\nversion = 1\n")
    return path


def _run(*argv: str) -> int:
    _state.set_policy(None)
    return main(list(argv))


def _exceptions(path: Path) -> list[dict[str, Any]]:
    entries: list[dict[str, Any]] = tomlkit.parse(path.read_text()).unwrap().get("exception", [])
    return entries


def _closed_port() -> int:
    """A loopback port nothing listens on (bound, then closed)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
    return port


def test_cert_file_pins_without_connecting(
    pki: _pki.TestPKI, user_policy: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The pin of the file's certificate is written for a port nothing listens on."""
    leaf = tmp_path / "nas.pem"
    leaf.write_bytes(pki["self_signed"].chain_pem)
    port = _closed_port()
    assert (
        _run("trust", "--scope", "user", "--yes", "--cert-file", str(leaf), f"localhost:{port}")
        == 0
    )
    (entry,) = _exceptions(user_policy)
    assert entry["host"] == f"localhost:{port}"
    assert entry["pin"] == [pki["self_signed"].pin]
    out = capsys.readouterr().out
    assert "not fetched: no connection made" in out
    assert user_policy.read_text().startswith("# the appliances\n")
    args = ["--scope", "user", "--yes", "--json", "--cert-file", str(leaf), f"localhost:{port}"]
    assert _run("trust", *args) == 0
    document = json.loads(capsys.readouterr().out)
    assert (document["fetched"], document["replaced"]) == (False, True)
    assert document["pin"] == [pki["self_signed"].pin]


def test_a_pin_from_a_file_admits_that_server_and_no_other(
    pki: _pki.TestPKI, https_server: StartServer, user_policy: Path, tmp_path: Path
) -> None:
    """The server with the file's key verifies; another self-made key on that port does not."""
    leaf = tmp_path / "leaf.der"
    leaf.write_bytes(pki["self_signed"].leaf.public_bytes(Encoding.DER))
    _, port = https_server(pki["self_signed"], "localhost")
    assert _run("check", f"localhost:{port}") == 1
    assert (
        _run("trust", "--scope", "user", "--yes", "--cert-file", str(leaf), f"localhost:{port}")
        == 0
    )
    assert _run("check", f"localhost:{port}") == 0
    _, other = https_server(pki["unknown_issuer"], "localhost")
    user_policy.write_text(user_policy.read_text().replace(f":{port}", f":{other}"))
    assert _run("check", f"localhost:{other}") == 1


def test_cert_file_refuses_what_is_not_a_certificate(
    pki: _pki.TestPKI, user_policy: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A private key (or a missing file) is refused in one line; nothing is written."""
    key = tmp_path / "key.pem"
    key.write_bytes(pki["self_signed"].key_pem)
    before = user_policy.read_text()
    assert _run("trust", "--scope", "user", "--yes", "--cert-file", str(key), "localhost:1") == 2
    assert "not a certificate" in capsys.readouterr().err
    assert (
        _run("trust", "--scope", "user", "--yes", "--cert-file", str(tmp_path / "no"), "x:1") == 2
    )
    assert "--cert-file" in capsys.readouterr().err
    assert _run("trust", "--scope", "user", "--yes", "--ca", "--cert-file", str(key), "x:1") == 2
    assert "--ca-file" in capsys.readouterr().err
    assert user_policy.read_text() == before


def test_cert_file_says_when_the_certificate_does_not_name_the_host(
    pki: _pki.TestPKI, user_policy: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A pin for a name the certificate lacks would fail hostname_mismatch: said before."""
    leaf = tmp_path / "leaf.pem"
    leaf.write_bytes(pki["self_signed"].leaf_pem)
    assert (
        _run("trust", "--scope", "user", "--yes", "--cert-file", str(leaf), "nas.lab.example") == 0
    )
    assert "does not name nas.lab.example" in capsys.readouterr().out
    assert (
        _run("trust", "--scope", "user", "--yes", "--cert-file", str(leaf), "localhost:8443") == 0
    )
    assert "does not name" not in capsys.readouterr().out


def test_rekeyed_server_prompt_shows_old_and_new(
    pki: _pki.TestPKI, https_server: StartServer, user_policy: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    """Re-trusting a pinned host whose key changed: a warning, old pin -> new pin, what goes."""
    _, port = https_server(pki["self_signed"], "localhost")
    with user_policy.open("a") as file:
        file.write(
            f"\n[[exception]]\nhost = 'localhost:{port}'\npin = ['{OLD_PIN}']\n"
            "reason = 'appliance, OPS-123'\n"
        )
    assert _run("trust", "--scope", "user", "--yes", f"localhost:{port}") == 0
    out = capsys.readouterr().out
    assert f"WARNING: the key of localhost:{port} has changed" in out
    assert f"old: {OLD_PIN} ({user_policy}:4)" in out
    assert f"new: {pki['self_signed'].pin}" in out
    assert f"replaces the exception at {user_policy}:4 (reason 'appliance, OPS-123')" in out
    # The same key again (a renewal): what it replaces, but no alarm.
    assert _run("trust", "--scope", "user", "--yes", "--force", "--json", f"localhost:{port}") == 0
    document = json.loads(capsys.readouterr().out)
    assert document["old"] == {"pin": [pki["self_signed"].pin], "ca": []}
    assert _run("trust", "--scope", "user", "--yes", "--force", f"localhost:{port}") == 0
    out = capsys.readouterr().out
    assert "has changed" not in out
    assert f"old: {pki['self_signed'].pin}" in out
