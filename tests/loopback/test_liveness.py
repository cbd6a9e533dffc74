"""No lock is held while the program's own code runs, and every lock survives fork() (issue 22 #8).

Both run in fresh interpreters started through the ``.pth`` hook, guarded by a timeout: a
deadlock fails the test instead of hanging the suite.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import _pki
import _servers

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork()")

# An application that ships its warnings over HTTPS; its first TLS connection makes the
# policy announce a locked key (a warning) while that connection's context is being made.
_WARNINGS_OVER_HTTPS = r"""
import logging, logging.handlers, sys, urllib.request
from sslcustomize._support import _bootstrap
_bootstrap.SYSTEM_POLICY = sys.argv[1]

class Shipped(logging.handlers.HTTPHandler):
    failed = ""
    def emit(self, record):
        self.failed = ""
        super().emit(record)
        print("log:", self.failed or "sent", flush=True)
    def handleError(self, record):
        self.failed = type(sys.exc_info()[1]).__name__

logging.captureWarnings(True)
handler = Shipped(f"localhost:{sys.argv[2]}", "/log", method="POST", secure=True)
logging.getLogger("py.warnings").addHandler(handler)
urllib.request.urlopen(f"https://localhost:{sys.argv[3]}/", timeout=10).read()
print("app: accepted", flush=True)
"""


def _policies(tmp_path: Path, pki: _pki.TestPKI) -> tuple[Path, Path]:
    """A system layer that trusts the test CA and locks mode; a process layer that tries."""
    ca = tmp_path / "ca.pem"
    ca.write_bytes(pki.root_pem)
    system = tmp_path / "system.toml"
    system.write_text(f'version = 1\ntrust = ["system", "{ca}"]\nlock = ["mode"]\n')
    process = tmp_path / "process.toml"
    process.write_text('version = 1\nmode = "report"\n')
    return system, process


@pytest.mark.parametrize(("log_case", "shipped"), [("good", "sent"), ("self_signed", "refused")])
def test_a_policy_warning_shipped_over_https_does_not_deadlock(
    tmp_path: Path, pki: _pki.TestPKI, log_case: str, shipped: str
) -> None:
    """captureWarnings + HTTPHandler(secure=True): the warning ships; to a MITM it is refused."""
    system, process = _policies(tmp_path, pki)
    env = {**os.environ, "SSLCUSTOMIZE_POLICY": str(process)}
    with (
        _servers.serve_https(pki[log_case]) as log,
        _servers.serve_https(pki["good"]) as app,
    ):
        argv = [sys.executable, "-c", _WARNINGS_OVER_HTTPS, str(system), str(log.port)]
        try:
            result = subprocess.run(
                [*argv, str(app.port)],
                env=env,
                capture_output=True,
                text=True,
                timeout=60,
                check=False,
            )
        except subprocess.TimeoutExpired:
            pytest.fail("the application hung at its first TLS connection (deadlock)")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[-1] == "app: accepted"
    verdicts = [line for line in lines if line.startswith("log:")]
    expected = ["log: sent"] if shipped == "sent" else ["log: CertificateRejected"]
    assert verdicts == expected, result.stdout + result.stderr


_FORK_WHILE_LOADING = r"""
import os, signal, ssl, sys, threading, time, urllib.request
from sslcustomize._support import _bootstrap
_bootstrap.SYSTEM_POLICY = sys.argv[1]
hold = sys.argv[2] == "hold"
good, bad = sys.argv[3], sys.argv[4]
import sslcustomize._runtime._state as state

loading = threading.Event()
original = state.load_policy_with
def slow_load(*args, **kwargs):
    loading.set()
    time.sleep(3)
    return original(*args, **kwargs)
state.load_policy_with = slow_load

if hold:
    worker = threading.Thread(target=ssl.create_default_context)
    worker.start()
    loading.wait(10)
pid = os.fork()
if pid == 0:
    signal.alarm(20)  # a deadlocked child dies instead of hanging the test
    state.load_policy_with = original
    out = []
    for port in (good, bad):
        try:
            urllib.request.urlopen(f"https://localhost:{port}/", timeout=10).read()
            out.append("accepted")
        except Exception as exc:
            cause = getattr(exc, "reason", exc)
            out.append("rejected" if isinstance(cause, ssl.SSLCertVerificationError) else repr(exc))
    print("child:", *out, flush=True)
    os._exit(0)
_, status = os.waitpid(pid, 0)
print("status:", status, flush=True)
if hold:
    worker.join()
"""


@pytest.mark.parametrize("hold", ["hold", "idle"])
def test_fork_while_a_thread_loads_the_policy(tmp_path: Path, pki: _pki.TestPKI, hold: str) -> None:
    """A child forked while another thread holds the policy load makes contexts and verifies."""
    system, process = _policies(tmp_path, pki)
    process.write_text("version = 1\n")  # the hook is on from startup; nothing to warn about
    env = {**os.environ, "SSLCUSTOMIZE_POLICY": str(process)}
    with (
        _servers.serve_https(pki["good"], "127.0.0.1") as good,
        _servers.serve_https(pki["self_signed"], "127.0.0.1") as bad,
    ):
        code = textwrap.dedent(_FORK_WHILE_LOADING)
        result = subprocess.run(
            [sys.executable, "-c", code, str(system), hold, str(good.port), str(bad.port)],
            env=env,
            capture_output=True,
            text=True,
            timeout=90,
            check=False,
        )
    assert result.returncode == 0, result.stderr
    assert "child: accepted rejected" in result.stdout.splitlines(), result.stdout + result.stderr
    assert "status: 0" in result.stdout.splitlines()
