"""sslcustomize: certificate verification for every TLS client in a Python process.

The public API is listed here and only here; everything else is private.

The names are loaded on first use (PEP 562): ``import sslcustomize`` alone costs next to
nothing, so that ``sslcustomize lint`` and the start-up hook do not pay for the policy, the
contexts and the ``ssl`` module they do not use.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from sslcustomize._connection._contexts import (
        NamedContexts,
        PolicyContext,
        context_for,
        create_default_context,
        create_legacy_context,
        named_contexts,
    )
    from sslcustomize._inject import extract, inject, is_injected
    from sslcustomize._policy._model import Policy
    from sslcustomize._support._version import __version__
    from sslcustomize._trust._checked_policy import load_policy
    from sslcustomize.exceptions import (
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

# Public name -> the private module that defines it (the imports above, for type checkers).
_HOME = {
    "NamedContexts": "._connection._contexts",
    "PolicyContext": "._connection._contexts",
    "context_for": "._connection._contexts",
    "create_default_context": "._connection._contexts",
    "create_legacy_context": "._connection._contexts",
    "named_contexts": "._connection._contexts",
    "extract": "._inject",
    "inject": "._inject",
    "is_injected": "._inject",
    "Policy": "._policy._model",
    "load_policy": "._trust._checked_policy",
    "__version__": "._support._version",
    "CertificateRejected": ".exceptions",
    "LegacyContextWarning": ".exceptions",
    "PolicyError": ".exceptions",
    "PolicyWarning": ".exceptions",
    "SharedContextError": ".exceptions",
    "SSLCustomizeError": ".exceptions",
    "SSLCustomizeWarning": ".exceptions",
    "TrustError": ".exceptions",
    "UnverifiedConnectionWarning": ".exceptions",
}


def __getattr__(name: str) -> Any:
    """Load a public name from its module on first use, then keep it here."""
    home = _HOME.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib  # noqa: PLC0415 - not for the hook, which imports submodules directly

    value = getattr(importlib.import_module(home, __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    """List the module's names, the ones not loaded yet included."""
    return sorted({*globals(), *__all__})
