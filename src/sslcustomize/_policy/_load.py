"""Load the policy: locate every layer, read it, merge them, or fall back closed on any error.

Layers, in order: system, venv, user, process (``SSLCUSTOMIZE_POLICY``). Lists (``trust``,
``exception``) accumulate; scalars override; the system layer's ``lock`` keeps later layers
from changing the keys it names, wherever the key appears (top level, ``[context.*]``,
``[[exception]]``). Any error makes :func:`load_layers` return the fail-closed fallback
together with the error: a valid system layer exactly as written (its locks included) in
enforce mode, or, when the system layer itself is broken, the strict defaults.
"""

from __future__ import annotations

import os

from sslcustomize._policy._merge import fallback_policy, merge_layers
from sslcustomize._policy._model import LayerFile, Policy
from sslcustomize._policy._read import read_layer
from sslcustomize._support import _bootstrap as _startup

TYPE_CHECKING = False
if TYPE_CHECKING:
    from sslcustomize._policy._read import SourceCheck
    from sslcustomize.exceptions import PolicyError

__all__ = ["load_layers", "policy_files"]


def policy_files() -> list[tuple[str, str, bool]]:
    """Return ``(layer, path, required)`` for every file that makes up the policy, in order.

    System, venv and user files are read when they exist; files named by
    ``SSLCUSTOMIZE_POLICY`` must exist.
    """
    files = [(layer, path, False) for layer, path in _startup.layer_paths()]
    files += [("process", path, True) for path in _startup.process_policy_paths()]
    return files


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


def load_layers(
    files: list[tuple[str, str, bool]] | None = None, *, check_source: SourceCheck
) -> Policy:
    """Read every layer and return the merged policy; never raises for bad files.

    The CA-bundle variables are not read here: the trust layer adds them
    (``_trust._checked_policy.load_policy``), as it checks the trust sources.

    Args:
        files: ``(layer, path, required)`` triples; defaults to :func:`policy_files`.
        check_source: Checks that a trust source works now (see :func:`parse_policy`).

    Returns:
        The merged policy, or the strict fallback with ``errors`` set.
    """
    layers: list[LayerFile] = []
    errors: list[PolicyError] = []
    for layer, path, required in files if files is not None else policy_files():
        if not required and _absent(path):
            continue
        try:
            layers.append(read_layer(layer, path, check_source=check_source))
        except Exception as exc:
            from sslcustomize.exceptions import PolicyError  # noqa: PLC0415 - loaded with an error, not by a first context

            if not isinstance(exc, PolicyError):
                raise
            errors.append(exc)
    if errors:
        return fallback_policy(errors, layers)
    return merge_layers(layers)
