"""Find the Python files under the paths given on the command line.

Paths stay ``str`` and go through ``os.path``: on trees of thousands of files, ``pathlib``
objects cost more than the pre-filter that follows.
"""

from __future__ import annotations

import os
from collections.abc import Iterable

__all__ = ["discover"]

_SKIP_DIRS = frozenset({"__pycache__", "node_modules"})


def discover(paths: Iterable[str]) -> tuple[list[str], list[str]]:
    """Expand files and directories into the sorted list of Python files to lint.

    A file named explicitly is linted whatever its suffix; in a directory, ``*.py`` and
    ``*.pyi`` files are, except under hidden directories and ``__pycache__``.

    Args:
        paths: Files and directories.

    Returns:
        The files to lint, and the paths that do not exist.
    """
    files: list[str] = []
    missing: list[str] = []
    for path in paths:
        if os.path.isfile(path):
            files.append(path)
        elif os.path.isdir(path):
            for root, dirs, names in os.walk(path):
                dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in _SKIP_DIRS)
                files.extend(
                    os.path.join(root, name)
                    for name in sorted(names)
                    if name.endswith((".py", ".pyi"))
                )
        else:
            missing.append(path)
    return files, missing
