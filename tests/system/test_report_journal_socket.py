"""The journal sink sends only to a socket of root's, in directories only root writes.

In a private mount namespace (a tmpfs on /run, an overlay of /etc with a system report
policy), another user squats ``/run/systemd/journal/socket`` (a container whose /run they can
write) and listens: no record of a user's hooked client reaches them. The twin is the same
listener run by root, which receives the records as journald would (the one the squatter
did not get included: it waited in the user's spool).
"""

from __future__ import annotations

import os
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
    if shutil.which("setpriv") is None:
        return "needs setpriv (util-linux)"
    if os.path.exists("/dev/log"):
        return "a syslog daemon listens on /dev/log: records would go there"
    return None


pytestmark = pytest.mark.skipif(_problem() is not None, reason=str(_problem()))

LISTENER = """
import os, socket, sys
sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
sock.bind(sys.argv[1])
os.chmod(sys.argv[1], 0o666)
sock.settimeout(30)
with open(sys.argv[2], "ab") as out:
    with open(sys.argv[2] + ".ready", "w") as ready:
        ready.write(str(os.getpid()))
    while True:
        try:
            out.write(sock.recv(1 << 20))
            out.flush()
        except TimeoutError:
            break
"""

SCENARIO = r"""
set -e
mount -t tmpfs tmpfs /run
mount -t tmpfs tmpfs /var/tmp
chmod 1777 /var/tmp
chmod 0711 /root   # an overlay: lets the users reach this venv's base Python, nowhere else
mkdir -p /etc/sslcustomize /run/out
chmod 0777 /run/out
printf 'version = 1\nmode = "report"\n' > /etc/sslcustomize/policy.toml
as_user() {
    uid=$1; shift
    setpriv --reuid="$uid" --regid="$uid" --clear-groups \
        env -i PATH=/usr/bin:/bin HOME=/nonexistent "$@"
}
listen() {  # listen UID OUT: a datagram listener at journald's path, until killed
    if [ "$1" = 0 ]; then env -i "$PYTHON" -I -c "$LISTENER" "$SOCKET" "$2" &
    else as_user "$1" "$PYTHON" -I -c "$LISTENER" "$SOCKET" "$2" & fi
    for i in $(seq 200); do
        [ -s "$2.ready" ] && LPID=$(cat "$2.ready") && return 0; sleep 0.05
    done
    echo "the listener did not start" >&2; exit 1
}
SOCKET=/run/systemd/journal/socket
mkdir -p /run/systemd/journal
chown 4343:4343 /run/systemd/journal   # the squatter's
listen 4343 /run/out/squatter
as_user 4242 "$PYTHON" -c "$CLIENT" "$PORT" 2>/dev/null
sleep 0.3
kill "$LPID"; wait
rm -rf /run/systemd/journal
mkdir -p /run/systemd/journal          # root's, as journald's is
listen 0 /run/out/journald
as_user 4242 "$PYTHON" -c "$CLIENT" "$PORT" 2>/dev/null
sleep 0.3
kill "$LPID"; wait
echo "squatter $(wc -c < /run/out/squatter)"
grep -c SSLCUSTOMIZE_VERDICT=rejected /run/out/journald | sed 's/^/journald /'
"""


def test_no_record_reaches_a_journal_socket_another_user_squats(
    tmp_path: Path, pki: TestPKI
) -> None:
    """A user's socket at journald's path gets nothing; root's there gets the record."""
    with serve_https(pki["self_signed"]) as server:
        environment = {
            "PYTHON": sys.executable,
            "CLIENT": CLIENT,
            "LISTENER": LISTENER,
            "PORT": str(server.port),
        }
        exports = "".join(f"export {k}='{v}'; " for k, v in environment.items())
        result = run_in_overlays(["/etc", "/root"], tmp_path / "scratch", [exports + SCENARIO])
    assert result.returncode == 0, result.stderr
    counts = dict(line.split() for line in result.stdout.splitlines())
    # Twin: journald's socket, root's, gets the second run's record and the first run's, which
    # waited in the user's spool while the socket was squatted (the sink stays the journal).
    assert counts["journald"] == "2", result.stdout
    assert counts["squatter"] == "0", result.stdout
