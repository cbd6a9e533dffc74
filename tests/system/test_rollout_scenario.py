"""An administrator's rollout, end to end, as docs/howto-report-mode.md tells it (issue 33).

In a private mount namespace (overlays of /etc, /usr, /root and /var/spool; tmpfs on /run and
/var/tmp: no journald, as in a container), the documented commands run in order, as root:

1. ``sslcustomize enable --scope system --mode report``;
   a program run by root and the same program run by ``nobody`` (no home), each with the
   machine's own interpreter (no sslcustomize installed in it), reach a self-signed server:
   once with smtplib's context, once with code that turns verification off;
2. ``sslcustomize report``: both accounts' records, nothing lost;
3. ``sslcustomize enable --scope system --mode enforce``: the same program is refused, its
   opt-out is still recorded, for both accounts, in the same sink;
4. ``sslcustomize disable --scope system``: the machine as it was (the records stay).

Each command's output is checked, and what it leaves behind.
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest

from _namespace import left_behind, namespace_problem, run_in_overlays
from _pki import TestPKI
from _servers import serve_https


def _problem() -> str | None:
    problem = namespace_problem()
    if problem:
        return problem
    return None if shutil.which("setpriv") else "needs setpriv (util-linux)"


pytestmark = [pytest.mark.skipif(_problem() is not None, reason=str(_problem())), pytest.mark.slow]

#: The machine's interpreter: hooked by enable --scope system, without sslcustomize installed.
BASE_PYTHON = getattr(sys, "_base_executable", sys.executable)
SSLCUSTOMIZE = str(Path(sys.executable).parent / "sslcustomize")

#: smtplib's context, then code that turns verification off: what each connection came to.
PROGRAM = """
import socket, ssl, sys
port = int(sys.argv[1])
for name, make in (("stdlib", ssl._create_stdlib_context),
                   ("opt-out", ssl._create_unverified_context)):
    with socket.create_connection(("127.0.0.1", port), timeout=20) as raw:
        try:
            make().wrap_socket(raw, server_hostname="localhost").close()
        except ssl.SSLError as error:
            print(name, type(error).__name__)
        else:
            print(name, "connected")
"""

SCENARIO = r"""
set -e
mount -t tmpfs tmpfs /run
mount -t tmpfs tmpfs /var/tmp
chmod 1777 /var/tmp
chmod 0711 /root   # an overlay: lets nobody reach the base Python, nowhere else
mkdir /run/out && chmod 0777 /run/out
sudo_() { env -i PATH=/usr/local/bin:/usr/bin:/bin HOME=/root XDG_STATE_HOME="$STATE" "$@"; }
program() {  # program NAME: run by root and by nobody; stdout checked, stderr kept apart
    env -i PATH=/usr/bin:/bin HOME=/root "$BASE" -c "$PROGRAM" "$PORT" \
        > "/run/out/$1-root" 2> "/run/out/$1-root.err"
    setpriv --reuid=65534 --regid=65534 --clear-groups env -i PATH=/usr/bin:/bin \
        HOME=/nonexistent "$BASE" -c "$PROGRAM" "$PORT" \
        > "/run/out/$1-nobody" 2> "/run/out/$1-nobody.err"
    for who in root nobody; do
        echo "=== $1 $who"; cat "/run/out/$1-$who"; echo "=== $1 $who stderr"
        cat "/run/out/$1-$who.err"
    done
}
program before
echo "=== enable report"; sudo_ "$SSLCUSTOMIZE" enable --scope system --mode report | head -2
echo "=== policy"; cat /etc/sslcustomize/policy.toml
echo "=== spool mode"; stat -c '%a %U' /var/spool/sslcustomize
program report
echo "=== report text"; sudo_ "$SSLCUSTOMIZE" report
echo "=== report json"; sudo_ "$SSLCUSTOMIZE" report --json
echo "=== enable enforce"; sudo_ "$SSLCUSTOMIZE" enable --scope system --mode enforce | head -1
echo "=== explain json"; sudo_ "$SSLCUSTOMIZE" explain --json
program enforce
echo "=== report after"; sudo_ "$SSLCUSTOMIZE" report --json
echo "=== disable"; sudo_ "$SSLCUSTOMIZE" disable --scope system
program after
echo "=== left"; ls -A /etc/sslcustomize /usr/local/lib; ls -A /var/spool/sslcustomize
"""


def _sections(stdout: str) -> dict[str, str]:
    return {
        name: body.strip()
        for name, _, body in (chunk.partition("\n") for chunk in stdout.split("=== ")[1:])
    }


def test_the_report_mode_howto_end_to_end(tmp_path: Path, pki: TestPKI) -> None:
    """enable report, two accounts, report, enforce, report again, disable: as documented."""
    with serve_https(pki["self_signed"]) as server:
        environment = {
            "BASE": BASE_PYTHON,
            "SSLCUSTOMIZE": SSLCUSTOMIZE,
            "PROGRAM": PROGRAM,
            "PORT": str(server.port),
            "STATE": str(tmp_path / "root-state"),
        }
        exports = "".join(f"export {k}='{v}'; " for k, v in environment.items())
        trees = ["/etc", "/usr", "/root", "/var/spool"]
        result = run_in_overlays(trees, tmp_path / "scratch", [exports + SCENARIO])
    assert result.returncode == 0, result.stderr + result.stdout
    parts = _sections(result.stdout)
    both = ("root", "nobody")

    # Before: smtplib's context accepts anything (gh-91826); twin of what enforce refuses.
    for who in both:
        assert parts[f"before {who}"] == "stdlib connected\nopt-out connected"

    # 1. enable report: the policy as the how-to shows it, the spool root's and sticky.
    assert parts["enable report"].startswith("enabled: /etc/sslcustomize/policy.toml (mode report")
    assert 'mode = "report"' in parts["policy"]
    assert parts["spool mode"] == "1733 root"
    # Report mode breaks nothing and, at system scope, prints nothing on programs' stderr.
    for who in both:
        assert parts[f"report {who}"] == "stdlib connected\nopt-out connected"
        assert parts[f"report {who} stderr"] == ""

    # 2. report: both accounts' records (no journald: they wait in the spool, counted).
    text = " ".join(parts["report text"].split())
    assert "1 machine, 1 program would fail under enforce (1 server)" in text
    assert "root (0), nobody (65534)" in text
    assert "4 record(s) wait in the spools" in text
    report: dict[str, Any] = json.loads(parts["report json"])
    assert (report["records"], report["spooled"], report["dropped"]) == (4, 4, 0)
    (breaking,) = report["would_break"]
    assert (breaking["reasons"], breaking["uids"]) == (["self_signed"], [0, 65534])
    (opt_out,) = report["opt_outs"]
    assert opt_out["uids"] == [0, 65534]

    # 3. enforce: the sink stays the journal; the same program is refused, its opt-out is
    # still recorded for both accounts, and still nothing on stderr.
    assert parts["enable enforce"] == "mode = 'enforce' in /etc/sslcustomize/policy.toml"
    assert json.loads(parts["explain json"])["report"]["sink"]["value"] == "journal"
    for who in both:
        assert parts[f"enforce {who}"] == "stdlib CertificateRejected\nopt-out connected"
        assert parts[f"enforce {who} stderr"] == ""
    after: dict[str, Any] = json.loads(parts["report after"])
    assert (after["records"], after["dropped"]) == (6, 0)
    (opt_out,) = after["opt_outs"]
    assert (opt_out["count"], opt_out["uids"]) == (4, [0, 65534])

    # 4. disable: the programs as before; the edited policy kept aside, the records kept.
    assert parts["disable"].startswith("disabled: restored")
    for who in both:
        assert parts[f"after {who}"] == "stdlib connected\nopt-out connected"
    left = parts["left"].split()
    assert "policy.toml.disabled" in left
    assert "sslcustomize" not in left  # /usr/local/lib/sslcustomize: the runtime is gone
    assert {"0", "65534"} <= set(left)  # each account's spooled records stay for report
    # Nothing else is left on /etc, /usr (the interpreters' standard libraries) or /root,
    # apart from root's own cache of what its processes read (its first contexts' entries in
    # ~/.cache/sslcustomize, as any user's processes keep them; a cache, not a setting).
    changed = left_behind(tmp_path / "scratch", ["/etc", "/usr", "/root"])
    cache = "/root/.cache/sslcustomize"

    def kept(line: str) -> bool:
        path = line.split(": ", 1)[1]
        return "/etc/sslcustomize" in path or cache.startswith(path) or path.startswith(cache)

    assert [line for line in changed if not kept(line)] == []
