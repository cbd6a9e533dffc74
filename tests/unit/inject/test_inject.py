"""inject() and extract(): hooks installed once, every replaced attribute restored exactly."""

from __future__ import annotations

import ssl
import sys
import urllib.request

import pytest

import sslcustomize
from _fixtures import WritePolicy
from sslcustomize._connection._contexts import context_state
from sslcustomize._inject import replaced_attributes

FACTORIES = (
    "create_default_context",
    "_create_default_https_context",
    "_create_stdlib_context",
    "_create_unverified_context",
    *(("wrap_socket",) if hasattr(ssl, "wrap_socket") else ()),  # 3.10, 3.11
)


def _snapshot() -> dict[str, object]:
    return {name: getattr(ssl, name) for name in FACTORIES} | {
        "SSLContext": ssl.SSLContext,
        "opener": urllib.request._opener,  # type: ignore[attr-defined]
    }


def test_inject_then_extract_restores_everything(write_policy: WritePolicy) -> None:
    """Every attribute inject() replaces is listed and extract() puts the original back."""
    before = _snapshot()
    sslcustomize.inject(write_policy("version = 1\n"))
    assert sslcustomize.is_injected()
    replaced = {(target, name): old for target, name, old in replaced_attributes()}
    assert {name for target, name in replaced if target is ssl} == set(FACTORIES)
    for name in FACTORIES:
        assert getattr(ssl, name) is not before[name]
        assert replaced[(ssl, name)] is before[name]
    assert ssl.SSLContext is before["SSLContext"], "ssl.SSLContext must never be rebound"
    sslcustomize.extract()
    assert not sslcustomize.is_injected()
    assert replaced_attributes() == []
    assert _snapshot() == before


def test_inject_twice_installs_once(write_policy: WritePolicy) -> None:
    """A second inject() changes the policy only; one extract() undoes all."""
    before = _snapshot()
    sslcustomize.inject(write_policy("minimum_tls = '1.2'\n"))
    sslcustomize.inject(write_policy("minimum_tls = '1.3'\n"))
    assert len([1 for target, _, _ in replaced_attributes() if target is ssl]) == len(FACTORIES)
    assert ssl.create_default_context().minimum_version == ssl.TLSVersion.TLSv1_3
    sslcustomize.extract()
    assert _snapshot() == before


def test_extract_leaves_a_later_replacement_alone(write_policy: WritePolicy) -> None:
    """If code replaced a hooked factory after inject(), extract() does not clobber it."""
    before = _snapshot()
    sslcustomize.inject(write_policy("version = 1\n"))

    def theirs(*args: object, **kwargs: object) -> ssl.SSLContext:
        raise AssertionError

    ssl._create_default_https_context = theirs
    try:
        sslcustomize.extract()
        assert ssl._create_default_https_context is theirs
        assert ssl.create_default_context is before["create_default_context"]
    finally:
        ssl._create_default_https_context = before["_create_default_https_context"]  # type: ignore[assignment]


@pytest.mark.skipif(sys.version_info < (3, 12), reason="3.12+ caches the context in the opener")
def test_urllib_cached_opener_is_rebuilt_and_restored(write_policy: WritePolicy) -> None:
    """A urlopen() opener built before inject() is dropped; extract() drops the policy's one."""
    old = urllib.request.build_opener()
    urllib.request.install_opener(old)
    try:
        sslcustomize.inject(write_policy("version = 1\n"))
        assert urllib.request._opener is None  # type: ignore[attr-defined]
        urllib.request.install_opener(urllib.request.build_opener())
        handler = next(
            h
            for h in urllib.request._opener.handlers  # type: ignore[attr-defined]
            if isinstance(h, urllib.request.HTTPSHandler)
        )
        assert isinstance(handler._context, sslcustomize.PolicyContext)  # type: ignore[attr-defined]
        sslcustomize.extract()
        assert urllib.request._opener is old  # type: ignore[attr-defined]
    finally:
        urllib.request.install_opener(None)


def test_urllib_opener_installed_by_the_program_is_kept(write_policy: WritePolicy) -> None:
    """An opener with the program's own handlers is never dropped by inject()."""

    class Marker(urllib.request.BaseHandler):
        def https_request(self, request: urllib.request.Request) -> urllib.request.Request:
            return request  # a handler method, so that the opener keeps it

    custom = urllib.request.build_opener(Marker)
    urllib.request.install_opener(custom)
    try:
        sslcustomize.inject(write_policy("version = 1\n"))
        assert urllib.request._opener is custom  # type: ignore[attr-defined]
        sslcustomize.extract()
        assert urllib.request._opener is custom  # type: ignore[attr-defined]
    finally:
        urllib.request.install_opener(None)


def test_inject_with_broken_policy_file_fails_closed(
    write_policy: WritePolicy, capsys: pytest.CaptureFixture[str]
) -> None:
    """inject(policy=broken) still verifies, and says why on stderr."""
    sslcustomize.inject(write_policy("mode = 'off'\n"))
    context = ssl.create_default_context()
    assert isinstance(context, sslcustomize.PolicyContext)
    assert context.verify_mode == ssl.CERT_REQUIRED
    assert context_state(context).decision.fallback
    assert "using strict defaults" in capsys.readouterr().err
