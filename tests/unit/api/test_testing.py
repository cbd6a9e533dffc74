"""sslcustomize.testing: a policy for the length of a with block."""

from __future__ import annotations

import ssl

import pytest

import sslcustomize
from sslcustomize.testing import policy


def test_policy_applies_inside_and_is_restored_after() -> None:
    """Inside the block smtplib's factory verifies under the policy; after it, nothing is left."""
    before = ssl._create_stdlib_context  # type: ignore[attr-defined]
    with policy("minimum_tls = '1.3'"):
        context = ssl._create_stdlib_context()  # type: ignore[attr-defined]
        assert context.verify_mode == ssl.CERT_REQUIRED
        assert context.minimum_version == ssl.TLSVersion.TLSv1_3
    assert ssl._create_stdlib_context is before  # type: ignore[attr-defined]
    assert not sslcustomize.is_injected()


def test_policy_refuses_to_nest_inside_an_injection() -> None:
    """Inside an existing injection the helper refuses, rather than restore the wrong state."""
    sslcustomize.inject()
    try:
        with pytest.raises(RuntimeError, match="already injected"), policy("version = 1"):
            pass
    finally:
        sslcustomize.extract()


def test_broken_policy_text_fails_closed(capsys: pytest.CaptureFixture[str]) -> None:
    """A broken policy in a test still verifies, and says why."""
    with policy("mode = 'off'"):
        assert ssl.create_default_context().verify_mode == ssl.CERT_REQUIRED
    assert "strict defaults" in capsys.readouterr().err
