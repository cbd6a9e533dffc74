"""Locks that a forked child gets back unlocked: another thread may have held them at the fork.

The one lock idiom of the package: every lock is a :func:`fork_safe_lock`, and none is held
while a warning, a log handler, a report sink or any other code of the program runs (such code
may make a TLS connection, which takes these locks again).

Only ``_thread`` and ``_weakref`` (built into the interpreter): the first context of a
process should not import ``threading`` and ``weakref`` for a lock.
"""

from __future__ import annotations

import _thread
import _weakref
import os

__all__ = ["ForkSafeLock", "fork_safe_lock"]


class ForkSafeLock:
    """A lock that is renewed in a forked child."""

    __slots__ = ("__weakref__", "_lock")

    def __init__(self) -> None:
        self._lock = _thread.allocate_lock()

    def __enter__(self) -> bool:
        return self._lock.__enter__()

    def __exit__(self, *exc: object) -> None:
        self._lock.release()

    def acquire(self, timeout: float = -1) -> bool:
        """Take the lock, waiting at most ``timeout`` seconds (``-1``: as long as it takes)."""
        return self._lock.acquire(True, timeout)

    def release(self) -> None:
        """Give the lock back."""
        self._lock.release()

    def renew(self) -> None:
        """Replace the lock with a new, unlocked one (in a forked child)."""
        self._lock = _thread.allocate_lock()


_locks: set[_weakref.ReferenceType[ForkSafeLock]] = set()


def fork_safe_lock() -> ForkSafeLock:
    """Return a lock that is renewed in a forked child."""
    lock = ForkSafeLock()
    _locks.add(_weakref.ref(lock, _locks.discard))
    return lock


def _renew_locks() -> None:
    for reference in list(_locks):
        lock = reference()
        if lock is not None:
            lock.renew()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_renew_locks)
