"""trust over an exception's lifetime: re-trusting keeps expiry and reason, defaults, refusals."""

from __future__ import annotations

import datetime as dt
import io
import json
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
import tomlkit

import _pki
from _fixtures import run_python
from sslcustomize._cli import main
from sslcustomize._runtime import _state

if TYPE_CHECKING:
    from conftest import StartServer

TODAY = dt.date.today()
OLD_PIN = "sha256/" + "B" * 43 + "="


@pytest.fixture
def user_policy() -> Path:
    """The user layer's file (XDG_CONFIG_HOME is per test), with a comment to keep."""
    path = Path(os.environ["XDG_CONFIG_HOME"]) / "sslcustomize" / "policy.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("# the appliances\nversion = 1\n")
    return path


def _exceptions(path: Path) -> list[dict[str, Any]]:
    entries: list[dict[str, Any]] = tomlkit.parse(path.read_text()).unwrap().get("exception", [])
    return entries


def _trust(*argv: str) -> int:
    _state.set_policy(None)
    return main(["trust", "--scope", "user", *argv])


def test_retrust_after_a_rekey_keeps_expiry_and_reason(
    pki: _pki.TestPKI, https_server: StartServer, user_policy: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    """The pasted `trust --yes HOST` after a re-key writes the new pin, same date and reason."""
    _, port = https_server(pki["self_signed"], "localhost")
    expires = TODAY + dt.timedelta(days=40)
    with user_policy.open("a") as file:
        file.write(
            f"\n[[exception]]\nhost = 'localhost:{port}'\npin = ['{OLD_PIN}']\n"
            f"expires = {expires}\nreason = 'appliance, ticket OPS-123'\n"
        )
    _state.set_policy(None)
    assert main(["check", "--json", f"localhost:{port}"]) == 1
    assert json.loads(capsys.readouterr().out)["reasons"][0] == "pin_mismatch"
    assert _trust("--yes", f"localhost:{port}") == 0
    (entry,) = _exceptions(user_policy)
    assert entry["pin"] == [pki["self_signed"].pin]
    assert entry["expires"] == expires
    assert entry["reason"] == "appliance, ticket OPS-123"
    out = capsys.readouterr().out
    assert f"until {expires} (kept)" in out
    assert "(kept)" in out.rsplit("reason", 1)[1]
    assert user_policy.read_text().startswith("# the appliances\n")


def test_a_new_reason_is_given_to_an_exception_that_verifies(
    pki: _pki.TestPKI, https_server: StartServer, user_policy: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    """--reason (or --days) on a host its exception verifies changes only that, no --force."""
    _, port = https_server(pki["self_signed"], "localhost")
    assert _trust("--yes", "--reason", "OPS-1", "--days", "10", f"localhost:{port}") == 0
    assert _trust("--yes", "--reason", "OPS-2, owner alice", f"localhost:{port}") == 0
    (entry,) = _exceptions(user_policy)
    assert entry["reason"] == "OPS-2, owner alice"
    assert entry["expires"] == TODAY + dt.timedelta(days=10)
    assert entry["pin"] == [pki["self_signed"].pin]
    assert _trust("--yes", "--days", "20", f"localhost:{port}") == 0
    (entry,) = _exceptions(user_policy)
    assert (entry["reason"], entry["expires"]) == ("OPS-2, owner alice", TODAY + dt.timedelta(20))
    capsys.readouterr()
    # Nothing to change and nothing to trust: still refused, and told how to change it.
    assert _trust("--yes", f"localhost:{port}") == 1
    assert "give --reason, --days or --expires" in capsys.readouterr().err


@pytest.mark.parametrize(("setting", "days"), [("", 90), ("exception_days = 7\n", 7)])
def test_trust_has_a_default_expiry(
    setting: str, days: int, pki: _pki.TestPKI, https_server: StartServer, user_policy: Path
) -> None:
    """Without --days an exception lives exception_days (90 unless the policy says)."""
    user_policy.write_text(f"version = 1\n{setting}")
    _, port = https_server(pki["self_signed"], "localhost")
    assert _trust("--yes", f"localhost:{port}") == 0
    (entry,) = _exceptions(user_policy)
    assert entry["expires"] == TODAY + dt.timedelta(days=days)


def test_exception_days_zero_means_no_expiry(
    pki: _pki.TestPKI, https_server: StartServer, user_policy: Path
) -> None:
    """exception_days = 0 writes exceptions without an expiry."""
    user_policy.write_text("version = 1\nexception_days = 0\n")
    _, port = https_server(pki["self_signed"], "localhost")
    assert _trust("--yes", f"localhost:{port}") == 0
    (entry,) = _exceptions(user_policy)
    assert "expires" not in entry


def test_renewing_an_expired_exception_keeps_its_reason(
    pki: _pki.TestPKI, https_server: StartServer, user_policy: Path
) -> None:
    """trust --days N on an expired exception's host: new date, the reason it had."""
    _, port = https_server(pki["self_signed"], "localhost")
    with user_policy.open("a") as file:
        file.write(
            f"\n[[exception]]\nhost = 'localhost:{port}'\npin = ['{pki['self_signed'].pin}']\n"
            f"expires = {TODAY}\nreason = 'NAS, ticket OPS-5'\n"
        )
    assert _trust("--yes", "--days", "30", f"localhost:{port}") == 0
    (entry,) = _exceptions(user_policy)
    assert (entry["reason"], entry["expires"]) == ("NAS, ticket OPS-5", TODAY + dt.timedelta(30))


def test_trust_asks_for_a_reason_on_a_terminal(
    pki: _pki.TestPKI, https_server: StartServer, user_policy: Path,
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    """Confirmed on a terminal without --reason: the reason typed is written."""
    _, port = https_server(pki["self_signed"], "localhost")
    stdin = io.StringIO("y\nOPS-9 from the prompt\n")
    monkeypatch.setattr("sys.stdin", stdin)
    monkeypatch.setattr(stdin, "isatty", lambda: True, raising=False)
    assert _trust(f"localhost:{port}") == 0
    (entry,) = _exceptions(user_policy)
    assert entry["reason"] == "OPS-9 from the prompt"
    assert "Reason (a ticket" in capsys.readouterr().out


def test_trust_enter_at_the_reason_prompt_writes_the_default_it_names(
    pki: _pki.TestPKI, https_server: StartServer, user_policy: Path,
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    """Enter at the prompt: the dated default the prompt named is written (it said "none")."""
    _, port = https_server(pki["self_signed"], "localhost")
    stdin = io.StringIO("y\n\n")
    monkeypatch.setattr("sys.stdin", stdin)
    monkeypatch.setattr(stdin, "isatty", lambda: True, raising=False)
    assert _trust(f"localhost:{port}") == 0
    (entry,) = _exceptions(user_policy)
    default = f"added with `sslcustomize trust` on {dt.date.today()}"
    assert entry["reason"] == default
    out = capsys.readouterr().out
    assert f"Enter for '{default}'" in out
    assert "Enter for none" not in out


def test_trust_on_a_broken_policy_file_says_where(
    pki: _pki.TestPKI, https_server: StartServer, user_policy: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    """A broken file: one line naming file:line and what to do, exit 2, file untouched."""
    user_policy.write_text("version = 1\n[[exception]\nhost = 'x'\n")
    before = user_policy.read_text()
    _, port = https_server(pki["self_signed"], "localhost")
    assert _trust("--yes", f"localhost:{port}") == 2
    err = capsys.readouterr().err
    last = err.splitlines()[-1]  # above it: the loader's own line about the fallback
    assert last.startswith(f"sslcustomize: {user_policy}:2: not valid TOML")
    assert "fix that line" in last
    assert "Traceback" not in err
    assert user_policy.read_text() == before


def test_expires_that_is_not_a_date(capsys: pytest.CaptureFixture[str]) -> None:
    """--expires tomorrow: a usage error that shows the format and --days, exit 2."""
    with pytest.raises(SystemExit) as raised:
        main(["trust", "--expires", "tomorrow", "localhost:1"])
    assert raised.value.code == 2
    err = capsys.readouterr().err
    assert "'tomorrow' is not a date: write YYYY-MM-DD" in err
    assert "--days N" in err
    assert "fromisoformat" not in err


def _expired_policy(path: Path, port: int, pin: str, expires: dt.date) -> int:
    """Append an exception for localhost:PORT; return the line of its table."""
    text = path.read_text()
    path.write_text(
        f"{text}\n[[exception]]\nhost = 'localhost:{port}'\npin = ['{pin}']\n"
        f"expires = {expires}\nreason = 'NAS, ticket OPS-5'\n"
    )
    return text.count("\n") + 2


_FETCH = """
    import json, sys, urllib.request
    try:
        urllib.request.urlopen("https://localhost:{port}/", timeout=10)
        print(json.dumps("ok"))
    except Exception as error:
        print(json.dumps(str(getattr(error, "reason", error))))
"""


def test_an_expired_exception_is_named_where_the_failure_shows(
    pki: _pki.TestPKI, https_server: StartServer, user_policy: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    """After expires: the rejection and check name file:line, the date and the renewal."""
    _, port = https_server(pki["self_signed"], "localhost")
    line = _expired_policy(user_policy, port, pki["self_signed"].pin, TODAY)
    renew = f"sslcustomize trust --days 90 localhost:{port}"
    message = json.loads(run_python(_FETCH.format(port=port)).stdout)
    assert message.startswith("[SSL: CERTIFICATE_VERIFY_FAILED] certificate verify failed: ")
    assert f"; sslcustomize: certificate rejected for localhost:{port}" in message
    assert f"({user_policy}:{line}) expired on {TODAY}" in message
    assert f"renew it with {renew} (it keeps its reason)" in message
    _state.set_policy(None)
    assert main(["check", "--json", f"localhost:{port}"]) == 1
    expired = json.loads(capsys.readouterr().out)["expired_exception"]
    assert expired["origin"] == f"{user_policy}:{line}"
    assert (expired["expires"], expired["renew"]) == (TODAY.isoformat(), renew)
    assert expired["reason"] == "NAS, ticket OPS-5"
    _state.set_policy(None)
    assert main(["check", f"localhost:{port}"]) == 1
    assert f"expired exception: the exception for localhost:{port}" in capsys.readouterr().out
    # The renewal, pasted (plus --yes): connects again and keeps the reason.
    assert main(["trust", "--yes", *renew.split()[2:]]) == 0
    assert json.loads(run_python(_FETCH.format(port=port)).stdout) == "ok"
    (entry,) = _exceptions(user_policy)
    assert (entry["reason"], entry["expires"]) == ("NAS, ticket OPS-5", TODAY + dt.timedelta(90))


def test_an_unexpired_exception_connects_and_names_nothing(
    pki: _pki.TestPKI, https_server: StartServer, user_policy: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    """The twin: the day before expires it applies, and nothing speaks of expiry."""
    _, port = https_server(pki["self_signed"], "localhost")
    _expired_policy(user_policy, port, pki["self_signed"].pin, TODAY + dt.timedelta(1))
    assert json.loads(run_python(_FETCH.format(port=port)).stdout) == "ok"
    _state.set_policy(None)
    assert main(["check", "--json", f"localhost:{port}"]) == 0
    assert json.loads(capsys.readouterr().out)["expired_exception"] is None
