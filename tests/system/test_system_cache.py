"""A user's policy cache never decides the system layer (issue 22 #12).

An entry in the user's own cache (private, theirs: it passes every check a user entry gets)
carrying ``/etc/sslcustomize/policy.toml``'s exact text with another tree used to replace the
administrator's layer, locks included, for that user's processes. The system layer is now
served only by root's cache (``_tomlcache.SYSTEM_CACHE``, under the runtime of
``enable --scope system``), else parsed. Fresh interpreters through the ``.pth`` hook; the
system cache itself in a private mount namespace with an overlay over ``/usr/local/lib``.
"""

from __future__ import annotations

import json
import marshal
import os
import subprocess
import sys
from pathlib import Path

import pytest

import _pki
import _servers
from _namespace import namespace_problem, run_in_overlays
from sslcustomize._policy import _tomlcache
from sslcustomize._policy._lines import locate_keys

LOCKED = 'version = 1\nallow_code_opt_out = false\nlock = ["allow_code_opt_out"]\n'

# Point the system layer at argv[1] (and the system cache at argv[2] if given), then try a
# MITM with requests' verify=False, which the locked refusal must turn into a verification.
_PROGRAM = r"""
import json, sys
from sslcustomize._support import _bootstrap
_bootstrap.SYSTEM_POLICY = sys.argv[1]
if len(sys.argv) > 3:
    import sslcustomize._policy._tomlcache
    sslcustomize._policy._tomlcache.SYSTEM_CACHE = sys.argv[3]
import requests
try:
    requests.get(f"https://localhost:{sys.argv[2]}/", verify=False, timeout=10)
    verdict = "accepted"
except requests.exceptions.SSLError:
    verdict = "rejected"
print(json.dumps([verdict, "tomllib" in sys.modules or "tomli" in sys.modules]))
"""


def _forge(entry: str, text: str, tree: dict[str, object]) -> None:
    """Write an entry that claims ``text`` parses to ``tree``, private to its owner."""
    lines = [[list(key), line] for key, line in locate_keys(text).items()]
    Path(entry).write_bytes(marshal.dumps((2, text, tree, lines)))
    os.chmod(entry, 0o600)


def _run(argv: list[str], policy: Path) -> list[object]:
    result = subprocess.run(
        [sys.executable, "-c", _PROGRAM, *argv],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        env={**os.environ, "SSLCUSTOMIZE_POLICY": str(policy)},
    )
    assert result.returncode == 0, result.stderr
    observed: list[object] = json.loads(result.stdout.splitlines()[-1])
    return observed


def test_a_users_own_entry_for_the_system_file_is_never_used(
    tmp_path: Path, pki: _pki.TestPKI
) -> None:
    """Attack: the user's private entry drops the lock; verify=False to a MITM still verifies."""
    system = tmp_path / "system.toml"
    system.write_text(LOCKED)
    process = tmp_path / "process.toml"
    process.write_text("version = 1\n")
    entry = _tomlcache.entry_path(str(system))
    assert entry is not None
    _forge(entry, LOCKED, {"version": 1})
    with _servers.serve_https(pki["self_signed"]) as mitm:
        assert _run([str(system), str(mitm.port)], process) == ["rejected", True]
        # The twin: without the system lock, the same program's opt-out is obeyed.
        system.write_text("version = 1\n")
        assert _run([str(system), str(mitm.port)], process)[0] == "accepted"


_SCENARIO = r"""
set -e
mkdir -p /usr/local/lib/sslcustomize
chmod 755 /usr/local/lib/sslcustomize
run() { "$PYTHON" -c "$PROGRAM" "$SYSTEM" "$PORT" /usr/local/lib/sslcustomize/policy-cache; }
run; run
for entry in /usr/local/lib/sslcustomize/policy-cache/*; do chown 4242 "$entry"; done
run
"""


def test_root_cache_serves_the_system_layer_and_only_roots(
    tmp_path: Path, pki: _pki.TestPKI, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Twin: root's entry spares the parser and keeps the lock; one not root's is ignored."""
    problem = namespace_problem()
    if problem:
        pytest.skip(problem)
    system = tmp_path / "system.toml"
    system.write_text(LOCKED)
    process = tmp_path / "process.toml"
    process.write_text("version = 1\n")
    with _servers.serve_https(pki["self_signed"]) as mitm:
        for name, value in (
            ("PYTHON", sys.executable),
            ("PROGRAM", _PROGRAM),
            ("SYSTEM", str(system)),
            ("PORT", str(mitm.port)),
            ("SSLCUSTOMIZE_POLICY", str(process)),
        ):
            monkeypatch.setenv(name, value)  # the namespace's shell reads them
        result = run_in_overlays(["/usr/local/lib"], tmp_path / "overlay", [_SCENARIO])
    assert result.returncode == 0, result.stderr
    runs = [json.loads(line) for line in result.stdout.splitlines()]
    # First run parses and writes root's entry; the second reads it; a forged owner: parsed.
    assert runs == [["rejected", True], ["rejected", False], ["rejected", True]]
    assert not os.path.exists("/usr/local/lib/sslcustomize/policy-cache")
