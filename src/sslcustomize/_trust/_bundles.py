"""CA bundles as OpenSSL reads them, and the hashed directories they are turned into.

Loading a PEM bundle into a context parses every certificate in it (~25 ms for a public-CA
bundle), and Python gives no way to share a loaded store between contexts. An OpenSSL
hashed directory (``capath``) is read lazily instead: only the issuer a handshake needs.
So a bundle is turned once into a hashed directory under the user cache directory, named
by the SHA-256 of the bundle's bytes (size, mtime and inode can all be kept by ``cp -p``),
and contexts load directories only. The cache is used only where nobody but this user (and
root) can change it or any directory above it, since OpenSSL reads it later, by path.
Where the cache cannot be used, or the bundle holds what a hashed directory cannot express
(non-CA certificates, CRLs, ``TRUSTED CERTIFICATE`` blocks), the bundle itself is loaded:
slower, equally correct.

A system store that is a hashed directory already (Debian's ``/etc/ssl/certs``, which also
indexes the distribution's bundle) needs none of this: :mod:`._anchors` loads this module
only when a bundle has to be read.
"""

from __future__ import annotations

import os
import ssl
import stat

from sslcustomize._support._files import cache_directory, private_directory, read_regular
from sslcustomize._support._frozen import dataclass
from sslcustomize._support._sslclass import StdlibContext
from sslcustomize._trust._anchorset import Anchors

__all__ = ["MAX_BUNDLE_SIZE", "bundle_anchors", "bundle_certificates"]

#: Bundles larger than this are refused (a public-CA bundle is ~220 KB).
MAX_BUNDLE_SIZE = 16 * 1024 * 1024
# A bundle holding these is loaded as a file: a hashed directory would drop what they add.
_TRUSTED_BLOCK = b"-----BEGIN TRUSTED CERTIFICATE-----"


# --- Bundles as OpenSSL reads them --------------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class _Bundle:
    """What OpenSSL read from one version of a bundle file."""

    sha256: str
    certificates: tuple[bytes, ...]  # DER, CA certificates only, as OpenSSL's store holds them
    directory_ok: bool  # every certificate is a CA, no CRL, no TRUSTED block


def _read_bytes(path: str) -> bytes:
    """Read a bundle: a regular file (never a FIFO or a device), at most MAX_BUNDLE_SIZE."""
    try:
        return read_regular(path, MAX_BUNDLE_SIZE)
    except (OSError, ValueError) as exc:
        from sslcustomize.exceptions import TrustError  # noqa: PLC0415 - loaded with an error, not by a first context

        if isinstance(exc, OSError):
            raise TrustError(f"cannot read CA bundle {path!r}: {exc.strerror or exc}") from None
        raise TrustError(f"CA bundle {path!r}: {exc}") from None


def _sha256(data: bytes) -> str:
    import hashlib  # noqa: PLC0415 - only when a bundle is read: not for hashed directories

    return hashlib.sha256(data).hexdigest()


def _openssl_read(data: bytes, path: str) -> _Bundle:
    """Let OpenSSL read ``data`` as it reads a ``cafile``, and keep what its store holds.

    The bytes go to a private temporary file (``mkstemp``: 0600, created exclusively), so
    that what is parsed is exactly what was hashed, whatever happens to ``path`` meanwhile.
    """
    import tempfile  # noqa: PLC0415 - only when a bundle version is first seen

    descriptor, temporary = tempfile.mkstemp(prefix="sslcustomize-", suffix=".pem")
    try:
        with os.fdopen(descriptor, "wb") as file:
            file.write(data)
        context = StdlibContext(ssl.PROTOCOL_TLS_CLIENT)
        try:
            context.load_verify_locations(cafile=temporary)
        except ssl.SSLError as exc:
            from sslcustomize.exceptions import TrustError  # noqa: PLC0415 - loaded with an error, not by a first context

            raise TrustError(
                f"CA bundle {path!r} holds no certificate OpenSSL can read ({exc.reason or exc})"
            ) from None
    finally:
        os.unlink(temporary)
    stats = context.cert_store_stats()
    certificates = tuple(context.get_ca_certs(binary_form=True))
    directory_ok = (
        stats["x509"] == stats["x509_ca"] == len(certificates)
        and not stats["crl"]
        and _TRUSTED_BLOCK not in data
    )
    if not stats["x509"]:
        from sslcustomize.exceptions import TrustError  # noqa: PLC0415 - loaded with an error, not by a first context

        raise TrustError(f"CA bundle {path!r} holds no certificate")
    return _Bundle(
        sha256=_sha256(data),
        certificates=certificates,
        directory_ok=directory_ok,
    )


def bundle_certificates(path: str) -> tuple[bytes, ...]:
    """Return the CA certificates (DER) that OpenSSL reads from a bundle file.

    Raises:
        TrustError: The file cannot be read or holds no certificate.
    """
    return _openssl_read(_read_bytes(path), path).certificates


# --- The anchor cache, and why it can be trusted -------------------------------------------------


def _cache_root() -> str:
    return cache_directory("anchors")


def _existing_directory(root: str, digest: str) -> str | None:
    """Return the cache directory of a bundle version if it exists and is ours alone."""
    target = os.path.join(root, digest[:32])
    try:
        info = os.lstat(target)
    except OSError:
        return None
    ours = stat.S_ISDIR(info.st_mode) and info.st_uid == os.geteuid()
    return target if ours and not info.st_mode & 0o077 else None


def _directory_for(bundle: _Bundle) -> str | None:
    """Return the hashed directory of a bundle version, made if needed; ``None`` if unsafe."""
    root = _cache_root()
    if not private_directory(root):
        return None
    existing = _existing_directory(root, bundle.sha256)
    if existing is not None:
        return existing
    target = os.path.join(root, bundle.sha256[:32])
    if os.path.lexists(target):
        return None  # there, but not ours alone: never use it
    import tempfile  # noqa: PLC0415 - only when a bundle version is first seen

    try:
        staging = tempfile.mkdtemp(prefix=".tmp-", dir=root)
        _write_hashed(bundle.certificates, staging)
        try:
            os.rename(staging, target)
        except OSError:  # another process made it first: use theirs
            _remove_tree(staging)
    except (OSError, ValueError):
        return None
    return target


def _write_hashed(certificates: tuple[bytes, ...], directory: str) -> None:
    from sslcustomize._x509._subjecthash import subject_hash  # noqa: PLC0415 - only when a bundle is new

    counts: dict[int, int] = {}
    for der in certificates:
        name_hash = subject_hash(der)
        index = counts.get(name_hash, 0)
        counts[name_hash] = index + 1
        path = os.path.join(directory, f"{name_hash:08x}.{index}")
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o600)
        with os.fdopen(descriptor, "wb") as file:
            file.write(ssl.DER_cert_to_PEM_cert(der).encode("ascii"))


def _remove_tree(path: str) -> None:
    for name in os.listdir(path):
        os.unlink(os.path.join(path, name))
    os.rmdir(path)


# --- Bundle versions ------------------------------------------------------------------------------


def bundle_anchors(path: str, by_content: dict[str, Anchors] | None = None) -> Anchors:
    """Return anchors for a PEM bundle as it is now: its hashed directory, or the file itself.

    ``by_content`` maps the SHA-256 of bundles already read to their anchors (a key that is
    never stale: the same bytes give the same anchors).

    Raises:
        TrustError: The bundle cannot be read or holds no certificate.
    """
    data = _read_bytes(path)
    digest = _sha256(data)
    known = by_content.get(digest) if by_content is not None else None
    if known is not None:
        return known
    anchors = _anchors_of(data, path)
    if by_content is not None:
        by_content[digest] = anchors
    return anchors


def _anchors_of(data: bytes, path: str) -> Anchors:
    root = _cache_root()
    if private_directory(root):
        # A directory named by these very bytes holds OpenSSL's reading of them already.
        known = _existing_directory(root, _sha256(data))
        if known is not None:
            return Anchors(directories=(known,))
    bundle = _openssl_read(data, path)
    if bundle.directory_ok:
        directory = _directory_for(bundle)
        if directory is not None:
            return Anchors(directories=(directory,))
    return Anchors(files=(os.path.realpath(path),))
