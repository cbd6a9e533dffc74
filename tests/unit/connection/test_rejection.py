"""The text of a rejection: OpenSSL's words first, the host and port, the rule, the safe fix."""

from __future__ import annotations

import ssl

import pytest
import trustme
from cryptography import x509
from cryptography.hazmat.primitives import serialization

from sslcustomize._connection._rejection import NO_NAME, native_rejection, rejection, unjudgeable
from sslcustomize._decision._decide import decide
from sslcustomize._policy._model import Policy
from sslcustomize._verdict._verify import Verdict
from sslcustomize.exceptions import CertificateRejected

UNKNOWN = Verdict(
    accepted=False, reasons=("unknown_issuer",), verify_code=20,
    verify_message="unable to get local issuer certificate",
    problem="the issuer is not trusted", fix="trust its CA",
)  # fmt: skip


@pytest.mark.parametrize(
    ("host", "port", "where"),
    [("mail.example", 465, "mail.example:465"), ("::1", 465, "[::1]:465"), ("h", None, "h")],
)
def test_the_message_names_where_in_openssls_words_first(
    host: str, port: int | None, where: str
) -> None:
    """Code that matches "certificate verify failed" keeps working; the place is exact."""
    error = rejection(decide(Policy(), context="smtplib"), UNKNOWN, (), host, port)
    assert isinstance(error, ssl.SSLCertVerificationError)
    text = str(error)
    assert text.startswith("[SSL: CERTIFICATE_VERIFY_FAILED] certificate verify failed: ")
    assert f"certificate rejected for {where}:" in text
    assert "[unknown_issuer] under rule 'default'" in text
    assert (error.host, error.port, error.reasons) == (host, port, ("unknown_issuer",))


def test_the_advice_names_the_starttls_protocol_it_is_told() -> None:
    """The fix must work when pasted: a STARTTLS port is fetched with --starttls."""
    leaf = trustme.CA().issue_cert("mail.example").cert_chain_pems[0].bytes()
    chain = (x509.load_pem_x509_certificate(leaf).public_bytes(serialization.Encoding.DER),)
    decision = decide(Policy(), context="smtplib")
    told = rejection(decision, UNKNOWN, chain, "mail.example", 587, starttls="smtp")
    plain = rejection(decision, UNKNOWN, chain, "mail.example", 587)
    assert "--starttls smtp" in told.fix
    assert "--starttls" not in plain.fix


def test_a_native_failure_is_explained_with_openssls_code() -> None:
    """OpenSSL refused during the handshake: its code and message are kept."""
    error = ssl.SSLCertVerificationError(1, "certificate verify failed")
    error.verify_code = 10
    error.verify_message = "certificate has expired"
    found = native_rejection(error, decide(Policy(), context="app"), (), "h.example", 443)
    assert isinstance(found, CertificateRejected)
    assert found.verify_code == 10
    assert "certificate has expired" in str(found)


def test_an_unjudgeable_chain_is_a_rejection() -> None:
    """Whatever fails while judging, the verdict refuses (fail closed), and says why."""
    verdict = unjudgeable(ValueError("bad DER"))
    assert verdict.accepted is False
    assert verdict.reasons == ("invalid",)
    assert "bad DER" in verdict.problem


def test_no_name_is_a_host_name_refusal() -> None:
    """No server name and the check turned off under a refusal: hostname_mismatch, with a fix."""
    assert NO_NAME.accepted is False
    assert NO_NAME.reasons == ("hostname_mismatch",)
    assert "server_hostname" in NO_NAME.fix
