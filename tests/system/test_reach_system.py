"""``enable --scope system`` reaches every interpreter and venv; ``disable`` undoes it exactly.

Everything happens in a private mount namespace (``unshare -m``) with throw-away overlays over
``/etc``, ``/usr/local/lib`` and each interpreter's standard library (see _reach_scenario.py):
the machine's own files are never written. The TLS servers run here, on loopback.
"""

from __future__ import annotations

import glob
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import _pki
from _namespace import namespace_problem, run_in_overlays
from sslcustomize._reach._discovery import probe

HERE = Path(__file__).parent
PYENV = os.path.expanduser("~/.pyenv/versions")
# The interpreter kinds of this machine: pyenv 3.10-3.13 and the distribution's python3.
BASES = sorted(
    p for p in glob.glob(os.path.join(PYENV, "3.1[0-9].*", "bin", "python3")) if os.path.isfile(p)
)
SYSTEM_PYTHON = "/usr/bin/python3"
LOWER_TREES = ["/etc", "/usr/local/lib"]

pytestmark = pytest.mark.slow


def _stdlib(python: str) -> str:
    return probe(python).stdlib


def _interpreters() -> list[str]:
    pythons = list(BASES)
    if os.path.isfile(SYSTEM_PYTHON):
        version = subprocess.run(
            [SYSTEM_PYTHON, "-c", "import sys; print(sys.version_info >= (3, 10))"],
            capture_output=True,
            text=True,
            check=False,
        ).stdout.strip()
        if version == "True":
            pythons.append(SYSTEM_PYTHON)
    return pythons


def _outside(paths: list[str]) -> dict[str, Any]:
    """What the real machine has at the places the scenario writes (checked before and after)."""
    state: dict[str, Any] = {}
    for path in paths:
        try:
            info = os.lstat(path)
        except FileNotFoundError:
            state[path] = None
            continue
        content = Path(path).read_bytes() if os.path.isfile(path) else b""
        state[path] = (info.st_mode, info.st_mtime_ns, content)
    return state


@pytest.fixture(scope="module")
def scenario(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """Run the whole system-scope scenario once in a throw-away namespace."""
    problem = namespace_problem() or ("" if BASES else "no pyenv CPython 3.10+ to test with")
    if problem:
        pytest.skip(problem)
    import _servers

    pki = _pki.TestPKI()
    scratch = tmp_path_factory.mktemp("reach")
    ca = scratch / "policy-ca.pem"
    ca.write_bytes(pki.root_pem)
    interpreters = _interpreters()
    stdlibs = sorted({_stdlib(p) for p in interpreters})
    trees = LOWER_TREES + stdlibs
    watched = [
        "/etc/sslcustomize",
        "/usr/local/lib/sslcustomize",
        *[os.path.join(s, "sitecustomize.py") for s in stdlibs],
        *[os.path.join(s, "__pycache__") for s in stdlibs],
    ]
    outside_before = _outside(watched)
    virtualenv = shutil.which("virtualenv") or os.path.join(PYENV, "3.11.7", "bin", "virtualenv")
    with (
        _servers.serve_smtp(pki["self_signed"]) as smtp,
        _servers.serve_https(pki["good"]) as https,
    ):
        spec = {
            "scratch": str(scratch),
            "trees": trees,
            "interpreters": interpreters,
            "venv_base": BASES[-1] if len(BASES) < 3 else BASES[2],
            "displace": stdlibs[-1] if stdlibs[-1] != "/usr/lib/python3.11" else stdlibs[0],
            "virtualenv": virtualenv if os.path.isfile(virtualenv) else "",
            "uv": shutil.which("uv") or _beside_python("uv"),
            "ca": str(ca),
            "host": "127.0.0.1",
            "smtp": smtp.port,
            "https": https.port,
        }
        result = run_in_overlays(
            trees,
            scratch / "overlays",
            [sys.executable, str(HERE / "_reach_scenario.py"), json.dumps(spec)],
        )
    if result.returncode != 0:
        raise AssertionError(f"scenario failed\n{result.stdout}\n{result.stderr}")
    observed: dict[str, Any] = json.loads(result.stdout.strip().splitlines()[-1])
    observed["outside_changed"] = [
        p for p, v in _outside(watched).items() if outside_before[p] != v
    ]
    observed["spec"] = spec
    return observed


def test_enable_reaches_every_interpreter_and_venv(scenario: dict[str, Any]) -> None:
    """Under the system policy every interpreter and venv rejects self-signed and accepts the CA."""
    assert scenario["steps"]["enable"][0] == 0, scenario["steps"]["enable"]
    expected = {*scenario["spec"]["interpreters"], "before", "before-ssp", "after"}
    assert expected <= set(scenario["with_policy"])
    for name, seen in scenario["with_policy"].items():
        assert _refused(seen["smtp"]), (name, seen)
        assert seen.get("https") == "accepted", (name, seen)


def _refused(outcome: str) -> bool:
    """Tell whether a client refused the server (a rejection, as the policy demands).

    Until the connection path is stdlib-only (issue 11 item 6, not this branch), a rejection
    explains itself with the environment's own ``cryptography``: without one it raises
    ModuleNotFoundError, with Debian's old one AttributeError. The connection is refused all
    the same, which is what this checks (the twin test shows the server accepts connections).
    """
    if outcome == "rejected":
        return True
    return outcome.startswith("error") and not any(
        word in outcome for word in ("Connection", "timed out", "SMTPServerDisconnected")
    )


def test_before_enable_the_clients_do_not_verify_under_the_policy(scenario: dict[str, Any]) -> None:
    """The failure twin: without the hooks smtplib accepts self-signed and https rejects the CA."""
    for name, seen in scenario["before"].items():
        assert seen.get("smtp") == "accepted", (name, seen)
        assert seen.get("https") == "rejected", (name, seen)


def test_virtualenv_is_reached(scenario: dict[str, Any]) -> None:
    """A venv made by virtualenv (after enable) is covered like one made by python -m venv."""
    if not scenario["spec"]["virtualenv"]:
        pytest.skip("virtualenv is not installed on this machine")
    assert _refused(scenario["with_policy"]["virtualenv"]["smtp"])


def test_uv_venv_is_reached(scenario: dict[str, Any]) -> None:
    """A venv made by `uv venv` (after enable) is covered like one made by python -m venv."""
    if not scenario["spec"]["uv"]:
        pytest.skip("uv is not installed (it is in the test extra)")
    assert scenario["steps"]["uv"][0] == 0, scenario["steps"]["uv"]
    assert _refused(scenario["with_policy"]["uv"]["smtp"])
    assert scenario["with_policy"]["uv"]["https"] == "accepted"


def _beside_python(name: str) -> str:
    path = os.path.join(os.path.dirname(sys.executable), name)
    return path if os.path.isfile(path) else ""


def test_disable_restores_every_byte(scenario: dict[str, Any]) -> None:
    """After disable the overlaid trees equal their state before enable (path, bytes, mode)."""
    assert scenario["steps"]["disable"][0] == 0, scenario["steps"]["disable"]
    assert scenario["undo_diff"] == []


def test_after_disable_clients_behave_as_before(scenario: dict[str, Any]) -> None:
    """After disable each interpreter behaves exactly as before enable."""
    for name, seen in scenario["after_disable"].items():
        before = scenario["before"].get(name)
        if before is None:
            continue  # made after enable: nothing to compare with
        assert (seen["smtp"], seen["https"]) == (before["smtp"], before["https"]), name


def test_enable_twice_changes_nothing(scenario: dict[str, Any]) -> None:
    """A second enable leaves every byte as the first one wrote it."""
    assert scenario["steps"]["enable-again"][0] == 0
    assert scenario["enable_twice_diff"] == []
    assert "nothing changed" in scenario["steps"]["enable-again"][1]


def test_sys_path_and_own_packages_unchanged(scenario: dict[str, Any]) -> None:
    """The hook leaves sys.path alone and an app's own cryptography/rich are the ones imported."""
    for name, seen in scenario["with_policy"].items():
        if name in scenario["before"]:
            assert seen["path"] == scenario["before"][name]["path"], name
    own = scenario["with_policy"]["before"]
    for package in ("cryptography", "rich"):
        assert own[package] is not None
        assert "/before/lib/" in own[package], own


def test_displaced_and_venv_sitecustomize_keep_running(scenario: dict[str, Any]) -> None:
    """The sitecustomize the hook displaced and a venv's own one still run under the hook."""
    assert scenario["before"]["before"]["chained"] == ["venv"]
    assert scenario["with_policy"]["before"]["chained"] == ["venv"]
    displaced = next(
        p for p in scenario["spec"]["interpreters"] if _stdlib(p) == scenario["spec"]["displace"]
    )
    assert scenario["with_policy"][displaced]["chained"] == ["displaced"]


def test_own_install_wins_and_runs_once(scenario: dict[str, Any]) -> None:
    """An environment with its own sslcustomize runs its own copy, and only it."""
    own = scenario["own_install"]
    assert own["smtp"] == "rejected"  # this environment has cryptography
    site_packages = os.path.dirname(own["startup"])
    assert own["package"].startswith(site_packages), own
    assert "PrivateRuntime" not in own["finders"]
    system = scenario["with_policy"][scenario["spec"]["interpreters"][0]]
    assert system["startup"].startswith("/usr/local/lib/sslcustomize/"), system
    assert system["finders"].count("PrivateRuntime") == 1


def test_hooked_interpreter_works_for_other_users(scenario: dict[str, Any]) -> None:
    """A non-root user's Python loads the root-owned runtime and refuses the self-signed server."""
    seen = scenario.get("other_user")
    if seen is None:
        pytest.skip("no /usr/bin/python3 to run as another user")
    assert seen["startup"].startswith("/usr/local/lib/sslcustomize/"), seen
    assert _refused(seen["smtp"]), seen
    assert "system hook failed" not in seen["stderr"]


def test_doctor_lists_coverage(scenario: dict[str, Any]) -> None:
    """doctor --json lists each interpreter with its version and the system hook covering it."""
    rows = {row["path"]: row for row in scenario["doctor"]}
    for python in scenario["spec"]["interpreters"]:
        row = next(r for r in rows.values() if python in r["names"])
        assert row["covered"], row
        assert row["by"] == "system hook", row
        assert row["version"].startswith("3.1")


def test_nothing_outside_the_namespace_changed(scenario: dict[str, Any]) -> None:
    """The real /etc, /usr/local/lib and standard libraries are untouched by the scenario."""
    assert scenario["outside_changed"] == []


def test_hook_text_is_valid_python() -> None:
    """The sitecustomize text compiles (its failure twin would break every interpreter)."""
    from sslcustomize._reach import _install

    text = _install.hook_text(scope="system", runtime="/r", displaced="", stdlib="/s")
    assert text.startswith(_install.MARKER)
    compile(text, "sitecustomize.py", "exec")
