"""Install and undo on a standard-library directory made in a temporary directory."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from _fixtures import installed_with_hook
from sslcustomize._cli import main
from sslcustomize._reach import _install
from sslcustomize._reach._discovery import Interpreter, candidates, probe


def _fake(tmp_path: Path) -> Interpreter:
    stdlib = tmp_path / "lib" / "python3.x"
    (stdlib / "__pycache__").mkdir(parents=True)
    return Interpreter(
        path=sys.executable,
        names=(sys.executable,),
        implementation="cpython",
        version=(3, 12, 0),
        stdlib=str(stdlib),
    )


def _state(directory: Path) -> dict[str, tuple[int, bytes]]:
    return {
        str(p): (p.lstat().st_mode, p.read_bytes() if p.is_file() else b"")
        for p in sorted(directory.rglob("*"))
    }


def test_install_then_uninstall_restores_a_displaced_file(tmp_path: Path) -> None:
    """A regular sitecustomize.py is displaced, chained from a copy, and restored exactly."""
    interpreter = _fake(tmp_path / "py")
    original = Path(interpreter.stdlib, "sitecustomize.py")
    original.write_text("import sys\nsys.displaced_ran = True\n")
    original.chmod(0o640)
    before = _state(tmp_path / "py")
    root = str(tmp_path / "root")
    result = _install.install([interpreter], root=root, scope="system")
    assert result.hooked == (interpreter,)
    assert original.read_text().startswith(_install.MARKER)
    assert _state(tmp_path / "py") != before
    _install.uninstall(root)
    assert _state(tmp_path / "py") == before
    assert not Path(root).exists()


def test_install_twice_changes_nothing(tmp_path: Path) -> None:
    """A second install reports no change and writes no byte."""
    interpreter = _fake(tmp_path / "py")
    root = str(tmp_path / "root")
    assert _install.install([interpreter], root=root, scope="system").changed
    state = _state(tmp_path)
    assert _install.install([interpreter], root=root, scope="system").changed == ()
    assert _state(tmp_path) == state


def test_the_report_spool_is_made_sticky_and_removed_unless_records_wait(tmp_path: Path) -> None:
    """install makes the spool root's 1733; uninstall removes it, or keeps what holds records."""
    interpreter = _fake(tmp_path / "py")
    root, spool = str(tmp_path / "root"), tmp_path / "spool"
    assert (
        str(spool)
        in _install.install([interpreter], root=root, scope="system", spool=str(spool)).changed
    )
    assert oct(spool.stat().st_mode & 0o7777) == "0o1733"
    (spool / "4242").mkdir(mode=0o700)  # an account that never had to spool anything
    _install.uninstall(root)
    assert not spool.exists()
    # Twin: an account's records still wait there: they, and the spool, stay.
    _install.install([interpreter], root=root, scope="system", spool=str(spool))
    (spool / "4343").mkdir(mode=0o700)
    (spool / "4343" / "journal-spool.jsonl").write_text("{}\n")
    _install.uninstall(root)
    assert (spool / "4343" / "journal-spool.jsonl").exists()


def test_hooked_sitecustomize_runs_the_displaced_one(tmp_path: Path) -> None:
    """The hook file, run as sitecustomize, chains to the file it displaced."""
    interpreter = _fake(tmp_path / "py")
    Path(interpreter.stdlib, "sitecustomize.py").write_text("import sys\nsys.chained = 1\n")
    _install.install([interpreter], root=str(tmp_path / "root"), scope="system")
    code = (
        f"import sys; sys.path.insert(0, {interpreter.stdlib!r}); import sitecustomize; "
        "print(getattr(sys, 'chained', 0))"
    )
    out = subprocess.run(
        [sys.executable, "-S", "-c", code], capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == "1", out.stderr


@pytest.mark.skipif(
    os.path.lexists("/etc/sslcustomize/policy.toml"), reason="this machine has a system policy"
)
def test_hook_without_a_policy_does_not_look_for_the_startup_module(tmp_path: Path) -> None:
    """No policy: the hook's own check says so, and the startup module is never imported.

    Twin: with SSLCUSTOMIZE_POLICY set, the same hook imports it from the private runtime.
    """
    interpreter = _fake(tmp_path / "py")
    _install.install([interpreter], root=str(tmp_path / "root"), scope="system")
    code = (
        f"import sys; sys.path.insert(0, {interpreter.stdlib!r}); import sitecustomize; "
        "print('_sslcustomize_startup' in sys.modules)"
    )
    policy = tmp_path / "policy.toml"
    policy.write_text("version = 1\n")
    clean = {k: v for k, v in os.environ.items() if k != "SSLCUSTOMIZE_POLICY"}
    clean["XDG_CONFIG_HOME"] = str(tmp_path / "no-config")
    configured = {**clean, "SSLCUSTOMIZE_POLICY": str(policy)}
    for env, expected in ((clean, "False"), (configured, "True")):
        out = subprocess.run(
            [sys.executable, "-S", "-c", code], capture_output=True, text=True, check=True, env=env
        )
        assert out.stdout.strip() == expected, out.stderr


def test_edited_policy_is_kept_by_uninstall(tmp_path: Path) -> None:
    """A policy written by enable and edited since survives the undo; an unchanged one goes."""
    root = str(tmp_path / "root")
    os.makedirs(root)
    policy = tmp_path / "etc" / "policy.toml"
    policy.parent.mkdir()
    policy.write_text("version = 1\n")
    _install.record_policy(root, str(policy), b"version = 1\n", [str(policy.parent)])
    policy.write_text("version = 1\nmode = 'report'\n")
    _install.uninstall(root)
    assert policy.exists()
    _install.record_policy(root, str(policy), policy.read_bytes(), [str(policy.parent)])
    _install.uninstall(root)
    assert not policy.parent.exists()


def test_ineligible_interpreters_are_skipped_with_a_reason(tmp_path: Path) -> None:
    """Python 3.9 is not hooked, and the reason says why."""
    old = Interpreter(path="/x/python3", implementation="cpython", version=(3, 9, 18))
    result = _install.install([old], root=str(tmp_path / "root"), scope="system")
    assert result.hooked == ()
    assert result.skipped == ((old, "Python 3.9.18 is older than 3.10"),)


def test_user_scope_as_root_hooks_nothing(capsys: pytest.CaptureFixture[str]) -> None:
    """As root, enable --scope user writes the user policy and hooks no interpreter."""
    if os.geteuid() != 0:
        pytest.skip("checks root's behaviour")
    assert main(["enable", "--scope", "user"]) == 0
    assert "hooks no interpreter" in capsys.readouterr().out


def test_probe_reports_this_interpreter() -> None:
    """probe() gets version, stdlib and the startup module of a real interpreter."""
    if not installed_with_hook():
        pytest.skip("the interpreter's own install is a wheel's: nox -s tests, not fast")
    found = probe(sys.executable)
    assert found.version[:2] == sys.version_info[:2]
    assert found.eligible
    assert found.covered_by() == "own install"


def test_probe_of_a_non_interpreter_says_why(tmp_path: Path) -> None:
    """A file that is not a Python is reported with an error, not covered."""
    fake = tmp_path / "python3"
    fake.write_text("#!/bin/sh\necho nope\n")
    fake.chmod(0o755)
    found = probe(str(fake))
    assert not found.eligible
    assert "probe failed" in found.reason()


def test_candidates_include_named_and_skip_shims(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """--python paths are candidates; pyenv's shims directory is not searched."""
    shims = tmp_path / "shims"
    shims.mkdir()
    (shims / "python3").write_text("#!/bin/sh\n")
    (shims / "python3").chmod(0o755)
    monkeypatch.setenv("PATH", str(shims))
    found = candidates([sys.executable])
    assert str(shims / "python3") not in found
    assert os.path.abspath(sys.executable) in found


def test_a_pyenv_python2_is_a_candidate_by_its_python(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """pyenv's 2.7 (no python3) is found by its ``python``; a Python 3's ``python`` is not."""
    for version, names in (("2.7.18", ["python", "python2"]), ("3.12.1", ["python", "python3"])):
        bin_dir = tmp_path / "versions" / version / "bin"
        bin_dir.mkdir(parents=True)
        for name in names:
            (bin_dir / name).write_text("#!/bin/sh\n")
            (bin_dir / name).chmod(0o755)
    monkeypatch.setenv("PYENV_ROOT", str(tmp_path))
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    found = candidates()
    assert str(tmp_path / "versions" / "2.7.18" / "bin" / "python") in found
    assert str(tmp_path / "versions" / "3.12.1" / "bin" / "python3") in found
    assert str(tmp_path / "versions" / "3.12.1" / "bin" / "python") not in found


def test_runtime_is_readable_by_everyone_despite_the_umask(tmp_path: Path) -> None:
    """Installed under umask 077, the runtime's files and directories are still world-readable."""
    interpreter = _fake(tmp_path / "py")
    root = tmp_path / "root"
    previous = os.umask(0o077)
    try:
        _install.install([interpreter], root=str(root), scope="system")
    finally:
        os.umask(previous)
    modes = {p.stat().st_mode & 0o777 for p in root.rglob("*") if p.name != "manifest.json"}
    assert modes <= {0o755, 0o644}, sorted(oct(m) for m in modes)
    assert (root.stat().st_mode & 0o755) == 0o755
