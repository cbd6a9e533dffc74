"""Benchmark of the stdlib DER reader against cryptography, both measured in the same run.

    python bench/der.py [--quick]

For certificates made at start (RSA 2048 and 4096, EC P-256, Ed25519; each with SAN, EKU,
AIA, basic constraints and key usage):

1. ``spki_pin(der)`` against cryptography's load + ``public_key().public_bytes(SPKI)`` +
   SHA-256 (what ``_reasons.spki_pin`` did). Goal: faster (ratio < 1).
2. ``parse_certificate(der)`` against cryptography's load + the same reads: both names as
   RFC 4514 strings, validity, serial, signature algorithm, key type and size, SAN DNS and IP,
   basic constraints, key usage, extended key usage, AIA caIssuers, self-issued, and the pin.
   Goal: faster (ratio < 1).
3. The import: what ``sslcustomize._x509._der`` adds to a fresh interpreter that has imported
   ``sslcustomize`` already, against what ``cryptography.x509`` (what a rejection imported
   before) adds to the same interpreter.

Rounds alternate candidate and baseline; figures are medians. Needs cryptography and trustme.
Prints figures; always exits 0.
"""

from __future__ import annotations

import argparse
import base64
import datetime as dt
import hashlib
import ipaddress
import statistics
import subprocess
import sys
import time
from collections.abc import Callable

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, ed25519, rsa
from cryptography.x509.oid import AuthorityInformationAccessOID, ExtendedKeyUsageOID, NameOID

from sslcustomize._x509._der import parse_certificate, spki_pin


def _certificate(key: object) -> bytes:
    name = x509.Name(
        [
            x509.NameAttribute(NameOID.COUNTRY_NAME, "DE"),
            x509.NameAttribute(NameOID.ORGANIZATION_NAME, "Example Corp"),
            x509.NameAttribute(NameOID.COMMON_NAME, "www.example.com"),
        ]
    )
    issuer_key = ec.generate_private_key(ec.SECP256R1())
    issuer = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "Example Issuing CA")])
    now = dt.datetime(2026, 1, 1, tzinfo=dt.timezone.utc)
    public = key.public_key()  # type: ignore[attr-defined]
    builder = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(issuer)
        .public_key(public)
        .serial_number(x509.random_serial_number())
        .not_valid_before(now)
        .not_valid_after(now + dt.timedelta(days=90))
        .add_extension(
            x509.SubjectAlternativeName(
                [
                    x509.DNSName("www.example.com"),
                    x509.DNSName("example.com"),
                    x509.IPAddress(ipaddress.ip_address("192.0.2.1")),
                ]
            ),
            critical=False,
        )
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(
            x509.KeyUsage(
                digital_signature=True,
                content_commitment=False,
                key_encipherment=True,
                data_encipherment=False,
                key_agreement=False,
                key_cert_sign=False,
                crl_sign=False,
                encipher_only=False,
                decipher_only=False,
            ),
            critical=True,
        )
        .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
        .add_extension(
            x509.AuthorityInformationAccess(
                [
                    x509.AccessDescription(
                        AuthorityInformationAccessOID.CA_ISSUERS,
                        x509.UniformResourceIdentifier("http://ca.example/issuer.crt"),
                    )
                ]
            ),
            critical=False,
        )
    )
    cert = builder.sign(issuer_key, hashes.SHA256())
    return cert.public_bytes(serialization.Encoding.DER)


def _crypto_pin(der: bytes) -> str:
    cert = x509.load_der_x509_certificate(der)
    spki = cert.public_key().public_bytes(
        serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    return "sha256/" + base64.b64encode(hashlib.sha256(spki).digest()).decode("ascii")


def _extension(cert: x509.Certificate, kind: type[x509.ExtensionType]) -> object:
    try:
        return cert.extensions.get_extension_for_class(kind).value
    except x509.ExtensionNotFound:
        return None


def _crypto_facts(der: bytes) -> tuple[object, ...]:
    cert = x509.load_der_x509_certificate(der)
    key = cert.public_key()
    size = getattr(key, "key_size", None)
    san = _extension(cert, x509.SubjectAlternativeName)
    aia = _extension(cert, x509.AuthorityInformationAccess)
    return (
        cert.subject.rfc4514_string(),
        cert.issuer.rfc4514_string(),
        cert.not_valid_before_utc,
        cert.not_valid_after_utc,
        cert.serial_number,
        cert.signature_algorithm_oid.dotted_string,
        type(key).__name__,
        size,
        san.get_values_for_type(x509.DNSName) if san else None,  # type: ignore[attr-defined]
        [str(ip) for ip in san.get_values_for_type(x509.IPAddress)] if san else None,  # type: ignore[attr-defined]
        _extension(cert, x509.BasicConstraints),
        _extension(cert, x509.KeyUsage),
        _extension(cert, x509.ExtendedKeyUsage),
        [d.access_location for d in aia] if aia else None,  # type: ignore[attr-defined]
        cert.subject == cert.issuer,
        _crypto_pin(der),
    )


def _der_facts(der: bytes) -> tuple[object, ...]:
    facts = parse_certificate(der)
    return (facts.subject.rfc4514, facts.issuer.rfc4514, facts.key, facts.names, facts.pin)


def _per_call(call: Callable[[bytes], object], ders: list[bytes], loops: int) -> float:
    start = time.perf_counter()
    for _ in range(loops):
        for der in ders:
            call(der)
    return (time.perf_counter() - start) / (loops * len(ders))


def compare(
    title: str,
    candidate: Callable[[bytes], object],
    baseline: Callable[[bytes], object],
    ders: list[bytes],
    *,
    rounds: int,
    loops: int,
) -> None:
    ours: list[float] = []
    theirs: list[float] = []
    for _ in range(rounds):
        ours.append(_per_call(candidate, ders, loops))
        theirs.append(_per_call(baseline, ders, loops))
    mine, base = statistics.median(ours), statistics.median(theirs)
    print(
        f"{title:<44} {mine * 1e6:8.1f} us  vs cryptography {base * 1e6:8.1f} us"
        f"  ratio {mine / base:5.2f}x  {'PASS' if mine < base else 'FAIL'} (goal < 1x)"
    )


def _import_time(module: str, rounds: int) -> float:
    """Seconds ``import module`` takes in a fresh interpreter that has imported sslcustomize.

    Read from ``-X importtime`` (the top-level imports after sslcustomize's), which leaves
    out interpreter start-up and its noise.
    """
    samples = []
    for _ in range(rounds):
        result = subprocess.run(
            [sys.executable, "-X", "importtime", "-c", f"import sslcustomize; import {module}"],
            check=True,
            capture_output=True,
            text=True,
        )
        total, after = 0, False
        for line in result.stderr.splitlines():
            fields = line.split("|")
            if len(fields) != 3 or fields[2].startswith("  ") or "cumulative" in line:
                continue  # a nested import: counted in its parent's cumulative time
            if after:
                total += int(fields[1])
            after = after or fields[2].strip() == "sslcustomize"
        samples.append(total / 1e6)
    return statistics.median(samples)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer rounds")
    args = parser.parse_args()
    rounds, loops = (5, 50) if args.quick else (15, 200)
    keys: dict[str, object] = {
        "RSA 2048": rsa.generate_private_key(public_exponent=65537, key_size=2048),
        "RSA 4096": rsa.generate_private_key(public_exponent=65537, key_size=4096),
        "EC P-256": ec.generate_private_key(ec.SECP256R1()),
        "Ed25519": ed25519.Ed25519PrivateKey.generate(),
    }
    ders = {label: _certificate(key) for label, key in keys.items()}
    for label, der in ders.items():
        assert spki_pin(der) == _crypto_pin(der), label
        compare(f"spki_pin, {label}", spki_pin, _crypto_pin, [der], rounds=rounds, loops=loops)
    for label, der in ders.items():
        compare(
            f"parse_certificate + reads, {label}",
            _der_facts,
            _crypto_facts,
            [der],
            rounds=rounds,
            loops=loops,
        )
    runs = 5 if args.quick else 15
    ours = _import_time("sslcustomize._x509._der", runs)
    theirs = _import_time("cryptography.x509", runs)
    print(
        f"{'import, over an imported sslcustomize':<44} {ours * 1e3:8.1f} ms  vs "
        f"cryptography.x509 {theirs * 1e3:6.1f} ms  ratio {ours / theirs:5.2f}x"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
