"""Benchmarks of the report sinks and of trust-bundle freshness, against baselines of the same run.

    python bench/sinks.py

1. Worst-case stall of one record with a hostile sink: another connection holds the SQLite
   database (BEGIN EXCLUSIVE) while records are written, against the same writes to a free
   database. Goal: no write longer than MAX_WAIT (50 ms) plus scheduling noise; the records
   written during the lock are all in the database once it is released.
3. The journal sink (bench_journal): one record sent to a datagram socket that a thread
   reads (the stand-in for journald: the native protocol's encoding and one sendto), one
   record spooled while nothing listens (journal, then syslog refused, then a locked append
   to the spool), and the records that empty a full spool (SPOOL_LIMIT) DRAIN_BATCH at a
   time once journald is back, against one record into a free SQLite database.
2. Anchors for a bundle: a cached call (no file touched), a re-check after the refresh
   interval with the file unchanged (one stat), and a first read of a changed bundle (read,
   SHA-256, OpenSSL parse, hashed directory), against loading the bundle into a context.
   A changed bundle is noticed by the first context made after REFRESH_INTERVAL (60 s).

Needs the test extra (trustme). Prints figures; always exits 0.
"""

from __future__ import annotations

import signal
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

import trustme

from sslcustomize._diagnosis._reading import Reading, read_path
from sslcustomize._policy._model import TrustSource
from sslcustomize._report import _records as _report
from sslcustomize._report._records import MAX_WAIT, Record, SqliteSink
from sslcustomize._trust import _anchors as _trust

RECORD = Record(
    time="2026-12-03", pid=1, program="bench", context="c", host="h", port=1, mode="report",
    verdict="rejected", reasons=("expired", "hostname_mismatch"),
)  # fmt: skip


def _writes(sink: SqliteSink, count: int) -> list[float]:
    times = []
    for _ in range(count):
        start = time.perf_counter()
        sink.write(RECORD)
        times.append(time.perf_counter() - start)
    return times


def bench_sink(directory: Path) -> None:
    free = SqliteSink(str(directory / "free.sqlite3"))
    free.write(RECORD)
    baseline = _writes(free, 200)
    free.close()

    path = directory / "locked.sqlite3"
    sink = SqliteSink(str(path))
    sink.write(RECORD)
    holder = sqlite3.connect(path)
    holder.execute("BEGIN EXCLUSIVE")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        locked = _writes(sink, 200)
    holder.rollback()
    holder.close()
    _report._clock = lambda: time.monotonic() + 3600
    sink.write(RECORD)
    sink.close()
    reading = Reading()
    read_path(str(path), reading)
    kept = reading.kept
    print("1. one record, SQLite sink")
    print(f"   free database: median {statistics.median(baseline) * 1e3:.3f} ms, "
          f"max {max(baseline) * 1e3:.2f} ms")  # fmt: skip
    tries = sink.attempts - 2
    print(f"   database locked by another connection: median "
          f"{statistics.median(locked) * 1e3:.3f} ms, max {max(locked) * 1e3:.2f} ms "
          f"(bound {MAX_WAIT * 1e3:.0f} ms; {tries} tries for 200 records)")  # fmt: skip
    print(f"   ratio of worst stalls (locked / free): {max(locked) / max(baseline):.1f}x")
    print(f"   records kept: {kept} of 202, dropped {sink.dropped}")


RECEIVER = """
import signal, socket, sys
listener = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
listener.bind(sys.argv[1])
count = 0
def stop(*_):
    print(count, flush=True)
    sys.exit(0)
signal.signal(signal.SIGTERM, stop)
while True:
    listener.recv(1 << 16)
    count += 1
"""


def bench_journal(directory: Path) -> None:
    from sslcustomize._report._records import DRAIN_BATCH, SPOOL_LIMIT, JournalSink

    free = SqliteSink(str(directory / "baseline.sqlite3"))
    free.write(RECORD)
    baseline = statistics.median(_writes(free, 200))  # type: ignore[arg-type]
    free.close()

    path = str(directory / "journal.socket")
    # journald's part, in a process of its own: read datagrams as they come, count them.
    reader = subprocess.Popen(
        [sys.executable, "-I", "-c", RECEIVER, path], stdout=subprocess.PIPE, text=True
    )
    while not Path(path).exists():
        time.sleep(0.01)
    no_syslog = str(directory / "no-syslog")
    sent = _writes(JournalSink(path, no_syslog), 200)  # type: ignore[arg-type]

    down = JournalSink(str(directory / "stopped"), no_syslog)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        spooled = _writes(down, 200)  # type: ignore[arg-type]
        assert down.spool_path is not None
        with open(down.spool_path, "a", encoding="utf-8") as spool:  # fill it to its limit
            line = RECORD.to_json() + "\n"
            spool.write(line * (SPOOL_LIMIT // len(line) - 200))
    total = sum(1 for _ in open(down.spool_path, encoding="utf-8"))  # noqa: SIM115 - counted once
    recovering = JournalSink(path, no_syslog)
    recovering.spool_path = down.spool_path
    first = _writes(recovering, 1)[0]  # type: ignore[arg-type]
    rest = _writes(recovering, total // DRAIN_BATCH + 10)  # type: ignore[arg-type]
    reader.send_signal(signal.SIGTERM)
    received = int(reader.communicate(timeout=30)[0])
    print("3. one record, journal sink (a socket read by another process stands in for journald)")
    print(f"   SQLite, free database (baseline): median {baseline * 1e3:.3f} ms")
    print(f"   journal: median {statistics.median(sent) * 1e3:.3f} ms "
          f"({statistics.median(sent) / baseline:.2f}x), max {max(sent) * 1e3:.2f} ms")  # fmt: skip
    middle = statistics.median(spooled)
    print(f"   journald stopped, nothing on /dev/log, spooled: median {middle * 1e3:.3f} ms "
          f"({middle / baseline:.2f}x), max {max(spooled) * 1e3:.2f} ms")  # fmt: skip
    print(f"   journald back, a full spool ({total} records, {SPOOL_LIMIT >> 20} MiB): the next "
          f"record {first * 1e3:.1f} ms ({first / baseline:.0f}x), the following ones "
          f"{DRAIN_BATCH} spooled records each, median {statistics.median(rest) * 1e3:.1f} ms, "
          f"max {max(rest) * 1e3:.1f} ms")  # fmt: skip
    delivered = 200 + total + 1 + len(rest)
    print(f"   datagrams received {received} of {delivered}, dropped {recovering.dropped}")


def bench_anchors(directory: Path) -> None:
    cas = [trustme.CA() for _ in range(140)]  # about a public-CA bundle
    bundle = directory / "bundle.pem"
    bundle.write_bytes(b"".join(ca.cert_pem.bytes() for ca in cas))
    sources = (TrustSource(kind="file", path=str(bundle)),)
    now = [0.0]
    _trust._clock = lambda: now[0]

    def timed(action: object, rounds: int) -> float:
        start = time.perf_counter()
        for _ in range(rounds):
            action()  # type: ignore[operator]
        return (time.perf_counter() - start) / rounds

    import ssl

    def load_file() -> None:
        ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT).load_verify_locations(cafile=str(bundle))

    direct = timed(load_file, 20)
    trust = [_trust.TrustCache()]  # a runtime's; a new one stands for a new process
    trust[0].anchors_for(sources)
    cached = timed(lambda: trust[0].anchors_for(sources), 2000)

    def recheck() -> None:
        now[0] += _trust.REFRESH_INTERVAL + 1
        trust[0].anchors_for(sources)

    time.sleep(1.1)  # past the racy-timestamp second, so an unchanged file is not re-read
    checked = timed(recheck, 500)

    def changed() -> None:
        trust[0] = _trust.TrustCache()
        with bundle.open("ab") as file:
            file.write(b"\n")
        trust[0].anchors_for(sources)

    first = timed(changed, 5)
    print("2. anchors for a 140-CA bundle")
    print(f"   loading the bundle into a context (baseline): {direct * 1e3:.2f} ms")
    print(f"   cached (within {_trust.REFRESH_INTERVAL:.0f} s): {cached * 1e6:.2f} us "
          f"({cached / direct:.4f}x)")  # fmt: skip
    print(f"   re-check, file unchanged (one stat): {checked * 1e6:.1f} us "
          f"({checked / direct:.4f}x)")  # fmt: skip
    print(f"   changed file, first read (hash, OpenSSL parse, hashed directory): "
          f"{first * 1e3:.2f} ms ({first / direct:.2f}x)")  # fmt: skip
    print(f"   a changed bundle is noticed by contexts made after at most "
          f"{_trust.REFRESH_INTERVAL:.0f} s")  # fmt: skip


def main() -> None:
    with tempfile.TemporaryDirectory() as name:
        directory = Path(name)
        import os

        os.environ["XDG_CACHE_HOME"] = str(directory / "cache")
        os.environ["XDG_STATE_HOME"] = str(directory / "state")
        bench_sink(directory)
        bench_journal(directory)
        bench_anchors(directory)


if __name__ == "__main__":
    main()
