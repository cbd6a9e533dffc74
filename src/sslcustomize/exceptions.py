"""Errors and warnings raised by sslcustomize.

Errors::

    SSLCustomizeError
    ├── PolicyError                       a policy file is wrong: path, line, key
    ├── TrustError                        a trust source cannot be used
    └── SharedContextError (ValueError)   a change to a context shared between callers
    ssl.SSLCertVerificationError
    └── CertificateRejected               a server certificate failed under the policy

``CertificateRejected`` subclasses :class:`ssl.SSLCertVerificationError`, so code that already
catches verification failures (or :class:`ssl.SSLError`, or :class:`OSError`) keeps working.

Warnings::

    SSLCustomizeWarning
    ├── PolicyWarning                     a policy setting was ignored (for example, locked)
    ├── LegacyContextWarning              code explicitly turned verification off
    └── UnverifiedConnectionWarning       report mode let a failing connection proceed
"""

from __future__ import annotations

import ssl

__all__ = [
    "CertificateRejected",
    "LegacyContextWarning",
    "PolicyError",
    "PolicyWarning",
    "SSLCustomizeError",
    "SSLCustomizeWarning",
    "SharedContextError",
    "TrustError",
    "UnverifiedConnectionWarning",
]


class SSLCustomizeError(Exception):
    """Root of the errors sslcustomize raises, other than certificate rejections."""


class PolicyError(SSLCustomizeError):
    """A policy file cannot be used as written.

    Attributes:
        path: The file, or ``None`` for a policy given in code.
        line: The 1-based line of the offending setting, when known.
        key: The dotted key, such as ``exception[2].pin``, when the error is about one.
        problem: What is wrong, without the location.
    """

    def __init__(
        self, problem: str, *, path: str | None, line: int | None = None, key: str | None = None
    ) -> None:
        """Record where the problem is and build a one-line message from it."""
        self.problem = problem
        self.path = path
        self.line = line
        self.key = key
        where = path or "<policy>"
        if line is not None:
            where += f":{line}"
        if key:
            where += f": {key}"
        super().__init__(f"{where}: {problem}")


class TrustError(SSLCustomizeError):
    """A trust source cannot be used (no system store, certifi missing, unreadable bundle)."""


class SharedContextError(SSLCustomizeError, ValueError):
    """A change to a context that sslcustomize shares between callers was refused.

    The change would reach every other caller of that context (for example every http.client
    connection of the process); make a context of your own instead.
    """


class CertificateRejected(ssl.SSLCertVerificationError):
    """A server's certificate failed verification under the effective policy.

    Attributes:
        host: The name the client asked for (``server_hostname``).
        port: The server's port, when known.
        reasons: Reason codes such as ``("expired", "hostname_mismatch")``.
        rule: Which rule of the policy applied, for example ``default`` or ``context smtplib``.
        origin: The file and line of that rule, when it came from a file.
        fix: The safe fix, in one or two sentences.
        chain: The certificates the server sent, DER-encoded, leaf first.
        verify_code: OpenSSL's verification result code.
        verify_message: OpenSSL's verification message.
    """

    def __init__(
        self,
        message: str,
        *,
        host: str | None,
        port: int | None,
        reasons: tuple[str, ...],
        rule: str,
        origin: str | None,
        fix: str,
        chain: tuple[bytes, ...],
        verify_code: int,
        verify_message: str,
    ) -> None:
        """Keep the details; the first argument is the complete human-readable message."""
        super().__init__(1, message)
        self.host = host
        self.port = port
        self.reasons = reasons
        self.rule = rule
        self.origin = origin
        self.fix = fix
        self.chain = chain
        self.verify_code = verify_code
        self.verify_message = verify_message
        self.reason = "CERTIFICATE_VERIFY_FAILED"
        self.library = "SSL"

    def __str__(self) -> str:
        """Return the message alone, without the errno that OSError would prefix."""
        return str(self.args[1])


class SSLCustomizeWarning(UserWarning):
    """Root of the warnings sslcustomize emits."""


class PolicyWarning(SSLCustomizeWarning):
    """A policy setting was not applied as written (a lower layer changed a locked key)."""


class LegacyContextWarning(SSLCustomizeWarning):
    """Code explicitly asked for a context that does not verify certificates."""


class UnverifiedConnectionWarning(SSLCustomizeWarning):
    """Report mode let a connection proceed that enforce mode would have rejected."""
