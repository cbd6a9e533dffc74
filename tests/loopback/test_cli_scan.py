"""scan: many targets at once; verified, rejected and unreachable each reported."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

import _pki
from sslcustomize._cli import main

if TYPE_CHECKING:
    from conftest import StartServer


def test_scan_reports_each_target(
    pki: _pki.TestPKI,
    https_server: StartServer,
    smtp_server: StartServer,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A good, a self-signed, a STARTTLS and a closed target: verdicts and exit status 1."""
    root = tmp_path / "root.pem"
    root.write_bytes(pki.root_pem)
    policy = tmp_path / "p.toml"
    policy.write_text(f"trust = ['{root}']\n")
    monkeypatch.setenv("SSLCUSTOMIZE_POLICY", str(policy))
    _, good = https_server(pki["good"], "localhost")
    _, bad = https_server(pki["self_signed"], "localhost")
    _, mail = smtp_server(pki["good"], "localhost", starttls=True)
    listing = tmp_path / "targets.txt"
    listing.write_text(
        f"# our servers\nlocalhost:{good}\nhttps://localhost:{bad}/\n"
        f"localhost:{mail} smtp  # mail\n127.0.0.1:1\n"
    )
    assert main(["scan", "--json", str(listing)]) == 1
    results = json.loads(capsys.readouterr().out)["results"]
    assert [r["verdict"] for r in results] == ["verified", "rejected", "verified", "error"]
    assert results[1]["reasons"] == ["self_signed"]
    assert "refused" in results[3]["error"]
    assert main(["scan", "--csv", str(listing)]) == 1
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert [row["verdict"] for row in rows] == ["verified", "rejected", "verified", "error"]


def test_scan_all_good_exits_0_and_bad_lines_are_usage_errors(
    pki: _pki.TestPKI, https_server: StartServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    """All verified: exit 0 with a table; an unknown protocol names file and line, exit 2."""
    root = tmp_path / "root.pem"
    root.write_bytes(pki.root_pem)
    policy = tmp_path / "p.toml"
    policy.write_text(f"trust = ['{root}']\n")
    monkeypatch.setenv("SSLCUSTOMIZE_POLICY", str(policy))
    _, good = https_server(pki["good"], "localhost")
    listing = tmp_path / "t.txt"
    listing.write_text(f"localhost:{good}\n")
    assert main(["scan", str(listing)]) == 0
    assert "verified" in capsys.readouterr().out
    listing.write_text("localhost:1 gopher\n")
    assert main(["scan", str(listing)]) == 2
    assert f"{listing}:1: unknown STARTTLS protocol" in capsys.readouterr().err


def test_scan_table_and_csv_show_starttls_expiry_and_pin(
    pki: _pki.TestPKI, smtp_server: StartServer, https_server: StartServer, tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    """One host:port with and without STARTTLS: two rows told apart; expiry and pin shown."""
    _, mail = smtp_server(pki["self_signed"], "localhost", starttls=True)
    listing = tmp_path / "t.txt"
    listing.write_text(f"localhost:{mail} smtp\nlocalhost:{mail}\n")
    assert main(["scan", "--csv", str(listing)]) == 1
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert [(r["starttls"], r["verdict"]) for r in rows] == [("smtp", "rejected"), ("", "error")]
    assert rows[0]["pin"] == pki["self_signed"].pin
    assert rows[0]["not_after"].startswith(str(pki["self_signed"].leaf.not_valid_after_utc.date()))
    assert "try --starttls smtp" in rows[1]["error"]
    assert main(["scan", str(listing)]) == 1
    table = capsys.readouterr().out
    assert "starttls" in table
    assert pki["self_signed"].pin in table


def test_scan_summarises_and_keeps_errors_on_one_line(
    pki: _pki.TestPKI, https_server: StartServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    """Table and JSON count verified/rejected/errors; each error is one whole line."""
    root = tmp_path / "root.pem"
    root.write_bytes(pki.root_pem)
    policy = tmp_path / "p.toml"
    policy.write_text(f"trust = ['{root}']\n")
    monkeypatch.setenv("SSLCUSTOMIZE_POLICY", str(policy))
    _, good = https_server(pki["good"], "localhost")
    _, bad = https_server(pki["self_signed"], "localhost")
    listing = tmp_path / "t.txt"
    closed = [f"127.0.0.1:{port}" for port in (1, 2, 3)]
    listing.write_text("\n".join([f"localhost:{good}", f"localhost:{bad}", *closed]) + "\n")
    assert main(["scan", "--json", str(listing)]) == 1
    summary = json.loads(capsys.readouterr().out)["summary"]
    assert summary == {"verified": 1, "rejected": 1, "error": 3, "total": 5}
    assert main(["scan", str(listing)]) == 1
    out = capsys.readouterr().out
    assert "1 verified, 1 rejected, 3 error(s) of 5 target(s)" in out
    for target in closed:
        (line,) = [line for line in out.splitlines() if line.startswith(f"error: {target}:")]
        assert line == f"error: {target}: connection to {target} refused"
    # The table: one line per target (nothing wrapped), each target whole.
    rows = [line for line in out.splitlines() if line.startswith("│")]
    assert len(rows) == 5
    assert all(f"│ {target} " in "".join(rows) for target in [f"localhost:{good}", *closed])
    assert "cert valid until" in out
    assert " expires " not in out


def test_scan_one_handshake_keeps_every_verdict(
    pki: _pki.TestPKI, https_server: StartServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    """Distinct good servers and a pinned one verify; an interceptor's chain and a stale one do not.

    scan judges a target in its one handshake; a refused chain still gets every reason code
    and its fix, each verified row the expiry and pin of that server's own leaf.
    """
    leaves = [pki.issue_server_cert(f"good-{index}") for index in range(3)]
    good = [https_server(leaf, "localhost")[1] for leaf in leaves]
    # What a TLS-intercepting proxy presents: the right name, issued by a CA nobody trusts.
    _, mitm = https_server(pki["unknown_issuer"], "localhost")
    _, stale = https_server(pki["expired_wrong_host"], "localhost")
    _, pinned = https_server(pki["self_signed"], "localhost")
    root = tmp_path / "root.pem"
    root.write_bytes(pki.root_pem)
    policy = tmp_path / "p.toml"
    policy.write_text(
        f"trust = ['system', '{root}']\n[[exception]]\nhost = 'localhost:{pinned}'\n"
        f"pin = ['{pki['self_signed'].pin}']\nreason = 'appliance'\n"
    )
    monkeypatch.setenv("SSLCUSTOMIZE_POLICY", str(policy))
    listing = tmp_path / "t.txt"
    lines = [f"localhost:{port}" for port in (good[0], mitm, good[1], stale, good[2], pinned)]
    listing.write_text("\n".join(lines) + "\n")
    assert main(["scan", "--json", str(listing)]) == 1
    rows = json.loads(capsys.readouterr().out)["results"]
    assert [row["verdict"] for row in rows] == [
        "verified", "rejected", "verified", "rejected", "verified", "verified"
    ]  # fmt: skip
    assert rows[5]["rule"] != "default"  # the pinned exception's own rule
    assert rows[1]["reasons"] == ["unknown_issuer"]
    assert rows[1]["pin"] == pki["unknown_issuer"].pin
    assert "sslcustomize trust" in rows[1]["fix"]
    assert set(rows[3]["reasons"]) == pki["expired_wrong_host"].reasons
    for row, leaf in zip((rows[0], rows[2], rows[4]), leaves, strict=True):
        assert row["reasons"] == []
        assert row["fix"] is None
        assert row["pin"] == leaf.pin
        assert row["not_after"] == leaf.leaf.not_valid_after_utc.isoformat()
        assert row["rule"] == "default"
