"""A policy at work: the policy value and everything cached under it.

Every context made under a policy carries its :class:`Runtime`; trust anchors, decisions,
engines, verifiers, verdicts, pinned leaves seen, resumable sessions, shared contexts and the
report sink all live here, and nowhere else in the process. What goes stale does so by one
rule: a new policy is a new runtime (contexts made under the old one keep verifying under the
old one, never under a mix of both), and within a runtime what was built from the trust
sources is keyed by its :class:`~.._trust._anchors.TrustCache` generation, which moves when a
``stat`` made at most once a second sees a source change. Memoised verdicts are also keyed by the
wall-clock minute: a certificate's dates, not the trust sources, decide when those expire.
"""

from __future__ import annotations

import ssl
from collections import OrderedDict
from collections.abc import Callable, Hashable
from functools import lru_cache

from sslcustomize._decision._decide import Decision, decide
from sslcustomize._policy._model import EnvTrust, HostException, Policy
from sslcustomize._support._clock import SYSTEM_CLOCK, Clock
from sslcustomize._support._frozen import replace
from sslcustomize._support._locks import fork_safe_lock
from sslcustomize._trust._anchors import TrustCache
from sslcustomize._trust._environment import first_notice, say

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, TypeVar

    from sslcustomize._decision._engine import EngineSpec, Settings
    from sslcustomize._decision._plan import Plan
    from sslcustomize._policy._model import TrustSource
    from sslcustomize._report._recording import Recorder
    from sslcustomize._verdict._verify import Verdict
else:
    from sslcustomize._support._notyping import TypeVar


__all__ = ["Runtime", "SessionEntry"]

T = TypeVar("T")

_MAX_SESSIONS = 512
_MAX_LEAVES = 8
# Results the command line's analyses keep (see Runtime.memo): about a scan's worth of chains.
_MAX_MEMOS = 256


class SessionEntry:
    """A session handed out by a judged connection: for whom, on which engine, which chain."""

    __slots__ = ("chain", "engine", "host", "session")

    def __init__(
        self, session: object, host: str | None, engine: ssl.SSLContext, chain: tuple[bytes, ...]
    ) -> None:
        """Remember ``session`` of a connection to ``host`` on ``engine`` with ``chain``."""
        self.session = session
        self.host = host
        self.engine = engine
        self.chain = chain


class Runtime:
    """The effective policy of some contexts, with its caches."""

    def __init__(
        self, policy: Policy, *, trust: TrustCache | None = None, clock: Clock = SYSTEM_CLOCK
    ) -> None:
        """Start with empty caches for ``policy``, or with ``trust``, the cache that checked it.

        Every time the runtime reads comes from ``clock`` (its trust cache's, when it makes
        one): the day exceptions expire on, the minute verdicts are remembered for.
        """
        self.policy = policy
        self.clock = clock
        self._recorder: Recorder | None = None
        self._lock = fork_safe_lock()
        self.trust = TrustCache(clock=clock) if trust is None else trust
        self._decisions: dict[str | None, Decision] = {}
        self._leaves: dict[HostException, tuple[bytes, ...]] = {}
        self._sessions: OrderedDict[int, SessionEntry] = OrderedDict()
        self._shared: dict[Hashable, Any] = {}
        self._memos: OrderedDict[Hashable, Any] = OrderedDict()
        # The base decisions whose ignored variables were noticed (by id: they are kept in
        # _decisions for the runtime's life), so that a connection does not go through them.
        self._noticed: set[int] = set()
        self._engines = lru_cache(maxsize=64)(self._engine)
        self._plans = lru_cache(maxsize=256)(self._plan)
        self._verifiers = lru_cache(maxsize=64)(self._verifier)
        self._verdict = lru_cache(maxsize=256)(self._judge)

    @property
    def recorder(self) -> Recorder:
        """The warnings and records of this policy (made on first use, with its modules)."""
        recorder = self._recorder
        if recorder is None:
            from sslcustomize._report._recording import Recorder  # noqa: PLC0415 - loads with the first record

            with self._lock:
                if self._recorder is None:
                    self._recorder = Recorder(self.policy, clock=self.clock)
                recorder = self._recorder
        return recorder

    # --- decisions ---------------------------------------------------------------------------

    def base_decision(self, name: str | None) -> Decision:
        """Return the decision for a context name, before the host is known (cached)."""
        decision = self._decisions.get(name)
        if decision is None:
            decision = self._decisions[name] = decide(self.policy, context=name)
        return decision

    def decision(self, name: str, host: str | None, port: int | None) -> Decision:
        """Return the decision for a connection to ``host`` and ``port``."""
        if host is not None and len(self.policy.index):
            today = self.clock.today()
            found = decide(self.policy, host=host, port=port, context=name, today=today)
        else:
            found = self.base_decision(name)
            if id(found) in self._noticed:
                return found  # said already: a base decision lives as long as the runtime
        if found.environment:
            self.notice_environment(found.ignored_environment, found, name)
            if found is self._decisions.get(name):
                self._noticed.add(id(found))
        return found

    def notice_environment(
        self, entries: tuple[EnvTrust, ...], decision: Decision, name: str
    ) -> None:
        """Say once per process that a CA-bundle variable is not used, and record it if locked.

        Said when a client that reads the variable first connects, on stderr (one line each),
        and written once to the report sink when the reason is the system layer's lock.
        """
        for entry in entries:
            if not first_notice(entry.variable):
                continue
            say(entry)
            if entry.state == "ignored":
                self.recorder.record_ignored_variable(entry, decision=decision, name=name)

    # --- plans, engines and verdicts ---------------------------------------------------------

    def plan(  # noqa: PLR0917 - the inputs of make_plan, each part of the key
        self,
        decision: Decision,
        settings: Settings,
        name: str,
        host: str | None,
        port: int | None,
        leaves: tuple[bytes, ...],
    ) -> Plan:
        """Return the plan of a connection: the same plan for the same inputs (kept).

        ``make_plan`` is a pure function of these values, so a connection whose context reads
        the same settings as an earlier one (a library's context per connection, made the same
        way each time) reuses its plan. A changed setting is another key: nothing is reused
        across a change, and nothing here goes stale (the decision carries the day's
        exceptions, the leaves what was learnt).
        """
        return self._plans(decision, settings, name, host, port, leaves)

    def _plan(  # noqa: PLR0917 - an lru_cache key: positional by design
        self,
        decision: Decision,
        settings: Settings,
        name: str,
        host: str | None,
        port: int | None,
        leaves: tuple[bytes, ...],
    ) -> Plan:
        from sslcustomize._decision._plan import make_plan  # noqa: PLC0415 - 1st connection

        return make_plan(decision, settings, name=name, host=host, port=port, leaves=leaves)

    def generation(self) -> int:
        """Number the state of the trust sources: what is built lives as long as it lasts.

        OpenSSL keeps the anchors a context has loaded (a hashed directory's too) for the life
        of that context, so contexts kept for many connections are rebuilt when a trust source
        changed, which is checked at most once a second
        (:class:`.._trust._anchors.TrustCache`): a CA removed from a trusted bundle or directory
        stops being trusted a second later.
        """
        return self.trust.generation()

    def _load_extra(self, context: ssl.SSLContext, sources: tuple[TrustSource, ...]) -> None:
        self.trust.anchors_for(sources).load_into(context)

    def engine(self, settings: Settings, spec: EngineSpec) -> ssl.SSLContext:
        """Return the engine for ``settings`` changed as ``spec`` says (built once per interval)."""
        return self._engines(settings, spec, self.generation())

    def verifier(self, settings: Settings, spec: EngineSpec) -> ssl.SSLContext:
        """Return the offline verifier for ``settings`` and ``spec`` (built once per interval)."""
        return self._verifiers(settings, spec, self.generation())

    def _engine(self, settings: Settings, spec: EngineSpec, _generation: int) -> ssl.SSLContext:
        from sslcustomize._decision._engine import build_engine  # noqa: PLC0415 - 1st connection

        return build_engine(settings, spec, self._load_extra)

    def _verifier(self, settings: Settings, spec: EngineSpec, _generation: int) -> ssl.SSLContext:
        from sslcustomize._decision._engine import build_verifier  # noqa: PLC0415 - 1st verdict

        return build_verifier(settings, spec, self._load_extra)

    def _judge(  # noqa: PLR0917 - an lru_cache key: positional by design
        self,
        settings: Settings,
        spec: EngineSpec,
        pins: tuple[str, ...],
        check_hostname: bool,  # noqa: FBT001 - a cache key
        chain: tuple[bytes, ...],
        host: str | None,
        _minute: tuple[int, int],
    ) -> Verdict:
        from sslcustomize._decision._engine import NO_CHECK_TIME  # noqa: PLC0415 - 1st verdict
        from sslcustomize._verdict._verify import judge_chain, with_every_reason  # noqa: PLC0415 - 1st verdict

        verifier = self.verifier(settings, spec)
        verdict = judge_chain(verifier, chain, host, pins=pins, check_hostname=check_hostname)
        if verdict.accepted or not chain or (pins and "pin_mismatch" not in verdict.reasons):
            return verdict  # a pinned leaf: only its name was checked, and failed
        return with_every_reason(
            verdict,
            chain,
            host,
            without_hostname=lambda: self.verifier(settings, replace(spec, check_hostname=False)),
            without_dates=lambda: self.verifier(
                settings, replace(spec, add_flags=spec.add_flags | NO_CHECK_TIME)
            ),
            check_hostname=spec.check_hostname,
            common_name=settings.common_name,
        )

    def verdict(
        self, settings: Settings, spec: EngineSpec, decision: Decision, chain: tuple[bytes, ...],
        host: str | None,
    ) -> Verdict:  # fmt: skip
        """Return enforce mode's verdict (cached per chain, host, minute and trust generation)."""
        minute = (int(self.clock.time() // 60), self.generation())
        return self._verdict(
            settings, spec, decision.pins, decision.check_hostname, chain, host, minute
        )

    # --- what is learned from judged connections ---------------------------------------------

    def leaves(self, exception: HostException | None) -> tuple[bytes, ...]:
        """Return the pinned leaves of ``exception`` seen in accepted handshakes."""
        if exception is None:
            return ()
        return self._leaves.get(exception, ())

    def learn_leaf(self, exception: HostException, leaf: bytes) -> None:
        """Remember a leaf whose key matched a pin of ``exception`` in an accepted handshake."""
        with self._lock:
            known = self._leaves.get(exception, ())
            if leaf not in known:
                self._leaves[exception] = (*known, leaf)[-_MAX_LEAVES:]

    def remember_session(self, entry: SessionEntry) -> None:
        """Allow ``entry.session`` to be resumed, for its host on its engine only."""
        with self._lock:
            self._sessions[id(entry.session)] = entry
            self._sessions.move_to_end(id(entry.session))
            while len(self._sessions) > _MAX_SESSIONS:
                self._sessions.popitem(last=False)

    def session_entry(
        self, session: object, host: str | None, engine: ssl.SSLContext
    ) -> SessionEntry | None:
        """Return the entry of a session offered for ``host`` on ``engine``, if admissible.

        A session is resumed only for the host and the engine it was established with: a
        resumed handshake sends no certificate, so a session of one host offered for
        another would connect without verification.
        """
        if session is None:
            return None
        with self._lock:
            entry = self._sessions.get(id(session))
        if entry is None or entry.session is not session:
            return None
        if entry.host != host or entry.engine is not engine:
            return None
        return entry

    # --- contexts shared by library connections ----------------------------------------------

    def shared(self, key: Hashable, build: Callable[[], T]) -> T:
        """Return the shared context for ``key``, built once per runtime and interval."""
        generation = self.generation()
        with self._lock:
            found = self._shared.get(key)
        if found is not None and found[0] == generation:
            return found[1]  # type: ignore[no-any-return]
        context = build()
        with self._lock:
            found = self._shared.get(key)
            if found is None or found[0] != generation:
                found = self._shared[key] = (generation, context)
            return found[1]

    def memo(self, key: Hashable, build: Callable[[], T]) -> T:
        """Return ``build()``, remembered for ``key`` while this runtime lives (the last few).

        For results computed from what this runtime built (its oracles, keyed by them): kept
        here rather than in a module-level cache, they go with the runtime instead of holding
        its contexts alive after it.
        """
        with self._lock:
            if key in self._memos:
                self._memos.move_to_end(key)
                return self._memos[key]  # type: ignore[no-any-return]
        value = build()
        with self._lock:
            self._memos[key] = value
            while len(self._memos) > _MAX_MEMOS:
                self._memos.popitem(last=False)
        return value

    def recall(self, key: Hashable) -> Any:
        """Return what :meth:`keep` kept for ``key`` (one of the last few), or ``None``."""
        with self._lock:
            value = self._memos.get(key)
            if value is not None:
                self._memos.move_to_end(key)
            return value

    def keep(self, key: Hashable, value: object) -> None:
        """Keep ``value`` for ``key`` among the last few memos (see :meth:`recall`)."""
        with self._lock:
            self._memos[key] = value
            while len(self._memos) > _MAX_MEMOS:
                self._memos.popitem(last=False)

    def oracle(
        self,
        trust: tuple[TrustSource, ...],
        extra: tuple[TrustSource, ...],
        check_hostname: bool,  # noqa: FBT001 - a cache key
        verify_flags: int,
        common_name: bool,  # noqa: FBT001 - a cache key
    ) -> ssl.SSLContext:
        """Return a verifying context with the anchors of ``trust`` and ``extra`` (``check``).

        Shared per runtime and trust generation, like the library contexts.
        """
        from sslcustomize._verdict._verify import build_oracle  # noqa: PLC0415 - the CLI's path, not the hook's

        def build() -> ssl.SSLContext:
            anchors = self.trust.anchors_for(trust) + self.trust.anchors_for(extra)
            return build_oracle(anchors, check_hostname, verify_flags, common_name)

        key = ("oracle", trust, extra, check_hostname, verify_flags, common_name)
        return self.shared(key, build)

    def close(self) -> None:
        """Release what this runtime holds open (its report sink)."""
        if self._recorder is not None:
            self._recorder.close()
