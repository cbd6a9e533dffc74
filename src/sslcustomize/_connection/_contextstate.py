"""What sslcustomize keeps on each policy context, and who may change which part of it.

A :class:`~sslcustomize.PolicyContext` carries one :class:`ContextState`: the runtime (policy)
and context name it was made under, and the recipe of the setters called on it. Contexts are
shared between threads, so each part has one owner and one rule:

* ``runtime``, ``name``, ``decision``: what the context was made under. Set once, when the
  state is made (by the factory that builds the context); never changed; read without a lock.
  A context made before the process had a runtime (from the first-context entry, see
  ``_support._firstcontext``) starts *pending*: its runtime and decision are set once, by
  :meth:`ContextState.settle` under ``_contexts``' lock, when ``_contexts.context_state``
  first hands the state to a caller that needs them (a connection, a read of the store).
  Until then only the recipe, ``python_verifies`` and ``frozen`` are read or changed.
* ``recipe`` and ``policy_steps``: changed only through :meth:`ContextState.record` by the
  context's own setters (and :meth:`~ContextState.add_policy_steps` and
  :meth:`~ContextState.defer_anchors` by :func:`~._contexts.load_anchors`), under this
  module's lock; the connection path reads them once per connection.
* ``deferred``: the policy's anchors recorded in the recipe but not yet registered in the
  context's own store (see :meth:`~ContextState.defer_anchors`); emptied only by
  :meth:`~ContextState.load_deferred`, under the lock, once they are registered.
* ``python_verifies``, ``library_matches_names``: set by the factory that builds the
  context, before any caller has it.
* ``frozen``: set once, by :meth:`~sslcustomize.PolicyContext.freeze`; never unset.
* ``last``: what the last connection on an engine read and was given (see
  :meth:`~ContextState.remembered`); replaced whole by the connection path, never changed.

The connection path (:mod:`._connect`) gets the state from the context it wraps for and
reads it through this small API; no other module reads a context's private attributes.
"""

from __future__ import annotations

import ssl

from sslcustomize._decision._recipe import Step, add_step
from sslcustomize._support._locks import fork_safe_lock

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Hashable

    from sslcustomize._decision._decide import Decision
    from sslcustomize._decision._engine import Settings
    from sslcustomize._decision._plan import Plan
    from sslcustomize._runtime._runtime import Runtime

__all__ = ["ContextState"]

# The lock guards only the recipe, never a user's call: one lock for every context, held for
# a tuple's replacement. The connection path reads the recipe once per connection, with the
# rest of the settings (see _connection.connect); nothing it decides depends on the context
# keeping still afterwards.

_lock = fork_safe_lock()


class ContextState:
    """What one policy context was made under, what was set on it, and how often it changed."""

    __slots__ = (
        "_decision",
        "_runtime",
        "asked",
        "deferred",
        "floor",
        "frozen",
        "hint",
        "last",
        "library_matches_names",
        "minimum_set",
        "name",
        "pending",
        "policy_steps",
        "python_minimum",
        "python_verifies",
        "recipe",
        "wants_anchors",
    )

    def __init__(
        self,
        *,
        runtime: Runtime | None,
        name: str,
        decision: Decision | None,
        asked: str | None = None,
        anchors: bool = False,
        hint: str | None = None,
    ) -> None:
        """Start the state of a context made under ``runtime`` for the context ``name``.

        ``runtime`` and ``decision`` ``None``: a pending state (see the module), to be settled
        under the decision for ``asked`` (the name the factory was given, ``None`` included);
        ``anchors``: the policy's anchors are to be deferred on it then; ``hint``: the minimum
        TLS version the entry gave it, checked against the decision's then.
        """
        self._runtime = runtime
        self._decision = decision
        self.name = name
        self.asked = asked
        self.pending = runtime is None or decision is None
        self.wants_anchors = anchors
        self.hint = hint
        # A pending context's own minimum version as Python made it, and whether code set one
        # before it was settled: then the decision's is applied as start_state would have.
        self.python_minimum = 0
        self.minimum_set = False
        self.recipe: tuple[Step, ...] = ()
        # The recorded steps that loaded the policy's anchors where Python would have loaded
        # its default ones, and whether Python's own factory would have verified at all (not
        # smtplib's _create_stdlib_context, gh-91826): report mode's floor (python_recipe).
        self.policy_steps: frozenset[Step] = frozenset()
        self.deferred: tuple[Step, ...] = ()
        self.python_verifies = True
        # python_recipe() of the recipe it was made from (the same tuple while nothing changes).
        self.floor: tuple[tuple[Step, ...], bool, tuple[Step, ...]] | None = None
        self.last: tuple[Hashable, Settings, Plan, ssl.SSLContext] | None = None
        self.frozen = False
        # urllib3 1.x switches OpenSSL's host name check off and matches the name itself
        # after the handshake: that is not the code opting out (see _inject._urllib3).
        self.library_matches_names = False

    @property
    def runtime(self) -> Runtime:
        """The runtime (policy) the context is under.

        Raises:
            RuntimeError: The state is pending: only a settled state is handed to connections.
        """
        runtime = self._runtime
        if runtime is None:
            raise RuntimeError("the context's policy was read before it was settled")
        return runtime

    @property
    def decision(self) -> Decision:
        """The decision for the context's name, before any host is known.

        Raises:
            RuntimeError: The state is pending (see :attr:`runtime`).
        """
        decision = self._decision
        if decision is None:
            raise RuntimeError("the context's policy was read before it was settled")
        return decision

    def settle(self, runtime: Runtime, decision: Decision) -> None:
        """Put a pending state under ``runtime`` and ``decision`` (still pending until done).

        Called once, under ``_contexts``' lock, before the anchors are deferred; the caller
        clears :attr:`pending` once the state is complete.
        """
        self._runtime = runtime
        self._decision = decision

    def record(self, step: Step) -> None:
        """Keep ``step`` in the recipe."""
        with _lock:
            self.recipe = add_step(self.recipe, step)

    def add_policy_steps(self, before: tuple[Step, ...]) -> None:
        """Mark the steps recorded since the recipe was ``before`` as the policy's anchors."""
        with _lock:
            self.policy_steps |= frozenset(self.recipe) - frozenset(before)

    def defer_anchors(self, steps: tuple[Step, ...], *, late: bool = False) -> None:
        """Record ``steps`` (the policy's anchors) without registering them in the context yet.

        They are in the recipe and among the policy's steps at once, so every engine and
        verifier built from the context's settings loads them. The context's own store gets
        them only when something reads it or connects on it (:meth:`load_deferred`): a context
        made per connection (urllib3's) and connected on the runtime's engine never pays for
        them. Until then its own store is empty, so a path that uses it without coming through
        :meth:`load_deferred` verifies nothing as trusted: it refuses, never accepts.

        ``late``: the state was pending (see the module), and its anchors come after what code
        recorded since the context was made; a step code recorded that is one of them is the
        policy's all the same, as it is on a context whose anchors were recorded first (only
        not deferred: code's own call registered it).
        """
        with _lock:
            recipe = self.recipe
            for step in steps:
                recipe = add_step(recipe, step)
            added = frozenset(recipe) - frozenset(self.recipe)
            self.recipe = recipe
            self.policy_steps |= frozenset(steps) & frozenset(recipe) if late else added
            self.deferred = (*self.deferred, *(step for step in steps if step in added))

    def load_deferred(self, load: Callable[[Step], object]) -> None:
        """Register the deferred anchors with ``load`` (one step at a time), once.

        Under the lock, so that a second thread that finds nothing deferred finds the store
        complete. A step that fails stays deferred (with those after it) and its error
        propagates: the store lacks it, which refuses, never accepts.
        """
        if not self.deferred:  # read without the lock: a tuple, replaced whole
            return
        with _lock:
            while self.deferred:
                load(self.deferred[0])
                self.deferred = self.deferred[1:]

    def python_recipe(self) -> tuple[Step, ...] | None:
        """Return report mode's floor, or ``None`` when Python would not verify at all.

        The floor is the recipe of a verifier that accepts what Python or the policy accepts.
        Where the policy's anchors stand in for Python's default ones, both are loaded: report
        mode then refuses only what Python itself and the policy both refuse. What the caller
        loaded itself (a ``cafile``) is what both would use.
        """
        if not self.python_verifies:
            return None
        recipe, policy = self.recipe, bool(self.policy_steps)
        floor = self.floor
        if floor is not None and floor[0] is recipe and floor[1] is policy:
            return floor[2]  # the same tuple each time: an engine's key compares it by identity
        made = recipe
        if policy:
            made = add_step(recipe, ("load_default_certs", (ssl.Purpose.SERVER_AUTH,)))
        self.floor = (recipe, policy, made)
        return made

    def remembered(self, key: Hashable) -> tuple[Settings, Plan, ssl.SSLContext] | None:
        """Return the settings, plan and engine of the last connection if it had the same ``key``.

        ``key`` holds everything the plan and the engine are a function of (the decision, the
        settings read, the target, the leaves learnt, the trust generation): a context that
        connects again with the same settings, as a library's shared context does at every
        connection, reuses them without hashing its settings into the runtime's caches again.
        """
        last = self.last
        if last is not None and last[0] == key:
            return last[1], last[2], last[3]
        return None

    def remember(
        self, key: Hashable, settings: Settings, plan: Plan, engine: ssl.SSLContext
    ) -> None:
        """Keep what a connection made with ``key`` was given (see :meth:`remembered`)."""
        self.last = (key, settings, plan, engine)
