"""A throw-away test PKI, made at test time: one good chain and one chain per failure reason.

Everything here is generated in memory with ``cryptography`` (plus one ``openssl`` call for the
SHA-1 signature that ``cryptography`` refuses to make); nothing is read from or written to the
network, and nothing is committed to the repository.

Usage::

    pki = TestPKI()                  # about 50 ms; tests get one per session from conftest
    case = pki["expired"]            # a CertCase
    case.chain_pem, case.key_pem     # what the server sends / signs with
    case.ca_pem                      # the root a client should trust
    case.reasons                     # frozenset({"expired"})

Every server certificate names ``localhost``, ``127.0.0.1`` and ``::1`` (except ``wrong_host``
and ``expired_wrong_host``, which name only ``wrong.example``).
"""

from __future__ import annotations

import base64
import datetime
import hashlib
import ipaddress
import shutil
import ssl
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from cryptography.x509.oid import AuthorityInformationAccessOID, ExtendedKeyUsageOID, NameOID

if TYPE_CHECKING:
    from collections.abc import Iterator, Sequence

    from cryptography.hazmat.primitives.asymmetric.types import (
        CertificateIssuerPrivateKeyTypes,
        CertificatePublicKeyTypes,
    )

__all__ = [
    "CASE_NAMES",
    "CA_KEY_USAGE",
    "FAILING_CASE_NAMES",
    "LOOPBACK_NAMES",
    "CaseFiles",
    "CertCase",
    "ClientCert",
    "TestPKI",
    "spki_pin",
]

#: What a CA certificate of these tests may do: sign certificates and CRLs (and digital
#: signatures), nothing else.
CA_KEY_USAGE = x509.KeyUsage(
    digital_signature=True,
    content_commitment=False,
    key_encipherment=False,
    data_encipherment=False,
    key_agreement=False,
    key_cert_sign=True,
    crl_sign=True,
    encipher_only=False,
    decipher_only=False,
)

#: The names every good server certificate is valid for (SAN DNS / IP entries).
LOOPBACK_NAMES: tuple[str, ...] = ("localhost", "127.0.0.1", "::1")

#: Every server certificate case, in a stable order (handy for ``pytest.mark.parametrize``).
CASE_NAMES: tuple[str, ...] = (
    "good",
    "expired",
    "not_yet_valid",
    "wrong_host",
    "self_signed",
    "unknown_issuer",
    "incomplete_chain",
    "weak_key",
    "weak_signature",
    "not_for_server_auth",
    "expired_wrong_host",
)

#: Every case a verifying client must reject.
FAILING_CASE_NAMES: tuple[str, ...] = CASE_NAMES[1:]

#: Where the ``incomplete_chain`` leaf says its issuer can be downloaded (never fetched).
AIA_CA_ISSUERS_URL = "http://pki.invalid/intermediate.crt"

_ONE_DAY = datetime.timedelta(days=1)


def _pem(cert: x509.Certificate) -> bytes:
    return cert.public_bytes(serialization.Encoding.PEM)


def _key_pem(key: CertificateIssuerPrivateKeyTypes) -> bytes:
    return key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )


def _ec_key() -> ec.EllipticCurvePrivateKey:
    return ec.generate_private_key(ec.SECP256R1())


def _name(common_name: str) -> x509.Name:
    return x509.Name(
        [
            x509.NameAttribute(NameOID.ORGANIZATION_NAME, "sslcustomize tests"),
            x509.NameAttribute(NameOID.COMMON_NAME, common_name),
        ]
    )


def _san(names: Sequence[str]) -> x509.SubjectAlternativeName:
    entries: list[x509.GeneralName] = []
    for name in names:
        try:
            entries.append(x509.IPAddress(ipaddress.ip_address(name)))
        except ValueError:  # noqa: PERF203 - a few names, once per session
            entries.append(x509.DNSName(name))
    return x509.SubjectAlternativeName(entries)


def spki_pin(cert_pem: bytes) -> str:
    """Return the pin ``sha256/<base64>`` of the first certificate's SubjectPublicKeyInfo.

    This is the pin format of the policy's ``[[exception]] pin`` list (HPKP style).
    """
    cert = x509.load_pem_x509_certificate(cert_pem)
    spki = cert.public_key().public_bytes(
        serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    return "sha256/" + base64.b64encode(hashlib.sha256(spki).digest()).decode("ascii")


@dataclass(frozen=True, slots=True, kw_only=True)
class _Issuer:
    """A CA: its certificate and the key it signs with."""

    cert: x509.Certificate
    key: CertificateIssuerPrivateKeyTypes

    @property
    def pem(self) -> bytes:
        return _pem(self.cert)


@dataclass(frozen=True, slots=True, kw_only=True)
class CaseFiles:
    """Paths of one case written to disk by :meth:`CertCase.write`."""

    chain: Path  #: chain.pem: leaf first, then what the server sends with it
    key: Path  #: key.pem: the leaf's private key (PKCS#8, unencrypted)
    ca: Path  #: ca.pem: the root a client should trust


@dataclass(frozen=True, slots=True, kw_only=True)
class CertCase:
    """One server certificate situation and the verdict the product must reach on it."""

    name: str
    #: The PEM certificates the server sends, leaf first.
    chain_pem: bytes
    #: The leaf's private key, PEM (PKCS#8, unencrypted).
    key_pem: bytes
    #: The root CA a client should trust (the same good root for every case).
    ca_pem: bytes
    #: SPEC reason codes a verifying client must report; empty for ``good``.
    reasons: frozenset[str]
    #: The names the leaf's subjectAltName lists.
    names: tuple[str, ...]
    #: The leaf certificate alone, PEM.
    leaf_pem: bytes = field(repr=False)

    @property
    def reason(self) -> str | None:
        """The single expected reason code, or None for ``good``.

        Raises:
            ValueError: the case has several reasons (use :attr:`reasons`).
        """
        if not self.reasons:
            return None
        if len(self.reasons) > 1:
            raise ValueError(f"case {self.name!r} has several reasons: {sorted(self.reasons)}")
        return next(iter(self.reasons))

    @property
    def ok(self) -> bool:
        """Whether a verifying client trusting :attr:`ca_pem` must accept this case."""
        return not self.reasons

    @property
    def pin(self) -> str:
        """The ``sha256/...`` SPKI pin of the leaf."""
        return spki_pin(self.leaf_pem)

    @property
    def leaf(self) -> x509.Certificate:
        """The leaf as a ``cryptography`` certificate."""
        return x509.load_pem_x509_certificate(self.leaf_pem)

    @property
    def chain_der(self) -> tuple[bytes, ...]:
        """The certificates the server sends, DER, leaf first (what a verdict is given)."""
        return tuple(
            cert.public_bytes(serialization.Encoding.DER)
            for cert in x509.load_pem_x509_certificates(self.chain_pem)
        )

    def server_context(self, directory: Path) -> ssl.SSLContext:
        """Return a TLS server context presenting this chain (files written in *directory*).

        Its security level is 0, so that the ``weak_key`` and ``weak_signature`` cases load:
        what is weak is for the client to refuse.
        """
        files = self.write(directory / self.name)
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.set_ciphers("DEFAULT:@SECLEVEL=0")
        context.load_cert_chain(files.chain, files.key)
        return context

    def write(self, directory: Path) -> CaseFiles:
        """Write ``chain.pem``, ``key.pem`` and ``ca.pem`` into *directory* (created if missing)."""
        directory.mkdir(parents=True, exist_ok=True)
        files = CaseFiles(
            chain=directory / "chain.pem", key=directory / "key.pem", ca=directory / "ca.pem"
        )
        files.chain.write_bytes(self.chain_pem)
        files.key.write_bytes(self.key_pem)
        files.key.chmod(0o600)
        files.ca.write_bytes(self.ca_pem)
        return files


@dataclass(frozen=True, slots=True, kw_only=True)
class ClientCert:
    """A client certificate for mutual TLS, issued by its own CA (separate from the server PKI)."""

    #: The client CA a server should trust to accept :attr:`cert_pem`.
    ca_pem: bytes
    #: The client leaf (EKU clientAuth), PEM.
    cert_pem: bytes
    #: Its private key, PEM (PKCS#8, unencrypted).
    key_pem: bytes
    #: The leaf's subject common name (what a server sees).
    common_name: str

    def write(self, directory: Path) -> tuple[Path, Path]:
        """Write ``client.pem`` and ``client.key`` into *directory*; return their paths.

        The pair fits ``SSLContext.load_cert_chain(certfile, keyfile)``.
        """
        directory.mkdir(parents=True, exist_ok=True)
        cert, key = directory / "client.pem", directory / "client.key"
        cert.write_bytes(self.cert_pem)
        key.write_bytes(self.key_pem)
        key.chmod(0o600)
        return cert, key


class TestPKI:
    """A root, an intermediate, a foreign root, and one server certificate per case.

    Index it by case name (``pki["good"]``) or iterate over :attr:`cases`. Build one per test
    session (the ``pki`` fixture): generation takes tens of milliseconds.
    """

    __test__ = False  # not a test class, despite the name (pytest collects Test* classes)

    def __init__(self, *, now: datetime.datetime | None = None) -> None:
        """Generate every key and certificate.

        Args:
            now: the moment "valid" is relative to; defaults to the current UTC time.
        """
        self.now = now or datetime.datetime.now(datetime.timezone.utc)
        self.root = self._make_ca("sslcustomize test root CA")
        self.intermediate = self._make_ca(
            "sslcustomize test intermediate CA", issuer=self.root, path_length=0
        )
        #: A root no test client trusts (issuer of ``unknown_issuer``).
        self.foreign_root = self._make_ca("sslcustomize foreign root CA")
        self.cases: dict[str, CertCase] = {}
        for name in CASE_NAMES:
            self.cases[name] = getattr(self, f"_case_{name}")()
        self.client_cert = self._make_client_cert()

    # -- public API ------------------------------------------------------------------------

    @property
    def root_pem(self) -> bytes:
        """The good root CA, PEM: the anchor clients should trust."""
        return self.root.pem

    @property
    def intermediate_pem(self) -> bytes:
        """The good intermediate CA, PEM."""
        return self.intermediate.pem

    @property
    def foreign_root_pem(self) -> bytes:
        """A root CA no client trusts, PEM."""
        return self.foreign_root.pem

    def __getitem__(self, name: str) -> CertCase:
        """Return the case called *name* (one of :data:`CASE_NAMES`)."""
        return self.cases[name]

    def __iter__(self) -> Iterator[CertCase]:
        """Iterate over the cases in :data:`CASE_NAMES` order."""
        return iter(self.cases.values())

    def issue_server_cert(
        self,
        name: str,
        *,
        names: Sequence[str] = LOOPBACK_NAMES,
        reasons: frozenset[str] = frozenset(),
        not_before: datetime.datetime | None = None,
        not_after: datetime.datetime | None = None,
        send_intermediate: bool = True,
    ) -> CertCase:
        """Issue an extra EC leaf from the good intermediate (for tests needing a fresh key).

        Args:
            name: the case's name (free text).
            names: DNS names / IP addresses for the subjectAltName.
            reasons: the reason codes a verifying client should report.
            not_before: start of validity; defaults to a day ago.
            not_after: end of validity; defaults to 30 days from now.
            send_intermediate: whether the served chain includes the intermediate.

        Returns:
            A new :class:`CertCase` (not added to :attr:`cases`).
        """
        key = _ec_key()
        leaf = self._make_leaf(
            key.public_key(),
            issuer=self.intermediate,
            names=names,
            not_before=not_before,
            not_after=not_after,
        )
        extra = (self.intermediate.cert,) if send_intermediate else ()
        return self._case(name, leaf, key, reasons=reasons, extra=extra, names=names)

    # -- building blocks ---------------------------------------------------------------------

    def _make_ca(
        self, common_name: str, *, issuer: _Issuer | None = None, path_length: int | None = None
    ) -> _Issuer:
        key = _ec_key()
        subject = _name(common_name)
        signer_key: CertificateIssuerPrivateKeyTypes = issuer.key if issuer else key
        builder = (
            x509.CertificateBuilder()
            .subject_name(subject)
            .issuer_name(issuer.cert.subject if issuer else subject)
            .public_key(key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(self.now - _ONE_DAY)
            .not_valid_after(self.now + datetime.timedelta(days=365))
            .add_extension(x509.BasicConstraints(ca=True, path_length=path_length), critical=True)
            .add_extension(
                CA_KEY_USAGE,
                critical=True,
            )
            .add_extension(
                x509.SubjectKeyIdentifier.from_public_key(key.public_key()), critical=False
            )
        )
        if issuer:
            builder = builder.add_extension(_aki(issuer), critical=False)
        return _Issuer(cert=builder.sign(signer_key, hashes.SHA256()), key=key)

    def _leaf_builder(
        self,
        public_key: CertificatePublicKeyTypes,
        *,
        subject: x509.Name,
        issuer_name: x509.Name,
        names: Sequence[str],
        not_before: datetime.datetime | None,
        not_after: datetime.datetime | None,
        eku: Sequence[x509.ObjectIdentifier],
        key_usage: bool = True,
    ) -> x509.CertificateBuilder:
        builder = (
            x509.CertificateBuilder()
            .subject_name(subject)
            .issuer_name(issuer_name)
            .public_key(public_key)
            .serial_number(x509.random_serial_number())
            .not_valid_before(not_before or self.now - _ONE_DAY)
            .not_valid_after(not_after or self.now + datetime.timedelta(days=30))
            .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
            .add_extension(x509.ExtendedKeyUsage(list(eku)), critical=False)
            .add_extension(x509.SubjectKeyIdentifier.from_public_key(public_key), critical=False)
        )
        if names:
            builder = builder.add_extension(_san(names), critical=False)
        if key_usage:
            builder = builder.add_extension(
                x509.KeyUsage(
                    digital_signature=True,
                    # RSA key exchange (TLS 1.2 RSA ciphers) needs keyEncipherment.
                    key_encipherment=isinstance(public_key, rsa.RSAPublicKey),
                    content_commitment=False,
                    data_encipherment=False,
                    key_agreement=False,
                    key_cert_sign=False,
                    crl_sign=False,
                    encipher_only=False,
                    decipher_only=False,
                ),
                critical=True,
            )
        return builder

    def _make_leaf(
        self,
        public_key: CertificatePublicKeyTypes,
        *,
        issuer: _Issuer,
        names: Sequence[str] = LOOPBACK_NAMES,
        not_before: datetime.datetime | None = None,
        not_after: datetime.datetime | None = None,
        eku: Sequence[x509.ObjectIdentifier] = (ExtendedKeyUsageOID.SERVER_AUTH,),
        aia_url: str | None = None,
    ) -> x509.Certificate:
        builder = self._leaf_builder(
            public_key,
            subject=_name(names[0] if names else "sslcustomize test leaf"),
            issuer_name=issuer.cert.subject,
            names=names,
            not_before=not_before,
            not_after=not_after,
            eku=eku,
        ).add_extension(_aki(issuer), critical=False)
        if aia_url:
            builder = builder.add_extension(
                x509.AuthorityInformationAccess(
                    [
                        x509.AccessDescription(
                            AuthorityInformationAccessOID.CA_ISSUERS,
                            x509.UniformResourceIdentifier(aia_url),
                        )
                    ]
                ),
                critical=False,
            )
        return builder.sign(issuer.key, hashes.SHA256())

    def _case(
        self,
        name: str,
        leaf: x509.Certificate,
        key: CertificateIssuerPrivateKeyTypes,
        *,
        reasons: frozenset[str],
        extra: Sequence[x509.Certificate] = (),
        names: Sequence[str] = LOOPBACK_NAMES,
    ) -> CertCase:
        leaf_pem = _pem(leaf)
        return CertCase(
            name=name,
            chain_pem=leaf_pem + b"".join(_pem(c) for c in extra),
            key_pem=_key_pem(key),
            ca_pem=self.root.pem,
            reasons=reasons,
            names=tuple(names),
            leaf_pem=leaf_pem,
        )

    def _from_intermediate(
        self,
        name: str,
        reasons: frozenset[str],
        *,
        names: Sequence[str] = LOOPBACK_NAMES,
        **leaf_args: object,
    ) -> CertCase:
        key = _ec_key()
        leaf = self._make_leaf(
            key.public_key(),
            issuer=self.intermediate,
            names=names,
            **leaf_args,  # type: ignore[arg-type]  # keyword pass-through to _make_leaf
        )
        return self._case(
            name, leaf, key, reasons=reasons, extra=[self.intermediate.cert], names=names
        )

    # -- the cases -------------------------------------------------------------------------

    def _case_good(self) -> CertCase:
        return self._from_intermediate("good", frozenset())

    def _case_expired(self) -> CertCase:
        return self._from_intermediate(
            "expired",
            frozenset({"expired"}),
            not_before=self.now - datetime.timedelta(days=60),
            not_after=self.now - _ONE_DAY,
        )

    def _case_not_yet_valid(self) -> CertCase:
        return self._from_intermediate(
            "not_yet_valid",
            frozenset({"not_yet_valid"}),
            not_before=self.now + datetime.timedelta(days=30),
            not_after=self.now + datetime.timedelta(days=60),
        )

    def _case_wrong_host(self) -> CertCase:
        return self._from_intermediate(
            "wrong_host", frozenset({"hostname_mismatch"}), names=("wrong.example",)
        )

    def _case_expired_wrong_host(self) -> CertCase:
        return self._from_intermediate(
            "expired_wrong_host",
            frozenset({"expired", "hostname_mismatch"}),
            names=("wrong.example",),
            not_before=self.now - datetime.timedelta(days=60),
            not_after=self.now - _ONE_DAY,
        )

    def _case_not_for_server_auth(self) -> CertCase:
        return self._from_intermediate(
            "not_for_server_auth",
            frozenset({"not_for_server_auth"}),
            eku=(ExtendedKeyUsageOID.CLIENT_AUTH,),
        )

    def _case_incomplete_chain(self) -> CertCase:
        key = _ec_key()
        leaf = self._make_leaf(
            key.public_key(), issuer=self.intermediate, aia_url=AIA_CA_ISSUERS_URL
        )
        return self._case("incomplete_chain", leaf, key, reasons=frozenset({"incomplete_chain"}))

    def _case_unknown_issuer(self) -> CertCase:
        key = _ec_key()
        leaf = self._make_leaf(key.public_key(), issuer=self.foreign_root)
        return self._case(
            "unknown_issuer",
            leaf,
            key,
            reasons=frozenset({"unknown_issuer"}),
            extra=[self.foreign_root.cert],
        )

    def _case_self_signed(self) -> CertCase:
        # A leaf that is its own issuer but not a CA (basicConstraints CA:FALSE). No keyUsage
        # extension: OpenSSL only recognises a certificate as self-signed when its keyUsage (if
        # any) allows keyCertSign, and an appliance's self-made certificate rarely carries one.
        key = _ec_key()
        subject = _name("localhost")
        leaf = (
            self._leaf_builder(
                key.public_key(),
                subject=subject,
                issuer_name=subject,
                names=LOOPBACK_NAMES,
                not_before=None,
                not_after=None,
                eku=(ExtendedKeyUsageOID.SERVER_AUTH,),
                key_usage=False,
            )
            .add_extension(
                x509.AuthorityKeyIdentifier.from_issuer_public_key(key.public_key()),
                critical=False,
            )
            .sign(key, hashes.SHA256())
        )
        return self._case("self_signed", leaf, key, reasons=frozenset({"self_signed"}))

    def _case_weak_key(self) -> CertCase:
        # RSA-1024 is below OpenSSL's default security level 2 (112 bits).
        key = rsa.generate_private_key(public_exponent=65537, key_size=1024)  # noqa: S505  # meant to be rejected
        leaf = self._make_leaf(key.public_key(), issuer=self.intermediate)
        return self._case(
            "weak_key", leaf, key, reasons=frozenset({"weak_key"}), extra=[self.intermediate.cert]
        )

    def _case_weak_signature(self) -> CertCase:
        key = _ec_key()
        template = self._make_leaf(key.public_key(), issuer=self.intermediate)
        leaf = _sign_sha1(template, key, self.intermediate)
        return self._case(
            "weak_signature",
            leaf,
            key,
            reasons=frozenset({"weak_signature"}),
            extra=[self.intermediate.cert],
        )

    def _make_client_cert(self) -> ClientCert:
        ca = self._make_ca("sslcustomize test client CA")
        key = _ec_key()
        common_name = "sslcustomize test client"
        cert = (
            self._leaf_builder(
                key.public_key(),
                subject=_name(common_name),
                issuer_name=ca.cert.subject,
                names=(),
                not_before=None,
                not_after=None,
                eku=(ExtendedKeyUsageOID.CLIENT_AUTH,),
            )
            .add_extension(_aki(ca), critical=False)
            .sign(ca.key, hashes.SHA256())
        )
        return ClientCert(
            ca_pem=ca.pem, cert_pem=_pem(cert), key_pem=_key_pem(key), common_name=common_name
        )


def _aki(issuer: _Issuer) -> x509.AuthorityKeyIdentifier:
    ski = issuer.cert.extensions.get_extension_for_class(x509.SubjectKeyIdentifier).value
    return x509.AuthorityKeyIdentifier.from_issuer_subject_key_identifier(ski)


def _sign_sha1(
    template: x509.Certificate, subject_key: CertificateIssuerPrivateKeyTypes, issuer: _Issuer
) -> x509.Certificate:
    """Issue *template*'s subject, key and extensions again, signed with SHA-1 by *issuer*.

    ``cryptography`` refuses to sign with SHA-1 but OpenSSL 3's command line still does, so the
    template (a SHA-256 certificate with every extension already right) is turned into a
    request (``openssl x509 -x509toreq -copy_extensions copy``) and issued again
    (``openssl x509 -req -sha1 -copy_extensions copyall``).
    """
    openssl = shutil.which("openssl")
    if openssl is None:
        raise RuntimeError("the weak_signature case needs the openssl command on PATH")
    with tempfile.TemporaryDirectory(prefix="sslcustomize-pki-") as tmp:
        work = Path(tmp)
        (work / "template.pem").write_bytes(_pem(template))
        (work / "subject.key").write_bytes(_key_pem(subject_key))
        (work / "issuer.pem").write_bytes(issuer.pem)
        (work / "issuer.key").write_bytes(_key_pem(issuer.key))
        left = template.not_valid_after_utc - datetime.datetime.now(datetime.timezone.utc)
        _run(
            openssl, "x509", "-x509toreq", "-in", "template.pem", "-signkey", "subject.key",
            "-copy_extensions", "copy", "-out", "req.pem", cwd=work,
        )  # fmt: skip
        _run(
            openssl, "x509", "-req", "-in", "req.pem", "-CA", "issuer.pem", "-CAkey", "issuer.key",
            "-set_serial", str(template.serial_number), "-sha1", "-days", str(max(1, left.days)),
            "-copy_extensions", "copyall", "-out", "leaf.pem", cwd=work,
        )  # fmt: skip
        cert = x509.load_pem_x509_certificate((work / "leaf.pem").read_bytes())
    if not isinstance(cert.signature_hash_algorithm, hashes.SHA1):
        raise RuntimeError("openssl did not make a SHA-1 signature")  # noqa: TRY004  # not a type error
    return cert


def _run(*argv: str, cwd: Path) -> None:
    result = subprocess.run(argv, cwd=cwd, capture_output=True, check=False)
    if result.returncode:
        raise RuntimeError(f"{' '.join(argv)} failed: {result.stderr.decode(errors='replace')}")
