"""Trust anchors: find the system store, resolve trust sources, load them cheaply.

Bundles are read the way OpenSSL reads them, because OpenSSL reads them: the bytes are
loaded into a throw-away context and its store is what counts. A certificate that OpenSSL
skips (``#-----BEGIN``, an indented or prefixed BEGIN line) is never trusted.

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

A process re-checks its trust sources at most every :data:`REFRESH_INTERVAL` seconds (one
``stat`` per file and directory), so a context built after that never trusts what a bundle or
a hashed directory no longer holds.
"""

from __future__ import annotations

import os
import ssl
import stat
import time
from collections.abc import Iterable

from ._files import cache_directory, private_directory, read_regular, trusted_path
from ._frozen import dataclass, replace
from ._locks import fork_safe_lock
from ._policy_model import TrustSource
from ._sslclass import StdlibContext
from .exceptions import TrustError

__all__ = [
    "REFRESH_INTERVAL",
    "Anchors",
    "SystemStore",
    "TrustError",
    "anchors_for",
    "bundle_certificates",
    "check_source",
    "default_verify_locations",
    "find_system_store",
    "is_hashed_directory",
    "trust_generation",
    "trusted_path",
]

#: Seconds between two checks of the trust sources in a long-lived process. A CA removed from a
#: bundle or a hashed directory stops being trusted by new contexts at most this long after
#: the change (issue 22 #14: it was 60 s, and up to two minutes for kept contexts).
REFRESH_INTERVAL = 1.0
#: Bundles larger than this are refused (a public-CA bundle is ~220 KB).
MAX_BUNDLE_SIZE = 16 * 1024 * 1024

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
# A bundle holding these is loaded as a file: a hashed directory would drop what they add.
_TRUSTED_BLOCK = b"-----BEGIN TRUSTED CERTIFICATE-----"


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


def _hashed_name(name: str) -> bool:
    """Tell whether ``name`` is ``<8 hex digits>.<n>``, an OpenSSL hashed entry."""
    stem, dot, number = name.partition(".")
    return (
        len(stem) == 8
        and bool(dot)
        and number.isascii()
        and number.isdigit()
        and all(character in "0123456789abcdef" for character in stem)
    )


def is_hashed_directory(path: str) -> bool:
    """Tell whether ``path`` is a directory holding OpenSSL ``<hash>.<n>`` entries."""
    try:
        with os.scandir(path) as entries:
            return any(_hashed_name(entry.name) for entry in entries)
    except OSError:
        return False


def _nonempty_file(path: str | None) -> bool:
    try:
        return path is not None and os.path.getsize(path) > 0
    except OSError:
        return False


def default_verify_locations() -> tuple[str | None, str | None]:
    """Return OpenSSL's compiled-in default bundle and hashed directory, where they hold any.

    What ``SSLContext.set_default_verify_paths()`` loads, without ``SSL_CERT_FILE`` and
    ``SSL_CERT_DIR``, which OpenSSL reads in their place when they are set.
    """
    paths = ssl.get_default_verify_paths()
    file = paths.openssl_cafile if _nonempty_file(paths.openssl_cafile) else None
    directory = paths.openssl_capath
    return file, directory if directory and is_hashed_directory(directory) else None


def find_system_store() -> SystemStore:
    """Find the platform trust store.

    OpenSSL's compiled-in default paths first, then the distributions' usual places.
    ``SSL_CERT_FILE`` and ``SSL_CERT_DIR`` are not read here: under a policy they are trust
    sources of their own, added or ignored as the policy says (see :mod:`._envtrust`).

    Raises:
        TrustError: No store was found; verification cannot work, so nothing is trusted.
    """
    file, directory = default_verify_locations()
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
    except OSError as exc:
        raise TrustError(f"cannot read CA bundle {path!r}: {exc.strerror or exc}") from None
    except ValueError as exc:
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
    from ._subjecthash import subject_hash  # noqa: PLC0415 - only when a bundle is new

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


# --- Bundle versions, re-checked in a long-lived process ------------------------------------------

_clock = time.monotonic  # tests move time forward


_lock = fork_safe_lock()


@dataclass(frozen=True, slots=True, kw_only=True)
class _Seen:
    """One bundle file as last read: its stat, its anchors, and when it was checked."""

    stat_key: tuple[int, ...]
    anchors: Anchors
    read_at: float  # wall-clock time of the read, for the racy-timestamp rule


_seen: dict[str, _Seen] = {}
_by_content: dict[str, Anchors] = {}


def _stat_key(path: str) -> tuple[int, ...]:
    info = os.stat(path)
    return (info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns)


def bundle_anchors(path: str) -> Anchors:
    """Return anchors for a PEM bundle as it is now: its hashed directory, or the file itself.

    The file is read again when its ``stat`` changed, or when it changed so recently (within a
    second of the last read, as git's racy-clean rule) that timestamps cannot tell.

    Raises:
        TrustError: The bundle cannot be read or holds no certificate.
    """
    try:
        key = _stat_key(path)
    except OSError as exc:
        raise TrustError(f"cannot read CA bundle {path!r}: {exc.strerror}") from None
    with _lock:
        seen = _seen.get(path)
    changed_ns = max(key[3], key[4])
    if seen is not None and seen.stat_key == key and changed_ns < (seen.read_at - 1) * 1e9:
        return seen.anchors
    read_at = time.time()
    data = _read_bytes(path)
    digest = _sha256(data)
    with _lock:
        anchors = _by_content.get(digest)
    if anchors is None:
        anchors = _anchors_of(data, path)
        with _lock:
            _by_content[digest] = anchors
    with _lock:
        _seen[path] = _Seen(stat_key=key, anchors=anchors, read_at=read_at)
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
            anchors += bundle_anchors(store.file)
        return anchors
    if source.kind == "certifi":
        return bundle_anchors(_certifi_bundle())
    if source.kind == "directory":
        assert source.path is not None  # noqa: S101 - the policy reader sets it
        if is_hashed_directory(source.path):
            return Anchors(directories=(source.path,))
        raise TrustError(
            f"{source.path!r} is not an OpenSSL hashed directory; run 'openssl rehash' on it"
        )
    assert source.path is not None  # noqa: S101 - the policy reader sets it
    store = _system_store()
    if (
        store.file
        and store.directory
        and _file_covered_by_directory(store)
        and os.path.realpath(source.path) == os.path.realpath(store.file)
    ):
        # The system bundle (SSL_CERT_FILE often names it): its directory indexes it.
        return Anchors(directories=(store.directory,))
    return bundle_anchors(source.path)


def check_source(source: TrustSource) -> None:
    """Check that a trust source can be used now (the policy loader calls it).

    Raises:
        TrustError: It cannot: an un-hashed directory, a bundle with no certificate OpenSSL
            reads, certifi not installed.
    """
    if source.kind != "system":
        _source_anchors(source)


_system: SystemStore | None = None


def _system_store() -> SystemStore:
    global _system  # noqa: PLW0603 - found once per process
    if _system is None:
        _system = find_system_store()
    return _system


def _file_covered_by_directory(store: SystemStore) -> bool:
    """Tell whether the system bundle is the distribution's own, which its directory indexes.

    Debian-style systems build both from the same certificates (``update-ca-certificates``).
    """
    return (
        store.file is not None
        and store.directory is not None
        and os.path.dirname(os.path.realpath(store.file)) == os.path.realpath(store.directory)
    )


@dataclass(frozen=True, slots=True, kw_only=True)
class _Resolved:
    anchors: Anchors
    checked: float  # _clock() of the last check
    fingerprint: tuple[tuple[int, ...], ...]  # the stat of every file and directory behind it
    wall: float  # time.time() of the last check, for the racy-timestamp rule


_anchor_cache: dict[tuple[TrustSource, ...], _Resolved] = {}
_epoch = 0
_epoch_checked = float("-inf")


def _stat_or_missing(path: str | None) -> tuple[int, ...]:
    if path is None:
        return ()
    try:
        return _stat_key(path)
    except OSError:
        return (-1,)


def _fingerprint(sources: tuple[TrustSource, ...]) -> tuple[tuple[int, ...], ...]:
    """Return the ``stat`` of each file and directory the sources read (one call each).

    A hashed directory's own ``stat`` changes when an entry is added or removed
    (``update-ca-certificates``, ``openssl rehash``), a bundle's when it is rewritten.
    """
    paths: list[str | None] = []
    for source in sources:
        if source.kind == "system":
            store = _system_store()
            paths += [store.directory, store.file]
        elif source.kind == "certifi":
            try:
                paths.append(_certifi_bundle())
            except TrustError:
                paths.append(None)
        else:
            paths.append(source.path)
    return tuple(_stat_or_missing(path) for path in paths)


def _racy(fingerprint: tuple[tuple[int, ...], ...], wall: float) -> bool:
    """Tell whether something changed within a second of the last check (timestamps tie)."""
    changed = max((max(key[3], key[4]) for key in fingerprint if len(key) == 5), default=0)
    return changed >= (wall - 1) * 1e9


def anchors_for(sources: Iterable[TrustSource]) -> Anchors:
    """Return the anchors for trust sources, re-checked at most every REFRESH_INTERVAL seconds.

    Between checks no file is touched; a check costs one ``stat`` per file and directory
    behind the sources, and a bundle whose file changed is read again (its new hashed
    directory made if needed). A change advances :func:`trust_generation`.

    Raises:
        TrustError: A source cannot be used.
    """
    global _epoch  # noqa: PLW0603 - one count of trust changes per process
    key = tuple(sources)
    now = _clock()
    resolved = _anchor_cache.get(key)
    if resolved is not None and now - resolved.checked < REFRESH_INTERVAL:
        return resolved.anchors
    wall = time.time()
    fingerprint = _fingerprint(key)
    if (
        resolved is not None
        and fingerprint == resolved.fingerprint
        and not _racy(fingerprint, resolved.wall)
    ):
        _anchor_cache[key] = replace(resolved, checked=now, wall=wall)
        return resolved.anchors
    anchors = Anchors()
    for source in key:
        anchors += _source_anchors(source)
    if resolved is not None and (
        fingerprint != resolved.fingerprint or anchors != resolved.anchors
    ):
        with _lock:
            _epoch += 1
    _anchor_cache[key] = _Resolved(anchors=anchors, checked=now, fingerprint=fingerprint, wall=wall)
    return anchors


def trust_generation() -> int:
    """Number the state of the trust sources in use; it changes when one of them changed.

    Every source resolved so far is checked at most once per :data:`REFRESH_INTERVAL` (a
    ``stat`` per file and directory): what was built with the anchors of an older
    generation (engines, shared contexts, cached verdicts) is built again, so a CA removed
    from a bundle or a hashed directory is not trusted by what is made a second later.
    """
    global _epoch_checked  # noqa: PLW0603 - one check of every source per interval
    now = _clock()
    if now - _epoch_checked >= REFRESH_INTERVAL:
        _epoch_checked = now
        for key in list(_anchor_cache):
            _recheck(key)
    return _epoch


def _recheck(key: tuple[TrustSource, ...]) -> None:
    """Check one resolved source list again; one that broke is forgotten (a change too)."""
    global _epoch  # noqa: PLW0603 - one count of trust changes per process
    try:
        anchors_for(key)
    except (TrustError, OSError):
        _anchor_cache.pop(key, None)
        with _lock:
            _epoch += 1


def reset() -> None:
    """Forget every resolved source (tests, and a policy reload)."""
    global _system, _epoch, _epoch_checked  # noqa: PLW0603 - found once per process
    _system = None
    _epoch_checked = float("-inf")
    _anchor_cache.clear()
    with _lock:
        _seen.clear()
        _by_content.clear()
        _epoch += 1
