"""``[tool.sslcustomize.lint]`` in ``pyproject.toml``, and which paths are tests or excluded.

Keys (all optional)::

    [tool.sslcustomize.lint]
    select = ["SSC1", "SSC2"]          # only these codes or prefixes
    ignore = ["SSC105"]                # never these
    exclude = ["legacy/", "*_pb2.py"]  # more paths to skip (the defaults stay)
    tests = "note"                     # "note" (default), "exclude" or "report"
    [tool.sslcustomize.lint.per-file-ignores]
    "scripts/*" = ["SSC4"]

A pattern without ``/`` matches any path component (``build``, ``*_pb2.py``); one with ``/``
matches the path relative to the directory of ``pyproject.toml`` (``*`` crosses ``/``), and a
trailing ``/`` names a directory and everything under it.
"""

from __future__ import annotations

import os
import re
import sys
from dataclasses import dataclass, field
from fnmatch import fnmatchcase

TYPE_CHECKING = False  # not typing's: the lint command does not import typing
if TYPE_CHECKING:
    from typing import Any

__all__ = [
    "DEFAULT_EXCLUDES",
    "TEST_MODES",
    "ConfigError",
    "LintConfig",
    "find_config",
    "is_test_path",
    "matches",
]

# Directories that hold other people's code or build output (hidden ones are skipped anyway).
DEFAULT_EXCLUDES = (
    "__pycache__",
    "__pypackages__",
    "_build",
    "buck-out",
    "build",
    "dist",
    "node_modules",
    "site-packages",
    "venv",
)
TEST_MODES = ("note", "exclude", "report")
_TEST_DIRS = frozenset({"test", "tests", "testing"})


class ConfigError(ValueError):
    """The configuration table has a key or value of the wrong kind (a usage error)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class LintConfig:
    """The settings of one run, from ``pyproject.toml`` and the command line."""

    root: str = "."
    select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    exclude: tuple[str, ...] = DEFAULT_EXCLUDES
    per_file_ignores: dict[str, tuple[str, ...]] = field(default_factory=dict)
    tests: str = "note"
    source: str | None = None  # the pyproject.toml read, if any


def _strings(table: dict[str, Any], key: str) -> tuple[str, ...]:
    value = table.get(key, [])
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        msg = f"[tool.sslcustomize.lint] {key} must be a list of strings"
        raise ConfigError(msg)
    return tuple(value)


# ``sslcustomize`` used as a key or table name (``[tool.sslcustomize.lint]``,
# ``[tool."sslcustomize"]``, ``sslcustomize.lint = {...}``, ``sslcustomize = {...}``), not
# only named in a value (``dependencies = ["sslcustomize>=0.2"]``): importing tomllib and
# parsing takes 7-10 ms.
_NAMES_TABLE = re.compile(rb"sslcustomize['\"]?[ \t]*[.\]=]")


def _load(path: str) -> dict[str, Any] | None:
    with open(path, "rb") as handle:
        data = handle.read()
    if _NAMES_TABLE.search(data) is None:
        return None  # no key or table named sslcustomize: tomllib is not even imported
    if sys.version_info >= (3, 11):
        import tomllib  # noqa: PLC0415 - only when a pyproject.toml names the table
    else:  # pragma: no cover - Python 3.10
        import tomli as tomllib  # noqa: PLC0415
    try:
        parsed = tomllib.loads(data.decode("utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        msg = f"{path}: {exc}"
        raise ConfigError(msg) from exc
    table = parsed.get("tool", {}).get("sslcustomize", {}).get("lint")
    return table if isinstance(table, dict) else None


def find_config(start: str) -> LintConfig:
    """Read the nearest ``pyproject.toml`` with a ``[tool.sslcustomize.lint]`` table.

    Args:
        start: The directory to search from, upwards.

    Returns:
        The settings; the defaults (rooted at ``start``) when no table is found.

    Raises:
        ConfigError: The table has a key or value of the wrong kind.
    """
    directory = os.path.abspath(start)
    while True:
        candidate = os.path.join(directory, "pyproject.toml")
        if os.path.isfile(candidate):
            table = _load(candidate)
            if table is not None:
                return _from_table(table, directory, candidate)
        parent = os.path.dirname(directory)
        if parent == directory:
            return LintConfig(root=os.path.abspath(start))
        directory = parent


def _from_table(table: dict[str, Any], root: str, source: str) -> LintConfig:
    known = {"select", "ignore", "exclude", "extend-exclude", "per-file-ignores", "tests"}
    unknown = sorted(set(table) - known)
    if unknown:
        msg = f"[tool.sslcustomize.lint] unknown key {unknown[0]!r}; known: {sorted(known)}"
        raise ConfigError(msg)
    tests = table.get("tests", "note")
    if tests not in TEST_MODES:
        msg = f"[tool.sslcustomize.lint] tests must be one of {', '.join(TEST_MODES)}"
        raise ConfigError(msg)
    ignores = table.get("per-file-ignores", {})
    if not isinstance(ignores, dict):
        msg = "[tool.sslcustomize.lint] per-file-ignores must be a table"
        raise ConfigError(msg)
    return LintConfig(
        root=root,
        select=_strings(table, "select"),
        ignore=_strings(table, "ignore"),
        exclude=(DEFAULT_EXCLUDES + _strings(table, "exclude") + _strings(table, "extend-exclude")),
        per_file_ignores={k: _strings(ignores, k) for k in ignores},
        tests=tests,
        source=source,
    )


def matches(path: str, patterns: tuple[str, ...], root: str) -> bool:
    """Tell whether a path matches one of the patterns (see the module docstring)."""
    if not patterns:
        return False
    rel = os.path.relpath(os.path.abspath(path), root).replace(os.sep, "/")
    parts = rel.split("/")
    for pattern in patterns:
        if "/" not in pattern.rstrip("/"):
            name = pattern.rstrip("/")
            if any(fnmatchcase(part, name) for part in parts):
                return True
        elif pattern.endswith("/"):
            if fnmatchcase(rel, pattern + "*") or fnmatchcase(rel + "/", pattern):
                return True
        elif fnmatchcase(rel, pattern):
            return True
    return False


def is_test_path(path: str) -> bool:
    """Tell whether a file is a test: under ``tests``/``test``/``testing``, or ``test_*.py``."""
    parts = path.replace(os.sep, "/").split("/")
    name = parts[-1]
    return (
        any(part in _TEST_DIRS for part in parts[:-1])
        or name.startswith("test_")
        or name.endswith(("_test.py", "_tests.py"))
        or name == "conftest.py"
    )
