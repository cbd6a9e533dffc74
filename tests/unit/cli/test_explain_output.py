"""What `explain` prints for a person: nothing cut, nothing twice, the port kept (issue 33 §4)."""

from __future__ import annotations

from pathlib import Path

import pytest
import trustme

from _fixtures import WritePolicy
from sslcustomize._cli import main
from sslcustomize._runtime import _state

PIN = "sha256/" + "A" * 43 + "="


@pytest.fixture
def long_policy(write_policy: WritePolicy, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A process policy whose path is longer than the output is wide, with a port exception."""
    text = (
        "version = 1\nmode = 'enforce'\ntrust = ['system']\n\n[[exception]]\n"
        f"host = 'localhost:8443'\npin = ['{PIN}']\nreason = 'lab box'\n"
    )
    path = write_policy(text, name="policy-" + "x" * 170 + ".toml")
    monkeypatch.setenv("SSLCUSTOMIZE_POLICY", str(path))
    _state.set_policy(None)
    return path


def _column(out: str, title: str, column: int) -> dict[str, str]:
    """Return each row's cell of ``column`` in the table titled ``title``, folded lines joined."""
    lines = out.splitlines()
    start = lines.index(title)
    rows: dict[str, str] = {}
    key = ""
    for line in lines[start + 4 :]:  # title, top border, header, header rule
        if not line.startswith("│"):
            break
        cells = [cell.strip() for cell in line.split("│")[1:-1]]
        key = cells[0] or key
        rows[key] = rows.get(key, "") + cells[column]
    return rows


def test_the_from_column_is_never_cut(
    long_policy: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A path wider than the output is folded, not ellipsised: its line number stays."""
    assert main(["explain"]) == 0
    out = capsys.readouterr().out
    assert "…" not in out
    assert _column(out, "Effective policy", 2)["mode"] == f"{long_policy}:2"
    assert _column(out, "Exceptions", 5)["localhost:8443"] == f"{long_policy}:5"


def test_the_decision_keeps_the_port(long_policy: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The port chose the exception, so the decision line names it; another port's is default."""
    main(["explain", "localhost:8443"])
    assert "localhost:8443 gets rule exception localhost:8443" in capsys.readouterr().out
    main(["explain", "localhost:9443"])
    assert "localhost:9443 gets rule default" in capsys.readouterr().out


def test_environment_variables_are_listed_once(
    long_policy: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    """SSL_CERT_FILE is shown once, above, not again under the host's decision."""
    bundle = tmp_path / "bundle.pem"
    bundle.write_bytes(trustme.CA().cert_pem.bytes())
    monkeypatch.setenv("SSL_CERT_FILE", str(bundle))
    _state.set_policy(None)
    main(["explain", "localhost:8443"])
    out = capsys.readouterr().out
    assert out.count("SSL_CERT_FILE adds its CAs") == 1
    assert str(bundle) in out.split("gets rule")[1]  # still in the decision's trust line
