"""One client connection under the policy: plan it, make it, judge it, act on the verdict.

:func:`connect` is what every :class:`~sslcustomize.PolicyContext` wrap comes to. It reads
the caller's settings, asks the context's runtime for the decision, makes the plan
(:mod:`.._decision._plan`), creates the connection on the caller's context or on a private engine
(:mod:`.._decision._engine`), and puts a :class:`~._gate.Gate` in front of it so that nothing moves
before the verdict. The verdict is :func:`.._verdict._verify.judge_chain` with a verifier
built from the caller's own settings: the same function on every path, so report mode records
exactly what enforce mode would have decided for that caller.
"""

from __future__ import annotations

import ssl

from sslcustomize._connection._gate import Gate
from sslcustomize._connection._pinprobe import needs_probe, probe_pinned
from sslcustomize._connection._rejection import NO_NAME, native_rejection, rejection, unjudgeable
from sslcustomize._connection._target import starttls_protocol
from sslcustomize._decision._decide import Decision
from sslcustomize._decision._engine import (
    EngineSpec,
    Settings,
    UncarriedSettingError,
    read_settings,
    settings_from,
)
from sslcustomize._decision._plan import Plan
from sslcustomize._decision._recipe import ANCHOR_STEPS
from sslcustomize._runtime._runtime import Runtime, SessionEntry
from sslcustomize._support._frozen import replace
from sslcustomize._verdict._verify import Verdict
from sslcustomize._x509._der import pin_or_none
from sslcustomize._x509._replay import der_chain
from sslcustomize.exceptions import (
    CertificateRejected,
    PolicyWarning,
    UnverifiedConnectionWarning,
)

# The first handshake of a hooked process imports this module: not typing (see _notyping).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    from sslcustomize._connection._contextstate import ContextState
    from sslcustomize._connection._target import Target

__all__ = ["connect"]

_wrap_socket = ssl.SSLContext._wrap_socket  # type: ignore[attr-defined]  # noqa: SLF001
_wrap_bio = ssl.SSLContext._wrap_bio  # type: ignore[attr-defined]  # noqa: SLF001


# --- Rejections --------------------------------------------------------------------------------


def _refusal(
    decision: Decision,
    verdict: Verdict,
    chain: tuple[bytes, ...],
    host: str | None,
    port: int | None,
) -> CertificateRejected:
    """Build the rejection of this connection; its advice names a STARTTLS upgrade under way."""
    return rejection(decision, verdict, chain, host, port, starttls=starttls_protocol())


# --- One connection ----------------------------------------------------------------------------


class _Connection:
    """The plan of one connection and what its gate asks of it."""

    __slots__ = ("engine", "entry", "plan", "runtime", "settings")

    def __init__(
        self, runtime: Runtime, settings: Settings, plan: Plan, engine: ssl.SSLContext
    ) -> None:
        self.runtime = runtime
        self.settings = settings
        self.plan = plan
        self.engine = engine
        self.entry: SessionEntry | None = None

    def explain(self, gate: Gate, error: ssl.SSLCertVerificationError) -> CertificateRejected:
        """Explain OpenSSL's own rejection, with every reason the verdict function finds.

        In OpenSSL's own words where the verdict function adds nothing: report mode's floor
        (Python itself refuses the chain), a verdict that cannot be had, or one that accepts
        what OpenSSL refused (which cannot happen).
        """
        plan = self.plan
        chain = der_chain(gate.raw)
        floor = plan.engine is not None and plan.engine.python
        verdict = None if floor else self._verdict_or_none(chain)
        if verdict is None or verdict.accepted:
            return native_rejection(
                error, plan.decision, chain, plan.host, plan.port, starttls=starttls_protocol()
            )
        return _refusal(plan.decision, verdict, chain, plan.host, plan.port)

    def _verdict_or_none(self, chain: tuple[bytes, ...]) -> Verdict | None:
        """The verdict of enforce mode's verifier, or ``None`` when none can be had."""
        plan = self.plan
        try:
            return self.runtime.verdict(self.settings, plan.verify, plan.decision, chain, plan.host)
        except Exception:  # noqa: BLE001 - the caller falls back to OpenSSL's own words
            return None

    def judge(self, gate: Gate) -> tuple[CertificateRejected | None, tuple[bytes, ...]]:
        """Judge the chain after the handshake: the rejection to raise (``None`` to proceed).

        The recorder (and the report modules behind it) is reached only for what is recorded:
        an accepted connection does not load them.

        Returns:
            The rejection or ``None``, and the chain judged (the gate keeps it).
        """
        chain = der_chain(gate.raw)
        if not chain and self.entry is not None and gate.raw.session_reused:
            chain = self.entry.chain  # resumed: judged by the chain it was established with
        return self._verdict(chain), chain

    def _verdict(self, chain: tuple[bytes, ...]) -> CertificateRejected | None:
        plan, runtime = self.plan, self.runtime
        try:
            verdict = runtime.verdict(self.settings, plan.verify, plan.decision, chain, plan.host)
        except Exception as error:  # noqa: BLE001 - whatever fails, the verdict is a rejection
            verdict = unjudgeable(error)
        if plan.opt_out:
            self._record_opt_out(verdict, chain)
            return None
        if verdict.accepted:
            exception = plan.decision.exception
            if exception is not None and chain and pin_or_none(chain[0]) in plan.decision.pins:
                runtime.learn_leaf(exception, chain[0])
            return None
        if plan.decision.mode == "enforce":
            return _refusal(plan.decision, verdict, chain, plan.host, plan.port)
        if plan.floor is not None:
            floor = self._floor(plan.floor, chain)
            if not floor.accepted:  # Python itself refuses it, and no pin vouches for it
                return _refusal(plan.decision, floor, chain, plan.host, plan.port)
        self._record_report(verdict, chain)
        return None

    def _record_opt_out(self, verdict: Verdict, chain: tuple[bytes, ...]) -> None:
        """Record a connection made as the code turned verification off (the policy obeys).

        Not warned: the code asked for it explicitly, the libraries that let code opt out
        warn at each call themselves (urllib3's ``InsecureRequestWarning``), and a warning
        once per host would make a warnings-as-errors test suite pass or fail by test order.
        sslcustomize's own opt-out, :func:`~sslcustomize.create_legacy_context`, warns at
        each call.
        """
        plan = self.plan
        self.runtime.recorder.record(
            decision=plan.decision, name=plan.name, host=plan.host, port=plan.port, chain=chain,
            verdict="accepted" if verdict.accepted else "opt_out",
            reasons=("code_opt_out", *verdict.reasons), starttls=starttls_protocol(),
        )  # fmt: skip

    def _record_report(self, verdict: Verdict, chain: tuple[bytes, ...]) -> None:
        """Warn once per reason and record what report mode would have rejected."""
        plan, recorder = self.plan, self.runtime.recorder
        for reason in verdict.reasons:
            recorder.warn_once(
                plan.host,
                reason,
                f"report mode: {plan.host} would be rejected ({reason}): {verdict.problem}",
                UnverifiedConnectionWarning,
            )
        recorder.record(
            decision=plan.decision, name=plan.name, host=plan.host, port=plan.port, chain=chain,
            verdict="rejected", reasons=verdict.reasons, starttls=starttls_protocol(),
        )  # fmt: skip

    def _floor(self, spec: EngineSpec, chain: tuple[bytes, ...]) -> Verdict:
        """Report mode's floor: what Python or the policy accepts, without the pins."""
        plan = self.plan
        unpinned = replace(plan.decision, pins=(), check_hostname=True)
        try:
            return self.runtime.verdict(self.settings, spec, unpinned, chain, plan.host)
        except Exception as error:  # noqa: BLE001 - whatever fails, the verdict is a rejection
            return unjudgeable(error)

    def remember(self, gate: Gate, session: Any) -> None:
        entry = SessionEntry(session, self.plan.host, self.engine, gate.chain)
        self.runtime.remember_session(entry)

    def admit(self, gate: Gate, session: Any) -> bool:
        return self.offer(session) is not None

    def offer(self, session: Any) -> Any:
        """Return ``session`` if this connection may resume it, else ``None``."""
        self.entry = self.runtime.session_entry(session, self.plan.host, self.engine)
        return None if self.entry is None else self.entry.session


# --- One call of connect() ----------------------------------------------------------------------


class _Call:
    """What one call of :func:`connect` asked for, and how it is planned, engined and made."""

    __slots__ = (
        "arguments", "decision", "host", "name", "owner", "port", "runtime", "server_hostname",
        "session", "target",
    )  # fmt: skip

    def __init__(
        self, state: ContextState, arguments: tuple[Any, ...], server_hostname: str | bytes | None,
        host: str | None, port: int | None, *, decision: Decision, owner: Any, session: Any,
        target: Target | None = None,
    ) -> None:  # fmt: skip
        # The runtime the context was made under: its policy plans, makes and judges.
        self.runtime = state.runtime
        self.name = state.name
        self.arguments = arguments
        self.server_hostname = server_hostname
        self.host = host
        self.port = port
        self.owner = owner
        self.session = session
        self.target = target  # where it goes: through which proxy, for a pinned server's probe
        self.decision = decision

    def plan(self, settings: Settings) -> Plan:
        """Plan the connection with ``settings``, a pinned server probed first if need be."""
        plan = self._plan(settings)
        if needs_probe(plan, settings):
            probed = probe_pinned(self.runtime, settings, plan, self.arguments, self.target)
            enforce = plan.decision.mode == "enforce"
            if probed is not None and not probed[0].accepted and enforce:
                raise _refusal(self.decision, probed[0], probed[1], self.host, self.port)
            if probed is not None and not probed[0].accepted:
                return plan  # report mode: the floor decides in the handshake, as Python would
            if probed is not None:  # learned: verify natively against the pinned leaf
                plan = self._plan(settings)
        return plan

    def _plan(self, settings: Settings) -> Plan:
        host, port, decision = self.host, self.port, self.decision
        leaves = self.runtime.leaves(decision.exception)
        plan = self.runtime.plan(decision, settings, self.name, host, port, leaves)
        if host is None and not plan.opt_out and "check_hostname" in plan.weakened:
            raise _refusal(decision, NO_NAME, (), host, port)
        return plan

    def engine(
        self, settings: Settings, spec: EngineSpec, own: ssl.SSLContext | None = None
    ) -> ssl.SSLContext:
        """Return the engine for ``spec``, or ``own`` (the caller's context) where none can be made.

        A copy that would lack one of the caller's settings (:class:`UncarriedSettingError`)
        gives way to the caller's own context where one is given: it verifies in the
        handshake, stricter than any engine (report mode and exceptions relax nothing for it),
        and that is said once. Any other failure, or one without ``own``, is a rejection:
        never an unverified connection.
        """
        host, port = self.host, self.port
        try:
            return self.runtime.engine(settings, spec)
        except UncarriedSettingError as error:
            if own is None:
                raise _refusal(self.decision, unjudgeable(error), (), host, port) from error
            self.runtime.recorder.warn_once(
                host,
                "uncarried",
                f"{self.name} connects to {host} with its own context, verified in the "
                f"handshake: {error}; report mode and exceptions do not apply to it",
                PolicyWarning,
            )
            return own
        except Exception as error:
            raise _refusal(self.decision, unjudgeable(error), (), host, port) from error

    def warm_engine(self, settings: Settings, spec: EngineSpec) -> ssl.SSLContext | None:
        """Return the runtime's engine for ``settings`` and ``spec``, or ``None`` if none is had.

        ``None`` leaves the connection on the caller's own context, judged after the
        handshake: what a native connection does without an engine.
        """
        try:
            return self.runtime.engine(settings, spec)
        except Exception:  # noqa: BLE001 - the caller's own context verifies as well
            return None

    def prepare(self, prepare: Callable[[ssl.SSLContext], None], context: ssl.SSLContext) -> None:
        """Complete ``context``'s own store before connecting on it; a failure is a rejection.

        A trust source that cannot be loaded any more leaves the store without it: refused
        here, with the reason, rather than by a handshake against an incomplete store.
        """
        try:
            prepare(context)
        except Exception as error:
            refusal = _refusal(self.decision, unjudgeable(error), (), self.host, self.port)
            raise refusal from error

    def make(
        self,
        context: ssl.SSLContext,
        settings: Settings,
        plan: Plan,
        engine: ssl.SSLContext,
        prepare: Callable[[ssl.SSLContext], None],
    ) -> Gate:
        """Create the connection on ``engine``, behind a gate that judges it as ``plan`` says."""
        return _make(
            self.runtime, context, settings, plan, engine, prepare, self.arguments,
            self.server_hostname, self.owner, self.session,
        )  # fmt: skip


def _make(  # noqa: PLR0917 - one connection's every input, passed as they are
    runtime: Runtime,
    context: ssl.SSLContext,
    settings: Settings,
    plan: Plan,
    engine: ssl.SSLContext,
    prepare: Callable[[ssl.SSLContext], None],
    arguments: tuple[Any, ...],
    server_hostname: str | bytes | None,
    owner: Any,
    session: Any,
) -> Gate:
    """Create the connection on ``engine``, behind a gate that judges it as ``plan`` says."""
    connection = _Connection(runtime, settings, plan, engine)
    offered = connection.offer(session) if session is not None else None
    wrap = _wrap_socket if len(arguments) == 1 else _wrap_bio
    raw = wrap(engine, *arguments, False, server_hostname, owner=owner, session=offered)
    return Gate(
        raw,
        context,
        judge=connection.judge if plan.judge else None,
        explain=connection.explain,
        remember=connection.remember,
        admit=connection.admit,
        prepare=prepare,
        resumed_from=offered,
    )


# The first item of the keys connect() keeps in its runtime's memos (see Runtime.keep).
_READING = "connect: reading"


def _nothing_to_prepare(context: ssl.SSLContext) -> None:
    """Leave ``context`` as it is (a caller without deferred anchors)."""


def connect(
    context: ssl.SSLContext,
    state: ContextState,
    arguments: tuple[Any, ...],
    server_hostname: str | bytes | None,
    port: int | None,
    *,
    owner: Any = None,
    session: Any = None,
    target: Target | None = None,
    prepare: Callable[[ssl.SSLContext], None] = _nothing_to_prepare,
) -> Gate:
    """Create a client connection of ``context`` under the policy it was made under.

    Args:
        context: The caller's context.
        state: What the context carries (:mod:`._contextstate`): its runtime, name, recipe.
        arguments: ``(sock,)`` for a socket, ``(incoming, outgoing)`` for memory BIOs.
        server_hostname: The server name asked for.
        port: The server's port, when known.
        owner: The ``SSLSocket``/``SSLObject`` being made.
        session: A session the caller offers for resumption.
        target: Where the connection goes, as its hook stated it (the proxy it goes through).
        prepare: Makes a context's own store complete (registers the policy's deferred
            anchors) before a connection is made on it: this one when no engine carries the
            connection, or one the connection is moved to (``SSLSocket.context``).

    Raises:
        CertificateRejected: The policy cannot verify this connection as it must.
    """
    runtime = state.runtime
    host = server_hostname.decode() if isinstance(server_hostname, bytes) else server_hostname
    decision = runtime.decision(state.name, host, port)
    # The settings are read once. The plan, the engine and the verdict all follow from this
    # one reading: a change to the caller's context after it (by a setter, a C descriptor
    # called directly, another library's setter, another thread) reaches neither the engine
    # nor the verdict, and a connection made on the caller's own context is judged with
    # these settings after its handshake (see make_plan).
    reading = read_settings(context, state.recipe, state.python_recipe())
    # What the plan and the engine are a function of: the same as the last connection's (a
    # library's shared context), they are the last connection's, compared as a plain tuple.
    # A debugging callback set since keeps a connection off the warm engine (see
    # _warm_engine_fits).
    leaves = runtime.leaves(decision.exception)
    key = (decision, reading, host, port, leaves, runtime.generation())
    remembered = state.remembered(key)
    if remembered is not None and getattr(context, "_msg_callback", None) is None:
        settings, plan, engine = remembered
        return _make(
            runtime, context, settings, plan, engine, prepare, arguments, server_hostname,
            owner, session,
        )  # fmt: skip
    # A context made per connection (urllib3's, requests', httpx's) has no last connection:
    # the runtime keeps what the last few such readings were given. Only for a base decision
    # (one object for the runtime's life; a host's decision is made per connection), kept in
    # the value as well, so its id stands for it while the entry lives; the context's policy
    # steps and name decide the warm engine and the plan.
    shared_key = (
        _READING, id(decision), reading, host, port, leaves, key[-1], state.name,
        state.policy_steps, state.library_matches_names,
    )  # fmt: skip
    kept = runtime.recall(shared_key)
    if kept is not None and kept[0] is decision and getattr(context, "_msg_callback", None) is None:
        settings, plan, engine = kept[1:]
        state.remember(key, settings, plan, engine)
        return _make(
            runtime, context, settings, plan, engine, prepare, arguments, server_hostname,
            owner, session,
        )  # fmt: skip
    call = _Call(
        state, arguments, server_hostname, host, port, decision=decision, owner=owner,
        session=session, target=target,
    )  # fmt: skip
    settings = settings_from(reading)
    if state.library_matches_names and settings.verify_mode == ssl.CERT_REQUIRED:
        settings = replace(settings, check_hostname=True)  # the policy checks it as well
    plan = call.plan(settings)
    engine = context
    if plan.engine is not None:
        # The caller's own context obeys a weakening the policy refuses: no fallback then.
        engine = call.engine(settings, plan.engine, own=None if plan.weakened else context)
        if engine is context:
            plan = replace(plan, judge=True)
    elif _warm_engine_fits(context, state, settings, plan):
        warm = call.warm_engine(settings, plan.verify)
        if warm is not None:
            engine, plan = warm, replace(plan, engine=plan.verify, judge=False)
    if engine is context:
        call.prepare(prepare, context)
    elif not plan.decision.pins:  # a pinned server's leaves are learnt during call.plan
        state.remember(key, settings, plan, engine)
        if decision is runtime.base_decision(state.name):  # kept for the runtime's life
            runtime.keep(shared_key, (decision, settings, plan, engine))
    return call.make(context, settings, plan, engine, prepare)


def _warm_engine_fits(
    context: ssl.SSLContext, state: ContextState, settings: Settings, plan: Plan
) -> bool:
    """Tell whether a native connection may run on the runtime's engine for its settings.

    A library that makes a context per connection (urllib3, so requests) hands each
    handshake a cold certificate store, and the chain is then judged a second time offline.
    An engine built from the same settings, kept by the runtime, verifies the same chains in
    the handshake with a warm store, and, being private and built from the one reading of
    the settings, needs no second judgement (as for a client certificate's engine). Only
    for a context that trusts the policy's anchors alone: settings that differ in those
    anchors (a test's CA per context) would each build an engine of their own.
    """
    if not plan.judge or plan.opt_out or state.library_matches_names:
        return False
    if getattr(context, "_msg_callback", None) is not None:
        return False  # a debugging callback of the caller's own context: it must see the handshake
    policy_steps = state.policy_steps
    return all(step in policy_steps for step in settings.recipe if step[0] in ANCHOR_STEPS)
