"""The journal sink against a real systemd-journald, in a private mount namespace.

journald runs standalone with a tmpfs on /run (and on /var/log, so nothing of the machine's own
journal is touched); the system policy is written into an overlay of /etc. Root and ``nobody``
(no home) connect through the ``.pth`` hook in report mode; ``sslcustomize report`` as root
reads every record from the journal. With journald stopped, records go to each user's spool
and reach the journal once it runs again: nothing is lost, nothing is dropped.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest

from _namespace import namespace_problem, run_in_overlays
from _pki import TestPKI
from _servers import serve_https

JOURNALD = "/lib/systemd/systemd-journald"


def _problem() -> str | None:
    problem = namespace_problem()
    if problem:
        return problem
    for tool in (JOURNALD, shutil.which("journalctl"), shutil.which("setpriv")):
        if tool is None or not os.access(tool, os.X_OK):
            return "needs systemd-journald, journalctl and setpriv (apt-get install systemd)"
    return None


pytestmark = pytest.mark.skipif(_problem() is not None, reason=str(_problem()))

# stdlib's unverified default (smtplib's): judged under the policy; then code that opts out.
CLIENT = """
import socket, ssl, sys
port = int(sys.argv[1])
for make in (ssl._create_stdlib_context, ssl._create_unverified_context):
    with socket.create_connection(("127.0.0.1", port), timeout=20) as raw:
        with make().wrap_socket(raw, server_hostname="localhost") as tls:
            tls.sendall(b"GET / HTTP/1.0\\r\\n\\r\\n")
            tls.recv(100)
print("connected")
"""

SCENARIO = r"""
set -e
mount -t tmpfs tmpfs /run
mount -t tmpfs tmpfs /var/log
mount -t tmpfs tmpfs /var/tmp
chmod 1777 /var/tmp
chmod 0711 /root   # an overlay: lets nobody reach this venv's base Python, nowhere else
mkdir -p /etc/sslcustomize
printf 'version = 1\nmode = "report"\n' > /etc/sslcustomize/policy.toml
start() {
    "$JOURNALD" >/dev/null 2>&1 &
    JPID=$!
    for i in $(seq 100); do [ -S /run/systemd/journal/socket ] && return 0; sleep 0.05; done
    echo "journald did not start" >&2; exit 1
}
stop() { kill "$JPID"; wait "$JPID" 2>/dev/null || true; }
as_root() { env -i PATH=/usr/bin:/bin HOME=/root XDG_STATE_HOME="$STATE" "$@"; }
as_nobody() {
    setpriv --reuid=65534 --regid=65534 --clear-groups \
        env -i PATH=/usr/bin:/bin HOME=/nonexistent "$@"
}
report() { as_root "$PYTHON" -m sslcustomize report "$@"; }
start
as_root "$PYTHON" -c "$CLIENT" "$PORT" >/dev/null
as_nobody "$PYTHON" -c "$CLIENT" "$PORT" >/dev/null
sleep 0.3
echo "=== running"; report --json
echo "=== explain"; as_root "$PYTHON" -m sslcustomize explain --json
stop
mv /run/systemd/journal/socket /run/journal-socket-away
echo "=== explain-no-journald"; as_root "$PYTHON" -m sslcustomize explain --json
mv /run/journal-socket-away /run/systemd/journal/socket
as_root "$PYTHON" -c "$CLIENT" "$PORT" >/dev/null 2>"$OUT/root-stopped.err"
as_nobody "$PYTHON" -c "$CLIENT" "$PORT" >/dev/null 2>"$OUT/nobody-stopped.err"
ls /var/tmp/sslcustomize-65534 > "$OUT/nobody-spool.txt"
echo "=== stopped"; report --json --journal
start
as_nobody "$PYTHON" -c "$CLIENT" "$PORT" >/dev/null
as_root "$PYTHON" -c "$CLIENT" "$PORT" >/dev/null
sleep 0.3
ls /var/tmp/sslcustomize-65534 > "$OUT/nobody-spool-after.txt"
echo "=== restarted"; report --json
echo "=== text"; report
stop
"""


def _documents(stdout: str) -> dict[str, Any]:
    parts: dict[str, Any] = {}
    for chunk in stdout.split("=== ")[1:]:
        name, _, body = chunk.partition("\n")
        parts[name] = body if name == "text" else json.loads(body)
    return parts


def test_two_uids_reach_the_journal_and_a_stopped_journald_loses_nothing(
    tmp_path: Path, pki: TestPKI
) -> None:
    """Root and nobody (no home) report to journald; stopped, it loses nothing silently."""
    out = tmp_path / "out"
    out.mkdir()
    with serve_https(pki["self_signed"]) as server:
        environment = {
            "JOURNALD": JOURNALD,
            "PYTHON": sys.executable,
            "CLIENT": CLIENT,
            "PORT": str(server.port),
            "STATE": str(tmp_path / "root-state"),
            "OUT": str(out),
        }
        exports = "".join(f"export {k}='{v}'; " for k, v in environment.items())
        result = run_in_overlays(["/etc", "/root"], tmp_path / "scratch", [exports + SCENARIO])
    assert result.returncode == 0, result.stderr
    parts = _documents(result.stdout)
    (out / "report.txt").write_text(parts["text"])

    # The default sink of a system policy: the journal, whether journald runs or not (without
    # it, records wait in each account's spool, which root's report reads).
    assert parts["explain"]["report"]["sink"]["value"] == "journal"
    assert parts["explain-no-journald"]["report"]["sink"]["value"] == "journal"
    running = parts["running"]
    assert running["source"] == "the systemd journal"  # the default sink of a system report policy
    assert running["records"] == 4  # two connections by each of two users
    assert running["dropped"] == 0
    assert running["summary"]["line"] == (
        "1 machine, 1 program would fail under enforce (1 server); 1 program turns verification off"
    )
    (breaking,) = running["would_break"]
    assert (breaking["reasons"], breaking["uids"]) == (["self_signed"], [0, 65534])
    (opt_out,) = running["opt_outs"]
    assert (opt_out["count"], opt_out["uids"]) == (2, [0, 65534])

    # journald stopped: each user's records wait in its spool (nobody's under /var/tmp); a
    # system policy is quiet by default: nothing on the program's stderr.
    assert (out / "nobody-stopped.err").read_text() == ""
    assert "journal-spool.jsonl" in (out / "nobody-spool.txt").read_text()
    stopped = parts["stopped"]
    assert (stopped["records"], stopped["dropped"]) == (8, 0)

    # journald again: the next record of each user empties its spool into the journal.
    restarted = parts["restarted"]
    assert (restarted["records"], restarted["dropped"]) == (12, 0)
    assert "journal-spool.jsonl" not in (out / "nobody-spool-after.txt").read_text()
    assert sorted({r["count"] for r in restarted["would_break"]}) == [6]
    assert "would fail under enforce" in parts["text"]
