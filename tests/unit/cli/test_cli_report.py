"""report: the records of report mode, summarised per host, from sqlite or jsonl."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from _fixtures import WritePolicy, installed_with_hook
from sslcustomize._cli import main
from sslcustomize._report._records import Record, open_sink
from sslcustomize._runtime import _state


def _write(sink_name: str, path: Path) -> None:
    sink = open_sink(sink_name, str(path))
    for index, (host, reason, program) in enumerate(
        [
            ("nas.example", "self_signed", "backup.py"),
            ("nas.example", "self_signed", "sync.py"),
            ("mail.example", "expired", "mailer.py"),
        ]
    ):
        sink.write(
            Record(
                time=f"2026-12-0{index + 1}T10:00:00+00:00",
                pid=1,
                program=program,
                context="smtplib",
                host=host,
                port=465,
                mode="report",
                verdict="rejected",
                reasons=(reason,),
            )
        )
    sink.close()


@pytest.mark.parametrize(("sink", "name"), [("sqlite", "r.sqlite3"), ("jsonl", "r.jsonl")])
def test_report_groups_by_host(
    sink: str, name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Records are grouped per host with count, reasons, programs, first and last seen."""
    path = tmp_path / name
    _write(sink, path)
    assert main(["report", "--json", "--path", str(path)]) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["records"] == 3
    nas, mail = document["hosts"]
    assert (nas["host"], nas["count"], nas["reasons"]) == ("nas.example", 2, ["self_signed"])
    assert nas["programs"] == ["backup.py", "sync.py"]
    assert (nas["first_seen"], nas["last_seen"]) == (
        "2026-12-01T10:00:00+00:00",
        "2026-12-02T10:00:00+00:00",
    )
    assert mail["reasons"] == ["expired"]


def test_report_reads_the_policy_sink_and_writes_html(
    tmp_path: Path,
    write_policy: WritePolicy,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Without --path, the policy's sink is read; --html writes an escaped page."""
    path = tmp_path / "r.jsonl"
    _write("jsonl", path)
    with path.open("a") as file:
        file.write('{"torn": \n')
    policy = write_policy(f"[report]\nsink = 'jsonl'\npath = '{path}'\n")
    monkeypatch.setenv("SSLCUSTOMIZE_POLICY", str(policy))
    page = tmp_path / "report.html"
    assert main(["report", "--html", str(page), "--since", "2026-12-02"]) == 0
    out = capsys.readouterr().out
    assert "nas.example" in out
    assert "sync.py" in out
    assert "backup.py" not in out
    text = page.read_text()
    assert text.startswith("<!DOCTYPE html>")
    assert "mail.example" in text


def test_report_without_records_and_sink_none(
    write_policy: WritePolicy, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """No file yet says so; a sink that keeps no file is a usage error naming --path."""
    assert main(["report"]) == 0
    assert "no records" in capsys.readouterr().out
    monkeypatch.setenv("SSLCUSTOMIZE_POLICY", str(write_policy("[report]\nsink = 'log'\n")))
    _state.set_policy(None)  # a new command is a new process
    assert main(["report"]) == 2
    assert "--path" in capsys.readouterr().err


def _fleet_record(
    host: str, port: int, program: str, machine: str, *, opt_out: bool = False, reason: str = ""
) -> Record:
    return Record(
        time="2026-12-04T10:00:00+00:00", pid=1, program=program, context="http.client",
        host=host, port=port, mode="report", machine=machine,
        verdict="opt_out" if opt_out else "rejected",
        reasons=("code_opt_out", "self_signed") if opt_out else (reason,),
    )  # fmt: skip


FLEET = [
    _fleet_record("nas.example", 8443, "backup.py", "web1", reason="self_signed"),
    _fleet_record("nas.example", 8443, "backup.py", "web2", reason="self_signed"),
    _fleet_record("mail.example", 465, "mailer.py", "web2", reason="expired"),
    _fleet_record("127.0.0.1", 9443, "poller.py", "db1", opt_out=True),
]


def _export(directory: Path) -> None:
    """Two machines' jsonl sinks and one machine's journalctl -o json export."""
    directory.mkdir()
    for machine in ("web1", "web2"):
        sink = open_sink("jsonl", str(directory / f"{machine}.jsonl"))
        for record in FLEET:
            if record.machine == machine:
                sink.write(record)
        sink.close()
    from sslcustomize._report._journal import journal_datagram

    lines = []
    for record in FLEET:
        if record.machine == "db1":
            entry: dict[str, object] = {"__CURSOR": "s=1", "_HOSTNAME": "db1", "_UID": "998"}
            for field in journal_datagram(record.fields()).decode().splitlines():
                key, _, value = field.partition("=")
                entry[key] = [entry[key], value] if key in entry else value
            lines.append(json.dumps(entry))
    (directory / "db1.journal.json").write_text("\n".join(lines) + "\n")


def test_fleet_directory_what_would_break_where(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A directory from three machines: breakage per server and program, opt-outs apart."""
    _export(tmp_path / "fleet")
    assert main(["report", "--json", "--path", str(tmp_path / "fleet")]) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["records"] == 4
    breaking = {e["where"]: e for e in document["would_break"]}
    assert set(breaking) == {"nas.example:8443", "mail.example:465"}
    assert breaking["nas.example:8443"]["machines"] == ["web1", "web2"]
    assert breaking["nas.example:8443"]["programs"] == ["backup.py"]
    assert "sslcustomize trust nas.example:8443" in breaking["nas.example:8443"]["fixes"][0]["fix"]
    (opt_out,) = document["opt_outs"]
    assert (opt_out["where"], opt_out["machines"]) == ("127.0.0.1:9443", ["db1"])
    assert document["summary"]["line"] == (
        "2 machines, 2 programs would fail under enforce (2 servers); "
        "1 program turns verification off"
    )
    assert main(["report", "--path", str(tmp_path / "fleet")]) == 0
    text = capsys.readouterr().out
    assert "Code that turns verification off here" in text
    failing = text.split("What would fail under enforce")[1].split("Code that turns")[0]
    assert "9443" not in failing  # the opt-out is never listed as breakage


def test_opt_outs_alone_break_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Only verify=False records: nothing would fail; the HTML lists them apart too."""
    path = tmp_path / "r.jsonl"
    sink = open_sink("jsonl", str(path))
    sink.write(FLEET[3])
    sink.close()
    page = tmp_path / "r.html"
    assert main(["report", "--json", "--path", str(path), "--html", str(page)]) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["would_break"] == []
    assert document["summary"]["line"] == (
        "nothing would fail under enforce; 1 program turns verification off"
    )
    text = page.read_text()
    assert "Nothing: every recorded connection verified." in text
    assert "127.0.0.1:9443" in text.split('id="opt-outs"')[1]


HOSTILE = "\x1b[2J\x1b[31mCN=[bold green]verified[/]\u202e"


def test_record_strings_are_shown_escaped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Terminal escapes and rich markup from a server stay visible text in text and JSON."""
    path = tmp_path / "r.jsonl"
    sink = open_sink("jsonl", str(path))
    sink.write(_fleet_record(HOSTILE, 443, HOSTILE, HOSTILE, reason="self_signed"))
    sink.close()
    assert main(["report", "--path", str(path)]) == 0
    out = capsys.readouterr().out
    assert "\x1b" not in out
    assert "\u202e" not in out
    assert "\\x1b[2J" in out
    assert "[bold" in out  # markup printed, not applied (a cell may wrap the rest)
    assert main(["report", "--json", "--path", str(path)]) == 0
    raw = capsys.readouterr().out
    assert "\x1b" not in raw
    assert json.loads(raw)["would_break"][0]["programs"] == [HOSTILE]  # data kept exact


FAKE_JOURNALCTL = """#!/bin/sh
touch "$0.ran"
echo '{"SYSLOG_IDENTIFIER":"sslcustomize","SSLCUSTOMIZE_VERDICT":"rejected","_UID":"0"}'
"""


@pytest.mark.parametrize("entry", ["{bin}", ""])
def test_report_journal_runs_no_journalctl_from_the_callers_path(
    tmp_path: Path, entry: str
) -> None:
    """report --journal as root runs journalctl from the system's PATH, not a planted one."""
    import os
    import shutil
    import subprocess
    import sys

    if shutil.which("journalctl", path=os.defpath) is None:
        pytest.skip("needs journalctl (apt-get install systemd)")
    if not installed_with_hook():
        pytest.skip("runs python -m sslcustomize: nox -s tests, not fast")
    planted = tmp_path / "bin"
    planted.mkdir()
    fake = planted / "journalctl"
    fake.write_text(FAKE_JOURNALCTL)
    fake.chmod(0o755)
    journal = tmp_path / "journal"
    journal.mkdir()

    def report(path: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [
                sys.executable,
                "-m",
                "sslcustomize",
                "report",
                "--journal",
                *("--journal-dir", str(journal)),
                "--json",
            ],
            capture_output=True,
            text=True,
            cwd=planted,  # an empty PATH entry is the current directory
            env={"PATH": path, "HOME": str(tmp_path), "XDG_STATE_HOME": str(tmp_path / "s")},
            timeout=120,
            check=False,
        )

    # Twin: the system's journalctl reads the (empty) journal directory.
    legitimate = report(os.defpath)
    assert legitimate.returncode == 0, legitimate.stderr
    assert json.loads(legitimate.stdout)["records"] == 0
    # A directory of someone else's first in PATH (or the cwd, as an empty entry): not run.
    hostile = report(entry.format(bin=planted) + os.pathsep + os.defpath)
    assert hostile.returncode == 0, hostile.stderr
    assert json.loads(hostile.stdout)["records"] == 0
    assert not (planted / "journalctl.ran").exists()


JOURNAL_PRINTER = """
import json, sys
for i in range(int(sys.argv[1])):
    print(json.dumps({"__CURSOR": str(i), "SYSLOG_IDENTIFIER": "sslcustomize", "_UID": "0",
                      "SSLCUSTOMIZE_TIME": "2026-12-01T10:00:00+00:00",
                      "SSLCUSTOMIZE_VERDICT": "rejected", "SSLCUSTOMIZE_HOST": f"h{i % 3}"}))
sys.stderr.write("journalctl: said something\\n")
sys.exit(int(sys.argv[2]))
"""


@pytest.mark.parametrize("status", [0, 1])
def test_the_journal_is_read_from_the_pipe_as_it_comes(status: int) -> None:
    """journalctl's output goes record by record to the summary; a failure after output is kept."""
    import sys

    from sslcustomize._cli import _report as report_command
    from sslcustomize._diagnosis._reading import Reading
    from sslcustomize._diagnosis._summary import Summary

    summary = Summary()
    reading = Reading(summary.add)
    command = [sys.executable, "-c", JOURNAL_PRINTER, "3000", str(status)]
    assert report_command._stream_journal(command, reading) is None
    assert (reading.kept, reading.records, summary.count) == (3000, [], 3000)
    assert [g["count"] for g in summary.hosts()] == [1000, 1000, 1000]


def test_a_journalctl_that_fails_without_output_says_why() -> None:
    """The twin: nothing printed and a failure: its last line of errors is the message."""
    import sys

    from sslcustomize._cli import _report as report_command
    from sslcustomize._diagnosis._reading import Reading

    reading = Reading()
    command = [sys.executable, "-c", JOURNAL_PRINTER, "0", "1"]
    problem = report_command._stream_journal(command, reading)
    assert problem == "journalctl failed: journalctl: said something"


@pytest.mark.parametrize("collecting", [True, False])
def test_report_gives_back_the_collector_as_it_found_it(
    collecting: bool, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """report reads without the cyclic collector, then turns it back on, only if it was on.

    Also when a path named is not one to read (an error, exit 2).
    """
    import gc

    path = tmp_path / "reports.jsonl"
    _write("jsonl", path)
    try:
        if not collecting:
            gc.disable()
        else:  # whatever an earlier test in this process left
            gc.enable()
        assert main(["report", "--json", "--path", str(path)]) == 0
        assert json.loads(capsys.readouterr().out)["records"] == 3
        assert gc.isenabled() is collecting
        assert main(["report", "--json", "--path", str(tmp_path / "missing")]) == 2
        assert gc.isenabled() is collecting
    finally:
        gc.enable()
