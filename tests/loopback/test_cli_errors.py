"""Errors a person can act on: one line, what to do, the documented exit code, JSON under --json."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

import _pki
from sslcustomize._cli import main
from sslcustomize._runtime import _state

if TYPE_CHECKING:
    from conftest import StartServer


def _closed_port() -> int:
    """A loopback port nothing listens on (bound, then closed)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
    return port


def _json_error(capsys: pytest.CaptureFixture[str]) -> tuple[dict[str, object], str]:
    captured = capsys.readouterr()
    document = json.loads(captured.out)
    assert document["version"] == 1
    error: dict[str, object] = document["error"]
    return error, captured.err


def test_check_json_prints_a_json_error(capsys: pytest.CaptureFixture[str]) -> None:
    """check --json on a server it cannot reach: a JSON error object on stdout, exit 2."""
    port = _closed_port()
    assert main(["check", "--json", f"127.0.0.1:{port}"]) == 2
    error, err = _json_error(capsys)
    assert error == {"message": f"could not check 127.0.0.1:{port}: connection to "
                     f"127.0.0.1:{port} refused", "exit": 2}  # fmt: skip
    assert err == f"sslcustomize: {error['message']}\n"
    assert main(["check", "--json", "host:notaport"]) == 2
    assert "bad port" in str(_json_error(capsys)[0]["message"])


def test_check_json_on_success_has_no_error(
    pki: _pki.TestPKI, https_server: StartServer, capsys: pytest.CaptureFixture[str]
) -> None:
    """The twin: a server that answers gives the usual document, without an error key."""
    _, port = https_server(pki["self_signed"], "localhost")
    assert main(["check", "--json", f"localhost:{port}"]) == 1
    document = json.loads(capsys.readouterr().out)
    assert "error" not in document
    assert document["verdict"] == "rejected"


def test_trust_and_scan_json_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """trust --json and scan --json refusals are JSON error objects too."""
    port = _closed_port()
    assert main(["trust", "--json", "--yes", "--scope", "user", f"127.0.0.1:{port}"]) == 2
    error, _ = _json_error(capsys)
    assert str(error["message"]).startswith(f"could not fetch the certificate of 127.0.0.1:{port}")
    assert main(["scan", "--json", str(tmp_path / "missing.txt")]) == 2
    error, err = _json_error(capsys)
    assert error["message"] == f"cannot read {tmp_path / 'missing.txt'}: No such file or directory"
    assert err.count("\n") == 1


def test_report_path_that_does_not_exist(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """report --path missing.jsonl: exit 2 and one line; the policy's own file missing is 0."""
    missing = tmp_path / "missing.jsonl"
    assert main(["report", "--path", str(missing)]) == 2
    captured = capsys.readouterr()
    assert captured.err == (
        f"sslcustomize: --path {missing}: no such file or directory (without --path, report "
        "reads the policy's report sink)\n"
    )
    assert main(["report", "--json", "--path", str(missing)]) == 2
    assert _json_error(capsys)[0]["exit"] == 2
    _state.set_policy(None)
    assert main(["report"]) == 0  # nothing recorded yet is not an error
    assert "no records" in capsys.readouterr().out


def test_report_html_says_where_it_wrote(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """report --html FILE names the file it wrote (absolute), on stderr."""
    records = tmp_path / "records.jsonl"
    records.write_text("")
    monkeypatch.chdir(tmp_path)
    assert main(["report", "--path", str(records), "--html", "out.html"]) == 0
    assert capsys.readouterr().err == f"sslcustomize: wrote {tmp_path / 'out.html'}\n"
    assert (tmp_path / "out.html").read_text().startswith("<!DOCTYPE html>")


_WITHOUT = """
    import runpy, sys
    for name in {blocked!r}:
        sys.modules[name] = None  # as in a Python without the command line's dependencies
    sys.argv = ["sslcustomize", "explain"]
    runpy.run_module("sslcustomize", run_name="__main__")
"""


@pytest.mark.parametrize("blocked", [("rich",), ("tomlkit", "rich")])
def test_python_m_without_the_cli_dependencies(blocked: tuple[str, ...]) -> None:
    """python -m sslcustomize in a Python without rich: one line saying where to run it, exit 2."""
    code = textwrap.dedent(_WITHOUT.format(blocked=blocked))
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=False
    )
    assert result.returncode == 2, result.stderr
    assert result.stderr.count("\n") == 1
    assert result.stderr.startswith(f"sslcustomize: the command line needs {blocked[-1]}")
    assert f"{sys.executable} -m pip install sslcustomize" in result.stderr
    twin = textwrap.dedent(_WITHOUT.format(blocked=()))
    result = subprocess.run(
        [sys.executable, "-c", twin], capture_output=True, text=True, timeout=60, check=False
    )
    assert result.returncode == 0, result.stderr


def test_package_warnings_are_one_line(tmp_path: Path) -> None:
    """A PolicyWarning in a command prints as one line, without Python's file and source."""
    system = tmp_path / "system.toml"
    system.write_text("version = 1\nmode = 'enforce'\nlock = ['mode']\n")
    user = tmp_path / "user.toml"
    user.write_text("version = 1\nmode = 'report'\n")
    code = textwrap.dedent(f"""
        import runpy, sys
        from sslcustomize._support import _bootstrap
        _bootstrap.SYSTEM_POLICY = {str(system)!r}
        sys.argv = ["sslcustomize", "explain", "--json"]
        runpy.run_module("sslcustomize", run_name="__main__")
    """)
    result = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        env={**os.environ, "SSLCUSTOMIZE_POLICY": str(user)},
    )
    assert result.returncode == 0, result.stderr
    assert result.stderr == (
        f"sslcustomize: warning: {user}:2: 'mode' is locked by {system}:3; the locked value "
        "stands\n"
    )
    assert json.loads(result.stdout)["mode"]["value"] == "enforce"
