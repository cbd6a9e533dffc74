"""Python's own switches (-E, -I, -S) and a system policy that exists but cannot be read."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import pytest

from _fixtures import WritePolicy
from _namespace import namespace_problem, run_in_overlays

CONFIGURED = "import _sslcustomize_startup as s; print(s.policy_configured())"
HOOKED = "import ssl; print(ssl._create_stdlib_context.__module__)"

pytestmark = pytest.mark.skipif(
    not any(os.path.isfile(os.path.join(p, "sslcustomize.pth")) for p in sys.path if p),
    reason="needs a wheel install (the .pth hook); run through nox",
)


def _python(*options: str, code: str, env: dict[str, str] | None = None) -> str:
    result = subprocess.run(
        [sys.executable, *options, "-c", code],
        capture_output=True,
        text=True,
        env={**os.environ, **(env or {})},
        timeout=60,
        check=True,
    )
    return result.stdout.strip()


def _user_policy() -> Path:
    path = Path(os.environ["XDG_CONFIG_HOME"], "sslcustomize", "policy.toml")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("version = 1\n")
    return path


def test_environment_policy_applies_without_switches(write_policy: WritePolicy) -> None:
    """SSLCUSTOMIZE_POLICY turns the hook on in a plain interpreter (twin of the -E/-I test)."""
    env = {"SSLCUSTOMIZE_POLICY": str(write_policy("version = 1\n"))}
    assert _python(code=HOOKED, env=env) == "_sslcustomize_startup"


@pytest.mark.parametrize("switch", ["-E", "-I"])
def test_e_and_i_ignore_the_environment_policy(write_policy: WritePolicy, switch: str) -> None:
    """Under -E or -I, SSLCUSTOMIZE_POLICY is ignored as Python ignores its PYTHON* variables."""
    env = {"SSLCUSTOMIZE_POLICY": str(write_policy("version = 1\n"))}
    if switch == "-I":  # -I drops the script directory and user site, not the environment's
        assert _python(switch, code=CONFIGURED, env=env) == "False"
    assert _python(switch, code=HOOKED, env=env) == "ssl"


def test_user_layer_applies_under_e() -> None:
    """-E keeps the user layer (it is not an environment variable of Python's)."""
    _user_policy()
    assert _python("-E", code=HOOKED) == "_sslcustomize_startup"


def test_i_skips_the_user_layer() -> None:
    """-I skips the user layer, as Python skips the user's site directory."""
    _user_policy()
    assert _python("-I", code=HOOKED) == "ssl"
    layers = _python("-I", code="import _sslcustomize_startup as s; print(s.layer_paths())")
    assert "user" not in layers


def test_s_runs_without_the_hook() -> None:
    """-S skips site, so no .pth file and no hook (documented in docs/reach.md)."""
    _user_policy()
    assert _python("-S", code="import sys; print('_sslcustomize_startup' in sys.modules)") == (
        "False"
    )


# -- a system policy that exists but cannot be read (issue 10 item 7) ---------------------


def _in_namespace(script: str, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    """Run ``script`` (sh) in a private mount namespace with a throw-away overlay over /etc."""
    problem = namespace_problem()
    if problem:
        pytest.skip(problem)
    return run_in_overlays(["/etc"], tmp_path, [script], timeout=120)


def _configured_check() -> str:
    return f"{sys.executable} -c '{CONFIGURED}'"


def test_no_system_policy_is_not_configured(tmp_path: Path) -> None:
    """The twin: with /etc/sslcustomize absent, nothing is configured."""
    result = _in_namespace(f"rm -rf /etc/sslcustomize && {_configured_check()}", tmp_path)
    assert result.stdout.strip() == "False", result.stderr


def test_dangling_system_policy_symlink_is_configured(tmp_path: Path) -> None:
    """A dangling symlink at the system policy is a policy that exists: the hook stays on."""
    script = (
        "mkdir -p /etc/sslcustomize && ln -sf /nonexistent/policy.toml "
        f"/etc/sslcustomize/policy.toml && {_configured_check()}"
    )
    result = _in_namespace(script, tmp_path)
    assert result.stdout.strip() == "True", result.stderr


def test_unsearchable_system_policy_dir_is_configured(tmp_path: Path) -> None:
    """/etc/sslcustomize at 0700, seen by another user: the policy exists, the hook stays on."""
    if shutil.which("setpriv") is None or not os.path.isfile("/usr/bin/python3"):
        pytest.skip("needs setpriv and /usr/bin/python3 to run as another user")
    import _sslcustomize_startup

    # A copy of the startup module where user 65534 can read it (this venv may be under /root).
    readable = Path(tempfile.mkdtemp(prefix="sslcustomize-startup-", dir="/tmp"))
    try:
        readable.chmod(0o755)
        shutil.copy(_sslcustomize_startup.__file__, readable / "_sslcustomize_startup.py")
        (readable / "_sslcustomize_startup.py").chmod(0o644)
        # ... and its leaf, which it loads by path from beside it.
        from sslcustomize._support import _bootstrap

        leaf = readable / "sslcustomize" / "_support"
        leaf.mkdir(parents=True)
        shutil.copy(_bootstrap.__file__, leaf / "_bootstrap.py")
        for directory in (leaf, leaf.parent):
            directory.chmod(0o755)
        (leaf / "_bootstrap.py").chmod(0o644)
        check = (
            "setpriv --reuid=65534 --regid=65534 --clear-groups env HOME=/tmp "
            "XDG_CONFIG_HOME=/nonexistent /usr/bin/python3 -S -B -c "
            f"'import sys; sys.path.insert(0, \"{readable}\"); {CONFIGURED}'"
        )
        script = (
            "mkdir -p /etc/sslcustomize && echo 'version = 1' > /etc/sslcustomize/policy.toml"
            f" && chmod 0700 /etc/sslcustomize && {check}"
        )
        result = _in_namespace(script, tmp_path)
    finally:
        shutil.rmtree(readable)
    assert result.stdout.strip() == "True", result.stderr


SMTP_CLIENT = """
import smtplib, ssl, sys
try:
    with smtplib.SMTP_SSL("127.0.0.1", int(sys.argv[1]), timeout=20) as smtp:
        smtp.noop()
    print("accepted")
except ssl.SSLCertVerificationError:
    print("rejected")
"""


def _report_mode_user_and_client(tmp_path: Path) -> Path:
    """Write a report-mode user policy and the SMTP client script; return the script."""
    user = Path(os.environ["XDG_CONFIG_HOME"], "sslcustomize", "policy.toml")
    user.parent.mkdir(parents=True, exist_ok=True)
    user.write_text('version = 1\nmode = "report"\n')
    client = tmp_path / "client.py"
    client.write_text(SMTP_CLIENT)
    return client


def test_dangling_system_policy_fails_closed_over_a_report_mode_user_layer(
    tmp_path: Path, smtp_server: Any, pki: Any
) -> None:
    """An unreadable system policy means strict defaults: a user's report mode does not apply."""
    address = smtp_server(pki["self_signed"])
    client = _report_mode_user_and_client(tmp_path)
    script = (
        "mkdir -p /etc/sslcustomize && ln -sf /nonexistent/policy.toml "
        f"/etc/sslcustomize/policy.toml && {sys.executable} -W ignore {client} {address.port}"
    )
    result = _in_namespace(script, tmp_path / "ns")
    assert result.stdout.strip().splitlines()[-1:] == ["rejected"], result.stderr


def test_report_mode_user_layer_lets_the_connection_through(
    smtp_server: Any, pki: Any, tmp_path: Path
) -> None:
    """The twin: with no system policy at all, the user's report mode applies."""
    address = smtp_server(pki["self_signed"])
    client = _report_mode_user_and_client(tmp_path)
    script = f"rm -rf /etc/sslcustomize && {sys.executable} -W ignore {client} {address.port}"
    result = _in_namespace(script, tmp_path / "ns")
    assert result.stdout.strip().splitlines()[-1:] == ["accepted"], result.stderr
