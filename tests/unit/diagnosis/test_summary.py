"""report's summary: one pass over a stream, state bounded by servers, relabelling as before."""

from __future__ import annotations

import gc
import io
import json
import random
import sys
from collections.abc import Iterator
from typing import Any

import pytest

from sslcustomize._diagnosis import _reading
from sslcustomize._diagnosis._reading import Reading, read_journal_stream
from sslcustomize._diagnosis._summary import Summary

CA = "CN=Corp Issuing CA,O=Corp"


def _record(index: int, *, servers: int, **changes: Any) -> dict[str, Any]:
    """A record as the jsonl sink writes it, for server ``index % servers``."""
    record: dict[str, Any] = {
        "time": f"2026-12-{1 + index % 28:02d}T10:00:{index % 60:02d}+00:00",
        "pid": index, "program": f"/opt/app{index % 5}/run.py", "context": "http.client",
        "host": f"srv{index % servers}.corp.example", "port": 443, "mode": "report",
        "verdict": "opt_out" if index % 7 == 0 else "rejected",
        "reasons": ["code_opt_out"] if index % 7 == 0 else ["self_signed"],
        "machine": f"m{index % 3}", "rule": "default", "version": 1,
        "chain_sha256": [f"{index:064x}"], "intermediates": [],
    }  # fmt: skip
    record.update(changes)
    return record


def _journal_line(record: dict[str, Any]) -> bytes:
    """The record as ``journalctl -o json`` prints it (a repeated field is a list)."""
    entry: dict[str, Any] = {"__CURSOR": "s=1", "SYSLOG_IDENTIFIER": "sslcustomize", "_UID": "0"}
    for name, value in record.items():
        if value == []:
            continue  # journald has no empty field: the reader makes it an empty list
        if isinstance(value, list) and len(value) == 1:
            entry["SSLCUSTOMIZE_" + name.upper()] = str(value[0])
        else:
            entry["SSLCUSTOMIZE_" + name.upper()] = value if isinstance(value, list) else str(value)
    return json.dumps(entry).encode() + b"\n"


class _Stream(io.RawIOBase):
    """A pipe's worth of ``journalctl -o json`` made as it is read: never held whole."""

    def __init__(self, lines: Iterator[bytes]) -> None:
        self._lines = lines
        self._rest = b""

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        while not self._rest:
            line = next(self._lines, None)
            if line is None:
                return 0
            self._rest = line
        size = min(len(buffer), len(self._rest))
        buffer[:size] = self._rest[:size]
        self._rest = self._rest[size:]
        return size


def _objects_after(count: int, *, servers: int) -> tuple[int, Summary, Reading]:
    """Stream ``count`` journal records through a Summary; the objects gc tracks after."""
    summary = Summary()
    reading = Reading(summary.add)
    lines = (_journal_line(_record(i, servers=servers)) for i in range(count))
    with io.BufferedReader(_Stream(lines)) as stream:
        read_journal_stream(stream, reading)
    gc.collect()
    return len(gc.get_objects()), summary, reading


def test_a_long_stream_keeps_state_of_its_servers_not_of_its_records() -> None:
    """10,000 records of 50 servers keep what 1,000 do: no record is held."""
    few = _objects_after(1_000, servers=50)[0]
    many, summary, reading = _objects_after(10_000, servers=50)
    assert (summary.count, reading.kept, reading.records) == (10_000, 10_000, [])
    # Ten times the records: the same servers, programs and machines, so the same state
    # (a few objects of slack for what the interpreter itself allocates meanwhile).
    assert many - few < 200
    assert summary.analysis()["summary"]["servers"] == 50


def test_the_twin_more_servers_is_more_state() -> None:
    """The measure can fail: 20,000 records of 20,000 servers keep state per server."""
    few = _objects_after(2_000, servers=50)[0]
    many, summary, _ = _objects_after(20_000, servers=20_000)
    assert many - few > 20_000
    assert len(summary.hosts()) == 20_000


def test_an_intermediate_seen_later_relabels_an_earlier_unknown_issuer() -> None:
    """One pass, as if every record were relabelled first: a later sighting still counts."""
    summary = Summary()
    summary.add(
        _record(1, servers=9, host="lacks.example", reasons=["unknown_issuer"], top_issuer=CA)
    )
    summary.add(
        _record(2, servers=9, host="other.example", reasons=["unknown_issuer"], top_issuer="CN=x")
    )
    summary.add(_record(3, servers=9, host="sends.example", reasons=["hostname_mismatch"],
                        intermediates=[CA]))  # fmt: skip
    hosts = {group["host"]: group for group in summary.hosts()}
    assert hosts["lacks.example"]["reasons"] == ["incomplete_chain"]
    assert hosts["lacks.example"]["missing_intermediates"] == [CA]
    # The twin: an issuer nobody was seen with stays an unknown issuer.
    assert hosts["other.example"]["reasons"] == ["unknown_issuer"]
    assert hosts["other.example"]["missing_intermediates"] == []
    fixes = {e["where"]: e["fixes"] for e in summary.analysis()["would_break"]}
    (fix,) = fixes["lacks.example"]
    assert fix["reason"] == "incomplete_chain"
    assert f"it does not send the intermediate '{CA}'" in fix["fix"]
    assert "sends.example" in fix["fix"]
    assert [f["reason"] for f in fixes["other.example"]] == ["unknown_issuer"]
    assert summary.by_day()["2026-12-02", "incomplete_chain"] == 1


def test_since_leaves_records_out_but_not_their_sightings() -> None:
    """A sighting before --since still tells an incomplete chain after it; times as times."""
    since = Summary(since=_time("2026-12-03T00:00:00.500000+00:00"))
    since.add(_record(1, servers=9, host="sends.example", intermediates=[CA]))
    since.add(
        _record(2, servers=9, host="lacks.example", reasons=["unknown_issuer"], top_issuer=CA)
    )
    since.add(_record(3, servers=9, host="exact.example", time="2026-12-03T00:00:00+00:00"))
    since.add(_record(4, servers=9, host="east.example", time="2026-12-03T01:00:01+01:00"))
    since.add(_record(5, servers=9, host="late.example", time="2026-12-03T00:00:01+00:00"))
    hosts = {group["host"]: group["reasons"] for group in since.hosts()}
    assert hosts == {"lacks.example": ["incomplete_chain"], "late.example": ["self_signed"],
                     "east.example": ["self_signed"]}  # fmt: skip
    period = since.period()
    assert period is not None
    assert [t.isoformat() for t in period] == [
        "2026-12-03T00:00:01+00:00",
        "2026-12-03T10:00:02+00:00",
    ]


def _time(text: str) -> Any:
    from sslcustomize._diagnosis._reading import parse_time

    return parse_time(text)


def test_state_is_not_a_reference_to_every_record() -> None:
    """A Summary refers to no record: of a failing server's latest, it keeps what a fix needs."""
    summary = Summary()
    records = [_record(i, servers=10) for i in range(1_000)]
    for record in records:
        summary.add(record)
    del record
    kept = [r for r in records if sys.getrefcount(r) > 3]  # the list, the loop, getrefcount
    assert kept == []
    # The twin: the fix still says how the server is reached, from its latest record.
    summary.add(_record(1_000, servers=10, starttls="smtp", port=2525))
    fixes = {e["where"]: e["fixes"] for e in summary.analysis()["would_break"]}
    (fix,) = fixes["srv0.corp.example:2525"]
    assert "--starttls smtp" in fix["fix"]


#: Values each field may take in the differential test: valid ones, and hostile ones that
#: equal a valid one in Python (``8443.0``, ``True``), are unhashable, too long, or unknown.
_CHOICES: dict[str, tuple[Any, ...]] = {
    "time": (
        "2026-12-01T10:00:00+00:00", "2026-12-02T23:59:59+00:00", "2026-12-01T10:00:00Z",
        "2026-12-01 10:00:00+00:00", "2026-W48-2T10:00:00+00:00", "2026-13-01T10:00:00+00:00",
        "2026-12-01T10:00:00+01:00", 5, None,
    ),
    "pid": (7, 0, 2**32, 2**32 + 1, -1, 7.0, True, "7", None),
    "uid": (0, 1000, -1, True, 1000.0, None),
    "version": (1, True, 1.0, -1, None),
    "port": (443, 8443, 8443.0, True, 0, 65536, "443", None),
    "host": ("a.example", "b.example", "a b", ["a.example"], 5, "x" * 8193, None),
    "verdict": ("rejected", "opt_out", "accepted", "bogus", None),
    "reasons": (
        ["self_signed"], ["expired", "expired"], ["unknown_issuer"], ["code_opt_out"], [],
        ["nope"], "expired", [["expired"]],
    ),
    "program": ("/opt/a.py", "/opt/b.py", "", ["x"], {"a": 1}, 5, None),
    "machine": ("m1", "m2", "", 5, ["m1"], "x" * 8193, None),
    "context": ("http.client", "smtplib", 5, None),
    "rule": ("default", ["default"], None),
    "mode": ("report", 5, "x" * 8193, None),
    "leaf_subject": ("CN=a", 1, None),
    "chain_sha256": (["aa"], [], [1], "aa", [None], ["x" * 8193], ["a"] * 65, None),
    "intermediates": ([], [CA], [5], "x", None),
    "top_issuer": (CA, "CN=other", 5, None),
    "starttls": (None, "smtp", "gopher", 5),
    "expired_layer": (None, "system", "bogus"),
    "comm": ("worker", 5, None),
}  # fmt: skip


def _sink(record: dict[str, Any]) -> dict[str, Any]:
    """``record`` with every field the jsonl sink writes (``null`` or ``[]`` where unset)."""
    from sslcustomize._report._records import Record

    lists = ("reasons", "chain_sha256", "intermediates")
    empty: dict[str, Any] = {name: [] if name in lists else None for name in Record.__slots__}
    return {**empty, **record}


def _hostile_entry(rng: Any) -> Any:
    """A record from a small pool of values, now and then with one or more fields hostile."""
    if rng.random() < 0.02:
        return rng.choice(([1, 2], "text", 5, None))
    entry = _sink({name: values[0] for name, values in _CHOICES.items() if values[0] is not None})
    for name in ("host", "port", "program", "machine", "verdict", "reasons", "time"):
        entry[name] = rng.choice(_CHOICES[name][:2])  # shared and varying fields repeat
    for _ in range(rng.choice((0, 0, 0, 1, 2))):
        name = rng.choice(list(_CHOICES))
        value = rng.choice(_CHOICES[name])
        if value is None and rng.random() < 0.5:
            entry.pop(name, None)  # absent, not null
        else:
            entry[name] = value
    return entry


def _outcome(summary: Summary, reading: Reading) -> Any:
    """Everything report prints from a summary and its reading."""
    return (
        summary.count, summary.hosts(), summary.analysis(), summary.by_day(), summary.period(),
        reading.skipped_list(), reading.kept, reading.files, reading.records,
    )  # fmt: skip


# The differential tests' runs: seed, the bound on plans (a small one drops and remakes them),
# and --since.
_DIFFERENTIAL_RUNS = (
    (1, 1 << 14, None),
    (2, 3, None),
    (3, 1 << 14, "2026-12-01T12:00:00+00:00"),
)


def test_take_is_validate_then_add_on_hostile_streams(monkeypatch: pytest.MonkeyPatch) -> None:
    """Fused and cached, a stream of good and forged records summarises as validate then add.

    Every skip counted with validate's reason, by source; no forged record that equals a
    valid one in Python (``8443.0``, ``true``, a list) counts as it; plans dropped and made
    again (a small bound) and ``--since`` change nothing.
    """
    import random

    from sslcustomize._diagnosis import _summary

    for seed, bound, since in _DIFFERENTIAL_RUNS:
        monkeypatch.setattr(_summary, "MAX_PLANS", bound)
        rng = random.Random(seed)
        stream = [(_hostile_entry(rng), rng.choice(("f1", "f2")), rng.choice((None, 0, 1000)),
                   rng.random() < 0.3) for _ in range(3000)]  # fmt: skip
        fused, plain = (
            Summary(_time(since) if since else None),
            Summary(_time(since) if since else None),
        )
        fused_reading, plain_reading = Reading(take=fused.take), Reading(plain.add)
        for entry, source, owner, journal in stream:
            fused_reading.add(entry, source, owner=owner, journal=journal)
            plain_reading.add(entry, source, owner=owner, journal=journal)
        assert len(fused._plans) <= bound
        assert _outcome(fused, fused_reading) == _outcome(plain, plain_reading)
        # The measure can fail: the stream has skips of many reasons, and plans were used.
        assert len({reason for _, reason in fused_reading.skipped}) > 10
        assert fused_reading.kept > 1000


def test_a_forged_number_equal_to_a_valid_one_is_refused_after_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``8443.0`` and ``true`` equal a valid port and version in Python: still refused.

    The twin: the same record with the integers is taken, by the plan the first one made.
    """
    from sslcustomize._diagnosis import _summary

    checked: list[Any] = []

    def validate(entry: Any) -> Any:
        checked.append(entry)
        return _reading.validate(entry)

    monkeypatch.setattr(_summary, "validate", validate)
    summary = Summary()
    reading = Reading(take=summary.take)
    valid = _sink(_record(1, servers=1, port=8443))
    forged = [{**valid, "port": 8443.0}, {**valid, "version": True}, {**valid, "pid": 7.0},
              {**valid, "program": [valid["program"]]}]  # fmt: skip
    for entry in (valid, forged[0], forged[1], dict(valid), forged[2], forged[3]):
        reading.add(entry, "fleet.jsonl")
    # Only the first record and the forged ones were checked whole: the twin took the plan.
    assert checked == [valid, *forged]
    assert reading.skipped == {
        ("fleet.jsonl", "port is not an integer 1-65535"): 1,
        ("fleet.jsonl", "version is not a non-negative integer"): 1,
        ("fleet.jsonl", "pid is not a non-negative integer"): 1,
        ("fleet.jsonl", "program is not a text (or too long)"): 1,
    }
    assert (reading.kept, summary.count, len(summary._plans)) == (2, 2, 1)


#: What journald's fields may hold in an export: texts as it prints them, and what a forged
#: export may put there (numbers, byte arrays, lists, objects, digits that are not ASCII).
_JOURNAL_VALUES: tuple[Any, ...] = (
    "7", "0", "4294967296", "4294967297", "-1", "²", "١٢", " 443", "7.0", 7, 7.0, True, None,
    [49, 50], [115, 115, 108], ["a", "b"], [["a"]], [], {"a": 1}, "x" * 8193,
)  # fmt: skip


def _journal_entry(rng: Any) -> dict[str, Any]:
    """A journal entry as ``journalctl -o json`` prints a record, now and then forged."""
    record = _hostile_entry(rng)
    if not isinstance(record, dict):
        record = {}
    entry: dict[str, Any] = {"__CURSOR": "s=1", "SYSLOG_IDENTIFIER": "sslcustomize"}
    for name in ("_UID", "_HOSTNAME", "_COMM"):
        if rng.random() < 0.8:
            entry[name] = rng.choice(("1000", "0", "m1", "python3"))
    for name, value in record.items():
        if value is None or value == []:
            continue  # journald leaves an unset field out
        printed = value
        if isinstance(value, list) and len(value) == 1 and rng.random() < 0.8:
            printed = value[0]  # journalctl prints a field sent once as a text
        elif not isinstance(value, (list, dict)) and rng.random() < 0.9:
            printed = str(value)
        entry["SSLCUSTOMIZE_" + name.upper()] = printed
    for _ in range(rng.choice((0, 0, 0, 0, 1, 2))):
        key = rng.choice((*entry, "SSLCUSTOMIZE_Host", "SSLCUSTOMIZE_EXTRA", "", "_UID"))
        if rng.random() < 0.2:
            entry.pop(key, None)
        else:
            entry[key] = rng.choice(_JOURNAL_VALUES)
    if rng.random() < 0.3:  # journalctl's order is its own: keys in another order
        keys = list(entry)
        rng.shuffle(keys)
        entry = {key: entry[key] for key in keys}
    return entry


def test_journal_entries_taken_as_printed_are_record_from_journal_then_add(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Journal entries read without making records summarise as records made then added.

    ``take_journal`` keeps plans per layout of keys and checks the values that vary as
    texts: forged exports (numbers where journald prints texts, byte arrays, superscript
    digits, keys named otherwise, another program's entries, fields dropped) give the same
    counts, skips and report as :func:`record_from_journal`, :func:`validate` and ``add``,
    with plans dropped and made again (a small bound) and with ``--since``.
    """
    from sslcustomize._diagnosis import _summary

    for seed, bound, since in _DIFFERENTIAL_RUNS:
        monkeypatch.setattr(_summary, "MAX_PLANS", bound)
        rng = random.Random(seed)
        lines = [json.dumps(_journal_entry(rng)).encode() + b"\n" for _ in range(4000)]
        data = b"".join(lines)
        fused = Summary(_time(since) if since else None)
        plain = Summary(_time(since) if since else None)
        fused_reading = Reading(take=fused.take, take_journal=fused.take_journal)
        plain_reading = Reading(plain.add)
        read_journal_stream(io.BytesIO(data), fused_reading)
        read_journal_stream(io.BytesIO(data), plain_reading)
        assert _outcome(fused, fused_reading) == _outcome(plain, plain_reading)
        # The measure can fail: entries were skipped for many reasons, and layouts were used.
        assert len({reason for _, reason in fused_reading.skipped}) > 10
        assert fused_reading.kept > 1000
        assert sum(len(layout.plans) for kept in fused._layouts.values() for layout in kept)


def test_a_forged_journal_value_equal_to_a_valid_one_is_refused_after_it() -> None:
    """``7.0`` for a pid, ``²`` or ``-1`` for a uid, ``8443.0`` for a port: refused after the
    valid entry (the first reading kept its plan). The twins: the valid entry again is taken by
    that plan, and a port printed as the number ``8443`` is read as journald's text would be.
    """
    valid = json.loads(_journal_line(_record(1, servers=1, port=8443)))
    forged = [
        {**valid, "SSLCUSTOMIZE_PID": 7.0}, {**valid, "_UID": "²"}, {**valid, "_UID": "-1"},
        {**valid, "SSLCUSTOMIZE_PORT": 8443.0}, {**valid, "_UID": None},
    ]  # fmt: skip
    twins = [dict(valid), {**valid, "SSLCUSTOMIZE_PORT": 8443}]
    summary = Summary()
    reading = Reading(take=summary.take, take_journal=summary.take_journal)
    data = b"".join(json.dumps(e).encode() + b"\n" for e in (valid, *forged, *twins))
    read_journal_stream(io.BytesIO(data), reading)
    assert reading.skipped == {
        ("the systemd journal", "pid is not a non-negative integer"): 1,
        ("the systemd journal", "uid is not a non-negative integer"): 3,
        ("the systemd journal", "port is not an integer 1-65535"): 1,
    }
    assert (reading.kept, summary.count) == (3, 3)
    # One layout, one plan kept: the number 8443 is not a text, its plan is not kept for it.
    assert [len(layout.plans) for kept in summary._layouts.values() for layout in kept] == [1]
