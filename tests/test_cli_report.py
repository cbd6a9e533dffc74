"""report: the records of report mode, summarised per host, from sqlite or jsonl."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from _fixtures import WritePolicy
from sslcustomize import _state
from sslcustomize._cli import main
from sslcustomize._report import Record, open_sink


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
