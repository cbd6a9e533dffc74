"""report reads records of other users and machines as hostile input (issue 32 items 4 and 5).

Forged hosts never reach a printed command, in text, JSON or HTML; every printed command
splits into exactly its intended words and, pasted, does what it says; a bad record, FIFO,
link or fake database is skipped and counted by file and reason, never hiding the fleet.
"""

from __future__ import annotations

import html.parser
import json
import os
import shlex
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

import _pki
from _fixtures import run_python
from sslcustomize._cli import build_parser, main
from sslcustomize._runtime import _state

if TYPE_CHECKING:
    from conftest import StartServer

FORGED = ("nas.corp.example;touch${IFS}/tmp/x;#", "host --yes --scope system")
LEGIT = "nas.corp.example"


def _line(**fields: Any) -> str:
    record: dict[str, Any] = {
        "time": "2026-12-01T10:00:00+00:00", "pid": 1, "program": "backup.py",
        "context": "http.client", "host": LEGIT, "port": 8443, "mode": "report",
        "verdict": "rejected", "reasons": ["self_signed"], "machine": "web1", "version": 1,
    }  # fmt: skip
    record.update(fields)
    return json.dumps(record) + "\n"


def _sslcustomize(*args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    """Run the command in a fresh interpreter, wide enough that no command wraps."""
    return subprocess.run(
        [sys.executable, "-m", "sslcustomize", *args],
        capture_output=True, text=True, timeout=timeout, check=False,
        env={**os.environ, "COLUMNS": "1000", "NO_COLOR": "1"},
    )  # fmt: skip


class _Commands(html.parser.HTMLParser):
    """The text of every ``<code class="command">`` of a page."""

    def __init__(self) -> None:
        super().__init__()
        self.commands: list[str] = []
        self._in = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._in = tag == "code" and ("class", "command") in attrs
        if self._in:
            self.commands.append("")

    def handle_endtag(self, tag: str) -> None:
        self._in = False

    def handle_data(self, data: str) -> None:
        if self._in:
            self.commands[-1] += data


def _commands_in_text(text: str) -> list[str]:
    """The commands of the text output: each on a line of its own, indented, to paste."""
    return [line.strip() for line in text.splitlines() if line.startswith("  sslcustomize ")]


def test_forged_hosts_get_no_command_in_any_format_and_the_twin_gets_its_own(
    tmp_path: Path,
) -> None:
    """Shell words or options in a host: escaped, flagged, no command; the twin's splits right."""
    path = tmp_path / "fleet.jsonl"
    path.write_text(
        "".join(_line(host=host, port=443) for host in FORGED) + _line(), encoding="utf-8"
    )
    page = tmp_path / "report.html"
    done = _sslcustomize("report", "--json", "--path", str(path), "--html", str(page))
    assert done.returncode == 0, done.stderr
    document = json.loads(done.stdout)
    entries = {entry["where"]: entry for entry in document["would_break"]}
    for host in FORGED:
        assert entries[host]["suspicious"] is True
        assert [fix["commands"] for fix in entries[host]["fixes"]] == [[]]
    flagged = {group["host"]: group["suspicious"] for group in document["hosts"]}
    assert flagged == {**dict.fromkeys(FORGED, True), LEGIT: False}
    twin = entries[f"{LEGIT}:8443"]
    assert twin["suspicious"] is False
    commands = [c for fix in twin["fixes"] for c in fix["commands"]]
    assert [shlex.split(c) for c in commands] == [
        ["sslcustomize", "check", f"{LEGIT}:8443"],
        ["sslcustomize", "trust", f"{LEGIT}:8443"],
    ]
    # Text: the same commands only, and a marker on each forged server.
    text = _sslcustomize("report", "--path", str(path))
    assert text.returncode == 0, text.stderr
    assert text.stdout.count("suspicious: not a host name") == len(FORGED)
    printed = _commands_in_text(text.stdout)
    assert sorted(printed) == sorted(commands)
    # HTML: each command in its own element, the same ones.
    parser = _Commands()
    parser.feed(page.read_text(encoding="utf-8"))
    assert sorted(set(parser.commands)) == sorted(commands)
    assert page.read_text(encoding="utf-8").count("suspicious: not a host name") >= len(FORGED)
    for line in text.stdout.splitlines():  # nowhere, not even in a wrapped table cell
        assert "touch" not in line or "sslcustomize" not in line


def test_pasted_advice_does_what_it_says(
    pki: _pki.TestPKI, https_server: StartServer, tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    """The twin's check and trust, pasted, check the server and then make it verify."""
    _, port = https_server(pki["self_signed"], "127.0.0.1")
    path = tmp_path / "r.jsonl"
    path.write_text(_line(host="127.0.0.1", port=port), encoding="utf-8")
    policy = tmp_path / "process.toml"
    policy.write_text("version = 1\n", encoding="utf-8")
    monkeypatch.setenv("SSLCUSTOMIZE_POLICY", str(policy))
    assert main(["report", "--json", "--path", str(path)]) == 0
    (entry,) = json.loads(capsys.readouterr().out)["would_break"]
    check, trust = (shlex.split(c) for c in entry["fixes"][0]["commands"])
    assert main([*check[1:], "--json"]) == 1
    assert json.loads(capsys.readouterr().out)["reasons"] == ["self_signed"]
    assert main([*trust[1:], "--yes"]) == 0  # the person's confirmation, asked for by trust
    _state.set_policy(None)
    capsys.readouterr()
    assert main([*check[1:], "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["verdict"] == "verified"


def test_starttls_and_expired_exception_reach_the_advice_from_a_real_record(
    pki: _pki.TestPKI, smtp_server: StartServer, tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    """smtplib's STARTTLS under report mode: the record says smtp and the expired exception.

    report advises ``check --starttls smtp`` and the renewal of that exception; pasted, the
    check reaches the server's verdict (without ``--starttls`` it could not speak TLS first).
    """
    case = pki["self_signed"]
    _, port = smtp_server(case, "127.0.0.1", starttls=True)
    records = tmp_path / "r.jsonl"
    policy = tmp_path / "policy.toml"
    policy.write_text(
        f"version = 1\nmode = 'report'\n[report]\nsink = 'jsonl'\npath = '{records}'\n\n"
        f"[[exception]]\nhost = 'localhost'\npin = ['{_pki.spki_pin(case.leaf_pem)}']\n"
        "expires = 2020-01-01\nreason = 'appliance, OPS-1'\n",
        encoding="utf-8",
    )
    run_python(
        f"""
        import smtplib, warnings
        warnings.simplefilter("ignore")
        with smtplib.SMTP("localhost", {port}, timeout=10) as smtp:
            smtp.starttls()
            smtp.noop()
        """,
        env={"SSLCUSTOMIZE_POLICY": str(policy)},
    )
    (record,) = [json.loads(line) for line in records.read_text(encoding="utf-8").splitlines()]
    assert (record["starttls"], record["expired_layer"]) == ("smtp", "process")
    assert record["expired_origin"].startswith(f"{policy}:")
    assert main(["report", "--json", "--path", str(records)]) == 0
    (entry,) = json.loads(capsys.readouterr().out)["would_break"]
    commands = [shlex.split(c) for fix in entry["fixes"] for c in fix["commands"]]
    target = f"localhost:{port}"
    assert commands == [
        ["sslcustomize", "trust", "--days", "90", "--starttls", "smtp", target],
        ["sslcustomize", "check", "--starttls", "smtp", target],
        ["sslcustomize", "trust", "--starttls", "smtp", target],
    ]
    assert main([*commands[1][1:], "--json"]) == 1
    assert "self_signed" in json.loads(capsys.readouterr().out)["reasons"]
    # The renewal parses as the command it claims to be.
    renew = build_parser().parse_args(commands[0][1:])
    assert (renew.days, renew.starttls, renew.target, renew.scope) == (90, "smtp", target, None)


def test_an_expired_system_exception_is_renewed_with_scope_system(tmp_path: Path) -> None:
    """Root pasting the renewal of a system-file exception writes the system file."""
    path = tmp_path / "r.jsonl"
    path.write_text(
        _line(reasons=["expired"], expired_host=LEGIT, expired_layer="system",
              expired_origin="/etc/sslcustomize/policy.toml:12"),
        encoding="utf-8",
    )  # fmt: skip
    done = _sslcustomize("report", "--json", "--path", str(path))
    (entry,) = json.loads(done.stdout)["would_break"]
    renew = shlex.split(entry["fixes"][0]["commands"][0])
    assert renew[:2] == ["sslcustomize", "trust"]
    args = build_parser().parse_args(renew[1:])
    assert (args.scope, args.days, args.target) == ("system", 90, f"{LEGIT}:8443")


def _fleet(directory: Path, outside: Path) -> dict[str, list[str]]:
    """A fleet directory with good records beside every kind of bad one; the expected skips."""
    directory.mkdir()
    (directory / "web1").mkdir()
    (directory / "web1" / "r.jsonl").write_text(
        _line(host="good1.example")
        + _line(host="bad-port.example", port={})
        + _line(host="bad-reasons.example", reasons=5)
        + _line(host="text-uid.example", uid="1000")
        + _line(host="number-uid.example", uid=1000)
        + '{"torn": \n'
        + _line(host="good2.example"),
        encoding="utf-8",
    )
    with (directory / "web2.jsonl").open("w", encoding="utf-8") as file:
        file.write('{"x": "' + "a" * (50 << 20) + '"}\n')  # a 50 MB line
        file.write(_line(host="after-the-long-line.example"))
    # JSON nested past the decoder's depth (json raises RecursionError, not ValueError).
    (directory / "deep.jsonl").write_text(
        "[" * 100_000 + "\n" + _line(host="after-the-deep-line.example"), encoding="utf-8"
    )
    os.mkfifo(directory / "fifo.jsonl")
    (directory / "dangling.jsonl").symlink_to(directory / "nowhere")
    (directory / "passwd.jsonl").symlink_to("/etc/passwd")
    outside.mkdir()
    (outside / "o.jsonl").write_text(_line(host="outside.example"), encoding="utf-8")
    (directory / "out").symlink_to(outside)
    (directory / "fake.sqlite3").write_bytes(b"SQLite format 3\x00" + b"\x00" * 100)
    with sqlite3.connect(directory / "db1.sqlite3") as connection:
        connection.execute("CREATE TABLE records (id INTEGER PRIMARY KEY, record TEXT)")
        connection.execute("INSERT INTO records (record) VALUES (?)", (_line(host="db.example"),))
        connection.execute("INSERT INTO records (record) VALUES (?)", ("[" * 100_000,))
    connection.close()
    return {
        "web1/r.jsonl": [
            "port is not an integer 1-65535",
            "reasons is not a list",
            "uid is not a non-negative integer",
            "line is not JSON (a torn write?)",
        ],
        "web2.jsonl": [f"line longer than {256 << 10} bytes"],
        "deep.jsonl": ["line is not JSON (a torn write?)"],
        "db1.sqlite3": ["database row is not JSON"],
        "fifo.jsonl": ["not a regular file (a FIFO)"],
        "dangling.jsonl": ["a symbolic link (not followed)"],
        "passwd.jsonl": ["a symbolic link (not followed)"],
        "out": ["a symbolic link (not followed)"],
        "fake.sqlite3": ["not a report database (file is not a database)"],
    }


def test_bad_records_and_files_never_hide_the_fleet(tmp_path: Path) -> None:
    """Every good record is shown; each bad one, FIFO, link and fake database counted."""
    fleet = tmp_path / "fleet"
    expected = _fleet(fleet, tmp_path / "outside")
    page = tmp_path / "report.html"
    done = _sslcustomize("report", "--json", "--path", str(fleet), "--html", str(page))
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    document = json.loads(done.stdout)
    hosts = sorted(entry["host"] for entry in document["hosts"])
    assert hosts == [
        "after-the-deep-line.example", "after-the-long-line.example", "db.example",
        "good1.example", "good2.example", "number-uid.example",
    ]  # fmt: skip
    skipped = {
        (str(Path(item["source"]).relative_to(fleet)), item["reason"]): item["count"]
        for item in document["skipped"]
    }
    assert skipped == {(f, r): 1 for f, reasons in expected.items() for r in reasons}
    assert document["skipped_total"] == len(skipped)
    # Each record says where it came from; a uid a file's line claims is not shown as a user.
    sources = {e["where"]: e["sources"] for e in document["would_break"]}
    assert sources["db.example:8443"] == [str(fleet / "db1.sqlite3")]
    assert all(not entry["uids"] for entry in document["would_break"])
    # The same skips in the text output and on the page, by file and reason.
    text = _sslcustomize("report", "--path", str(fleet))
    assert text.returncode == 0, text.stderr
    page_text = page.read_text(encoding="utf-8")
    for (name, reason), count in skipped.items():
        assert f"skipped {count} in {fleet / name}: {reason}" in text.stdout
        assert f"<td>{fleet / name}</td><td>{reason}</td><td>{count}</td>" in page_text
    assert "outside.example" not in done.stdout + text.stdout + page_text


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--since", "yesterday"], "--since yesterday: not a date"),
        (["--since", "2026-13-45"], "--since 2026-13-45: not a date"),
    ],
)
def test_bad_since_is_one_line_and_exit_2(tmp_path: Path, args: list[str], message: str) -> None:
    """A --since that is not a date fails in one line with exit 2 (it was accepted, ignored)."""
    path = tmp_path / "r.jsonl"
    path.write_text(_line(), encoding="utf-8")
    done = _sslcustomize("report", "--path", str(path), *args)
    assert done.returncode == 2
    assert done.stderr.splitlines() == [done.stderr.strip()]
    assert message in done.stderr


def test_since_takes_dates_and_times_compared_as_times(tmp_path: Path) -> None:
    """The twin: a date or an ISO time filters by the records' times, offsets included."""
    path = tmp_path / "r.jsonl"
    path.write_text(
        _line(host="early.example", time="2026-12-01T23:30:00-02:00")  # 12-02 01:30 UTC
        + _line(host="late.example", time="2026-12-02T10:00:00+00:00"),
        encoding="utf-8",
    )
    for since, hosts in (
        ("2026-12-02", ["early.example", "late.example"]),
        ("2026-12-02T05:00:00Z", ["late.example"]),
    ):
        done = _sslcustomize("report", "--json", "--path", str(path), "--since", since)
        assert done.returncode == 0, done.stderr
        assert sorted(h["host"] for h in json.loads(done.stdout)["hosts"]) == hosts


def test_a_file_that_is_not_a_record_file_is_named_as_such(tmp_path: Path) -> None:
    """report --path policy.toml: "not a report file", exit 2; a FIFO named: no hang, exit 2."""
    policy = tmp_path / "policy.toml"
    policy.write_text("version = 1\nmode = 'report'\n[report]\nsink = 'jsonl'\n", "utf-8")
    done = _sslcustomize("report", "--path", str(policy))
    assert done.returncode == 2
    assert "not a report file" in done.stderr
    assert "torn" not in done.stderr
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    done = _sslcustomize("report", "--path", str(fifo), timeout=30)
    assert (done.returncode, "not a regular file" in done.stderr) == (2, True)
    # The twin: a record file with one torn line among records is read, the line counted.
    records = tmp_path / "r.jsonl"
    records.write_text(_line() + "{torn\n", encoding="utf-8")
    done = _sslcustomize("report", "--json", "--path", str(records))
    assert (done.returncode, json.loads(done.stdout)["records"]) == (0, 1)
