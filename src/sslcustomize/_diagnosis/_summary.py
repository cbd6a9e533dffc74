"""What ``report`` says about records, aggregated in one pass as they are read.

A :class:`Summary` takes each valid record once (:meth:`Summary.add`, the ``accept`` of a
:class:`._reading.Reading`) and keeps counters and ordered sets per server, per program and
per day, plus the latest breaking record of each server (what its fix is built from). It keeps
no record list: its memory grows with servers, programs, machines and users, not records.

One thing cannot be decided while reading: whether an ``unknown_issuer`` is really an
``incomplete_chain`` depends on intermediates that records read *later* may name
(:mod:`._seen`). So such a reason is kept as a token naming the record's ``top_issuer``, and
tokens are resolved by :meth:`Summary.finish` against every sighting, as if each record had
been relabelled before it was summarised.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from sslcustomize._diagnosis._advice import Fix, fix_for, safe_target
from sslcustomize._diagnosis._reading import parse_time
from sslcustomize._diagnosis._seen import SightingIndex
from sslcustomize._verdict._reasons import target_text

__all__ = ["Summary", "where"]


def where(host: Any, port: Any) -> str:
    """A server as the report names it: ``host:port`` (brackets for IPv6), or the host alone."""
    return target_text(str(host), port) if port else str(host)


class _Unknown:
    """An ``unknown_issuer`` whose chain's top issuer is ``top``: resolved at the end."""

    __slots__ = ("top",)

    def __init__(self, top: str) -> None:
        self.top = top


class _Numbers:
    """An ordered set of small numbers: a list in the order added, and a bit per member.

    A server of a fleet lists up to every machine and file: as a dict of names, 4 KB per
    hundred; as numbers (small ints are shared) and one int of bits, under 1 KB.
    """

    __slots__ = ("bits", "order")

    def __init__(self) -> None:
        self.bits = 0
        self.order: list[int] = []

    def add(self, number: int) -> None:
        if not self.bits >> number & 1:
            self.bits |= 1 << number
            self.order.append(number)

    def names(self, table: list[Any]) -> list[Any]:
        """The members, in the order added, as the names ``table`` numbers."""
        return [table[number] for number in self.order]


class _Group:
    """One server (host and port) among every record: the ``hosts`` of the JSON document."""

    __slots__ = (
        "contexts",
        "count",
        "first",
        "host",
        "last",
        "machines",
        "missing",
        "port",
        "programs",
        "reasons",
        "rules",
        "suspicious",
        "where",
    )

    def __init__(self, host: str, port: Any, *, suspicious: bool, time: str, name: str) -> None:
        self.host, self.port, self.suspicious, self.where = host, port, suspicious, name
        self.count = 0
        self.first = self.last = time
        self.reasons: dict[Any, None] = {}
        self.programs: dict[Any, None] = {}
        self.contexts: dict[Any, None] = {}
        self.machines = _Numbers()
        self.rules: dict[Any, None] = {}
        self.missing: dict[str, None] = {}


class _Entry:
    """One server that would break under enforce, or that code reached with verification off."""

    __slots__ = (
        "count", "machines", "programs", "reasons", "sources", "suspicious", "uids", "where"
    )  # fmt: skip

    def __init__(self, name: str, *, suspicious: bool) -> None:
        self.where, self.suspicious = name, suspicious
        self.count = 0
        self.reasons: dict[Any, None] = {}
        self.programs: dict[str, None] = {}
        self.machines = _Numbers()
        self.uids: dict[Any, None] = {}
        self.sources = _Numbers()


class _Fixing:
    """What the fixes of one breaking server are built from."""

    __slots__ = ("latest", "missing", "reasons")

    def __init__(self) -> None:
        self.reasons: dict[Any, None] = {}
        #: The fields of its latest record that a fix is built from (:data:`_FIX_FIELDS`).
        self.latest: tuple[Any, ...] = ()
        #: Top issuers of its ``unknown_issuer`` records, each with when it was last read.
        self.missing: dict[str, int] = {}


#: The length of a time as the sinks write it (``2026-12-01T10:00:00+00:00``). Such times
#: compare as text in time order, and their UTC day is their first ten characters; any other
#: ISO 8601 text is parsed.
_SINK_TIME = 25
#: What a fix is built from (see :func:`._advice.fix_for`): a failing server's latest record.
_FIX_FIELDS = ("host", "port", "starttls", "expired_host", "expired_origin", "expired_layer")


class Summary:
    """Records summarised as they arrive; :meth:`finish` gives what ``report`` prints.

    ``since`` leaves older records out of everything but the sightings (an intermediate seen
    before ``since`` still tells an incomplete chain after it).
    """

    def __init__(self, since: dt.datetime | None = None) -> None:
        """Start with no record."""
        self._since = since
        if since is None:
            self._since_text = ""
        else:
            # A time as the sinks write it (whole seconds) is at or after ``since`` when its
            # text is: after the whole second, when ``since`` has a fraction of one.
            self._since_text = since.strftime("%Y-%m-%dT%H:%M:%S+00:00")
            self._since_strict = bool(since.microsecond)
        self.sightings = SightingIndex()
        self.count = 0
        self._unknown: dict[str, _Unknown] = {}
        #: Machines and sources, numbered as first read: each server lists their numbers.
        self._names: dict[Any, int] = {}
        self._groups: dict[tuple[str, Any], _Group] = {}
        self._servers: dict[str, _Entry] = {}
        self._opt_outs: dict[str, _Entry] = {}
        self._programs: dict[str, tuple[dict[str, None], dict[str, None], dict[str, None]]] = {}
        self._fixing: dict[tuple[str, Any], _Fixing] = {}
        self._days: dict[tuple[str, Any], int] = {}
        # The first and last times as the sinks write them (compared as text), and of others.
        self._first, self._last = "~", ""
        self._span_parsed: list[dt.datetime] = []

    def add(self, record: dict[str, Any]) -> None:  # noqa: PLR0912, PLR0915 - one pass, one place
        """Take one valid record (see :func:`._reading.validate`), oldest first.

        It runs once per record of a fleet: what it does is written out, not called.
        """
        if record["intermediates"]:
            self.sightings.add(record)
        time: str = record["time"]
        if (
            len(time) == _SINK_TIME
            and time[19:] == "+00:00"
            and time[10] == "T"
            and time[4] == time[7] == "-"
            and time[13] == time[16] == ":"
        ):
            parsed = None  # as the sinks write it
        else:
            parsed = parse_time(time)
        if self._since is not None:
            if parsed is not None:
                if parsed < self._since:
                    return
            elif time < self._since_text or (self._since_strict and time == self._since_text):
                return
        self.count += 1
        host, port, reasons = record["host"], record["port"], record["reasons"]
        names = self._names
        key = (host if host.__class__ is str else str(host), port)
        get = record.get
        top = None
        if "unknown_issuer" in reasons:
            top = str(get("top_issuer"))
            token = self._unknown.get(top)
            if token is None:
                token = self._unknown[top] = _Unknown(top)
            reasons = [token if reason == "unknown_issuer" else reason for reason in reasons]
        group = self._groups.get(key)
        if group is None:
            group = self._groups[key] = _Group(
                key[0], port, suspicious=not safe_target(host, port), time=time,
                name=where(host, port),
            )  # fmt: skip
        group.count += 1
        for reason in reasons:
            group.reasons[reason] = None
        program = get("program")
        if program is not None:
            group.programs[program] = None
        machine = get("machine")
        machine_number = 0
        if machine is not None:
            number = names.get(machine)
            if number is None:
                number = names[machine] = len(names)
            machine_number = number
            numbers = group.machines
            if not numbers.bits >> machine_number & 1:
                numbers.bits |= 1 << machine_number
                numbers.order.append(machine_number)
        context = get("context")
        if context is not None:
            group.contexts[context] = None
        rule = get("rule")
        if rule is not None:
            group.rules[rule] = None
        if top is not None:
            group.missing[top] = None
        if time < group.first:
            group.first = time
        elif time > group.last:
            group.last = time
        day = time[:10] if parsed is None else parsed.date().isoformat()
        days = self._days
        if reasons:
            for reason in reasons:
                counted = (day, reason)
                days[counted] = days.get(counted, 0) + 1
        else:
            counted = (day, "(none)")
            days[counted] = days.get(counted, 0) + 1
        if parsed is not None:
            self._span(self._span_parsed, parsed)
        else:
            if time < self._first:  # noqa: PLR1730 - no call, once per record
                self._first = time
            if time > self._last:  # noqa: PLR1730 - no call, once per record
                self._last = time
        verdict = record["verdict"]
        breaks = verdict == "rejected"
        if "code_opt_out" in reasons or verdict == "opt_out":
            breaks = False
        elif not breaks:
            return  # neither breaks nor opts out: counted above only
        name = group.where
        table = self._servers if breaks else self._opt_outs
        entry = table.get(name)
        if entry is None:
            entry = table[name] = _Entry(name, suspicious=not safe_target(host, port))
        entry.count += 1
        uid = get("uid")  # the journal's trusted _UID, a spool's owner
        if uid is not None:
            entry.uids[uid] = None
        source = get("source")
        if source is not None:
            number = names.get(source)
            if number is None:
                number = names[source] = len(names)
            numbers = entry.sources
            if not numbers.bits >> number & 1:
                numbers.bits |= 1 << number
                numbers.order.append(number)
        # A validated program and machine are texts or None ("" counts as unknown too).
        program_name = program if program else "unknown program"
        entry.programs[program_name] = None
        if not machine:
            machine = "unknown machine"
            number = names.get(machine)
            if number is None:
                number = names[machine] = len(names)
            machine_number = number
        numbers = entry.machines
        if not numbers.bits >> machine_number & 1:
            numbers.bits |= 1 << machine_number
            numbers.order.append(machine_number)
        view = self._programs.get(program_name)
        if view is None:
            view = self._programs[program_name] = ({}, {}, {})
        view[0][machine] = None
        if not breaks:
            view[2][name] = None
            return
        for reason in reasons:
            entry.reasons[reason] = None
        view[1][name] = None
        fixing = self._fixing.get(key)
        if fixing is None:
            fixing = self._fixing[key] = _Fixing()
        for reason in reasons:
            if reason != "code_opt_out":
                fixing.reasons[reason] = None
        # The latest record of the server says how it is reached (STARTTLS) and which expired
        # exception would have applied: those fields of it, not the whole record.
        fixing.latest = (
            host, port, get("starttls"), get("expired_host"), get("expired_origin"),
            get("expired_layer"),
        )  # fmt: skip
        if top is not None:
            fixing.missing[top] = self.count

    @staticmethod
    def _span(span: list[Any], moment: Any) -> None:
        """Keep the first and last ``moment`` in ``span`` (``[first, last]``)."""
        if not span:
            span.extend((moment, moment))
        elif moment < span[0]:
            span[0] = moment
        elif moment > span[1]:
            span[1] = moment

    def _resolve(self, values: dict[Any, None]) -> list[Any]:
        """The values in order, each ``unknown_issuer`` token as its chain turned out to be."""
        resolved: dict[Any, None] = {}
        for value in values:
            if isinstance(value, _Unknown):
                sighted = value.top in self.sightings
                resolved["incomplete_chain" if sighted else "unknown_issuer"] = None
            else:
                resolved[value] = None
        return list(resolved)

    def period(self) -> tuple[dt.datetime, dt.datetime] | None:
        """The first and last time of the records summarised (``None``: there were none)."""
        texts = [self._first, self._last] if self._last else []
        moments = [parse_time(text) for text in texts] + self._span_parsed
        return (min(moments), max(moments)) if moments else None

    def by_day(self) -> dict[tuple[str, str], int]:
        """Records per UTC day and reason (a record without reasons counts as ``(none)``)."""
        counts: dict[tuple[str, str], int] = {}
        for (day, reason), count in self._days.items():
            name = self._resolve({reason: None})[0]
            counts[day, name] = counts.get((day, name), 0) + count
        return counts

    def hosts(self) -> list[dict[str, Any]]:
        """Per host and port: reasons, programs, contexts, machines, count, first and last."""
        numbered = list(self._names)
        groups = [
            {
                "host": group.host,
                "port": group.port,
                "suspicious": group.suspicious,
                "count": group.count,
                "reasons": self._resolve(group.reasons),
                "programs": list(group.programs),
                "contexts": list(group.contexts),
                "machines": group.machines.names(numbered),
                "rules": list(group.rules),
                "missing_intermediates": [m for m in group.missing if m in self.sightings],
                "first_seen": group.first,
                "last_seen": group.last,
            }
            for group in self._groups.values()
        ]
        return sorted(groups, key=lambda g: (-g["count"], g["host"]))

    def _fixes(self) -> dict[str, list[dict[str, Any]]]:
        """Each breaking server's fixes, one per reason (its commands only for a host name)."""
        fixes: dict[str, list[dict[str, Any]]] = {}
        for key in sorted(self._fixing, key=str):
            fixing = self._fixing[key]
            found = None
            sighted = [(n, top) for top, n in fixing.missing.items() if top in self.sightings]
            if sighted:
                sighting = self.sightings.get(max(sighted)[1])
                if sighting is not None:
                    found = (
                        f"it does not send the intermediate '{sighting.subject}'; "
                        f"{sighting.describe()}"
                    )
            reasons = sorted(self._resolve(fixing.reasons)) or ["invalid"]
            latest = {
                name: value
                for name, value in zip(_FIX_FIELDS, fixing.latest, strict=True)
                if value is not None or name in ("host", "port")
            }
            fixes[where(*key)] = [self._fix(reason, latest, found).to_json() for reason in reasons]
        return fixes

    @staticmethod
    def _fix(reason: str, record: dict[str, Any], found: str | None) -> Fix:
        return fix_for(reason, record, found if reason == "incomplete_chain" else None)

    def analysis(self) -> dict[str, Any]:
        """What would fail under enforce and what only opts out, by server and by program.

        Returns:
            ``summary`` (counts and the one line), ``would_break`` (servers with their
            reasons, programs, machines and fixes), ``opt_outs`` (servers that code reached
            with verification off) and ``programs`` (each program's servers of either kind).
        """
        fixes = self._fixes()
        numbered = list(self._names)

        def entries(table: dict[str, _Entry], *, breaking: bool) -> list[dict[str, Any]]:
            listed = []
            for entry in table.values():
                item: dict[str, Any] = {
                    "where": entry.where,
                    "suspicious": entry.suspicious,
                    "count": entry.count,
                    "reasons": self._resolve(entry.reasons),
                    "programs": list(entry.programs),
                    "machines": entry.machines.names(numbered),
                    "uids": sorted(entry.uids),
                    "sources": entry.sources.names(numbered),
                }
                if breaking:
                    item["fixes"] = fixes.get(entry.where, [])
                listed.append(item)
            return sorted(listed, key=lambda e: (-e["count"], e["where"]))

        servers = entries(self._servers, breaking=True)
        opt_outs = entries(self._opt_outs, breaking=False)
        programs = [
            {
                "program": program,
                "machines": list(machines),
                "would_break": list(breaking),
                "opt_outs": list(opting),
            }
            for program, (machines, breaking, opting) in self._programs.items()
        ]
        machines = {m for entry in self._servers.values() for m in entry.machines.order}
        summary: dict[str, Any] = {
            "machines": len(machines),
            "programs": sum(1 for view in programs if view["would_break"]),
            "servers": len(servers),
            "opt_out_programs": sum(1 for view in programs if view["opt_outs"]),
            "opt_out_servers": len(opt_outs),
        }
        summary["line"] = _summary_line(summary)
        return {
            "summary": summary,
            "would_break": servers,
            "opt_outs": opt_outs,
            "programs": sorted(programs, key=lambda v: (-len(v["would_break"]), v["program"])),
        }


def _plural(count: int, word: str) -> str:
    return f"{count} {word}" if count == 1 else f"{count} {word}s"


def _summary_line(summary: dict[str, Any]) -> str:
    """``2 machines, 3 programs would fail under enforce (4 servers); 1 program turns ...``."""
    if summary["programs"]:
        first = (
            f"{_plural(summary['machines'], 'machine')}, "
            f"{_plural(summary['programs'], 'program')} would fail under enforce "
            f"({_plural(summary['servers'], 'server')})"
        )
    else:
        first = "nothing would fail under enforce"
    count = summary["opt_out_programs"]
    verb = "turns" if count == 1 else "turn"
    second = f"{_plural(count, 'program')} {verb} verification off" if count else ""
    return f"{first}; {second}" if second else first
