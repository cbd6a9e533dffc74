"""pip installs from an HTTPS index on loopback whose CA only the policy trusts.

A tiny PEP 503 index with one hand-made wheel is served over HTTPS. ``pip install`` succeeds
with ``SSLCUSTOMIZE_POLICY`` trusting the test root (through the .pth hook: pip 24.2+ would use
truststore, pip before it certifi) and fails with a certificate error without it.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

import _pki
from _fixtures import WritePolicy
from _index import serve_index

pytestmark = pytest.mark.skipif(
    not any((Path(p) / "sslcustomize.pth").is_file() for p in sys.path if p),
    reason="needs a wheel install (the .pth hook); run through nox",
)


@pytest.fixture
def index(pki: _pki.TestPKI, tmp_path: Path) -> Iterator[str]:
    """An HTTPS simple index on localhost serving one wheel; its URL."""
    with serve_index(pki["good"], tmp_path / "index") as url:
        yield url


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
