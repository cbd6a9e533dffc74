"""--json everywhere, one convention: enable/disable say what changed, run writes to a file."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest

from sslcustomize._cli import build_parser, main
from sslcustomize._reach._install import MANIFEST, UninstallResult
from sslcustomize._runtime import _state

# The JSON Schema of policy.toml is a standard document of its own (draft 2020-12), printed
# as editors read it: no "version" of ours in it, and nothing else to print.
NOT_DATA = {"schema"}


def _run(*argv: str) -> int:
    _state.set_policy(None)
    return main(list(argv))


def _json(capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    document: dict[str, Any] = json.loads(capsys.readouterr().out)
    assert document["version"] == 1
    return document


def test_every_command_that_outputs_data_takes_json() -> None:
    """Every command but schema has --json (lint's is an alias of --format json)."""
    parser = build_parser()
    (commands,) = (a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    for name, command in commands.choices.items():
        options = {option for action in command._actions for option in action.option_strings}
        assert ("--json" in options) != (name in NOT_DATA), name


def test_enable_json_says_whether_anything_changed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """First enable: changed; again: unchanged; a new mode: changed; the same mode: unchanged."""
    policy = tmp_path / "process.toml"
    monkeypatch.setenv("SSLCUSTOMIZE_POLICY", str(policy))
    expected = [
        ([], True),
        ([], False),
        (["--mode", "report"], True),
        (["--mode", "report"], False),
    ]
    for extra, changed in expected:
        assert _run("enable", "--json", *extra) == 0
        document = _json(capsys)
        assert document["changed"] is changed, (extra, document)
        assert (document["scope"], document["path"]) == ("process", str(policy))
    assert "mode = 'report'" in document["messages"][0]
    assert 'mode = "report"' in policy.read_text()


def test_disable_json_refusal_is_json(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A refusal under --json is still one JSON document on stdout (and a line on stderr)."""
    monkeypatch.setenv("SSLCUSTOMIZE_POLICY", str(tmp_path / "process.toml"))
    assert _run("disable", "--json") == 2
    captured = capsys.readouterr()
    assert json.loads(captured.out)["error"]["exit"] == 2
    assert "unset the variable" in captured.err


def test_enable_and_disable_system_json_are_idempotent(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """enable --scope system twice: changed, then not; disable: changed, then not.

    The system policy and runtime go to the test's directory, and no interpreter is found,
    so nothing of the machine is touched; what is checked is what --json says.
    """
    system = tmp_path / "etc" / "policy.toml"
    monkeypatch.setattr("sslcustomize._support._bootstrap.SYSTEM_POLICY", str(system))
    monkeypatch.setattr("sslcustomize._cli._reach.SYSTEM_ROOT", str(tmp_path / "runtime"))
    monkeypatch.setattr("sslcustomize._cli._reach.discover", lambda extra: [])
    assert _run("enable", "--scope", "system", "--json") == 0
    first = _json(capsys)
    assert first["changed"] is True
    assert first["created"][0] == str(system)
    assert first["hooks_changed"]
    assert first["interpreters"] == []
    assert _run("enable", "--scope", "system", "--json") == 0
    again = _json(capsys)
    assert (again["changed"], again["hooks_changed"]) == (False, [])
    assert _run("disable", "--scope", "system", "--json") == 0
    undone = _json(capsys)
    assert undone["changed"] is True
    assert not system.exists()
    assert _run("disable", "--scope", "system", "--json") == 0
    assert _json(capsys)["changed"] is False


def test_disable_json_moves_the_file_aside(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """disable --scope user --json: where the policy went, and changed."""
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    user = Path(os.environ["XDG_CONFIG_HOME"]) / "sslcustomize" / "policy.toml"
    user.parent.mkdir(parents=True)
    user.write_text("version = 1\n")
    assert _run("disable", "--scope", "user", "--json") == 0
    document = _json(capsys)
    assert document["changed"] is True
    assert document["moved_to"] == f"{user}.disabled"
    assert not user.exists()


def test_run_json_writes_the_policy_and_the_childs_exit_to_a_file(
    tmp_path: Path, write_policy: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    """run --json FILE: the child keeps stdout; FILE gets mode, files, trust, exit status."""
    policy = write_policy("version = 1\nmode = 'report'\n")
    out = tmp_path / "run.json"
    code = "import sys; print('child output'); sys.exit(3)"
    status = _run("run", "--quiet", "--policy", str(policy), "--json", str(out), "--",
                  sys.executable, "-c", code)  # fmt: skip
    assert status == 3
    document = json.loads(out.read_text())
    assert document["version"] == 1
    assert (document["exit"], document["signal"]) == (3, None)
    assert document["command"] == [sys.executable, "-c", code]
    assert document["policy"]["mode"] == "report"
    assert str(policy) in [f["path"] for f in document["policy"]["files"]]
    assert document["policy"]["bundle"]["anchors"] > 0
    assert capsys.readouterr().out == ""  # the child wrote to the real stdout, not ours


def test_run_json_records_a_refusal(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A command that cannot run: exit 2, and the file says why; '-' writes to stderr."""
    out = tmp_path / "run.json"
    assert _run("run", "--json", str(out), "--", "no-such-command-here") == 2
    assert json.loads(out.read_text())["error"]["message"] == (
        "command not found: no-such-command-here"
    )
    assert _run("run", "--json", "-", "--", "no-such-command-here") == 2
    err = capsys.readouterr().err
    assert json.loads(err[err.index("{") :])["error"]["exit"] == 2


def test_lint_json_is_format_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """lint --json prints exactly what lint --format json prints."""
    source = tmp_path / "client.py"
    source.write_text("import ssl\nctx = ssl._create_unverified_context()\n")
    assert _run("lint", "--format", "json", str(source)) == 1
    expected = _json(capsys)
    assert _run("lint", "--json", str(source)) == 1
    assert _json(capsys) == expected
    assert expected["findings"]


def test_disable_json_lists_hooks_it_could_not_restore(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A hook that cannot be put back: exit 1, and the document still comes, naming it."""
    root = tmp_path / "runtime"
    root.mkdir()
    (root / MANIFEST).write_text("{}")
    monkeypatch.setattr(
        "sslcustomize._support._bootstrap.SYSTEM_POLICY", str(tmp_path / "policy.toml")
    )
    monkeypatch.setattr("sslcustomize._cli._reach.SYSTEM_ROOT", str(root))
    result = UninstallResult(restored=(), problems=("/x/sitecustomize.py: busy",), kept=True)
    monkeypatch.setattr("sslcustomize._cli._reach.uninstall", lambda root: result)
    assert _run("disable", "--scope", "system", "--json") == 1
    document = _json(capsys)
    assert document["problems"] == ["/x/sitecustomize.py: busy"]
    assert document["runtime_kept"] is True
