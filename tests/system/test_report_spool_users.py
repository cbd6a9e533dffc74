"""Root's report reads other users' spools as theirs: nothing they plant is read as root's.

In a private mount namespace (a tmpfs on /var/tmp and /run, no journald, an overlay of /etc),
users without a home keep their spools in ``/var/tmp/sslcustomize-UID``, which root's
``report`` reads. A real user's spooled record is the legitimate twin; other users plant a
record that claims uid 0, a directory named after a uid not theirs, a symlink to a file of
root's, and a FIFO.
"""

from __future__ import annotations

import json
import os
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
    if shutil.which("setpriv") is None or shutil.which("journalctl") is None:
        return "needs setpriv and journalctl"
    if os.path.exists("/dev/log"):
        return "a syslog daemon listens on /dev/log: records would not be spooled"
    return None


pytestmark = pytest.mark.skipif(_problem() is not None, reason=str(_problem()))


def _line(host: str, uid: int) -> str:
    return json.dumps(
        {"time": "2026-12-05T10:00:00+00:00", "pid": 1, "program": "forged.py",
         "context": "ssl", "host": host, "port": 443, "mode": "report",
         "verdict": "rejected", "reasons": ["self_signed"], "uid": uid}
    )  # fmt: skip


SCENARIO = r"""
set -e
mount -t tmpfs tmpfs /run
mount -t tmpfs tmpfs /var/tmp
chmod 1777 /var/tmp
chmod 0711 /root   # an overlay: lets the users reach this venv's base Python, nowhere else
mkdir -p /etc/sslcustomize /run/empty-journal
printf 'version = 1\nmode = "report"\n[report]\nsink = "journal"\n' > /etc/sslcustomize/policy.toml
as_user() {
    uid=$1; shift
    setpriv --reuid="$uid" --regid="$uid" --clear-groups \
        env -i PATH=/usr/bin:/bin HOME=/nonexistent "$@"
}
as_user 4242 "$PYTHON" -c "$CLIENT" "$PORT" 2>/dev/null
printf '%s\n' "$SECRET" > /root/secret.jsonl
chmod 0600 /root/secret.jsonl
as_user 4343 sh -c 'mkdir -m 700 /var/tmp/sslcustomize-4343 &&
    printf "%s\n%s\n" "$0" "$1" > /var/tmp/sslcustomize-4343/journal-spool.jsonl' \
    "$FORGED" "$BAD"
as_user 4343 sh -c 'mkdir -m 700 /var/tmp/sslcustomize-1 &&
    printf "%s\n" "$0" > /var/tmp/sslcustomize-1/journal-spool.jsonl' "$IMPERSONATED"
as_user 4444 sh -c 'mkdir -m 700 /var/tmp/sslcustomize-4444 &&
    ln -s /root/secret.jsonl /var/tmp/sslcustomize-4444/journal-spool.jsonl'
as_user 4545 sh -c 'mkdir -m 700 /var/tmp/sslcustomize-4545 &&
    mkfifo /var/tmp/sslcustomize-4545/journal-spool.jsonl.00000000000000000001-0.rest'
status=0
timeout 30 env -i PATH=/usr/bin:/bin HOME=/root XDG_STATE_HOME="$STATE" \
    "$PYTHON" -m sslcustomize report --journal --journal-dir /run/empty-journal --json \
    || status=$?
echo "exit $status"
"""


def test_root_reads_each_users_spool_as_theirs_and_nothing_planted(
    tmp_path: Path, pki: TestPKI
) -> None:
    """A user's spool is read as that uid's; a FIFO, a link, another uid's directory are not."""
    with serve_https(pki["self_signed"]) as server:
        environment = {
            "PYTHON": sys.executable,
            "CLIENT": CLIENT,
            "PORT": str(server.port),
            "STATE": str(tmp_path / "root-state"),
            "FORGED": _line("forged.example", 0),
            "IMPERSONATED": _line("impersonated.example", 1),
            "SECRET": _line("secret.example", 0),
            "BAD": _line("bad.example", 0).replace('"port": 443', '"port": {}'),
        }
        exports = "".join(f"export {k}='{v}'; " for k, v in environment.items())
        result = run_in_overlays(["/etc", "/root"], tmp_path / "scratch", [exports + SCENARIO])
    assert result.returncode == 0, result.stderr
    document, _, status = result.stdout.rpartition("exit ")
    assert status.strip() == "0", result.stderr  # 124: the FIFO held the report
    report: dict[str, Any] = json.loads(document)
    uids = {entry["where"].partition(":")[0]: entry["uids"] for entry in report["would_break"]}
    # Twin: the real record that user 4242's hooked client spooled, read as 4242's.
    assert uids["localhost"] == [4242]
    # A record that claims uid 0 is read as its spool's owner's.
    assert uids["forged.example"] == [4343]
    # Not read: a directory named after a uid not its owner's, a link to root's file.
    assert "impersonated.example" not in uids
    assert "secret.example" not in uids
    # A bad record in a user's spool, the link and the FIFO: skipped, counted where they were.
    spools = "/var/tmp/sslcustomize-{}/journal-spool.jsonl"  # noqa: S108 - in the namespace's tmpfs
    skipped = {(item["source"], item["reason"]) for item in report["skipped"]}
    assert skipped == {
        (f"spool of uid 4343: {spools.format(4343)}", "port is not an integer 1-65535"),
        (f"spool of uid 4444: {spools.format(4444)}", "a symbolic link (not followed)"),
        (
            f"spool of uid 4545: {spools.format(4545)}.00000000000000000001-0.rest",
            "not a regular file",
        ),
    }
    assert "bad.example" not in uids
