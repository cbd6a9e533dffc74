"""report's summary: one pass over a stream, state bounded by servers, relabelling as before."""

from __future__ import annotations

import gc
import io
import json
import sys
from collections.abc import Iterator
from typing import Any

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
