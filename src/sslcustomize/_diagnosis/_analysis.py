"""Everything ``check`` says about a chain: each certificate, the verdict, every problem.

OpenSSL stops at the first problem it finds. To name every problem (an expired certificate
with the wrong name is both ``expired`` and ``hostname_mismatch``), the chain is replayed a few
more times with one check switched off at a time, and once with the leaf itself trusted (to
see the leaf's own problems behind an unknown issuer). The verdict itself is always the exact
one of the policy; the extra replays only add names for problems.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import ssl
from dataclasses import dataclass
from functools import lru_cache

from sslcustomize._policy._model import TrustSource
from sslcustomize._verdict._reasons import explain
from sslcustomize._verdict._verify import NO_CHECK_TIME, Check, evaluate, with_every_reason
from sslcustomize._x509._der import parse_certificate
from sslcustomize._x509._replay import replay_chain

__all__ = ["Analysis", "CertificateInfo", "Problem", "analyse", "describe", "every_reason"]


@dataclass(frozen=True, slots=True, kw_only=True)
class CertificateInfo:
    """What a person needs to know about one certificate."""

    subject: str
    issuer: str
    not_before: str
    not_after: str
    key: str
    signature_algorithm: str
    names: tuple[str, ...]
    pin: str
    sha256: str
    self_issued: bool


@dataclass(frozen=True, slots=True, kw_only=True)
class Problem:
    """One problem, with what it means and the fix."""

    reason: str
    problem: str
    fix: str


@dataclass(frozen=True, slots=True, kw_only=True)
class Analysis:
    """The verdict on a chain under a decision, and every problem found."""

    verified: bool
    problems: tuple[Problem, ...]
    notes: tuple[str, ...]


@lru_cache(maxsize=256)
def describe(der: bytes) -> CertificateInfo:
    """Describe one DER certificate (cached: a scan meets the same chains again and again).

    Raises:
        ValueError: The certificate cannot be read.
    """
    cert = parse_certificate(der)
    return CertificateInfo(
        subject=cert.subject.rfc4514,
        issuer=cert.issuer.rfc4514,
        not_before=cert.not_before.isoformat(),
        not_after=cert.not_after.isoformat(),
        key=cert.key,
        signature_algorithm=cert.signature_algorithm,
        names=cert.names,
        pin=cert.pin,
        sha256=hashlib.sha256(der).hexdigest(),
        self_issued=cert.self_issued,
    )


def every_reason(plan: Check, chain: tuple[bytes, ...]) -> tuple[str, ...]:
    """Return every reason code enforce mode finds for ``chain`` under ``plan``.

    The first codes are the verdict's own (what OpenSSL stopped at, ``pin_mismatch`` first
    when a pin failed); the others come from replaying the chain with one check off at a
    time. An accepted chain has none. ``check``, ``scan`` and report records all name these.

    Args:
        plan: The plan for the host, port and context.
        chain: The chain the server sent, DER, leaf first.

    Returns:
        The reason codes, without repeats, in a stable order; ``()`` when accepted.
    """
    verdict = evaluate(plan, chain)
    if verdict.accepted:
        return ()
    decision, flags, common_name = plan.decision, plan.verify_flags, plan.common_name
    check_name = decision.check_hostname
    trust, extra, oracle = decision.trust, decision.extra_ca, plan.runtime.oracle
    return with_every_reason(
        verdict,
        chain,
        plan.host or "",
        without_hostname=lambda: oracle(trust, extra, False, flags, common_name),
        without_dates=lambda: oracle(trust, extra, check_name, flags | NO_CHECK_TIME, common_name),
        check_hostname=check_name,
        common_name=common_name,
    ).reasons


def analyse(
    plan: Check,
    chain: tuple[bytes, ...],
    *,
    starttls: str | None = None,
    now: dt.datetime | None = None,
) -> Analysis:
    """Verify ``chain`` under ``plan`` and name every problem, with fixes.

    Args:
        plan: The plan for the host, port and context (what enforce mode decides).
        chain: The chain the server sent, DER, leaf first.
        starttls: The STARTTLS protocol spoken before TLS, for the fixes' commands.
        now: The current time, for messages about the clock.

    Returns:
        The verdict, the problems in a stable order, and notes.
    """
    reasons = every_reason(plan, chain)
    if not reasons:
        return Analysis(verified=True, problems=(), notes=_notes(plan, chain, verified=True))
    message = evaluate(plan, chain).verify_message
    problems = []
    for reason in reasons:
        problem, fix = explain(
            reason,
            chain=chain,
            host=plan.host,
            port=plan.port,
            starttls=starttls,
            message=message,
            now=now,
        )
        problems.append(Problem(reason=reason, problem=problem, fix=fix))
    return Analysis(
        verified=False, problems=tuple(problems), notes=_notes(plan, chain, verified=False)
    )


def _notes(plan: Check, chain: tuple[bytes, ...], *, verified: bool) -> tuple[str, ...]:
    """Say when requests' certifi bundle would judge differently from the system store."""
    decision = plan.decision
    by_trust = decision.exception is None  # an exception's pin or CA is not the system store
    if not (verified and by_trust and any(s.kind == "system" for s in decision.trust)):
        return ()
    flags, common_name = plan.verify_flags, plan.common_name
    # What Python itself calls the system store: OpenSSL's, or SSL_CERT_FILE/SSL_CERT_DIR.
    system = (
        TrustSource(kind="system"),
        *(s for entry in decision.environment if not entry.clients for s in entry.sources),
    )
    oracle = plan.runtime.oracle
    system_only = oracle(system, (), False, flags, common_name)
    try:
        certifi_only = oracle((TrustSource(kind="certifi"),), (), False, flags, common_name)
    except Exception:  # noqa: BLE001 - certifi missing: nothing to compare with
        return ()
    # Remembered by the runtime that built the two verifiers, not by a module-level cache
    # that would keep them (and so that runtime's contexts) alive after it.
    key = ("certifi notes", system_only, certifi_only, chain)
    return plan.runtime.memo(key, lambda: _certifi_notes(system_only, certifi_only, chain))


def _certifi_notes(
    system_only: ssl.SSLContext, certifi_only: ssl.SSLContext, chain: tuple[bytes, ...]
) -> tuple[str, ...]:
    """The certifi note for a chain (two offline handshakes: the runtime remembers it).

    Only a chain the system store itself vouches for: one that verifies through the policy's
    own CA files would fail in requests for another reason, told elsewhere.
    """
    if not replay_chain(system_only, chain, None).accepted:
        return ()
    if replay_chain(certifi_only, chain, None).accepted:
        return ()
    return (
        "this chain verifies with the system trust store but not with certifi's bundle: "
        "requests (which uses certifi) fails here unless sslcustomize is enabled",
    )
