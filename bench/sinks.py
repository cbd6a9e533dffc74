"""Benchmarks of the report sinks and of trust-bundle freshness, against baselines of the same run.

    python bench/sinks.py

1. Worst-case stall of one record with a hostile sink: another connection holds the SQLite
   database (BEGIN EXCLUSIVE) while records are written, against the same writes to a free
   database. Goal: no write longer than MAX_WAIT (50 ms) plus scheduling noise; the records
   written during the lock are all in the database once it is released.
2. Anchors for a bundle: a cached call (no file touched), a re-check after the refresh
   interval with the file unchanged (one stat), and a first read of a changed bundle (read,
   SHA-256, OpenSSL parse, hashed directory), against loading the bundle into a context.
   A changed bundle is noticed by the first context made after REFRESH_INTERVAL (60 s).

Needs the test extra (trustme). Prints figures; always exits 0.
"""

from __future__ import annotations

import sqlite3
import statistics
import tempfile
import time
import warnings
from pathlib import Path

import trustme

from sslcustomize import _report, _trust
from sslcustomize._policy import TrustSource
from sslcustomize._report import MAX_WAIT, Record, SqliteSink, read_records

RECORD = Record(
    time="t", pid=1, program="bench", context="c", host="h", port=1, mode="report",
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
    kept = len(read_records(str(path)))
    print("1. one record, SQLite sink")
    print(f"   free database: median {statistics.median(baseline) * 1e3:.3f} ms, "
          f"max {max(baseline) * 1e3:.2f} ms")  # fmt: skip
    tries = sink.attempts - 2
    print(f"   database locked by another connection: median "
          f"{statistics.median(locked) * 1e3:.3f} ms, max {max(locked) * 1e3:.2f} ms "
          f"(bound {MAX_WAIT * 1e3:.0f} ms; {tries} tries for 200 records)")  # fmt: skip
    print(f"   ratio of worst stalls (locked / free): {max(locked) / max(baseline):.1f}x")
    print(f"   records kept: {kept} of 202, dropped {sink.dropped}")


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
    _trust.anchors_for(sources)
    cached = timed(lambda: _trust.anchors_for(sources), 2000)

    def recheck() -> None:
        now[0] += _trust.REFRESH_INTERVAL + 1
        _trust.anchors_for(sources)

    time.sleep(1.1)  # past the racy-timestamp second, so an unchanged file is not re-read
    checked = timed(recheck, 500)

    def changed() -> None:
        _trust.reset()
        with bundle.open("ab") as file:
            file.write(b"\n")
        _trust.anchors_for(sources)

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
        bench_anchors(directory)


if __name__ == "__main__":
    main()
