"""The wheels installed without optional extras: doctor, check and trust work; lint apart.

``ahocorasick-rs`` (the lint accelerator, ``sslcustomize-lint[fast]``) has no wheel for every
CPython the hook supports and its sdist needs Rust; ``cryptography`` is not a runtime
dependency. A fresh venv gets the wheel and its declared dependencies only. The linter is its
own distribution: without it ``sslcustomize lint`` says how to install it, and it runs in a
venv that has nothing else.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

import _pki

if TYPE_CHECKING:
    from conftest import StartServer

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def bare_venv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A venv with the freshly built wheel and its runtime dependencies, no extras."""
    work = tmp_path_factory.mktemp("install")
    wheels = work / "wheels"
    env = _environment()
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(wheels), str(ROOT)],
        check=True,
        env=env,
        cwd=work,
    )
    (wheel,) = wheels.glob("sslcustomize-*.whl")
    venv = work / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, env=env, cwd=work)
    subprocess.run(
        [str(venv / "bin" / "python"), "-m", "pip", "install", "-q", str(wheel)],
        check=True,
        env=env,
        cwd=work,
    )
    return venv


@pytest.fixture(scope="module")
def lint_venv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A venv with the sslcustomize-lint wheel alone (no sslcustomize, no extras)."""
    work = tmp_path_factory.mktemp("install-lint")
    wheels = work / "wheels"
    env = _environment()
    source = str(ROOT / "lint")
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(wheels), source],
        check=True,
        env=env,
        cwd=work,
    )
    (wheel,) = wheels.glob("sslcustomize_lint-*.whl")
    venv = work / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, env=env, cwd=work)
    subprocess.run(
        [str(venv / "bin" / "python"), "-m", "pip", "install", "-q", str(wheel)],
        check=True,
        env=env,
        cwd=work,
    )
    return venv


def _environment() -> dict[str, str]:
    """The test's environment without variables that would make Python find this checkout."""
    return {k: v for k, v in os.environ.items() if k not in {"PYTHONPATH", "PYTHONHOME"}}


def _run(
    venv: Path, *argv: str, cwd: Path, script: str = "sslcustomize"
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(venv / "bin" / script), *argv],
        capture_output=True,
        text=True,
        env=_environment(),
        cwd=cwd,
        timeout=120,
        check=False,
    )


def test_no_extras_are_installed(bare_venv: Path) -> None:
    """Neither the lint accelerator nor cryptography is pulled in by the wheel's dependencies."""
    code = (
        "import importlib.util as u\n"
        "print([n for n in ('ahocorasick_rs', 'cryptography') if u.find_spec(n)])\n"
    )
    done = subprocess.run(
        [str(bare_venv / "bin" / "python"), "-I", "-c", code],
        capture_output=True,
        text=True,
        check=True,
    )
    assert done.stdout.strip() == "[]"


def test_help_lists_every_command(bare_venv: Path, tmp_path: Path) -> None:
    """--help works without the accelerator (it once crashed on the missing import)."""
    done = _run(bare_venv, "--help", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    for command in ("doctor", "check", "trust", "lint"):
        assert command in done.stdout


def test_doctor_runs(bare_venv: Path, tmp_path: Path) -> None:
    """doctor describes the process's TLS situation without a traceback."""
    done = _run(bare_venv, "doctor", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "OpenSSL" in done.stdout
    assert "Traceback" not in done.stderr


def test_check_and_trust_against_loopback(
    bare_venv: Path, pki: _pki.TestPKI, https_server: StartServer, tmp_path: Path
) -> None:
    """check rejects a self-signed loopback server; after trust --yes it verifies it."""
    _, port = https_server(pki["self_signed"], "localhost")
    target = f"localhost:{port}"
    rejected = _run(bare_venv, "check", target, cwd=tmp_path)
    assert rejected.returncode == 1, rejected.stderr
    assert "self_signed" in rejected.stdout
    trusted = _run(
        bare_venv, "trust", "--yes", "--scope", "user", "--reason", "test", target, cwd=tmp_path
    )
    assert trusted.returncode == 0, trusted.stderr
    policy = Path(os.environ["XDG_CONFIG_HOME"]) / "sslcustomize" / "policy.toml"
    assert pki["self_signed"].pin in policy.read_text()
    verified = _run(bare_venv, "check", target, cwd=tmp_path)
    assert verified.returncode == 0, verified.stdout + verified.stderr


def test_lint_without_the_linter_says_how_to_install_it(bare_venv: Path, tmp_path: Path) -> None:
    """The runtime's wheel does not bring the linter: lint exits 2 with the pip command."""
    done = _run(bare_venv, "lint", "--isolated", str(tmp_path), cwd=tmp_path)
    assert done.returncode == 2, done.stdout + done.stderr
    assert "-m pip install sslcustomize-lint" in done.stderr
    assert "Traceback" not in done.stderr


def test_lint_finds_without_accelerator(lint_venv: Path, tmp_path: Path) -> None:
    """The linter alone reports verify=False (exit 1) and a clean file (exit 0), pure Python."""
    code = (
        "import importlib.util as u\n"
        "print([n for n in ('ahocorasick_rs', 'sslcustomize') if u.find_spec(n)])\n"
    )
    done = subprocess.run(
        [str(lint_venv / "bin" / "python"), "-I", "-c", code],
        capture_output=True,
        text=True,
        check=True,
    )
    assert done.stdout.strip() == "[]"
    bad = tmp_path / "bad.py"
    bad.write_text("import requests\nrequests.get('https://example.org', verify=False)\n")
    good = tmp_path / "good.py"
    good.write_text("import requests\nrequests.get('https://example.org', timeout=5)\n")
    script = "sslcustomize-lint"
    found = _run(lint_venv, "--isolated", str(bad), cwd=tmp_path, script=script)
    assert found.returncode == 1, found.stderr
    assert "SSC101" in found.stdout
    clean = _run(lint_venv, "--isolated", str(good), cwd=tmp_path, script=script)
    assert clean.returncode == 0, clean.stdout + clean.stderr
