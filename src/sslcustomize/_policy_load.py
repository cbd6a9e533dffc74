"""Load the policy: locate every layer, read it, merge them, or fall back closed on any error.

Layers, in order: system, venv, user, process (``SSLCUSTOMIZE_POLICY``). Lists (``trust``,
``exception``) accumulate; scalars override; the system layer's ``lock`` keeps later layers
from changing the keys it names, wherever the key appears (top level, ``[context.*]``,
``[[exception]]``). Any error makes :func:`load_policy` return the fail-closed fallback
together with the error: a valid system layer exactly as written (its locks included) in
enforce mode, or, when the system layer itself is broken, the strict defaults.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

from ._frozen import replace
from ._policy_locate import policy_files
from ._policy_merge import fallback_policy, merge_layers
from ._policy_model import LayerFile, Policy
from ._policy_read import read_layer
from .exceptions import PolicyError

__all__ = ["load_policy"]


def _absent(path: str) -> bool:
    """Tell whether an optional layer's file is absent (not merely unreadable).

    A dangling symlink or a directory this user cannot search is not absence: reading it
    fails, and the failure is an error (fail closed), never "no policy".
    """
    try:
        os.lstat(path)
    except (FileNotFoundError, NotADirectoryError):
        return True
    except OSError:
        return False
    return False


def load_policy(
    files: list[tuple[str, str, bool]] | None = None,
    *,
    environ: Mapping[str, str] | None = None,
) -> Policy:
    """Read every layer and return the effective policy; never raises for bad files.

    Args:
        files: ``(layer, path, required)`` triples; defaults to :func:`policy_files`.
        environ: Where to read the CA-bundle variables (``REQUESTS_CA_BUNDLE``...);
            defaults to ``os.environ``.

    Returns:
        The merged policy, or the strict fallback with ``errors`` set.
    """
    policy = _load_layers(files)
    from ._envtrust import read_environment  # noqa: PLC0415 - _envtrust imports this module

    return replace(policy, environment=read_environment(policy.locked, environ))


def _load_layers(files: list[tuple[str, str, bool]] | None) -> Policy:
    layers: list[LayerFile] = []
    errors: list[PolicyError] = []
    for layer, path, required in files if files is not None else policy_files():
        if not required and _absent(path):
            continue
        try:
            layers.append(read_layer(layer, path))
        except PolicyError as exc:
            errors.append(exc)
    if errors:
        return fallback_policy(errors, layers)
    return merge_layers(layers)
