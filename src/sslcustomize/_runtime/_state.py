"""The process's effective policy, as a runtime: read once, on first use; fail closed.

This is the only global: the policy that *new* contexts are made under. A context carries
its runtime from then on (see :mod:`._runtime`), so replacing the policy never changes how a
context already made verifies.
"""

from __future__ import annotations

import sys

from sslcustomize._policy._model import Policy
from sslcustomize._runtime._runtime import Runtime
from sslcustomize._support import _firstcontext
from sslcustomize._support._clock import SYSTEM_CLOCK, Clock
from sslcustomize._support._locks import fork_safe_lock
from sslcustomize._trust._anchors import TrustCache
from sslcustomize._trust._checked_policy import load_policy_with

__all__ = [
    "announce",
    "current_policy",
    "current_runtime",
    "first_runtime",
    "set_policy",
    "unpin",
]

# Held only to read the files and swap the runtime: never while a warning, a log handler or a
# sink runs (issue 22 #8: a warning shipped over HTTPS made the next context wait for it).
_lock = fork_safe_lock()
_runtime: Runtime | None = None
# Whether code gave the runtime's policy (``inject(policy)``): changed only with ``_runtime``,
# under ``_lock``, so that no thread sees one of them updated without the other.
_pinned = False
# The runtime of the contexts made before this module was loaded (from the first-context
# entry, see _support._firstcontext): the one the files gave, kept once taken, so that code
# replacing the policy before their first connection does not change theirs.
_first: Runtime | None = None


def current_runtime() -> Runtime:
    """Return the runtime of the effective policy, reading the layers the first time.

    Errors are reported once on stderr (strict defaults then apply); ignored locked keys are
    reported once as :class:`~sslcustomize.PolicyWarning`.
    """
    global _runtime  # noqa: PLW0603 - one effective policy per process
    runtime = _runtime
    if runtime is not None:
        return runtime
    made = files = None
    with _lock:
        if _runtime is None:
            if not _firstcontext.used():  # before the read: a file changed meanwhile misses
                files = _firstcontext.files_key()
            trust = TrustCache()  # the runtime keeps what checking the policy read
            made = _runtime = Runtime(load_policy_with(trust), trust=trust)
        runtime = _runtime
    if made is not None:
        _remember_minimums(made, files)
        announce(made.policy)  # may run the program's warning and logging handlers
    return runtime


def _remember_minimums(runtime: Runtime, files: _firstcontext.FilesKey | None) -> None:
    """Keep what a later process's first context needs of a sound policy (its minimum TLS)."""
    policy = runtime.policy
    if files is None or policy.errors or policy.warnings:
        return  # errors and warnings are said when the runtime is made: keep that there
    rules = {name: runtime.base_decision(name).minimum_tls for name in policy.contexts}
    _firstcontext.remember(files, runtime.base_decision(None).minimum_tls, rules)


def first_runtime() -> Runtime:
    """Return the runtime of the contexts made before a runtime existed (see ``_first``).

    The effective one, the first time it is asked for; the same one from then on.
    """
    global _first  # noqa: PLW0603 - see _first
    if _first is None:
        runtime = current_runtime()
        with _lock:
            if _first is None:
                _first = runtime
    return _first


def _keep_first() -> None:
    """Before the policy is replaced, keep the runtime early contexts were made under."""
    if _first is None and _firstcontext.made_early():
        first_runtime()


def current_policy() -> Policy:
    """Return the effective policy (see :func:`current_runtime`)."""
    return current_runtime().policy


def announce(policy: Policy) -> None:
    """Say once what went wrong with a policy: errors on stderr, locks as warnings."""
    for error in policy.errors:
        sys.stderr.write(
            f"sslcustomize: {error}\nsslcustomize: using {policy.fallback_summary} "
            "until this is fixed\n"
        )
    if not policy.warnings:
        return
    from sslcustomize._report._records import warn_safely  # noqa: PLC0415 - only when there is one to say
    from sslcustomize.exceptions import PolicyWarning  # noqa: PLC0415 - the same

    for message in policy.warnings:
        # Never raised, even under -W error: a lock must not break the first connection.
        warn_safely(message, PolicyWarning, stacklevel=4)


def set_policy(policy: Policy | None, *, pinned: bool = False, clock: Clock = SYSTEM_CLOCK) -> None:
    """Make ``policy`` the one new contexts are made under; ``None`` re-reads the files.

    ``pinned`` says that code gave it (``inject(policy)``): :func:`unpin` then goes back to
    the files. The runtime and that mark change together, in one update. ``clock`` is the
    runtime's (tests pass one they move by hand).

    Contexts already made keep their own policy and its caches (trust anchors included:
    each runtime owns its own); the old runtime's report sink is closed (it reopens if one
    of those contexts records again).
    """
    global _runtime, _pinned  # noqa: PLW0603 - the one effective runtime, see the module
    _keep_first()
    with _lock:
        old, _runtime = _runtime, (None if policy is None else Runtime(policy, clock=clock))
        _pinned = pinned and policy is not None
    if old is not None:
        old.close()


def unpin() -> bool:
    """Go back to the files if code pinned the policy; tell whether it had.

    Reading the mark and dropping the runtime it goes with are one update: an ``inject()``
    in another thread lands wholly before or wholly after it.
    """
    global _runtime, _pinned
    _keep_first()
    with _lock:
        if not _pinned:
            return False
        old, _runtime, _pinned = _runtime, None, False
    if old is not None:
        old.close()
    return True
