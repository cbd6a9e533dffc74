"""``sslcustomize trusted``: what every layer trusts beyond the defaults, and until when.

One row per exception (its pins and CAs), and one per trust source of each layer's ``trust``
list, with the file and line that says so. Each layer is read on its own, so a broken file
hides nothing of the others; the merged policy says which rows are in effect (a row a lock
overrides, an expired exception, or one in a layer the fail-closed fallback dropped is not).
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
from typing import Any

from sslcustomize._cli import EXIT_OK, EXIT_USAGE
from sslcustomize._cli._escape import shown
from sslcustomize._cli._output import console, print_json
from sslcustomize._policy._load import policy_files
from sslcustomize._policy._model import HostException, LayerFile, Policy, TrustSource
from sslcustomize._support._frozen import dataclass
from sslcustomize._support._paths import pretty
from sslcustomize._trust._checked_policy import load_policy, read_layer
from sslcustomize.exceptions import PolicyError

__all__ = ["LayerRead", "exception_kind", "read_layers", "register"]

#: How soon an expiry is worth a mention (``status`` counts these too).
SOON_DAYS = 14


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``trusted``."""
    parser = commands.add_parser(
        "trusted",
        help="list the exceptions, pins and CAs every layer trusts",
        description="List what each policy layer trusts: every exception (host, pins or CAs, "
        "expiry, reason) and every source of its trust list, with the file and line that "
        "says so, and whether it is in effect. Remove one with `sslcustomize untrust`.",
    )
    parser.add_argument("--json", action="store_true", help="print a JSON document")
    parser.set_defaults(handler=run)


@dataclass(frozen=True, slots=True, kw_only=True)
class LayerRead:
    """One existing policy file, read on its own: its settings or why it cannot be used."""

    layer: str
    path: str
    file: LayerFile | None
    error: str | None


def read_layers() -> list[LayerRead]:
    """Read every layer's file that exists (the process layer's even when it does not)."""
    found = []
    for layer, path, required in policy_files():
        if not required and not os.path.lexists(path):
            continue
        try:
            file, error = read_layer(layer, path), None
        except PolicyError as problem:
            file, error = None, str(problem)
        found.append(LayerRead(layer=layer, path=path, file=file, error=error))
    return found


def exception_kind(exception: HostException) -> str:
    """Name what an exception trusts: ``pin``, ``ca``, ``pin+ca`` or ``mode`` (mode only)."""
    kinds = [name for name, present in (("pin", exception.pins), ("ca", exception.ca)) if present]
    return "+".join(kinds) or "mode"


def _days_left(expires: dt.date | None, today: dt.date) -> int | None:
    return None if expires is None else (expires - today).days


def _exception_row(
    layer: str, exception: HostException, effective: Policy, today: dt.date
) -> dict[str, Any]:
    in_policy = any(e.origin == exception.origin for e in effective.exceptions)
    expired = exception.expired(today)
    if expired:
        why_not = f"expired on {exception.expires}"
    elif not in_policy:
        why_not = _overridden("exception", effective)
    else:
        why_not = None
    return {
        "layer": layer,
        "kind": exception_kind(exception),
        "host": str(exception.host),
        "pins": list(exception.pins),
        "ca": [str(source) for source in exception.ca],
        "check_hostname": exception.check_hostname,
        "mode": exception.mode,
        "expires": exception.expires,
        "days_left": _days_left(exception.expires, today),
        "expired": expired,
        "reason": exception.reason,
        "path": exception.origin.path,
        "line": exception.origin.line,
        "in_effect": why_not is None,
        "why_not": why_not,
    }


def _trust_row(layer: str, source: TrustSource, effective: Policy) -> dict[str, Any]:
    in_policy = source in effective.trust or any(str(s) == str(source) for s in effective.trust)
    return {
        "layer": layer,
        "kind": source.kind,
        "host": None,
        "source": str(source),
        "path": source.origin.path,
        "line": source.origin.line,
        "in_effect": in_policy,
        "why_not": None if in_policy else _overridden("trust", effective),
    }


def _overridden(key: str, effective: Policy) -> str:
    """Say why a layer's entry is not in the effective policy."""
    if key in effective.locked:
        return f"the system policy locks {key} ({effective.locked[key]})"
    if effective.fallback:
        return "policy errors: this layer is not in the fallback policy"
    return "not in the effective policy"


def gather(today: dt.date | None = None) -> dict[str, Any]:
    """Collect every layer's exceptions and trust sources, as plain data."""
    today = today or dt.date.today()
    effective = load_policy()
    layers = read_layers()
    rows: list[dict[str, Any]] = []
    for read in layers:
        if read.file is None:
            continue
        rows += [_trust_row(read.layer, source, effective) for source in read.file.trust]
        rows += [_exception_row(read.layer, e, effective, today) for e in read.file.exceptions]
    return {
        "layers": [
            {"layer": read.layer, "path": read.path, "error": read.error} for read in layers
        ],
        "trusted": rows,
        "errors": [read.error for read in layers if read.error],
    }


def run(args: argparse.Namespace) -> int:
    """List what is trusted; exit 2 when a file cannot be read (the list is then partial)."""
    document = gather()
    status = EXIT_USAGE if document["errors"] else EXIT_OK
    if args.json:
        print_json(document)
        return status
    _render(document)
    return status


def _expiry_text(row: dict[str, Any]) -> str:
    if row["expires"] is None:
        return "never"
    if row["expired"]:
        return f"[red]{row['expires']} (expired)[/]"
    if row["days_left"] <= SOON_DAYS:
        return f"[yellow]{row['expires']} ({row['days_left']} days)[/]"
    return str(row["expires"])


def _what(row: dict[str, Any]) -> str:
    """The pins and CAs of an exception, the source of a trust entry."""
    if row["host"] is None:
        return shown(row["source"])
    parts = [*row["pins"], *(f"CA {pretty(ca)}" for ca in row["ca"])]
    if row["mode"]:
        parts.append(f"mode {row['mode']}")
    if not row["check_hostname"]:
        parts.append("name not checked")
    return shown(", ".join(parts))


def _render(document: dict[str, Any]) -> None:
    from rich.table import Table  # noqa: PLC0415 - rich only for the CLI

    out = console()
    for layer in document["layers"]:
        if layer["error"]:
            out.print(f"[red]cannot use {shown(layer['path'])}:[/] {shown(layer['error'])}")
    rows = document["trusted"]
    if not rows:
        if not document["layers"]:
            out.print("nothing trusted: no policy file exists (sslcustomize is idle)")
        else:
            out.print("nothing trusted beyond the built-in default (the system store)")
        return
    wheres = [
        f"{pretty(row['path'] or '')}:{row['line']}" if row["line"] else row["path"] or ""
        for row in rows
    ]
    table = Table(title="Trusted", title_justify="left")
    for column in ("layer", "host", "kind", "trusts", "expires", "reason"):
        # A pin (51 characters) is copied whole more often than a reason is read whole.
        table.add_column(column, overflow="fold", min_width=51 if column == "trusts" else None)
    # file:line whole on one line, whatever else has to wrap: it is what a person opens.
    table.add_column("from", no_wrap=True, min_width=max(map(len, wheres)))
    for row, where in zip(rows, wheres, strict=True):
        state = "" if row["in_effect"] else f"\n[red]not in effect: {shown(row['why_not'])}[/]"
        is_exception = row["host"] is not None
        table.add_row(
            row["layer"],
            shown(row["host"]) if is_exception else "(every host)",
            row["kind"],
            _what(row) + state,
            _expiry_text(row) if is_exception else "",
            shown(row["reason"]) if is_exception else "",
            shown(where),
        )
    out.print(table)
    out.print("remove one: sslcustomize untrust HOST[:PORT] or sslcustomize untrust --ca-file FILE")
