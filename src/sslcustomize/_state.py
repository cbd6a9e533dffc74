"""The process's effective policy: read once, on first use; fail closed on any error."""

from __future__ import annotations

import sys
import threading

from ._policy import Policy, load_policy
from ._report import warn_safely
from .exceptions import PolicyWarning

__all__ = ["current_policy", "set_policy"]

_lock = threading.Lock()
_policy: Policy | None = None
_pinned = False


def current_policy() -> Policy:
    """Return the effective policy, reading the layers the first time.

    Errors are reported once on stderr (strict defaults then apply); ignored locked keys are
    reported once as :class:`~sslcustomize.PolicyWarning`.
    """
    global _policy  # noqa: PLW0603 - one policy per process
    policy = _policy
    if policy is not None:
        return policy
    with _lock:
        if _policy is None:
            _policy = load_policy()
            announce(_policy)
        return _policy


def announce(policy: Policy) -> None:
    """Say once what went wrong with a policy: errors on stderr, locks as warnings."""
    for error in policy.errors:
        sys.stderr.write(
            f"sslcustomize: {error}\nsslcustomize: using strict defaults "
            "(system trust store, enforce mode, no exceptions) until this is fixed\n"
        )
    for message in policy.warnings:
        # Never raised, even under -W error: a lock must not break the first connection.
        warn_safely(message, PolicyWarning, stacklevel=4)


def set_policy(policy: Policy | None, *, pinned: bool = False) -> None:
    """Replace the effective policy; ``None`` re-reads the files on next use.

    Args:
        policy: The policy to use, or ``None``.
        pinned: Whether the policy was given in code (``inject(policy=...)``).
    """
    global _policy, _pinned  # noqa: PLW0603
    with _lock:
        _policy = policy
        _pinned = pinned
    from . import _contexts, _trust  # noqa: PLC0415 - avoid an import cycle

    _trust.reset()
    _contexts.reset()
