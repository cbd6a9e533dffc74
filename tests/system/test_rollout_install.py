"""Installed the way administrators install machine-wide tools: pipx, and an Ansible role.

In a private mount namespace with throw-away overlays of /etc, /usr, /opt and /root:

* ``pipx install`` with ``PIPX_HOME=/opt/pipx PIPX_BIN_DIR=/usr/local/bin`` (what
  ``pipx install --global`` does) puts the command where sudo's ``secure_path`` finds it;
  ``enable --scope system`` run from it hooks the machine, and the hooked interpreters keep
  verifying once the CLI's environment is gone (the runtime does not live there).
* ``contrib/ansible/roles/sslcustomize`` run by ``ansible-playbook`` (``connection: local``):
  the first run changes the machine, the second changes nothing, ``state: absent`` leaves
  /etc, /usr, /opt and /var/spool as they were, file for file.

Wheels come from the project and the indexes pip is configured with (its cache, normally),
built once per session; pipx and ansible-core from the test extra.
"""

from __future__ import annotations

import importlib.util
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from _namespace import left_behind, namespace_problem, run_in_overlays
from _pki import TestPKI
from _servers import serve_https

PROJECT = Path(__file__).resolve().parents[2]
ROLES = PROJECT / "contrib" / "ansible" / "roles"
#: sudo's secure_path on Debian and Ubuntu: a command installed elsewhere is not found.
SECURE_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
#: The interpreter the tool's environment is made from, and that the hooks must reach.
BASE_PYTHON = getattr(sys, "_base_executable", sys.executable)


#: Each install takes a minute or more and tests pipx and the role, not the Python under test:
#: one Python of the suite's seven runs them, to keep CI within its time.
INSTALLING_PYTHON = (3, 12)


def _problem(module: str) -> str | None:
    problem = namespace_problem()
    if problem:
        return problem
    if sys.version_info[:2] != INSTALLING_PYTHON:
        return "the installs run on Python {}.{} only (CI's time)".format(*INSTALLING_PYTHON)
    if importlib.util.find_spec(module) is None:
        return f"needs {module} (the test extra)"
    return None


@pytest.fixture(scope="module")
def wheels(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The project's wheel and its dependencies' (from pip's cache or configured indexes)."""
    directory = tmp_path_factory.mktemp("wheels")
    command = [sys.executable, "-m", "pip", "wheel", "-q", "-w", str(directory), str(PROJECT)]
    done = subprocess.run(command, capture_output=True, text=True, timeout=600, check=False)
    if done.returncode != 0:
        pytest.skip(f"cannot build the wheels: {done.stderr.strip()[-300:]}")
    return directory


PIPX = r"""
set -e
mount -t tmpfs tmpfs /var/tmp; chmod 1777 /var/tmp
mount -t tmpfs tmpfs /var/spool
export PIPX_HOME=/opt/pipx PIPX_BIN_DIR=/usr/local/bin PIPX_MAN_DIR=/usr/local/share/man
"$PYTHON" -m pipx install --python "$BASE" --pip-args="--no-index --find-links $WHEELS" \
    "$(ls "$WHEELS"/sslcustomize-*.whl)" > /dev/null
as_sudo() { env -i PATH="$SECURE_PATH" HOME=/root "$@"; }
client() { env -i PATH=/usr/bin:/bin HOME=/root "$BASE" -c "$CLIENT" "$PORT"; }
echo "=== which"; as_sudo sh -c 'command -v sslcustomize'
echo "=== before"; client 2>&1
as_sudo sslcustomize enable --scope system --json > /run/enable.json
echo "=== changed"; "$PYTHON" -c 'import json,sys; print(json.load(open(sys.argv[1]))["changed"])' \
    /run/enable.json
mv /opt/pipx /opt/pipx-away   # the CLI's environment gone: the hooks still load the runtime
echo "=== without the cli"; client 2>&1 | tail -1
mv /opt/pipx-away /opt/pipx
as_sudo sslcustomize disable --scope system > /dev/null
echo "=== after disable"; client 2>&1
"""

#: smtplib's context (stdlib's unverified default): says whether the handshake went through.
CLIENT = """
import socket, ssl, sys
with socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=20) as raw:
    try:
        ssl._create_stdlib_context().wrap_socket(raw, server_hostname="localhost")
    except ssl.SSLError as error:
        print(type(error).__name__)
    else:
        print("accepted")
"""


def _sections(stdout: str) -> dict[str, str]:
    return {
        name: body.strip()
        for name, _, body in (chunk.partition("\n") for chunk in stdout.split("=== ")[1:])
    }


@pytest.mark.slow
@pytest.mark.skipif(_problem("pipx") is not None, reason=str(_problem("pipx")))
def test_pipx_global_install_enables_the_machine_and_the_runtime_stands_alone(
    tmp_path: Path, pki: TestPKI, wheels: Path
) -> None:
    """sudo finds the pipx-installed command; the hooks it installs outlive its environment."""
    with serve_https(pki["self_signed"]) as server:
        environment = {
            "PYTHON": sys.executable,
            "BASE": BASE_PYTHON,
            "WHEELS": str(wheels),
            "SECURE_PATH": SECURE_PATH,
            "CLIENT": CLIENT,
            "PORT": str(server.port),
        }
        exports = "".join(f"export {k}='{v}'; " for k, v in environment.items())
        result = run_in_overlays(
            ["/etc", "/usr", "/opt", "/root"], tmp_path / "scratch", [exports + PIPX]
        )
    assert result.returncode == 0, result.stderr + result.stdout
    parts = _sections(result.stdout)
    assert parts["which"] == "/usr/local/bin/sslcustomize"  # found by sudo's secure_path
    assert parts["changed"] == "True"
    # The base interpreter, without sslcustomize installed, refuses the self-signed server
    # (stdlib's unverified default) with the CLI's environment moved away: the runtime lives
    # in /usr/local/lib/sslcustomize. Twin: the same client before enable and after disable.
    assert parts["without the cli"] == "CertificateRejected"
    assert parts["before"] == "accepted"
    assert parts["after disable"] == "accepted"


PLAYBOOK = """\
- hosts: localhost
  connection: local
  gather_facts: false
  roles:
    - role: sslcustomize
"""

ANSIBLE = r"""
set -e
mount -t tmpfs tmpfs /var/tmp; chmod 1777 /var/tmp
mount -t tmpfs tmpfs /var/spool
play() {
    "$ANSIBLE_PLAYBOOK" -i localhost, "$WORK/playbook.yml" -e "@$WORK/$1" > /run/play.log 2>&1 ||
        { cat /run/play.log; exit 1; }
    grep -E '^localhost +:' /run/play.log
    grep -B2 '^changed:' /run/play.log | grep '^TASK' || true
}
echo "=== first"; play present.json
echo "=== policy"; cat /etc/sslcustomize/policy.toml
echo "=== explain"; env -i PATH=/usr/local/bin:/usr/bin:/bin HOME="$WORK" \
    sslcustomize explain --json > "$WORK/explain.json" && echo ok
echo "=== second"; play present.json
echo "=== absent"; play absent.json
echo "=== absent again"; play absent.json
echo "=== spool"; ls -A /var/spool
"""


def _recap(line: str) -> dict[str, int]:
    return {key: int(value) for key, value in re.findall(r"(\w+)=(\d+)", line)}


@pytest.mark.slow
@pytest.mark.skipif(_problem("ansible") is not None, reason=str(_problem("ansible")))
def test_ansible_role_is_idempotent_and_absent_restores_the_machine(
    tmp_path: Path, wheels: Path
) -> None:
    """First run changed, second unchanged; the policy from variables; absent undoes it all."""
    work = tmp_path / "work"
    work.mkdir()
    (work / "playbook.yml").write_text(PLAYBOOK)
    common = {
        "sslcustomize_package": "sslcustomize",
        "sslcustomize_pip_extra_args": f"--no-index --find-links {wheels}",
        "sslcustomize_python": BASE_PYTHON,
        "ansible_python_interpreter": sys.executable,
    }
    present = {
        **common,
        "sslcustomize_mode": "report",
        "sslcustomize_lock": ["mode", "trust"],
        "sslcustomize_report": {"quiet": True},
        "sslcustomize_exceptions": [
            {"host": "nas.corp.example", "mode": "report", "expires": "2099-03-31",
             "reason": "vendor appliance, ticket OPS-123"},
        ],
    }  # fmt: skip
    (work / "present.json").write_text(json.dumps(present))
    (work / "absent.json").write_text(json.dumps({**common, "sslcustomize_state": "absent"}))
    playbook = shutil.which("ansible-playbook", path=str(Path(sys.executable).parent))
    assert playbook is not None
    environment = {
        "ANSIBLE_PLAYBOOK": playbook,
        "WORK": str(work),
        "ANSIBLE_ROLES_PATH": str(ROLES),
        "ANSIBLE_LOCAL_TEMP": str(work / "tmp"),
        "ANSIBLE_REMOTE_TEMP": str(work / "tmp"),
        "ANSIBLE_NOCOLOR": "1",
        "ANSIBLE_RETRY_FILES_ENABLED": "0",
        "HOME": str(work),
    }
    exports = "".join(f"export {k}='{v}'; " for k, v in environment.items())
    trees = ["/etc", "/usr", "/opt", "/root"]
    result = run_in_overlays(trees, tmp_path / "scratch", [exports + ANSIBLE])
    assert result.returncode == 0, result.stderr + result.stdout
    parts = _sections(result.stdout)
    first, second = _recap(parts["first"]), _recap(parts["second"])
    assert first["failed"] == 0
    assert first["changed"] >= 4  # installed, linked, policy written, enabled
    # Twin: the same variables again change nothing (enable --json says so).
    assert (second["changed"], second["failed"]) == (0, 0), parts["second"]
    policy = parts["policy"]
    assert 'mode = "report"' in policy
    assert 'lock = ["mode", "trust"]' in policy
    assert "expires = 2099-03-31" in policy
    assert 'reason = "vendor appliance, ticket OPS-123"' in policy
    explained = json.loads((work / "explain.json").read_text())
    assert explained["mode"]["value"] == "report"  # the loader reads what the role wrote
    absent, again = _recap(parts["absent"]), _recap(parts["absent again"])
    assert absent["changed"] >= 3
    assert (again["changed"], again["failed"]) == (0, 0), parts["absent again"]
    # Absent leaves /etc, /usr, /opt and /root as they were (the interpreters' stdlib
    # included), and no report spool (no record waits in it).
    assert left_behind(tmp_path / "scratch", trees) == []
    assert parts["spool"] == ""
