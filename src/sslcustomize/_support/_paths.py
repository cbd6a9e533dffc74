"""Where sslcustomize keeps its files: policy layers, cache, report state.

The policy paths are computed by the stdlib-only leaf the startup module shares
(``_bootstrap``: it must not import platformdirs); the cache and state directories come from
platformdirs. The cache directory's rule lives in ``_files``, beside the caches it holds,
so that a hooked process's first context does not load this module.
"""

from __future__ import annotations

import os
import sys

from sslcustomize._support._bootstrap import (
    ENV_POLICY,
    SYSTEM_POLICY,
    layer_paths,
    process_policy_paths,
    user_config_dir,
)
from sslcustomize._support._files import APP, user_cache_dir, xdg_directory

__all__ = [
    "ENV_POLICY",
    "REPORT_SPOOL",
    "SYSTEM_POLICY",
    "layer_paths",
    "policy_path_for_scope",
    "pretty",
    "process_policy_paths",
    "unscoped_policy",
    "user_cache_dir",
    "user_config_dir",
    "user_state_dir",
]

#: The machine's report spool: root's, sticky, world-writable (``enable --scope system``
#: makes it). Each account keeps what its report sink cannot take now in its own 0700
#: directory there, named after its uid, where root's ``report`` reads it.
REPORT_SPOOL = "/var/spool/sslcustomize"


def user_state_dir() -> str:
    """Return the user state directory of sslcustomize (reports), as platformdirs does."""
    path = xdg_directory("XDG_STATE_HOME", "~/.local/state")
    if path is not None:
        return path
    import platformdirs  # noqa: PLC0415 # pragma: no cover - macOS and Windows

    return platformdirs.user_state_dir(APP, appauthor=False)  # pragma: no cover


def policy_path_for_scope(scope: str) -> str:
    """Return the policy file of a scope: ``system``, ``venv`` or ``user``.

    Raises:
        ValueError: ``venv`` was asked for outside a virtual environment, or the scope is unknown.
    """
    if scope == "venv" and sys.prefix == sys.base_prefix:
        raise ValueError(
            "this Python is not running in a virtual environment; use --scope user or system"
        )
    for layer, path in layer_paths():
        if layer == scope:
            return path
    if scope not in ("system", "venv", "user"):
        raise ValueError(f"unknown scope {scope!r}; use venv, user or system")
    raise AssertionError(scope)  # pragma: no cover - every scope is listed above


def default_scope() -> str:
    """Return ``venv`` inside a virtual environment, else ``user``."""
    return "venv" if sys.prefix != sys.base_prefix else "user"


def unscoped_policy() -> tuple[str, str]:
    """Return ``(layer, path)`` of the file that commands without ``--scope`` act on.

    ``enable``, ``disable`` and ``trust`` follow one rule for all three, the first that applies:

    1. ``SSLCUSTOMIZE_POLICY`` is set: the (last) file it names, the one this process reads
       last (layer ``process``);
    2. inside a virtual environment whose policy file exists: the venv's;
    3. the user's policy file exists: the user's;
    4. none exists: the venv's inside a virtual environment, else the user's.
    """
    process = process_policy_paths()
    if process:
        return "process", process[-1]
    paths = dict(layer_paths())
    for layer in ("venv", "user"):
        if layer in paths and os.path.exists(paths[layer]):
            return layer, paths[layer]
    layer = default_scope()
    return layer, paths[layer]


def pretty(path: str) -> str:
    """Return ``path`` with the home directory shown as ``~``."""
    home = os.path.expanduser("~")
    return "~" + path[len(home) :] if path.startswith(home + os.sep) else path
