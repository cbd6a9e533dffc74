"""The public API: exactly these names, typed, importable from the package."""

from __future__ import annotations

import ssl

import sslcustomize
import sslcustomize.exceptions

PUBLIC = {
    "CertificateRejected",
    "LegacyContextWarning",
    "NamedContexts",
    "Policy",
    "PolicyContext",
    "PolicyError",
    "PolicyWarning",
    "SSLCustomizeError",
    "SSLCustomizeWarning",
    "SharedContextError",
    "TrustError",
    "UnverifiedConnectionWarning",
    "__version__",
    "context_for",
    "create_default_context",
    "create_legacy_context",
    "extract",
    "inject",
    "is_injected",
    "load_policy",
    "named_contexts",
}


def test_all_is_the_public_api() -> None:
    """__all__ lists the public names, each of which exists."""
    assert set(sslcustomize.__all__) == PUBLIC
    for name in PUBLIC:
        assert hasattr(sslcustomize, name), name


def test_exception_hierarchy() -> None:
    """Rejections are SSLCertVerificationError; warnings share one root."""
    assert issubclass(sslcustomize.CertificateRejected, ssl.SSLCertVerificationError)
    for error in (
        sslcustomize.PolicyError,
        sslcustomize.TrustError,
        sslcustomize.SharedContextError,
    ):
        assert issubclass(error, sslcustomize.SSLCustomizeError)
    for warning in (
        sslcustomize.PolicyWarning,
        sslcustomize.LegacyContextWarning,
        sslcustomize.UnverifiedConnectionWarning,
    ):
        assert issubclass(warning, sslcustomize.SSLCustomizeWarning)
    assert set(sslcustomize.exceptions.__all__) <= PUBLIC


def test_policy_error_message_without_line() -> None:
    """A PolicyError without line or key still names the file."""
    error = sslcustomize.PolicyError("cannot read", path="/etc/p.toml")
    assert str(error) == "/etc/p.toml: cannot read"
    assert str(sslcustomize.PolicyError("x", path=None, key="mode")) == "<policy>: mode: x"
