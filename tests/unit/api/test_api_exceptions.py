"""The public errors and warnings: one root each, and what a rejection carries."""

from __future__ import annotations

import ssl
import warnings

import pytest

from sslcustomize import exceptions


def test_every_error_and_warning_has_its_root() -> None:
    """The tree of the module's docstring: one root for errors, one for warnings."""
    names = [getattr(exceptions, name) for name in exceptions.__all__]
    classes = [value for value in names if isinstance(value, type)]
    assert len(classes) == len(exceptions.__all__)
    roots = (exceptions.SSLCustomizeError, exceptions.SSLCustomizeWarning)
    for cls in classes:
        if cls is not exceptions.CertificateRejected:
            assert issubclass(cls, roots), cls
    assert issubclass(exceptions.SSLCustomizeWarning, Warning)


def test_a_rejection_is_an_ssl_verification_error() -> None:
    """Callers' except ssl.SSLCertVerificationError keeps catching a policy rejection."""
    assert issubclass(exceptions.CertificateRejected, ssl.SSLCertVerificationError)
    assert issubclass(exceptions.SharedContextError, ValueError)


def test_a_policy_error_names_file_line_and_key() -> None:
    """The message is path:line: key: problem; without a line, path: key: problem."""
    error = exceptions.PolicyError("unknown mode", path="/p.toml", line=4, key="mode")
    assert (error.path, error.line, error.key, error.problem) == (
        "/p.toml",
        4,
        "mode",
        "unknown mode",
    )
    assert str(error) == "/p.toml:4: mode: unknown mode"
    assert "/p.toml:" in str(exceptions.PolicyError("bad", path="/p.toml", line=None, key="mode"))


def test_warnings_can_be_filtered_by_their_root() -> None:
    """An ignore filter on SSLCustomizeWarning silences every warning of the package."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        warnings.simplefilter("ignore", exceptions.SSLCustomizeWarning)
        warnings.warn("x", exceptions.UnverifiedConnectionWarning, stacklevel=1)
    with pytest.warns(exceptions.UnverifiedConnectionWarning):
        warnings.warn("x", exceptions.UnverifiedConnectionWarning, stacklevel=1)
