"""OpenSSL's verification results as reason codes, sentences and complete fix commands."""

from __future__ import annotations

import datetime as dt

import pytest

import _pki
from sslcustomize._verdict._reasons import (
    REASONS,
    diagnose,
    explain,
    fix_for_record,
    proxy_fix,
    reasons_for_code,
    renewal,
    target_text,
    trust_command,
)

# X509_V_ERR_* codes (OpenSSL's x509_vfy.h).
UNABLE_TO_GET_ISSUER_LOCALLY = 20
CERT_HAS_EXPIRED = 10
HOSTNAME_MISMATCH = 62


def test_known_codes_map_to_reasons_and_unknown_ones_to_invalid() -> None:
    """Expired, mismatch and weak-key codes have reasons; a code OpenSSL adds later is invalid."""
    assert reasons_for_code(CERT_HAS_EXPIRED) == "expired"
    assert reasons_for_code(HOSTNAME_MISMATCH) == "hostname_mismatch"
    assert reasons_for_code(66) == "weak_key"
    assert reasons_for_code(9999) == "invalid"
    assert {"expired", "invalid", "unjudgeable"} <= set(REASONS)


@pytest.mark.parametrize(
    ("port", "starttls", "host", "expected"),
    [
        (443, None, "example.org", "example.org"),
        (None, None, "example.org", "example.org"),
        (8443, None, "example.org", "example.org:8443"),
        (8443, None, "::1", "[::1]:8443"),
        (25, "smtp", "mail.example", "mail.example"),
        (443, "smtp", "mail.example", "mail.example:443"),
    ],
)
def test_target_text_leaves_out_only_the_assumed_port(
    port: int | None, starttls: str | None, host: str, expected: str
) -> None:
    """443 (or the STARTTLS protocol's port) is implied; IPv6 addresses are bracketed."""
    assert target_text(host, port, starttls) == expected


def test_trust_command_reaches_the_same_server_the_same_way() -> None:
    """--ca, --days and --starttls are given, and an unknown host is written HOST."""
    assert trust_command("::1", 8443) == "sslcustomize trust [::1]:8443"
    command = trust_command("mail.example", 587, starttls="smtp", ca=True, days=30)
    assert command == "sslcustomize trust --ca --days 30 --starttls smtp mail.example:587"
    assert trust_command(None, None) == "sslcustomize trust HOST"


def test_an_unknown_issuer_without_aia_is_not_an_incomplete_chain(pki: _pki.TestPKI) -> None:
    """Code 20 on a chain whose top names no issuer URL is unknown_issuer."""
    case = pki["unknown_issuer"]
    found = diagnose(
        verify_code=UNABLE_TO_GET_ISSUER_LOCALLY,
        verify_message="unable to get local issuer certificate",
        chain=case.chain_der,
        host="localhost",
        port=8443,
    )
    assert found.reasons == ("unknown_issuer",)
    assert "localhost:8443" in found.fix


def test_a_missing_intermediate_with_aia_is_an_incomplete_chain(pki: _pki.TestPKI) -> None:
    """Twin: the same code on a leaf that names where its issuer is is incomplete_chain."""
    case = pki["incomplete_chain"]
    found = diagnose(
        verify_code=UNABLE_TO_GET_ISSUER_LOCALLY,
        verify_message="unable to get local issuer certificate",
        chain=case.chain_der,
        host="localhost",
        port=443,
    )
    assert found.reasons == ("incomplete_chain",)
    assert "full chain" in found.fix


def test_a_self_signed_leaf_is_never_an_incomplete_chain(pki: _pki.TestPKI) -> None:
    """A self-issued top certificate has no issuer to send: the chain is not incomplete."""
    case = pki["self_signed"]
    found = diagnose(
        verify_code=UNABLE_TO_GET_ISSUER_LOCALLY,
        verify_message="",
        chain=case.chain_der,
        host="localhost",
        port=443,
    )
    assert found.reasons == ("unknown_issuer",)


def test_expired_names_the_date_and_self_signed_the_pin(pki: _pki.TestPKI) -> None:
    """The problem gives the leaf's expiry date; a self-signed fix names the exact pin."""
    expired = pki["expired"]
    found = diagnose(
        verify_code=CERT_HAS_EXPIRED,
        verify_message="certificate has expired",
        chain=expired.chain_der,
        host="localhost",
        port=443,
    )
    assert found.reasons == ("expired",)
    assert expired.leaf.not_valid_after_utc.strftime("%Y-%m-%d") in found.problem
    self_signed = pki["self_signed"]
    problem, fix = explain("self_signed", chain=self_signed.chain_der, host="localhost", port=443)
    assert self_signed.pin in fix
    assert "sslcustomize trust localhost" in fix
    assert "self-signed" in problem


def test_a_hostile_certificate_name_is_escaped_in_the_problem(pki: _pki.TestPKI) -> None:
    """The host asked for is shown escaped: a control character never reaches a terminal."""
    problem, _ = explain(
        "hostname_mismatch",
        chain=pki["wrong_host"].chain_der,
        host="evil\x1b[2Jhost",
        port=443,
    )
    assert "wrong.example" in problem
    assert "\x1b" not in problem


def test_an_unparseable_chain_still_gets_a_sentence() -> None:
    """Garbage instead of DER gives OpenSSL's message and a generic fix, no exception."""
    found = diagnose(
        verify_code=CERT_HAS_EXPIRED, verify_message="boom", chain=[b"\x30\x03junk"], host="h",
        port=443,
    )  # fmt: skip
    assert found.problem == "the certificate failed verification (boom)"


def test_a_pin_mismatch_warns_of_interception() -> None:
    """A changed key is either an update to pin or an interception: both are said."""
    problem, fix = explain("pin_mismatch", chain=[], host="nas.example", port=5001)
    assert "pins" in problem
    assert "sslcustomize trust nas.example:5001" in fix
    assert "intercepting" in fix


def test_unjudgeable_says_nothing_is_known_wrong() -> None:
    """No verdict is not a bad certificate: the fix says not to change it."""
    problem, fix = explain("unjudgeable", chain=[], host="h", port=None, message="replay failed")
    assert "replay failed" in problem
    assert "do not change it" in fix


def test_not_yet_valid_names_the_clock(pki: _pki.TestPKI) -> None:
    """A certificate from the future: the fix shows the time the clock says."""
    now = dt.datetime(2030, 1, 2, 3, 4, tzinfo=dt.timezone.utc)
    _, fix = explain(
        "not_yet_valid", chain=pki["not_yet_valid"].chain_der, host="h", port=443, now=now
    )
    assert "2030-01-02 03:04" in fix


def test_proxy_fix_applies_only_through_a_proxy_the_host_uses() -> None:
    """A configured proxy turns a pin into the proxy's CA, without its password."""
    environ = {"HTTPS_PROXY": "http://user:secret@proxy.example:3128", "NO_PROXY": "intra.example"}
    fix = proxy_fix("self_signed", "www.example.org", environ)
    assert fix is not None
    assert "user@proxy.example:3128" in fix
    assert "secret" not in fix
    assert proxy_fix("self_signed", "intra.example", environ) is None
    assert proxy_fix("expired", "www.example.org", environ) is None
    assert proxy_fix("self_signed", "www.example.org", {}) is None


def test_fix_for_record_starts_from_check() -> None:
    """Trustable reasons name check and trust; the others the operator's fix."""
    assert fix_for_record("unknown_issuer", "h.example", 8443) == (
        "sslcustomize check h.example:8443; if you know this server: "
        "sslcustomize trust h.example:8443"
    )
    assert fix_for_record("expired", "h.example", 443) == (
        "the server's operator must renew the certificate (see sslcustomize check h.example)"
    )
    assert fix_for_record("not_yet_valid", None, None) == (
        "sslcustomize check HOST, then follow its fix"
    )


def test_renewal_names_the_exception_and_the_command() -> None:
    """An expired exception is named with its origin, date and a --days command."""
    text = renewal(
        pattern="*.corp.example", origin="/etc/sslcustomize/policy.toml:12",
        expired_on=dt.date(2026, 1, 31), host="a.corp.example", port=443, days=90,
    )  # fmt: skip
    assert "*.corp.example" in text
    assert "2026-01-31" in text
    assert "sslcustomize trust --days 90 a.corp.example" in text
