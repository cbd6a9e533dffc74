"""One PEM bundle of every trust anchor a policy trusts, for programs sslcustomize cannot hook.

``sslcustomize run`` names it in the CA variables that curl, git, node, requests and OpenSSL
read. It always holds the system store when the policy trusts it: a program given only the
extra CAs would stop verifying public sites.
"""

from __future__ import annotations

import os
import ssl

from sslcustomize._decision._decide import decide
from sslcustomize._policy._model import Policy, TrustSource
from sslcustomize._support._files import atomic_write
from sslcustomize._support._frozen import dataclass
from sslcustomize._trust._anchors import find_system_store, is_hashed_directory
from sslcustomize._trust._bundles import bundle_certificates

__all__ = ["BUNDLE_VARIABLES", "Bundle", "write_bundle"]

#: The variables that name a CA bundle, for the programs that read each: OpenSSL's default
#: (curl, git, Python's ssl, uv with native-tls), curl, git, node (adds to its own roots),
#: requests.
BUNDLE_VARIABLES = (
    "SSL_CERT_FILE",
    "CURL_CA_BUNDLE",
    "GIT_SSL_CAINFO",
    "NODE_EXTRA_CA_CERTS",
    "REQUESTS_CA_BUNDLE",
)


@dataclass(frozen=True, slots=True, kw_only=True)
class Bundle:
    """A written bundle: its path, how many anchors, how many beyond the system store."""

    path: str
    count: int
    extra: int


def _directory_certificates(path: str) -> list[bytes]:
    found: list[bytes] = []
    with os.scandir(path) as entries:
        names = sorted(entry.path for entry in entries if entry.is_file())
    for name in names:
        stem, dot, number = os.path.basename(name).partition(".")
        if len(stem) == 8 and dot and number.isdigit():
            found += bundle_certificates(name)
    return found


def _source_certificates(source: TrustSource) -> list[bytes]:
    if source.kind == "system":
        store = find_system_store()
        if store.file:
            return list(bundle_certificates(store.file))
        return _directory_certificates(store.directory or "")
    if source.kind == "certifi":
        import certifi  # type: ignore[import-not-found,unused-ignore] # noqa: PLC0415

        return list(bundle_certificates(certifi.where()))
    path = source.path or ""
    if source.kind == "directory" or is_hashed_directory(path):
        return _directory_certificates(path)
    return list(bundle_certificates(path))


def _system_pem() -> tuple[bytes, set[str]]:
    """Return the system store's bundle file as it is, and the paths that are the store.

    Not parsed: 144 anchors take 0.3 s through OpenSSL's reader, a copy a millisecond. The
    paths (the file and the hashed directory, resolved) let a source that names the store
    again (``SSL_CERT_FILE`` often does) be left out instead of read a second time.
    """
    store = find_system_store()
    same = {os.path.realpath(p) for p in (store.file, store.directory) if p}
    if store.file is None:
        return b"", set()
    with open(store.file, "rb") as file:
        return file.read(), same


def write_bundle(policy: Policy, path: str) -> Bundle:
    """Write every anchor of ``policy``'s default trust to ``path`` (PEM); describe it.

    The system store's own bundle is copied as it is; the other sources are read as OpenSSL
    reads them (CA certificates only) and appended once each.

    Raises:
        TrustError: A trust source cannot be read (no system store, a broken bundle).
        OSError: The system bundle cannot be read, or the bundle cannot be written.
    """
    sources = decide(policy).trust
    system, covered = b"", set[str]()
    if any(source.kind == "system" for source in sources):
        system, covered = _system_pem()
    seen: dict[bytes, None] = {}
    for source in sources:
        if source.kind == "system" and system:
            continue
        if source.path and os.path.realpath(source.path) in covered:
            continue
        seen.update(dict.fromkeys(_source_certificates(source)))
    extra = "".join(ssl.DER_cert_to_PEM_cert(der) for der in seen)
    system_text = system.decode("ascii", errors="replace").rstrip("\n")
    atomic_write(path, f"{system_text}\n{extra}" if system_text else extra)
    count = system_text.count("-----BEGIN CERTIFICATE-----")
    return Bundle(path=path, count=count + len(seen), extra=len(seen))
