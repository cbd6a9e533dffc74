"""Sinks never hang, stall or silently lose: hostile paths, held locks, forks, permissions."""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
import stat
import threading
from pathlib import Path

import pytest

import sslcustomize
from _fixtures import ManualClock, run_python
from _reports import read_reading, read_records, read_spool
from sslcustomize._diagnosis._spools import dropped_records
from sslcustomize._report import _records as _report
from sslcustomize._report._records import (
    MAX_WAIT,
    JsonlSink,
    Record,
    SqliteSink,
    open_sink,
)

REASONS = ("expired", "hostname_mismatch", "self_signed")


def _record(host: str = "nas.example") -> Record:
    return Record(
        time="2026-12-03T09:00:00+00:00",
        pid=1,
        program="prog",
        context="smtplib",
        host=host,
        port=465,
        mode="report",
        verdict="rejected",
        reasons=REASONS,
    )


@pytest.fixture
def clock() -> ManualClock:
    """A clock a test moves by hand, given to each sink it makes (``sink.clock``)."""
    return ManualClock()


def _quiet_write(sink: _report.Sink, count: int = 1) -> None:
    """Write records, expecting the one warning of a failing sink."""
    with pytest.warns(sslcustomize.SSLCustomizeWarning, match="report sink"):  # noqa: PT031 - several writes, one warning
        for _ in range(count):
            sink.write(_record())


@pytest.mark.parametrize("kind", ["jsonl", "sqlite"])
def test_fifo_at_the_path_is_refused_without_hanging(tmp_path: Path, kind: str) -> None:
    """A FIFO at the sink path (no reader): refused at once, the records counted as dropped."""
    fifo = tmp_path / "reports"
    os.mkfifo(fifo)
    sink = open_sink(kind, str(fifo))
    done = threading.Event()

    def write() -> None:
        with contextlib.suppress(Warning):
            sink.write(_record())
        done.set()

    with pytest.warns(sslcustomize.SSLCustomizeWarning, match="not a regular file"):  # noqa: PT031 - a thread, then a second write
        thread = threading.Thread(target=write, daemon=True)
        thread.start()
        assert done.wait(10)
        sink.write(_record())  # the warning is given once; this one is dropped silently
    assert sink.dropped == 2
    assert stat.S_ISFIFO(fifo.stat().st_mode)


@pytest.mark.parametrize("kind", ["jsonl", "sqlite"])
def test_symlink_at_the_path_is_refused(tmp_path: Path, kind: str) -> None:
    """A symlink at the sink path is not followed: its target stays untouched."""
    target = tmp_path / "victim"
    target.write_bytes(b"precious\n")
    link = tmp_path / "reports"
    link.symlink_to(target)
    sink = open_sink(kind, str(link))
    _quiet_write(sink)
    assert target.read_bytes() == b"precious\n"
    assert sink.dropped == 1


@pytest.mark.parametrize("kind", ["jsonl", "sqlite"])
def test_regular_file_sinks_keep_every_reason_and_are_private(tmp_path: Path, kind: str) -> None:
    """Twin: at a fresh path, files are 0600 in a 0700 directory and keep every reason code."""
    path = tmp_path / "state" / "reports"
    sink = open_sink(kind, str(path))
    sink.write(_record())
    sink.close()
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    (record,) = read_records(str(path))
    assert tuple(record["reasons"]) == REASONS
    if kind == "sqlite":
        for extra in path.parent.glob("reports-*"):
            assert stat.S_IMODE(extra.stat().st_mode) & 0o077 == 0
        with contextlib.closing(sqlite3.connect(path)) as connection:
            assert connection.execute("SELECT reasons FROM records").fetchone() == (
                ",".join(REASONS),
            )


def test_held_sqlite_lock_costs_one_bounded_try_and_nothing_is_lost(
    tmp_path: Path, clock: ManualClock
) -> None:
    """Another connection holds the database: one try of <= 50 ms, then buffered and retried."""
    path = tmp_path / "r.sqlite3"
    sink = SqliteSink(str(path))
    sink.clock = clock
    sink.write(_record("before"))
    holder = sqlite3.connect(path)
    holder.execute("BEGIN EXCLUSIVE")
    try:
        _quiet_write(sink, 4)
        assert sink.attempts == 2  # the first record, then one try for the four
        (timeout,) = sink._connection.execute("PRAGMA busy_timeout").fetchone()
        assert timeout <= MAX_WAIT * 1000
        clock.now += 0.5  # still within the pause after a failure: no try at all
        sink.write(_record())
        assert sink.attempts == 2
    finally:
        holder.rollback()
        holder.close()
    clock.now += 60
    sink.write(_record("after"))
    assert sink.attempts == 3
    sink.close()
    hosts = [r["host"] for r in read_records(str(path))]
    assert hosts == ["before", *["nas.example"] * 5, "after"]
    assert sink.dropped == 0


def test_records_left_at_exit_are_spooled_and_shown(tmp_path: Path, clock: ManualClock) -> None:
    """A lock still held at exit: the records wait in the spool, read by report, none dropped."""
    path = tmp_path / "r.sqlite3"
    sink = SqliteSink(str(path))
    sink.clock = clock
    sink.write(_record())
    holder = sqlite3.connect(path)
    holder.execute("BEGIN EXCLUSIVE")
    try:
        _quiet_write(sink, 3)
        sink.close()
    finally:
        holder.rollback()
        holder.close()
    assert (sink.dropped, sink.spooled) == (0, 3)
    assert dropped_records() == 0
    assert len(read_records(str(path))) == 4  # the database and its spool
    later = SqliteSink(str(path))  # the next writer empties the spool into the database
    later.write(_record("later"))
    later.close()
    assert not Path(str(path) + ".spool").exists()
    with contextlib.closing(sqlite3.connect(path)) as connection:
        hosts = [row[0] for row in connection.execute("SELECT host FROM records ORDER BY id")]
    assert hosts == [*["nas.example"] * 4, "later"]


def test_buffer_is_bounded_and_overflow_counted(
    tmp_path: Path, clock: ManualClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A sink that cannot write keeps at most BUFFER_LIMIT records and counts the rest."""
    monkeypatch.setattr(_report, "BUFFER_LIMIT", 5)
    (tmp_path / "file").write_text("x")
    sink = JsonlSink(str(tmp_path / "file" / "r.jsonl"))
    sink.clock = clock
    _quiet_write(sink, 8)
    assert sink.dropped == 3
    assert len(sink._pending) == 5


def test_lock_held_by_another_thread_does_not_stall(tmp_path: Path) -> None:
    """A thread stuck inside the sink: another thread's write returns after MAX_WAIT."""
    sink = JsonlSink(str(tmp_path / "r.jsonl"))
    sink._lock.acquire()
    try:
        sink.write(_record())
    finally:
        sink._lock.release()
    sink.write(_record("next"))
    assert [r["host"] for r in read_records(str(tmp_path / "r.jsonl"))] == [
        "nas.example",
        "next",
    ]


def test_fork_while_another_thread_writes(tmp_path: Path) -> None:
    """fork() while a thread holds the sink's lock: the child writes its own record at once."""
    result = run_python(
        f"""
        import os, threading, warnings
        warnings.simplefilter("ignore", DeprecationWarning)  # 3.12: fork with threads
        from sslcustomize._report._records import Record, open_sink
        r = Record(time="2026-12-03", pid=1, program="p", context="c", host="parent", port=1,
                   mode="report", verdict="rejected", reasons=("expired",))
        sink = open_sink("sqlite", {str(tmp_path / "r.sqlite3")!r})
        sink.write(r)
        inside, release = threading.Event(), threading.Event()
        def stuck():
            with sink._lock:
                inside.set()
                release.wait()
        thread = threading.Thread(target=stuck)
        thread.start()
        inside.wait()
        pid = os.fork()
        if pid == 0:
            sink.write(Record(time="2026-12-03", pid=2, program="p", context="c", host="child",
                              port=1, mode="report", verdict="rejected", reasons=("expired",)))
            sink.close()
            os._exit(0)
        release.set()
        thread.join()
        _, status = os.waitpid(pid, 0)
        sink.close()
        print(os.waitstatus_to_exitcode(status))
        """
    )
    assert result.stdout.strip() == "0"
    hosts = sorted(r["host"] for r in read_records(str(tmp_path / "r.sqlite3")))
    assert hosts == ["child", "parent"]


@pytest.mark.skipif(os.geteuid() != 0, reason="giving a file to another group needs root")
def test_shared_log_group(tmp_path: Path) -> None:
    """[report] group: the directory is 2770 and the log 0660, both of that group."""
    import grp

    gid = grp.getgrnam("daemon").gr_gid
    path = tmp_path / "shared" / "r.jsonl"
    sink = open_sink("jsonl", str(path), group="daemon")
    sink.write(_record())
    assert (path.stat().st_gid, stat.S_IMODE(path.stat().st_mode)) == (gid, 0o660)
    directory = path.parent.stat()
    assert (directory.st_gid, stat.S_IMODE(directory.st_mode)) == (gid, 0o2770)
    assert json.loads(path.read_text())["host"] == "nas.example"


def test_report_group_must_exist(tmp_path: Path) -> None:
    """[report] group naming no group is a PolicyError at its line."""
    from sslcustomize._trust._checked_policy import load_policy

    path = tmp_path / "p.toml"
    path.write_text("[report]\nsink = 'jsonl'\ngroup = 'no-such-group-x'\n", encoding="utf-8")
    (error,) = load_policy([("user", str(path), True)]).errors
    assert (error.line, error.key) == (3, "report.group")


def test_doctor_and_report_show_dropped_records(tmp_path: Path) -> None:
    """The dropped-records count appears in doctor --json and report --json."""
    (tmp_path / "file").write_text("x")
    sink = JsonlSink(str(tmp_path / "file" / "r.jsonl"))
    _quiet_write(sink, 2)
    sink.close()
    doctor = run_python(
        "from sslcustomize._cli._doctor import gather; print(gather()['report_dropped'])"
    )
    assert doctor.stdout.strip() == "2"
    (tmp_path / "r.jsonl").write_text("")
    report = run_python(
        "import sys; from sslcustomize._cli import main; "
        f"sys.exit(main(['report', '--json', '--path', {str(tmp_path / 'r.jsonl')!r}]))",
        check=False,
    )
    assert json.loads(report.stdout)["dropped"] == 0
    report = run_python(
        "import sys; from sslcustomize._cli import main; "
        f"sys.exit(main(['report', '--json', '--path', {str(tmp_path / 'file' / 'r.jsonl')!r}]))",
        check=False,
    )
    assert json.loads(report.stdout)["dropped"] == 2


def test_database_locked_before_the_first_record(tmp_path: Path, clock: ManualClock) -> None:
    """Locked before the sink ever connected: one bounded try, then the record is kept."""
    path = tmp_path / "r.sqlite3"
    first = SqliteSink(str(path))
    first.clock = clock
    first.write(_record("first"))
    first.close()
    holder = sqlite3.connect(path)
    holder.execute("BEGIN EXCLUSIVE")
    sink = SqliteSink(str(path))
    sink.clock = clock
    try:
        _quiet_write(sink, 3)
        assert sink.attempts == 1
    finally:
        holder.rollback()
        holder.close()
    clock.now += 60
    sink.write(_record("after"))
    sink.close()
    assert [r["host"] for r in read_records(str(path))] == [
        "first",
        *["nas.example"] * 3,
        "after",
    ]


FULL_DISK = """
import json, os, resource, signal, sys
from sslcustomize._report._records import JsonlSink, Record
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a full disk: short writes, then EFBIG
path = sys.argv[1]
sink = JsonlSink(path)
def record(i):
    return Record(time="2026-12-03", pid=i, program="p", context="c", host=f"h{i}", port=1,
                  mode="report", verdict="rejected", reasons=("expired",))
size = len(record(0).to_json()) + 1
resource.setrlimit(resource.RLIMIT_FSIZE, (int(size * 3.5), resource.RLIM_INFINITY))
for i in range(6):
    sink.write(record(i))
torn = open(path, "rb").read()
resource.setrlimit(resource.RLIMIT_FSIZE, (resource.RLIM_INFINITY, resource.RLIM_INFINITY))
for i in range(6, 12):
    sink.write(record(i))
sink._retry_at = 0  # room again: the next try comes now, not after the pause
sink.write(record(12))
sink.close()
print(json.dumps({"torn": not torn.endswith(b"\\n"), "dropped": sink.dropped}))
"""


def test_torn_jsonl_line_never_spoils_the_next_record(tmp_path: Path) -> None:
    """A full disk tears a line; once there is room, every record is readable, none glued."""
    path = tmp_path / "r.jsonl"
    result = run_python(FULL_DISK.replace("sys.argv[1]", repr(str(path))))
    outcome = json.loads(result.stdout.splitlines()[-1])
    assert outcome == {"torn": True, "dropped": 0}
    reading = read_reading(path)
    assert sorted(r["pid"] for r in reading.records) == list(range(13))
    # the torn fragment, alone on its line
    assert reading.skipped == {(str(path), "line is not JSON (a torn write?)"): 1}
    assert "report sink 'jsonl' failed" in result.stderr


LOCKED_WRITER = """
import os, signal, sys, time
from sslcustomize._report._records import Record, open_sink
sink = open_sink("sqlite", sys.argv[1])
for i in range(3):
    sink.write(Record(time="2026-12-03", pid=os.getpid(), program="worker", context="c",
                      host=f"h{i}",
                      port=1, mode="report", verdict="rejected", reasons=("expired",)))
print("written", flush=True)
if sys.argv[2] == "exit":
    os._exit(0)
time.sleep(60)
"""


@pytest.mark.parametrize("end", ["exit", "sigterm"])
def test_records_survive_os_exit_and_sigterm_while_sqlite_is_locked(
    tmp_path: Path, end: str
) -> None:
    """A worker that ends by os._exit or SIGTERM with the database locked loses no record."""
    import signal
    import subprocess
    import sys

    path = tmp_path / "r.sqlite3"
    first = SqliteSink(str(path))
    first.write(_record("first"))
    first.close()
    holder = sqlite3.connect(path)
    holder.execute("BEGIN EXCLUSIVE")
    try:
        worker = subprocess.Popen(
            [sys.executable, "-c", LOCKED_WRITER, str(path), end],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        assert worker.stdout is not None
        assert worker.stdout.readline().strip() == "written"
        if end == "sigterm":
            worker.send_signal(signal.SIGTERM)
        _, stderr = worker.communicate(timeout=60)
    finally:
        holder.rollback()
        holder.close()
    assert "report sink 'sqlite' cannot write now" in stderr  # said, not silent
    assert sorted(r["host"] for r in read_records(str(path))) == ["first", "h0", "h1", "h2"]
    later = SqliteSink(str(path))
    later.write(_record("later"))
    later.close()
    with contextlib.closing(sqlite3.connect(path)) as connection:
        (count,) = connection.execute("SELECT COUNT(*) FROM records").fetchone()
    assert count == 5  # the spool went into the database


def test_syslog_without_a_listener_spools_then_delivers(tmp_path: Path, clock: ManualClock) -> None:
    """Nothing on /dev/log: records are spooled with one warning, then sent once it listens."""
    import socket

    path = str(tmp_path / "log")
    sink = _report.SyslogSink(path)
    sink.clock = clock
    with pytest.warns(sslcustomize.SSLCustomizeWarning, match="cannot write now"):  # noqa: PT031 - three writes, one warning
        for host in ("a", "b", "c"):
            sink.write(_record(host))
    assert sink.spool_path is not None
    assert [r["host"] for r in read_jsonl_hosts(sink.spool_path)] == ["a", "b", "c"]
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as listener:
        listener.bind(path)
        clock.now += 60
        sink.write(_record("d"))
        sink.close()
        listener.settimeout(5)
        messages = [listener.recv(65536).decode() for _ in range(4)]
    hosts = [json.loads(m.split(": ", 1)[1])["host"] for m in messages]
    assert hosts == ["a", "b", "c", "d"]
    assert not os.path.exists(sink.spool_path)
    assert sink.dropped == 0


def read_jsonl_hosts(path: str) -> list[dict[str, object]]:
    """The records of a spool file."""
    return read_records(path)


def test_spool_is_bounded_and_what_it_cannot_take_is_counted(
    tmp_path: Path, clock: ManualClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A full spool takes no more: the rest waits in memory, then is counted as dropped."""
    monkeypatch.setattr(_report, "SPOOL_LIMIT", 1000)
    sink = _report.SyslogSink(str(tmp_path / "no-listener"))
    sink.clock = clock
    _quiet_write(sink, 12)
    assert sink.spool_path is not None
    spooled = len(read_records(sink.spool_path))
    assert 0 < spooled < 12
    sink.close()
    assert (sink.spooled, sink.dropped) == (spooled, 12 - spooled)
    assert dropped_records() == 12 - spooled


def test_a_long_spool_is_emptied_a_batch_per_record_each_record_once(
    tmp_path: Path, clock: ManualClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A spool longer than DRAIN_BATCH: each record takes a batch; none lost, none twice."""
    import socket

    monkeypatch.setattr(_report, "DRAIN_BATCH", 3)
    path = str(tmp_path / "log")
    sink = _report.SyslogSink(path)
    sink.clock = clock
    early = [f"early{i}" for i in range(10)]
    with pytest.warns(sslcustomize.SSLCustomizeWarning, match="cannot write now"):  # noqa: PT031 - ten writes, one warning
        for host in early:
            sink.write(_record(host))
    assert sink.spool_path is not None
    received: list[str] = []
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as listener:
        listener.bind(path)
        listener.setblocking(False)
        clock.now += 60
        for index in range(4):
            sink.write(_record(f"late{index}"))
            sink._retry_at = 0  # each record tries at once
            while True:
                try:
                    message = listener.recv(65536).decode()
                except BlockingIOError:
                    break
                received.append(json.loads(message.split(": ", 1)[1])["host"])
            waiting = [r["host"] for r in read_spool(sink.spool_path)]
            assert sorted(received + waiting) == sorted(
                early + [f"late{i}" for i in range(index + 1)]
            )
    assert received[:4] == [*early[:3], "late0"]  # three spooled records with each record
    assert [h for h in received if h.startswith("early")] == early  # oldest first
    assert [h for h in received if h.startswith("late")] == [f"late{i}" for i in range(4)]
    assert sorted(received) == sorted(early + [f"late{i}" for i in range(4)])
    assert _report.spool_files(sink.spool_path) == []


def test_journal_fields_round_trip_newlines_and_repeats() -> None:
    """A value with a newline uses the binary form; repeated fields read back as a tuple."""
    import struct

    from sslcustomize._diagnosis._reading import record_from_journal
    from sslcustomize._report._journal import journal_datagram

    record = Record(
        time="2026-12-03", pid=7, program="p", context="c", host="h", port=443, mode="report",
        verdict="opt_out", reasons=("code_opt_out", "self_signed"), leaf_subject="CN=a\nb",
    )  # fmt: skip
    datagram = journal_datagram(record.fields())
    assert b"SSLCUSTOMIZE_LEAF_SUBJECT\n" + struct.pack("<Q", 6) + b"CN=a\nb\n" in datagram
    assert datagram.count(b"SSLCUSTOMIZE_REASONS=") == 2
    assert b"SYSLOG_IDENTIFIER=sslcustomize\n" in datagram
    # As journalctl -o json prints it: a repeated field as a list, a binary value as numbers.
    entry = {
        "SYSLOG_IDENTIFIER": "sslcustomize", "_UID": "65534", "_HOSTNAME": "web1",
        "SSLCUSTOMIZE_VERDICT": "opt_out", "SSLCUSTOMIZE_PORT": "443",
        "SSLCUSTOMIZE_REASONS": ["code_opt_out", "self_signed"],
        "SSLCUSTOMIZE_LEAF_SUBJECT": list(b"CN=a\nb"), "SSLCUSTOMIZE_PROGRAM": "/usr/bin/x",
    }  # fmt: skip
    back = record_from_journal(entry)
    assert back is not None
    assert back["reasons"] == ["code_opt_out", "self_signed"]
    assert (back["leaf_subject"], back["port"], back["uid"], back["machine"]) == (
        "CN=a\nb", 443, 65534, "web1",
    )  # fmt: skip
    assert record_from_journal({**entry, "SYSLOG_IDENTIFIER": "sshd"}) is None  # twin


def _hostile_chain_fields() -> dict[str, object]:
    """A server's self-signed certificate whose subject is 700 OUs of control characters."""
    import datetime as dt

    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    from sslcustomize._report._recording import chain_fields

    key = ec.generate_private_key(ec.SECP256R1())
    units = [x509.NameAttribute(NameOID.ORGANIZATIONAL_UNIT_NAME, "\x01" * 60)] * 700
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "localhost"), *units])
    now = dt.datetime.now(dt.timezone.utc)
    certificate = (
        x509.CertificateBuilder().subject_name(name).issuer_name(name)
        .public_key(key.public_key()).serial_number(1)
        .not_valid_before(now - dt.timedelta(days=1)).not_valid_after(now + dt.timedelta(days=1))
        .sign(key, hashes.SHA256())
    )  # fmt: skip
    der = certificate.public_bytes(serialization.Encoding.DER)
    assert len(der) < 100 * 1024  # within what OpenSSL accepts from a server
    return chain_fields((der,))


@pytest.mark.parametrize("kind", ["syslog", "journal"])
def test_a_huge_certificate_name_keeps_no_record_from_the_sink(
    tmp_path: Path, clock: ManualClock, kind: str
) -> None:
    """A server's 45 KB subject (270 KB as JSON): sent cut; the records after it reach the sink."""
    import socket

    path = str(tmp_path / "log")
    sink = (
        _report.SyslogSink(path)
        if kind == "syslog"
        else _report.JournalSink(str(tmp_path / "no-journald"), path)  # syslog: the fallback
    )
    fields = {k: v for k, v in _hostile_chain_fields().items() if k in Record.__slots__}
    hostile = Record(**{**_record("mitm.example").fields(), **fields})
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as listener:
        listener.bind(path)
        listener.setblocking(False)
        sink.write(hostile)
        sink.write(_record("later.example"))  # twin: an ordinary record right after it
        sink.close()
        messages = []
        with contextlib.suppress(BlockingIOError):
            while True:
                messages.append(listener.recv(1 << 20).decode())
    assert len(messages) == 2, messages
    assert '"host":"mitm.example"' in messages[0]
    assert len(messages[0]) < 9000  # cut: the JSON of the whole record is 270 KB
    assert json.loads(messages[1].split(": ", 1)[1])["host"] == "later.example"
    assert sink.dropped == 0
