"""CA bundles as OpenSSL reads them, turned into hashed directories where nothing is lost."""

from __future__ import annotations

import ssl
from pathlib import Path

import pytest

import _pki
from _fixtures import memory_handshake
from sslcustomize._trust._anchors import Anchors
from sslcustomize._trust._bundles import MAX_BUNDLE_SIZE, bundle_anchors, bundle_certificates
from sslcustomize.exceptions import TrustError


def _client(anchors: Anchors) -> ssl.SSLContext:
    """A verifying client context with exactly ``anchors``."""
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    anchors.load_into(context)
    return context


def test_bundle_certificates_are_the_cas_openssl_reads(pki: _pki.TestPKI, tmp_path: Path) -> None:
    """The root in a bundle is read as DER; a leaf (not a CA) is left out, as OpenSSL does."""
    bundle = tmp_path / "bundle.pem"
    bundle.write_bytes(pki["good"].ca_pem + pki["good"].leaf_pem)
    certificates = bundle_certificates(str(bundle))
    assert certificates == (ssl.PEM_cert_to_DER_cert(pki["good"].ca_pem.decode()),)


def test_a_bundle_of_cas_becomes_a_hashed_directory_that_verifies(
    pki: _pki.TestPKI, tmp_path: Path
) -> None:
    """The anchors are a directory; a client with them accepts the root's server."""
    bundle = tmp_path / "root.pem"
    bundle.write_bytes(pki["good"].ca_pem)
    anchors = bundle_anchors(str(bundle))
    assert anchors.files == ()
    assert len(anchors.directories) == 1
    assert memory_handshake(_client(anchors), pki["good"].server_context(tmp_path), "localhost")


def test_the_anchors_refuse_a_server_of_another_ca(pki: _pki.TestPKI, tmp_path: Path) -> None:
    """Twin: the same anchors refuse a chain that ends in an untrusted root."""
    bundle = tmp_path / "root.pem"
    bundle.write_bytes(pki["good"].ca_pem)
    client = _client(bundle_anchors(str(bundle)))
    with pytest.raises(ssl.SSLCertVerificationError):
        memory_handshake(client, pki["unknown_issuer"].server_context(tmp_path), "localhost")


def test_the_same_bytes_give_the_same_anchors(pki: _pki.TestPKI, tmp_path: Path) -> None:
    """A bundle copied elsewhere is found by its SHA-256 in the content map."""
    one, two = tmp_path / "one.pem", tmp_path / "two.pem"
    one.write_bytes(pki["good"].ca_pem)
    two.write_bytes(pki["good"].ca_pem)
    by_content: dict[str, Anchors] = {}
    first = bundle_anchors(str(one), by_content)
    assert len(by_content) == 1
    assert bundle_anchors(str(two), by_content) is first


def test_a_bundle_with_a_non_ca_is_loaded_as_the_file(pki: _pki.TestPKI, tmp_path: Path) -> None:
    """A directory would drop the leaf OpenSSL keeps in its store: the file is loaded whole."""
    bundle = tmp_path / "mixed.pem"
    bundle.write_bytes(pki["good"].ca_pem + pki["good"].leaf_pem)
    anchors = bundle_anchors(str(bundle))
    assert anchors.files == (str(bundle.resolve()),)
    assert anchors.directories == ()


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"", "no certificate"),
        (b"-----BEGIN CERTIFICATE-----\nnot base64\n-----END CERTIFICATE-----\n", "no certif"),
    ],
    ids=["empty", "garbage"],
)
def test_a_bundle_without_certificates_is_refused(
    tmp_path: Path, content: bytes, message: str
) -> None:
    """A bundle OpenSSL reads nothing from is a TrustError naming the file."""
    bundle = tmp_path / "empty.pem"
    bundle.write_bytes(content)
    with pytest.raises(TrustError, match=message) as caught:
        bundle_anchors(str(bundle))
    assert str(bundle) in str(caught.value)


def test_a_missing_or_oversized_bundle_is_refused(tmp_path: Path) -> None:
    """A file that is not there, or larger than the limit, is refused before it is parsed."""
    with pytest.raises(TrustError, match="cannot read"):
        bundle_certificates(str(tmp_path / "missing.pem"))
    big = tmp_path / "big.pem"
    with big.open("wb") as file:
        file.truncate(MAX_BUNDLE_SIZE + 1)
    with pytest.raises(TrustError, match=r"big\.pem"):
        bundle_certificates(str(big))
