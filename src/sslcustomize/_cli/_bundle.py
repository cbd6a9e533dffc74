"""One PEM bundle of every trust anchor a policy trusts, for programs sslcustomize cannot hook.

``sslcustomize run`` names it in the CA variables that curl, git, node, requests and OpenSSL
read. It always holds the system store when the policy trusts it: a program given only the
extra CAs would stop verifying public sites.
"""

from __future__ import annotations

import os
import ssl

from .._decision import decide
from .._files import atomic_write
from .._frozen import dataclass
from .._policy import Policy, TrustSource
from .._trust import bundle_certificates, find_system_store, is_hashed_directory

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


def write_bundle(policy: Policy, path: str) -> Bundle:
    """Write every anchor of ``policy``'s default trust to ``path`` (PEM); describe it.

    Raises:
        TrustError: A trust source cannot be read (no system store, a broken bundle).
    """
    sources = decide(policy).trust
    seen: dict[bytes, None] = {}
    system = 0
    for source in sources:
        certificates = _source_certificates(source)
        if source.kind == "system":
            system += len(set(certificates) - set(seen))
        seen.update(dict.fromkeys(certificates))
    atomic_write(path, "".join(ssl.DER_cert_to_PEM_cert(der) for der in seen))
    return Bundle(path=path, count=len(seen), extra=len(seen) - system)
