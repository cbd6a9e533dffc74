"""Where sslcustomize keeps its files: policy layers, cache, report state.

The policy paths are computed by the stdlib-only startup module (it must not import
platformdirs); the cache and state directories come from platformdirs.
"""

from __future__ import annotations

import os
import sys

from _sslcustomize_startup import (
    ENV_POLICY,
    SYSTEM_POLICY,
    layer_paths,
    process_policy_paths,
    user_config_dir,
)

__all__ = [
    "ENV_POLICY",
    "SYSTEM_POLICY",
    "layer_paths",
    "policy_path_for_scope",
    "process_policy_paths",
    "user_cache_dir",
    "user_config_dir",
    "user_state_dir",
]

APP = "sslcustomize"


def _xdg(variable: str, default: str) -> str | None:
    """Return ``$variable`` or ``~/default`` on Linux and BSD; ``None`` elsewhere."""
    if sys.platform in ("win32", "darwin"):
        return None
    configured = os.environ.get(variable, "").strip()
    return os.path.join(configured or os.path.expanduser(default), APP)


def user_cache_dir() -> str:
    """Return the user cache directory of sslcustomize, as platformdirs computes it.

    On Linux the XDG rule is applied here: importing platformdirs would add ~10 ms to the
    first context of every process. Other platforms ask platformdirs.
    """
    path = _xdg("XDG_CACHE_HOME", "~/.cache")
    if path is not None:
        return path
    import platformdirs  # noqa: PLC0415 # pragma: no cover - macOS and Windows

    return platformdirs.user_cache_dir(APP, appauthor=False)  # pragma: no cover


def user_state_dir() -> str:
    """Return the user state directory of sslcustomize (reports), as platformdirs does."""
    path = _xdg("XDG_STATE_HOME", "~/.local/state")
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


def existing_scope() -> str:
    """Return the most specific scope whose policy file exists (venv, then user).

    Commands that change a policy (``trust``, ``disable``) edit the file the user already
    has rather than start a new layer; with none, :func:`default_scope`.
    """
    for layer, path in reversed(layer_paths()):
        if layer in ("venv", "user") and os.path.exists(path):
            return layer
    return default_scope()


def pretty(path: str) -> str:
    """Return ``path`` with the home directory shown as ``~``."""
    home = os.path.expanduser("~")
    return "~" + path[len(home) :] if path.startswith(home + os.sep) else path
