"""Report records and the sinks that keep them.

A record describes one connection that enforce mode would have rejected (report mode) or
whose code turned verification off. Sinks: ``sqlite`` (per user, WAL, many processes at
once), ``jsonl`` (one line per record, appended with a single ``write``), ``journal`` (the
systemd journal's native protocol, falling back to syslog; see :mod:`._journal`), ``syslog``
(``/dev/log``), ``log`` (Python logging) and ``none``.

A sink never breaks, hangs or stalls the program, and never loses a record silently:

* file sinks write only to regular files: a symlink, FIFO or device at the path is refused
  without being opened for writing (``O_NOFOLLOW``, ``O_NONBLOCK``, ``fstat``);
* a write waits at most :data:`MAX_WAIT` (50 ms) on the connection path, for a lock held by
  another thread or by another process (SQLite's busy timeout);
* a record that the sink cannot take now (a locked database, journald stopped, nothing on
  ``/dev/log``) is appended at once to the sink's *spool*, a JSONL file of the same user
  (:attr:`Sink.spool_path`), which ``report`` reads and the next successful write empties
  into the sink: a process that ends by ``os._exit`` or a signal loses nothing;
* a record that neither the sink nor its spool can take (a full disk) is kept in memory (at
  most :data:`BUFFER_LIMIT`) and retried later, with a growing pause between tries (the one
  warning says so); at exit one last try waits at most :data:`EXIT_WAIT`;
* a JSONL line torn by a failed write is closed before the next record is appended, so the
  next record is never glued to it;
* what is finally dropped is counted, on stderr at exit and in a small log under the user
  state directory (or :func:`private_dir`'s fallback for a user without a home) that
  ``doctor`` and ``report`` read (:mod:`sslcustomize._diagnosis._spools`);
* a forked child starts with fresh locks and no inherited database connection;
* files are created 0600 in 0700 directories, or 0660 in 2770 ones owned by the group that
  ``[report] group`` names, for a log shared by several users.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import os
import stat
import sys
import time
import warnings
import weakref
from collections import deque
from collections.abc import Callable
from functools import lru_cache
from typing import Any

from sslcustomize._support._clock import SYSTEM_CLOCK, Clock
from sslcustomize._support._frozen import dataclass, field
from sslcustomize._support._locks import fork_safe_lock
from sslcustomize.exceptions import SSLCustomizeError, SSLCustomizeWarning

__all__ = [
    "BUFFER_LIMIT",
    "DROPPED_LOG",
    "EXIT_WAIT",
    "MAX_WAIT",
    "RECORD_VERSION",
    "SPOOL_LIMIT",
    "SPOOL_SUFFIX",
    "JournalSink",
    "JsonlSink",
    "Record",
    "Sink",
    "SqliteSink",
    "SyslogSink",
    "default_path",
    "fallback_dir",
    "machine",
    "now",
    "open_sink",
    "private_dir",
    "program",
    "record_from_fields",
    "spool_files",
    "spool_parts",
    "spool_root",
    "warn_safely",
]

RECORD_VERSION = 1
#: The longest a record may hold up a connection, in seconds (a lock held elsewhere).
MAX_WAIT = 0.05
#: The longest the last try at exit may wait, in seconds.
EXIT_WAIT = 1.0
#: Records kept in memory while a sink cannot write; beyond, the oldest are dropped (counted).
BUFFER_LIMIT = 1000
#: The largest a spool may grow, in bytes (about 10,000 records): emptying it into the sink
#: happens on a connection's path, so it must stay short; beyond, records wait in memory.
SPOOL_LIMIT = 4 << 20
#: The most spooled records one write takes from the spool into the sink (the rest waits for
#: the next record): what recovering from a long outage adds to one connection stays small.
DRAIN_BATCH = 100
#: Pauses between tries after a failure, in seconds: doubled from the first up to the last.
RETRY_PAUSE = (1.0, 30.0)
DROPPED_LOG = "dropped-records"
_SCHEMA = """
CREATE TABLE IF NOT EXISTS records (
    id INTEGER PRIMARY KEY,
    time TEXT NOT NULL,
    pid INTEGER NOT NULL,
    program TEXT,
    context TEXT,
    host TEXT,
    port INTEGER,
    mode TEXT,
    verdict TEXT,
    reasons TEXT,
    record TEXT NOT NULL
)
"""


@dataclass(frozen=True, slots=True, kw_only=True)
class Record:
    """One reported connection (``version`` 1)."""

    time: str
    pid: int
    program: str
    context: str
    host: str | None
    port: int | None
    mode: str
    verdict: str
    reasons: tuple[str, ...]
    leaf_subject: str | None = None
    issuer: str | None = None
    not_after: str | None = None
    pin: str | None = None
    chain_sha256: tuple[str, ...] = ()
    top_issuer: str | None = None
    intermediates: tuple[str, ...] = ()
    rule: str = "default"
    origin: str | None = None
    machine: str | None = None
    #: The STARTTLS protocol spoken before TLS (``smtp``...), so that advice fetches alike.
    starttls: str | None = None
    #: The exception that would have applied had it not expired: its pattern, file:line and
    #: layer (``system``: renewing it takes ``--scope system``).
    expired_host: str | None = None
    expired_origin: str | None = None
    expired_layer: str | None = None
    version: int = field(default=RECORD_VERSION)

    def to_json(self) -> str:
        """Return the record as one line of JSON."""
        import json  # noqa: PLC0415 - only when records are written or read

        return json.dumps(self.fields(), separators=(",", ":"), sort_keys=True)

    def fields(self) -> dict[str, Any]:
        """Return the record's fields by name."""
        return {name: getattr(self, name) for name in self.__slots__}


def record_from_fields(fields: dict[str, Any]) -> Record:
    """Return the :class:`Record` of a JSON record's ``fields`` (lists become tuples).

    Raises:
        TypeError: A required field is missing.
    """
    known = {name: fields[name] for name in Record.__slots__ if name in fields}
    for name, value in known.items():
        if isinstance(value, list):
            known[name] = tuple(value)
    return Record(**known)


@lru_cache(maxsize=1)
def machine() -> str:
    """Return this machine's host name, as records carry it (fleets gather many)."""
    import socket  # noqa: PLC0415 - once, at the first record

    return socket.gethostname()


def now(clock: Clock = SYSTEM_CLOCK) -> str:
    """Return ``clock``'s current UTC time in ISO 8601 with seconds."""
    return dt.datetime.fromtimestamp(clock.time(), dt.timezone.utc).isoformat(timespec="seconds")


def program() -> str:
    """Return argv[0] of this process (or the executable when there is none).

    ``python -c CODE`` says ``python3.12 -c``, not a bare ``-c``, so that a report's view
    per program names something a person recognises.
    """
    if not sys.argv or not sys.argv[0]:
        return sys.executable
    if sys.argv[0] == "-c":
        return f"{os.path.basename(sys.executable)} -c"
    return sys.argv[0]


def warn_safely(message: str, category: type[Warning], stacklevel: int = 3) -> None:
    """Warn, but never raise: under ``-W error`` a warning must not break a connection."""
    try:
        warnings.warn(message, category, stacklevel=stacklevel)
    except Warning:
        sys.stderr.write(f"sslcustomize: {message}\n")


class SinkRefused(SSLCustomizeError):  # noqa: N818 - an outcome, not a programming error
    """The sink's path is not something records may be written to (never retried)."""


_sinks: weakref.WeakSet[Sink] = weakref.WeakSet()
# Database connections inherited by a forked child: kept referenced, never closed there
# (closing would checkpoint or unlock on behalf of the parent; see SQLite's "how to corrupt").
_orphans: list[Any] = []


class PartialWrite(Exception):  # noqa: N818 - an outcome carried from a sink to its base
    """The first ``written`` records of a batch were kept; the rest failed with ``error``."""

    def __init__(self, written: int, error: BaseException) -> None:
        """Say how many records were kept before ``error``."""
        super().__init__(written, error)
        self.written = written
        self.error = error


class Sink:
    """A place records go. Subclasses implement :meth:`_write_batch`.

    ``spool_path`` names the JSONL file that takes what the sink cannot take now (``None``:
    records wait in memory instead).
    """

    name = "none"
    path: str | None = None
    spool_path: str | None = None
    _spool_gid: int | None = None  # a shared log's group: its spool is shared alike
    #: Say nothing on stderr (``[report] quiet``): what is dropped is still counted in the
    #: dropped-records log that root's ``report`` and ``doctor`` read.
    quiet = False
    #: When to retry after a failure: the runtime's clock (``open_sink(clock=...)``). Bounded
    #: waits on a lock or a socket stay on real time: they wait on the real thing.
    clock: Clock = SYSTEM_CLOCK

    def __init__(self) -> None:
        """Start working; nothing is opened until the first record."""
        self._lock = fork_safe_lock()
        self._pending: deque[Record] = deque()
        self._retry_at = 0.0
        self._pause = 0.0
        self._warned = False
        self._to_say: list[str] = []  # warnings, said once the lock is released
        self._refused = False
        self._spool_checked = False
        self.dropped = 0
        self._dropped_logged = 0
        self.attempts = 0
        self.spooled = 0
        _sinks.add(self)

    def write(self, record: Record) -> None:
        """Keep ``record``: write it (and any earlier ones) now, spool it, or keep it for later.

        Never raises and never waits longer than :data:`MAX_WAIT`.
        """
        if self._refused:
            self._drop(1)
            return
        self._pending.append(record)  # deque.append is atomic: safe without the lock
        if not self._lock.acquire(timeout=MAX_WAIT):
            return  # another thread is writing; it or the next record takes this one
        try:
            self._trim()
            if self.clock.monotonic() >= self._retry_at:
                self._flush(MAX_WAIT)
            elif self._pending:
                self._spool_pending()  # within the pause after a failure: straight to the spool
        finally:
            self._lock.release()
        self._say()

    def _trim(self) -> None:
        excess = len(self._pending) - BUFFER_LIMIT
        for _ in range(max(0, excess)):
            self._pending.popleft()
        if excess > 0:
            self._drop(excess)

    def _flush(self, wait: float) -> None:
        spooled, taken = self._take_spool()
        if not self._pending and not spooled:
            return
        batch = spooled + list(self._pending)  # the spool first: records keep their order
        self.attempts += 1
        error: BaseException | None = None
        try:
            self._write_batch(batch, wait)
            written = len(batch)
        except SinkRefused as refusal:
            self._settle(taken, 0)
            self._refused = True
            self._drop(len(self._pending))
            self._pending.clear()
            self._warn(f"{refusal}; further records are dropped")
            return
        except PartialWrite as partial:
            written, error = partial.written, partial.error
        except Exception as failure:  # noqa: BLE001 - a sink must never break the program
            written, error = 0, failure
        self._settle(taken, written)
        for _ in range(max(0, written - len(spooled))):
            self._pending.popleft()
        if error is None:
            self._pause = 0.0
            self._retry_at = 0.0
            return
        low, high = RETRY_PAUSE
        self._pause = min(high, self._pause * 2) if self._pause else low
        self._retry_at = self.clock.monotonic() + self._pause
        if self._spool_pending():
            self._warn(
                f"cannot write now ({error!r}); records are kept in {self.spool_path} "
                "and written once it can"
            )
        else:
            self._warn(
                f"failed ({error!r}); records are kept in memory and retried "
                "(counted as dropped if they still cannot be written at exit)"
            )

    def _take_spool(self) -> tuple[list[Record], list[_Part]]:
        """Take at most :data:`DRAIN_BATCH` spooled records (any process's), to write them now.

        Each spool file is claimed by a rename (one process takes it) and read from the offset
        its name carries; :meth:`_settle` then moves the offset past what the sink took, or
        removes the file. So a long spool is emptied a batch per record, each line read once,
        and a process that dies between writing and settling makes duplicates, never losses.
        """
        if self.spool_path is None or self._spool_checked:
            return [], []
        self._spool_checked = True
        records: list[Record] = []
        parts: list[_Part] = []
        for candidate in spool_files(self.spool_path):
            room = DRAIN_BATCH - len(records)
            if room <= 0:
                self._spool_checked = False  # more to take with the next record
                break
            stamp, offset, pid = _part_name(self.spool_path, candidate)
            if pid is not None and pid != os.getpid() and _alive(pid):
                continue  # another process is writing it into the sink now
            claimed = f"{self.spool_path}.{stamp:020d}-{offset}-{os.getpid()}.draining"
            try:
                os.rename(candidate, claimed)
                part = _read_part(claimed, stamp, offset, room)
            except OSError:
                continue  # another process took it, or it stays for ``report`` and a later one
            parts.append(part)
            records.extend(part.records)
            if not part.complete:
                self._spool_checked = False
        return records, parts

    def _settle(self, parts: list[_Part], written: int) -> None:
        """After ``written`` records of the batch reached the sink: move each part on.

        A part whose records were all written and whose file was read to its end goes away;
        the others stay as spool parts, their offset past the records written.
        """
        if self.spool_path is None:
            return
        for part in parts:
            done = min(max(written, 0), len(part.records))
            written -= len(part.records)
            if done == len(part.records) and part.complete:
                with contextlib.suppress(OSError):
                    os.unlink(part.path)
                continue
            if done == len(part.records):
                offset = part.read_to
            else:
                offset = part.ends[done - 1] if done else part.offset
            rest = f"{self.spool_path}.{part.stamp:020d}-{offset}.rest"
            with contextlib.suppress(OSError):
                os.rename(part.path, rest)
            self._spool_checked = False

    def _spool_pending(self) -> bool:
        """Move the records waiting in memory to the spool file; tell whether it took them."""
        if self.spool_path is None or not self._pending:
            return False
        if _spool_size(self.spool_path) > SPOOL_LIMIT:
            return False
        batch = list(self._pending)
        try:
            written = append_lines(
                self.spool_path, [r.to_json() for r in batch], self._spool_gid, locked=True
            )
        except PartialWrite as partial:
            written = partial.written
        except (OSError, SinkRefused):
            return False
        for _ in range(written):
            self._pending.popleft()
        self.spooled += written
        self._spool_checked = False  # ours to empty once the sink takes records again
        return not self._pending

    def _warn(self, message: str) -> None:
        """Say ``message`` once per sink, after the lock is released (see :meth:`_say`)."""
        if not self._warned and not self.quiet:
            self._warned = True
            self._to_say.append(f"report sink {self.name!r} {message}")

    def _say(self) -> None:
        """Issue the warnings noted under the lock, now that it is released.

        A warning filter or a log handler may connect (and record) itself: it must not wait
        for this sink's lock.
        """
        while self._to_say:
            warn_safely(self._to_say.pop(0), SSLCustomizeWarning, stacklevel=4)

    def _drop(self, count: int) -> None:
        self.dropped += count

    def _write_batch(self, records: list[Record], wait: float) -> None:
        """Keep these records, waiting at most ``wait`` seconds for a lock (none: discard).

        Raises:
            PartialWrite: Only the first records were kept.
            SinkRefused: The sink will never take a record (not retried).
            Exception: Nothing was kept (retried, or spooled).
        """

    def close(self) -> None:
        """Try once more (waiting at most EXIT_WAIT), count what is left, release the sink."""
        if not self._lock.acquire(timeout=EXIT_WAIT):
            self._drop(len(self._pending))
            self._pending.clear()
            self._log_drops()
            return
        try:
            if (self._pending or not self._spool_checked) and not self._refused:
                self._flush(EXIT_WAIT)
            if self._pending:
                self._drop(len(self._pending))
                self._pending.clear()
            self._release()
        finally:
            self._lock.release()
        self._say()
        self._log_drops()

    def _release(self) -> None:
        """Close what the sink holds open (nothing, for most sinks)."""

    def _after_fork(self) -> None:
        """Start afresh in a forked child: no records of the parent's (the lock renews itself)."""
        self._pending.clear()
        self._to_say.clear()
        self.dropped = self._dropped_logged = 0

    def _log_drops(self) -> None:
        """Say what was dropped, on stderr and in the dropped-records log."""
        count = self.dropped - self._dropped_logged
        if count <= 0:
            return
        self._dropped_logged = self.dropped
        if not self.quiet:
            sys.stderr.write(
                f"sslcustomize: {count} report record(s) for sink {self.name!r} "
                f"({self.path or '-'}) could not be written and were dropped\n"
            )
        _append_drop_log(count, self.name, self.path)


def _after_fork_in_child() -> None:
    for sink in list(_sinks):
        sink._after_fork()  # noqa: SLF001 - the sinks' own module


os.register_at_fork(after_in_child=_after_fork_in_child)


# --- Files that are safe to write --------------------------------------------------------------


def _group_id(group: str | None) -> int | None:
    if group is None:
        return None
    import grp  # noqa: PLC0415 - only for a shared log

    return grp.getgrnam(group).gr_gid


def _prepare_directory(path: str, gid: int | None) -> None:
    """Make the sink's directory: 0700, or 2770 owned by ``gid`` for a shared log."""
    directory = os.path.dirname(os.path.abspath(path))
    if os.path.isdir(directory):
        return
    os.makedirs(directory, mode=0o700, exist_ok=True)
    if gid is not None:
        os.chown(directory, -1, gid)
        os.chmod(directory, 0o2770)  # noqa: S103 - the group named for a shared log, no others


def open_regular(path: str, flags: int, gid: int | None = None) -> int:
    """Open (creating if needed) a regular file for writing; refuse anything else.

    ``O_NOFOLLOW`` refuses a symlink, ``O_NONBLOCK`` keeps a FIFO from blocking the open, and
    ``fstat`` on the descriptor refuses whatever else is not a regular file.

    Raises:
        SinkRefused: The path is a symlink, FIFO, device, socket or directory.
        OSError: It cannot be opened (retried later).
    """
    mode = 0o600 if gid is None else 0o660
    try:
        descriptor = os.open(
            path, flags | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, mode
        )
    except OSError as error:
        import errno  # noqa: PLC0415 - only on failure

        if error.errno in (errno.ELOOP, errno.ENXIO, errno.EISDIR):
            raise SinkRefused(f"refuses {path!r}: not a regular file") from None
        raise
    info = os.fstat(descriptor)
    if not stat.S_ISREG(info.st_mode):
        os.close(descriptor)
        raise SinkRefused(f"refuses {path!r}: not a regular file")
    if gid is not None and info.st_uid == os.geteuid():
        if info.st_gid != gid:
            os.fchown(descriptor, -1, gid)
        if stat.S_IMODE(info.st_mode) != 0o660:
            os.fchmod(descriptor, 0o660)  # the umask may have taken the group's bits
    return descriptor


_APPEND = os.O_RDWR | os.O_APPEND


def _open_locked(path: str, gid: int | None) -> int:
    """Open ``path`` to append under an exclusive ``flock``, waiting at most :data:`MAX_WAIT`.

    A spool is renamed away by the process that empties it (:meth:`Sink._take_spool`): once
    the lock is held, a descriptor that no longer names the file at ``path`` is reopened, so
    no line is appended to a file that was already read.

    Raises:
        OSError: The lock stayed held, or the file cannot be opened.
    """
    deadline = time.monotonic() + MAX_WAIT
    while True:
        descriptor = open_regular(path, _APPEND, gid)
        try:
            _lock_until(descriptor, deadline)
            try:
                current = os.stat(path)
            except FileNotFoundError:
                current = None
            mine = os.fstat(descriptor)
            if current is not None and (current.st_dev, current.st_ino) == (
                mine.st_dev,
                mine.st_ino,
            ):
                return descriptor  # closing it releases the lock
        except BaseException:
            os.close(descriptor)
            raise
        os.close(descriptor)  # renamed while we waited: open the file now at ``path``
        if time.monotonic() > deadline:
            raise TimeoutError(f"{path} kept changing")


def _lock_until(descriptor: int, deadline: float) -> None:
    """Take an exclusive ``flock`` on ``descriptor``, trying until ``deadline``."""
    import fcntl  # noqa: PLC0415 - POSIX, only for spools

    while True:
        try:
            fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:  # noqa: PERF203 - a writer holds it for one write
            if time.monotonic() > deadline:
                raise TimeoutError("the spool stayed locked") from None
            time.sleep(0.002)
        else:
            return


def append_lines(path: str, lines: list[str], gid: int | None, *, locked: bool = False) -> int:
    """Append ``lines`` to the JSONL file at ``path`` in one ``write``; return how many were kept.

    ``locked`` appends under the spool's ``flock`` (see :func:`_open_locked`).

    A last line left torn by an earlier failed write is closed first (a newline), so the
    first line appended is never glued to it. A short write (a full disk) keeps the lines
    written whole and raises :class:`PartialWrite` for the rest, whose torn part the next
    append closes in the same way.

    Raises:
        PartialWrite: Only the first lines were written whole.
        SinkRefused: The path is not a regular file.
        OSError: Nothing was written.
    """
    _prepare_directory(path, gid)
    encoded = [(line + "\n").encode("utf-8") for line in lines]
    descriptor = _open_locked(path, gid) if locked else open_regular(path, _APPEND, gid)
    try:
        size = os.fstat(descriptor).st_size
        torn = size > 0 and os.pread(descriptor, 1, size - 1) != b"\n"
        prefix = b"\n" if torn else b""
        data = prefix + b"".join(encoded)
        try:
            written = os.write(descriptor, data)
        except OSError as error:
            raise PartialWrite(0, error) from None
    finally:
        os.close(descriptor)
    if written == len(data):
        return len(lines)
    kept, total = 0, len(prefix)
    for line in encoded:
        total += len(line)
        if total > written:
            break
        kept += 1
    raise PartialWrite(kept, OSError(f"short write ({written} of {len(data)} bytes)"))


class JsonlSink(Sink):
    """Append one JSON line per record; one ``write`` call per batch, so lines never interleave."""

    name = "jsonl"

    def __init__(self, path: str, *, group: str | None = None) -> None:
        """Write to ``path`` (created 0600 in a 0700 directory, or shared with ``group``)."""
        super().__init__()
        self.path = self._file = path
        self._gid = _group_id(group)

    def _write_batch(self, records: list[Record], wait: float) -> None:
        # Opened per batch, so that a log rotated under us is followed, not written past.
        append_lines(self._file, [record.to_json() for record in records], self._gid)


class SqliteSink(Sink):
    """Insert records into a SQLite database in WAL mode, shared by many processes."""

    name = "sqlite"

    def __init__(self, path: str, *, group: str | None = None) -> None:
        """Write to the database at ``path`` (created 0600 in a 0700 directory)."""
        super().__init__()
        self.path = self._file = path
        self.spool_path = path + SPOOL_SUFFIX
        self._gid = self._spool_gid = _group_id(group)
        self._connection: Any = None

    def _check_paths(self) -> None:
        """Refuse a database, WAL or shared-memory file that is not a regular file."""
        for suffix in ("", "-wal", "-shm", "-journal"):
            try:
                info = os.lstat(self._file + suffix)
            except FileNotFoundError:
                continue
            if not stat.S_ISREG(info.st_mode):
                raise SinkRefused(f"refuses {self._file + suffix!r}: not a regular file")

    def _connect(self, deadline: float) -> Any:
        import sqlite3  # noqa: PLC0415 - only when a record is written

        _prepare_directory(self._file, self._gid)
        self._check_paths()
        # Create the file ourselves: SQLite would make it 0644; its WAL and shm files
        # take the database file's mode.
        os.close(open_regular(self._file, os.O_WRONLY, self._gid))
        quoted = os.path.abspath(self._file).replace("%", "%25").replace("?", "%3f")
        uri = "file:" + quoted.replace("#", "%23") + "?nofollow=1"
        connection = sqlite3.connect(uri, uri=True, timeout=0, check_same_thread=False)
        try:
            for statement in ("PRAGMA journal_mode=WAL", "PRAGMA synchronous=NORMAL", _SCHEMA):
                _within(connection, deadline)
                connection.execute(statement)
            connection.commit()
        except BaseException:
            connection.close()
            raise
        return connection

    def _write_batch(self, records: list[Record], wait: float) -> None:
        deadline = time.monotonic() + wait  # one bound for connecting and inserting together
        if self._connection is None:
            self._connection = self._connect(deadline)
        connection = self._connection
        _within(connection, deadline)
        with connection:
            connection.executemany(
                "INSERT INTO records (time, pid, program, context, host, port, mode, verdict,"
                " reasons, record) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [
                    (
                        r.time,
                        r.pid,
                        r.program,
                        r.context,
                        r.host,
                        r.port,
                        r.mode,
                        r.verdict,
                        ",".join(r.reasons),
                        r.to_json(),
                    )
                    for r in records
                ],
            )

    def _release(self) -> None:
        if self._connection is not None:
            self._connection.close()
            self._connection = None

    def _after_fork(self) -> None:
        super()._after_fork()
        if self._connection is not None:
            _orphans.append(self._connection)
            self._connection = None


def _within(connection: Any, deadline: float) -> None:
    """Let the next statement wait for a lock only until ``deadline`` (SQLite's busy timeout).

    Past the deadline a statement is still tried once, without waiting: the bound is on
    waiting for a lock held elsewhere, not on a slow disk (creating a database in WAL mode
    takes 40-60 ms of fsyncs on a loaded machine, with nothing locked).
    """
    remaining = max(0, int((deadline - time.monotonic()) * 1000))
    connection.execute(f"PRAGMA busy_timeout = {remaining}")


class SyslogSink(Sink):
    """Send each record to ``/dev/log`` (facility user, severity warning), tagged sslcustomize.

    Spoken over the socket itself, not with :mod:`syslog`, which drops messages silently when
    nothing listens: here that is a failure, and the records go to the spool.
    """

    name = "syslog"

    def __init__(self, socket_path: str | None = None) -> None:
        """Send to ``socket_path`` (``/dev/log``)."""
        from sslcustomize._report._journal import SYSLOG_SOCKET  # noqa: PLC0415 - only for this sink

        super().__init__()
        self.path = socket_path or SYSLOG_SOCKET
        self._root_only = socket_path is None  # the system's socket: root's, or not used
        self.spool_path = _spool_in_private_dir("syslog")

    def _write_batch(self, records: list[Record], wait: float) -> None:
        from sslcustomize._report._journal import send_datagram, syslog_datagram  # noqa: PLC0415

        assert self.path is not None  # noqa: S101 - set in __init__
        for index, record in enumerate(records):
            try:
                _check_socket(self.path, root_only=self._root_only)
                send_datagram(self.path, syslog_datagram(record.to_json()), wait)
            except OSError as error:  # noqa: PERF203 - the records before it were sent
                raise PartialWrite(index, error) from None


def _check_socket(path: str, *, root_only: bool) -> None:
    """With ``root_only``, refuse a socket at ``path`` that is not root's (see ``root_socket``).

    Raises:
        OSError: It is not root's, or a directory above it is not.
    """
    from sslcustomize._report._journal import root_socket  # noqa: PLC0415 - only for these sinks

    if root_only and not root_socket(path):
        raise OSError(f"{path} is not a socket of root's in a directory only root writes")


class JournalSink(Sink):
    """Send each record to the systemd journal, one structured field per record field.

    Where journald does not answer, records go to syslog (``/dev/log``), and where nothing
    answers there either, to the spool (see :class:`Sink`), which the next record that
    reaches the journal empties into it.
    """

    name = "journal"

    def __init__(self, socket_path: str | None = None, syslog_path: str | None = None) -> None:
        """Send to ``socket_path`` (journald's), else to ``syslog_path`` (``/dev/log``)."""
        from sslcustomize._report._journal import JOURNAL_SOCKET, SYSLOG_SOCKET  # noqa: PLC0415

        super().__init__()
        self.path = socket_path or JOURNAL_SOCKET
        self._syslog = syslog_path or SYSLOG_SOCKET
        # The system's sockets are used only where root's (see _journal.root_socket).
        self._root_only = (socket_path is None, syslog_path is None)
        self.spool_path = _spool_in_private_dir("journal")

    def _write_batch(self, records: list[Record], wait: float) -> None:
        from sslcustomize._report._journal import (  # noqa: PLC0415 - only for this sink
            journal_datagram,
            send_datagram,
            syslog_datagram,
        )

        assert self.path is not None  # noqa: S101 - set in __init__
        for index, record in enumerate(records):
            try:
                _check_socket(self.path, root_only=self._root_only[0])
                send_datagram(self.path, journal_datagram(record.fields()), wait)
            except OSError:  # noqa: PERF203 - journald is not there: syslog, then the spool
                try:
                    _check_socket(self._syslog, root_only=self._root_only[1])
                    send_datagram(self._syslog, syslog_datagram(record.to_json()), wait)
                except OSError as error:
                    raise PartialWrite(index, error) from None


class LogSink(Sink):
    """Log each record on the ``sslcustomize.report`` logger at WARNING."""

    name = "log"

    def write(self, record: Record) -> None:
        """Log ``record`` now, holding no lock of ours: the program's handlers run here.

        A handler may itself connect over TLS and record (``HTTPHandler(secure=True)``);
        logging has its own locks, and nothing here is pending, spooled or retried.
        """
        self.attempts += 1
        try:
            self._write_batch([record], MAX_WAIT)
        except Exception:  # noqa: BLE001 - a sink must never break the program
            self._drop(1)

    def _write_batch(self, records: list[Record], wait: float) -> None:
        import logging  # noqa: PLC0415 - only for this sink

        for record in records:
            logging.getLogger("sslcustomize.report").warning("%s", record.to_json())


# --- Where a user's own files go --------------------------------------------------------------

#: The suffix of a file sink's spool: ``reports.sqlite3.spool``, JSONL.
SPOOL_SUFFIX = ".spool"
#: The fallback of :func:`private_dir`: one directory per uid, 0700, checked to be its own.
FALLBACK_DIR = "/var/tmp/sslcustomize-{uid}"  # noqa: S108 - owner and mode checked


def fallback_dir(uid: int) -> str:
    """Return the fallback directory of ``uid`` (see :data:`FALLBACK_DIR`)."""
    return FALLBACK_DIR.format(uid=uid)


def _own_directory(path: str) -> bool:
    """Tell whether ``path`` is a real directory of this user that no one else may enter."""
    try:
        info = os.lstat(path)
    except OSError:
        return False
    return (
        stat.S_ISDIR(info.st_mode)
        and info.st_uid == os.geteuid()
        and stat.S_IMODE(info.st_mode) & 0o077 == 0
    )


def spool_root() -> str | None:
    """Return the machine's report spool directory if root made it (``enable --scope system``).

    Only a real directory of root's counts, and if others may write it, only with the sticky
    bit (no user can remove or rename another's directory in it).
    """
    from sslcustomize._support._paths import REPORT_SPOOL  # noqa: PLC0415

    try:
        info = os.lstat(REPORT_SPOOL)
    except OSError:
        return None
    mode = stat.S_IMODE(info.st_mode)
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != 0 or (mode & 0o022 and not mode & 0o1000):
        return None
    return REPORT_SPOOL


def _own_directories() -> list[str]:
    """The directories :func:`private_dir` may use, the one root's ``report`` reads first."""
    from sslcustomize._support._paths import user_state_dir  # noqa: PLC0415

    uid = os.geteuid()
    root = spool_root()
    shared = [os.path.join(root, str(uid))] if root else []
    return [*shared, user_state_dir(), fallback_dir(uid)]


def private_dir(*, create: bool = True) -> str:
    """Return a directory of this user's own for spools and the dropped-records log.

    Where root made the machine's report spool (``/var/spool/sslcustomize``, sticky, by
    ``enable --scope system``): this account's directory in it, so that root's ``report``
    reads what waits there for every account, with a home or without. Elsewhere the user
    state directory; for a user without a writable home (``nobody``, service accounts),
    ``/var/tmp/sslcustomize-UID``, which root's ``report`` reads too. A directory shared
    with others (the spool, ``/var/tmp``) is made 0700 and refused unless it is a directory
    of this user that no one else may enter (another user may have made it first). Without
    ``create`` (to read what is there) nothing is made: a command that only reads, such as
    ``doctor`` or ``report``, leaves a home as it found it.

    Raises:
        OSError: None can be used (without ``create``: none exists yet).
    """
    candidates = _own_directories()
    state = candidates[-2]
    if not create:
        for directory in candidates:
            if os.path.isdir(directory) and (directory == state or _own_directory(directory)):
                return directory
        raise OSError(f"no records were kept yet ({state} does not exist)")
    for directory in candidates:
        if directory == state:
            try:
                os.makedirs(state, mode=0o700, exist_ok=True)
            except OSError:
                continue
            if os.access(state, os.W_OK | os.X_OK):
                return state
            continue
        with contextlib.suppress(FileExistsError, FileNotFoundError, PermissionError):
            os.mkdir(directory, 0o700)
        if _own_directory(directory):
            return directory
    raise OSError(f"{candidates[-1]} is not a private directory of this user")


def _spool_in_private_dir(kind: str) -> str | None:
    """The spool of a sink that keeps no file of its own (``journal``, ``syslog``)."""
    try:
        return os.path.join(private_dir(), f"{kind}-spool.jsonl")
    except OSError:
        return None


@dataclass(frozen=True, slots=True, kw_only=True)
class _Part:
    """Records read from one spool file from ``offset``, each with where its line ends."""

    path: str
    stamp: int
    offset: int
    records: list[Record]
    ends: list[int]
    read_to: int
    complete: bool


def _part_name(spool: str, path: str) -> tuple[int, int, int | None]:
    """The time stamp, offset and (for a part being written into the sink) pid in a name."""
    if path == spool:
        return time.time_ns(), 0, None
    middle = path[len(spool) + 1 :].rsplit(".", 1)[0]
    numbers = [int(n) for n in middle.split("-") if n.isdigit()]
    numbers += [0] * (2 - len(numbers))
    return numbers[0], numbers[1], numbers[2] if len(numbers) > 2 else None


def _read_part(path: str, stamp: int, offset: int, room: int) -> _Part:
    """Read at most ``room`` records of a claimed spool file from ``offset``.

    The ``flock`` waits for a writer that opened the file before it was claimed to end its
    line (:func:`_open_locked`); a line that is not a record is passed over.
    """
    import json  # noqa: PLC0415 - only when records are written or read

    records: list[Record] = []
    ends: list[int] = []
    # A shared log's spool is in a directory its whole group writes: what a member put there
    # under a spool part's name may be a FIFO (opened without waiting, then refused).
    descriptor = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    if not stat.S_ISREG(os.fstat(descriptor).st_mode):
        os.close(descriptor)
        raise OSError(f"{path}: not a regular file")
    with os.fdopen(descriptor, "rb") as file:
        _lock_until(descriptor, time.monotonic() + MAX_WAIT)
        file.seek(offset)
        position = offset
        for line in file:
            # Claimed and locked, the file has no writer left: a last line without its
            # newline is a torn write, passed over like any line that is not a record.
            position += len(line)
            with contextlib.suppress(ValueError, TypeError, AttributeError):  # not a record
                records.append(record_from_fields(json.loads(line)))
                ends.append(position)
            if len(records) >= room:
                break
        complete = not file.read(1)
    return _Part(
        path=path,
        stamp=stamp,
        offset=offset,
        records=records,
        ends=ends,
        read_to=position,
        complete=complete,
    )


def _alive(pid: int) -> bool:
    """Tell whether process ``pid`` may still be running."""
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True  # another user's process: alive
    return True


def spool_files(spool: str) -> list[str]:
    """Return the parts taken from the spool file ``spool`` (older), then ``spool`` itself."""
    import glob  # noqa: PLC0415 - only when records are read

    parts = sorted(
        glob.glob(glob.escape(spool) + ".*.draining") + glob.glob(glob.escape(spool) + ".*.rest")
    )
    return [*parts, spool] if os.path.exists(spool) else parts


def spool_parts(spool: str) -> list[tuple[str, int]]:
    """Return each part of the spool ``spool`` with the offset its records start at."""
    return [(part, _part_name(spool, part)[1]) for part in spool_files(spool)]


def _spool_size(spool: str) -> int:
    """The bytes a spool holds still to be written: its parts past their offsets, and itself."""
    total = 0
    for part in spool_files(spool):
        with contextlib.suppress(OSError):
            total += os.stat(part).st_size - _part_name(spool, part)[1]
    return total


# --- What was dropped --------------------------------------------------------------------------


def _drop_log_path(*, create: bool = True) -> str:
    return os.path.join(private_dir(create=create), DROPPED_LOG)


def _append_drop_log(count: int, sink: str, path: str | None) -> None:
    """Append one line to the dropped-records log; never raises."""
    import json  # noqa: PLC0415 - only when records are written or read

    line = json.dumps({"time": now(), "pid": os.getpid(), "uid": os.geteuid(), "count": count,
                       "sink": sink, "path": path}, separators=(",", ":"))  # fmt: skip
    with contextlib.suppress(OSError, SinkRefused, PartialWrite):  # said on stderr already
        append_lines(_drop_log_path(), [line], None)


def default_path(sink: str) -> str:
    """Return where a file sink writes when the policy names no path."""
    from sslcustomize._support._paths import user_state_dir  # noqa: PLC0415

    suffix = "sqlite3" if sink == "sqlite" else "jsonl"
    return os.path.join(user_state_dir(), f"reports.{suffix}")


def _default_for_writing(sink: str) -> str:
    """Return where a file sink writes by default: :func:`default_path`, if it can be made.

    An account without a usable home (``nobody``, service accounts) writes under
    :func:`private_dir` instead, rather than dropping every record.
    """
    path = default_path(sink)
    try:
        os.makedirs(os.path.dirname(path), mode=0o700, exist_ok=True)
    except OSError:
        with contextlib.suppress(OSError):
            return os.path.join(private_dir(), os.path.basename(path))
    return path


_FACTORIES: dict[str, Callable[[str, str | None], Sink]] = {
    "sqlite": lambda path, group: SqliteSink(path, group=group),
    "jsonl": lambda path, group: JsonlSink(path, group=group),
    "journal": lambda _path, _group: JournalSink(),
    "syslog": lambda _path, _group: SyslogSink(),
    "log": lambda _path, _group: LogSink(),
    "none": lambda _path, _group: Sink(),
}


def open_sink(
    name: str,
    path: str | None,
    *,
    group: str | None = None,
    quiet: bool = False,
    clock: Clock = SYSTEM_CLOCK,
) -> Sink:
    """Return the sink called ``name``, writing to ``path`` or its default place.

    Args:
        name: ``sqlite``, ``jsonl``, ``syslog``, ``log`` or ``none``.
        path: The file of a file sink; ``None`` for the default under the user state dir.
        group: For a log shared by several users: create its files 0660 (and its directory
            2770) owned by this group (``[report] group``).
        quiet: Say nothing on stderr (``[report] quiet``); drops are still counted.
        clock: The runtime's clock, read for when to retry after a failure.
    """
    if path is None and name in ("sqlite", "jsonl"):
        path = _default_for_writing(name)
    sink = _FACTORIES[name](path or default_path(name), group)
    sink.quiet = quiet
    sink.clock = clock
    return sink
