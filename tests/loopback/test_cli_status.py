"""status in one line, and lock/unlock of the system policy's keys without editing TOML."""

from __future__ import annotations

import datetime as dt
import json
import os
from pathlib import Path

import pytest

from _fixtures import WritePolicy
from sslcustomize._cli import main
from sslcustomize._runtime import _state
from sslcustomize._trust._checked_policy import load_policy

TODAY = dt.date.today()
PIN = "sha256/" + "A" * 43 + "="


def _run(*argv: str) -> int:
    _state.set_policy(None)
    return main(list(argv))


@pytest.fixture
def user_policy() -> Path:
    """Where the user layer's file goes (XDG_CONFIG_HOME is per test)."""
    path = Path(os.environ["XDG_CONFIG_HOME"]) / "sslcustomize" / "policy.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    return path


@pytest.fixture
def system_policy(write_policy: WritePolicy, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A system layer file in the test's directory, with a comment to keep."""
    system = write_policy("# the fleet's policy\nversion = 1\nmode = 'enforce'\n", "system.toml")
    monkeypatch.setattr("sslcustomize._support._bootstrap.SYSTEM_POLICY", str(system))
    return system


def _exception(host: str, expires: dt.date | None) -> str:
    until = f"expires = {expires}\n" if expires else ""
    return f"[[exception]]\nhost = '{host}'\npin = ['{PIN}']\n{until}reason = 'r'\n"


def test_status_when_idle(capsys: pytest.CaptureFixture[str]) -> None:
    """No policy file: one line that says idle and how to turn it on, exit 0."""
    assert _run("status") == 0
    out = capsys.readouterr().out
    assert out.count("\n") == 1
    assert "idle" in out
    assert "sslcustomize enable" in out


def test_status_counts_exceptions_expiring_and_expired(
    user_policy: Path, system_policy: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Mode, layers, exceptions with those expiring within 14 days and expired, in one line."""
    user_policy.write_text(
        "version = 1\nmode = 'report'\n"
        + _exception("a.example", TODAY + dt.timedelta(days=3))
        + _exception("b.example", TODAY - dt.timedelta(days=1))
        + _exception("c.example", TODAY + dt.timedelta(days=15))
        + _exception("d.example", None)
    )
    assert _run("status") == 0
    out = capsys.readouterr().out
    assert out == (
        "sslcustomize: report; layers system, user; 4 exceptions (1 expiring within 14 days, "
        "1 expired); no errors\n"
    )
    assert _run("status", "--json") == 0
    facts = json.loads(capsys.readouterr().out)
    assert facts["version"] == 1
    assert (facts["exceptions"], facts["expiring"], facts["expired"]) == (4, 1, 1)
    assert facts["layers"] == ["system", "user"]


def test_status_exits_2_on_policy_errors(
    user_policy: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A broken file: the fallback's mode, the error count, exit 2."""
    user_policy.write_text("version = 1\nmode = 'sometimes'\n")
    assert _run("status") == 2
    out = capsys.readouterr().out
    assert "enforce (fallback: policy errors); layers none (strict defaults)" in out
    assert "1 error (sslcustomize doctor lists them)" in out
    assert _run("status", "--json") == 2
    assert len(json.loads(capsys.readouterr().out)["errors"]) == 1


def test_lock_binds_the_other_layers_and_unlock_frees_them(
    user_policy: Path, system_policy: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """lock mode: the user's report mode is ignored; unlock mode: it applies again."""
    user_policy.write_text("version = 1\nmode = 'report'\n")
    assert load_policy().mode.value == "report"
    assert _run("lock", "mode") == 0
    assert f"locked 'mode' in {system_policy}" in capsys.readouterr().out
    text = system_policy.read_text()
    assert text.startswith("# the fleet's policy\nversion = 1\nmode = 'enforce'\n")
    assert 'lock = ["mode"]' in text
    locked = load_policy()
    assert locked.mode.value == "enforce"
    assert "'mode' is locked by" in locked.warnings[0]
    assert _run("lock", "trust", "--json") == 0
    assert json.loads(capsys.readouterr().out)["changed"] is True
    assert _run("lock", "trust", "--json") == 0  # twice: nothing to do, said so
    assert json.loads(capsys.readouterr().out)["changed"] is False
    assert _run("unlock", "mode") == 0
    assert load_policy().mode.value == "report"
    assert _run("unlock", "trust") == 0
    assert "lock" not in system_policy.read_text()
    assert _run("unlock", "trust") == 1
    assert "not locked" in capsys.readouterr().err


def test_lock_is_for_the_system_layer_only(
    user_policy: Path, system_policy: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """--scope user: a clear refusal naming the system file; nothing written anywhere."""
    before = system_policy.read_text()
    assert _run("lock", "mode", "--scope", "user") == 2
    err = capsys.readouterr().err
    assert f"only the system layer has locks ({system_policy})" in err
    assert system_policy.read_text() == before
    assert not user_policy.exists()


def test_lock_without_a_system_policy_creates_none(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """No system file: refused (a file holding a lock would turn sslcustomize on)."""
    missing = tmp_path / "etc" / "policy.toml"
    monkeypatch.setattr("sslcustomize._support._bootstrap.SYSTEM_POLICY", str(missing))
    assert _run("lock", "mode") == 2
    assert "enable --scope system" in capsys.readouterr().err
    assert not missing.exists()


def test_lock_rejects_a_key_that_cannot_be_locked(capsys: pytest.CaptureFixture[str]) -> None:
    """An unknown key is a usage error that lists the lockable ones."""
    with pytest.raises(SystemExit) as exit_:
        main(["lock", "modes"])
    assert exit_.value.code == 2
    assert "allow_code_opt_out" in capsys.readouterr().err


def test_status_names_only_the_layers_in_effect(
    user_policy: Path, system_policy: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A broken user file under a valid system one: only the system layer is in effect."""
    user_policy.write_text("version = 1\nmode = 'sometimes'\n")
    assert _run("status", "--json") == 2
    facts = json.loads(capsys.readouterr().out)
    assert facts["layers"] == ["system"]
    assert [row["layer"] for row in facts["files"]] == ["system", "user"]
