"""``sslcustomize report``: summarise what report mode and code opt-outs recorded."""

from __future__ import annotations

import argparse
import datetime as dt
import gc
import html
import os
import sys
from collections.abc import Iterable, Iterator
from typing import Any, cast

from sslcustomize._cli import EXIT_OK
from sslcustomize._cli._escape import shown
from sslcustomize._cli._output import console, fail, print_json
from sslcustomize._cli._table import Column, print_line, print_table
from sslcustomize._diagnosis._reading import (
    Reading,
    parse_time,
    read_journal_stream,
    read_path,
    read_spool_of,
)
from sslcustomize._diagnosis._spools import dropped_records, spools_for_report
from sslcustomize._diagnosis._summary import Summary, where
from sslcustomize._report._journal import IDENTIFIER
from sslcustomize._support._escape import visible
from sslcustomize._support._files import atomic_write

__all__ = ["register"]


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``report``."""
    parser = commands.add_parser(
        "report",
        help="summarise the connections report mode recorded",
        description="Summarise report records: what would fail under enforce, on which "
        "machines, for which programs, and the fix; code that turns verification off, apart. "
        "Reads the policy's report sink, or the journal, or files and directories of files "
        "gathered from many machines (sqlite, jsonl, journalctl -o json).",
    )
    parser.add_argument(
        "--path",
        metavar="PATH",
        action="append",
        help="a sqlite, jsonl or journalctl -o json file, or a directory of them (repeatable)",
    )
    parser.add_argument(
        "--journal", action="store_true", help="read the systemd journal (journalctl -o json)"
    )
    parser.add_argument(
        "--journal-dir", metavar="DIR", help="with --journal: a journal directory to read"
    )
    parser.add_argument(
        "--since",
        metavar="DATE",
        help="only records from DATE on: YYYY-MM-DD (UTC midnight) or an ISO 8601 time",
    )
    parser.add_argument("--json", action="store_true", help="print a JSON document")
    parser.add_argument("--html", metavar="FILE", help="also write an HTML page")
    parser.set_defaults(handler=run)


def _read_paths(paths: list[str], reading: Reading) -> str | None:
    """Read every path into ``reading``; an error text when a path named is not one to read.

    What is inside a directory is never an error: a file that cannot be read is skipped and
    counted. A file named itself must be a record file (a policy file is not).
    """
    for path in paths:
        if not os.path.exists(path):
            if dropped_records(path):
                continue  # none written there, but the dropped ones are worth saying
            return (
                f"--path {path}: no such file or directory (without --path, report reads the "
                "policy's report sink)"
            )
        if os.path.isdir(path):
            read_path(path, reading)
            continue
        before = dict(reading.skipped)
        read_path(path, reading)
        if path not in reading.files:
            # Not a file of records at all (a FIFO, a device, a fake database): say why.
            why = [
                r for (f, r), n in reading.skipped.items() if f == path and n != before.get((f, r))
            ]
            if why:
                return f"--path {path}: cannot read it: {why[0]}"
            continue  # an empty file: no records yet
        found, bad = reading.files[path]
        if bad and not found:
            return (
                f"--path {path}: not a report file: none of its lines is a record (report "
                "reads sqlite and jsonl sink files and journalctl -o json exports)"
            )
    return None


#: Where ``journalctl`` is looked for and what it runs with: the system's directories only.
_SYSTEM_PATH = "/usr/bin:/bin:/usr/sbin:/sbin"


def _read_journal(
    args: argparse.Namespace, since: str | None, reading: Reading, *, journal: bool = True
) -> str | None:
    """Run ``journalctl -o json`` for sslcustomize's records; also read the spools.

    The spools hold what the journal and syslog sinks could not hand over yet (no journald in
    a container, nothing on ``/dev/log``); how many records wait there is kept in
    ``args.spooled``. Without ``journal`` (the ``syslog`` sink, whose records go to the syslog
    daemon's files), and where ``journalctl`` is not installed, only the spools are read.
    """
    import shutil  # noqa: PLC0415 - only to read the journal

    # Looked up in the system's PATH, as it is run: the caller's (root's, under sudo or in a
    # directory another user owns) may name a directory or an empty entry (the cwd) first.
    journalctl = shutil.which("journalctl", path=_SYSTEM_PATH) if journal else None
    if journal and journalctl is None and args.journal:
        return "journalctl is not installed: read exported files with --path"
    if journalctl is not None:
        command = [journalctl, "-o", "json", "--no-pager", f"SYSLOG_IDENTIFIER={IDENTIFIER}"]
        if since:
            command[1:1] = ["--since", since]
        if args.journal_dir:
            command[1:1] = ["--directory", args.journal_dir]
        problem = _stream_journal(command, reading)
        if problem is not None:
            return problem
    journaled = reading.kept
    for spool, owner in spools_for_report():  # records the sink did not take yet
        read_spool_of(spool, owner, reading)
    args.spooled = reading.kept - journaled
    return None


#: The longest ``journalctl`` may run, in seconds.
_JOURNAL_TIMEOUT = 300


def _stream_journal(command: list[str], reading: Reading) -> str | None:
    """Run ``command`` (journalctl) and read its output as it comes; an error text, or None.

    It runs isolated as a fixed command: no shell, the system's ``PATH``, ``/`` as its
    directory, no input. Its output is read line by line as it is printed (a fleet's journal
    is never held whole); its errors go to a temporary file (a pipe left unread could stall it).
    """
    import io  # noqa: PLC0415 - only to read the journal
    import subprocess  # noqa: PLC0415
    import tempfile  # noqa: PLC0415
    import threading  # noqa: PLC0415

    environment = {"PATH": _SYSTEM_PATH, "LC_ALL": "C.UTF-8", "SYSTEMD_PAGER": ""}
    with tempfile.TemporaryFile() as errors:
        try:
            process = subprocess.Popen(  # noqa: S603 - a fixed command, no shell
                command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=errors,
                cwd="/", env=environment,
            )  # fmt: skip
        except OSError as error:
            return f"cannot run journalctl: {error}"
        timer = threading.Timer(_JOURNAL_TIMEOUT, process.kill)
        timer.start()
        try:
            # stdout=PIPE: a buffered reader (it can peek)
            with cast("io.BufferedReader", process.stdout) as output:
                printed = bool(output.peek(1))
                read_journal_stream(output, reading)  # stops at the bound; closing ends it
            returncode = process.wait()
        finally:
            timer.cancel()
        if timer.finished.is_set() and returncode < 0:
            return f"cannot run journalctl: it ran longer than {_JOURNAL_TIMEOUT} s"
        if returncode != 0 and not printed:
            errors.seek(0)
            message = errors.read(1 << 16).decode("utf-8", "replace").strip().splitlines()
            return f"journalctl failed: {message[-1] if message else returncode}"
    return None


def _source(args: argparse.Namespace) -> tuple[str, list[str] | None]:
    """Return what to read: ``("journal", None)`` or a description and the paths."""
    if args.path:
        return ", ".join(args.path), list(args.path)
    if args.journal:
        return "the systemd journal", None
    # Only without --path: a fleet's report needs none of the policy's machinery.
    from sslcustomize._report._recording import sink_name  # noqa: PLC0415
    from sslcustomize._report._records import default_path  # noqa: PLC0415
    from sslcustomize._runtime._state import current_policy  # noqa: PLC0415

    policy = current_policy()
    sink = sink_name(policy)
    if sink == "journal":
        return "the systemd journal", None
    if sink == "syslog":
        return "the spools of the syslog sink (the rest is in the syslog daemon's files)", None
    if sink not in ("sqlite", "jsonl"):
        raise ValueError(
            f"the report sink is {sink!r}, which keeps no file to read; name one with --path"
        )
    path = policy.report_path.value or default_path(sink)
    return path, [path] if os.path.exists(path) else []


def _since(text: str | None) -> tuple[dt.datetime | None, str | None]:
    """``--since``: the time, and how journalctl is told it (UTC). ``ValueError``: not one."""
    if text is None:
        return None, None
    try:
        since = parse_time(text)
    except ValueError:
        raise ValueError(
            f"--since {text}: not a date (YYYY-MM-DD, or an ISO 8601 time such as "
            "2026-12-01T08:00:00+00:00)"
        ) from None
    return since, since.strftime("%Y-%m-%d %H:%M:%S UTC")


def run(args: argparse.Namespace) -> int:
    """Read, validate, group and print."""
    try:
        since, journal_since = _since(args.since)
        source, paths = _source(args)
    except ValueError as error:
        return fail(str(error), as_json=args.json)
    summary = Summary(since)  # records are summarised as they are read, and not kept
    reading = Reading(take=summary.take, take_journal=summary.take_journal)
    # Records are JSON trees and the summary holds no cycle: the cyclic collector would only
    # walk the summary's growing state again and again as it grows.
    collecting = gc.isenabled()
    gc.disable()
    try:
        if paths is None:
            spools_only = source.startswith("the spools")
            problem = _read_journal(args, journal_since, reading, journal=not spools_only)
        else:
            problem = _read_paths(paths, reading)
    finally:
        if collecting:
            gc.enable()
    if problem is not None:
        return fail(problem, as_json=args.json)
    skipped = reading.skipped_list()
    if skipped:
        sys.stderr.write(
            f"sslcustomize: skipped {reading.skipped_total()} record(s) or file(s) of "
            f"{visible(source)} that could not be read as records (each counted in the output)\n"
        )
    groups = summary.hosts()
    analysis = summary.analysis()
    if paths is None:
        dropped = dropped_records(every_user=True)
    else:
        dropped = sum(dropped_records(path, every_user=True) for path in paths)
    if args.html:
        page = _html(groups, summary, source, analysis, skipped=skipped, dropped=dropped,
                     since=args.since)  # fmt: skip
        try:
            atomic_write(args.html, page)
        except OSError as error:
            return fail(f"cannot write {args.html}: {error.strerror or error}")
        sys.stderr.write(f"sslcustomize: wrote {os.path.abspath(args.html)}\n")
    if args.json:
        print_json(
            {
                "source": source,
                "records": summary.count,
                "dropped": dropped,
                "skipped": skipped,
                "skipped_total": reading.skipped_total(),
                "spooled": getattr(args, "spooled", 0),
                "summary": analysis["summary"],
                "would_break": analysis["would_break"],
                "opt_outs": analysis["opt_outs"],
                "programs": analysis["programs"],
                "hosts": groups,
            }
        )
        return EXIT_OK
    _render(analysis, source, summary.count)
    _render_skipped(skipped)
    _render_waiting(getattr(args, "spooled", 0), dropped)
    return EXIT_OK


def _render_waiting(spooled: int, dropped: int) -> None:
    """Say how many records wait in spools, and how many were dropped."""
    if spooled:
        console().print(
            f"{spooled} record(s) wait in the spools, not yet taken by the report sink "
            "(counted above)"
        )
    if dropped:
        console().print(f"{dropped} record(s) could not be written and were dropped")


def _render_commands(entries: list[dict[str, Any]]) -> None:
    """Each command of the fixes once, on a line of its own: a table cell wraps, a paste must not.

    Only commands built from host names are there (see :mod:`.._diagnosis._advice`).
    """
    commands = list(
        dict.fromkeys(c for entry in entries for fix in entry["fixes"] for c in fix["commands"])
    )
    if not commands:
        return
    out = console()
    out.print("Commands to paste (check first; trust only a server you know):")
    for command in commands:
        print_line(out, f"  {shown(command)}")


#: The most skip lines the text output shows (the JSON has them all).
_SKIPS_SHOWN = 20


def _render_skipped(skipped: list[dict[str, Any]]) -> None:
    """One line per file and reason: ``skipped 2 in /fleet/web1.jsonl: port is not ...``."""
    out = console()
    for item in skipped[:_SKIPS_SHOWN]:
        out.print(
            f"skipped {item['count']} in {shown(item['source'])}: {shown(item['reason'])}",
            soft_wrap=True,
        )
    if len(skipped) > _SKIPS_SHOWN:
        rest = sum(item["count"] for item in skipped[_SKIPS_SHOWN:])
        out.print(
            f"skipped {rest} more in {len(skipped) - _SKIPS_SHOWN} other place(s): see --json"
        )


def _user_names(uids: list[Any]) -> list[str]:
    """``root (0)``, ``nobody (65534)``: a uid with its name on this machine where it has one."""
    import pwd  # noqa: PLC0415 - POSIX, only for this column

    names = []
    for uid in uids:
        try:
            names.append(f"{pwd.getpwuid(int(uid)).pw_name} ({uid})")
        except (KeyError, ValueError, TypeError, OverflowError):  # noqa: PERF203 - a uid of another machine
            names.append(str(uid))
    return names


#: The marker of a server whose host is not a host name, in text and HTML.
SUSPICIOUS = "suspicious: not a host name"
#: The most sources a cell names (the JSON has them all).
_SOURCES_SHOWN = 3


def _server_cell(entry: dict[str, Any]) -> str:
    """The server, escaped; flagged when its host is not a host name."""
    where = shown(entry["where"])
    return f"{where} [bold red]({SUSPICIOUS})[/]" if entry["suspicious"] else where


def _sources(sources: list[str]) -> str:
    """Where the records came from: files, spools (with their owner's uid), the journal."""
    text = ", ".join(sources[:_SOURCES_SHOWN])
    if len(sources) > _SOURCES_SHOWN:
        text += f" and {len(sources) - _SOURCES_SHOWN} more"
    return shown(text)


def _render(analysis: dict[str, Any], source: str, count: int) -> None:
    """Print the report as text: the summary line, then a table per kind of server."""
    out = console()
    if not count:
        out.print(f"no records in {shown(source)}")
        return
    out.print(f"{count} record(s) in {shown(source)}: {shown(analysis['summary']['line'])}")
    # Records read from the journal name the user that wrote them (its trusted _UID).
    users = any(e["uids"] for e in (*analysis["would_break"], *analysis["opt_outs"]))
    if analysis["would_break"]:
        print_table(out, "What would fail under enforce", *_break_table(analysis, users=users))
        _render_commands(analysis["would_break"])
    if analysis["opt_outs"]:
        print_table(
            out,
            "Code that turns verification off here (enforce still allows it)",
            *_opt_out_table(analysis, users=users),
        )
    print_table(out, "By program", *_program_table(analysis))


def _joined(values: list[Any]) -> str:
    """Values of a cell, comma-separated, shown as written."""
    return shown(", ".join(map(str, values)))


#: What a word too long for a column becomes: folded into lines, or cut with an ellipsis
#: (rich's default, which the users column and the table of programs have).
_FOLD, _CUT = "fold", "ellipsis"


def _break_table(analysis: dict[str, Any], *, users: bool) -> tuple[list[Column], list[list[str]]]:
    """The columns and rows of the servers that would fail under enforce."""
    columns = [(name, _FOLD) for name in ("server", "reasons", "programs", "machines")]
    if users:
        columns.append(("users", _CUT))
    columns += [(name, _FOLD) for name in ("from", "count", "fix")]
    rows = []
    for entry in analysis["would_break"]:
        row = [
            _server_cell(entry),
            _joined(entry["reasons"]),
            _joined(entry["programs"]),
            _joined(entry["machines"]),
            _sources(entry["sources"]),
            str(entry["count"]),
            shown("; ".join(f["fix"] for f in entry["fixes"])),
        ]
        if users:
            row.insert(4, _joined(_user_names(entry["uids"])))
        rows.append(row)
    return columns, rows


def _opt_out_table(
    analysis: dict[str, Any], *, users: bool
) -> tuple[list[Column], list[list[str]]]:
    """The columns and rows of the servers code reached with verification off."""
    names = ("server", "programs", "machines", *(("users",) if users else ()), "from", "count")
    rows = []
    for entry in analysis["opt_outs"]:
        row = [
            _server_cell(entry),
            _joined(entry["programs"]),
            _joined(entry["machines"]),
            _sources(entry["sources"]),
            str(entry["count"]),
        ]
        if users:
            row.insert(3, _joined(_user_names(entry["uids"])))
        rows.append(row)
    return [(name, _FOLD) for name in names], rows


def _program_table(analysis: dict[str, Any]) -> tuple[list[Column], list[list[str]]]:
    """The columns and rows of the programs: the servers each would fail on or opts out for."""
    names = ("program", "would fail on", "turns verification off for", "machines")
    rows = [
        [
            shown(view["program"]),
            _joined(view["would_break"]) or "-",
            _joined(view["opt_outs"]) or "-",
            _joined(view["machines"]),
        ]
        for view in analysis["programs"]
    ]
    return [(name, _CUT) for name in names], rows


# One colour per reason in the chart (the rest share grey), readable on white.
_COLOURS = {
    "expired": "#d62728",
    "hostname_mismatch": "#ff7f0e",
    "self_signed": "#9467bd",
    "unknown_issuer": "#1f77b4",
    "incomplete_chain": "#17becf",
    "pin_mismatch": "#8c564b",
    "code_opt_out": "#7f7f7f",
}
_DAYS = 30  # the chart shows at most the last 30 days, every day of them
_MIN_DAYS = 7  # and at least a week, so that one day is one bar, not the whole width
_BAR = 36  # the widest a bar is drawn, in pixels


def _by_day(summary: Summary) -> tuple[list[str], list[str], dict[tuple[str, str], int]]:
    """Count records per day and reason: the days, the reasons, the counts."""
    counts = summary.by_day()
    reasons = sorted({reason for _, reason in counts})
    if not counts:
        return [], reasons, counts
    last = dt.date.fromisoformat(max(day for day, _ in counts))
    first = dt.date.fromisoformat(min(day for day, _ in counts))
    span = min(max((last - first).days + 1, _MIN_DAYS), _DAYS)
    days = [(last - dt.timedelta(days=n)).isoformat() for n in reversed(range(span))]
    return days, reasons, counts


def _chart(summary: Summary) -> str:
    """An inline SVG: records per day, stacked by reason, with a legend. No script."""
    days, reasons, counts = _by_day(summary)
    if not days:
        return ""
    width, height, left, bottom, top = 640, 220, 40, 40, 10
    totals = [sum(counts.get((day, r), 0) for r in reasons) for day in days]
    peak = max(totals) or 1
    step = (width - left - 10) / len(days)
    scale = (height - bottom - top) / peak
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" role="img" width="{width}" '
        f'height="{height + 20 * len(reasons)}" aria-label="records per day and reason">',
        f'<line x1="{left}" y1="{height - bottom}" x2="{width - 10}" y2="{height - bottom}" '
        'stroke="#333"/>',
        f'<text x="{left - 6}" y="{top + 10}" text-anchor="end" font-size="11">{peak}</text>',
    ]
    for index, day in enumerate(days):
        bar_width = min(max(step - 4, 1), _BAR)
        x = left + index * step + (step - bar_width) / 2
        y = float(height - bottom)
        for reason in reasons:
            count = counts.get((day, reason), 0)
            if not count:
                continue
            bar = count * scale
            y -= bar
            colour = _COLOURS.get(reason, "#bbbbbb")
            parts.append(
                f'<rect class="bar" x="{x:.1f}" y="{y:.1f}" width="{bar_width:.1f}" '
                f'height="{bar:.1f}" fill="{colour}"><title>{_e(day)}: {count} '
                f"{_e(reason)}</title></rect>"
            )
        if index % max(1, len(days) // 6) == 0:
            parts.append(
                f'<text x="{x:.1f}" y="{height - bottom + 14}" font-size="10">{_e(day[5:])}</text>'
            )
    for index, reason in enumerate(reasons):
        y = height + 20 * index
        colour = _COLOURS.get(reason, "#bbbbbb")
        parts.append(
            f'<rect x="{left}" y="{y - 10}" width="12" height="12" fill="{colour}"/>'
            f'<text x="{left + 18}" y="{y}" font-size="12">{_e(reason)}</text>'
        )
    parts.append("</svg>")
    return "".join(parts)


_STYLE = """body{font-family:system-ui,sans-serif;margin:2em;color:#222;max-width:72em}
td,th{border:1px solid #ccc;padding:4px 8px;text-align:left;vertical-align:top}
table{border-collapse:collapse;margin:1em 0}
code{background:#f3f3f3;padding:1px 4px}td.from{overflow-wrap:anywhere;min-width:8em}
h2{margin-top:1.5em}.none{color:#2a7d2a}
#summary{font-size:1.3em;font-weight:600;padding:.6em 1em;border-left:6px solid #d62728;
background:#fdf2f2}#summary.clean{border-color:#2a7d2a;background:#f2fbf2}
.program{border:1px solid #ddd;border-radius:6px;padding:.4em 1em;margin:.8em 0}
.program h3{margin:.3em 0;font-family:ui-monospace,monospace}.muted{color:#666}
.suspicious{color:#b00;font-weight:600}"""


def _e(value: Any) -> str:
    """A value from a record (a server's or a certificate's words), escaped for HTML."""
    return html.escape(visible(str(value)))


def _fix_html(fix: dict[str, Any]) -> str:
    """A fix's words escaped, each of its commands in its own ``<code class="command">``."""
    text, parts, position = fix["fix"], [], 0
    for command in fix["commands"]:
        index = text.find(command, position)
        if index < 0:
            continue
        parts.append(_e(text[position:index]))
        parts.append(f'<code class="command">{_e(command)}</code>')
        position = index + len(command)
    parts.append(_e(text[position:]))
    return "".join(parts)


def _server_html(entry: dict[str, Any]) -> str:
    """The server, escaped; flagged when its host is not a host name."""
    flag = f' <span class="suspicious">({SUSPICIOUS})</span>' if entry["suspicious"] else ""
    return f"<strong>{_e(entry['where'])}</strong>{flag}"


def _programs_html(analysis: dict[str, Any]) -> str:
    """A view per program: the servers it would fail on and those it reaches unverified."""
    if not analysis["programs"]:
        return '<p class="none">No program would fail, and none turns verification off.</p>'
    servers = {entry["where"]: entry for entry in analysis["would_break"]}
    parts = []
    for view in analysis["programs"]:
        items = "".join(
            f"<li>{_server_html(servers[where])}: "
            + "; ".join(
                f'{_e(f["reason"])}: <span class="fix">{_fix_html(f)}</span>'
                for f in servers[where]["fixes"]
            )
            + "</li>"
            for where in view["would_break"]
        )
        off = ", ".join(_e(where) for where in view["opt_outs"])
        parts.append(
            f'<section class="program"><h3>{_e(view["program"])}</h3>'
            f'<p class="muted">on {_e(", ".join(view["machines"]))}</p>'
            + (f"<p>Would fail under enforce on:</p><ul>{items}</ul>" if items else "")
            + (f"<p>Turns verification off for: {off}</p>" if off else "")
            + "</section>"
        )
    return '<div id="programs">' + "".join(parts) + "</div>"


def _who_html(entry: dict[str, Any]) -> str:
    """Machines, users and the files or spools the records came from, for one server."""
    said = [f"on {_e(', '.join(entry['machines']))}"]
    if entry["uids"]:
        said.append(f"users {_e(', '.join(_user_names(entry['uids'])))}")
    if entry["sources"]:
        said.append(f"from {_e(', '.join(entry['sources']))}")
    return f'<span class="muted">{"; ".join(said)}</span>'


def _skipped_html(skipped: list[dict[str, Any]]) -> str:
    if not skipped:
        return '<p id="skipped" class="none">None: every record read was valid.</p>'
    rows = "\n".join(
        f"<tr><td>{_e(item['source'])}</td><td>{_e(item['reason'])}</td>"
        f"<td>{item['count']}</td></tr>"
        for item in skipped
    )
    return (
        '<table id="skipped"><tr><th>file or source</th><th>why skipped</th><th>count</th></tr>'
        f"\n{rows}\n</table>"
    )


def _period(summary: Summary, since: str | None) -> str:
    """``2026-12-01 10:00 to 2026-12-04 10:00 UTC`` (the records' own times), for the page."""
    period = summary.period()
    if period is None:
        return "no records" + (f" since {since}" if since else "")
    first, last = (t.strftime("%Y-%m-%d %H:%M") for t in period)
    return f"{first} to {last} UTC" + (f" (asked: since {since})" if since else "")


def _html(
    groups: list[dict[str, Any]],
    summarised: Summary,
    path: str,
    analysis: dict[str, Any] | None = None,
    *,
    skipped: list[dict[str, Any]] | None = None,
    dropped: int = 0,
    since: str | None = None,
) -> Iterator[str]:
    """A standalone page, in pieces: the summary line, a view per program, the fix per server.

    Every value from a record is escaped (control characters made visible), and each command
    is in its own ``<code class="command">``; the page loads nothing (its CSP forbids it).
    The tables of servers come a row at a time: a fleet's page is tens of megabytes.
    """
    e = _e
    analysis = analysis or summarised.analysis()
    skipped = skipped or []
    summary = analysis["summary"]
    if analysis["opt_outs"]:
        opt_items = "\n".join(
            f"<li>{_server_html(entry)}: {e(', '.join(entry['programs']))} "
            f"{_who_html(entry)}; {entry['count']} connection(s)</li>"
            for entry in analysis["opt_outs"]
        )
        opt_outs = f'<ul id="opt-outs">{opt_items}</ul>'
    else:
        opt_outs = '<p id="opt-outs" class="none">None recorded.</p>'
    clean = "" if summary["programs"] else ' class="clean"'
    generated = dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    total = sum(item["count"] for item in skipped)
    yield f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<title>sslcustomize report</title><style>{_STYLE}</style></head><body>
<h1>sslcustomize report</h1>
<p id="summary"{clean}>{e(summary["line"])}</p>
<p id="about" class="muted">Generated {generated}. Source: {e(path)}; {summarised.count} record(s),
{len(groups)} server(s), covering {e(_period(summarised, since))};
<span id="dropped">{dropped} record(s) dropped</span> (could not be written);
<span id="skipped-count">{total} skipped</span> (not valid records).</p>
<h2>By program (who to talk to)</h2>
{_programs_html(analysis)}
<h2>What would break under enforce, and the fix</h2>
"""
    if analysis["would_break"]:
        yield (
            '<table id="would-break"><tr><th>server</th><th>reasons</th><th>programs</th>'
            "<th>machines</th><th>users</th><th>from</th><th>count</th><th>fix</th></tr>\n"
        )
        yield from _lines(_break_row(entry) for entry in analysis["would_break"])
        yield "\n</table>"
    else:
        yield '<p id="would-break" class="none">Nothing: every recorded connection verified.</p>'
    yield f"""
<h2>Code that turns verification off here</h2>
<p class="muted">Enforce still allows these (the code asked for it); they are not breakage.
<code>sslcustomize lint</code> finds the lines, <code>allow_code_opt_out = false</code> refuses
them.</p>
{opt_outs}
<h2>Over time</h2>
<figure id="chart">{_chart(summarised) or "<p>No records.</p>"}</figure>
<h2>Servers</h2>
<table id="hosts"><tr><th>server</th><th>count</th><th>reasons</th><th>programs</th>
<th>machines</th><th>contexts</th><th>first seen</th><th>last seen</th></tr>
"""
    yield from _lines(_host_row(group) for group in groups)
    yield f"""
</table>
<h2>Skipped (not valid records)</h2>
<p class="muted">Records are read as hostile input: a record whose fields have the wrong type or
range, or a file that is not a regular file of records, is skipped and counted here.</p>
{_skipped_html(skipped)}
</body></html>
"""


def _lines(rows: Iterable[str]) -> Iterator[str]:
    """Each of ``rows``, a newline between two."""
    for index, row in enumerate(rows):
        yield f"\n{row}" if index else row


def _break_row(entry: dict[str, Any]) -> str:
    """A server that would break under enforce, as a row of the page: reasons, who, the fix."""
    e = _e
    return (
        f'<tr class="host"><td>{_server_html(entry)}</td>'
        f"<td>{e(', '.join(entry['reasons']))}</td>"
        f"<td>{e(', '.join(entry['programs']))}</td>"
        f"<td>{e(', '.join(entry['machines']))}</td>"
        f"<td>{e(', '.join(_user_names(entry['uids']))) or '-'}</td>"
        f'<td class="from">{e(", ".join(entry["sources"]))}</td>'
        f"<td>{entry['count']}</td><td>"
        + "<br>".join(
            f'{e(fix["reason"])}: <span class="fix">{_fix_html(fix)}</span>'
            for fix in entry["fixes"]
        )
        + "</td></tr>"
    )


def _host_row(group: dict[str, Any]) -> str:
    """A server among every record, as a row of the page."""
    e = _e
    return (
        "<tr>"
        + "".join(
            f"<td>{e(value)}</td>"
            for value in (
                where(group["host"], group["port"]),
                group["count"],
                ", ".join(group["reasons"]),
                ", ".join(map(str, group["programs"])),
                ", ".join(map(str, group["machines"])),
                ", ".join(map(str, group["contexts"])),
                str(group["first_seen"])[:16].replace("T", " "),
                str(group["last_seen"])[:16].replace("T", " "),
            )
        )
        + "</tr>"
    )
