"""``sslcustomize report`` over a fleet, against a ten-line ``json.loads`` loop (issue 35 §2).

    python bench/report_fleet.py [--sizes 100000,300000,1000000] [--dir DIR] [--rounds N]
                                 [--mode json|text|html|journal]

The data set: real report-mode records, written by the ``jsonl`` sink itself
(:class:`JsonlSink`), for 3,000 servers and 200 programs, in 100 machine directories
(``m000/reports.jsonl`` ...). One machine's file is written by the sink; the 99 others are
byte-for-byte copies with the machine's name put in (a fleet replicated, as the issue did).
Each size is made once under ``--dir`` and kept for the next run.

Per size, alternating in fresh processes (``--rounds`` times each):

* the floor: read every file, ``json.loads`` each line, count by host (ten lines);
* ``sslcustomize report --path DIR`` in the ``--mode`` asked (its output to ``/dev/null``):
  ``json`` (``--json``, the default), ``text`` (the tables people read), ``html``
  (``--json --html FILE``), or ``journal``: the same records as ``journalctl -o json``
  exports (``m000/journal.json`` ..., journald's fields as it prints them), read with
  ``--json``; its floor counts ``SSLCUSTOMIZE_HOST``.

Time is wall-clock, and CPU time (the child's user + system time, less moved by other work on
a shared machine); memory is the child's peak RSS (``os.wait4``'s ``ru_maxrss``). The ratios
are medians over rounds of report / floor, each pair measured back to back. Prints figures;
always exits 0.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from sslcustomize._report._journal import FIELD_PREFIX, IDENTIFIER
from sslcustomize._report._records import JsonlSink, Record

MACHINES = 100
SERVERS = 3000
PROGRAMS = 200
_DEFAULT_DIR = Path("/var/tmp/sslcustomize-bench-fleet")

FLOOR = """
import json, os, sys
counts = {}
for root, dirs, files in os.walk(sys.argv[1]):
    for name in files:
        with open(os.path.join(root, name), "rb") as file:
            for line in file:
                host = json.loads(line).get("host")
                counts[host] = counts.get(host, 0) + 1
print(len(counts), sum(counts.values()))
"""
#: The floor of the journal exports: the same ten lines, counting journald's host field.
JOURNAL_FLOOR = FLOOR.replace('.get("host")', '.get("SSLCUSTOMIZE_HOST")')

_REASONS = (
    ("self_signed",),
    ("unknown_issuer",),
    ("expired",),
    ("hostname_mismatch",),
    ("expired", "hostname_mismatch"),
    ("incomplete_chain",),
)


def _record(rng: random.Random, machine: str) -> Record:
    """One record as report mode writes it: a server's chain, the program, the verdict."""
    server = rng.randrange(SERVERS)
    opt_out = rng.random() < 0.1
    reasons = ("code_opt_out",) if opt_out else rng.choice(_REASONS)
    day = 1 + rng.randrange(28)
    ca = f"CN=Corp Issuing CA {server % 12},O=Corp,C=DE"
    return Record(
        time=f"2026-11-{day:02d}T{rng.randrange(24):02d}:{rng.randrange(60):02d}:"
        f"{rng.randrange(60):02d}+00:00",
        pid=rng.randrange(1, 1 << 22),
        program=f"/opt/app{rng.randrange(PROGRAMS):03d}/bin/worker.py",
        context=rng.choice(("http.client", "urllib3.connection", "smtplib", "httpx")),
        host=f"srv{server:04d}.corp.example",
        port=rng.choice((443, 8443, 465)),
        mode="report",
        verdict="opt_out" if opt_out else "rejected",
        reasons=reasons,
        leaf_subject=f"CN=srv{server:04d}.corp.example",
        issuer=ca,
        not_after="2027-03-01T00:00:00+00:00",
        pin="sha256/" + f"{server:044d}",
        chain_sha256=(f"{server:064x}", f"{server % 12:064x}"),
        top_issuer="CN=Corp Root CA,O=Corp,C=DE",
        intermediates=(ca,) if "hostname_mismatch" in reasons else (),
        rule="default",
        machine=machine,
    )


def make_fleet(directory: Path, total: int) -> Path:
    """Write ``total`` records over :data:`MACHINES` machine directories (kept for reuse)."""
    fleet = directory / f"fleet-{total}"
    done = fleet / ".complete"
    if done.exists():
        return fleet
    shutil.rmtree(fleet, ignore_errors=True)
    per_machine = total // MACHINES
    first = fleet / "m000" / "reports.jsonl"
    first.parent.mkdir(parents=True)
    sink = JsonlSink(str(first))
    rng = random.Random(35)
    for _ in range(per_machine):
        sink.write(_record(rng, "m000"))
    sink.close()
    data = first.read_bytes()
    for index in range(1, MACHINES):
        name = f"m{index:03d}"
        target = fleet / name / "reports.jsonl"
        target.parent.mkdir()
        target.write_bytes(data.replace(b'"machine":"m000"', f'"machine":"{name}"'.encode()))
    done.touch()
    return fleet


def _journal_entry(record: dict[str, Any], index: int) -> dict[str, Any]:
    """``record`` as ``journalctl -o json`` prints it: journald's fields, texts throughout."""
    entry: dict[str, Any] = {
        "__CURSOR": f"s=0;i={index:x}",
        "__REALTIME_TIMESTAMP": str(1_764_000_000_000_000 + index),
        "_HOSTNAME": record["machine"],
        "_UID": "1000",
        "_COMM": "python3",
        "PRIORITY": "4",
        "SYSLOG_IDENTIFIER": IDENTIFIER,
        "MESSAGE": f"sslcustomize: {record['verdict']} {record['host']}:{record['port']}",
    }
    for name, value in record.items():
        if value is None or name == "machine":
            continue
        if isinstance(value, list):  # a repeated field: an array of its values, one alone
            if value:
                entry[FIELD_PREFIX + name.upper()] = value if len(value) > 1 else value[0]
        else:
            entry[FIELD_PREFIX + name.upper()] = str(value)
    return entry


def make_journal_fleet(directory: Path, total: int) -> Path:
    """The fleet of :func:`make_fleet` as one ``journalctl -o json`` export per machine."""
    fleet = directory / f"journal-{total}"
    done = fleet / ".complete"
    if done.exists():
        return fleet
    shutil.rmtree(fleet, ignore_errors=True)
    source = make_fleet(directory, total)
    for machine in sorted(p.parent.name for p in source.glob("*/reports.jsonl")):
        target = fleet / machine / "journal.json"
        target.parent.mkdir(parents=True)
        with (source / machine / "reports.jsonl").open("rb") as lines, target.open("w") as out:
            for index, line in enumerate(lines):
                out.write(json.dumps(_journal_entry(json.loads(line), index)) + "\n")
    done.touch()
    return fleet


def _run(argv: list[str]) -> tuple[float, float, float]:
    """Run ``argv``; return its wall-clock seconds, its CPU seconds and peak RSS in MB."""
    start = time.perf_counter()
    process = subprocess.Popen(argv, stdout=subprocess.DEVNULL)
    _, status, usage = os.wait4(process.pid, 0)
    elapsed = time.perf_counter() - start
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode != 0:
        raise SystemExit(f"{argv[:4]} exited {process.returncode}")
    return elapsed, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def measure(fleet: Path, rounds: int, mode: str = "json") -> dict[str, float]:
    """Alternate the floor and report ``rounds`` times; medians and the median ratio."""
    floor = [sys.executable, "-c", JOURNAL_FLOOR if mode == "journal" else FLOOR, str(fleet)]
    report = [sys.executable, "-m", "sslcustomize", "report", "--path", str(fleet)]
    if mode != "text":
        report.append("--json")
    if mode == "html":
        report += ["--html", str(fleet.parent / "report.html")]  # replaced, never /dev/null
    floors, reports = [], []
    for _ in range(rounds):
        floors.append(_run(floor))
        reports.append(_run(report))
    pairs = list(zip(floors, reports, strict=True))
    return {
        "floor_s": statistics.median(t for t, _, _ in floors),
        "floor_mb": max(m for _, _, m in floors),
        "report_s": statistics.median(t for t, _, _ in reports),
        "report_mb": max(m for _, _, m in reports),
        "ratio": statistics.median(r[0] / f[0] for f, r in pairs),
        "cpu_ratio": statistics.median(r[1] / f[1] for f, r in pairs),
    }


def main() -> int:
    """Make the fleets, measure, print one line per size."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="100000,300000,1000000")
    parser.add_argument("--dir", type=Path, default=_DEFAULT_DIR)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--mode", choices=("json", "text", "html", "journal"), default="json")
    args = parser.parse_args()
    args.dir.mkdir(parents=True, exist_ok=True)
    print(f"{'records':>9} {'MB of files':>11} {'floor':>8} {'report':>8} {'ratio':>6} "
          f"{'CPU ratio':>9} {'floor RSS':>10} {'report RSS':>11}")  # fmt: skip
    for size in (int(s) for s in args.sizes.split(",")):
        make = make_journal_fleet if args.mode == "journal" else make_fleet
        fleet = make(args.dir, size)
        megabytes = sum(p.stat().st_size for p in fleet.rglob("*.json*")) / 1e6
        result = measure(fleet, args.rounds, args.mode)
        print(
            f"{size:>9} {megabytes:>11.0f} {result['floor_s']:>7.2f}s {result['report_s']:>7.2f}s "
            f"{result['ratio']:>5.2f}x {result['cpu_ratio']:>8.2f}x {result['floor_mb']:>8.0f}MB "
            f"{result['report_mb']:>9.0f}MB",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
