"""Trust anchors: find the system store, resolve trust sources, load them cheaply.

Loading a PEM bundle into a context parses every certificate in it (~25 ms for a public-CA
bundle), and Python gives no way to share a loaded store between contexts. An OpenSSL
hashed directory (``capath``) is read lazily instead: only the issuer a handshake needs.
So every bundle is turned once into a hashed directory under the user cache directory,
keyed by the bundle's path, size, mtime and inode, and contexts load directories only.
Where the cache cannot be written, the bundle is loaded directly: slower, equally correct.
"""

from __future__ import annotations

import hashlib
import os
import re
import ssl
import threading
from collections.abc import Iterable
from dataclasses import dataclass

from ._policy import TrustSource
from ._subjecthash import subject_hash
from .exceptions import TrustError

__all__ = ["Anchors", "SystemStore", "TrustError", "anchors_for", "find_system_store"]

# Where distributions keep their bundles and hashed directories (the places Go's crypto/x509
# and truststore also look), used when OpenSSL's compiled-in defaults hold nothing.
DISTRO_FILES = (
    "/etc/ssl/certs/ca-certificates.crt",  # Debian, Ubuntu, Gentoo, Arch
    "/etc/pki/tls/certs/ca-bundle.crt",  # Fedora, RHEL 6
    "/etc/ssl/ca-bundle.pem",  # openSUSE
    "/etc/pki/tls/cacert.pem",  # OpenELEC
    "/etc/pki/ca-trust/extracted/pem/tls-ca-bundle.pem",  # CentOS, RHEL 7
    "/etc/ssl/cert.pem",  # Alpine, macOS, BSD
)
DISTRO_DIRS = ("/etc/ssl/certs", "/etc/pki/tls/certs", "/system/etc/security/cacerts")
_HASHED_NAME = re.compile(r"^[0-9a-f]{8}\.\d+$")
PEM_CERTIFICATE = re.compile(
    rb"-----BEGIN CERTIFICATE-----\r?\n.+?\r?\n-----END CERTIFICATE-----", re.DOTALL
)


@dataclass(frozen=True, slots=True, kw_only=True)
class Anchors:
    """What to load into a context: bundles (loaded eagerly) and hashed directories."""

    files: tuple[str, ...] = ()
    directories: tuple[str, ...] = ()

    def load_into(self, context: ssl.SSLContext) -> None:
        """Load these anchors into ``context``."""
        for directory in self.directories:
            context.load_verify_locations(capath=directory)
        for file in self.files:
            context.load_verify_locations(cafile=file)

    def __add__(self, other: Anchors) -> Anchors:
        """Return the union, keeping order and dropping repeats."""
        return Anchors(
            files=tuple(dict.fromkeys(self.files + other.files)),
            directories=tuple(dict.fromkeys(self.directories + other.directories)),
        )


@dataclass(frozen=True, slots=True, kw_only=True)
class SystemStore:
    """Where the platform's trust anchors were found and how."""

    file: str | None
    directory: str | None
    found_by: str


def is_hashed_directory(path: str) -> bool:
    """Tell whether ``path`` is a directory holding OpenSSL ``<hash>.<n>`` entries."""
    try:
        with os.scandir(path) as entries:
            return any(_HASHED_NAME.match(entry.name) for entry in entries)
    except OSError:
        return False


def _nonempty_file(path: str | None) -> bool:
    try:
        return path is not None and os.path.getsize(path) > 0
    except OSError:
        return False


def find_system_store() -> SystemStore:
    """Find the platform trust store.

    OpenSSL's defaults first (``SSL_CERT_FILE``/``SSL_CERT_DIR`` change them, as for Python
    itself), then the distributions' usual places.

    Raises:
        TrustError: No store was found; verification cannot work, so nothing is trusted.
    """
    paths = ssl.get_default_verify_paths()
    file = paths.cafile if _nonempty_file(paths.cafile) else None
    directory = paths.capath if paths.capath and is_hashed_directory(paths.capath) else None
    if file or directory:
        return SystemStore(file=file, directory=directory, found_by="OpenSSL default paths")
    file = next((f for f in DISTRO_FILES if _nonempty_file(f)), None)
    directory = next((d for d in DISTRO_DIRS if is_hashed_directory(d)), None)
    if file or directory:
        return SystemStore(file=file, directory=directory, found_by="distribution locations")
    raise TrustError(
        "no system trust store found (looked at OpenSSL's default paths and "
        f"{', '.join(DISTRO_FILES)}); install the ca-certificates package or name a CA "
        "bundle in the policy's trust list"
    )


# --- Bundles as hashed directories -------------------------------------------------------------

_lock = threading.Lock()
_cache: dict[tuple[object, ...], Anchors] = {}


def _cache_root() -> str:
    from ._paths import user_cache_dir  # noqa: PLC0415 - platformdirs only when needed

    return os.path.join(user_cache_dir(), "anchors")


def _safe_directory(path: str) -> bool:
    """Tell whether a cache directory is ours alone (a shared one could add trust anchors)."""
    try:
        info = os.stat(path)
    except OSError:
        return False
    return info.st_uid == os.geteuid() and not info.st_mode & 0o022


def bundle_as_directory(bundle: str) -> Anchors:
    """Return anchors for a PEM bundle: its hashed-directory copy, or the bundle itself.

    Raises:
        TrustError: The bundle cannot be read.
    """
    try:
        info = os.stat(bundle)
    except OSError as exc:
        raise TrustError(f"cannot read CA bundle {bundle!r}: {exc.strerror}") from None
    key = (os.path.realpath(bundle), info.st_size, info.st_mtime_ns, info.st_ino)
    with _lock:
        cached = _cache.get(key)
        if cached is None:
            cached = _cache[key] = _materialize(bundle, key)
    return cached


def _materialize(bundle: str, key: tuple[object, ...]) -> Anchors:
    digest = hashlib.sha256(repr(key).encode()).hexdigest()[:32]
    try:
        root = _cache_root()
        target = os.path.join(root, digest)
        if os.path.isdir(target) and _safe_directory(root) and _safe_directory(target):
            return Anchors(directories=(target,))
        os.makedirs(root, mode=0o700, exist_ok=True)
        if not _safe_directory(root):
            return Anchors(files=(bundle,))
        with open(bundle, "rb") as file:
            data = file.read()
        import tempfile  # noqa: PLC0415 - once per bundle, on a cache miss

        staging = tempfile.mkdtemp(prefix=".tmp-", dir=root)
        _write_hashed(data, staging)
        try:
            os.rename(staging, target)
        except OSError:  # another process made it first: use theirs
            _remove_tree(staging)
        return Anchors(directories=(target,))
    except (OSError, ValueError):
        # Cannot cache (read-only home, odd certificate): load the bundle itself.
        return Anchors(files=(bundle,))


def _write_hashed(data: bytes, directory: str) -> None:
    counts: dict[int, int] = {}
    for match in PEM_CERTIFICATE.finditer(data):
        pem = match.group(0).decode("ascii")
        name_hash = subject_hash(ssl.PEM_cert_to_DER_cert(pem))
        index = counts.get(name_hash, 0)
        counts[name_hash] = index + 1
        path = os.path.join(directory, f"{name_hash:08x}.{index}")
        with open(path, "w", encoding="ascii") as file:
            file.write(pem + "\n")
    if not counts:
        raise ValueError("no certificates in bundle")


def _remove_tree(path: str) -> None:
    for name in os.listdir(path):
        os.unlink(os.path.join(path, name))
    os.rmdir(path)


# --- Sources to anchors ------------------------------------------------------------------------


def _certifi_bundle() -> str:
    try:
        import certifi  # noqa: PLC0415 - optional dependency
    except ImportError:
        raise TrustError(
            "trust names 'certifi' but certifi is not installed: "
            "pip install 'sslcustomize[certifi]'"
        ) from None
    return str(certifi.where())


def _source_anchors(source: TrustSource) -> Anchors:
    if source.kind == "system":
        store = _system_store()
        anchors = Anchors(directories=(store.directory,)) if store.directory else Anchors()
        if store.file and not (store.directory and _file_covered_by_directory(store)):
            anchors += bundle_as_directory(store.file)
        return anchors
    if source.kind == "certifi":
        return bundle_as_directory(_certifi_bundle())
    if source.kind == "directory":
        assert source.path is not None  # noqa: S101 - the policy reader sets it
        if is_hashed_directory(source.path):
            return Anchors(directories=(source.path,))
        raise TrustError(
            f"{source.path!r} is not an OpenSSL hashed directory; run 'openssl rehash' on it"
        )
    assert source.path is not None  # noqa: S101 - the policy reader sets it
    return bundle_as_directory(source.path)


_system: SystemStore | None = None


def _system_store() -> SystemStore:
    global _system  # noqa: PLW0603 - found once per process
    if _system is None:
        _system = find_system_store()
    return _system


def _file_covered_by_directory(store: SystemStore) -> bool:
    """Tell whether the system bundle is the distribution's own, which its directory indexes.

    Debian-style systems build both from the same certificates (``update-ca-certificates``).
    A bundle named by ``SSL_CERT_FILE`` is loaded as well, as Python itself would.
    """
    return (
        store.file is not None
        and store.directory is not None
        and os.environ.get("SSL_CERT_FILE") is None
        and os.path.dirname(os.path.realpath(store.file)) == os.path.realpath(store.directory)
    )


_anchor_cache: dict[tuple[TrustSource, ...], Anchors] = {}


def anchors_for(sources: Iterable[TrustSource]) -> Anchors:
    """Return the anchors for trust sources, resolved once per process.

    Raises:
        TrustError: A source cannot be used.
    """
    key = tuple(sources)
    anchors = _anchor_cache.get(key)
    if anchors is None:
        anchors = Anchors()
        for source in key:
            anchors += _source_anchors(source)
        _anchor_cache[key] = anchors
    return anchors


def reset() -> None:
    """Forget every resolved source (tests, and a policy reload)."""
    global _system  # noqa: PLW0603
    _system = None
    _anchor_cache.clear()
    with _lock:
        _cache.clear()
