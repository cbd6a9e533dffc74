"""report's renewal of an expired system exception works when root pastes it (issue 33 §3).

In a private mount namespace with an overlay of /etc: the system policy (report mode,
exceptions locked) has an exception for a self-signed server that expired. A program's
connection is recorded; ``report`` advises the renewal with ``--scope system``; root pastes
it (adding only ``--yes``, the confirmation ``trust`` asks a terminal for) and the server
verifies again. The renewal without ``--scope system`` is refused: the lock's twin.

The exception names the server's host and port, as ``trust`` writes it: an exception without
a port names more than one server, and ``trust HOST:PORT`` adds one beside it instead of
renewing it (report's advice says so; see tests/unit/diagnosis/test_reading.py).
"""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path

import pytest

from _fixtures import STDLIB_CLIENT_SCRIPT as CLIENT
from _namespace import namespace_problem, run_in_overlays
from _pki import TestPKI, spki_pin
from _servers import serve_https

pytestmark = pytest.mark.skipif(namespace_problem() is not None, reason=str(namespace_problem()))

SCENARIO = r"""
import json, os, shlex, subprocess, sys
python, port, pin, records = sys.argv[1:5]
os.makedirs("/etc/sslcustomize", exist_ok=True)
with open("/etc/sslcustomize/policy.toml", "w", encoding="utf-8") as file:
    file.write(
        'version = 1\nmode = "report"\nlock = ["exception"]\n'
        f'[report]\nsink = "jsonl"\npath = "{records}"\n\n'
        f'[[exception]]\nhost = "localhost:{port}"\npin = ["{pin}"]\nexpires = 2020-01-02\n'
        'reason = "appliance, OPS-7"\n'
    )
def run(*args):
    done = subprocess.run([python, *args], capture_output=True, text=True, timeout=120)
    return {"exit": done.returncode, "out": done.stdout, "err": done.stderr}
out = {"client": run("-c", sys.argv[5], port)}
out["report"] = run("-m", "sslcustomize", "report", "--json", "--path", records)
fixes = json.loads(out["report"]["out"])["would_break"][0]["fixes"]
renewal = shlex.split(fixes[0]["commands"][0])
out["renewal"] = renewal
unscoped = [word for word in renewal[1:] if word not in ("--scope", "system")]
out["unscoped"] = run("-m", "sslcustomize", *unscoped, "--yes")
out["pasted"] = run("-m", "sslcustomize", *renewal[1:], "--yes")
out["check"] = run("-m", "sslcustomize", "check", "--json", f"localhost:{port}")
out["policy"] = open("/etc/sslcustomize/policy.toml", encoding="utf-8").read()
print(json.dumps(out))
"""


def test_pasted_renewal_of_an_expired_system_exception_renews_it(
    tmp_path: Path, pki: TestPKI
) -> None:
    """The advice names --scope system; pasted by root it renews the exception, with its reason."""
    case = pki["self_signed"]
    script = tmp_path / "scenario.py"
    script.write_text(SCENARIO, encoding="utf-8")
    home = tmp_path / "home"
    home.mkdir()
    with serve_https(case, "127.0.0.1") as server:
        argv = [
            sys.executable, str(script), sys.executable, str(server.port),
            spki_pin(case.leaf_pem), str(tmp_path / "records.jsonl"), CLIENT,
        ]  # fmt: skip
        command = (
            f"export HOME={shlex.quote(str(home))} XDG_CONFIG_HOME={shlex.quote(str(home))}; "
            "unset SSLCUSTOMIZE_POLICY; exec " + shlex.join(argv)
        )
        result = run_in_overlays(["/etc"], tmp_path / "scratch", [command])
    assert result.returncode == 0, result.stderr
    out = json.loads(result.stdout.strip().splitlines()[-1])
    assert out["report"]["exit"] == 0, out["report"]["err"]
    assert out["renewal"] == [
        "sslcustomize", "trust", "--days", "90", "--scope", "system", f"localhost:{server.port}",
    ]  # fmt: skip
    # The twin: the same command without --scope system is refused under the lock.
    assert out["unscoped"]["exit"] != 0
    assert "exception" in out["unscoped"]["err"] + out["unscoped"]["out"]
    assert out["pasted"]["exit"] == 0, out["pasted"]["err"]
    assert out["policy"].count("[[exception]]") == 1  # renewed in place, not added beside
    assert "appliance, OPS-7" in out["policy"]
    assert "2020-01-02" not in out["policy"]
    assert json.loads(out["check"]["out"])["verdict"] == "verified", out["check"]
