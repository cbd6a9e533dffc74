"""report's reader: records are hostile input, validated field by field, bounded, labelled."""

from __future__ import annotations

import io
import json
import os
import shlex
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from sslcustomize._diagnosis import _reading
from sslcustomize._diagnosis._advice import NO_COMMAND, fix_for, safe_target
from sslcustomize._diagnosis._reading import Reading, is_host_name, read_path, validate

FORGED_HOSTS = (
    "nas.corp.example;touch${IFS}/tmp/x;#",
    "host --yes --scope system",
    "-rf",
    "--yes",
    "a.example$(id)",
    "a.example`id`",
    "a.example\nb.example",
    "'a.example'",
    "a..example",
    "a.example:443",
    "[::1]",
    "::1%eth0;id",
    "1.2.3.4 5.6.7.8",
    "*.corp.example",
    "",
    "a" * 64 + ".example",
)
HOST_NAMES = (
    "nas.corp.example",
    "localhost",
    "xn--bcher-kva.example",
    "127.0.0.1",
    "::1",
    "2001:db8::1",
    "fe80::1%eth0",
    "nas.corp.example.",
)


def good(**changes: Any) -> dict[str, Any]:
    """A record as the sinks write it, with ``changes``."""
    record: dict[str, Any] = {
        "time": "2026-12-01T10:00:00+00:00", "pid": 7, "program": "backup.py",
        "context": "http.client", "host": "nas.corp.example", "port": 8443, "mode": "report",
        "verdict": "rejected", "reasons": ["self_signed"], "machine": "web1", "version": 1,
    }  # fmt: skip
    record.update(changes)
    return record


@pytest.mark.parametrize("host", FORGED_HOSTS)
def test_forged_hosts_are_not_host_names_and_get_no_command(host: str) -> None:
    """A host with shell words, options or spaces is no host name: its fix has no command."""
    assert not is_host_name(host)
    fix = fix_for("self_signed", good(host=host))
    assert fix.commands == []
    assert fix.text == NO_COMMAND


@pytest.mark.parametrize("host", HOST_NAMES)
def test_host_names_get_commands_that_split_into_exactly_their_words(host: str) -> None:
    """The twin: a DNS name or address gets check and trust, each splitting into its argv."""
    assert is_host_name(host)
    fix = fix_for("self_signed", good(host=host, port=8443))
    target = f"[{host}]:8443" if ":" in host else f"{host}:8443"
    assert [shlex.split(c) for c in fix.commands] == [
        ["sslcustomize", "check", target],
        ["sslcustomize", "trust", target],
    ]
    for command in fix.commands:
        assert command in fix.text


@pytest.mark.parametrize("port", [0, 65536, -1, "443", 443.0, True, None])
def test_port_outside_1_65535_gets_no_command(port: object) -> None:
    """Only an integer port 1-65535 (or none, 443) goes into a command."""
    assert safe_target("nas.example", port) is (port is None)


def test_starttls_and_a_system_exception_shape_the_commands() -> None:
    """A STARTTLS server gets --starttls; an expired system exception --scope system."""
    record = good(
        host="mail.example", port=2525, reasons=["expired"], starttls="smtp",
        expired_host="mail.example:2525", expired_origin="/etc/sslcustomize/policy.toml:9",
        expired_layer="system",
    )  # fmt: skip
    fix = fix_for("expired", record)
    assert [shlex.split(c) for c in fix.commands] == [
        ["sslcustomize", "trust", "--days", "90", "--scope", "system", "--starttls", "smtp",
         "mail.example:2525"],
        ["sslcustomize", "check", "--starttls", "smtp", "mail.example:2525"],
    ]  # fmt: skip
    assert "/etc/sslcustomize/policy.toml:9" in fix.text
    assert "renew it with" in fix.text
    assert "(it keeps its reason)" in fix.text
    # An exception without a port (or a wildcard) names more than what trust would write:
    # the advice does not claim that trust renews it.
    wider = fix_for("expired", {**record, "expired_host": "*.example"})
    assert wider.commands == fix.commands
    assert "names more than this server" in wider.text
    assert "keeps its reason" not in wider.text
    # The twin: an exception of the process layer (the file a variable names) takes no scope.
    fix = fix_for("expired", {**record, "expired_layer": "process"})
    assert "--scope" not in fix.commands[0]


@pytest.mark.parametrize(
    ("changes", "why"),
    [
        ({"port": {}}, "port"),
        ({"port": 0}, "port"),
        ({"port": "443"}, "port"),
        ({"reasons": 5}, "reasons"),
        ({"reasons": ["self_signed", "rm -rf"]}, "reasons"),
        ({"reasons": [["expired"]]}, "reasons"),
        ({"uid": "1000"}, "uid"),
        ({"uid": -1}, "uid"),
        ({"pid": True}, "pid"),
        ({"time": "yesterday"}, "time"),
        ({"time": 5}, "time"),
        ({"verdict": "fine"}, "verdict"),
        ({"host": {"a": 1}}, "host"),
        ({"host": "a" * 10_000}, "host"),
        ({"program": ["x"]}, "program"),
        ({"machine": "m" * 10_000}, "machine"),
        ({"chain_sha256": "ab"}, "chain_sha256"),
        ({"intermediates": ["x"] * 1000}, "intermediates"),
        ({"starttls": "gopher"}, "starttls"),
        ({"expired_layer": "root"}, "expired_layer"),
        # Unhashable or out of range in UTC: once a crash of report (TypeError, OverflowError).
        ({"verdict": ["rejected"]}, "verdict"),
        ({"starttls": {"smtp": 1}}, "starttls"),
        ({"expired_layer": ["system"]}, "expired_layer"),
        ({"time": "0001-01-01T00:00:00+01:00"}, "time"),
        ({"time": "9999-12-31T23:00:00-01:00"}, "time"),
    ],
)
def test_each_bad_field_refuses_the_record_and_says_which(
    changes: dict[str, Any], why: str
) -> None:
    """Types and ranges are checked field by field; the reason names the field."""
    record, reason = validate(good(**changes))
    assert record is None
    assert reason.startswith(why)


def test_a_good_record_passes_and_unknown_fields_are_dropped() -> None:
    """The twin: the sinks' record is kept whole; a field no sink writes is not."""
    record, reason = validate(good(extra="<script>", uid=1000))
    assert (reason, record is not None) == ("", True)
    assert record is not None
    assert "extra" not in record
    assert (record["host"], record["port"], record["uid"]) == ("nas.corp.example", 8443, 1000)
    assert validate(["not", "a", "dict"]) == (None, "not a JSON object")


def test_a_long_line_is_passed_over_without_being_held(monkeypatch: pytest.MonkeyPatch) -> None:
    """A line longer than MAX_LINE is one None; the lines around it are read."""
    monkeypatch.setattr(_reading, "MAX_LINE", 100)
    monkeypatch.setattr(_reading, "_CHUNK", 7)
    data = b"first\n" + b"x" * 1000 + b"\nlast\n"
    assert list(_reading.read_lines(io.BytesIO(data))) == [b"first\n", None, b"last\n"]
    # The whole file's budget bounds the read too.
    assert list(_reading.read_lines(io.BytesIO(b"a\nb\nc\n"), limit=4)) == [b"a\n", b"b\n"]


def test_a_uid_a_line_claims_is_dropped_a_spool_owner_is_kept(tmp_path: Path) -> None:
    """Users shown come from fstat (a spool's owner) or the journal, never a file's claim."""
    path = tmp_path / "fleet.jsonl"
    path.write_text(json.dumps(good(uid=0)) + "\n", encoding="utf-8")
    reading = Reading()
    read_path(str(path), reading)
    assert [("uid" in r, r["source"]) for r in reading.records] == [(False, str(path))]


@pytest.mark.skipif(os.geteuid() != 0, reason="chown needs root")
def test_a_users_spool_is_labelled_with_its_owner_and_another_owner_refused(
    tmp_path: Path,
) -> None:
    """A spool part owned by its uid: records say that uid; a part of another uid is skipped."""
    spool = tmp_path / "journal-spool.jsonl"
    spool.write_text(json.dumps(good(uid=0, machine="claims-root")) + "\n", encoding="utf-8")
    os.chown(spool, 4242, 4242)
    reading = Reading()
    _reading.read_spool_of(str(spool), 4242, reading)
    (record,) = reading.records
    assert (record["uid"], record["source"]) == (4242, f"spool of uid 4242: {spool}")
    reading = Reading()
    _reading.read_spool_of(str(spool), 4343, reading)
    assert reading.records == []
    assert reading.skipped == {(f"spool of uid 4343: {spool}", "not a file of uid 4343"): 1}


def test_a_fake_database_is_skipped_and_a_real_one_read(tmp_path: Path) -> None:
    """SQLite's header on a file that is not a report database: counted, not raised."""
    fake = tmp_path / "fake.sqlite3"
    fake.write_bytes(b"SQLite format 3\x00" + b"\x01" * 200)
    other = tmp_path / "other.sqlite3"
    with sqlite3.connect(other) as connection:
        connection.execute("CREATE TABLE t (x)")
    connection.close()
    real = tmp_path / "real.sqlite3"
    with sqlite3.connect(real) as connection:
        connection.execute("CREATE TABLE records (id INTEGER PRIMARY KEY, record TEXT)")
        for row in (json.dumps(good()), json.dumps(good(port={})), "not json"):
            connection.execute("INSERT INTO records (record) VALUES (?)", (row,))
    connection.close()
    reading = Reading()
    read_path(str(tmp_path), reading)
    assert [r["source"] for r in reading.records] == [str(real)]
    reasons = {(Path(f).name, r.split(" (")[0]) for (f, r) in reading.skipped}
    assert reasons == {
        ("fake.sqlite3", "not a report database"),
        ("other.sqlite3", "not a report database"),
        ("real.sqlite3", "port is not an integer 1-65535"),
        ("real.sqlite3", "database row is not JSON"),
    }


def test_a_live_database_is_read_with_its_write_ahead_log(tmp_path: Path) -> None:
    """Records still in the -wal (a writer holds it open) are read from the private copy."""
    path = tmp_path / "live.sqlite3"
    writer = sqlite3.connect(path)
    try:
        writer.execute("PRAGMA journal_mode=WAL")
        writer.execute("PRAGMA wal_autocheckpoint=0")
        writer.execute("CREATE TABLE records (id INTEGER PRIMARY KEY, record TEXT)")
        writer.execute("INSERT INTO records (record) VALUES (?)", (json.dumps(good()),))
        writer.commit()
        assert (tmp_path / "live.sqlite3-wal").stat().st_size > 0
        reading = Reading()
        read_path(str(path), reading)
        assert [r["host"] for r in reading.records] == ["nas.corp.example"]
    finally:
        writer.close()


def test_a_fifo_as_the_write_ahead_log_is_skipped_not_waited_on(tmp_path: Path) -> None:
    """A FIFO at DB-wal: counted, the database itself still read (SQLite never opens it)."""
    path = tmp_path / "r.sqlite3"
    with sqlite3.connect(path) as connection:
        connection.execute("CREATE TABLE records (id INTEGER PRIMARY KEY, record TEXT)")
        connection.execute("INSERT INTO records (record) VALUES (?)", (json.dumps(good()),))
    connection.close()
    os.mkfifo(f"{path}-wal")
    reading = Reading()
    read_path(str(path), reading)
    assert len(reading.records) == 1
    assert reading.skipped == {(f"{path}-wal", "not a regular file"): 1}


def test_a_fleet_directory_reads_a_live_database_once(tmp_path: Path) -> None:
    """Its -wal and -shm beside it are part of it: not read as files, not counted as skipped."""
    path = tmp_path / "reports.sqlite3"
    writer = sqlite3.connect(path)
    try:
        writer.execute("PRAGMA journal_mode=WAL")
        writer.execute("CREATE TABLE records (id INTEGER PRIMARY KEY, record TEXT)")
        writer.execute("INSERT INTO records (record) VALUES (?)", (json.dumps(good()),))
        writer.commit()
        reading = Reading()
        read_path(str(tmp_path), reading)
        assert (len(reading.records), reading.skipped) == (1, {})
    finally:
        writer.close()


def test_bounds_of_a_file_a_database_and_a_tree(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Over MAX_FILE_BYTES: the rest unread (counted), a database skipped; too deep: skipped."""
    monkeypatch.setattr(_reading, "MAX_FILE_BYTES", 2000)
    monkeypatch.setattr(_reading, "MAX_DEPTH", 1)
    long = tmp_path / "long.jsonl"
    long.write_text(json.dumps(good()) + "\n" + "\n" * 3000, encoding="utf-8")
    database = tmp_path / "big.sqlite3"
    with sqlite3.connect(database) as connection:
        connection.execute("CREATE TABLE records (id INTEGER PRIMARY KEY, record TEXT)")
        connection.execute("INSERT INTO records (record) VALUES (?)", ("x" * 5000,))
    connection.close()
    deep = tmp_path / "a" / "b"
    deep.mkdir(parents=True)
    (deep / "r.jsonl").write_text(json.dumps(good()) + "\n", encoding="utf-8")
    reading = Reading()
    read_path(str(tmp_path), reading)
    assert len(reading.records) == 1
    assert reading.skipped == {
        (str(long), "file longer than 2000 bytes (the rest not read)"): 1,
        (str(database), "database larger than 2000 bytes"): 1,
        (str(deep), "deeper than 1 directories"): 1,
    }


@pytest.mark.skipif(os.geteuid() != 0, reason="mknod needs root")
def test_a_device_in_the_tree_is_never_opened(tmp_path: Path) -> None:
    """A character device (a /dev/zero under another name): skipped by lstat, never read."""
    os.mknod(tmp_path / "zero.jsonl", 0o600 | 0o020000, os.makedev(1, 5))
    reading = Reading()
    read_path(str(tmp_path), reading)
    assert reading.skipped == {
        (str(tmp_path / "zero.jsonl"), "not a regular file (a character device)"): 1
    }


def test_a_journal_export_keeps_its_records_and_ignores_other_programs(tmp_path: Path) -> None:
    """journalctl -o json: sslcustomize's entries, validated, with their trusted _UID."""
    entries = [
        {"__CURSOR": "a", "SYSLOG_IDENTIFIER": "sshd", "MESSAGE": "not ours"},
        {"__CURSOR": "b", "SYSLOG_IDENTIFIER": "sslcustomize", "_UID": "1000",
         "SSLCUSTOMIZE_TIME": "2026-12-01T10:00:00+00:00", "SSLCUSTOMIZE_VERDICT": "rejected",
         "SSLCUSTOMIZE_HOST": "nas.example", "SSLCUSTOMIZE_PORT": "8443",
         "SSLCUSTOMIZE_REASONS": "self_signed"},
        {"__CURSOR": "c", "SYSLOG_IDENTIFIER": "sslcustomize", "_UID": "1000",
         "SSLCUSTOMIZE_TIME": "2026-12-01T10:00:00+00:00", "SSLCUSTOMIZE_VERDICT": "rejected",
         "SSLCUSTOMIZE_PORT": "http"},
    ]  # fmt: skip
    data = "\n".join(json.dumps(e) for e in entries).encode() + b"\n"
    reading = Reading()
    _reading.read_journal_output(data, reading)
    assert [(r["host"], r["port"], r["uid"]) for r in reading.records] == [
        ("nas.example", 8443, 1000)
    ]
    assert reading.skipped == {(_reading.JOURNAL, "port is not an integer 1-65535"): 1}


def test_a_sink_file_is_read_with_its_spool_from_each_parts_offset(tmp_path: Path) -> None:
    """The records a sink could not take yet (its spool) are read too, each once."""
    path = tmp_path / "r.jsonl"
    path.write_text(json.dumps(good(host="in-the-file.example")) + "\n", encoding="utf-8")
    first = json.dumps(good(host="written-already.example")) + "\n"
    part = tmp_path / f"r.jsonl.spool.{1:020d}-{len(first)}.rest"
    part.write_text(first + json.dumps(good(host="waiting.example")) + "\n", encoding="utf-8")
    reading = Reading()
    read_path(str(path), reading)
    assert [r["host"] for r in reading.records] == ["in-the-file.example", "waiting.example"]


def test_a_journal_field_of_bytes_out_of_range_is_no_crash() -> None:
    """journalctl prints binary fields as lists of numbers: one above 255 is read, not raised."""
    entries = [
        {"__CURSOR": "a", "SYSLOG_IDENTIFIER": [115, 115, 108], "SSLCUSTOMIZE_VERDICT": "x"},
        {"__CURSOR": "b", "SYSLOG_IDENTIFIER": "sslcustomize", "_UID": "7",
         "SSLCUSTOMIZE_TIME": "2026-12-01T10:00:00+00:00", "SSLCUSTOMIZE_VERDICT": "rejected",
         "SSLCUSTOMIZE_HOST": [110, 97, 115, 1000, 256, -1], "SSLCUSTOMIZE_PORT": "443"},
    ]  # fmt: skip
    reading = Reading()
    _reading.read_journal_output(b"\n".join(json.dumps(e).encode() for e in entries), reading)
    assert [(r["host"], r["uid"]) for r in reading.records] == [("nas", 7)]


def test_a_valid_time_in_any_iso_form_is_kept_the_sinks_form_too() -> None:
    """The twin of the time checks: a date, Z, an offset, spaces around, and the sinks' form."""
    for time in ("2026-12-01", "2026-12-01T10:00:00Z", "2026-12-01T11:00:00+01:00",
                 "   2026-12-01T10:00+00:00", "2026-12-01T10:00:00+00:00"):  # fmt: skip
        record, reason = validate(good(time=time))
        assert (reason, record is not None) == ("", True), time


def test_json_nested_past_the_decoders_depth_is_skipped_not_a_crash(tmp_path: Path) -> None:
    """A line of 100,000 ``[`` (json raises RecursionError, not ValueError): counted, not fatal.

    The twin: the good records around it are kept.
    """
    path = tmp_path / "reports.jsonl"
    line = json.dumps(good()).encode()
    path.write_bytes(line + b"\n" + b"[" * 100_000 + b"\n" + b'{"a":' * 50_000 + b"\n" + line)
    reading = Reading()
    read_path(str(path), reading)
    assert len(reading.records) == 2
    assert reading.skipped == {(str(path), "line is not JSON (a torn write?)"): 2}


@pytest.mark.parametrize(
    "text",
    [
        b"{}",
        b"{}\n",
        b"  {} \t\r\n",
        b"{} x\n",
        b'{"a": 1}{"b": 2}\n',
        b"\x0b{}\n",
        b"{}\x0c\n",
        b"\xef\xbb\xbf{}\n",
        b"\xff{}\n",
        b'{"a": "\xff"}\n',
        b'{"a": NaN}\n',
        b"[1, 2]\n",
        b'"text"\n',
        b"1e400\n",
        b"\n",
        b" \t\r\n",
        b"\xc2\x85\n",
    ],
)
def test_a_line_is_json_exactly_when_json_loads_says_so(text: bytes) -> None:
    """The reader's fast decoding takes a line exactly when ``json.loads`` of its text does."""
    decoded = text.decode("utf-8", "replace")
    try:
        expected: Any = json.loads(decoded)
    except ValueError:
        expected = _reading._BLANK if not text.strip() else _reading._NOT_JSON
    assert _reading._json_line(text) == expected or (
        expected is _reading._NOT_JSON and _reading._json_line(text) is _reading._NOT_JSON
    )


def test_a_record_keeps_only_known_fields_and_says_the_first_wrong_one() -> None:
    """Several wrong fields: the first in the order checked is named, as before the split."""
    record, reason = validate(good(port=0, pid=-1, program=5, starttls="gopher"))
    assert (record, reason) == (None, "port is not an integer 1-65535")
    record, reason = validate(good(pid=-1, program=5, starttls="gopher"))
    assert (record, reason) == (None, "pid is not a non-negative integer")
    record, reason = validate(good(program=5, chain_sha256=5, starttls="gopher"))
    assert (record, reason) == (None, "program is not a text (or too long)")
    record, reason = validate(good(reasons=["expired", "expired", "self_signed"]))
    assert record is not None
    assert record["reasons"] == ["expired", "self_signed"]
    assert set(record) == {*good(), "chain_sha256", "intermediates", "starttls", "expired_layer"}


def _lines_one_by_one(data: bytes, limit: int | None) -> list[str | None]:
    """What :func:`read_lines` gives, each line decoded without its newline."""
    return [
        None if line is None else line.decode("utf-8", "replace").removesuffix("\n")
        for line in _reading.read_lines(io.BytesIO(data), limit)
    ]


def _lines_in_blocks(data: bytes, limit: int | None) -> list[str | None]:
    """What :func:`_line_blocks` gives, its blocks flattened."""
    return [line for block in _reading._line_blocks(io.BytesIO(data), limit) for line in block]


@pytest.mark.parametrize("block", [1, 2, 3, 5, 8, 13])
def test_lines_read_in_blocks_are_the_lines_read_one_by_one(
    monkeypatch: pytest.MonkeyPatch, block: int
) -> None:
    """Blocks cut anywhere (inside a line, a UTF-8 sequence, a long line) change no line.

    Random files of short and long lines, broken UTF-8, no final newline, a file bound that
    cuts a line: the same lines, the same long ones refused, as read one by one.
    """
    import random

    monkeypatch.setattr(_reading, "MAX_LINE", 12)
    monkeypatch.setattr(_reading, "_CHUNK", 3)
    monkeypatch.setattr(_reading, "_BLOCK", block)
    rng = random.Random(block)
    pieces = (b"{}", b"\n", b"\xc3\xa9", b"\xe2\x82", b"\xff", b"x" * 11, b"y" * 12, b" ", b"\r")
    for _ in range(300):
        data = b"".join(rng.choice(pieces) for _ in range(rng.randrange(12)))
        for limit in (None, rng.randrange(1, 40)):
            assert _lines_in_blocks(data, limit) == _lines_one_by_one(data, limit), (data, limit)


def test_a_line_in_blocks_longer_than_max_line_is_one_none(monkeypatch: pytest.MonkeyPatch) -> None:
    """A line of MAX_LINE bytes with its newline is read; one byte more is refused, once."""
    monkeypatch.setattr(_reading, "MAX_LINE", 10)
    monkeypatch.setattr(_reading, "_BLOCK", 4)
    data = b"a" * 9 + b"\n" + b"b" * 10 + b"\n" + b"c" * 25 + b"\nlast"
    assert _lines_in_blocks(data, None) == ["a" * 9, None, None, "last"]
    # The twin: the longest line allowed, with no newline at the end of the file.
    assert _lines_in_blocks(b"d" * 10, None) == ["d" * 10]
    assert _lines_in_blocks(b"d" * 11, None) == [None]


def test_two_records_on_one_line_are_one_line_that_is_not_json(tmp_path: Path) -> None:
    """No record spans or splits lines: two objects on a line, or one over two, are skipped.

    The twin: the records on lines of their own around them are kept.
    """
    path = tmp_path / "reports.jsonl"
    line = json.dumps(good())
    half = len(line) // 2
    path.write_text(
        f"{line}\n{line}{line}\n{line[:half]}\n{line[half:]}\n{line} {line}\n{line}\n",
        encoding="utf-8",
    )
    reading = Reading()
    read_path(str(path), reading)
    assert len(reading.records) == 2
    assert reading.skipped == {(str(path), "line is not JSON (a torn write?)"): 4}


@pytest.mark.parametrize(
    ("shared", "twin"),
    [
        ({"port": 8443.0}, {"port": 8443}),
        ({"port": True}, {"port": 1}),
        ({"version": True}, {"version": 1}),
        ({"version": 1.0}, {"version": 1}),
        ({"program": ["backup.py"]}, {"program": "backup.py"}),
        ({"reasons": "self_signed"}, {"reasons": ["self_signed"]}),
        ({"intermediates": "CN=x"}, {"intermediates": ["CN=x"]}),
    ],
)
def test_a_key_is_made_only_of_values_no_other_type_equals(
    shared: dict[str, Any], twin: dict[str, Any]
) -> None:
    """A value equal to a valid one but of another JSON type makes no key, or no hashable one."""
    assert _reading.shared_key(good(**{"intermediates": [], **twin})) is not None
    key = _reading.shared_key(good(**{"intermediates": [], **shared}))
    if key is not None:
        with pytest.raises(TypeError):
            hash(key)


def _journal_reference(entry: dict[str, Any]) -> dict[str, Any] | None:
    """Every SSLCUSTOMIZE_ field read one by one, as the reader did before its fast path."""
    if entry.get("SYSLOG_IDENTIFIER") != "sslcustomize":
        return None
    record = {
        key[len("SSLCUSTOMIZE_") :].lower(): _reading._journal_field(
            key[len("SSLCUSTOMIZE_") :].lower(), value
        )
        for key, value in entry.items()
        if key.startswith("SSLCUSTOMIZE_")
    }
    if "verdict" not in record:
        return None
    return record


def test_journal_entries_read_as_every_field_one_by_one() -> None:
    """The journal's fast path gives what validate reads of reading every field one by one.

    Odd field names (lower case, a dotless i that upper-cases to I), numbers that int()
    reads or not (``+443``, Arabic-Indic digits, a superscript two), repeated fields, bytes
    as numbers, unknown fields.
    """
    import random

    rng = random.Random(36)
    kept = 0
    names = ["VERDICT", "HOST", "PORT", "PID", "REASONS", "PROGRAM", "Host", "host", "P\u0131D",
             "FOO", "CHAIN_SHA256", "VERSION", "MACHINE", "UID"]  # fmt: skip
    values: list[Any] = ["rejected", "443", "+443", "\u0664\u0664\u0663", "\u00b2", "", "a",
                         ["x", "y"], list(b"CN=a\nb"), [300, 1], "self_signed"]  # fmt: skip
    for _ in range(2000):
        entry: dict[str, Any] = {"SYSLOG_IDENTIFIER": "sslcustomize", "_UID": "7",
                                 "SSLCUSTOMIZE_TIME": "2026-12-01T10:00:00+00:00"}  # fmt: skip
        for _ in range(rng.randrange(6)):
            entry["SSLCUSTOMIZE_" + rng.choice(names)] = rng.choice(values)
        if rng.random() < 0.8:
            entry["SSLCUSTOMIZE_VERDICT"] = "rejected"
        expected = _journal_reference(entry)
        got = _reading.record_from_journal(entry)
        if expected is None:
            assert got is None
            continue
        assert got is not None
        expected.update(uid=7)
        assert validate(got) == validate(expected), entry
        kept += validate(got)[0] is not None
    assert kept > 500  # the measure can fail: most entries are records
