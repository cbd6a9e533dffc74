"""The example sessions of docs/cli.md, run against a real server: the docs stay true."""

from __future__ import annotations

import re
import shlex
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

import _pki
from sslcustomize._cli import main
from sslcustomize._runtime import _state

if TYPE_CHECKING:
    from conftest import StartServer

CLI_DOCS = Path(__file__).resolve().parents[2] / "docs" / "cli.md"


def _sessions() -> list[list[tuple[str, str]]]:
    """Return each console block's (command, expected output) pairs, synopses left out."""
    sessions = []
    for block in re.findall(r"```console\n(.*?)```", CLI_DOCS.read_text(), flags=re.DOTALL):
        pairs: list[tuple[str, list[str]]] = []
        for line in block.splitlines():
            if line.startswith("$ "):
                pairs.append((line[2:], []))
            elif pairs:
                pairs[-1][1].append(line)
        runnable = [(c, "\n".join(out)) for c, out in pairs if "[" not in c and "COMMAND" not in c]
        if runnable and len(runnable) == len(pairs):
            sessions.append(runnable)
    return sessions


SESSIONS = _sessions()


def _matches(expected: str, actual: str) -> bool:
    pattern = ".*?".join(re.escape(part) for part in expected.strip().split("..."))
    return re.fullmatch(pattern, actual.strip(), flags=re.DOTALL) is not None


def test_there_are_sessions_to_run() -> None:
    """The docs hold runnable example sessions for check, trust and explain."""
    commands = {c.split()[1] for session in SESSIONS for c, _ in session}
    assert {"check", "trust", "explain"} <= commands


@pytest.mark.parametrize("session", SESSIONS, ids=[s[0][0][:40] for s in SESSIONS])
def test_cli_example_session(
    session: list[tuple[str, str]],
    pki: _pki.TestPKI,
    https_server: StartServer,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Each documented command prints what the docs show (``...`` matches anything)."""
    _, port = https_server(pki["self_signed"], "localhost")
    for command, expected in session:
        _state.set_policy(None)  # each command is a new process in real life
        argv = shlex.split(command.replace("$PORT", str(port)))
        assert argv[0] == "sslcustomize"
        main(argv[1:])
        captured = capsys.readouterr()
        actual = captured.out + captured.err
        assert _matches(expected, actual), (
            f"$ {command}\n--- expected\n{expected}\n--- got\n{actual}"
        )
