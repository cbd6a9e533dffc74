"""The text of a rejection: what is wrong, for which host, under which rule, and the safe fix.

Built where the verdict is known, from the decision, the verdict and the chain; the advice
must work when pasted (``sslcustomize trust --starttls smtp host:port``), so it is told the
port and the STARTTLS protocol by the connection.
"""

from __future__ import annotations

import os
import ssl

from sslcustomize._decision._decide import Decision
from sslcustomize._policy._model import DEFAULT_EXCEPTION_DAYS
from sslcustomize._verdict._reasons import explain, proxy_fix, renewal
from sslcustomize._verdict._verify import Verdict, failed_verdict
from sslcustomize.exceptions import CertificateRejected

__all__ = ["NO_NAME", "native_rejection", "rejection", "unjudgeable"]


def rejection(
    decision: Decision,
    verdict: Verdict,
    chain: tuple[bytes, ...],
    host: str | None,
    port: int | None,
    *,
    starttls: str | None = None,
) -> CertificateRejected:
    """Build the exception enforce mode raises for a failed verdict.

    Args:
        decision: The rule the connection was judged under.
        verdict: The failed verdict.
        chain: The chain judged (DER, leaf first).
        host: The server name asked for.
        port: The server's port, when known.
        starttls: The STARTTLS protocol of the connection, if it is one (the advice names it).
    """
    origin = str(decision.origin) if decision.origin else None
    where = f"[{host}]:{port}" if port and host and ":" in host else f"{host}:{port}"
    where = where if port else str(host)
    by = f"rule '{decision.rule}'" + (f" from {origin}" if origin else "")
    fallback = " (the fallback: the policy files have errors)" if decision.fallback else ""
    problem, fix = _problem_and_fix(decision, verdict, chain, host, port, starttls=starttls)
    # OpenSSL's own words first, as Python's own error has them: code that matches
    # "certificate verify failed" (or OpenSSL's reason) in the text keeps working.
    native = f"[SSL: CERTIFICATE_VERIFY_FAILED] certificate verify failed: {verdict.verify_message}"
    message = (
        f"{native}; sslcustomize: certificate rejected for {where}: {problem} "
        f"[{', '.join(verdict.reasons)}] under {by}{fallback}. Fix: {fix}."
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


def _problem_and_fix(
    decision: Decision,
    verdict: Verdict,
    chain: tuple[bytes, ...],
    host: str | None,
    port: int | None,
    *,
    starttls: str | None,
) -> tuple[str, str]:
    """Say what is wrong and the safe fix, for this host and port (verdicts are cached without)."""
    problem, fix = verdict.problem, verdict.fix
    if verdict.reasons and (verdict.verify_code > 0 or verdict.reasons[0] == "pin_mismatch"):
        # Verdicts are cached without the port; the advice names it (`trust host:port`).
        explained, fix = explain(
            verdict.reasons[0], chain=chain, host=host, port=port,
            starttls=starttls, message=verdict.verify_message,
        )  # fmt: skip
        if verdict.reasons[0] != "pin_mismatch":
            problem = explained
    if verdict.reasons[:1] == ("unknown_issuer",) and decision.ignored_environment:
        fix = _ignored_variables_fix(decision)
    elif verdict.reasons and decision.exception is None:
        fix = proxy_fix(verdict.reasons[0], host, os.environ) or fix
    if decision.expired is not None:
        # The commonest cause after a date passes: say so where the failure shows.
        expired = decision.expired
        fix = renewal(
            pattern=str(expired.host), origin=str(expired.origin), expired_on=expired.expires,
            host=host, port=port, starttls=starttls, days=DEFAULT_EXCEPTION_DAYS,
        ) + f"; otherwise: {fix}"  # fmt: skip
    return problem, fix


def _ignored_variables_fix(decision: Decision) -> str:
    """The fix when a CA-bundle variable this client reads is not used (a lock, a bad path).

    Advising to add the CA to the policy's trust list would be wrong twice: the user has
    named it already, and under a lock on ``trust`` only the system layer can add it.
    """
    sentences = [
        f"{entry.variable}={entry.value} is ignored: "
        + (
            f"the system policy locks trust ({entry.why}); if its CA is to be trusted, the "
            "administrator must add it to the system policy's trust list"
            if entry.state == "ignored"
            else f"{entry.why}"
        )
        for entry in decision.ignored_environment
    ]
    return "; ".join(sentences)


def native_rejection(
    error: ssl.SSLCertVerificationError,
    decision: Decision,
    chain: tuple[bytes, ...],
    host: str | None,
    port: int | None,
    *,
    starttls: str | None = None,
) -> CertificateRejected:
    """Explain a failure of OpenSSL's own verification during the handshake."""
    verdict = failed_verdict(error.verify_code, error.verify_message, chain, host, port)
    return rejection(decision, verdict, chain, host, port, starttls=starttls)


def unjudgeable(error: BaseException) -> Verdict:
    """The verdict when the chain cannot even be judged (fail closed)."""
    return Verdict(
        accepted=False,
        reasons=("invalid",),
        verify_code=-1,
        verify_message=str(error),
        problem=f"the certificate could not be verified ({error})",
        fix="run sslcustomize doctor and sslcustomize check HOST to see what is wrong",
    )


#: The verdict when the code turned the host name check off and gave no name to check.
NO_NAME = Verdict(
    accepted=False,
    reasons=("hostname_mismatch",),
    verify_code=-1,
    verify_message="no server name to check",
    problem="the code turned the host name check off and gave no server name, and the policy "
    "refuses code opt-outs",
    fix="pass server_hostname= to SSLContext.wrap_socket()/wrap_bio() (ssl.wrap_socket() "
    "cannot pass one)",
)
