"""Report records and the sinks that keep them.

A record describes one connection that enforce mode would have rejected (report mode) or
whose code turned verification off. Sinks: ``sqlite`` (default, WAL, many processes at once),
``jsonl`` (one line per record, appended with a single ``write``), ``syslog``, ``log`` (Python
logging) and ``none``. A sink that fails never breaks the program: one warning, then silence.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import sys
import threading
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from .exceptions import SSLCustomizeWarning

__all__ = ["RECORD_VERSION", "Record", "Sink", "open_sink", "read_records", "warn_safely"]

RECORD_VERSION = 1
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
    rule: str = "default"
    origin: str | None = None
    version: int = field(default=RECORD_VERSION)

    def to_json(self) -> str:
        """Return the record as one line of JSON."""
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


class Sink:
    """A place records go. Subclasses implement :meth:`_write`."""

    name = "none"

    def __init__(self) -> None:
        """Start working; the first failure silences the sink."""
        self._failed = False
        self._lock = threading.Lock()

    def write(self, record: Record) -> None:
        """Keep ``record``; on failure warn once and drop this and later records."""
        if self._failed:
            return
        try:
            with self._lock:
                self._write(record)
        except Exception as error:  # noqa: BLE001 - a sink must never break the program
            self._failed = True
            warn_safely(
                f"report sink {self.name!r} failed ({error!r}); further records are dropped",
                SSLCustomizeWarning,
            )

    def _write(self, record: Record) -> None:
        """Keep one record (nothing for the ``none`` sink)."""

    def close(self) -> None:
        """Release what the sink holds open (nothing, for most sinks)."""


class JsonlSink(Sink):
    """Append one JSON line per record; one ``write`` call, so lines never interleave."""

    name = "jsonl"

    def __init__(self, path: str) -> None:
        """Write to ``path`` (created with its directory)."""
        super().__init__()
        self.path = path
        self._directory_made = False

    def _write(self, record: Record) -> None:
        if not self._directory_made:
            os.makedirs(os.path.dirname(os.path.abspath(self.path)), exist_ok=True)
            self._directory_made = True
        # Opened per record, so that a log rotated under us is followed, not written past.
        data = (record.to_json() + "\n").encode("utf-8")
        descriptor = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        try:
            written = os.write(descriptor, data)
            if written != len(data):
                raise OSError(f"short write ({written} of {len(data)} bytes)")
        finally:
            os.close(descriptor)


class SqliteSink(Sink):
    """Insert records into a SQLite database in WAL mode, shared by many processes."""

    name = "sqlite"
    timeout = 10.0  # seconds to wait for another process's write to finish

    def __init__(self, path: str) -> None:
        """Write to the database at ``path`` (created with its directory)."""
        super().__init__()
        self.path = path
        self._connection: Any = None

    def _connect(self) -> Any:
        import sqlite3  # noqa: PLC0415 - only when a record is written

        os.makedirs(os.path.dirname(os.path.abspath(self.path)), exist_ok=True)
        connection = sqlite3.connect(self.path, timeout=self.timeout, check_same_thread=False)
        connection.execute("PRAGMA journal_mode=WAL")
        connection.execute("PRAGMA synchronous=NORMAL")
        connection.execute(_SCHEMA)
        connection.commit()
        return connection

    def close(self) -> None:
        """Close the database connection, if one is open."""
        with self._lock:
            if self._connection is not None:
                self._connection.close()
                self._connection = None

    def _write(self, record: Record) -> None:
        if self._connection is None:
            self._connection = self._connect()
        with self._connection:
            self._connection.execute(
                "INSERT INTO records (time, pid, program, context, host, port, mode, verdict,"
                " reasons, record) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    record.time,
                    record.pid,
                    record.program,
                    record.context,
                    record.host,
                    record.port,
                    record.mode,
                    record.verdict,
                    ",".join(record.reasons),
                    record.to_json(),
                ),
            )


class SyslogSink(Sink):
    """Send each record to syslog (facility user, priority warning)."""

    name = "syslog"

    def _write(self, record: Record) -> None:
        import syslog  # noqa: PLC0415 - POSIX only, only when used

        syslog.syslog(syslog.LOG_USER | syslog.LOG_WARNING, "sslcustomize " + record.to_json())


class LogSink(Sink):
    """Log each record on the ``sslcustomize.report`` logger at WARNING."""

    name = "log"

    def _write(self, record: Record) -> None:
        import logging  # noqa: PLC0415 - only for this sink

        logging.getLogger("sslcustomize.report").warning("%s", record.to_json())


def default_path(sink: str) -> str:
    """Return where a file sink writes when the policy names no path."""
    from ._paths import user_state_dir  # noqa: PLC0415

    suffix = "sqlite3" if sink == "sqlite" else "jsonl"
    return os.path.join(user_state_dir(), f"reports.{suffix}")


_FACTORIES: dict[str, Callable[[str], Sink]] = {
    "sqlite": SqliteSink,
    "jsonl": JsonlSink,
    "syslog": lambda _path: SyslogSink(),
    "log": lambda _path: LogSink(),
    "none": lambda _path: Sink(),
}


def open_sink(name: str, path: str | None) -> Sink:
    """Return the sink called ``name``, writing to ``path`` or its default place."""
    return _FACTORIES[name](path or default_path(name))


def read_records(path: str) -> list[dict[str, Any]]:
    """Read every record of a ``sqlite`` or ``jsonl`` sink file, oldest first.

    The kind is told by the file's first bytes (SQLite's header), not its name. Lines of a
    JSONL file that are not JSON (a torn write) are skipped.

    Raises:
        OSError: The file cannot be read.
    """
    with open(path, "rb") as file:
        header = file.read(16)
    if header.startswith(b"SQLite format 3"):
        import contextlib  # noqa: PLC0415
        import sqlite3  # noqa: PLC0415

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
