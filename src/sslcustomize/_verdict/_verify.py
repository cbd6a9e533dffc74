"""Offline verification: what enforce mode decides for a chain, without a connection.

Every verdict is OpenSSL's own, obtained by replaying the chain into a verifying context
(:mod:`.._x509._replay`). The connection path judges with a verifier built from the caller's own
settings (see :func:`.._decision._engine.build_verifier`), so that report mode records exactly what
enforce mode would have decided for that caller; ``check`` judges with the policy's contexts.
Pins are applied on top: a pinned leaf key is trusted for its name only (the handshake proved
the server holds it), a pinned CA key only inside a chain OpenSSL verified, host name included.
"""

from __future__ import annotations

import ssl
from collections.abc import Callable, Sequence

from sslcustomize._decision._decide import Decision
from sslcustomize._decision._engine import NO_CHECK_TIME
from sslcustomize._policy._model import TrustSource
from sslcustomize._support._frozen import dataclass
from sslcustomize._support._sslclass import StdlibContext
from sslcustomize._trust._anchors import Anchors
from sslcustomize._verdict._reasons import diagnose, explain
from sslcustomize._x509._der import pin_or_none
from sslcustomize._x509._replay import ReplayResult, replay_chain

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Hashable
    from typing import Protocol, TypeVar

    T = TypeVar("T")

    class Oracles(Protocol):
        """What judges with a policy's anchors: the runtime (``Runtime.oracle``)."""

        def memo(self, key: Hashable, build: Callable[[], T]) -> T:
            """Return ``build()``, remembered for ``key`` while the runtime lives."""

        def oracle(
            self,
            trust: tuple[TrustSource, ...],
            extra: tuple[TrustSource, ...],
            check_hostname: bool,  # noqa: FBT001 - a cache key
            verify_flags: int,
            common_name: bool,  # noqa: FBT001 - a cache key
        ) -> ssl.SSLContext:
            """Return a verifying context with the anchors of ``trust`` and ``extra``."""


__all__ = [
    "NO_CHECK_TIME",
    "Check",
    "Verdict",
    "build_oracle",
    "evaluate",
    "failed_verdict",
    "judge_chain",
    "leaf_oracle",
    "oracle_settings",
    "with_every_reason",
]


@dataclass(frozen=True, slots=True, kw_only=True)
class Verdict:
    """What enforce mode decides for a chain."""

    accepted: bool
    reasons: tuple[str, ...] = ()
    verify_code: int = 0
    verify_message: str = "ok"
    problem: str = ""
    fix: str = ""


ACCEPTED = Verdict(accepted=True)


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
        return ACCEPTED
    if not result.judged:  # no verdict at all: refused, and nothing said against the chain
        problem, fix = explain(
            "unjudgeable", chain=chain, host=host, port=None, message=result.verify_message
        )
        return Verdict(
            accepted=False,
            reasons=("unjudgeable",),
            verify_code=result.verify_code,
            verify_message=result.verify_message,
            problem=problem,
            fix=fix,
        )
    return failed_verdict(result.verify_code, result.verify_message, chain, host)


def leaf_oracle(
    leaf: bytes, *, check_hostname: bool, common_name: bool = True, check_time: bool = False
) -> ssl.SSLContext:
    """A context trusting exactly ``leaf``: a pinned key's host check, or the leaf's own faults.

    Dates are not checked unless ``check_time`` (a pin trusts the key, not its certificate).
    """
    context = StdlibContext(ssl.PROTOCOL_TLS_CLIENT)
    context.check_hostname = check_hostname
    context.hostname_checks_common_name = common_name
    context.verify_flags |= ssl.VERIFY_X509_PARTIAL_CHAIN
    if not check_time:
        context.verify_flags |= NO_CHECK_TIME
    context.maximum_version = ssl.TLSVersion.TLSv1_2
    context.load_verify_locations(cadata=leaf)
    return context


def judge_chain(
    verifier: ssl.SSLContext,
    chain: tuple[bytes, ...],
    host: str | None,
    *,
    pins: tuple[str, ...] = (),
    check_hostname: bool = True,
) -> Verdict:
    """Return enforce mode's verdict on ``chain`` for ``host``: the one function of every path.

    Args:
        verifier: A verifying context with the anchors, flags and host check to judge with
            (its ``check_hostname`` must equal ``check_hostname``).
        chain: The chain as the server sent it, DER, leaf first.
        host: The server name asked for.
        pins: The exception's SPKI pins; empty means no pinning.
        check_hostname: Whether the certificate must name the host. ``False`` is honoured
            only for a pin of the leaf's own key: a pinned CA key vouches for names.
    """
    result = replay_chain(verifier, chain, host)
    if not pins:
        return _verdict(result, chain, host)
    check_name = check_hostname and host is not None
    if chain and pin_or_none(chain[0]) in pins:
        # The handshake proved the server holds this key: trust it, check only the name.
        only_leaf = leaf_oracle(
            chain[0], check_hostname=check_name, common_name=verifier.hostname_checks_common_name
        )
        return _verdict(replay_chain(only_leaf, chain[:1], host), chain, host)
    if (
        check_name
        and result.accepted
        and any(pin_or_none(der) in pins for der in result.verified_chain[1:])
    ):
        return ACCEPTED
    verdict = _verdict(result, chain, host)
    return Verdict(
        accepted=False,
        reasons=("pin_mismatch", *(r for r in verdict.reasons if r != "pin_mismatch")),
        verify_code=verdict.verify_code,
        verify_message=verdict.verify_message,
        problem="the server's key matches none of the pins of its exception"
        + (f", and {verdict.problem}" if verdict.problem else ""),
        fix="",  # the advice names the port: see _reasons.explain("pin_mismatch", ...)
    )


def with_every_reason(
    verdict: Verdict,
    chain: tuple[bytes, ...],
    host: str | None,
    *,
    without_hostname: Callable[[], ssl.SSLContext],
    without_dates: Callable[[], ssl.SSLContext],
    check_hostname: bool,
    common_name: bool,
) -> Verdict:
    """Return ``verdict`` with every reason enforce mode finds, not only OpenSSL's first.

    OpenSSL stops at the first problem. The chain is replayed again with one check off at a
    time: the verifier without the host check, the verifier without the dates, and the leaf
    trusted on its own (its dates, key and usage, then its name). Each rejection among them
    names one more problem. The verdict itself is unchanged. ``check``'s analysis
    (:func:`.._analysis.every_reason`) and the runtime's verdicts both name their reasons here.

    Args:
        verdict: The verdict of the verifier, unchanged when accepted.
        chain: The chain the server sent, DER, leaf first.
        host: The server name asked for.
        without_hostname: Returns the verdict's verifier without its host check (called
            only for a rejected chain).
        without_dates: Returns the verdict's verifier that ignores the dates.
        check_hostname: Whether the verdict's verifier checks the host name.
        common_name: Whether it reads a name from the subject's common name.
    """
    if verdict.accepted or not chain:
        return verdict
    variants = [
        (without_hostname(), chain),
        (without_dates(), chain),
        (leaf_oracle(chain[0], check_hostname=False, check_time=True), chain[:1]),
        (
            leaf_oracle(chain[0], check_hostname=check_hostname, common_name=common_name),
            chain[:1],
        ),
    ]
    reasons = list(verdict.reasons)
    for context, replayed in variants:
        result = replay_chain(context, replayed, host)
        if not result.accepted and result.verify_code > 0:
            found = failed_verdict(result.verify_code, result.verify_message, chain, host)
            reasons.extend(r for r in found.reasons if r not in reasons)
    return Verdict(
        accepted=False,
        reasons=tuple(reasons),
        verify_code=verdict.verify_code,
        verify_message=verdict.verify_message,
        problem=verdict.problem,
        fix=verdict.fix,
    )


# --- Judging with the policy's own anchors (check, explain) -------------------------------------


def build_oracle(
    anchors: Anchors,
    check_hostname: bool,  # noqa: FBT001 - a cache key of the runtime
    verify_flags: int,
    common_name: bool,  # noqa: FBT001 - a cache key of the runtime
) -> ssl.SSLContext:
    """Return a verifying client context with ``anchors`` (``check`` judges with it)."""
    context = StdlibContext(ssl.PROTOCOL_TLS_CLIENT)
    context.check_hostname = check_hostname
    context.verify_flags = ssl.VerifyFlags(verify_flags)
    context.hostname_checks_common_name = common_name
    context.minimum_version = ssl.TLSVersion.TLSv1_2
    context.maximum_version = ssl.TLSVersion.TLSv1_2  # the replay speaks TLS 1.2
    anchors.load_into(context)
    return context


@dataclass(frozen=True, slots=True, kw_only=True)
class Check:
    """What ``check`` verifies a chain against: a decision and a client's verify settings.

    Attributes:
        decision: The rule for this host, port and context.
        name: The context name.
        host: The server name asked for.
        port: The server's port, when known.
        verify_flags: The client's verification flags.
        common_name: The client's ``hostname_checks_common_name``.
        runtime: The runtime of the policy, whose anchors (re-checked as its trust sources
            change) judge the chain.
    """

    runtime: Oracles
    decision: Decision
    name: str
    host: str | None
    port: int | None
    verify_flags: int = 0
    common_name: bool = True


def oracle_settings(
    check: Check,
) -> tuple[tuple[TrustSource, ...], tuple[TrustSource, ...], bool, int, bool]:
    """Return what :func:`evaluate`'s verifier is made of: trust, extra CAs, host check, flags.

    The arguments of ``Runtime.oracle``, in its order: a context built from them and allowed
    TLS 1.3 judges a real handshake as the replay judges its chain (``scan``).
    """
    decision = check.decision
    check_name = decision.check_hostname and check.host is not None
    pins_allow_any_name = bool(decision.pins) and not decision.check_hostname
    return (
        decision.trust,
        decision.extra_ca,
        check_name and not pins_allow_any_name,
        check.verify_flags,
        check.common_name,
    )


def evaluate(check: Check, chain: tuple[bytes, ...]) -> Verdict:
    """Return what enforce mode decides for ``chain`` under the policy's anchors."""
    decision = check.decision
    verifier = check.runtime.oracle(*oracle_settings(check))
    return judge_chain(
        verifier, chain, check.host, pins=decision.pins, check_hostname=decision.check_hostname
    )
