"""A log shared by a group: one member's planted spool part never holds another's program.

In a private mount namespace (an overlay of /etc with a group and a system report policy whose
``sqlite`` log the group shares), a member plants a FIFO named as a spool part in the shared
directory. Another member's hooked client, which takes spooled records into the log with its
first record, must neither wait on it nor lose its own record (the twin: it reaches the log).
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

from _fixtures import STDLIB_CLIENT_SCRIPT as CLIENT
from _namespace import namespace_problem, run_in_overlays
from _pki import TestPKI
from _servers import serve_https


def _problem() -> str | None:
    problem = namespace_problem()
    if problem:
        return problem
    return None if shutil.which("setpriv") else "needs setpriv (util-linux)"


pytestmark = pytest.mark.skipif(_problem() is not None, reason=str(_problem()))

SCENARIO = r"""
set -e
mount -t tmpfs tmpfs /run
mount -t tmpfs tmpfs /var/tmp
chmod 1777 /var/tmp
chmod 0711 /root   # an overlay: lets the users reach this venv's base Python, nowhere else
echo "tlslog:x:4300:" >> /etc/group
mkdir -p /etc/sslcustomize /run/shared-log
chgrp 4300 /run/shared-log
chmod 2770 /run/shared-log
printf 'version = 1\nmode = "report"\n[report]\nsink = "sqlite"\npath = "%s"\ngroup = "tlslog"\n' \
    /run/shared-log/r.sqlite3 > /etc/sslcustomize/policy.toml
as_member() {
    uid=$1; shift
    setpriv --reuid="$uid" --regid="$uid" --groups=4300 env -i PATH=/usr/bin:/bin \
        HOME=/nonexistent "$@"
}
as_member 4242 mkfifo /run/shared-log/r.sqlite3.spool.00000000000000000001-0.rest
status=0
timeout 30 setpriv --reuid=4343 --regid=4343 --groups=4300 env -i PATH=/usr/bin:/bin \
    HOME=/nonexistent "$PYTHON" -c "$CLIENT" "$PORT" 2>/dev/null || status=$?
echo "exit $status"
echo "records $("$PYTHON" -I -c "$COUNT" /run/shared-log/r.sqlite3 2>/dev/null || echo none)"
"""

COUNT = """
import sqlite3, sys
print(sqlite3.connect(sys.argv[1]).execute("SELECT count(*) FROM records").fetchone()[0])
"""


def test_a_fifo_planted_as_a_shared_spool_part_holds_no_program(
    tmp_path: Path, pki: TestPKI
) -> None:
    """A member's FIFO among the shared spool's parts: another member's client goes on."""
    with serve_https(pki["self_signed"]) as server:
        environment = {
            "PYTHON": sys.executable,
            "CLIENT": CLIENT,
            "COUNT": COUNT,
            "PORT": str(server.port),
        }
        exports = "".join(f"export {k}='{v}'; " for k, v in environment.items())
        result = run_in_overlays(["/etc", "/root"], tmp_path / "scratch", [exports + SCENARIO])
    assert result.returncode == 0, result.stderr
    found = dict(line.split() for line in result.stdout.splitlines())
    assert found["exit"] == "0", result.stdout  # 124: the FIFO held the client
    assert found["records"] == "1", result.stdout  # twin: its own record reached the log
