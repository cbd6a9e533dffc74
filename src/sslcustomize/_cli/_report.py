"""``sslcustomize report``: summarise what report mode and code opt-outs recorded."""

from __future__ import annotations

import argparse
import html
import os
from typing import Any

from .._files import atomic_write
from .._report import default_path, dropped_records, read_records
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
        ):
            group[field].extend(v for v in value if v is not None and v not in group[field])
        time = str(record.get("time"))
        group["first_seen"] = min(str(group["first_seen"]), time)
        group["last_seen"] = max(str(group["last_seen"]), time)
    return sorted(groups.values(), key=lambda g: (-g["count"], g["host"]))


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
        records: list[dict[str, Any]] = []
    else:
        try:
            records = read_records(path)
        except (OSError, ValueError) as error:
            return fail(f"cannot read {path}: {error}")
    if args.since:
        records = [r for r in records if str(r.get("time", "")) >= args.since]
    groups = summarise(records)
    if args.html:
        atomic_write(args.html, _html(groups, path))
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
            ", ".join(g["reasons"]),
            escape(", ".join(g["programs"])),
            escape(", ".join(g["contexts"])),
            g["first_seen"],
            g["last_seen"],
        )
    out.print(table)


def _html(groups: list[dict[str, Any]], path: str) -> str:
    rows = "\n".join(
        "<tr>"
        + "".join(
            f"<td>{html.escape(str(value))}</td>"
            for value in (
                f"{g['host']}:{g['port']}" if g["port"] else g["host"],
                g["count"],
                ", ".join(g["reasons"]),
                ", ".join(g["programs"]),
                ", ".join(g["contexts"]),
                g["first_seen"],
                g["last_seen"],
            )
        )
        + "</tr>"
        for g in groups
    )
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>sslcustomize report</title>
<style>body{{font-family:sans-serif}} td,th{{border:1px solid #ccc;padding:4px 8px}}
table{{border-collapse:collapse}}</style></head><body>
<h1>sslcustomize report</h1><p>Source: {html.escape(path)}</p>
<table><tr><th>host</th><th>count</th><th>reasons</th><th>programs</th><th>contexts</th>
<th>first seen</th><th>last seen</th></tr>
{rows}
</table></body></html>
"""
