"""What the library hooks share: library contexts, opt-outs, the cache."""

from __future__ import annotations

import ssl
from pathlib import Path

import pytest

import _pki
import sslcustomize
from _fixtures import memory_handshake
from sslcustomize._inject._shared import ContextCache, library_context, make_opt_out


@pytest.mark.usefixtures("inject_pki_root")
def test_load_default_certs_loads_the_policys_anchors(pki: _pki.TestPKI, tmp_path: Path) -> None:
    """A library asking for the system's anchors gets the policy's, and verifies with them."""
    context = library_context("requests")
    context.load_default_certs()
    assert memory_handshake(context, pki["good"].server_context(tmp_path), "localhost")


@pytest.mark.usefixtures("inject_pki_root")
def test_the_policy_refuses_what_it_does_not_trust(pki: _pki.TestPKI, tmp_path: Path) -> None:
    """Twin: the same library context refuses a chain of another root."""
    context = library_context("requests")
    context.load_default_certs()
    with pytest.raises(ssl.SSLCertVerificationError):
        memory_handshake(context, pki["unknown_issuer"].server_context(tmp_path), "localhost")


def test_an_opt_out_turns_off_the_host_check_first() -> None:
    """make_opt_out sets check_hostname before verify_mode, the order ssl requires."""
    context = make_opt_out(ssl.create_default_context())
    assert not context.check_hostname
    assert context.verify_mode == ssl.CERT_NONE


@pytest.mark.usefixtures("inject_pki_root")
def test_the_cache_builds_once_per_key_and_freezes() -> None:
    """The same key gives the same context, built once and frozen against changes."""
    cache, built = ContextCache(), []

    def build() -> ssl.SSLContext:
        built.append(1)
        return library_context("httpx")

    first = cache.get("k", build)
    assert cache.get("k", build) is first
    assert cache.get("other", build) is not first
    assert len(built) == 2
    with pytest.raises(sslcustomize.exceptions.SharedContextError):
        first.check_hostname = False
