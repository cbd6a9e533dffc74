"""Install and remove the hooks: ``inject()`` and ``extract()`` undo each other exactly."""

from __future__ import annotations

import _thread
import os

import _sslcustomize_startup

from .._policy import Policy, load_policy
from .._state import announce, set_policy
from . import _aiohttp, _httpx, _pip, _requests, _stdlib, _urllib3
from ._patcher import Patcher

__all__ = ["extract", "inject", "inject_from_startup", "is_injected", "replaced_attributes"]

_lock = _thread.allocate_lock()
_patcher = Patcher()
_pinned_policy = False


def inject(policy: Policy | str | os.PathLike[str] | None = None) -> None:
    """Make every TLS client in this process verify under the policy.

    Args:
        policy: A policy file to use instead of the configured layers, or a ``Policy``;
            ``None`` uses the layers (system, venv, user, ``SSLCUSTOMIZE_POLICY``).

    Calling it again only changes the policy; the hooks are installed once.
    """
    global _pinned_policy  # noqa: PLW0603
    with _lock:
        if policy is not None:
            if not isinstance(policy, Policy):
                policy = load_policy([("process", os.fspath(policy), True)])
                announce(policy)
            set_policy(policy)
            _pinned_policy = True
        if not _patcher:
            _stdlib.inject(_patcher)
            for library in (_urllib3, _requests, _httpx, _aiohttp, _pip):
                library.inject(_patcher)


def inject_from_startup() -> None:
    """Install the hooks from the ``.pth`` startup hook (the policy is read on first use)."""
    inject()


def extract() -> None:
    """Remove every hook :func:`inject` installed and restore what was there before."""
    global _pinned_policy  # noqa: PLW0603
    with _lock:
        _patcher.undo()
        _stdlib.remove_stand_ins()
        _sslcustomize_startup.deactivate()
        if _pinned_policy:
            set_policy(None)
            _pinned_policy = False


def is_injected() -> bool:
    """Tell whether the hooks are installed."""
    return bool(_patcher)


def replaced_attributes() -> list[tuple[object, str, object]]:
    """Return ``(object, attribute, original value)`` for each attribute now replaced."""
    return _patcher.replaced()
