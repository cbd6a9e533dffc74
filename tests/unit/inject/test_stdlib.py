"""The standard library's factories under the policy: verify where Python would not."""

from __future__ import annotations

import ssl
import sys
import types
from pathlib import Path

import pytest

import _pki
from _fixtures import memory_handshake
from sslcustomize._connection._contexts import PolicyContext
from sslcustomize._inject import _stdlib
from sslcustomize._inject._patcher import Patcher
from sslcustomize._support._originals import (
    ORIGINAL_CREATE_DEFAULT_CONTEXT,
    ORIGINAL_CREATE_UNVERIFIED_CONTEXT,
)


def _stdlib_context(*args: object, **kwargs: object) -> ssl.SSLContext:
    """Call ``ssl._create_stdlib_context`` as smtplib does (typeshed does not declare it)."""
    factory = ssl._create_stdlib_context  # type: ignore[attr-defined]  # private, undeclared
    context: ssl.SSLContext = factory(*args, **kwargs)
    return context


def test_inject_replaces_the_factories_and_undo_restores_them() -> None:
    """Every factory holding Python's own is hooked; the patcher's undo puts each back."""
    before = {name: getattr(ssl, name) for name in _stdlib._DEFAULTS}
    patcher = Patcher()
    _stdlib.inject(patcher)
    try:
        assert vars(ssl)["_create_stdlib_context"] is _stdlib.create_stdlib_context
        assert ssl._create_unverified_context is _stdlib.create_unverified_context
        assert ssl._create_default_https_context is _stdlib.create_default_https_context
    finally:
        patcher.undo()
    assert {name: getattr(ssl, name) for name in _stdlib._DEFAULTS} == before


def test_a_programs_own_factory_is_kept_and_a_moved_one_keeps_its_meaning() -> None:
    """Code's own factory is not hooked; the documented global opt-out stays an opt-out."""
    originals = (ORIGINAL_CREATE_DEFAULT_CONTEXT, ORIGINAL_CREATE_UNVERIFIED_CONTEXT)

    def own() -> ssl.SSLContext:
        return ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)

    hook_for = _stdlib._hook_for
    assert hook_for("_create_default_https_context", own, originals) is None
    moved = hook_for("_create_default_https_context", ORIGINAL_CREATE_UNVERIFIED_CONTEXT, originals)
    assert moved is _stdlib.create_unverified_context
    assert hook_for("_create_stdlib_context", ORIGINAL_CREATE_UNVERIFIED_CONTEXT, originals) is (
        _stdlib.create_stdlib_context
    )


@pytest.mark.usefixtures("inject_pki_root")
def test_stdlib_context_verifies_what_python_would_not(pki: _pki.TestPKI, tmp_path: Path) -> None:
    """Attack: smtplib's context (gh-91826) refuses an untrusted server under the policy."""
    context = _stdlib_context()
    assert isinstance(context, PolicyContext)
    assert context.verify_mode == ssl.CERT_REQUIRED
    assert context.check_hostname
    with pytest.raises(ssl.SSLCertVerificationError):
        memory_handshake(context, pki["unknown_issuer"].server_context(tmp_path), "localhost")


@pytest.mark.usefixtures("inject_pki_root")
def test_stdlib_context_accepts_the_policys_trust(pki: _pki.TestPKI, tmp_path: Path) -> None:
    """Twin: the same context accepts a server the policy trusts."""
    context = _stdlib_context()
    assert memory_handshake(context, pki["good"].server_context(tmp_path), "localhost").version()


@pytest.mark.usefixtures("inject_pki_root")
def test_an_explicit_opt_out_is_applied_as_given() -> None:
    """cert_reqs=CERT_NONE turns the host check off first, as Python's order requires."""
    context = _stdlib_context(cert_reqs=ssl.CERT_NONE)
    assert context.verify_mode == ssl.CERT_NONE
    assert not context.check_hostname
    unverified = ssl._create_unverified_context()  # noqa: S323 - the opt-out under test
    assert isinstance(unverified, PolicyContext)
    assert unverified.verify_mode == ssl.CERT_NONE


@pytest.mark.usefixtures("inject_pki_root")
def test_arguments_python_refuses_are_refused_alike() -> None:
    """check_hostname=True with the default cert_reqs raises ValueError, as Python's does."""
    with pytest.raises(ValueError, match="check_hostname"):
        ORIGINAL_CREATE_UNVERIFIED_CONTEXT(check_hostname=True)
    with pytest.raises(ValueError, match="check_hostname"):
        ssl._create_unverified_context(check_hostname=True)  # noqa: S323 - refused as Python refuses


@pytest.mark.usefixtures("inject_pki_root")
def test_a_server_context_is_pythons_own() -> None:
    """Server-side contexts are made by ssl unchanged, not as policy contexts."""
    server = _stdlib_context(ssl.PROTOCOL_TLS_SERVER)
    assert not isinstance(server, PolicyContext)
    client_auth = ssl._create_unverified_context(purpose=ssl.Purpose.CLIENT_AUTH)  # noqa: S323 - a server context
    assert not isinstance(client_auth, PolicyContext)


def test_a_prebuilt_default_opener_is_dropped_and_restored() -> None:
    """urlopen()'s opener built before injection goes; the undo puts it back."""
    import urllib.request

    opener = urllib.request.build_opener(
        urllib.request.HTTPSHandler(context=ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT))
    )
    saved = urllib.request._opener  # type: ignore[attr-defined]
    urllib.request._opener = opener  # type: ignore[attr-defined]
    try:
        patcher = Patcher()
        _stdlib.inject(patcher)
        assert urllib.request._opener is None  # type: ignore[attr-defined]
        urllib.request._opener = urllib.request.build_opener(  # type: ignore[attr-defined]
            urllib.request.HTTPSHandler(context=ssl.create_default_context())
        )
        patcher.undo()
        assert urllib.request._opener is opener  # type: ignore[attr-defined]
    finally:
        urllib.request._opener = saved  # type: ignore[attr-defined]


def test_an_opener_the_program_installed_is_kept() -> None:
    """Twin: an opener with handlers of the program's own choosing is not dropped."""
    import urllib.request

    opener = urllib.request.build_opener(
        urllib.request.HTTPCookieProcessor(),
        urllib.request.HTTPSHandler(context=ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)),
    )
    saved = urllib.request._opener  # type: ignore[attr-defined]
    urllib.request._opener = opener  # type: ignore[attr-defined]
    try:
        patcher = Patcher()
        _stdlib.inject(patcher)
        assert urllib.request._opener is opener  # type: ignore[attr-defined]
        patcher.undo()
    finally:
        urllib.request._opener = saved  # type: ignore[attr-defined]


def test_a_reloaded_ssl_body_is_hooked_again() -> None:
    """A fresh body's own factories (not the saved originals) are hooked like the first ones."""
    patcher = Patcher()
    hook = _stdlib._hook_again(patcher)
    body = types.ModuleType("ssl_copy")

    def fresh_default(*args: object, **kwargs: object) -> object:
        return ORIGINAL_CREATE_DEFAULT_CONTEXT()

    def fresh_unverified(*args: object, **kwargs: object) -> object:
        return ORIGINAL_CREATE_UNVERIFIED_CONTEXT()

    names = vars(body)
    names.update(
        create_default_context=fresh_default,
        _create_default_https_context=fresh_default,
        _create_unverified_context=fresh_unverified,
        _create_stdlib_context=fresh_unverified,
    )
    hook(body)
    assert names["create_default_context"] is not fresh_default
    assert names["_create_stdlib_context"] is _stdlib.create_stdlib_context
    patcher.undo()
    assert names["_create_stdlib_context"] is fresh_unverified
    assert "ssl_copy" not in sys.modules
