"""OpenSSL's verdict on a chain, without a server: the chain replayed as a server's flight."""

from __future__ import annotations

import ssl
from pathlib import Path

import pytest

import _pki
from _fixtures import memory_handshake
from sslcustomize._x509._replay import der_chain, replay_chain, server_flight


@pytest.fixture
def verifier(pki: _pki.TestPKI) -> ssl.SSLContext:
    """A verifying client context that trusts the test PKI's root."""
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    context.load_verify_locations(cadata=pki["good"].ca_pem.decode())
    return context


def test_a_trusted_chain_is_accepted_with_the_chain_openssl_built(
    verifier: ssl.SSLContext, pki: _pki.TestPKI
) -> None:
    """Good: accepted, and the verified chain runs from the leaf to the root."""
    chain = pki["good"].chain_der
    result = replay_chain(verifier, chain, "localhost")
    assert result.accepted
    assert result.judged
    assert result.verified_chain[0] == chain[0]
    assert result.verified_chain[-1] == ssl.PEM_cert_to_DER_cert(pki["good"].ca_pem.decode())


@pytest.mark.parametrize(
    ("case", "host", "code"),
    [
        ("expired", "localhost", 10),
        ("good", "other.example", 62),
        ("unknown_issuer", "localhost", 19),
    ],
)
def test_a_rejected_chain_gives_openssls_code(
    verifier: ssl.SSLContext, pki: _pki.TestPKI, case: str, host: str, code: int
) -> None:
    """Expired, wrong host, an untrusted root sent: rejected with OpenSSL's own code."""
    result = replay_chain(verifier, pki[case].chain_der, host)
    assert not result.accepted
    assert result.judged
    assert result.verify_code == code


def test_the_replay_agrees_with_a_real_handshake(
    verifier: ssl.SSLContext, pki: _pki.TestPKI, tmp_path: Path
) -> None:
    """For every case, the replay accepts exactly what a handshake over memory accepts."""
    for name in _pki.CASE_NAMES:
        case = pki[name]
        try:
            memory_handshake(verifier, case.server_context(tmp_path), "localhost")
        except ssl.SSLCertVerificationError:
            handshake = False
        else:
            handshake = True
        assert replay_chain(verifier, case.chain_der, "localhost").accepted is handshake, name


def test_no_chain_is_no_verdict(verifier: ssl.SSLContext) -> None:
    """An empty chain is refused without a handshake."""
    result = replay_chain(verifier, (), "localhost")
    assert not result.accepted
    assert result.verify_code == -1


def test_the_flight_is_split_into_records_of_at_most_16_kib(pki: _pki.TestPKI) -> None:
    """A chain larger than one record is sent as several TLS records."""
    leaf = pki["good"].chain_der[0]
    flight = server_flight([leaf] * 40)
    lengths, offset = [], 0
    while offset < len(flight):
        assert flight[offset] == 22  # handshake
        length = int.from_bytes(flight[offset + 3 : offset + 5], "big")
        lengths.append(length)
        offset += 5 + length
    assert offset == len(flight)
    assert len(lengths) > 1
    assert max(lengths) <= 16384


def test_der_chain_of_something_without_a_chain_is_empty() -> None:
    """An object without the methods (a closed or fake connection) gives ()."""
    assert der_chain(object()) == ()
    assert der_chain(None, verified=True) == ()
