"""Contexts that stay Python's own whatever class ssl.SSLContext names (truststore#121)."""

from __future__ import annotations

import ssl

import pytest

from sslcustomize._support._sslclass import PYTHON_SSLCONTEXT, StdlibContext, substitute


class Substitute(PYTHON_SSLCONTEXT):  # type: ignore[misc,valid-type]  # a runtime class
    """Stand for truststore's or gevent's class, rebound as ssl.SSLContext."""


@pytest.fixture
def rebound(monkeypatch: pytest.MonkeyPatch) -> type[ssl.SSLContext]:
    """Rebind ssl.SSLContext to a substitute for the test, as inject_into_ssl() does."""
    monkeypatch.setattr(ssl, "SSLContext", Substitute)
    return Substitute


def test_no_substitute_by_default() -> None:
    """With ssl.SSLContext as Python defines it there is no substitute."""
    assert substitute() is None
    assert StdlibContext.__mro__[1] is PYTHON_SSLCONTEXT


@pytest.mark.usefixtures("rebound")
def test_setters_of_a_stdlib_context_work_under_a_substitute() -> None:
    """Attack: after the rebinding, setting minimum_version and options does not recurse."""
    assert substitute() is Substitute
    context = StdlibContext(ssl.PROTOCOL_TLS_CLIENT)
    context.minimum_version = ssl.TLSVersion.TLSv1_3
    context.options |= ssl.OP_NO_COMPRESSION
    context.verify_mode = ssl.CERT_REQUIRED
    assert context.minimum_version == ssl.TLSVersion.TLSv1_3
    assert context.options & ssl.OP_NO_COMPRESSION


@pytest.mark.usefixtures("rebound")
def test_pythons_own_class_recurses_under_the_same_substitute() -> None:
    """Twin: the same setter on Python's unpinned class recurses: what StdlibContext avoids."""
    context = PYTHON_SSLCONTEXT(ssl.PROTOCOL_TLS_CLIENT)
    with pytest.raises(RecursionError):
        context.minimum_version = ssl.TLSVersion.TLSv1_3
