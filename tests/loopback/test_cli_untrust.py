"""trusted and untrust: list what every layer trusts, and take it back, comments kept."""

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
from _fixtures import WritePolicy
from sslcustomize._cli import main
from sslcustomize._runtime import _state

if TYPE_CHECKING:
    from conftest import StartServer

TODAY = dt.date.today()
PIN_A = "sha256/" + "A" * 43 + "="
PIN_B = "sha256/" + "B" * 43 + "="
PIN_C = "sha256/" + "C" * 43 + "="


@pytest.fixture
def user_policy() -> Path:
    """The user layer's file: comments, three exceptions (two for localhost), one expired."""
    path = Path(os.environ["XDG_CONFIG_HOME"]) / "sslcustomize" / "policy.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        "# the appliances of the lab\n"
        "version = 1\n\n"
        "# the NAS, ticket OPS-1\n"
        "[[exception]]\n"
        f"host = 'localhost:8443'\npin = ['{PIN_A}']\n"
        f"expires = {TODAY + dt.timedelta(days=5)}\nreason = 'NAS, OPS-1'\n\n"
        "# the printer\n"
        "[[exception]]\n"
        f"host = 'localhost:9443'\npin = ['{PIN_B}']\n"
        f"expires = {TODAY - dt.timedelta(days=1)}\nreason = 'printer'\n\n"
        "# the switch\n"
        "[[exception]]\n"
        f"host = 'switch.lab.example'\npin = ['{PIN_C}']\nreason = 'switch'\n"
    )
    return path


def _run(*argv: str) -> int:
    _state.set_policy(None)
    return main(list(argv))


def _hosts(path: Path) -> list[str]:
    entries: list[dict[str, Any]] = tomlkit.parse(path.read_text()).unwrap().get("exception", [])
    return [entry["host"] for entry in entries]


def _system(write_policy: WritePolicy, monkeypatch: pytest.MonkeyPatch, text: str) -> Path:
    system = write_policy(text, "system.toml")
    monkeypatch.setattr("sslcustomize._support._bootstrap.SYSTEM_POLICY", str(system))
    return system


def test_trusted_lists_every_layer_with_expiry_reason_and_line(
    user_policy: Path, write_policy: WritePolicy, monkeypatch: pytest.MonkeyPatch,
    pki: _pki.TestPKI, tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    """Each exception and trust source of each layer, with kind, expiry, reason, file:line."""
    corp = tmp_path / "corp.pem"
    corp.write_bytes(pki.root_pem)
    system = _system(write_policy, monkeypatch, f"version = 1\ntrust = ['system', '{corp}']\n")
    assert _run("trusted", "--json") == 0
    document = json.loads(capsys.readouterr().out)
    assert document["version"] == 1
    rows = {(row["layer"], row["host"] or row["source"]): row for row in document["trusted"]}
    assert rows["system", str(corp)]["kind"] == "file"
    assert rows["system", str(corp)]["path"] == str(system)
    assert rows["system", str(corp)]["line"] == 2
    nas = rows["user", "localhost:8443"]
    assert (nas["kind"], nas["pins"], nas["reason"]) == ("pin", [PIN_A], "NAS, OPS-1")
    assert (nas["days_left"], nas["line"], nas["in_effect"]) == (5, 5, True)
    printer = rows["user", "localhost:9443"]
    assert printer["expired"] is True
    assert printer["in_effect"] is False
    assert "expired" in printer["why_not"]
    assert rows["user", "switch.lab.example"]["expires"] is None
    assert _run("trusted") == 0
    out = capsys.readouterr().out
    assert f"{user_policy}:5" in out.replace("\n", "") or "policy.toml:5" in out
    assert "(expired)" in out
    assert "sslcustomize untrust" in out


def test_trusted_says_what_a_lock_overrides(
    user_policy: Path, write_policy: WritePolicy, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    """Under a system lock on exceptions, the user's rows are listed as not in effect, and why."""
    system = _system(write_policy, monkeypatch, "version = 1\nlock = ['exception']\n")
    assert _run("trusted", "--json") == 0
    rows = json.loads(capsys.readouterr().out)["trusted"]
    switch = next(row for row in rows if row["host"] == "switch.lab.example")
    assert switch["in_effect"] is False
    assert str(system) in switch["why_not"]


def test_trusted_exits_2_and_names_a_broken_file(
    user_policy: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A file that cannot be read is named with its error; the listing is then partial."""
    user_policy.write_text("version = 1\nmode = 'sometimes'\n")
    assert _run("trusted") == 2
    assert "mode" in capsys.readouterr().out


def test_untrust_host_port_removes_that_exception_only(
    user_policy: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """HOST:PORT removes that one exception; the others and their comments stay."""
    assert _run("untrust", "--scope", "user", "--yes", "localhost:8443") == 0
    assert _hosts(user_policy) == ["localhost:9443", "switch.lab.example"]
    text = user_policy.read_text()
    assert text.startswith("# the appliances of the lab\nversion = 1\n")
    # The comment above the first table may be the section's (enable writes one): it stays.
    assert "# the NAS, ticket OPS-1\n# the printer\n[[exception]]" in text
    assert "# the switch\n[[exception]]" in text
    out = capsys.readouterr().out
    assert "removed the exception for localhost:8443 (line 5)" in out
    assert PIN_A in out


def test_untrust_host_removes_every_port_of_that_host(
    user_policy: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """HOST without a port removes the exceptions of every port of that host, not others."""
    assert _run("untrust", "--scope", "user", "--yes", "--json", "LOCALHOST") == 0
    document = json.loads(capsys.readouterr().out)
    assert [entry["host"] for entry in document["removed"]] == ["localhost:8443", "localhost:9443"]
    assert _hosts(user_policy) == ["switch.lab.example"]
    assert "# the switch\n[[exception]]" in user_policy.read_text()
    assert "# the printer" not in user_policy.read_text()
    assert _run("untrust", "--scope", "user", "--yes", "switch.lab.example") == 0
    text = user_policy.read_text()
    assert "exception" not in text  # no `exception = []` left behind
    assert text.startswith("# the appliances of the lab\nversion = 1\n")


def test_untrust_exits_1_when_nothing_matched_and_names_the_layer_that_has_it(
    user_policy: Path, write_policy: WritePolicy, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    """An exception in the system file: untrust of the user's says where it is and how."""
    system = _system(
        write_policy,
        monkeypatch,
        f"version = 1\n[[exception]]\nhost = 'nas.corp.example'\npin = ['{PIN_A}']\n"
        "reason = 'corp NAS'\n",
    )
    before = user_policy.read_text()
    assert _run("untrust", "--scope", "user", "--yes", "nas.corp.example") == 1
    err = capsys.readouterr().err
    assert f"{system}:2 (system layer: sslcustomize untrust nas.corp.example --scope system)" in err
    assert user_policy.read_text() == before
    assert _run("untrust", "--scope", "user", "--yes", "--json", "nowhere.example") == 1
    assert (
        "no exception for nowhere.example"
        in json.loads(capsys.readouterr().out)["error"]["message"]
    )


def test_untrust_refused_where_the_system_locks_exceptions(
    user_policy: Path, write_policy: WritePolicy, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    """A lock on exception in the system layer: a clear refusal naming its file; nothing changed."""
    system = _system(write_policy, monkeypatch, "version = 1\nlock = ['exception']\n")
    before = user_policy.read_text()
    assert _run("untrust", "--scope", "user", "--yes", "localhost:8443") == 2
    err = capsys.readouterr().err
    assert f"the system policy ({system}:2) locks exception" in err
    assert "--scope system" in err
    assert user_policy.read_text() == before


def test_untrust_asks_first(
    user_policy: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Without --yes: refused off a terminal, kept on "n", removed on "y"."""
    before = user_policy.read_text()
    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    assert _run("untrust", "--scope", "user", "localhost:8443") == 2
    assert "add --yes" in capsys.readouterr().err
    for answer, status in (("n\n", 1), ("y\n", 0)):
        stdin = io.StringIO(answer)
        monkeypatch.setattr(stdin, "isatty", lambda: True, raising=False)
        monkeypatch.setattr("sys.stdin", stdin)
        assert _run("untrust", "--scope", "user", "localhost:8443") == status
        if status:
            assert user_policy.read_text() == before
    assert "localhost:8443" not in _hosts(user_policy)
    assert "Remove? [y/N]" in capsys.readouterr().out


def test_untrust_ca_file_removes_the_entry_and_the_copy_trust_made(
    user_policy: Path, pki: _pki.TestPKI, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """trust --ca-file then untrust --ca-file with the same original: entry and copy both go."""
    original = tmp_path / "corp-root.pem"
    original.write_bytes(pki.root_pem)
    assert _run("trust", "--scope", "user", "--ca-file", str(original)) == 0
    copy = user_policy.parent / "ca" / "corp-root.pem"
    assert copy.is_file()
    capsys.readouterr()
    assert _run("untrust", "--scope", "user", "--yes", "--ca-file", str(original)) == 0
    assert tomlkit.parse(user_policy.read_text())["trust"] == ["system"]
    assert not copy.exists()
    assert original.exists()
    assert "deleted the CA copy" in capsys.readouterr().out
    assert _run("untrust", "--scope", "user", "--yes", "--ca-file", str(original)) == 1


def test_untrust_ca_file_keeps_a_file_it_did_not_make(
    user_policy: Path, pki: _pki.TestPKI, tmp_path: Path
) -> None:
    """A trust entry naming the user's own file: the entry goes, the file stays."""
    own = tmp_path / "mine.pem"
    own.write_bytes(pki.root_pem)
    user_policy.write_text(f"version = 1\ntrust = ['system', '{own}']  # my CA\n")
    assert _run("untrust", "--scope", "user", "--yes", "--ca-file", str(own)) == 0
    assert user_policy.read_text() == "version = 1\ntrust = ['system']  # my CA\n"
    assert own.exists()


def test_untrust_ca_file_refuses_to_empty_the_trust_list(
    user_policy: Path, pki: _pki.TestPKI, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Removing the only source would widen trust to the default: refused, nothing written."""
    own = tmp_path / "only.pem"
    own.write_bytes(pki.root_pem)
    user_policy.write_text(f"version = 1\ntrust = ['{own}']\n")
    before = user_policy.read_text()
    assert _run("untrust", "--scope", "user", "--yes", "--ca-file", str(own)) == 2
    assert "built-in default" in capsys.readouterr().err
    assert user_policy.read_text() == before


def test_untrust_exception_deletes_the_ca_copy_trust_made(
    user_policy: Path, pki: _pki.TestPKI, tmp_path: Path
) -> None:
    """An exception's CA in the policy's ca/ goes with it; a CA elsewhere stays."""
    copy = user_policy.parent / "ca" / "localhost.pem"
    copy.parent.mkdir()
    copy.write_bytes(pki.root_pem)
    elsewhere = tmp_path / "other.pem"
    elsewhere.write_bytes(pki.root_pem)
    user_policy.write_text(
        f"version = 1\n[[exception]]\nhost = 'localhost:8443'\nca = ['{copy}']\nreason = 'a'\n"
        f"[[exception]]\nhost = 'other:8443'\nca = ['{elsewhere}']\nreason = 'b'\n"
    )
    assert _run("untrust", "--scope", "user", "--yes", "localhost") == 0
    assert not copy.exists()
    assert _run("untrust", "--scope", "user", "--yes", "other") == 0
    assert elsewhere.exists()


def test_untrusted_server_is_rejected_again(
    pki: _pki.TestPKI, https_server: StartServer, user_policy: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    """A pinned self-signed server verifies; after untrust the same check rejects it."""
    _, port = https_server(pki["self_signed"], "localhost")
    user_policy.write_text(
        f"version = 1\n[[exception]]\nhost = 'localhost:{port}'\n"
        f"pin = ['{pki['self_signed'].pin}']\nreason = 'lab'\n"
    )
    assert _run("check", f"localhost:{port}") == 0
    assert _run("untrust", "--scope", "user", "--yes", f"localhost:{port}") == 0
    capsys.readouterr()
    assert _run("check", "--json", f"localhost:{port}") == 1
    assert "self_signed" in json.loads(capsys.readouterr().out)["reasons"]
