"""Certificates OpenSSL 3.5+ verifies natively (ML-DSA-65) are judged as OpenSSL judges them.

The offline replay speaks TLS 1.2, where an ML-DSA key fits no cipher suite: OpenSSL verified
the chain, then stopped with WRONG_CERTIFICATE_TYPE, and every judgment made after a handshake
(report mode, pins, ``check``) called a good certificate ``invalid``. Each test has its MITM
twin (the attacker's ML-DSA CA, or another key for a pin). The certificates are made at test
time with ``cryptography``; Pythons linked to OpenSSL < 3.5 cannot use them and skip (all
but the last test, which holds on every Python).
"""

from __future__ import annotations

import base64
import datetime as dt
import hashlib
import json
import os
import ssl
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import trustme
from cryptography import x509
from cryptography.hazmat.primitives import serialization
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

import _pki
from _fixtures import WritePolicy
from _servers import serve_tls
from sslcustomize._cli import main
from sslcustomize._verdict._verify import judge_chain
from sslcustomize._x509._der import parse_certificate, spki_pin
from sslcustomize._x509._replay import replay_chain

try:
    from cryptography.hazmat.primitives.asymmetric import mldsa
except ImportError:  # cryptography before ML-DSA support
    mldsa = None  # type: ignore[assignment]

ML_DSA = pytest.mark.skipif(
    ssl.OPENSSL_VERSION_INFO < (3, 5) or mldsa is None,
    reason=f"{ssl.OPENSSL_VERSION} cannot verify ML-DSA certificates (OpenSSL 3.5+), "
    "or cryptography cannot make them",
)

DER = serialization.Encoding.DER
PEM = serialization.Encoding.PEM


class _Chain:
    """An ML-DSA-65 leaf for localhost and 127.0.0.1, self-signed or issued by an ML-DSA CA."""

    def __init__(self, *, self_signed: bool = False) -> None:
        assert mldsa is not None
        now = dt.datetime.now(dt.timezone.utc)
        self.key = mldsa.MLDSA65PrivateKey.generate()
        ca_key = self.key if self_signed else mldsa.MLDSA65PrivateKey.generate()
        ca_name = _name("localhost" if self_signed else "ML-DSA test CA")
        self.ca = (
            _builder(ca_name, ca_name, ca_key.public_key(), now)
            .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
            .add_extension(
                _pki.CA_KEY_USAGE,
                critical=True,
            )
            .add_extension(_names(), critical=False)
            .sign(ca_key, None)
        )
        self.chain: tuple[x509.Certificate, ...] = (self.ca,)
        if self_signed:
            self.leaf = self.ca
            return
        self.leaf = (
            _builder(_name("localhost"), ca_name, self.key.public_key(), now)
            .add_extension(_names(), critical=False)
            .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
            .add_extension(
                x509.AuthorityKeyIdentifier.from_issuer_public_key(ca_key.public_key()),
                critical=False,
            )
            .sign(ca_key, None)
        )
        self.chain = (self.leaf, self.ca)

    @property
    def der(self) -> tuple[bytes, ...]:
        """The chain as a server sends it, DER, leaf first."""
        return tuple(cert.public_bytes(DER) for cert in self.chain)

    def write_ca(self, path: Path) -> Path:
        """Write the trust anchor (the CA, or the self-signed leaf) as PEM."""
        path.write_bytes(self.ca.public_bytes(PEM))
        return path

    def server(self, directory: Path) -> ssl.SSLContext:
        """A server context presenting this chain."""
        directory.mkdir(parents=True, exist_ok=True)
        chain, key = directory / "chain.pem", directory / "key.pem"
        chain.write_bytes(b"".join(cert.public_bytes(PEM) for cert in self.chain))
        key.write_bytes(
            self.key.private_bytes(
                PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
            )
        )
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(chain, key)
        return context


def _name(common_name: str) -> x509.Name:
    return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common_name)])


def _names() -> x509.SubjectAlternativeName:
    import ipaddress

    return x509.SubjectAlternativeName(
        [x509.DNSName("localhost"), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]
    )


def _builder(
    subject: x509.Name, issuer: x509.Name, key: Any, now: dt.datetime
) -> x509.CertificateBuilder:
    return (
        x509.CertificateBuilder()
        .subject_name(subject)
        .issuer_name(issuer)
        .public_key(key)
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - dt.timedelta(days=1))
        .not_valid_after(now + dt.timedelta(days=30))
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(key), critical=False)
    )


@pytest.fixture(scope="module")
def issued() -> _Chain:
    """A good ML-DSA chain: leaf and CA."""
    return _Chain()


@pytest.fixture(scope="module")
def attacker() -> _Chain:
    """The MITM's chain: the same names, from the attacker's own ML-DSA CA."""
    return _Chain()


def _verifier(anchor: _Chain | None = None) -> ssl.SSLContext:
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    context.maximum_version = ssl.TLSVersion.TLSv1_2  # what the verifiers of sslcustomize do
    if anchor is not None:
        context.load_verify_locations(cadata=anchor.ca.public_bytes(PEM).decode())
    return context


@pytest.mark.skipif(mldsa is None, reason="cryptography cannot make ML-DSA keys")
def test_the_der_reader_names_ml_dsa_keys_and_pins_them(issued: _Chain) -> None:
    """ML-DSA-65 is named, and its pin is the SHA-256 of the SPKI as encoded (on every OpenSSL)."""
    facts = parse_certificate(issued.der[0])
    assert facts.key == "ML-DSA-65"
    assert facts.signature_algorithm == "ML-DSA-65"
    spki = issued.leaf.public_key().public_bytes(
        DER, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    expected = "sha256/" + base64.b64encode(hashlib.sha256(spki).digest()).decode()
    assert spki_pin(issued.der[0]) == facts.pin == expected


@ML_DSA
def test_replay_accepts_a_good_ml_dsa_chain_and_refuses_the_mitm(
    issued: _Chain, attacker: _Chain
) -> None:
    """OpenSSL's verdict: the good chain verifies; the MITM's, a wrong name, no anchor do not."""
    good = replay_chain(_verifier(issued), issued.der, "localhost")
    assert good.accepted
    assert good.verified_chain == issued.der
    mitm = replay_chain(_verifier(issued), attacker.der, "localhost")
    assert not mitm.accepted
    assert mitm.judged
    assert mitm.verify_code == 19  # self-signed certificate in certificate chain
    wrong_name = replay_chain(_verifier(issued), issued.der, "other.example")
    assert (wrong_name.accepted, wrong_name.verify_code) == (False, 62)
    verifier = _verifier(issued)
    verifier.check_hostname = True
    assert judge_chain(verifier, attacker.der, "localhost").reasons == ("unknown_issuer",)
    assert judge_chain(verifier, issued.der, "localhost").accepted


@ML_DSA
def test_a_pinned_ml_dsa_key_is_accepted_and_another_key_is_not(tmp_path: Path) -> None:
    """A pin of a self-signed ML-DSA key accepts that server; another key is pin_mismatch."""
    appliance, impostor = _Chain(self_signed=True), _Chain(self_signed=True)
    pins = (spki_pin(appliance.der[0]),)
    verifier = _verifier()
    verifier.check_hostname = True
    assert judge_chain(verifier, appliance.der, "localhost", pins=pins).accepted
    verdict = judge_chain(verifier, impostor.der, "localhost", pins=pins)
    assert verdict.reasons[0] == "pin_mismatch"
    assert "invalid" not in verdict.reasons


CLIENT = """
import socket, ssl, sys
import sslcustomize

port, factory = int(sys.argv[1]), sys.argv[2]
try:
    # _create_stdlib_context (smtplib's): Python would not verify, report mode relaxes all.
    context = getattr(ssl, factory)()
    with socket.create_connection(("127.0.0.1", port), timeout=10) as raw:
        with context.wrap_socket(raw, server_hostname="localhost") as tls:
            tls.sendall(b"GET / HTTP/1.0\\r\\nHost: localhost\\r\\n\\r\\n")
            answer = tls.recv(4096)
            print(answer.split()[1].decode(), tls.version())
except sslcustomize.CertificateRejected as error:
    print("REJECTED", ",".join(error.reasons))
"""


def _run(port: int, policy: Path, factory: str = "create_default_context") -> str:
    result = subprocess.run(
        [sys.executable, "-c", CLIENT, str(port), factory],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        env={**os.environ, "SSLCUSTOMIZE_POLICY": str(policy)},
    )
    assert result.returncode == 0, result.stderr
    return result.stdout.strip()


@pytest.fixture
def servers(issued: _Chain, attacker: _Chain, tmp_path: Path) -> Iterator[tuple[int, int]]:
    """The good ML-DSA server and the MITM's."""
    with (
        serve_tls(issued.server(tmp_path / "good")) as good,
        serve_tls(attacker.server(tmp_path / "mitm")) as mitm,
    ):
        yield good.port, mitm.port


@ML_DSA
def test_report_mode_records_only_the_mitm(
    issued: _Chain, servers: tuple[int, int], write_policy: WritePolicy, tmp_path: Path
) -> None:
    """Report mode over ML-DSA: no record for the good server, unknown_issuer for the MITM."""
    sink = tmp_path / "records.jsonl"
    ca = issued.write_ca(tmp_path / "ca.pem")
    policy = write_policy(
        f"mode = 'report'\ntrust = ['{ca}']\n[report]\nsink = 'jsonl'\npath = '{sink}'\n"
    )
    good, mitm = servers
    assert _run(good, policy, "_create_stdlib_context") == "200 TLSv1.3"
    assert not sink.exists() or not sink.read_text().strip()
    assert _run(mitm, policy, "_create_stdlib_context") == "200 TLSv1.3"  # recorded below
    records = [json.loads(line) for line in sink.read_text().splitlines()]
    assert [(r["port"], r["reasons"]) for r in records] == [(mitm, ["unknown_issuer"])]


@ML_DSA
def test_enforce_verifies_ml_dsa_and_rejects_the_mitm(
    issued: _Chain, servers: tuple[int, int], write_policy: WritePolicy, tmp_path: Path
) -> None:
    """Enforce mode: the good ML-DSA server is reached, the MITM rejected as unknown_issuer."""
    policy = write_policy(f"trust = ['{issued.write_ca(tmp_path / 'ca.pem')}']\n")
    good, mitm = servers
    assert _run(good, policy) == "200 TLSv1.3"
    assert _run(mitm, policy) == "REJECTED unknown_issuer"


@ML_DSA
def test_a_pin_exception_for_an_ml_dsa_appliance(write_policy: WritePolicy, tmp_path: Path) -> None:
    """A pinned self-signed ML-DSA appliance is reached; an impostor with another key is not."""
    appliance, impostor = _Chain(self_signed=True), _Chain(self_signed=True)
    policy = write_policy(
        f"[[exception]]\nhost = 'localhost'\npin = ['{spki_pin(appliance.der[0])}']\n"
        "reason = 'ML-DSA appliance'\n"
    )
    with (
        serve_tls(appliance.server(tmp_path / "appliance")) as good,
        serve_tls(impostor.server(tmp_path / "impostor")) as bad,
    ):
        assert _run(good.port, policy) == "200 TLSv1.3"
        assert _run(bad.port, policy) == "REJECTED pin_mismatch,self_signed"


@ML_DSA
def test_check_gives_no_advice_against_a_good_ml_dsa_certificate(
    issued: _Chain,
    servers: tuple[int, int],
    write_policy: WritePolicy,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """check: the good server verifies (exit 0); the MITM is unknown_issuer, not 'invalid'."""
    policy = write_policy(f"trust = ['{issued.write_ca(tmp_path / 'ca.pem')}']\n")
    monkeypatch.setenv("SSLCUSTOMIZE_POLICY", str(policy))
    good, mitm = servers
    outcomes = []
    for port in (good, mitm):
        code = main(["check", "--json", f"localhost:{port}"])
        outcomes.append((code, json.loads(capsys.readouterr().out)))
    (code, document), (mitm_code, mitm_document) = outcomes
    assert (code, document["verdict"], document["reasons"]) == (0, "verified", [])
    assert (mitm_code, mitm_document["reasons"]) == (1, ["unknown_issuer"])
    assert "must be fixed" not in json.dumps(mitm_document)


def test_unjudged_chain_is_refused_without_blaming_the_certificate(test_ca: trustme.CA) -> None:
    """A replay OpenSSL cannot finish gives no verdict: refused, reason unjudgeable, no blame."""
    leaf = test_ca.issue_cert("localhost")
    chain = (ssl.PEM_cert_to_DER_cert(leaf.cert_chain_pems[0].bytes().decode()),)
    verifier = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    verifier.maximum_version = ssl.TLSVersion.TLSv1_2
    test_ca.configure_trust(verifier)
    assert judge_chain(verifier, chain, "localhost").accepted  # the twin: judged, and fine
    verifier.set_ciphers("ECDHE-RSA-AES256-GCM-SHA384")  # not the suite the replay answers with
    result = replay_chain(verifier, chain, "localhost")
    assert (result.accepted, result.judged) == (False, False)
    verdict = judge_chain(verifier, chain, "localhost")
    assert not verdict.accepted
    assert verdict.reasons == ("unjudgeable",)
    assert "nothing is known to be wrong with the certificate" in verdict.fix
    assert "must be fixed" not in verdict.fix
