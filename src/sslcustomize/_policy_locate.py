"""Where the policy's layers are: every layer's file, in merge order."""

from __future__ import annotations

import _sslcustomize_startup as _startup

__all__ = ["policy_files"]


def policy_files() -> list[tuple[str, str, bool]]:
    """Return ``(layer, path, required)`` for every file that makes up the policy, in order.

    System, venv and user files are read when they exist; files named by
    ``SSLCUSTOMIZE_POLICY`` must exist.
    """
    files = [(layer, path, False) for layer, path in _startup.layer_paths()]
    files += [("process", path, True) for path in _startup.process_policy_paths()]
    return files
