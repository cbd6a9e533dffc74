"""sslcustomize: certificate verification for every TLS client in a Python process.

The public API is listed here and only here; everything else is private.
"""

from __future__ import annotations

from ._contexts import (
    NamedContexts,
    PolicyContext,
    context_for,
    create_default_context,
    create_legacy_context,
    named_contexts,
)
from ._inject import extract, inject, is_injected
from ._policy import Policy, load_policy
from .exceptions import (
    CertificateRejected,
    LegacyContextWarning,
    PolicyError,
    PolicyWarning,
    SharedContextError,
    SSLCustomizeError,
    SSLCustomizeWarning,
    TrustError,
    UnverifiedConnectionWarning,
)

__version__ = "0.1.0"

__all__ = [
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
]
