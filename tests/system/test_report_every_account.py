"""Report mode without journald loses nothing, for any account, and says nothing on stderr.

In a private mount namespace (tmpfs on /run, /var/tmp and /var/spool: no journald, nothing on
``/dev/log``; an overlay of /etc with a system report policy), root, a user with a home and
``nobody`` connect through the ``.pth`` hook. Each account's records wait in its own
directory of the machine's report spool (``/var/spool/sslcustomize/UID``), which root's
``report`` reads; a user who squats another's directory there gets none of their records,
and what they plant there is not read as the other's.
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest

from _fixtures import STDLIB_CLIENT_SCRIPT as CLIENT
from _namespace import namespace_problem, run_in_overlays
from _pki import TestPKI
from _servers import serve_https


def _problem() -> str | None:
    problem = namespace_problem()
    if problem:
        return problem
    if shutil.which("setpriv") is None:
        return "needs setpriv (util-linux)"
    return None


pytestmark = pytest.mark.skipif(_problem() is not None, reason=str(_problem()))

FORGED = json.dumps(
    {"time": "2026-12-05T10:00:00+00:00", "pid": 1, "program": "forged.py", "context": "ssl",
     "host": "forged.example", "port": 443, "mode": "report", "verdict": "rejected",
     "reasons": ["self_signed"]}
)  # fmt: skip

# No journald and no syslog daemon: /run and /dev/log's target are empty in the namespace.
PREAMBLE = r"""
set -e
mount -t tmpfs tmpfs /run
mount -t tmpfs tmpfs /var/tmp
mount -t tmpfs tmpfs /var/spool
chmod 1777 /var/tmp
chmod 0711 /root   # an overlay: lets the users reach this venv's base Python, nowhere else
mkdir -m 1733 /var/spool/sslcustomize   # as `enable --scope system` makes it
mkdir -p /etc/sslcustomize /run/out
chmod 0777 /run/out
as_user() {  # as_user UID HOME COMMAND...
    uid=$1; home=$2; shift 2
    setpriv --reuid="$uid" --regid="$uid" --clear-groups \
        env -i PATH=/usr/bin:/bin HOME="$home" "$@"
}
as_root() { env -i PATH=/usr/bin:/bin HOME=/root XDG_STATE_HOME="$STATE" "$@"; }
"""


def _run(tmp_path: Path, pki: TestPKI, scenario: str) -> str:
    with serve_https(pki["self_signed"]) as server:
        environment = {
            "PYTHON": sys.executable,
            "CLIENT": CLIENT,
            "PORT": str(server.port),
            "STATE": str(tmp_path / "root-state"),
            "FORGED": FORGED,
        }
        exports = "".join(f"export {k}='{v}'; " for k, v in environment.items())
        result = run_in_overlays(
            ["/etc", "/root"], tmp_path / "scratch", [exports + PREAMBLE + scenario]
        )
    assert result.returncode == 0, result.stderr
    return result.stdout


def _sections(stdout: str) -> dict[str, str]:
    parts: dict[str, str] = {}
    for chunk in stdout.split("=== ")[1:]:
        name, _, body = chunk.partition("\n")
        parts[name] = body
    return parts


EVERY_ACCOUNT = r"""
printf 'version = 1\nmode = "report"\n' > /etc/sslcustomize/policy.toml
mkdir -p /home/u4242 /home/u4444
chown 4242:4242 /home/u4242
chown 4444:4444 /home/u4444
as_root "$PYTHON" -c "$CLIENT" "$PORT" 2>/run/out/0.err
as_user 4242 /home/u4242 "$PYTHON" -c "$CLIENT" "$PORT" 2>/run/out/4242.err
as_user 65534 /nonexistent "$PYTHON" -c "$CLIENT" "$PORT" 2>/run/out/65534.err
# 4343 squats 4444's directory and plants a record there; then 4444 connects.
as_user 4343 /nonexistent sh -c 'mkdir -m 700 /var/spool/sslcustomize/4444 &&
    printf "%s\n" "$0" > /var/spool/sslcustomize/4444/journal-spool.jsonl' "$FORGED"
as_user 4444 /home/u4444 "$PYTHON" -c "$CLIENT" "$PORT" 2>/run/out/4444.err
echo "=== stderr"; cat /run/out/*.err
echo "=== squatted"; ls -A /var/spool/sslcustomize/4444
echo "=== own"; ls -A /home/u4444/.local/state/sslcustomize
echo "=== report"; as_root "$PYTHON" -m sslcustomize report --json
"""


def test_every_accounts_records_reach_roots_report_without_journald(
    tmp_path: Path, pki: TestPKI
) -> None:
    """Root, a user with a home and nobody: root's report reads all three; quiet programs."""
    parts = _sections(_run(tmp_path, pki, EVERY_ACCOUNT))
    report: dict[str, Any] = json.loads(parts["report"])
    (breaking,) = report["would_break"]
    # Every account's record, each read as its own uid's (before the fix: nobody's and the
    # user's were dropped or kept where root does not look).
    assert breaking["uids"] == [0, 4242, 65534]
    assert (report["records"], report["spooled"], report["dropped"]) == (3, 3, 0)
    # A system policy is quiet by default: records only, nothing on any program's stderr.
    assert parts["stderr"] == ""
    # The squatter's directory is not 4444's: nothing of 4444's went there, and what the
    # squatter planted is not read as anyone's record; 4444's records stay in its own home.
    assert parts["squatted"].split() == ["journal-spool.jsonl"]
    assert "forged.example" not in parts["report"]
    assert any(name.startswith("journal-spool.jsonl") for name in parts["own"].split())


SYSLOG_AND_QUIET = r"""
printf 'version = 1\nmode = "report"\n[report]\nsink = "syslog"\n' \
    > /etc/sslcustomize/policy.toml
as_user 65534 /nonexistent "$PYTHON" -c "$CLIENT" "$PORT" 2>/run/out/quiet.err
echo "=== json"; as_root "$PYTHON" -m sslcustomize report --json
echo "=== text"; as_root "$PYTHON" -m sslcustomize report
printf 'version = 1\nmode = "report"\n[report]\nsink = "syslog"\nquiet = false\n' \
    > /etc/sslcustomize/policy.toml
as_user 65534 /nonexistent "$PYTHON" -c "$CLIENT" "$PORT" 2>/run/out/loud.err
rm /etc/sslcustomize/policy.toml
mkdir -p /run/u4242/sslcustomize
printf 'version = 1\nmode = "report"\n' > /run/u4242/sslcustomize/policy.toml
chown -R 4242:4242 /run/u4242
as_user 4242 /nonexistent env XDG_CONFIG_HOME=/run/u4242 XDG_STATE_HOME=/run/u4242 \
    "$PYTHON" -c "$CLIENT" "$PORT" 2>/run/out/user.err
for name in quiet loud user; do echo "=== $name"; cat /run/out/$name.err; done
"""


def test_syslog_spool_is_read_and_only_a_system_policy_is_quiet(
    tmp_path: Path, pki: TestPKI
) -> None:
    """Nothing on /dev/log: report reads the syslog sink's spool; quiet is the system default."""
    parts = _sections(_run(tmp_path, pki, SYSLOG_AND_QUIET))
    report: dict[str, Any] = json.loads(parts["json"])
    # Before: "the report sink is 'syslog', which keeps no file to read".
    assert (report["records"], report["spooled"]) == (1, 1)
    assert report["would_break"][0]["uids"] == [65534]
    assert "1 record(s) wait in the spools" in " ".join(parts["text"].split())
    # The system policy says nothing on stderr by default; with quiet = false it warns, and
    # so does a user's report policy (the twins).
    assert parts["quiet"] == ""
    assert "UnverifiedConnectionWarning" in parts["loud"]
    assert "UnverifiedConnectionWarning" in parts["user"]


DROPS = r"""
mkdir -p /run/log/sslcustomize   # root's: nobody cannot write the shared log
printf 'version = 1\nmode = "report"\n[report]\nsink = "jsonl"\npath = "%s"\n' \
    /run/log/sslcustomize/r.jsonl > /etc/sslcustomize/policy.toml
as_root "$PYTHON" -c "$CLIENT" "$PORT" 2>/run/out/root.err
as_user 65534 /nonexistent "$PYTHON" -c "$CLIENT" "$PORT" 2>/run/out/nobody.err
echo "=== stderr"; cat /run/out/*.err
echo "=== report"; as_root "$PYTHON" -m sslcustomize report --json
"""


def test_another_accounts_drops_are_counted_in_roots_report(tmp_path: Path, pki: TestPKI) -> None:
    """nobody cannot write the shared jsonl log: its record is dropped; root's report says so."""
    parts = _sections(_run(tmp_path, pki, DROPS))
    report: dict[str, Any] = json.loads(parts["report"])
    # Twin: root's record reached the log; nobody's could not, and is counted, not silent
    # on root's side (before: "dropped": 0), and quiet on the program's.
    assert report["records"] == 1
    assert report["dropped"] == 1
    assert parts["stderr"] == ""
