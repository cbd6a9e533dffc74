"""OpenSSL's subject hash, computed in Python, against OpenSSL's own."""

from __future__ import annotations

import os
import re
import shutil
import ssl
import subprocess
from pathlib import Path

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from sslcustomize._x509._subjecthash import subject_hash

CERTS = "/etc/ssl/certs"


@pytest.mark.skipif(not os.path.isdir(CERTS), reason="no hashed system directory here")
def test_matches_every_link_in_the_system_directory() -> None:
    """Every <hash>.N file of the system's hashed directory has the hash we compute."""
    checked = 0
    for name in os.listdir(CERTS):
        match = re.fullmatch(r"([0-9a-f]{8})\.\d+", name)
        if not match:
            continue
        pem = Path(CERTS, name).read_text(encoding="ascii")
        assert f"{subject_hash(ssl.PEM_cert_to_DER_cert(pem)):08x}" == match.group(1), name
        checked += 1
    assert checked > 10


def _cert(name: x509.Name) -> bytes:
    key = ec.generate_private_key(ec.SECP256R1())
    import datetime as dt

    now = dt.datetime.now(dt.timezone.utc)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(1)
        .not_valid_before(now)
        .not_valid_after(now + dt.timedelta(days=1))
        .sign(key, hashes.SHA256())
    )
    return cert.public_bytes(serialization.Encoding.DER)


NAMES = [
    x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "  Mixed   CASE\tName  ")]),
    x509.Name(
        [
            x509.NameAttribute(NameOID.COUNTRY_NAME, "DE"),  # long: DER lengths in long form
            x509.NameAttribute(NameOID.ORGANIZATION_NAME, "Bücher GmbH"),
            *(
                x509.NameAttribute(NameOID.ORGANIZATIONAL_UNIT_NAME, f"Unit {i} " + "x" * 55)
                for i in range(3)
            ),
        ]
    ),
    x509.Name(
        [
            x509.RelativeDistinguishedName(
                [
                    x509.NameAttribute(NameOID.COMMON_NAME, "multi"),
                    x509.NameAttribute(NameOID.ORGANIZATION_NAME, "Valued RDN"),
                ]
            )
        ]
    ),
    x509.Name([x509.NameAttribute(NameOID.EMAIL_ADDRESS, "Admin@Example.ORG")]),
    x509.Name([]),
]


@pytest.mark.skipif(shutil.which("openssl") is None, reason="needs the openssl command")
@pytest.mark.parametrize("name", NAMES, ids=["spaces", "utf8-long", "multi-rdn", "ia5", "empty"])
def test_matches_openssl_command(name: x509.Name) -> None:
    """White space, case, UTF-8, long values and multi-valued RDNs hash as OpenSSL does."""
    der = _cert(name)
    result = subprocess.run(
        ["openssl", "x509", "-inform", "DER", "-noout", "-subject_hash"],  # noqa: S607
        input=der,
        capture_output=True,
        check=True,
    )
    assert f"{subject_hash(der):08x}" == result.stdout.decode().strip()


def test_garbage_is_a_value_error() -> None:
    """Bytes that are not a certificate raise ValueError, never IndexError."""
    with pytest.raises(ValueError, match=r"subject|DER"):
        subject_hash(b"\x30\x03\x02\x01\x01")
    with pytest.raises(ValueError, match="truncated"):
        subject_hash(b"\x30\x82\xff\xff")
