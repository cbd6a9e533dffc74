"""Root starts no interpreter that another user could have planted or changed (issue 32 #3).

As root with another user's ``HOME`` (``sudo`` keeping it, ``sudo -E``, ``su`` without ``-``),
discovery searches that user's pyenv and uv directories. Each attack plants a ``python3`` that
would create a marker file; the marker must never appear, and the candidate is listed with the
reason it was skipped. Each twin is the same layout owned by root: found and run.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from sslcustomize._cli import main
from sslcustomize._reach._discovery import Interpreter, discover, unsafe_for_root

pytestmark = pytest.mark.skipif(
    sys.platform != "linux" or os.geteuid() != 0, reason="needs root to hand files to uid 4242"
)

OTHER = 4242
# Where each variable (or HOME alone) makes discovery look, relative to the directory it names.
PLACES = {
    "HOME pyenv": ("HOME", ".pyenv/versions/3.99.0/bin/python3"),
    "HOME uv": ("HOME", ".local/share/uv/python/cpython-3.99.0/bin/python3"),
    "PYENV_ROOT": ("PYENV_ROOT", "versions/3.99.0/bin/python3"),
    "UV_PYTHON_INSTALL_DIR": ("UV_PYTHON_INSTALL_DIR", "cpython-3.99.0/bin/python3"),
    "XDG_DATA_HOME": ("XDG_DATA_HOME", "uv/python/cpython-3.99.0/bin/python3"),
}


def _plant(path: Path, marker: Path, *, then_python: bool = False) -> None:
    """Write an executable ``python3`` script that creates ``marker`` (then runs Python)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tail = f'exec {sys.executable} "$@"\n' if then_python else "exit 0\n"
    # A shell builtin: the tests empty PATH, and an unfound `touch` would make them vacuous.
    path.write_text(f"#!/bin/sh\necho ran > {marker}\n{tail}")
    path.chmod(0o755)


def _chown_tree(top: Path, uid: int) -> None:
    """Hand ``top`` and everything below it to ``uid``, as that user's own files are."""
    for directory, names, files in os.walk(top):
        os.chown(directory, uid, uid)
        for name in [*names, *files]:
            os.lchown(os.path.join(directory, name), uid, uid)


@pytest.fixture
def foreign(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Callable[[str], tuple[Path, Path]]:
    """Point the variable of a place at a fresh directory; return (its top, the python3 path)."""

    def point(place: str) -> tuple[Path, Path]:
        variable, below = PLACES[place]
        top = tmp_path / "someone"
        for name in ("HOME", "PYENV_ROOT", "UV_PYTHON_INSTALL_DIR", "XDG_DATA_HOME"):
            monkeypatch.delenv(name, raising=False)
        monkeypatch.setenv("HOME", str(tmp_path / "nohome"))
        monkeypatch.setenv(variable, str(top))
        monkeypatch.setenv("PATH", "")
        return top, top / below

    return point


def _rows(found: list[Interpreter]) -> dict[str, str]:
    """Map every name of every interpreter found to its error (why it was not run)."""
    return {name: interpreter.error for interpreter in found for name in interpreter.names}


@pytest.mark.parametrize("place", sorted(PLACES))
def test_another_users_python_is_not_run_by_root(
    place: str, foreign: Callable[[str], tuple[Path, Path]], tmp_path: Path
) -> None:
    """A python3 owned by uid 4242 in any searched place is listed as skipped, never run."""
    top, planted = foreign(place)
    marker = tmp_path / "ran-as-root"
    _plant(planted, marker)
    _chown_tree(top, OTHER)
    errors = _rows(discover())
    assert not marker.exists()
    assert f"belongs to uid {OTHER}" in errors[str(planted)]
    assert errors[str(planted)].startswith("not run:")


@pytest.mark.parametrize("place", sorted(PLACES))
def test_root_owned_python_in_a_root_owned_tree_is_run(
    place: str, foreign: Callable[[str], tuple[Path, Path]], tmp_path: Path
) -> None:
    """The twin: the same layout owned by root is found, run, and probed as an interpreter."""
    _, planted = foreign(place)
    marker = tmp_path / "ran-as-root"
    _plant(planted, marker, then_python=True)
    errors = _rows(discover())
    assert marker.exists()
    assert errors[str(planted)] == ""


@pytest.mark.parametrize(
    "shape",
    [
        "file writable by others",
        "file writable by its group",
        "directory of another user",
        "directory writable by others",
        "root's link to another user's file",
        "another user's link to root's file",
    ],
)
def test_what_another_user_could_change_is_refused(shape: str, tmp_path: Path) -> None:
    """Root's own file is refused too when another user could replace or rewrite it."""
    bin_dir = tmp_path / "tree" / "bin"
    real = tmp_path / "tree" / "real" / "python3"
    _plant(real, tmp_path / "marker")
    bin_dir.mkdir()
    python = bin_dir / "python3"
    python.symlink_to(real)
    if shape == "file writable by others":
        real.chmod(0o757)
    elif shape == "file writable by its group":
        real.chmod(0o775)
    elif shape == "directory of another user":
        os.chown(bin_dir, OTHER, OTHER)
    elif shape == "directory writable by others":
        real.parent.chmod(0o777)
    elif shape == "root's link to another user's file":
        os.chown(real, OTHER, OTHER)
    else:
        os.lchown(python, OTHER, OTHER)
    assert unsafe_for_root(str(python))


def test_root_alone_and_a_sticky_directory_on_the_way_pass(tmp_path: Path) -> None:
    """The twin: root's file behind root's links passes, even below a sticky /tmp-like dir."""
    sticky = tmp_path / "sticky"
    sticky.mkdir()
    sticky.chmod(0o1777)
    real = sticky / "tree" / "python3.99"
    _plant(real, tmp_path / "marker")
    (real.parent / "python3").symlink_to("python3.99")
    link = tmp_path / "link"
    link.symlink_to(real.parent)
    assert unsafe_for_root(str(link / "python3")) == ""
    sticky_file = sticky / "python3"
    _plant(sticky_file, tmp_path / "marker")
    assert unsafe_for_root(str(sticky_file)) == ""
    sticky.chmod(0o777)  # without the sticky bit another user may rename what root owns
    assert "writable by others" in unsafe_for_root(str(sticky_file))


def test_doctor_as_root_lists_the_skip_and_runs_nothing(
    foreign: Callable[[str], tuple[Path, Path]],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """`doctor --json` as root with another user's HOME says why it skipped their python3."""
    top, planted = foreign("HOME pyenv")
    marker = tmp_path / "ran-as-root"
    _plant(planted, marker)
    _chown_tree(top, OTHER)
    main(["doctor", "--json"])
    rows = json.loads(capsys.readouterr().out)["interpreters"]
    assert not marker.exists()
    (row,) = [r for r in rows if r["path"] == str(planted)]
    assert not row["covered"]
    assert "not run:" in row["reason"]
    assert f"uid {OTHER}" in row["reason"]
