"""One implementation each: the TLV reader, and the replays that name every reason."""

from __future__ import annotations

import ssl
from typing import Any

import pytest
import trustme
from cryptography import x509
from cryptography.hazmat.primitives import serialization

import _pki
from sslcustomize._decision._decide import decide
from sslcustomize._decision._engine import NO_CHECK_TIME, EngineSpec, settings_of
from sslcustomize._diagnosis._analysis import every_reason
from sslcustomize._runtime._state import current_policy, current_runtime
from sslcustomize._verdict._verify import Check, judge_chain, leaf_oracle, with_every_reason
from sslcustomize._x509._der import DERError, parse_certificate, read_elements
from sslcustomize._x509._subjecthash import subject_hash


def _header(tag: int, length: int, *, shortest: bool = True) -> bytes:
    """A DER header; with ``shortest=False`` a short length is written in long form."""
    if shortest and length < 0x80:
        return bytes((tag, length))
    size = max(1, (length.bit_length() + 7) // 8)
    return bytes((tag, 0x80 | size)) + length.to_bytes(size, "big")


def _reframed(der: bytes, *, shortest: bool) -> bytes:
    """``der`` re-framed; with ``shortest=False`` its subject's length is in long form."""
    ((_, _, cert_start, cert_stop),) = read_elements(der, 0, len(der))
    tbs, *rest = read_elements(der, cert_start, cert_stop)
    fields = read_elements(der, tbs[2], tbs[3])
    subject = fields[5]  # version, serial, signature, issuer, validity, subject
    assert subject[3] - subject[2] < 0x80  # a short name, or the test proves nothing
    parts = []
    for index, (tag, begin, start, stop) in enumerate(fields):
        if index == 5:
            parts.append(_header(tag, stop - start, shortest=shortest) + der[start:stop])
        else:
            parts.append(der[begin:stop])
    body = b"".join(parts)
    inner = _header(0x30, len(body)) + body + b"".join(der[e[1] : e[3]] for e in rest)
    return _header(0x30, len(inner)) + inner


@pytest.fixture(scope="module")
def ca_der() -> bytes:
    """A CA certificate with a short subject, DER."""
    return ssl.PEM_cert_to_DER_cert(trustme.CA().cert_pem.bytes().decode("ascii"))


def test_subject_hash_and_parser_refuse_the_same_length(ca_der: bytes) -> None:
    """A length not in its shortest form: the subject hash refuses it as the DER reader does."""
    bent = _reframed(ca_der, shortest=False)
    with pytest.raises(DERError, match="shortest form"):
        parse_certificate(bent)
    with pytest.raises(ValueError, match="subject: length not in its shortest form"):
        subject_hash(bent)


def test_subject_hash_and_parser_read_the_same_subject(ca_der: bytes) -> None:
    """The twin: framed in shortest form (the original bytes), both readers accept it."""
    assert _reframed(ca_der, shortest=True) == ca_der
    assert "O=trustme" in parse_certificate(ca_der).subject.rfc4514
    assert 0 <= subject_hash(ca_der) < 2**32


def test_subject_hash_refuses_an_element_past_its_container(ca_der: bytes) -> None:
    """An element longer than its container is refused, as the DER reader refuses it."""
    bent = ca_der[:-1]  # the signature now runs past the certificate's end
    with pytest.raises(DERError, match="truncated element"):
        parse_certificate(bent)
    with pytest.raises(ValueError, match="subject: truncated element"):
        subject_hash(bent)


def _der(pem: bytes) -> tuple[bytes, ...]:
    """A PEM chain as DER, leaf first."""
    encoding = serialization.Encoding.DER
    return tuple(cert.public_bytes(encoding) for cert in x509.load_pem_x509_certificates(pem))


def test_relaxed_verifiers_are_built_only_for_a_rejected_chain(pki: _pki.TestPKI) -> None:
    """An accepted verdict replays nothing; a rejected one asks for each relaxed verifier once."""
    chain = _der(pki["self_signed"].chain_pem)
    asked: list[str] = []

    def relaxed(name: str) -> ssl.SSLContext:
        asked.append(name)
        return leaf_oracle(chain[0], check_hostname=False)

    trusting = leaf_oracle(chain[0], check_hostname=True, check_time=True)
    accepted = judge_chain(trusting, chain, "localhost")
    assert accepted.accepted
    kept = with_every_reason(
        accepted, chain, "localhost",
        without_hostname=lambda: relaxed("hostname"), without_dates=lambda: relaxed("dates"),
        check_hostname=True, common_name=False,
    )  # fmt: skip
    assert kept is accepted
    assert asked == []
    verifier = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    rejected = judge_chain(verifier, chain, "localhost")
    assert not rejected.accepted
    found = with_every_reason(
        rejected, chain, "localhost",
        without_hostname=lambda: relaxed("hostname"), without_dates=lambda: relaxed("dates"),
        check_hostname=True, common_name=False,
    )  # fmt: skip
    assert asked == ["hostname", "dates"]
    assert found.reasons[: len(rejected.reasons)] == rejected.reasons


def test_runtime_and_check_name_the_same_reasons(pki: _pki.TestPKI) -> None:
    """An expired, misnamed chain from an unknown CA: the runtime and check name the same three."""
    chain = _der(pki["expired_wrong_host"].chain_pem)
    decision = decide(current_policy(), host="localhost", port=443)
    runtime = current_runtime()
    plan = Check(runtime=runtime, decision=decision, name="t", host="localhost", port=443)
    caller = ssl.create_default_context()
    settings = settings_of(caller, ())
    verdict = runtime.verdict(settings, EngineSpec(), decision, chain, "localhost")
    expected = {"unknown_issuer", "expired", "hostname_mismatch"}
    assert set(verdict.reasons) == expected
    assert set(every_reason(plan, chain)) == expected


def test_the_replay_without_dates_keeps_the_flags_the_plan_added(
    pki: _pki.TestPKI, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The runtime's verifier without dates adds NO_CHECK_TIME to the plan's flags, drops none."""
    import sslcustomize._verdict._verify as verify

    chain = _der(pki["expired_wrong_host"].chain_pem)
    decision = decide(current_policy(), host="localhost", port=443)
    runtime = current_runtime()
    seen: dict[str, int] = {}

    def spy(verdict: object, *args: object, without_dates: Any, **kwargs: object) -> object:
        seen["flags"] = without_dates().verify_flags
        return verdict

    monkeypatch.setattr(verify, "with_every_reason", spy)
    strict = getattr(ssl, "VERIFY_X509_STRICT", 0x20)
    spec = EngineSpec(add_flags=strict)
    runtime.verdict(settings_of(ssl.create_default_context(), ()), spec, decision, chain, "x")
    assert seen["flags"] & strict == strict
    assert seen["flags"] & NO_CHECK_TIME == NO_CHECK_TIME
