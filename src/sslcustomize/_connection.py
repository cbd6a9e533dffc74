"""What happens to one connection: its plan, its verdict, and what follows from it.

The plan is made when the connection is wrapped; the verdict after the handshake; then the
connection proceeds, is rejected, or is reported.

Most connections take the native path: OpenSSL verifies during the handshake, exactly as
Python would. A connection whose host has an exception, whose rule is in report mode, or
whose code turned verification off takes the replay path: the handshake runs without
OpenSSL verification, and before any application data the chain the server sent is verified
offline by OpenSSL itself (:mod:`._replay`) with the trust, pins and host check of the rule.
"""

from __future__ import annotations

import atexit
import datetime as dt
import hashlib
import os
import ssl
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from ._decision import Decision, decide
from ._policy import TrustSource
from ._reasons import diagnose, explain, spki_pin
from ._replay import ReplayResult, replay_chain
from ._report import Record, Sink, now, open_sink, program, warn_safely
from ._state import current_policy
from ._trust import anchors_for
from .exceptions import CertificateRejected, LegacyContextWarning, UnverifiedConnectionWarning

__all__ = [
    "Plan",
    "Verdict",
    "base_decision",
    "evaluate",
    "failed_verdict",
    "finish",
    "plan_for",
    "reset",
]

# X509_V_FLAG_NO_CHECK_TIME: OpenSSL's flag to skip validity dates (not exported by ssl).
NO_CHECK_TIME = 0x200000


@dataclass(frozen=True, slots=True, kw_only=True)
class Plan:
    """How one connection is verified, decided when it is wrapped.

    Attributes:
        decision: The rule for this host, port and context.
        name: The context name.
        host: The server name asked for.
        port: The server's port, when known.
        opt_out: The caller turned verification off and the policy obeys: proceed, record.
        verify_flags: The caller's verification flags, for the offline verification.
        common_name: The caller's ``hostname_checks_common_name``.
    """

    decision: Decision
    name: str
    host: str | None
    port: int | None
    opt_out: bool = False
    verify_flags: int = 0
    common_name: bool = True


@dataclass(frozen=True, slots=True, kw_only=True)
class Verdict:
    """What enforce mode decides for a chain."""

    accepted: bool
    reasons: tuple[str, ...] = ()
    verify_code: int = 0
    verify_message: str = "ok"
    problem: str = ""
    fix: str = ""


# --- Decisions ---------------------------------------------------------------------------------

_decisions: dict[str | None, Decision] = {}


def base_decision(name: str | None) -> Decision:
    """Return the decision for a context name, before the host is known (cached)."""
    decision = _decisions.get(name)
    if decision is None:
        decision = _decisions[name] = decide(current_policy(), context=name)
    return decision


def _caller_verifies(context: ssl.SSLContext) -> bool:
    return context.verify_mode == ssl.CERT_REQUIRED and context.check_hostname


def plan_for(context: ssl.SSLContext, name: str, host: str | None, port: int | None) -> Plan | None:
    """Return the plan for a new connection, or ``None`` for the native path."""
    policy = current_policy()
    if host is not None and len(policy.index):
        decision = decide(policy, host=host, port=port, context=name, today=dt.date.today())
    else:
        decision = base_decision(name)
    verifies = _caller_verifies(context)
    if verifies and decision.mode == "enforce" and decision.exception is None:
        return None
    return Plan(
        decision=decision,
        name=name,
        host=host,
        port=port,
        opt_out=not verifies and decision.allow_code_opt_out,
        verify_flags=int(context.verify_flags),
        common_name=bool(context.hostname_checks_common_name),
    )


# --- Offline verification ----------------------------------------------------------------------


@lru_cache(maxsize=64)
def oracle(
    trust: tuple[TrustSource, ...],
    extra: tuple[TrustSource, ...],
    check_hostname: bool,  # noqa: FBT001 - a cache key
    verify_flags: int,
    common_name: bool,  # noqa: FBT001 - a cache key
) -> ssl.SSLContext:
    """A verifying client context for offline verification (never handed to callers)."""
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    context.check_hostname = check_hostname
    context.verify_flags = ssl.VerifyFlags(verify_flags)
    context.hostname_checks_common_name = common_name
    context.minimum_version = ssl.TLSVersion.TLSv1_2
    context.maximum_version = ssl.TLSVersion.TLSv1_2  # the replay speaks TLS 1.2
    (anchors_for(trust) + anchors_for(extra)).load_into(context)
    return context


def leaf_oracle(
    leaf: bytes, *, check_hostname: bool, common_name: bool = True, check_time: bool = False
) -> ssl.SSLContext:
    """A context trusting exactly ``leaf``: a pinned key's host check, or the leaf's own faults.

    Dates are not checked unless ``check_time`` (a pin trusts the key, not its certificate).
    """
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    context.check_hostname = check_hostname
    context.hostname_checks_common_name = common_name
    context.verify_flags |= ssl.VERIFY_X509_PARTIAL_CHAIN
    if not check_time:
        context.verify_flags |= NO_CHECK_TIME
    context.maximum_version = ssl.TLSVersion.TLSv1_2
    context.load_verify_locations(cadata=leaf)
    return context


def failed_verdict(
    verify_code: int,
    verify_message: str,
    chain: Sequence[bytes],
    host: str | None,
    port: int | None = None,
) -> Verdict:
    """Return the rejection verdict for an OpenSSL verification failure, explained."""
    diagnosis = diagnose(
        verify_code=verify_code, verify_message=verify_message, chain=chain, host=host, port=port
    )
    return Verdict(
        accepted=False,
        reasons=diagnosis.reasons,
        verify_code=verify_code,
        verify_message=verify_message,
        problem=diagnosis.problem,
        fix=diagnosis.fix,
    )


def _verdict(result: ReplayResult, chain: Sequence[bytes], host: str | None) -> Verdict:
    if result.accepted:
        return Verdict(accepted=True)
    return failed_verdict(result.verify_code, result.verify_message, chain, host)


def evaluate(plan: Plan, chain: tuple[bytes, ...]) -> Verdict:
    """Return what enforce mode decides for ``chain`` under ``plan`` (cached per minute)."""
    return _evaluate(plan.decision, chain, plan.host, plan.verify_flags, plan.common_name,
                     int(time.time() // 60))  # fmt: skip


@lru_cache(maxsize=256)
def _evaluate(
    decision: Decision,
    chain: tuple[bytes, ...],
    host: str | None,
    verify_flags: int,
    common_name: bool,  # noqa: FBT001 - a cache key
    _minute: int,
) -> Verdict:
    check_hostname = decision.check_hostname and host is not None
    verifier = oracle(decision.trust, decision.extra_ca, check_hostname, verify_flags, common_name)
    result = replay_chain(verifier, chain, host)
    if not decision.pins:
        return _verdict(result, chain, host)
    if chain and spki_pin(chain[0]) in decision.pins:
        # The handshake proved the server holds this key: trust it, check only the name.
        only_leaf = leaf_oracle(chain[0], check_hostname=check_hostname, common_name=common_name)
        named = replay_chain(only_leaf, chain[:1], host)
        return _verdict(named, chain, host)
    if result.accepted and any(spki_pin(der) in decision.pins for der in result.verified_chain[1:]):
        return Verdict(accepted=True)
    verdict = _verdict(result, chain, host)
    return Verdict(
        accepted=False,
        reasons=("pin_mismatch", *verdict.reasons),
        verify_code=verdict.verify_code,
        verify_message=verdict.verify_message,
        problem="the server's key matches none of the pins of its exception"
        + (f", and {verdict.problem}" if verdict.problem else ""),
        fix="if the server's key changed on purpose, update the pin: sslcustomize trust "
        f"{host or 'HOST'}; otherwise someone may be intercepting the connection",
    )


# --- After the handshake -----------------------------------------------------------------------

_sink_lock = threading.Lock()
_sink: Sink | None = None
_warned: set[tuple[str | None, str]] = set()


def _report_sink() -> Sink:
    global _sink  # noqa: PLW0603 - one sink per process and policy
    with _sink_lock:
        if _sink is None:
            policy = current_policy()
            _sink = open_sink(policy.report_sink.value, policy.report_path.value)
            atexit.register(_sink.close)
        return _sink


def reset() -> None:
    """Forget cached decisions, verdicts, warnings and the sink (the policy changed)."""
    global _sink  # noqa: PLW0603
    _decisions.clear()
    _warned.clear()
    _evaluate.cache_clear()
    _chain_fields.cache_clear()
    oracle.cache_clear()
    with _sink_lock:
        if _sink is not None:
            atexit.unregister(_sink.close)
            _sink.close()
        _sink = None


def _warn_once(host: str | None, reason: str, message: str, category: type[Warning]) -> None:
    key = (host, reason)
    if key in _warned:
        return
    _warned.add(key)
    warn_safely(message, category, stacklevel=6)


@lru_cache(maxsize=64)
def _chain_fields(chain: tuple[bytes, ...]) -> dict[str, Any]:
    """What a record says about a chain: read once per chain, not once per connection."""
    fields: dict[str, Any] = {
        "chain_sha256": tuple(hashlib.sha256(der).hexdigest() for der in chain)
    }
    if chain:
        try:
            from cryptography import x509  # noqa: PLC0415 - only when recording

            leaf = x509.load_der_x509_certificate(chain[0])
            fields["leaf_subject"] = leaf.subject.rfc4514_string()
            fields["issuer"] = leaf.issuer.rfc4514_string()
            fields["not_after"] = leaf.not_valid_after_utc.isoformat()
            fields["pin"] = spki_pin(chain[0])
        except ValueError:
            pass
    return fields


def record(plan: Plan, chain: tuple[bytes, ...], verdict: str, reasons: tuple[str, ...]) -> None:
    """Write a report record for this connection to the policy's sink."""
    origin = plan.decision.origin
    _report_sink().write(
        Record(
            time=now(),
            pid=os.getpid(),
            program=program(),
            context=plan.name,
            host=plan.host,
            port=plan.port,
            mode=plan.decision.mode,
            verdict=verdict,
            reasons=reasons,
            rule=plan.decision.rule,
            origin=str(origin) if origin else None,
            **_chain_fields(chain),
        )
    )


def rejection(
    plan_or_decision: Plan | Decision,
    verdict: Verdict,
    chain: tuple[bytes, ...],
    host: str | None,
    port: int | None,
) -> CertificateRejected:
    """Build the exception enforce mode raises for a failed verdict."""
    decision = plan_or_decision.decision if isinstance(plan_or_decision, Plan) else plan_or_decision
    origin = str(decision.origin) if decision.origin else None
    where = f"{host}:{port}" if port else str(host)
    by = f"rule '{decision.rule}'" + (f" from {origin}" if origin else "")
    fallback = " (strict defaults: the policy files have errors)" if decision.fallback else ""
    problem, fix = verdict.problem, verdict.fix
    if verdict.reasons and verdict.reasons[0] != "pin_mismatch":
        # Verdicts are cached without the port; the advice names it (`trust host:port`).
        problem, fix = explain(
            verdict.reasons[0], chain=chain, host=host, port=port, message=verdict.verify_message
        )
    message = (
        f"certificate rejected for {where}: {problem} [{', '.join(verdict.reasons)}] "
        f"under {by}{fallback}. Fix: {fix}."
    )
    return CertificateRejected(
        message,
        host=host,
        port=port,
        reasons=verdict.reasons,
        rule=decision.rule,
        origin=origin,
        fix=fix,
        chain=chain,
        verify_code=verdict.verify_code,
        verify_message=verdict.verify_message,
    )


def native_rejection(
    error: ssl.SSLCertVerificationError,
    decision: Decision | None,
    chain: tuple[bytes, ...],
    host: str | None,
    port: int | None,
) -> CertificateRejected:
    """Explain a failure of OpenSSL's own verification during the handshake."""
    verdict = failed_verdict(error.verify_code, error.verify_message, chain, host, port)
    return rejection(decision or base_decision(None), verdict, chain, host, port)


def finish(plan: Plan, chain: tuple[bytes, ...]) -> CertificateRejected | None:
    """Act on a completed handshake of the replay path.

    Returns:
        The rejection to raise (the caller closes the connection first), or ``None`` to
        proceed.
    """
    if plan.opt_out:
        verdict = evaluate(plan, chain)
        reasons = ("code_opt_out", *verdict.reasons)
        _warn_once(
            plan.host,
            "code_opt_out",
            f"{plan.name} connected to {plan.host} without certificate verification "
            "(its code turned verification off)",
            LegacyContextWarning,
        )
        record(plan, chain, "accepted" if verdict.accepted else "opt_out", reasons)
        return None
    verdict = evaluate(plan, chain)
    if verdict.accepted:
        return None
    if plan.decision.mode == "enforce":
        return rejection(plan, verdict, chain, plan.host, plan.port)
    for reason in verdict.reasons:
        _warn_once(
            plan.host,
            reason,
            f"report mode: {plan.host} would be rejected ({reason}): {verdict.problem}",
            UnverifiedConnectionWarning,
        )
    record(plan, chain, "rejected", verdict.reasons)
    return None
