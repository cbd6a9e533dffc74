"""``sslcustomize report``: summarise what report mode and code opt-outs recorded."""

from __future__ import annotations

import argparse
import html
import os
import sys
from typing import Any

from .._files import atomic_write
from .._reasons import fix_for_record, target_text
from .._report import default_path, dropped_records, read_records
from .._seen import relabel_records
from .._state import current_policy
from . import EXIT_OK
from ._output import console, fail, print_json

__all__ = ["register", "summarise"]


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``report``."""
    parser = commands.add_parser(
        "report",
        help="summarise the connections report mode recorded",
        description="Summarise the records of the policy's report sink (or of FILE): for each "
        "host, the reasons, the programs and contexts, how many times, first and last seen.",
    )
    parser.add_argument("--path", metavar="FILE", help="a sqlite or jsonl sink file to read")
    parser.add_argument("--since", metavar="DATE", help="only records from DATE (YYYY-MM-DD) on")
    parser.add_argument("--json", action="store_true", help="print a JSON document")
    parser.add_argument("--html", metavar="FILE", help="also write an HTML page")
    parser.set_defaults(handler=run)


def summarise(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Group records by host and port: reasons, programs, contexts, count, first and last."""
    groups: dict[tuple[str, Any], dict[str, Any]] = {}
    for record in records:
        key = (str(record.get("host")), record.get("port"))
        group = groups.setdefault(
            key,
            {
                "host": key[0],
                "port": key[1],
                "count": 0,
                "reasons": [],
                "programs": [],
                "contexts": [],
                "rules": [],
                "missing_intermediates": [],
                "first_seen": record.get("time"),
                "last_seen": record.get("time"),
            },
        )
        group["count"] += 1
        for field, value in (
            ("reasons", record.get("reasons", [])),
            ("programs", [record.get("program")]),
            ("contexts", [record.get("context")]),
            ("rules", [record.get("rule")]),
            ("missing_intermediates", [record.get("missing_intermediate")]),
        ):
            group[field].extend(v for v in value if v is not None and v not in group[field])
        time = str(record.get("time"))
        group["first_seen"] = min(str(group["first_seen"]), time)
        group["last_seen"] = max(str(group["last_seen"]), time)
    return sorted(groups.values(), key=lambda g: (-g["count"], g["host"]))


def _unreadable_lines(path: str, read: int) -> int:
    """Return how many non-blank lines of a JSONL file were not records (0 for SQLite)."""
    with open(path, "rb") as file:
        if file.read(16).startswith(b"SQLite format 3"):
            return 0
        file.seek(0)
        lines = sum(1 for line in file if line.strip())
    return max(0, lines - read)


def _source(args: argparse.Namespace) -> str:
    if args.path:
        return str(args.path)
    policy = current_policy()
    sink = policy.report_sink.value
    if sink not in ("sqlite", "jsonl"):
        raise ValueError(
            f"the report sink is {sink!r}, which keeps no file to read; name one with --path"
        )
    return policy.report_path.value or default_path(sink)


def run(args: argparse.Namespace) -> int:
    """Read, group and print."""
    try:
        path = _source(args)
    except ValueError as error:
        return fail(str(error))
    if not os.path.exists(path):
        if args.path:  # named on purpose: a typo must not read as "nothing to report"
            return fail(
                f"--path {path}: no such file (without --path, report reads the policy's "
                "report file)",
                as_json=args.json,
            )
        records: list[dict[str, Any]] = []
    else:
        try:
            records = read_records(path)
            skipped = _unreadable_lines(path, len(records))
        except (OSError, ValueError) as error:
            return fail(f"cannot read {path}: {getattr(error, 'strerror', None) or error}")
        if skipped:
            sys.stderr.write(
                f"sslcustomize: skipped {skipped} unreadable line(s) of {path} (torn writes?)\n"
            )
    records = relabel_records(records)  # sightings come from every record, not only recent
    if args.since:
        records = [r for r in records if str(r.get("time", "")) >= args.since]
    groups = summarise(records)
    if args.html:
        try:
            atomic_write(args.html, _html(groups, records, path))
        except OSError as error:
            return fail(f"cannot write {args.html}: {error.strerror or error}")
        sys.stderr.write(f"sslcustomize: wrote {os.path.abspath(args.html)}\n")
    dropped = dropped_records(path)
    if args.json:
        print_json({"source": path, "records": len(records), "dropped": dropped, "hosts": groups})
        return EXIT_OK
    _render(groups, path, len(records))
    if dropped:
        console().print(f"{dropped} record(s) could not be written and were dropped")
    return EXIT_OK


def _render(groups: list[dict[str, Any]], path: str, count: int) -> None:
    from rich.markup import escape  # noqa: PLC0415 - rich only for the CLI
    from rich.table import Table  # noqa: PLC0415

    out = console()
    if not groups:
        out.print(f"no records in {escape(path)}")
        return
    table = Table(title=f"{count} record(s) in {escape(path)}", title_justify="left")
    for column in ("host", "count", "reasons", "programs", "contexts", "first seen", "last seen"):
        table.add_column(column)
    for g in groups:
        where = f"{g['host']}:{g['port']}" if g["port"] else g["host"]
        table.add_row(
            escape(where),
            str(g["count"]),
            escape(", ".join(g["reasons"]) + _missing_text(g["missing_intermediates"])),
            escape(", ".join(g["programs"])),
            escape(", ".join(g["contexts"])),
            g["first_seen"],
            g["last_seen"],
        )
    out.print(table)


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
_DAYS = 30  # the chart shows the last 30 days that have records


def _by_day(
    records: list[dict[str, Any]],
) -> tuple[list[str], list[str], dict[tuple[str, str], int]]:
    """Count records per day and reason: the days, the reasons, the counts."""
    counts: dict[tuple[str, str], int] = {}
    for record in records:
        day = str(record.get("time", ""))[:10]
        for reason in record.get("reasons") or ["(none)"]:
            counts[day, str(reason)] = counts.get((day, str(reason)), 0) + 1
    days = sorted({day for day, _ in counts})[-_DAYS:]
    reasons = sorted({reason for _, reason in counts})
    return days, reasons, counts


def _chart(records: list[dict[str, Any]]) -> str:
    """An inline SVG: records per day, stacked by reason, with a legend. No script."""
    days, reasons, counts = _by_day(records)
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
        x = left + index * step + 2
        y = float(height - bottom)
        for reason in reasons:
            count = counts.get((day, reason), 0)
            if not count:
                continue
            bar = count * scale
            y -= bar
            colour = _COLOURS.get(reason, "#bbbbbb")
            parts.append(
                f'<rect class="bar" x="{x:.1f}" y="{y:.1f}" width="{max(step - 4, 1):.1f}" '
                f'height="{bar:.1f}" fill="{colour}"><title>{html.escape(day)}: {count} '
                f"{html.escape(reason)}</title></rect>"
            )
        if index % max(1, len(days) // 6) == 0:
            parts.append(
                f'<text x="{x:.1f}" y="{height - bottom + 14}" font-size="10">'
                f"{html.escape(day[5:])}</text>"
            )
    for index, reason in enumerate(reasons):
        y = height + 20 * index
        colour = _COLOURS.get(reason, "#bbbbbb")
        parts.append(
            f'<rect x="{left}" y="{y - 10}" width="12" height="12" fill="{colour}"/>'
            f'<text x="{left + 18}" y="{y}" font-size="12">{html.escape(reason)}</text>'
        )
    parts.append("</svg>")
    return "".join(parts)


def _where(host: Any, port: Any) -> str:
    return target_text(str(host), port) if port else str(host)


def _missing_text(names: list[str]) -> str:
    """`` (missing intermediate 'CN=...')`` for the reasons column, or nothing."""
    return "".join(f" (missing intermediate '{name}')" for name in names)


def _would_break(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The hosts whose connections enforce mode would reject, with each reason's fix."""
    hosts: dict[tuple[str, Any], set[str]] = {}
    seen: dict[tuple[str, Any], str] = {}
    for record in records:
        if record.get("verdict") in ("rejected", "opt_out"):
            key = (str(record.get("host")), record.get("port"))
            hosts.setdefault(key, set()).update(
                r for r in record.get("reasons") or [] if r != "code_opt_out"
            )
            if record.get("missing_intermediate"):
                seen[key] = (
                    f"it does not send the intermediate '{record['missing_intermediate']}'; "
                    f"{record.get('seen')}"
                )

    def fix(reason: str, host: str, port: Any) -> str:
        text = fix_for_record(reason, host, port)
        found = seen.get((host, port)) if reason == "incomplete_chain" else None
        return f"{text}: {found}" if found else text

    return [
        {
            "where": _where(host, port),
            "fixes": [(r, fix(r, host, port)) for r in sorted(reasons)],
        }
        for (host, port), reasons in sorted(hosts.items(), key=lambda kv: str(kv[0]))
    ]


_STYLE = """body{font-family:system-ui,sans-serif;margin:2em;color:#222;max-width:72em}
td,th{border:1px solid #ccc;padding:4px 8px;text-align:left;vertical-align:top}
table{border-collapse:collapse;margin:1em 0}code{background:#f3f3f3;padding:1px 4px}
h2{margin-top:1.5em}.none{color:#2a7d2a}"""


def _html(groups: list[dict[str, Any]], records: list[dict[str, Any]], path: str) -> str:
    """A standalone page: chart over time, what enforce would break and the fixes, the hosts.

    Every value from a record is escaped; the page loads nothing (its CSP forbids it).
    """
    e = html.escape
    rows = "\n".join(
        "<tr>"
        + "".join(
            f"<td>{e(str(value))}</td>"
            for value in (
                _where(g["host"], g["port"]),
                g["count"],
                ", ".join(g["reasons"]),
                ", ".join(map(str, g["programs"])),
                ", ".join(map(str, g["contexts"])),
                str(g["first_seen"])[:16].replace("T", " "),
                str(g["last_seen"])[:16].replace("T", " "),
            )
        )
        + "</tr>"
        for g in groups
    )
    breaking = _would_break(records)
    if breaking:
        items = "\n".join(
            f'<li class="host"><strong>{e(item["where"])}</strong><ul>'
            + "".join(
                f'<li>{e(reason)}: <code class="fix">{e(fix)}</code></li>'
                for reason, fix in item["fixes"]
            )
            + "</ul></li>"
            for item in breaking
        )
        enforce = f'<ul id="would-break">{items}</ul>'
    else:
        enforce = (
            '<p id="would-break" class="none">Nothing: every recorded connection verified.</p>'
        )
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<title>sslcustomize report</title><style>{_STYLE}</style></head><body>
<h1>sslcustomize report</h1>
<p>Source: {e(path)}; {len(records)} record(s), {len(groups)} host(s).</p>
<h2>Over time</h2>
<figure id="chart">{_chart(records) or "<p>No records.</p>"}</figure>
<h2>What would break under enforce, and the fix</h2>
{enforce}
<h2>Hosts</h2>
<table id="hosts"><tr><th>host</th><th>count</th><th>reasons</th><th>programs</th>
<th>contexts</th><th>first seen</th><th>last seen</th></tr>
{rows}
</table></body></html>
"""
