"""pip installs from an HTTPS index on loopback whose CA only the policy trusts.

A tiny PEP 503 index with one hand-made wheel is served over HTTPS. ``pip install`` succeeds
with ``SSLCUSTOMIZE_POLICY`` trusting the test root (through the .pth hook: pip 24.2+ would use
truststore, pip before it certifi) and fails with a certificate error without it.
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import http.server
import os
import subprocess
import sys
import threading
import zipfile
from collections.abc import Iterator
from functools import partial
from pathlib import Path

import pytest

import _pki
import _servers
from _fixtures import WritePolicy

pytestmark = pytest.mark.skipif(
    not any((Path(p) / "sslcustomize.pth").is_file() for p in sys.path if p),
    reason="needs a wheel install (the .pth hook); run through nox",
)

WHEEL = "sslcustomize_probe-1.0-py3-none-any.whl"


def _write_wheel(path: Path) -> None:
    files = {
        "sslcustomize_probe/__init__.py": b"VALUE = 'installed over verified TLS'\n",
        "sslcustomize_probe-1.0.dist-info/METADATA": (
            b"Metadata-Version: 2.1\nName: sslcustomize-probe\nVersion: 1.0\n"
        ),
        "sslcustomize_probe-1.0.dist-info/WHEEL": (
            b"Wheel-Version: 1.0\nGenerator: hand\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
        ),
    }
    record = []
    for name, data in files.items():
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        record.append(f"{name},sha256={digest},{len(data)}")
    record.append("sslcustomize_probe-1.0.dist-info/RECORD,,")
    files["sslcustomize_probe-1.0.dist-info/RECORD"] = ("\n".join(record) + "\n").encode()
    with zipfile.ZipFile(path, "w") as archive:
        for name, data in files.items():
            archive.writestr(name, data)


@pytest.fixture
def index(pki: _pki.TestPKI, tmp_path: Path) -> Iterator[str]:
    """An HTTPS simple index on localhost serving one wheel; its URL."""
    root = tmp_path / "index"
    project = root / "simple" / "sslcustomize-probe"
    project.mkdir(parents=True)
    _write_wheel(project / WHEEL)
    (root / "simple" / "index.html").write_text('<a href="sslcustomize-probe/">probe</a>\n')
    (project / "index.html").write_text(f'<a href="{WHEEL}">{WHEEL}</a>\n')

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, format: str, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), partial(Quiet, directory=root))
    context = _servers.server_context(pki["good"])
    server.socket = context.wrap_socket(server.socket, server_side=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"https://localhost:{server.server_address[1]}/simple/"
    server.shutdown()
    server.server_close()
    with contextlib.suppress(RuntimeError):
        thread.join(5)


def _pip_install(index: str, target: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "pip", "install", "--index-url", index, "--no-cache-dir"]
    command += ["--disable-pip-version-check", "--retries", "0", "--timeout", "10"]
    command += ["--target", str(target), "sslcustomize-probe"]
    # The machine's pip configuration (PIP_CERT, pip.conf's cert, extra indexes) stays out.
    clean = {k: v for k, v in os.environ.items() if not k.startswith("PIP_")}
    clean["PIP_CONFIG_FILE"] = os.devnull
    return subprocess.run(
        command, capture_output=True, text=True, timeout=120, check=False, env={**clean, **env}
    )  # fmt: skip


@pytest.mark.slow
def test_pip_installs_from_an_index_only_the_policy_trusts(
    index: str, pki: _pki.TestPKI, write_policy: WritePolicy, tmp_path: Path
) -> None:
    """With the policy pip installs the wheel; without it pip fails to verify the index."""
    root = tmp_path / "root.pem"
    root.write_bytes(pki.root_pem)
    policy = write_policy(f"trust = ['{root}']\n")
    result = _pip_install(index, tmp_path / "with", {"SSLCUSTOMIZE_POLICY": str(policy)})
    assert result.returncode == 0, result.stdout + result.stderr
    assert (tmp_path / "with" / "sslcustomize_probe" / "__init__.py").is_file()
    result = _pip_install(index, tmp_path / "without", {})
    assert result.returncode != 0
    assert "CERTIFICATE_VERIFY_FAILED" in result.stdout + result.stderr
