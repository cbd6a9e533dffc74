"""Said once per process: the one registry of notices already given, whoever gives them.

A notice on stderr (a CA variable ignored, a context's fallback) is given once per process,
not once per runtime: a new policy does not make the same warning worth repeating, so this is
one of the few values kept outside a ``Runtime`` (docs/architecture.md, "One owner of state").
"""

from __future__ import annotations

from sslcustomize._support._locks import fork_safe_lock

__all__ = ["first_time"]

_given: set[tuple[str, str]] = set()
# Held only to test and mark: the notice itself is written after it is released.
_lock = fork_safe_lock()


def first_time(topic: str, key: str) -> bool:
    """Tell whether ``key`` of ``topic`` has not been said in this process yet, and mark it."""
    with _lock:
        if (topic, key) in _given:
            return False
        _given.add((topic, key))
        return True
