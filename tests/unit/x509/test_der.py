"""The stdlib DER reader (_der) against cryptography, and on malformed input.

Certificates are made at test time (cryptography's builder and trustme) or taken from
x509-limbo; every fact _der reads is compared with what cryptography reads from the same
bytes. Malformed input (truncations, bit flips, bad lengths, deep nesting, strictness cases
built with a tiny DER writer below, and a hypothesis fuzz) must raise DERError and nothing else.
"""

from __future__ import annotations

import base64
import datetime as dt
import functools
import hashlib
import ipaddress
import json
import random
import ssl
import subprocess
import sys
import warnings
from collections.abc import Callable
from typing import Any

import pytest
import trustme
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import dsa, ec, ed448, ed25519, padding, rsa
from cryptography.x509.name import _ASN1Type
from cryptography.x509.oid import AuthorityInformationAccessOID, ExtendedKeyUsageOID, NameOID
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from _limbo import LIMBO_JSON
from sslcustomize._diagnosis import _analysis
from sslcustomize._x509._der import (
    CertificateFacts,
    DERError,
    expiry_and_pin,
    parse_certificate,
    spki_pin,
)

UTC = dt.timezone.utc
START = dt.datetime(2026, 1, 1, tzinfo=UTC)

# --- A tiny DER writer, for certificates no builder would make ------------------------------


def tlv(tag: int, *parts: bytes) -> bytes:
    """Encode one DER element."""
    body = b"".join(parts)
    length = len(body)
    if length < 0x80:
        return bytes((tag, length)) + body
    size = (length.bit_length() + 7) // 8
    return bytes((tag, 0x80 | size)) + length.to_bytes(size, "big") + body


def seq(*parts: bytes) -> bytes:
    return tlv(0x30, *parts)


def oid(dotted: str) -> bytes:
    arcs = [int(arc) for arc in dotted.split(".")]
    out = bytearray()
    for arc in [arcs[0] * 40 + arcs[1], *arcs[2:]]:
        chunk = [arc & 0x7F]
        rest = arc >> 7
        while rest:
            chunk.append(0x80 | (rest & 0x7F))
            rest >>= 7
        out += bytes(reversed(chunk))
    return tlv(0x06, bytes(out))


def name(common_name: str) -> bytes:
    return seq(tlv(0x31, seq(oid("2.5.4.3"), tlv(0x0C, common_name.encode()))))


ED25519_SPKI = seq(seq(oid("1.3.101.112")), tlv(0x03, b"\x00" + bytes(range(32))))
VALIDITY = seq(tlv(0x17, b"260101000000Z"), tlv(0x17, b"270101000000Z"))
DEFAULT = object()


def extension(ext_oid: str, value: bytes, *, critical: bytes = b"") -> bytes:
    return seq(oid(ext_oid), critical, tlv(0x04, value))


def synthetic(
    *,
    version: bytes | object | None = DEFAULT,
    serial: bytes = tlv(0x02, b"\x01"),
    signature: bytes = seq(oid("1.3.101.112")),
    issuer: bytes = name("issuer"),
    validity: bytes = VALIDITY,
    subject: bytes = name("subject"),
    spki: bytes = ED25519_SPKI,
    extensions: bytes | object | None = DEFAULT,
    tail: bytes = b"",
    signature_value: bytes = tlv(0x03, b"\x00" + bytes(64)),
) -> bytes:
    """Return a certificate built from parts (signature bytes are not a real signature)."""
    if version is DEFAULT:
        version = tlv(0xA0, tlv(0x02, b"\x02"))
    if extensions is DEFAULT:
        extensions = tlv(0xA3, seq(extension("2.5.29.17", seq(tlv(0x82, b"host.example")))))
    assert version is None or isinstance(version, bytes)
    assert extensions is None or isinstance(extensions, bytes)
    tbs = seq(
        version or b"", serial, signature, issuer, validity, subject, spki, extensions or b"", tail
    )
    return seq(tbs, signature, signature_value)


# --- Making certificates -----------------------------------------------------------------------


_CURVE_KEYS = {"EC P-256": ec.SECP256R1(), "EC P-384": ec.SECP384R1(), "EC P-521": ec.SECP521R1()}


@functools.cache
def _key(kind: str) -> Any:
    """Return a private key of ``kind`` (cached: RSA 4096 and DSA take a while to make)."""
    if kind.startswith("RSA"):
        return rsa.generate_private_key(public_exponent=65537, key_size=int(kind[4:]))
    if kind in _CURVE_KEYS:
        return ec.generate_private_key(_CURVE_KEYS[kind])
    if kind == "Ed25519":
        return ed25519.Ed25519PrivateKey.generate()
    if kind == "Ed448":
        return ed448.Ed448PrivateKey.generate()
    assert kind == "DSA 2048"
    return dsa.generate_private_key(key_size=2048)


KEY_KINDS = (
    "RSA 1024",
    "RSA 2048",
    "RSA 4096",
    "EC P-256",
    "EC P-384",
    "EC P-521",
    "Ed25519",
    "Ed448",
    "DSA 2048",
)
EXPECTED_KEY = {
    "RSA 1024": "RSA 1024",
    "RSA 2048": "RSA 2048",
    "RSA 4096": "RSA 4096",
    "EC P-256": "EC secp256r1",
    "EC P-384": "EC secp384r1",
    "EC P-521": "EC secp521r1",
    "Ed25519": "Ed25519",
    "Ed448": "Ed448",
    "DSA 2048": "DSA 2048",
}


def _name(*attributes: tuple[x509.ObjectIdentifier, str]) -> x509.Name:
    return x509.Name([x509.NameAttribute(oid, value) for oid, value in attributes])


def make_certificate(
    *,
    key: str = "EC P-256",
    signer: str = "EC P-256",
    subject: x509.Name | None = None,
    issuer: x509.Name | None = None,
    not_before: dt.datetime = START,
    not_after: dt.datetime = START + dt.timedelta(days=90),
    extensions: tuple[tuple[x509.ExtensionType, bool], ...] | None = None,
) -> bytes:
    """Return a DER certificate with the given parts (all extensions by default)."""
    if subject is None:
        subject = _name((NameOID.COMMON_NAME, "www.example.com"))
    if extensions is None:
        extensions = (
            (
                x509.SubjectAlternativeName(
                    [
                        x509.DNSName("www.example.com"),
                        x509.IPAddress(ipaddress.ip_address("192.0.2.7")),
                        x509.DNSName("*.example.com"),
                        x509.IPAddress(ipaddress.ip_address("2001:db8::1")),
                        x509.UniformResourceIdentifier("https://example.com/"),
                    ]
                ),
                False,
            ),
            (x509.BasicConstraints(ca=True, path_length=2), True),
            (
                x509.KeyUsage(
                    digital_signature=True,
                    content_commitment=False,
                    key_encipherment=True,
                    data_encipherment=False,
                    key_agreement=True,
                    key_cert_sign=True,
                    crl_sign=False,
                    encipher_only=False,
                    decipher_only=True,
                ),
                True,
            ),
            (
                x509.ExtendedKeyUsage(
                    [ExtendedKeyUsageOID.SERVER_AUTH, ExtendedKeyUsageOID.CLIENT_AUTH]
                ),
                False,
            ),
            (
                x509.AuthorityInformationAccess(
                    [
                        x509.AccessDescription(
                            AuthorityInformationAccessOID.OCSP,
                            x509.UniformResourceIdentifier("http://ocsp.example/"),
                        ),
                        x509.AccessDescription(
                            AuthorityInformationAccessOID.CA_ISSUERS,
                            x509.UniformResourceIdentifier("http://ca.example/issuer.crt"),
                        ),
                    ]
                ),
                False,
            ),
        )
    builder = (
        x509.CertificateBuilder()
        .subject_name(subject)
        .issuer_name(issuer or _name((NameOID.COMMON_NAME, "Example CA")))
        .public_key(_key(key).public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(not_before)
        .not_valid_after(not_after)
    )
    for extension, critical in extensions:
        builder = builder.add_extension(extension, critical=critical)
    private = _key(signer)
    algorithm = None if signer in {"Ed25519", "Ed448"} else hashes.SHA256()
    return builder.sign(private, algorithm).public_bytes(serialization.Encoding.DER)


# --- What cryptography reads (as _reasons, _analysis and _connection read it today) -----------


def _crypto_pin(cert: x509.Certificate) -> str:
    spki = cert.public_key().public_bytes(
        serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    return "sha256/" + base64.b64encode(hashlib.sha256(spki).digest()).decode("ascii")


def _extension(cert: x509.Certificate, kind: type[x509.ExtensionType]) -> Any:
    try:
        return cert.extensions.get_extension_for_class(kind).value
    except x509.ExtensionNotFound:
        return None


# What _reasons and _analysis read with cryptography before _der: the reference to match.


def _short(name: x509.Name) -> str:
    common = name.get_attributes_for_oid(x509.NameOID.COMMON_NAME)
    return str(common[0].value) if common else name.rfc4514_string() or "(empty name)"


def _names(cert: x509.Certificate) -> list[str]:
    try:
        san = _extension(cert, x509.SubjectAlternativeName)
    except ValueError:  # not parseable by cryptography
        return []
    if san is None:
        return []
    return [str(n) for n in san.get_values_for_type(x509.DNSName)] + [
        str(ip) for ip in san.get_values_for_type(x509.IPAddress)
    ]


def _has_ca_issuers(cert: x509.Certificate) -> bool:
    try:
        aia = _extension(cert, x509.AuthorityInformationAccess)
    except ValueError:  # not parseable by cryptography
        return False
    return any(d.access_method == AuthorityInformationAccessOID.CA_ISSUERS for d in aia or ())


def _key_text(cert: x509.Certificate) -> str:
    from cryptography.hazmat.primitives.asymmetric import dsa, ec, ed448, ed25519, rsa

    key = cert.public_key()
    if isinstance(key, rsa.RSAPublicKey):
        return f"RSA {key.key_size}"
    if isinstance(key, ec.EllipticCurvePublicKey):
        return f"EC {key.curve.name}"
    if isinstance(key, ed25519.Ed25519PublicKey):
        return "Ed25519"
    if isinstance(key, ed448.Ed448PublicKey):
        return "Ed448"
    if isinstance(key, dsa.DSAPublicKey):
        return f"DSA {key.key_size}"
    return type(key).__name__


def crypto_view(der: bytes) -> dict[str, object]:
    """Every fact _der reads, as cryptography reads it."""
    cert = x509.load_der_x509_certificate(der)
    constraints = _extension(cert, x509.BasicConstraints)
    usage = _extension(cert, x509.KeyUsage)
    eku = _extension(cert, x509.ExtendedKeyUsage)
    aia = _extension(cert, x509.AuthorityInformationAccess)
    usages = None
    if usage is not None:
        usages = set()
        for name in ("encipher_only", "decipher_only"):
            with_agreement = usage.key_agreement
            if with_agreement and getattr(usage, name):
                usages.add(name)
        usages |= {
            name
            for name in (
                "digital_signature",
                "content_commitment",
                "key_encipherment",
                "data_encipherment",
                "key_agreement",
                "key_cert_sign",
                "crl_sign",
            )
            if getattr(usage, name)
        }
    return {
        "version": cert.version.value + 1,
        "serial": cert.serial_number,
        "signature": cert.signature_algorithm_oid.dotted_string,
        "subject": cert.subject.rfc4514_string(),
        "issuer": cert.issuer.rfc4514_string(),
        "subject_short": _short(cert.subject),
        "issuer_short": _short(cert.issuer),
        "not_before": cert.not_valid_before_utc,
        "not_after": cert.not_valid_after_utc,
        "key": _key_text(cert),
        "pin": _crypto_pin(cert),
        "names": tuple(_names(cert)),
        "ca": None if constraints is None else constraints.ca,
        "path_length": None if constraints is None else constraints.path_length,
        "key_usage": usages,
        "eku": None if eku is None else tuple(usage.dotted_string for usage in eku),
        "ca_issuers": tuple(
            d.access_location.value
            for d in aia or ()
            if d.access_method == AuthorityInformationAccessOID.CA_ISSUERS
            and isinstance(d.access_location, x509.UniformResourceIdentifier)
        ),
        "has_ca_issuers": _has_ca_issuers(cert),
        "extension_oids": tuple(e.oid.dotted_string for e in cert.extensions),
        "attributes": tuple(
            (a.oid.dotted_string, a.value if isinstance(a.value, str) else "#" + a.value.hex())
            for a in cert.subject
        ),
        "self_issued": cert.subject == cert.issuer,
        "spki_bytes": cert.public_key().public_bytes(
            serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo
        ),
    }


def der_view(der: bytes) -> dict[str, object]:
    """The same facts, as _der reads them."""
    facts = parse_certificate(der)
    assert spki_pin(der) == facts.pin
    return {
        "version": facts.version,
        "serial": facts.serial,
        "signature": facts.signature_algorithm_oid,
        "subject": facts.subject.rfc4514,
        "issuer": facts.issuer.rfc4514,
        "subject_short": facts.subject.short(),
        "issuer_short": facts.issuer.short(),
        "not_before": facts.not_before,
        "not_after": facts.not_after,
        "key": facts.key,
        "pin": facts.pin,
        "names": facts.names,
        "ca": facts.ca,
        "path_length": facts.path_length,
        "key_usage": None if facts.key_usage is None else set(facts.key_usage),
        "eku": facts.extended_key_usage,
        "ca_issuers": facts.ca_issuers,
        "has_ca_issuers": bool(facts.ca_issuers),
        "extension_oids": tuple(extension.oid for extension in facts.extensions),
        "attributes": facts.subject.attributes,
        "self_issued": facts.self_issued,
        "spki_bytes": facts.spki,
    }


def assert_same(der: bytes) -> CertificateFacts:
    assert der_view(der) == crypto_view(der)
    return parse_certificate(der)


# --- Agreement with cryptography ---------------------------------------------------------------


@pytest.mark.parametrize("kind", KEY_KINDS)
def test_every_key_type_reads_as_cryptography_reads_it(kind: str) -> None:
    """Each key type: pin, key description and every other fact equal cryptography's."""
    facts = assert_same(make_certificate(key=kind))
    assert facts.key == EXPECTED_KEY[kind]
    assert facts.names == (
        "www.example.com",
        "*.example.com",
        "192.0.2.7",
        "2001:db8::1",
    )
    assert facts.ca is True
    assert facts.path_length == 2


@pytest.mark.parametrize("signer", ["RSA 2048", "EC P-384", "Ed25519", "Ed448", "DSA 2048"])
def test_signature_algorithms_are_named(signer: str) -> None:
    """The signature algorithm's OID and name are those of the signing key's algorithm."""
    facts = assert_same(make_certificate(signer=signer))
    expected = {
        "RSA 2048": "sha256WithRSAEncryption",
        "EC P-384": "ecdsa-with-SHA256",
        "Ed25519": "ed25519",
        "Ed448": "ed448",
        "DSA 2048": "dsa-with-sha256",
    }[signer]
    assert facts.signature_algorithm == expected
    assert (
        facts.signature_algorithm
        == x509.load_der_x509_certificate(
            make_certificate(signer=signer)
        ).signature_algorithm_oid._name
    )


def test_rsa_pss_signature_is_named() -> None:
    """An RSASSA-PSS signature reads as rsassaPss, as cryptography names it."""
    key = _key("RSA 2048")
    cert = (
        x509.CertificateBuilder()
        .subject_name(_name((NameOID.COMMON_NAME, "pss")))
        .issuer_name(_name((NameOID.COMMON_NAME, "pss")))
        .public_key(key.public_key())
        .serial_number(1)
        .not_valid_before(START)
        .not_valid_after(START + dt.timedelta(days=1))
        .sign(
            key,
            hashes.SHA256(),
            rsa_padding=padding.PSS(mgf=padding.MGF1(hashes.SHA256()), salt_length=32),
        )
    )
    der = cert.public_bytes(serialization.Encoding.DER)
    facts = assert_same(der)
    assert facts.signature_algorithm == "rsassaPss"
    assert facts.self_issued


def test_rsa_pss_key_is_pinned_as_encoded() -> None:
    """An RSASSA-PSS key reads as RSA; its pin is over its own encoding, unlike cryptography's.

    cryptography re-encodes the key as rsaEncryption before hashing, so its pin differs; curl
    and RFC 7469 hash the SubjectPublicKeyInfo as the certificate has it, as _der does.
    """
    numbers = _key("RSA 2048").public_key().public_numbers()

    def integer(value: int) -> bytes:
        return tlv(0x02, value.to_bytes(value.bit_length() // 8 + 1, "big"))

    rsa_key = seq(integer(numbers.n), integer(numbers.e))
    spki = seq(seq(oid("1.2.840.113549.1.1.10")), tlv(0x03, b"\x00" + rsa_key))
    der = synthetic(spki=spki)
    facts = parse_certificate(der)
    assert facts.key == "RSA 2048" == _key_text(x509.load_der_x509_certificate(der))
    assert facts.key_algorithm_oid == "1.2.840.113549.1.1.10"
    assert facts.pin == "sha256/" + base64.b64encode(hashlib.sha256(spki).digest()).decode()
    assert facts.pin != _crypto_pin(x509.load_der_x509_certificate(der))


def test_unknown_signature_algorithm_shows_its_oid() -> None:
    """An algorithm without a name here shows its dotted OID (cryptography says 'Unknown OID')."""
    der = synthetic(signature=seq(oid("1.2.3.4.5")))
    assert parse_certificate(der).signature_algorithm == "1.2.3.4.5"


def test_without_extensions() -> None:
    """No extensions: no names, and None for the constraints and usages that are absent."""
    facts = assert_same(make_certificate(extensions=()))
    assert facts.extensions == ()
    assert facts.names == ()
    assert facts.ca is None
    assert facts.key_usage is None
    assert facts.extended_key_usage is None
    assert facts.ca_issuers == ()


def test_only_dns_names_and_a_leaf_constraint() -> None:
    """A leaf: DNS names only, cA false, no path length."""
    facts = assert_same(
        make_certificate(
            extensions=(
                (x509.SubjectAlternativeName([x509.DNSName("a.example")]), False),
                (x509.BasicConstraints(ca=False, path_length=None), True),
            )
        )
    )
    assert facts.dns_names == ("a.example",)
    assert facts.ip_addresses == ()
    assert facts.ca is False
    assert facts.path_length is None


@pytest.mark.parametrize(
    "string_type",
    [
        _ASN1Type.UTF8String,
        _ASN1Type.PrintableString,
        _ASN1Type.IA5String,
        _ASN1Type.BMPString,
        _ASN1Type.UniversalString,
        _ASN1Type.T61String,
        _ASN1Type.NumericString,
        _ASN1Type.VisibleString,
    ],
)
def test_name_string_types(string_type: _ASN1Type) -> None:
    """Each ASN.1 string type of a name attribute decodes to the same text as cryptography's."""
    text = "Acme Org" if string_type != _ASN1Type.BMPString else "Acme Ünïcødé 中文"
    if string_type == _ASN1Type.NumericString:
        text = "0123 456"
    if string_type in {_ASN1Type.UTF8String, _ASN1Type.UniversalString}:
        text = "Acme Ünïcødé 中文 \U0001f510"
    subject = x509.Name(
        [
            x509.NameAttribute(NameOID.ORGANIZATION_NAME, text, _type=string_type),
            x509.NameAttribute(NameOID.COMMON_NAME, "host.example"),
        ]
    )
    facts = assert_same(make_certificate(subject=subject))
    assert facts.subject.attributes[0] == ("2.5.4.10", text)
    assert facts.subject.short() == "host.example"


def test_names_that_need_escaping_and_multi_valued_rdns() -> None:
    """RFC 4514 escaping, unknown OIDs, '+' RDNs and reversed order match cryptography."""
    subject = x509.Name(
        [
            x509.RelativeDistinguishedName([x509.NameAttribute(NameOID.COUNTRY_NAME, "DE")]),
            x509.RelativeDistinguishedName(
                [
                    x509.NameAttribute(NameOID.ORGANIZATION_NAME, 'a,b+c;d<e>f"g\\h'),
                    x509.NameAttribute(NameOID.ORGANIZATIONAL_UNIT_NAME, "#lead and trail "),
                ]
            ),
            x509.RelativeDistinguishedName(
                [x509.NameAttribute(x509.ObjectIdentifier("1.2.3.4.99999"), "nul\0here")]
            ),
            x509.RelativeDistinguishedName(
                [x509.NameAttribute(NameOID.DOMAIN_COMPONENT, "example")]
            ),
            x509.RelativeDistinguishedName([x509.NameAttribute(NameOID.USER_ID, "u1")]),
            x509.RelativeDistinguishedName([x509.NameAttribute(NameOID.EMAIL_ADDRESS, "a@b")]),
            x509.RelativeDistinguishedName(
                [
                    x509.NameAttribute(
                        NameOID.X500_UNIQUE_IDENTIFIER, b"\x00\xab", _type=_ASN1Type.BitString
                    )
                ]
            ),
        ]
    )
    facts = assert_same(make_certificate(subject=subject))
    assert len(facts.subject.rdns[1]) == 2
    assert facts.subject.short() == facts.subject.rfc4514  # no CN: the whole name
    assert facts.subject.rfc4514.startswith("2.5.4.45=#")


def test_empty_name_short_form() -> None:
    """An empty subject reads as '(empty name)', as _reasons shows it."""
    facts = assert_same(make_certificate(subject=x509.Name([])))
    assert facts.subject.rfc4514 == ""
    assert facts.subject.short() == "(empty name)"


def test_first_common_name_is_the_short_name() -> None:
    """With two CNs the first is shown, as _reasons._short shows it."""
    subject = _name((NameOID.COMMON_NAME, "first"), (NameOID.COMMON_NAME, "second"))
    assert assert_same(make_certificate(subject=subject)).subject.short() == "first"


@pytest.mark.parametrize(
    ("not_before", "not_after"),
    [
        (dt.datetime(1950, 1, 1, tzinfo=UTC), dt.datetime(2049, 12, 31, 23, 59, 59, tzinfo=UTC)),
        (dt.datetime(2049, 12, 31, 23, 59, 59, tzinfo=UTC), dt.datetime(2050, 1, 1, tzinfo=UTC)),
        (dt.datetime(2050, 1, 1, tzinfo=UTC), dt.datetime(9999, 12, 31, 23, 59, 59, tzinfo=UTC)),
        (dt.datetime(2024, 2, 29, 12, 30, 45, tzinfo=UTC), dt.datetime(2124, 2, 29, tzinfo=UTC)),
    ],
)
def test_utctime_and_generalizedtime(not_before: dt.datetime, not_after: dt.datetime) -> None:
    """Dates before 2050 (UTCTime) and from 2050 or before 1950 (GeneralizedTime) read alike."""
    facts = assert_same(make_certificate(not_before=not_before, not_after=not_after))
    assert facts.not_before == not_before
    assert facts.not_after == not_after
    assert facts.not_after.tzinfo is UTC


@pytest.mark.parametrize(
    ("encoded", "expected"),
    [
        (tlv(0x17, b"491231235959Z"), dt.datetime(2049, 12, 31, 23, 59, 59, tzinfo=UTC)),
        (tlv(0x17, b"500101000000Z"), dt.datetime(1950, 1, 1, tzinfo=UTC)),
        (tlv(0x18, b"19491231000000Z"), dt.datetime(1949, 12, 31, tzinfo=UTC)),
        (tlv(0x18, b"20260101000000Z"), dt.datetime(2026, 1, 1, tzinfo=UTC)),
    ],
)
def test_time_forms_at_the_edges(encoded: bytes, expected: dt.datetime) -> None:
    """UTCTime years 49/50 and GeneralizedTime before 1950 read as cryptography reads them."""
    der = synthetic(validity=seq(encoded, tlv(0x18, b"20991231000000Z")))
    assert parse_certificate(der).not_before == expected
    assert x509.load_der_x509_certificate(der).not_valid_before_utc == expected


@pytest.mark.parametrize("key_type", list(trustme.KeyType))
def test_trustme_chains(key_type: trustme.KeyType) -> None:
    """trustme's root, intermediate and leaf read as cryptography reads them."""
    root = trustme.CA(key_type=key_type)
    intermediate = root.create_child_ca(key_type=key_type)
    leaf = intermediate.issue_cert("host.example", "127.0.0.1", "::1", key_type=key_type)
    for pem in (root.cert_pem.bytes(), *(blob.bytes() for blob in leaf.cert_chain_pems)):
        facts = assert_same(ssl.PEM_cert_to_DER_cert(pem.decode("ascii")))
        assert facts.version == 3
    assert parse_certificate(ssl.PEM_cert_to_DER_cert(root.cert_pem.bytes().decode())).self_issued
    leaf_facts = parse_certificate(
        ssl.PEM_cert_to_DER_cert(leaf.cert_chain_pems[0].bytes().decode())
    )
    assert not leaf_facts.self_issued
    assert leaf_facts.names == ("host.example", "127.0.0.1", "::1")


def test_check_describes_what_cryptography_reads() -> None:
    """_analysis.describe() (now on _der) shows what cryptography reads from the certificate."""
    der = make_certificate(key="RSA 2048", signer="RSA 2048")
    info = _analysis.describe(der)
    cert = x509.load_der_x509_certificate(der)
    assert info.subject == cert.subject.rfc4514_string()
    assert info.issuer == cert.issuer.rfc4514_string()
    assert info.not_before == cert.not_valid_before_utc.isoformat()
    assert info.not_after == cert.not_valid_after_utc.isoformat()
    assert info.key == _key_text(cert)
    assert info.signature_algorithm == cert.signature_algorithm_oid._name
    assert info.names == tuple(_names(cert))
    assert info.pin == _crypto_pin(cert) == spki_pin(der)
    assert info.self_issued == (cert.subject == cert.issuer)


def test_version_1_certificate() -> None:
    """A v1 certificate (no version field, no extensions) reads as version 1."""
    der = synthetic(version=None, extensions=None)
    assert parse_certificate(der).version == 1
    assert x509.load_der_x509_certificate(der).version == x509.Version.v1


def test_runs_without_cryptography() -> None:
    """In an interpreter where cryptography cannot be imported, pins and facts still read."""
    der = make_certificate(key="RSA 2048")
    code = (
        "import sys; sys.modules['cryptography'] = None\n"
        "from sslcustomize._x509._der import parse_certificate, spki_pin\n"
        f"der = bytes.fromhex('{der.hex()}')\n"
        "facts = parse_certificate(der)\n"
        "print(spki_pin(der), facts.key, facts.subject.rfc4514)\n"
        "assert not [m for m in sys.modules if m.startswith('cryptography') and sys.modules[m]]\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=False, timeout=60
    )
    assert result.returncode == 0, result.stderr
    facts = parse_certificate(der)
    assert result.stdout.split() == [facts.pin, "RSA", "2048", "CN=www.example.com"]


# --- x509-limbo --------------------------------------------------------------------------------

# Certificates _der refuses though cryptography loads them: stricter on purpose. Each is invalid
# under RFC 5280; a caller shows its generic message for them. (invalid::invalid-issuer-key, an
# RSA key that is not an RSAPublicKey, is refused too, but cryptography cannot read its key
# either.)
STRICTER_THAN_CRYPTOGRAPHY = {
    "rfc5280::nc::nc-permits-invalid-ip-san",  # a SAN iPAddress of 8 octets
    "webpki::san::unicode-emoji-san",  # a dNSName (IA5String) with UTF-8 octets
}
# Readable by both, but not the same (4 certificates):
# * an EC key with explicit curve parameters (2): cryptography names the curve and pins its
#   re-encoding with the named curve; _der pins the key exactly as encoded (RFC 7469) and calls
#   the curve "(explicit parameters)";
# * an AIA caIssuers whose location is a dNSName, not a URI (2): _has_ca_issuers()
#   counts it, _der lists only URIs (nothing can be downloaded from a bare name).
EXPLICIT_CURVE = "(explicit parameters)"


def _limbo_certificates() -> dict[bytes, str]:
    """Every distinct certificate of x509-limbo, DER, with the id of a case that uses it."""
    with LIMBO_JSON.open(encoding="utf-8") as file:
        data = json.load(file)
    found: dict[bytes, str] = {}
    for case in data["testcases"]:
        for pem in (
            case["peer_certificate"],
            *case["trusted_certs"],
            *case["untrusted_intermediates"],
        ):
            found.setdefault(ssl.PEM_cert_to_DER_cert(pem), case["id"])
    return found


def test_every_limbo_certificate() -> None:
    """Each limbo certificate reads as cryptography reads it, or is a documented difference."""
    same = differs = refused = cryptography_fails = 0
    for der, case in _limbo_certificates().items():
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # cryptography warns on some odd certificates
                expected: dict[str, object] | None = crypto_view(der)
        except (ValueError, TypeError, x509.DuplicateExtension, x509.UnsupportedGeneralNameType):
            expected = None
        try:
            got: dict[str, object] | None = der_view(der)
        except DERError:
            got = None
        if expected is None:
            cryptography_fails += 1  # _der may read it (fields cryptography rejects: unread)
        elif got is None:
            assert case in STRICTER_THAN_CRYPTOGRAPHY, case
            refused += 1
        elif got != expected:
            differing = {k for k in got if got[k] != expected[k]}
            if differing == {"has_ca_issuers"}:  # caIssuers that is not a URI: not fetchable
                assert case in {"rfc5280::ee-aia", "rfc5280::ee-critical-aia-invalid"}, case
                assert got["ca_issuers"] == ()
            else:
                assert parse_certificate(der).curve == EXPLICIT_CURVE, case
                assert differing == {"key", "pin", "spki_bytes"}
            differs += 1
        else:
            same += 1
    assert refused == len(STRICTER_THAN_CRYPTOGRAPHY)
    assert same > 890
    assert differs == 4
    assert cryptography_fails >= 10


def test_limbo_certificates_cryptography_cannot_read_are_refused_or_read_alike() -> None:
    """Where cryptography fails to load or read extensions, _der refuses or reads the same."""
    checked = 0
    for der in _limbo_certificates():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                cert = x509.load_der_x509_certificate(der)
                list(cert.extensions)
                continue
            except (ValueError, TypeError, x509.DuplicateExtension):
                pass
        checked += 1
        try:
            facts = parse_certificate(der)
        except DERError:
            continue
        # Loadable but with an extension cryptography rejects (name constraints, AKI): the
        # facts both read still agree.
        cert = x509.load_der_x509_certificate(der)
        assert facts.subject.rfc4514 == cert.subject.rfc4514_string()
        assert facts.not_after == cert.not_valid_after_utc
        assert facts.pin == _crypto_pin(cert)
    assert checked >= 10


# --- Malformed input ---------------------------------------------------------------------------


def test_synthetic_certificate_is_valid() -> None:
    """The hand-built base certificate reads, and as cryptography reads it (the twin of below)."""
    der = synthetic()
    facts = parse_certificate(der)
    assert facts.dns_names == ("host.example",)
    assert facts.key == "Ed25519"
    assert x509.load_der_x509_certificate(der).subject.rfc4514_string() == "CN=subject"


MALFORMED: dict[str, bytes] = {
    "empty": b"",
    "one byte": b"\x30",
    "trailing byte": synthetic() + b"\x00",
    "indefinite length": b"\x30\x80" + synthetic()[2:] + b"\x00\x00",
    "high tag number": b"\x3f\x01\x00",
    "five length octets": b"\x30\x85\x00\x00\x00\x01\x00",
    "huge length": b"\x30\x84\xff\xff\xff\xff" + bytes(10),
    "non-minimal short length": b"\x30\x81\x05" + bytes(5),
    "length with leading zero": b"\x30\x82\x00\x85" + bytes(0x85),
    "explicit version 1": synthetic(version=tlv(0xA0, tlv(0x02, b"\x00"))),
    "version 4": synthetic(version=tlv(0xA0, tlv(0x02, b"\x03"))),
    "non-minimal serial": synthetic(serial=tlv(0x02, b"\x00\x01")),
    "non-minimal negative serial": synthetic(serial=tlv(0x02, b"\xff\x80")),
    "empty serial": synthetic(serial=tlv(0x02, b"")),
    "utctime without seconds": synthetic(
        validity=seq(tlv(0x17, b"2601010000Z"), tlv(0x17, b"270101000000Z"))
    ),
    "utctime with offset": synthetic(
        validity=seq(tlv(0x17, b"260101000000+0100"), tlv(0x17, b"270101000000Z"))
    ),
    "generalizedtime with fraction": synthetic(
        validity=seq(tlv(0x18, b"20260101000000.5Z"), tlv(0x17, b"270101000000Z"))
    ),
    "february 30": synthetic(
        validity=seq(tlv(0x17, b"260230000000Z"), tlv(0x17, b"270101000000Z"))
    ),
    "non-ascii digits": synthetic(
        validity=seq(tlv(0x17, "26\uff101010000Z".encode()), tlv(0x17, b"270101000000Z"))
    ),
    "three times": synthetic(validity=VALIDITY[:2] + VALIDITY[2:] + tlv(0x17, b"270101000000Z")),
    "time of wrong type": synthetic(validity=seq(tlv(0x04, b"x"), tlv(0x17, b"270101000000Z"))),
    "bad utf-8 in a name": synthetic(
        subject=seq(tlv(0x31, seq(oid("2.5.4.3"), tlv(0x0C, b"\xff\xfe"))))
    ),
    "odd BMPString": synthetic(subject=seq(tlv(0x31, seq(oid("2.5.4.3"), tlv(0x1E, b"\x00"))))),
    "name value of type INTEGER": synthetic(
        subject=seq(tlv(0x31, seq(oid("2.5.4.3"), tlv(0x02, b"\x01"))))
    ),
    "empty RDN": synthetic(subject=seq(tlv(0x31))),
    "attribute without value": synthetic(subject=seq(tlv(0x31, seq(oid("2.5.4.3"))))),
    "non-minimal OID arc": synthetic(signature=seq(tlv(0x06, b"\x2b\x80\x65\x70"))),
    "truncated OID": synthetic(signature=seq(tlv(0x06, b"\x2b\x81"))),
    "empty OID": synthetic(signature=seq(tlv(0x06, b""))),
    "Ed25519 key of 31 octets": synthetic(
        spki=seq(seq(oid("1.3.101.112")), tlv(0x03, b"\x00" + bytes(31)))
    ),
    "Ed25519 key with parameters": synthetic(
        spki=seq(seq(oid("1.3.101.112"), b"\x05\x00"), tlv(0x03, b"\x00" + bytes(32)))
    ),
    "key with unused bits": synthetic(
        spki=seq(seq(oid("1.3.101.112")), tlv(0x03, b"\x01" + bytes(32)))
    ),
    "bit string padding not zero": synthetic(
        spki=seq(seq(oid("1.3.101.112")), tlv(0x03, b"\x01" + bytes(31) + b"\x01"))
    ),
    "RSA key negative modulus": synthetic(
        spki=seq(
            seq(oid("1.2.840.113549.1.1.1"), b"\x05\x00"),
            tlv(0x03, b"\x00" + seq(tlv(0x02, b"\x80\x01"), tlv(0x02, b"\x01\x00\x01"))),
        )
    ),
    "RSA key with bad parameters": synthetic(
        spki=seq(
            seq(oid("1.2.840.113549.1.1.1"), tlv(0x02, b"\x00")),
            tlv(0x03, b"\x00" + seq(tlv(0x02, b"\x00\x81"), tlv(0x02, b"\x01\x00\x01"))),
        )
    ),
    "RSA key with trailing integer": synthetic(
        spki=seq(
            seq(oid("1.2.840.113549.1.1.1"), b"\x05\x00"),
            tlv(
                0x03,
                b"\x00"
                + seq(tlv(0x02, b"\x00\x81"), tlv(0x02, b"\x01\x00\x01"), tlv(0x02, b"\x01")),
            ),
        )
    ),
    "RSA key zero exponent": synthetic(
        spki=seq(
            seq(oid("1.2.840.113549.1.1.1"), b"\x05\x00"),
            tlv(0x03, b"\x00" + seq(tlv(0x02, b"\x00\x81"), tlv(0x02, b"\x00"))),
        )
    ),
    "empty signature": synthetic(signature_value=tlv(0x03, b"")),
    "algorithm with two parameters": synthetic(
        signature=seq(oid("1.3.101.112"), b"\x05\x00", b"\x05\x00")
    ),
    "one time only": synthetic(validity=seq(tlv(0x17, b"260101000000Z"))),
    "EC key without curve": synthetic(
        spki=seq(seq(oid("1.2.840.10045.2.1")), tlv(0x03, b"\x00\x04" + bytes(64)))
    ),
    "EC point of the wrong size": synthetic(
        spki=seq(
            seq(oid("1.2.840.10045.2.1"), oid("1.2.840.10045.3.1.7")),
            tlv(0x03, b"\x00\x04" + bytes(63)),
        )
    ),
    "duplicate extension": synthetic(
        extensions=tlv(
            0xA3,
            seq(
                extension("2.5.29.17", seq(tlv(0x82, b"a"))),
                extension("2.5.29.17", seq(tlv(0x82, b"b"))),
            ),
        )
    ),
    "critical FALSE encoded": synthetic(
        extensions=tlv(
            0xA3, seq(extension("2.5.29.17", seq(tlv(0x82, b"a")), critical=b"\x01\x01\x00"))
        )
    ),
    "boolean 0x01": synthetic(
        extensions=tlv(
            0xA3, seq(extension("2.5.29.17", seq(tlv(0x82, b"a")), critical=b"\x01\x01\x01"))
        )
    ),
    "non-ascii dNSName": synthetic(
        extensions=tlv(0xA3, seq(extension("2.5.29.17", seq(tlv(0x82, "ä.example".encode())))))
    ),
    "IP address of 5 octets": synthetic(
        extensions=tlv(0xA3, seq(extension("2.5.29.17", seq(tlv(0x87, b"\x01\x02\x03\x04\x05")))))
    ),
    "unknown general name": synthetic(
        extensions=tlv(0xA3, seq(extension("2.5.29.17", seq(tlv(0x89, b"x")))))
    ),
    "SAN with trailing bytes": synthetic(
        extensions=tlv(0xA3, seq(extension("2.5.29.17", seq(tlv(0x82, b"a")) + b"\x00")))
    ),
    "basic constraints cA FALSE encoded": synthetic(
        extensions=tlv(0xA3, seq(extension("2.5.29.19", seq(b"\x01\x01\x00"))))
    ),
    "negative path length": synthetic(
        extensions=tlv(0xA3, seq(extension("2.5.29.19", seq(b"\x01\x01\xff", b"\x02\x01\xff"))))
    ),
    "key usage not a bit string": synthetic(
        extensions=tlv(0xA3, seq(extension("2.5.29.15", tlv(0x04, b"\x01"))))
    ),
    "EKU with a non-OID": synthetic(
        extensions=tlv(0xA3, seq(extension("2.5.29.37", seq(tlv(0x02, b"\x01")))))
    ),
    "AIA description without location": synthetic(
        extensions=tlv(0xA3, seq(extension("1.3.6.1.5.5.7.1.1", seq(seq(oid("1.2.3"))))))
    ),
    "extension without value": synthetic(extensions=tlv(0xA3, seq(seq(oid("2.5.29.17"))))),
    "element after the extensions": synthetic(tail=tlv(0x02, b"\x01")),
    "unique ID after the extensions": synthetic(tail=tlv(0x81, b"\x00")),
    "signature not a bit string": synthetic(signature_value=tlv(0x04, bytes(65))),
}


# The malformations spki_pin sees too: framing, version, the TBSCertificate's shape, the key.
SPKI_PIN_READS = {
    "EC key without curve",
    "EC point of the wrong size",
    "Ed25519 key of 31 octets",
    "Ed25519 key with parameters",
    "RSA key negative modulus",
    "RSA key with bad parameters",
    "RSA key with trailing integer",
    "bit string padding not zero",
    "empty",
    "explicit version 1",
    "five length octets",
    "high tag number",
    "huge length",
    "indefinite length",
    "key with unused bits",
    "length with leading zero",
    "non-minimal short length",
    "one byte",
    "signature not a bit string",
    "trailing byte",
    "version 4",
}


@pytest.mark.parametrize("label", sorted(MALFORMED))
def test_malformed_input_raises_der_error(label: str) -> None:
    """Each malformed certificate raises DERError from parse_certificate."""
    with pytest.raises(DERError):
        parse_certificate(MALFORMED[label])
    if label in SPKI_PIN_READS:
        with pytest.raises(DERError):
            spki_pin(MALFORMED[label])


def test_only_bytes_are_read() -> None:
    """A bytearray or str raises DERError (the reader takes bytes, as ssl gives them)."""
    for value in (bytearray(synthetic()), synthetic().hex()):
        with pytest.raises(DERError):
            parse_certificate(value)  # type: ignore[arg-type]  # the wrong type on purpose
        with pytest.raises(DERError):
            spki_pin(value)  # type: ignore[arg-type]


def test_rarer_keys_and_fields() -> None:
    """Unknown curves, DSA without parameters, PSS keys, unique IDs, empty values all read."""
    rsa_key = b"\x00" + seq(tlv(0x02, b"\x00\x81"), tlv(0x02, b"\x01\x00\x01"))
    cases = {
        "EC 1.2.3.4": seq(seq(oid("1.2.840.10045.2.1"), oid("1.2.3.4")), tlv(0x03, b"\x00\x04")),
        "DSA": seq(seq(oid("1.2.840.10040.4.1")), tlv(0x03, b"\x00" + tlv(0x02, b"\x05"))),
        "RSA 8": seq(seq(oid("1.2.840.113549.1.1.10")), tlv(0x03, rsa_key)),
        "1.2.3.4.5": seq(seq(oid("1.2.3.4.5"), b"\x05\x00"), tlv(0x03, b"\x00abc")),
    }
    for key, spki in cases.items():
        assert parse_certificate(synthetic(spki=spki)).key == key
    der = synthetic(
        subject=seq(tlv(0x31, seq(oid("2.5.4.10"), tlv(0x0C, b"")))),
        extensions=tlv(0x81, b"\x00")
        + tlv(0x82, b"\x00")
        + tlv(0xA3, seq(extension("2.5.29.17", seq(tlv(0x88, b"\x2a\x03"), tlv(0x82, b"a"))))),
    )
    facts = parse_certificate(der)
    assert (
        facts.subject.rfc4514
        == "O="
        == x509.load_der_x509_certificate(der).subject.rfc4514_string()
    )
    assert facts.dns_names == ("a",)
    with pytest.raises(DERError):
        parse_certificate(synthetic(extensions=tlv(0x82, b"\x00") + tlv(0x81, b"\x00")))


def test_der_error_is_a_value_error() -> None:
    """Callers that catch ValueError (as they did for cryptography) catch DERError too."""
    assert issubclass(DERError, ValueError)


def test_spki_pin_reads_the_key_but_not_the_names() -> None:
    """spki_pin refuses a bad key or framing; a bad name is left to parse_certificate."""
    with pytest.raises(DERError):
        spki_pin(MALFORMED["Ed25519 key of 31 octets"])
    with pytest.raises(DERError):
        spki_pin(MALFORMED["trailing byte"])
    bad_name = MALFORMED["bad utf-8 in a name"]
    assert spki_pin(bad_name) == "sha256/" + base64.b64encode(
        hashlib.sha256(ED25519_SPKI).digest()
    ).decode("ascii")


def test_expiry_and_pin_read_as_parse_certificate_reads_them() -> None:
    """scan's read of a verified leaf: the same expiry and pin; bad framing or key refused."""
    read = 0
    for der in list(_limbo_certificates())[:200]:
        try:
            facts = parse_certificate(der)
        except DERError:
            continue
        assert expiry_and_pin(der) == (facts.not_after, spki_pin(der))
        read += 1
    assert read > 150
    for label in ("Ed25519 key of 31 octets", "trailing byte"):
        with pytest.raises(DERError):
            expiry_and_pin(MALFORMED[label])


def test_deep_nesting_raises_der_error() -> None:
    """5,000 nested SEQUENCEs, definite or indefinite, raise DERError, not RecursionError."""
    definite = b""
    for _ in range(5_000):
        definite = seq(definite)
    for data in (definite, b"\x30\x80" * 50_000):
        with pytest.raises(DERError):
            parse_certificate(data)
        with pytest.raises(DERError):
            spki_pin(data)


def _reference_certificate() -> bytes:
    return make_certificate(key="RSA 2048", signer="EC P-256")


def _raises_only_der_error(function: Callable[[bytes], object], data: bytes) -> bool:
    """Call ``function``; return True if it raised DERError, False if it returned."""
    try:
        function(data)
    except DERError:
        return True
    return False


def test_every_truncation_raises_der_error() -> None:
    """A certificate cut at any offset raises DERError (and only that) from both functions."""
    der = _reference_certificate()
    for cut in range(len(der)):
        assert _raises_only_der_error(parse_certificate, der[:cut]), cut
        assert _raises_only_der_error(spki_pin, der[:cut]), cut
    assert not _raises_only_der_error(parse_certificate, der)


def test_random_bit_flips_raise_der_error_or_read() -> None:
    """Thousands of single and multiple bit flips never raise anything but DERError."""
    der = _reference_certificate()
    generator = random.Random(20261203)
    outcomes = {True: 0, False: 0}
    for _ in range(3000):
        flipped = bytearray(der)
        for _ in range(generator.choice((1, 1, 2, 8))):
            flipped[generator.randrange(len(der))] ^= 1 << generator.randrange(8)
        data = bytes(flipped)
        outcomes[_raises_only_der_error(parse_certificate, data)] += 1
        _raises_only_der_error(spki_pin, data)
    assert outcomes[True] > 100  # many flips break the framing...
    assert outcomes[False] > 100  # ...and many only change a value


def test_every_single_byte_value_at_the_headers() -> None:
    """Every byte value at each of the first 64 offsets raises DERError or reads."""
    der = _reference_certificate()
    for offset in range(64):
        for value in range(256):
            data = der[:offset] + bytes((value,)) + der[offset + 1 :]
            _raises_only_der_error(parse_certificate, data)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.binary(max_size=600))
def test_fuzz_arbitrary_bytes(data: bytes) -> None:
    """Arbitrary bytes raise DERError or read; nothing else escapes."""
    _raises_only_der_error(parse_certificate, data)
    _raises_only_der_error(spki_pin, data)


@functools.cache
def _fuzz_base() -> bytes:
    return synthetic(
        extensions=tlv(
            0xA3,
            seq(
                extension(
                    "2.5.29.17", seq(tlv(0x82, b"a.example"), tlv(0x87, b"\x7f\x00\x00\x01"))
                ),
                extension(
                    "2.5.29.19", seq(b"\x01\x01\xff", b"\x02\x01\x00"), critical=b"\x01\x01\xff"
                ),
                extension("2.5.29.15", b"\x03\x02\x05\xa0"),
                extension("2.5.29.37", seq(oid("1.3.6.1.5.5.7.3.1"))),
                extension(
                    "1.3.6.1.5.5.7.1.1",
                    seq(seq(oid("1.3.6.1.5.5.7.48.2"), tlv(0x86, b"http://a/"))),
                ),
            ),
        )
    )


@settings(max_examples=400, deadline=None)
@given(
    st.lists(
        st.tuples(st.integers(min_value=0, max_value=10_000), st.integers(0, 255)),
        min_size=1,
        max_size=4,
    ),
    st.integers(min_value=0, max_value=10_000),
)
def test_fuzz_mutated_certificate(edits: list[tuple[int, int]], cut: int) -> None:
    """A real certificate with bytes replaced and its end cut raises DERError or reads."""
    data = bytearray(_fuzz_base())
    for offset, value in edits:
        data[offset % len(data)] = value
    mutated = bytes(data[: len(data) - cut % 8])
    _raises_only_der_error(parse_certificate, mutated)
    _raises_only_der_error(spki_pin, mutated)


def test_fuzz_base_reads() -> None:
    """The fuzz base certificate itself reads completely (so the fuzz starts from valid input)."""
    facts = parse_certificate(_fuzz_base())
    assert facts.names == ("a.example", "127.0.0.1")
    assert facts.ca is True
    assert facts.path_length == 0
    assert facts.key_usage == frozenset({"digital_signature", "key_encipherment"})
    assert facts.extended_key_usage == ("1.3.6.1.5.5.7.3.1",)
    assert facts.ca_issuers == ("http://a/",)
    assert facts.extensions[1].critical
