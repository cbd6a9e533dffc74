"""The real-code corpus on the mirrors that are present (issue 36); skipped without them."""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
import types
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "bench" / "realcode.py"
LABELS = ROOT / "tests" / "lint" / "realcode" / "labels"
MIRRORS = os.environ.get("SSLCUSTOMIZE_REALCODE_MIRRORS", "")
GIT = shutil.which("git")


def _load(path: Path, name: str) -> types.ModuleType:
    """Import a script that is not in a package."""
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


realcode: Any = _load(SCRIPT, "bench_realcode_project")


def _present() -> list[tuple[str, Path, str, list[tuple[str, int]]]]:
    """Return (project, git dir, commit, labelled lines) of each project whose mirror is here."""
    found = []
    for project in realcode.load_projects(LABELS):
        mirror = realcode.find_mirror(Path(MIRRORS), project) if MIRRORS and GIT else None
        if mirror is not None:
            lines = sorted({line for site in project.sites for line in site.lines})
            found.append((project.name, mirror, project.commit, lines))
    return found


PRESENT = _present()
needs_mirrors = pytest.mark.skipif(
    not PRESENT,
    reason="no mirror of a labelled project: set SSLCUSTOMIZE_REALCODE_MIRRORS to a directory"
    " holding <owner>+<name>/repo git directories (bench/realcode.py fetches nothing)",
)


@needs_mirrors
@pytest.mark.parametrize(
    ("name", "git_dir", "commit", "lines"), PRESENT, ids=[p[0] for p in PRESENT]
)
def test_every_labelled_line_exists_at_the_pinned_commit(
    name: str, git_dir: Path, commit: str, lines: list[tuple[str, int]]
) -> None:
    """Labels are against the commit: each labelled line is a non-blank line of its file there."""
    texts: dict[str, list[str]] = {}
    for path, line in lines:
        if path not in texts:
            texts[path] = subprocess.run(
                [str(GIT), "-C", str(git_dir), "show", f"{commit}:{path}"],
                capture_output=True,
                text=True,
                check=True,
            ).stdout.splitlines()
        assert line <= len(texts[path]), f"{name}: {path}:{line} past the end"
        assert texts[path][line - 1].strip(), f"{name}: {path}:{line} is blank"


@needs_mirrors
@pytest.mark.slow
def test_scoring_runs_on_every_present_project() -> None:
    """The script scores this linter on each present project and prints every set's totals."""
    proc = subprocess.run(
        [sys.executable, str(SCRIPT), "--mirrors", MIRRORS, "--tools", "sslcustomize,ruff"],
        capture_output=True,
        text=True,
        check=False,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr
    rows = {line.split()[0] for line in proc.stdout.splitlines() if line.strip()}
    assert {name for name, *_ in PRESENT} <= rows
    for subset in ("== tuning", "== held-out (seen)", "== held-out (fresh)", "== all"):
        assert subset in proc.stdout
    assert "sslcustomize  recall a " in proc.stdout
    assert "x ruff)" in proc.stdout
