"""Code cannot lift the system layer's locks through the API (issue 22 #10).

``inject(policy=FILE)`` merges the file above the system layer instead of replacing it;
``inject(Policy)`` refuses a value that drops the locks; ``extract()`` under a lock is a code
opt-out: refused where ``allow_code_opt_out = false``, else warned about and recorded. Each
case runs in a fresh interpreter whose system layer is a file of the test (its path patched
before the first context, then ``inject()`` as the startup hook would), against a loopback
MITM with requests' ``verify=False``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import _pki
import _servers

_PROGRAM = r"""
import json, sys, warnings
from sslcustomize._support import _bootstrap
_bootstrap.SYSTEM_POLICY = sys.argv[1]
import requests, sslcustomize
action, mitm = sys.argv[2], sys.argv[3]
sslcustomize.inject()  # what the startup hook does where a system policy exists
out = {}
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    try:
        if action == "inject-file":
            sslcustomize.inject(policy=sys.argv[4])
        elif action == "inject-value":
            sslcustomize.inject(sslcustomize.load_policy([("process", sys.argv[4], True)]))
        elif action == "inject-loaded":
            sslcustomize.inject(sslcustomize.load_policy())
        elif action == "extract":
            sslcustomize.extract()
        out["api"] = "ok"
    except sslcustomize.PolicyError as error:
        out["api"] = "PolicyError: " + str(error)
    try:
        requests.get(f"https://localhost:{mitm}/", verify=False, timeout=10)
        out["mitm"] = "accepted"
    except requests.exceptions.SSLError:
        out["mitm"] = "rejected"
out["warnings"] = [str(w.message) for w in caught if "extract" in str(w.message)]
print(json.dumps(out))
"""


def _run(tmp_path: Path, system: str | None, action: str, user: str = "") -> dict[str, object]:
    """Run the program with ``system`` as the system layer (None: no system layer)."""
    pki = _pki.TestPKI()
    system_path = tmp_path / "system.toml"
    if system is not None:
        system_path.write_text(
            f'version = 1\n{system}\n[report]\nsink = "jsonl"\npath = "{tmp_path}/records.jsonl"\n'
        )
    file = tmp_path / "user.toml"
    file.write_text(f"version = 1\n{user}\n")
    with _servers.serve_https(pki["self_signed"]) as mitm:
        result = subprocess.run(
            [sys.executable, "-c", _PROGRAM, str(system_path), action, str(mitm.port), str(file)],
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
            env=dict(os.environ),
        )
    assert result.returncode == 0, result.stderr
    observed: dict[str, object] = json.loads(result.stdout.splitlines()[-1])
    records = tmp_path / "records.jsonl"
    lines = records.read_text().splitlines() if records.exists() else []
    observed["records"] = [
        [r["rule"], r["verdict"]] for r in map(json.loads, lines) if r["rule"].endswith("()")
    ]
    return observed


REFUSING = 'allow_code_opt_out = false\nlock = ["allow_code_opt_out"]'


def test_inject_file_does_not_replace_a_locked_refusal(tmp_path: Path) -> None:
    """inject(policy=FILE) allowing opt-outs under a locked refusal: verify=False still verifies."""
    observed = _run(tmp_path, REFUSING, "inject-file", user="allow_code_opt_out = true")
    assert (observed["api"], observed["mitm"]) == ("ok", "rejected")


def test_inject_file_without_a_system_lock_is_obeyed(tmp_path: Path) -> None:
    """The twin: with no system layer, the injected file's own choice (opt-outs obeyed) holds."""
    observed = _run(tmp_path, None, "inject-file", user="allow_code_opt_out = true")
    assert (observed["api"], observed["mitm"]) == ("ok", "accepted")


def test_inject_value_that_drops_the_locks_is_refused(tmp_path: Path) -> None:
    """A Policy value loaded without the system layer cannot replace it; the lock holds."""
    observed = _run(tmp_path, REFUSING, "inject-value", user="allow_code_opt_out = true")
    assert "the system policy locks allow_code_opt_out" in str(observed["api"])
    assert observed["mitm"] == "rejected"


def test_inject_value_loaded_with_the_system_layer_is_accepted(tmp_path: Path) -> None:
    """The twin: load_policy() (every layer, system included) is a value inject() takes."""
    observed = _run(tmp_path, REFUSING, "inject-loaded")
    assert (observed["api"], observed["mitm"]) == ("ok", "rejected")


def test_extract_is_refused_under_a_locked_refusal(tmp_path: Path) -> None:
    """extract() under allow_code_opt_out = false (locked): hooks stay, warned and recorded."""
    observed = _run(tmp_path, REFUSING, "extract")
    assert (observed["api"], observed["mitm"]) == ("ok", "rejected")
    assert len(observed["warnings"]) == 1  # type: ignore[arg-type]
    assert "refuses code opt-outs" in observed["warnings"][0]  # type: ignore[index]
    assert observed["records"] == [["sslcustomize.extract()", "refused"]]


def test_extract_under_another_lock_is_recorded(tmp_path: Path) -> None:
    """extract() where opt-outs are allowed but the system locks mode: obeyed, and recorded."""
    observed = _run(tmp_path, 'lock = ["mode"]', "extract")
    assert (observed["api"], observed["mitm"]) == ("ok", "accepted")
    assert observed["records"] == [["sslcustomize.extract()", "opt_out"]]


def test_extract_without_a_system_lock_stays_silent(tmp_path: Path) -> None:
    """The twin: no system lock, extract() restores plain Python without a warning or record."""
    observed = _run(tmp_path, None, "extract")
    assert (observed["api"], observed["mitm"]) == ("ok", "accepted")
    assert (observed["warnings"], observed["records"]) == ([], [])
