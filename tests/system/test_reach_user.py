"""``enable --scope user`` covers what an unprivileged user can reach and says what it cannot.

Runs in a private mount namespace with a throw-away overlay over ``/root`` (where pyenv keeps
its Pythons): one interpreter's standard library is handed to user 65534, as if the user had
installed it; the others stay root's. See _reach_user_scenario.py.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

import pytest

import _pki
import _servers
from _namespace import namespace_problem, run_in_overlays
from sslcustomize._reach._discovery import probe

HERE = Path(__file__).parent
PYENV_ROOT = "/root/.pyenv"
OWNED = "3.10"

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def scenario(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """Run the user-scope scenario once."""
    problem = namespace_problem()
    if problem:
        pytest.skip(problem)
    pythons = sorted(Path(PYENV_ROOT, "versions").glob(f"{OWNED}.*/bin/python3"))
    if (
        not pythons
        or shutil.which("setpriv") is None
        or not sys.executable.startswith((PYENV_ROOT, "/work", "/usr"))
    ):
        pytest.skip(f"needs pyenv's Python {OWNED} under {PYENV_ROOT} and setpriv")
    python = str(pythons[0])
    stdlib = probe(python).stdlib
    scratch = tmp_path_factory.mktemp("reach-user")
    # Not under pytest's 0700 base directory: the user must reach its home.
    home = Path(tempfile.mkdtemp(prefix="sslcustomize-user-home-"))
    home.chmod(0o755)
    os.chown(home, 65534, 65534)
    pki = _pki.TestPKI()
    try:
        with (
            _servers.serve_smtp(pki["self_signed"]) as smtp,
            _servers.serve_https(pki["good"]) as https,
        ):
            spec = {
                "home": str(home),
                "owned_stdlib": stdlib,
                "owned_python": python,
                "host": "127.0.0.1",
                "smtp": smtp.port,
                "https": https.port,
            }
            result = run_in_overlays(
                ["/root"],
                scratch,
                [sys.executable, str(HERE / "_reach_user_scenario.py"), json.dumps(spec)],
            )
    finally:
        shutil.rmtree(home)
    if result.returncode != 0:
        raise AssertionError(f"scenario failed\n{result.stdout}\n{result.stderr}")
    observed: dict[str, Any] = json.loads(result.stdout.strip().splitlines()[-1])
    observed["spec"] = spec
    return observed


def test_user_scope_covers_the_users_own_interpreter(scenario: dict[str, Any]) -> None:
    """The interpreter the user owns is hooked: smtplib refuses a self-signed server."""
    assert scenario["enable"][0] == 0, scenario["enable"]
    assert scenario["with_policy"]["smtp"] != "accepted", scenario["with_policy"]
    assert scenario["with_policy"]["startup"].startswith(scenario["spec"]["home"])


def test_user_scope_undone_accepts_again(scenario: dict[str, Any]) -> None:
    """The twin: after disable --scope user the same interpreter is unverified again."""
    assert scenario["disable"][0] == 0, scenario["disable"]
    assert scenario["after"]["smtp"] == "accepted", scenario["after"]


def test_user_scope_says_what_it_cannot_reach(scenario: dict[str, Any]) -> None:
    """enable prints the interpreters whose standard library the user cannot write."""
    out = scenario["enable"][1]
    assert "read-only" in out
    assert "not reachable without root" in out


def test_doctor_says_user_hook(scenario: dict[str, Any]) -> None:
    """doctor --json, run as the user, says a user hook covers the user's interpreter."""
    row = next(r for r in scenario["doctor"] if scenario["spec"]["owned_python"] in r["names"])
    assert row["covered"], row
    assert row["by"] == "user hook", row
    others = [r for r in scenario["doctor"] if not r["covered"]]
    assert others
    assert all("read-only" in r["reason"] or "older" in r["reason"] for r in others), others


def test_user_disable_restores_every_byte(scenario: dict[str, Any]) -> None:
    """disable --scope user leaves the user's interpreter and home as they were."""
    assert scenario["undo_diff"] == []
