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
from collections.abc import Iterable
from typing import Any, cast

from sslcustomize._diagnosis._advice import Fix, fix_for, safe_target
from sslcustomize._diagnosis._reading import (
    MAX_LAYOUTS,
    JournalLayout,
    journal_layout,
    journal_varying,
    parse_time,
    record_from_journal,
    shared_key,
    sink_time,
    validate,
    varying_fields,
)
from sslcustomize._diagnosis._seen import SightingIndex
from sslcustomize._verdict._reasons import target_text

__all__ = ["MAX_PLANS", "Summary", "where"]

#: The most plans a summary keeps (see :class:`_Plan`): past it they are dropped and made
#: again as records need them, so a fleet of endless variety costs time, never memory.
MAX_PLANS = 1 << 14


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


#: A program's view: its machines, the servers it would break on, those it opts out for.
_View = tuple[dict[Any, None], dict[str, None], dict[str, None]]
#: What a record without reasons is counted as, per day.
_NONE = ("(none)",)


def _texts_only(values: tuple[Any, ...]) -> bool:
    """Tell whether each of ``values`` is a text or a list of texts."""
    return all(
        value.__class__ is str
        or (value.__class__ is list and all(item.__class__ is str for item in value))
        for value in values
    )


def _hashable(values: tuple[Any, ...]) -> tuple[Any, ...]:
    """``values`` with each list made a tuple (a journal's repeated field)."""
    return tuple(tuple(value) if value.__class__ is list else value for value in values)


def _add_all(values: dict[Any, None], new: Iterable[Any]) -> None:
    """Add each of ``new`` to the ordered set ``values``."""
    for value in new:
        values[value] = None


def _add_some(values: dict[Any, None], value: Any) -> None:
    """Add ``value`` to the ordered set ``values``, unless it is ``None``."""
    if value is not None:
        values[value] = None


class _Plan:
    """What every record with the same shared fields (:func:`._reading.shared_key`) does alike.

    Made from the first such record, once its fields are validated; the records after it
    only add what varies (time, machine, source, uid). Where its values go (server, entry,
    program view, fix) is found at its first counted record (:meth:`Summary._settle`).
    """

    __slots__ = (
        "breaks", "context", "entry", "fixing", "group", "host", "intermediates", "journal_known",
        "key", "known", "latest", "port", "program", "reasons", "rule", "settled", "top", "view",
    )  # fmt: skip

    def __init__(self, record: dict[str, Any], unknown: dict[str, _Unknown]) -> None:
        """Prepare what a valid ``record`` (and each record sharing its fields) adds."""
        host, port, reasons = record["host"], record["port"], record["reasons"]
        get = record.get
        self.host, self.port = host, port
        self.key = (host if host.__class__ is str else str(host), port)
        self.top = None
        if "unknown_issuer" in reasons:
            top = self.top = str(get("top_issuer"))
            token = unknown.get(top)
            if token is None:
                token = unknown[top] = _Unknown(top)
            reasons = [token if reason == "unknown_issuer" else reason for reason in reasons]
        self.reasons: list[Any] = reasons
        verdict = record["verdict"]
        #: True: it would break; False: code opted out; None: neither (counted, no more).
        self.breaks: bool | None = verdict == "rejected" or None
        if "code_opt_out" in reasons or verdict == "opt_out":
            self.breaks = False
        self.program, self.context, self.rule = get("program"), get("context"), get("rule")
        self.latest = (
            host, port, get("starttls"), get("expired_host"), get("expired_origin"),
            get("expired_layer"),
        )  # fmt: skip
        self.intermediates: list[Any] = record["intermediates"]
        #: The program's and chain's fields of its last record that passed (see
        #: :func:`._reading.varying_fields`): equal ones need no check.
        self.known: tuple[Any, ...] = ()
        #: The same of its last journal entry that passed, as ``journalctl`` printed them.
        self.journal_known: tuple[Any, ...] = ()
        self.settled = False
        self.group: _Group = cast("_Group", None)
        self.entry: _Entry | None = None
        self.view: _View | None = None
        self.fixing: _Fixing | None = None


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
        #: Records per UTC day, and per reason (or its token) that day.
        self._days: dict[str, dict[Any, int]] = {}
        # The first and last times as the sinks write them (compared as text), and of others.
        self._first, self._last = "~", ""
        self._span_parsed: list[dt.datetime] = []
        #: Plans by the fields records share (:func:`._reading.shared_key`).
        self._plans: dict[tuple[Any, ...], _Plan] = {}
        #: Layouts of journal entries by their number of keys (see :meth:`take_journal`).
        self._layouts: dict[int, list[JournalLayout]] = {}
        self._journal_plans = 0
        #: The source of the last record counted on an entry, and its number.
        self._source: Any = None
        self._source_number = 0

    def take(self, entry: Any, source: str, owner: int | None, journal: bool) -> str:  # noqa: FBT001 - the reader's hot call
        """Check one decoded entry and summarise it; "" when taken, else why it is skipped.

        The same as :func:`._reading.validate` then :meth:`add` (the record labelled with
        ``source``, and ``uid`` only where ``owner`` or the journal vouches for it), done in
        one reading of the fields: those every record of one program's connections to one
        server shares (:func:`._reading.shared_key`) are checked once per distinct value and
        their summary prepared once (a :class:`_Plan`); what varies from record to record
        (time, pid, uid, machine, the chain) is checked on every record. Anything out of the
        common shape goes through :func:`._reading.validate`, which also names the reason.
        """
        plan = None
        if entry.__class__ is dict:
            key = shared_key(entry)
            if key is not None:
                try:
                    plan = self._plans.get(key)
                except TypeError:  # a value JSON made unhashable (a list or an object)
                    plan = None
        if plan is not None:
            known = varying_fields(entry, plan.known)
            if known is not None:
                plan.known = known
                uid = owner if owner is not None else (entry.get("uid") if journal else None)
                self._take(plan, entry["time"], None, entry.get("machine"), source, uid)
                return ""
        record, why = validate(entry)
        if record is None:
            return why
        uid = owner if owner is not None else (record.get("uid") if journal else None)
        time = record["time"]
        parsed = None if sink_time(time) else parse_time(time)
        self._take(self._plan(record), time, parsed, record.get("machine"), source, uid)
        return ""

    def take_journal(self, entry: dict[str, Any], source: str, owner: int | None) -> str | None:
        """Check one ``journalctl -o json`` entry and summarise its record, as :meth:`take` does.

        The same as :func:`._reading.record_from_journal` then :meth:`take` (``None``: the
        entry holds no record), without making the record where the entry's keys have a
        layout (:class:`._reading.JournalLayout`) and its shared fields' values were those of
        a record taken before: then only what varies is checked
        (:func:`._reading.journal_varying`). The first entry of each kind goes the whole way,
        and its plan is kept for the next under the values as ``journalctl`` printed them.
        """
        layout = None
        for candidate in self._layouts.get(len(entry), ()):
            try:
                values = candidate.get(entry)
            except KeyError:
                continue
            layout = candidate
            plan = self._journal_plan(layout, values[: layout.shared])
            if plan is None:
                break
            checked = journal_varying(values, layout, plan.journal_known)
            if checked is None:
                break
            machine, uid, plan.journal_known = checked
            self._take(plan, values[layout.shared], None, machine, source,
                       owner if owner is not None else uid)  # fmt: skip
            return ""
        record = record_from_journal(entry)
        if record is None:
            return None
        why = self.take(record, source, owner, True)
        if not why:
            self._remember(entry, record, layout)
        return why

    @staticmethod
    def _journal_plan(layout: JournalLayout, values: tuple[Any, ...]) -> _Plan | None:
        """The plan kept for these values of a layout's shared fields, if there is one."""
        try:
            return cast("_Plan | None", layout.plans.get(values))
        except TypeError:  # a repeated field (a list): as a tuple, if each item is a text
            pass
        try:
            return cast("_Plan | None", layout.plans.get(_hashable(values)))
        except TypeError:  # a list in a list, an object: never a key kept
            return None

    def _remember(
        self, entry: dict[str, Any], record: dict[str, Any], layout: JournalLayout | None
    ) -> None:
        """Keep the plan of a record taken from ``entry`` for the entries that share its values."""
        key = shared_key(record)
        plan = None if key is None else self._plans.get(key)
        if plan is None:
            return
        if layout is None:
            layout = journal_layout(entry)
            if layout is None:
                return
            layouts = self._layouts.setdefault(layout.size, [])
            if sum(map(len, self._layouts.values())) >= MAX_LAYOUTS:
                self._layouts.clear()  # bounded, as plans are
                layouts = self._layouts[layout.size] = []
            layouts.append(layout)
        values = layout.get(entry)[: layout.shared]
        if not _texts_only(values):
            return  # only texts prove themselves by equality (1 == 1.0 == True)
        if self._journal_plans >= MAX_PLANS:
            for kept in self._layouts.values():
                for each in kept:
                    each.plans.clear()
            self._journal_plans = 0
        layout.plans[_hashable(values)] = plan
        self._journal_plans += 1

    def add(self, record: dict[str, Any]) -> None:
        """Take one valid record (see :func:`._reading.validate`), oldest first.

        Its plan is made for it alone: only what :func:`._reading.validate` passed (in
        :meth:`take`) is kept for other records to share.
        """
        time: str = record["time"]
        parsed = None if sink_time(time) else parse_time(time)
        get = record.get
        plan = _Plan(record, self._unknown)
        self._take(plan, time, parsed, get("machine"), get("source"), get("uid"))

    def _plan(self, record: dict[str, Any]) -> _Plan:
        """The plan of a validated record's shared fields (made once, kept under their key)."""
        key = shared_key(record)
        plan = None if key is None else self._plans.get(key)
        if plan is None:
            plan = _Plan(record, self._unknown)
            if key is not None:
                if len(self._plans) >= MAX_PLANS:
                    self._plans.clear()  # bounded: a fleet of endless variety costs time only
                self._plans[key] = plan
        return plan

    def _take(  # noqa: PLR0917 - once per record: positional is the cheapest call
        self, plan: _Plan, time: str, parsed: dt.datetime | None, machine: Any, source: Any,
        uid: Any,
    ) -> None:  # fmt: skip
        """Summarise one record: its plan, and the fields that vary from record to record."""
        if plan.intermediates:
            self.sightings.saw(plan.intermediates, plan.host, plan.port, time)
        if self._since is not None and self._before(time, parsed):
            return
        self.count += 1
        if not plan.settled:
            self._settle(plan, time)
        group = plan.group
        group.count += 1
        machine_number = 0
        if machine is not None:
            machine_number = self._names.get(machine, -1)
            if machine_number < 0:
                machine_number = self._number(machine)
            if not group.machines.bits >> machine_number & 1:
                group.machines.add(machine_number)
        if time < group.first:
            group.first = time
        elif time > group.last:
            group.last = time
        self._count_time(plan.reasons, time, parsed)
        if plan.entry is not None:
            self._count_entry(plan, machine, machine_number, source, uid)

    def _count_time(self, reasons: list[Any], time: str, parsed: dt.datetime | None) -> None:
        """Count a record by UTC day and reason; keep the first and last time."""
        day = time[:10] if parsed is None else parsed.date().isoformat()
        counts = self._days.get(day)
        if counts is None:
            counts = self._days[day] = {}
        for reason in reasons or _NONE:
            counts[reason] = counts.get(reason, 0) + 1
        if parsed is not None:
            self._span(self._span_parsed, parsed)
            return
        if time < self._first:  # noqa: PLR1730 - no call, once per record
            self._first = time
        if time > self._last:  # noqa: PLR1730 - no call, once per record
            self._last = time

    def _before(self, time: str, parsed: dt.datetime | None) -> bool:
        """Tell whether a record's time is before ``since`` (it is then left out)."""
        if parsed is not None:
            return parsed < cast("dt.datetime", self._since)
        return time < self._since_text or (self._since_strict and time == self._since_text)

    def _number(self, name: Any) -> int:
        """The number of a machine or source, numbered as first read."""
        names = self._names
        number = names.get(name)
        if number is None:
            number = names[name] = len(names)
        return number

    def _count_entry(
        self, plan: _Plan, machine: Any, machine_number: int, source: Any, uid: Any
    ) -> None:
        """Count a record that would break, or that opts out, on its server's entry."""
        entry = cast("_Entry", plan.entry)
        entry.count += 1
        if uid is not None:  # the journal's trusted _UID, a spool's owner
            entry.uids[uid] = None
        if source is not None:
            if source is not self._source:  # records come a file at a time
                self._source, self._source_number = source, self._number(source)
            number = self._source_number
            if not entry.sources.bits >> number & 1:
                entry.sources.add(number)
        if not machine:  # a validated machine is a text or None ("" counts as unknown too)
            machine = "unknown machine"
            machine_number = self._number(machine)
        if not entry.machines.bits >> machine_number & 1:
            entry.machines.add(machine_number)
        cast("_View", plan.view)[0][machine] = None
        fixing = plan.fixing
        if fixing is not None:
            # The latest record of the server says how it is reached (STARTTLS) and which
            # expired exception would have applied: those fields of it, not the whole record.
            fixing.latest = plan.latest
            if plan.top is not None:
                fixing.missing[plan.top] = self.count

    def _settle(self, plan: _Plan, time: str) -> None:
        """Do once what every record of a plan does alike, at its first counted record.

        Each value is added where a record adds it, in the order the first such record
        would: later records of the plan would add nothing new.
        """
        plan.settled = True
        host, port = plan.host, plan.port
        group = self._groups.get(plan.key)
        if group is None:
            group = self._groups[plan.key] = _Group(
                plan.key[0], port, suspicious=not safe_target(host, port), time=time,
                name=where(host, port),
            )  # fmt: skip
        plan.group = group
        _add_all(group.reasons, plan.reasons)
        _add_some(group.programs, plan.program)
        _add_some(group.contexts, plan.context)
        _add_some(group.rules, plan.rule)
        _add_some(group.missing, plan.top)
        if plan.breaks is not None:
            self._settle_entry(plan, group.where)

    def _settle_entry(self, plan: _Plan, name: str) -> None:
        """Find or make the entry, program view and fix a breaking or opting-out plan counts on."""
        table = self._servers if plan.breaks else self._opt_outs
        entry = table.get(name)
        if entry is None:
            entry = table[name] = _Entry(name, suspicious=not safe_target(plan.host, plan.port))
        plan.entry = entry
        program = plan.program if plan.program else "unknown program"
        entry.programs[program] = None
        view = self._programs.get(program)
        if view is None:
            view = self._programs[program] = ({}, {}, {})
        plan.view = view
        if not plan.breaks:
            view[2][name] = None
            return
        _add_all(entry.reasons, plan.reasons)
        view[1][name] = None
        fixing = self._fixing.get(plan.key)
        if fixing is None:
            fixing = self._fixing[plan.key] = _Fixing()
        plan.fixing = fixing
        _add_all(fixing.reasons, (r for r in plan.reasons if r != "code_opt_out"))

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
        for day, reasons in self._days.items():
            for reason, count in reasons.items():
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
