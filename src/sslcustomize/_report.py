"""Report records and the sinks that keep them.

A record describes one connection that enforce mode would have rejected (report mode) or
whose code turned verification off. Sinks: ``sqlite`` (default, WAL, many processes at once),
``jsonl`` (one line per record, appended with a single ``write``), ``syslog``, ``log`` (Python
logging) and ``none``.

A sink never breaks, hangs or stalls the program, and never loses a record silently:

* file sinks write only to regular files: a symlink, FIFO or device at the path is refused
  without being opened for writing (``O_NOFOLLOW``, ``O_NONBLOCK``, ``fstat``);
* a write waits at most :data:`MAX_WAIT` (50 ms) on the connection path, for a lock held by
  another thread or by another process (SQLite's busy timeout);
* a record that cannot be written is kept in memory (at most :data:`BUFFER_LIMIT`) and
  retried later, with a growing pause between tries; at exit one last try waits at most
  :data:`EXIT_WAIT`;
* what is finally dropped is counted, on stderr at exit and in a small log under the user
  state directory that ``doctor`` and ``report`` read (:func:`dropped_records`);
* a forked child starts with fresh locks and no inherited database connection;
* files are created 0600 in 0700 directories, or 0660 in 2770 ones owned by the group that
  ``[report] group`` names, for a log shared by several users.
"""

from __future__ import annotations

import datetime as dt
import os
import stat
import sys
import threading
import time
import warnings
import weakref
from collections import deque
from collections.abc import Callable
from typing import Any

from ._frozen import dataclass, field
from .exceptions import SSLCustomizeError, SSLCustomizeWarning

__all__ = [
    "BUFFER_LIMIT",
    "EXIT_WAIT",
    "MAX_WAIT",
    "RECORD_VERSION",
    "Record",
    "Sink",
    "dropped_records",
    "open_sink",
    "read_records",
    "warn_safely",
]

RECORD_VERSION = 1
#: The longest a record may hold up a connection, in seconds (a lock held elsewhere).
MAX_WAIT = 0.05
#: The longest the last try at exit may wait, in seconds.
EXIT_WAIT = 1.0
#: Records kept in memory while a sink cannot write; beyond, the oldest are dropped (counted).
BUFFER_LIMIT = 1000
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
    version: int = field(default=RECORD_VERSION)

    def to_json(self) -> str:
        """Return the record as one line of JSON."""
        import json  # noqa: PLC0415 - only when records are written or read

        fields = {name: getattr(self, name) for name in self.__slots__}
        return json.dumps(fields, separators=(",", ":"), sort_keys=True)


def now() -> str:
    """Return the current UTC time in ISO 8601 with seconds."""
    return dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds")


def program() -> str:
    """Return argv[0] of this process (or the executable when there is none)."""
    return sys.argv[0] if sys.argv and sys.argv[0] else sys.executable


def warn_safely(message: str, category: type[Warning], stacklevel: int = 3) -> None:
    """Warn, but never raise: under ``-W error`` a warning must not break a connection."""
    try:
        warnings.warn(message, category, stacklevel=stacklevel)
    except Warning:
        sys.stderr.write(f"sslcustomize: {message}\n")


class SinkRefused(SSLCustomizeError):  # noqa: N818 - an outcome, not a programming error
    """The sink's path is not something records may be written to (never retried)."""


_clock = time.monotonic  # tests move time forward
_sinks: weakref.WeakSet[Sink] = weakref.WeakSet()
# Database connections inherited by a forked child: kept referenced, never closed there
# (closing would checkpoint or unlock on behalf of the parent; see SQLite's "how to corrupt").
_orphans: list[Any] = []


class Sink:
    """A place records go. Subclasses implement :meth:`_write_batch`."""

    name = "none"
    path: str | None = None

    def __init__(self) -> None:
        """Start working; nothing is opened until the first record."""
        self._lock = threading.Lock()
        self._pending: deque[Record] = deque()
        self._retry_at = 0.0
        self._pause = 0.0
        self._warned = False
        self._refused = False
        self.dropped = 0
        self._dropped_logged = 0
        self.attempts = 0
        _sinks.add(self)

    def write(self, record: Record) -> None:
        """Keep ``record``: write it (and any earlier ones) now or keep it for a later try.

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
            if _clock() >= self._retry_at:
                self._flush(MAX_WAIT)
        finally:
            self._lock.release()

    def _trim(self) -> None:
        excess = len(self._pending) - BUFFER_LIMIT
        for _ in range(max(0, excess)):
            self._pending.popleft()
        if excess > 0:
            self._drop(excess)

    def _flush(self, wait: float) -> None:
        if not self._pending:
            return
        batch = list(self._pending)
        self.attempts += 1
        try:
            self._write_batch(batch, wait)
        except SinkRefused as refusal:
            self._refused = True
            self._pending.clear()
            self._drop(len(batch))
            self._warn(f"{refusal}; further records are dropped")
            return
        except Exception as error:  # noqa: BLE001 - a sink must never break the program
            low, high = RETRY_PAUSE
            self._pause = min(high, self._pause * 2) if self._pause else low
            self._retry_at = _clock() + self._pause
            self._warn(f"failed ({error!r}); records are kept and retried")
            return
        for _ in batch:
            self._pending.popleft()
        self._pause = 0.0
        self._retry_at = 0.0

    def _warn(self, message: str) -> None:
        if not self._warned:
            self._warned = True
            warn_safely(f"report sink {self.name!r} {message}", SSLCustomizeWarning, stacklevel=5)

    def _drop(self, count: int) -> None:
        self.dropped += count

    def _write_batch(self, records: list[Record], wait: float) -> None:
        """Keep these records, waiting at most ``wait`` seconds for a lock (none: discard)."""

    def close(self) -> None:
        """Try once more (waiting at most EXIT_WAIT), count what is left, release the sink."""
        if not self._lock.acquire(timeout=EXIT_WAIT):
            self._drop(len(self._pending))
            self._pending.clear()
            self._log_drops()
            return
        try:
            if self._pending and not self._refused:
                self._flush(EXIT_WAIT)
            if self._pending:
                self._drop(len(self._pending))
                self._pending.clear()
            self._release()
        finally:
            self._lock.release()
        self._log_drops()

    def _release(self) -> None:
        """Close what the sink holds open (nothing, for most sinks)."""

    def _after_fork(self) -> None:
        """Start afresh in a forked child: new lock, no records of the parent's."""
        self._lock = threading.Lock()
        self._pending.clear()
        self.dropped = self._dropped_logged = 0

    def _log_drops(self) -> None:
        """Say what was dropped, on stderr and in the dropped-records log."""
        count = self.dropped - self._dropped_logged
        if count <= 0:
            return
        self._dropped_logged = self.dropped
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


class JsonlSink(Sink):
    """Append one JSON line per record; one ``write`` call per batch, so lines never interleave."""

    name = "jsonl"

    def __init__(self, path: str, *, group: str | None = None) -> None:
        """Write to ``path`` (created 0600 in a 0700 directory, or shared with ``group``)."""
        super().__init__()
        self.path = self._file = path
        self._gid = _group_id(group)
        self._directory_made = False

    def _write_batch(self, records: list[Record], wait: float) -> None:
        if not self._directory_made:
            _prepare_directory(self._file, self._gid)
            self._directory_made = True
        # Opened per batch, so that a log rotated under us is followed, not written past.
        data = "".join(record.to_json() + "\n" for record in records).encode("utf-8")
        descriptor = open_regular(self._file, os.O_WRONLY | os.O_APPEND, self._gid)
        try:
            written = os.write(descriptor, data)
            if written != len(data):
                raise OSError(f"short write ({written} of {len(data)} bytes)")
        finally:
            os.close(descriptor)


class SqliteSink(Sink):
    """Insert records into a SQLite database in WAL mode, shared by many processes."""

    name = "sqlite"

    def __init__(self, path: str, *, group: str | None = None) -> None:
        """Write to the database at ``path`` (created 0600 in a 0700 directory)."""
        super().__init__()
        self.path = self._file = path
        self._gid = _group_id(group)
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
    """Let the next statement wait for a lock only until ``deadline`` (SQLite's busy timeout)."""
    remaining = int((deadline - time.monotonic()) * 1000)
    if remaining <= 0:
        raise TimeoutError("no time left to wait for the database")
    connection.execute(f"PRAGMA busy_timeout = {remaining}")


class SyslogSink(Sink):
    """Send each record to syslog (facility user, priority warning)."""

    name = "syslog"

    def _write_batch(self, records: list[Record], wait: float) -> None:
        import syslog  # noqa: PLC0415 - POSIX only, only when used

        for record in records:
            syslog.syslog(syslog.LOG_USER | syslog.LOG_WARNING, "sslcustomize " + record.to_json())


class LogSink(Sink):
    """Log each record on the ``sslcustomize.report`` logger at WARNING."""

    name = "log"

    def _write_batch(self, records: list[Record], wait: float) -> None:
        import logging  # noqa: PLC0415 - only for this sink

        for record in records:
            logging.getLogger("sslcustomize.report").warning("%s", record.to_json())


# --- What was dropped --------------------------------------------------------------------------


def _drop_log_path() -> str:
    from ._paths import user_state_dir  # noqa: PLC0415

    return os.path.join(user_state_dir(), DROPPED_LOG)


def _append_drop_log(count: int, sink: str, path: str | None) -> None:
    """Append one line to the dropped-records log; never raises."""
    import json  # noqa: PLC0415 - only when records are written or read

    line = json.dumps({"time": now(), "pid": os.getpid(), "count": count, "sink": sink,
                       "path": path}, separators=(",", ":")) + "\n"  # fmt: skip
    try:
        log = _drop_log_path()
        _prepare_directory(log, None)
        descriptor = open_regular(log, os.O_WRONLY | os.O_APPEND)
        try:
            os.write(descriptor, line.encode("utf-8"))
        finally:
            os.close(descriptor)
    except (OSError, SinkRefused):
        pass  # said on stderr already


def dropped_records(path: str | None = None) -> int:
    """Return how many report records were finally dropped (all sinks, or the one at ``path``).

    Read from the dropped-records log under the user state directory; 0 when there is none.
    """
    import json  # noqa: PLC0415 - only when records are written or read

    total = 0
    try:
        descriptor = os.open(_drop_log_path(), os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return 0
    with os.fdopen(descriptor, "rb") as file:
        if not stat.S_ISREG(os.fstat(file.fileno()).st_mode):
            return 0
        for line in file.read(1 << 20).splitlines():
            try:
                entry = json.loads(line)
                if path is None or entry.get("path") == path:
                    total += int(entry["count"])
            except (ValueError, KeyError, TypeError, AttributeError):  # noqa: PERF203 - a torn line
                continue
    return total


def default_path(sink: str) -> str:
    """Return where a file sink writes when the policy names no path."""
    from ._paths import user_state_dir  # noqa: PLC0415

    suffix = "sqlite3" if sink == "sqlite" else "jsonl"
    return os.path.join(user_state_dir(), f"reports.{suffix}")


_FACTORIES: dict[str, Callable[[str, str | None], Sink]] = {
    "sqlite": lambda path, group: SqliteSink(path, group=group),
    "jsonl": lambda path, group: JsonlSink(path, group=group),
    "syslog": lambda _path, _group: SyslogSink(),
    "log": lambda _path, _group: LogSink(),
    "none": lambda _path, _group: Sink(),
}


def open_sink(name: str, path: str | None, *, group: str | None = None) -> Sink:
    """Return the sink called ``name``, writing to ``path`` or its default place.

    Args:
        name: ``sqlite``, ``jsonl``, ``syslog``, ``log`` or ``none``.
        path: The file of a file sink; ``None`` for the default under the user state dir.
        group: For a log shared by several users: create its files 0660 (and its directory
            2770) owned by this group (``[report] group``).
    """
    return _FACTORIES[name](path or default_path(name), group)


def read_records(path: str) -> list[dict[str, Any]]:
    """Read every record of a ``sqlite`` or ``jsonl`` sink file, oldest first.

    The kind is told by the file's first bytes (SQLite's header), not its name. Lines of a
    JSONL file that are not JSON (a torn write) are skipped.

    Raises:
        OSError: The file cannot be read.
    """
    import json  # noqa: PLC0415 - only when records are written or read

    descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    with os.fdopen(descriptor, "rb") as file:
        if not stat.S_ISREG(os.fstat(descriptor).st_mode):
            raise OSError(f"{path} is not a regular file")
        header = file.read(16)
    if header.startswith(b"SQLite format 3"):
        import contextlib  # noqa: PLC0415
        import sqlite3  # noqa: PLC0415 - only when a record is written

        uri = "file:" + os.path.abspath(path) + "?mode=ro"
        with contextlib.closing(sqlite3.connect(uri, uri=True)) as connection:
            rows = connection.execute("SELECT record FROM records ORDER BY id").fetchall()
        return [json.loads(row[0]) for row in rows]
    records = []
    with open(path, encoding="utf-8", errors="replace") as file:
        for line in file:
            try:
                records.append(json.loads(line))
            except ValueError:  # noqa: PERF203 - a torn line must not hide the others
                continue
    return records
