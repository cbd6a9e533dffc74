"""Find the Python files under the paths given on the command line.

Paths stay ``str`` and go through ``os.path``: on trees of thousands of files, ``pathlib``
objects cost more than the pre-filter that follows.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable
from fnmatch import translate
from operator import attrgetter

from sslcustomize_lint._config import is_test_path, matches

__all__ = ["discover"]

_NAME = attrgetter("name")  # a DirEntry's name, to sort by


def discover(
    paths: Iterable[str],
    *,
    exclude: tuple[str, ...] = ("__pycache__", "node_modules"),
    root: str = ".",
    skip_tests: bool = False,
) -> tuple[list[str], list[str]]:
    """Expand files and directories into the sorted list of Python files to lint.

    A file named explicitly is linted whatever its suffix, and a directory named explicitly is
    walked even if it matches an exclude pattern; below it, ``*.py`` and ``*.pyi`` files are
    linted, except under hidden directories and paths matching ``exclude`` (see
    ``_config.matches``).

    Args:
        paths: Files and directories.
        exclude: Patterns of paths to skip while walking.
        root: The directory that patterns with ``/`` are relative to.
        skip_tests: Skip test files and directories too.

    Returns:
        The files to lint, and the paths that do not exist.
    """
    skipped = _skip_test(exclude, os.path.abspath(root))
    files: list[str] = []
    missing: list[str] = []
    for path in paths:
        if os.path.isfile(path):
            files.append(path)
        elif os.path.isdir(path):
            _walk(path, skipped, files)
        else:
            missing.append(path)
    if skip_tests:
        files = [f for f in files if not is_test_path(f)]
    return files, missing


def _skip_test(exclude: tuple[str, ...], root: str) -> Callable[[str, str], bool]:
    """Return the test of a walked path (and its name) against the exclude patterns."""
    names = [p.rstrip("/") for p in exclude if "/" not in p.rstrip("/")]
    exact = frozenset(n for n in names if not any(c in n for c in "*?["))
    wild = re.compile("|".join(translate(n) for n in names if n not in exact) or "(?!)")
    nested = tuple(p for p in exclude if "/" in p.rstrip("/"))

    def skipped(path: str, name: str) -> bool:
        if name.startswith(".") or name in exact or wild.match(name):
            return True
        return bool(nested) and matches(path, nested, root)

    return skipped


def _walk(top: str, skipped: Callable[[str, str], bool], files: list[str]) -> None:
    """Add the Python files under ``top`` to ``files``, as ``os.walk`` would find them.

    Its order (a directory's files by name, then its subdirectories by name, depth first),
    without following links to directories and passing over what cannot be read. Half the
    time of ``os.walk``, which makes a list of names per directory and tests each for a link.
    """
    try:
        with os.scandir(top) as scan:
            entries = list(scan)
    except OSError:
        return
    directories = []
    sources = []
    for entry in entries:
        try:
            is_directory = entry.is_dir()
        except OSError:
            is_directory = False
        if is_directory:
            directories.append(entry)
        elif entry.name.endswith((".py", ".pyi")):
            sources.append(entry)
    files.extend(
        entry.path for entry in sorted(sources, key=_NAME) if not skipped(entry.path, entry.name)
    )
    for entry in sorted(directories, key=_NAME):
        if not skipped(entry.path, entry.name) and not entry.is_symlink():
            _walk(entry.path, skipped, files)
