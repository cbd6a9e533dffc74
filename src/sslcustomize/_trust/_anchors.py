"""Trust anchors: find the system store, resolve trust sources, load them cheaply.

Contexts load hashed directories (``capath``), which OpenSSL reads lazily: only the issuer a
handshake needs. The system store is one already on most systems; a CA bundle is turned into
one by :mod:`._bundles`, which reads it the way OpenSSL reads it, because OpenSSL reads it.

Each runtime owns a :class:`TrustCache` (there is no process-wide one): it re-checks its trust
sources at most every :data:`REFRESH_INTERVAL` seconds (one ``stat`` per file and directory),
so a context built after that never trusts what a bundle or a hashed directory no longer
holds. In a thread that runs an asyncio event loop the check is made by a worker thread, so
that no ``stat`` blocks the loop (issue 31 #6).
"""

from __future__ import annotations

import os
import ssl
import sys
from collections.abc import Iterable

from sslcustomize._policy._model import TrustSource
from sslcustomize._support._clock import SYSTEM_CLOCK, Clock
from sslcustomize._support._frozen import dataclass
from sslcustomize._support._locks import fork_safe_lock
from sslcustomize._trust._anchorset import Anchors

TYPE_CHECKING = False
if TYPE_CHECKING:
    import threading

__all__ = [
    "REFRESH_INTERVAL",
    "Anchors",
    "SystemStore",
    "TrustCache",
    "check_source",
    "default_verify_locations",
    "find_system_store",
    "is_hashed_directory",
]

#: Seconds between two checks of the trust sources in a long-lived process. A CA removed from a
#: bundle or a hashed directory stops being trusted by new contexts at most this long after
#: the change (issue 22 #14: it was 60 s, and up to two minutes for kept contexts).
REFRESH_INTERVAL = 1.0

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
    sources of their own, added or ignored as the policy says (see :mod:`._environment`).

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
    from sslcustomize.exceptions import TrustError  # noqa: PLC0415 - loaded with an error, not by a first context

    raise TrustError(
        "no system trust store found (looked at OpenSSL's default paths and "
        f"{', '.join(DISTRO_FILES)}); install the ca-certificates package or name a CA "
        "bundle in the policy's trust list"
    )


# --- Bundle versions ------------------------------------------------------------------------------


def _stat_key(path: str) -> tuple[int, ...]:
    info = os.stat(path)
    return (info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns)


# --- Sources to anchors ------------------------------------------------------------------------


def _certifi_bundle() -> str:
    try:
        import certifi  # noqa: PLC0415 - optional dependency
    except ImportError:
        from sslcustomize.exceptions import TrustError  # noqa: PLC0415 - loaded with an error, not by a first context

        raise TrustError(
            "trust names 'certifi' but certifi is not installed: "
            "pip install 'sslcustomize[certifi]'"
        ) from None
    return str(certifi.where())


def _file_covered_by_directory(store: SystemStore) -> bool:
    """Tell whether the system bundle is the distribution's own, which its directory indexes.

    Debian-style systems build both from the same certificates (``update-ca-certificates``).
    """
    return (
        store.file is not None
        and store.directory is not None
        and os.path.dirname(os.path.realpath(store.file)) == os.path.realpath(store.directory)
    )


def _in_event_loop() -> bool:
    """Tell whether this thread runs an asyncio event loop (where file I/O would block it).

    asyncio is looked up, not imported: a process that never imported it runs no loop.
    """
    asyncio = sys.modules.get("asyncio")
    running = getattr(asyncio, "_get_running_loop", None)
    return running is not None and running() is not None


def _stat_or_missing(path: str | None) -> tuple[int, ...]:
    if path is None:
        return ()
    try:
        return _stat_key(path)
    except OSError:
        return (-1,)


def _racy(fingerprint: tuple[tuple[int, ...], ...], wall: float) -> bool:
    """Tell whether something changed within a second of the last check (timestamps tie)."""
    changed = max((max(key[3], key[4]) for key in fingerprint if len(key) == 5), default=0)
    return changed >= (wall - 1) * 1e9


@dataclass(frozen=True, slots=True, kw_only=True)
class _Resolved:
    anchors: Anchors
    fingerprint: tuple[tuple[int, ...], ...]  # the stat of every file and directory behind it
    wall: float  # the clock's wall time of the check, for the racy-timestamp rule


class TrustCache:
    """The trust anchors of one runtime, and the one rule that says when they are stale.

    Every source list resolved here is checked again, all together, at most once per
    :data:`REFRESH_INTERVAL` (one ``stat`` per file and directory behind it; a change within a
    second of the last check counts as a change, since timestamps cannot tell). A change
    advances :meth:`generation`, which the runtime's engines, shared contexts and verdict
    memos are keyed by. Nothing else is kept but bundles by the SHA-256 of their bytes (the
    same bytes give the same anchors, so that key is never stale).
    """

    def __init__(self, *, clock: Clock = SYSTEM_CLOCK) -> None:
        """Start empty: nothing is read until a source list is asked for; time from ``clock``."""
        self._clock = clock
        self._lock = fork_safe_lock()
        self._resolved: dict[tuple[TrustSource, ...], _Resolved] = {}
        self._by_content: dict[str, Anchors] = {}
        self._system: SystemStore | None = None
        # The system bundle's real path when the system directory indexes it (else None),
        # worked out once with the store: each check of a bundle compares its path with it.
        self._indexed_bundle: str | None = None
        self._generation = 0
        self._checked = float("-inf")
        # The worker thread of a check asked for from an event loop's thread, while it runs.
        self._worker: threading.Thread | None = None

    def system_store(self) -> SystemStore:
        """Return the platform store, found once per cache (see :func:`find_system_store`)."""
        store = self._system
        if store is None:
            store = find_system_store()
            covered = _file_covered_by_directory(store)
            self._indexed_bundle = os.path.realpath(store.file or "") if covered else None
            self._system = store
        return store

    def anchors_for(self, sources: Iterable[TrustSource]) -> Anchors:
        """Return the anchors for trust sources as they were at the last check.

        Between checks no file is touched; see the class for when a check happens.

        Raises:
            TrustError: A source cannot be used.
        """
        key = tuple(sources)
        self._refresh()
        resolved = self._resolved.get(key)
        if resolved is not None:
            return resolved.anchors
        with self._lock:
            resolved = self._resolved.get(key)
            if resolved is None:
                resolved = self._resolved[key] = self._resolve(key)
        return resolved.anchors

    def generation(self) -> int:
        """Number the state of the trust sources in use; it changes when one of them changed.

        What was built with the anchors of an older generation (engines, shared contexts,
        memoised verdicts) is built again, so a CA removed from a bundle or a hashed directory
        is not trusted by what is made a second later.
        """
        self._refresh()
        return self._generation

    def _refresh(self) -> None:
        """Check every resolved source list again if the last check is over an interval old.

        From a thread that runs an asyncio event loop, the check (a ``stat`` per file) is
        made by a worker thread instead, and this call goes on with the state of the last
        check: a connection made before the worker is done (a millisecond or so) uses it.
        """
        if self._clock.monotonic() - self._checked < REFRESH_INTERVAL:
            return
        if _in_event_loop():
            self._refresh_in_worker()
            return
        self._refresh_now()

    def _refresh_in_worker(self) -> None:
        """Start a worker thread for the check, unless one is running already.

        No lock is taken: the worker may hold the cache's lock while it checks, and waiting
        for it would block the loop. Two loops may each start one; the second finds the
        check done (see :meth:`_refresh_now`).
        """
        import threading  # noqa: PLC0415 - only a process with an event loop needs it

        worker = self._worker
        if worker is not None and worker.is_alive():
            return  # (a forked child's copy of its parent's worker is not alive)
        worker = threading.Thread(
            target=self._refresh_now, name="sslcustomize-trust-check", daemon=True
        )
        self._worker = worker
        try:
            worker.start()
        except RuntimeError:  # no new thread at interpreter shutdown: check here, once
            self._worker = None
            self._refresh_now()

    def _refresh_now(self) -> None:
        """Check every resolved source list again, in this thread, if a check is due."""
        with self._lock:
            now = self._clock.monotonic()
            if now - self._checked < REFRESH_INTERVAL:
                return  # another thread checked meanwhile
            self._checked = now
            for key, old in list(self._resolved.items()):
                self._recheck(key, old)

    def _recheck(self, key: tuple[TrustSource, ...], old: _Resolved) -> None:
        """Check one source list (under the lock): a change or a failure is a new generation."""
        fingerprint = self._fingerprint(key)
        if fingerprint == old.fingerprint and not _racy(fingerprint, old.wall):
            return
        try:
            new = self._resolve(key)
        except Exception as exc:
            from sslcustomize.exceptions import TrustError  # noqa: PLC0415 - loaded with an error, not by a first context

            if not isinstance(exc, (TrustError, OSError)):
                raise
            del self._resolved[key]  # asked again, it raises
            self._generation += 1
            return
        self._resolved[key] = new
        if new.fingerprint != old.fingerprint or new.anchors != old.anchors:
            self._generation += 1

    def _resolve(self, key: tuple[TrustSource, ...]) -> _Resolved:
        wall = self._clock.time()
        fingerprint = self._fingerprint(key)
        anchors = Anchors()
        for source in key:
            anchors += self.source_anchors(source)
        return _Resolved(anchors=anchors, fingerprint=fingerprint, wall=wall)

    def _fingerprint(self, sources: tuple[TrustSource, ...]) -> tuple[tuple[int, ...], ...]:
        """Return the ``stat`` of each file and directory the sources read (one call each).

        A hashed directory's own ``stat`` changes when an entry is added or removed
        (``update-ca-certificates``, ``openssl rehash``), a bundle's when it is rewritten.
        """
        paths: list[str | None] = []
        for source in sources:
            if source.kind == "system":
                store = self.system_store()
                paths += [store.directory, store.file]
            elif source.kind == "certifi":
                try:
                    paths.append(_certifi_bundle())
                except Exception as exc:
                    from sslcustomize.exceptions import TrustError  # noqa: PLC0415 - loaded with an error, not by a first context

                    if not isinstance(exc, TrustError):
                        raise
                    paths.append(None)
            else:
                paths.append(source.path)
        return tuple(_stat_or_missing(path) for path in paths)

    def source_anchors(self, source: TrustSource) -> Anchors:
        """Read one trust source now (no check interval: see :meth:`anchors_for`).

        Raises:
            TrustError: It cannot be used.
        """
        if source.kind == "system":
            return self._system_anchors()
        if source.kind == "certifi":
            return self._bundle(_certifi_bundle())
        assert source.path is not None  # noqa: S101 - the policy reader sets it
        if source.kind == "directory":
            if is_hashed_directory(source.path):
                return Anchors(directories=(source.path,))
            from sslcustomize.exceptions import TrustError  # noqa: PLC0415 - loaded with an error, not by a first context

            raise TrustError(
                f"{source.path!r} is not an OpenSSL hashed directory; run 'openssl rehash' on it"
            )
        store = self.system_store()
        indexed = self._indexed_bundle
        if indexed is not None and os.path.realpath(source.path) == indexed:
            # The system bundle (SSL_CERT_FILE often names it): its directory indexes it.
            return Anchors(directories=(store.directory or "",))
        return self._bundle(source.path)

    def check(self, source: TrustSource) -> None:
        """Check that a trust source can be used now (the policy loader calls it).

        What is read is kept here: a runtime given this cache with the policy it checked
        does not read the same bundle again, and a bundle named by several variables
        (``SSL_CERT_FILE``, ``REQUESTS_CA_BUNDLE``...) is read once.

        Raises:
            TrustError: It cannot: an un-hashed directory, a bundle with no certificate
                OpenSSL reads, certifi not installed.
        """
        if source.kind != "system":
            self.source_anchors(source)

    def _bundle(self, path: str) -> Anchors:
        """Return the anchors of the bundle ``path`` as it is now (see :mod:`._bundles`)."""
        from sslcustomize._trust._bundles import bundle_anchors  # noqa: PLC0415 - only for a bundle

        return bundle_anchors(path, self._by_content)

    def _system_anchors(self) -> Anchors:
        store = self.system_store()
        anchors = Anchors(directories=(store.directory,)) if store.directory else Anchors()
        if store.file and self._indexed_bundle is None:
            anchors += self._bundle(store.file)
        return anchors


def check_source(source: TrustSource) -> None:
    """Check that a trust source can be used now, in a cache of its own (:meth:`TrustCache.check`).

    Raises:
        TrustError: It cannot: an un-hashed directory, a bundle with no certificate OpenSSL
            reads, certifi not installed.
    """
    TrustCache().check(source)
