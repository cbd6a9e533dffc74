"""Report sinks: what they write, many writers at once, and failures that never break programs."""

from __future__ import annotations

import contextlib
import json
import logging
import os
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import sslcustomize
from _fixtures import WritePolicy
from _reports import read_records
from sslcustomize._diagnosis._spools import dropped_records
from sslcustomize._policy._load import merge_layers
from sslcustomize._report import _records as _report
from sslcustomize._report._recording import is_quiet, sink_name
from sslcustomize._report._records import (
    JsonlSink,
    Record,
    SqliteSink,
    SyslogSink,
    open_sink,
)
from sslcustomize._trust._checked_policy import parse_policy


def _record(host: str = "nas.example", pid: int = 1) -> Record:
    return Record(
        time="2026-12-03T09:00:00+00:00",
        pid=pid,
        program="prog",
        context="smtplib",
        host=host,
        port=465,
        mode="report",
        verdict="rejected",
        reasons=("self_signed",),
    )


def test_jsonl_appends_one_versioned_line_per_record(tmp_path: Path) -> None:
    """Each record is one JSON line with version 1; directories are created."""
    path = tmp_path / "deep" / "r.jsonl"
    sink = open_sink("jsonl", str(path))
    sink.write(_record("a.example"))
    sink.write(_record("b.example"))
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    assert [line["host"] for line in lines] == ["a.example", "b.example"]
    assert all(line["version"] == 1 for line in lines)
    assert oct(path.stat().st_mode & 0o777) == "0o600"


def test_sqlite_records_in_wal_mode(tmp_path: Path) -> None:
    """The SQLite sink creates its table, uses WAL and keeps the whole record as JSON."""
    path = tmp_path / "r.sqlite3"
    sink = open_sink("sqlite", str(path))
    sink.write(_record())
    sink.close()
    with contextlib.closing(sqlite3.connect(path)) as connection:
        assert connection.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        host, reasons, record = connection.execute(
            "SELECT host, reasons, record FROM records"
        ).fetchone()
    assert (host, reasons) == ("nas.example", "self_signed")
    assert json.loads(record)["context"] == "smtplib"


WRITER = """
import sys
from sslcustomize._report._records import Record, open_sink
sink = open_sink("sqlite", sys.argv[1])
for i in range(200):
    sink.write(Record(time="2026-12-03", pid=int(sys.argv[2]), program="w", context="c",
                      host=f"h{i}",
                      port=1, mode="report", verdict="rejected", reasons=("expired",)))
sink.close()
"""


def test_eight_processes_write_1600_records(tmp_path: Path) -> None:
    """Eight processes writing 200 records each into one database lose none."""
    path = tmp_path / "shared.sqlite3"
    processes = [
        subprocess.Popen([sys.executable, "-c", WRITER, str(path), str(n)]) for n in range(8)
    ]
    assert [p.wait(timeout=120) for p in processes] == [0] * 8
    records = read_records(str(path))  # the database, and its spool if the lock was busy
    assert len(records) == 1600
    assert len({r["pid"] for r in records}) == 8
    assert dropped_records() == 0


def test_log_sink(caplog: pytest.LogCaptureFixture) -> None:
    """The log sink logs the JSON record on sslcustomize.report at WARNING."""
    with caplog.at_level(logging.WARNING, logger="sslcustomize.report"):
        open_sink("log", None).write(_record())
    (entry,) = caplog.records
    assert json.loads(entry.getMessage())["host"] == "nas.example"


def test_syslog_sink(tmp_path: Path) -> None:
    """The syslog sink sends the record to the socket at facility user, priority warning."""
    import socket

    path = str(tmp_path / "log")
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as listener:
        listener.bind(path)
        SyslogSink(path).write(_record())
        message = listener.recv(65536).decode()
    assert message.startswith(f"<12>sslcustomize[{os.getpid()}]: {{")
    assert json.loads(message.split(": ", 1)[1])["host"] == "nas.example"


def test_none_sink_writes_nothing(tmp_path: Path) -> None:
    """sink = 'none' keeps nothing and never fails."""
    open_sink("none", str(tmp_path / "x")).write(_record())
    assert list(tmp_path.iterdir()) == []


def test_default_paths_under_user_state_dir(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Without a path, file sinks write under the user state directory."""
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    assert _report.default_path("sqlite") == str(tmp_path / "sslcustomize" / "reports.sqlite3")
    assert _report.default_path("jsonl") == str(tmp_path / "sslcustomize" / "reports.jsonl")


@pytest.mark.parametrize(
    "make",
    [
        pytest.param(lambda tmp: JsonlSink("/dev/full"), id="dev-full"),
        pytest.param(lambda tmp: JsonlSink(str(tmp / "file" / "r.jsonl")), id="parent-is-a-file"),
        pytest.param(
            lambda tmp: SqliteSink(str(tmp / "file" / "r.sqlite3")), id="sqlite-unwritable"
        ),
    ],
)
def test_failing_sink_warns_once_then_stays_silent(make: object, tmp_path: Path) -> None:
    """A sink that cannot write warns once; later records are kept or dropped silently."""
    (tmp_path / "file").write_text("not a directory")
    sink = make(tmp_path)  # type: ignore[operator]
    with pytest.warns(sslcustomize.SSLCustomizeWarning, match="report sink") as w:  # noqa: PT031 - three writes, one warning
        for _ in range(3):
            sink.write(_record())
    assert len(w) == 1
    sink.close()
    assert sink.dropped == 3


def test_failing_sink_never_breaks_under_warnings_as_errors(tmp_path: Path) -> None:
    """Even with -W error, a failing sink prints one line and the program goes on."""
    code = textwrap.dedent("""
        from sslcustomize._report._records import JsonlSink, Record
        sink = JsonlSink("/dev/full")
        r = Record(time="2026-12-03", pid=1, program="p", context="c", host="h", port=1,
                   mode="report", verdict="rejected", reasons=("expired",))
        sink.write(r); sink.write(r)
        sink.close()
        print("alive")
    """)
    result = subprocess.run(
        [sys.executable, "-W", "error", "-c", code],
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "XDG_STATE_HOME": str(tmp_path)},
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "alive"
    assert result.stderr.count("further records are dropped") == 1
    assert "2 report record(s)" in result.stderr


@pytest.mark.parametrize(
    ("layers", "quiet"),
    [
        ((("system", "mode = 'report'\n"),), True),
        ((("system", "mode = 'enforce'\n"),), True),
        ((("user", "mode = 'report'\n"),), False),
        ((("system", "mode = 'report'\n[report]\nquiet = false\n"),), False),
        ((("system", "mode = 'report'\n"), ("user", "[report]\nquiet = false\n")), False),
        ((("user", "mode = 'report'\n[report]\nquiet = true\n"),), True),
    ],
)
def test_quiet_is_the_default_of_a_system_policy_only(
    write_policy: WritePolicy, layers: tuple[tuple[str, str], ...], quiet: bool
) -> None:
    """A system policy keeps records only by default, in either mode; a user's warns."""
    parsed = []
    for layer, text in layers:
        path = write_policy(text)
        parsed.append(parse_policy(path.read_text(), path=str(path), layer=layer))
    policy = merge_layers(parsed)
    assert is_quiet(policy) is quiet
    # The sink does not follow the mode either: the journal wherever the system layer exists.
    assert sink_name(policy) == ("journal" if layers[0][0] == "system" else "sqlite")
