"""The public API: exactly these names, typed, importable from the package."""

from __future__ import annotations

import ssl
import subprocess
import sys
from pathlib import Path

import pytest

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
    from sslcustomize._diagnosis._probe import ProbeError  # the commands' "could not check" error

    for error in (
        sslcustomize.PolicyError,
        sslcustomize.TrustError,
        sslcustomize.SharedContextError,
        ProbeError,
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


def test_lazy_names_are_the_public_api() -> None:
    """Every public name has a home module, and dir() lists the names not yet loaded."""
    homes = set(sslcustomize._HOME) | {"__version__"}
    assert homes == PUBLIC
    assert set(dir(sslcustomize)) >= PUBLIC


def test_unknown_name_is_an_attribute_error() -> None:
    """A name that is not public is an AttributeError, as on any module."""
    with pytest.raises(AttributeError, match="no_such_name"):
        sslcustomize.no_such_name  # noqa: B018 - the attribute access is the test


def test_import_and_lint_load_only_what_they_use(tmp_path: Path) -> None:
    """`import sslcustomize` loads no submodule; `lint` loads neither ssl nor the policy."""
    (tmp_path / "clean.py").write_text("x = 1\n")
    script = (
        # The start-up hook's leaf (sslcustomize._support._bootstrap) is there before.
        "import sys\nbefore = set(sys.modules)\nimport sslcustomize\n"
        "print(sorted(m for m in set(sys.modules) - before if m.startswith('sslcustomize')))\n"
        "from sslcustomize._cli import main\n"
        f"main(['lint', {str(tmp_path)!r}])\n"
        "print(sorted(m for m in sys.modules if m in {'ssl', 'sslcustomize._policy._model',\n"
        "    'sslcustomize._connection._contexts', 'sslcustomize._cli._check',\n"
        "    'importlib.metadata'}))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    ).stdout.splitlines()
    assert out == ["['sslcustomize']", "[]"]
