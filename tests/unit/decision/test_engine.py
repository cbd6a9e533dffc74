"""Engines: private contexts built from a caller's settings, changed only as the plan says."""

from __future__ import annotations

import ssl
from pathlib import Path

import pytest

import _pki
from _fixtures import memory_handshake
from sslcustomize._decision._engine import (
    EngineSpec,
    build_engine,
    build_verifier,
    python_defaults,
    settings_of,
    weakened_flags,
)
from sslcustomize._support._originals import ORIGINAL_CREATE_DEFAULT_CONTEXT


def _no_extra(context: ssl.SSLContext, sources: tuple[object, ...]) -> None:
    raise AssertionError(f"no extra anchors expected: {sources}")


def test_settings_are_read_from_the_context() -> None:
    """A caller's minimum version, flags and host-name choice are in its settings."""
    context = ORIGINAL_CREATE_DEFAULT_CONTEXT()
    context.minimum_version = ssl.TLSVersion.TLSv1_3
    context.hostname_checks_common_name = True
    settings = settings_of(context, (("set_ciphers", ("HIGH",)),))
    assert settings.minimum_version == ssl.TLSVersion.TLSv1_3
    assert settings.common_name
    assert settings.verify_mode == ssl.CERT_REQUIRED
    assert not settings.has_client_certificate
    hash(settings)


def test_an_engine_carries_the_callers_settings_and_recipe(
    pki_root: Path, pki: _pki.TestPKI, tmp_path: Path
) -> None:
    """The caller's CA and TLS floor are on the engine, which verifies with them."""
    caller = ORIGINAL_CREATE_DEFAULT_CONTEXT()
    caller.minimum_version = ssl.TLSVersion.TLSv1_3
    settings = settings_of(caller, (("load_verify_locations", (str(pki_root), None, None)),))
    engine = build_engine(settings, EngineSpec(), _no_extra)
    assert engine is not caller
    assert engine.minimum_version == ssl.TLSVersion.TLSv1_3
    assert engine.verify_mode == ssl.CERT_REQUIRED
    assert engine.check_hostname
    connection = memory_handshake(engine, pki["good"].server_context(tmp_path), "localhost")
    assert connection.version() == "TLSv1.3"
    with pytest.raises(ssl.SSLCertVerificationError):
        memory_handshake(engine, pki["unknown_issuer"].server_context(tmp_path), "localhost")


def test_a_refused_lowering_is_raised_to_the_floor() -> None:
    """Attack: a caller's TLS 1.0 floor and security level 0 are raised as the spec says."""
    caller = ORIGINAL_CREATE_DEFAULT_CONTEXT()
    caller.set_ciphers("DEFAULT:@SECLEVEL=0")
    settings = settings_of(caller, (("set_ciphers", ("DEFAULT:@SECLEVEL=0",)),))
    level = python_defaults()[1]
    spec = EngineSpec(minimum_version=int(ssl.TLSVersion.TLSv1_2), security_level=level)
    engine = build_engine(settings, spec, _no_extra)
    assert engine.minimum_version >= ssl.TLSVersion.TLSv1_2
    assert engine.security_level == level


def test_a_deferred_engine_verifies_nothing_and_refuses_renegotiation() -> None:
    """verify=False: no verification in the handshake, and no second chain after the verdict."""
    settings = settings_of(ORIGINAL_CREATE_DEFAULT_CONTEXT(), ())
    engine = build_engine(settings, EngineSpec(verify=False), _no_extra)
    assert engine.verify_mode == ssl.CERT_NONE
    assert not engine.check_hostname
    assert engine.options & ssl.OP_NO_RENEGOTIATION


def test_a_withheld_client_certificate_is_not_replayed() -> None:
    """The spec can keep the caller's client certificate off an engine (a probe)."""
    settings = settings_of(
        ORIGINAL_CREATE_DEFAULT_CONTEXT(), (("load_cert_chain", ("/no/such.pem", None, None)),)
    )
    assert settings.has_client_certificate
    with pytest.raises(OSError):  # noqa: PT011 - replayed: the file is not there
        build_engine(settings, EngineSpec(), _no_extra)
    engine = build_engine(settings, EngineSpec(withhold_client_certificate=True), _no_extra)
    assert engine.verify_mode == ssl.CERT_REQUIRED


def test_a_verifier_keeps_only_what_decides_the_chain(pki_root: Path) -> None:
    """The offline verifier speaks TLS 1.2 and loads the anchors, whatever the caller's versions."""
    caller = ORIGINAL_CREATE_DEFAULT_CONTEXT()
    caller.minimum_version = ssl.TLSVersion.TLSv1_3
    settings = settings_of(caller, (("load_verify_locations", (str(pki_root), None, None)),))
    verifier = build_verifier(settings, EngineSpec(), _no_extra)
    assert verifier.maximum_version == ssl.TLSVersion.TLSv1_2
    assert verifier.verify_mode == ssl.CERT_REQUIRED
    assert len(verifier.get_ca_certs()) == 1


def test_weakened_flags_name_only_what_accepts_more() -> None:
    """Proxy certificates or partial chains allowed weaken; strict checks added do not.

    3.13 made VERIFY_X509_PARTIAL_CHAIN and VERIFY_X509_STRICT defaults: removing the first
    is stricter, removing the second is a weakening.
    """
    default = python_defaults()[0]
    assert weakened_flags(default) == (0, 0)
    proxy = ssl.VERIFY_ALLOW_PROXY_CERTS
    assert weakened_flags(default | proxy) == (proxy, 0)
    assert weakened_flags(default | ssl.VERIFY_X509_STRICT)[0] == 0
    partial = ssl.VERIFY_X509_PARTIAL_CHAIN
    if default & partial:
        assert weakened_flags(default & ~partial) == (0, 0)
    else:
        assert weakened_flags(default | partial) == (partial, 0)
    if default & ssl.VERIFY_X509_STRICT:
        assert weakened_flags(default & ~ssl.VERIFY_X509_STRICT)[1] == ssl.VERIFY_X509_STRICT
