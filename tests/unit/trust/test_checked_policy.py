"""The policy completed with trust checks: every source checked, every failure fail-closed."""

from __future__ import annotations

from pathlib import Path

import pytest

import _pki
from _fixtures import WritePolicy
from sslcustomize._trust._anchors import TrustCache
from sslcustomize._trust._checked_policy import (
    load_policy,
    load_policy_with,
    parse_policy,
    read_layer,
)
from sslcustomize.exceptions import PolicyError


def test_a_readable_ca_is_kept_with_its_origin(
    write_policy: WritePolicy, pki: _pki.TestPKI, tmp_path: Path
) -> None:
    """A CA path that holds a certificate becomes a trust source with file and line."""
    ca = tmp_path / "ca.pem"
    ca.write_bytes(pki["good"].ca_pem)
    path = write_policy(f"version = 1\ntrust = ['{ca}']\n")
    policy = load_policy([("process", str(path), True)], environ={})
    assert not policy.errors
    assert not policy.fallback
    (source,) = policy.trust
    assert source.path == str(ca)
    assert source.origin.path == str(path)
    assert source.origin.line == 2


def test_a_ca_without_a_certificate_fails_closed(write_policy: WritePolicy, tmp_path: Path) -> None:
    """Attack: a trust entry that holds no certificate gives the strict fallback, not no check."""
    ca = tmp_path / "empty.pem"
    ca.write_text("not a certificate\n", encoding="utf-8")
    path = write_policy(f"trust = ['{ca}']\nmode = 'report'\n")
    policy = load_policy([("process", str(path), True)], environ={})
    assert policy.fallback
    assert policy.mode.value == "enforce"
    assert policy.errors
    assert str(path) in str(policy.errors[0])


def test_parse_and_read_name_the_file_line_and_key(write_policy: WritePolicy) -> None:
    """A missing CA path is a PolicyError with the path, line and key."""
    text = "version = 1\n\ntrust = ['/nonexistent/ca.pem']\n"
    with pytest.raises(PolicyError) as caught:
        parse_policy(text, path="/etc/x/policy.toml", layer="system")
    assert caught.value.path == "/etc/x/policy.toml"
    assert caught.value.line == 3
    assert caught.value.key == "trust"
    with pytest.raises(PolicyError, match="trust"):
        read_layer("process", str(write_policy(text)))


def test_the_cache_that_checked_the_policy_is_the_one_given(
    write_policy: WritePolicy, pki: _pki.TestPKI, tmp_path: Path
) -> None:
    """load_policy_with reads each bundle through the cache it is given (read once)."""
    ca = tmp_path / "ca.pem"
    ca.write_bytes(pki["good"].ca_pem)
    trust = TrustCache()
    policy = load_policy_with(trust, [("process", str(write_policy(f"trust = ['{ca}']\n")), True)])
    assert not policy.errors
    before = trust.generation()
    anchors = trust.anchors_for(policy.trust)
    assert anchors.directories or anchors.files
    assert trust.anchors_for(policy.trust) == anchors
    assert trust.generation() == before


def test_ca_variables_are_read_from_the_environ_given(
    write_policy: WritePolicy, pki: _pki.TestPKI, tmp_path: Path
) -> None:
    """REQUESTS_CA_BUNDLE in the given environ adds a source for requests, and only it."""
    ca = tmp_path / "ca.pem"
    ca.write_bytes(pki["good"].ca_pem)
    path = write_policy("version = 1\n")
    policy = load_policy([("process", str(path), True)], environ={"REQUESTS_CA_BUNDLE": str(ca)})
    (entry,) = policy.environment
    assert entry.variable == "REQUESTS_CA_BUNDLE"
    assert entry.state == "added"
    assert load_policy([("process", str(path), True)], environ={}).environment == ()
