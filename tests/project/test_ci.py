"""The CI's own tools: the Debian chroots of ``.ci/chroot.py`` and the noxfile's interpreters."""

from __future__ import annotations

import importlib.util
import os
import shlex
import shutil
import sys
import types
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _load(path: Path, name: str) -> types.ModuleType:
    """Import a script that is not in a package (``.ci/chroot.py``, ``noxfile.py``)."""
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


chroot: Any = _load(ROOT / ".ci" / "chroot.py", "ci_chroot")


def test_host_mirror_is_read_from_either_sources_format(tmp_path: Path) -> None:
    """The Debian mirror comes from deb822 or one-line sources; security and others are not it."""
    (tmp_path / "sources.list.d").mkdir()
    assert chroot.host_mirror(tmp_path) == "http://deb.debian.org/debian"  # nothing configured
    (tmp_path / "sources.list.d" / "debian.sources").write_text(
        "Types: deb\nURIs: http://mirror.example/debian-security\nSuites: bookworm-security\n\n"
        "Types: deb\nURIs: http://mirror.example/debian/\nSuites: bookworm\n"
    )
    assert chroot.host_mirror(tmp_path) == "http://mirror.example/debian"
    (tmp_path / "sources.list.d" / "debian.sources").unlink()
    (tmp_path / "sources.list").write_text(
        "deb [arch=amd64] http://other.example/debian sid main\n"
    )
    assert chroot.host_mirror(tmp_path) == "http://other.example/debian"


def test_namespace_script_mounts_only_inside_the_chroot() -> None:
    """Every mount of a chroot command lands under the chroot's root, in its own namespace."""
    root = Path("/var/cache/x/sid")
    script = chroot.namespace_script(root, [("/work/wt/a b", False), ("/opt/wheels", True)], ["id"])
    mounts = [line for line in script.splitlines() if "mount " in line]
    targets = [shlex.split(line.split("&&")[-1])[-1] for line in mounts]
    assert targets, script
    assert all(target.startswith(f"{root}/") or target == str(root) for target in targets)
    assert f"mount --bind {root} {root}" in script  # "/" a mount point: unshare -m works inside
    assert "mount -o remount,bind,ro /var/cache/x/sid/opt/wheels" in script
    assert "mount -o remount,bind,ro '/var/cache/x/sid/work/wt/a b'" not in script
    assert script.splitlines()[-1] == "exec chroot /var/cache/x/sid id"


def test_recipe_digest_follows_the_recipe_and_mirror() -> None:
    """A changed package list or mirror makes another digest, so the chroot is rebuilt."""
    sid = chroot.RECIPES["sid"]
    same = type(sid)(suite=sid.suite, packages=sid.packages, pythons=sid.pythons)
    more = type(sid)(suite=sid.suite, packages=(*sid.packages, "curl"), pythons=sid.pythons)
    assert same.digest("http://m/debian") == sid.digest("http://m/debian")
    assert more.digest("http://m/debian") != sid.digest("http://m/debian")
    assert sid.digest("http://n/debian") != sid.digest("http://m/debian")


@pytest.mark.skipif(sys.version_info < (3, 11), reason="--without reads pyproject with tomllib")
def test_requirements_without_leave_out_only_the_named_one() -> None:
    """--without drops the named requirement of .[test] (any spelling) and keeps the rest."""
    every = chroot.requirements_without(ROOT, ())
    kept = chroot.requirements_without(ROOT, ("Pytest",))
    assert "pytest>=8" in every
    assert [r for r in every if r != "pytest>=8"] == kept


def _fake_nox() -> types.ModuleType:
    """Return a stand-in for nox whose decorators return the function: enough to load the file."""
    fake = types.ModuleType("nox")

    def decorator(*_args: object, **_kwargs: object) -> Any:
        return lambda function: function

    fake.session = decorator  # type: ignore[attr-defined]
    fake.parametrize = decorator  # type: ignore[attr-defined]
    fake.options = types.SimpleNamespace()  # type: ignore[attr-defined]
    fake.Session = object  # type: ignore[attr-defined]
    return fake


def _executable(path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("#!/bin/sh\n")
    path.chmod(0o755)


def test_noxfile_finds_pyenv_interpreters_behind_shims(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Where only pyenv's shim answers to python3.10, the newest 3.10.Z's bin goes on PATH."""
    pyenv = tmp_path / "pyenv"
    for name in ("python3.10", "python3.11", "python3.13"):
        _executable(pyenv / "shims" / name)
    for version in ("3.10.2", "3.10.13", "3.11.7"):
        _executable(pyenv / "versions" / version / "bin" / f"python{version[:4]}")
    _executable(pyenv / "versions" / "3.10.14t" / "bin" / "python3.10")  # another build
    _executable(tmp_path / "usr" / "bin" / "python3.12")  # a real one on PATH stays first
    path = os.pathsep.join([str(pyenv / "shims"), str(tmp_path / "usr" / "bin")])
    monkeypatch.setenv("PYENV_ROOT", str(pyenv))
    monkeypatch.setenv("PATH", path)
    monkeypatch.setitem(sys.modules, "nox", _fake_nox())
    monkeypatch.setitem(sys.modules, "ci_noxfile", None)  # restored (removed) afterwards
    _load(ROOT / "noxfile.py", "ci_noxfile")
    assert shutil.which("python3.10") == str(pyenv / "versions/3.10.13/bin/python3.10")
    assert shutil.which("python3.11") == str(pyenv / "versions/3.11.7/bin/python3.11")
    assert shutil.which("python3.12") == str(tmp_path / "usr/bin/python3.12")
    assert shutil.which("python3.13") == str(pyenv / "shims/python3.13")  # none installed


def test_readme_and_session_docs_say_what_is_quick_and_what_needs_root() -> None:
    """`nox -l` (the sessions' first docstring lines) and the README say how long and who."""
    import ast

    tree = ast.parse((ROOT / "noxfile.py").read_text(encoding="utf-8"))
    first_lines = {
        node.name: (ast.get_docstring(node) or "").splitlines()[0]
        for node in tree.body
        if isinstance(node, ast.FunctionDef)
    }
    assert "quick" in first_lines["lint"]
    assert "quick" in first_lines["fast"]
    assert "quick: ``fast``" in first_lines["tests"]
    for session in ("debian", "debian_cpython"):
        assert "root" in first_lines[session]
        assert "debootstrap" in first_lines[session]
    assert "about 40 minutes" in (ast.get_docstring(tree) or "")
    readme = " ".join((ROOT / "README.md").read_text(encoding="utf-8").split())
    assert "The whole run takes about 40 minutes" in readme
    assert "nox -s fast" in readme
    assert "with `debootstrap` installed (the `debian` and `debian_cpython` sessions" in readme
