"""``sslcustomize explain``: the effective policy with provenance, and the rule for a host."""

from __future__ import annotations

import argparse
import datetime as dt
from typing import Any

from sslcustomize._cli import EXIT_OK, EXIT_USAGE
from sslcustomize._cli._check import environment_entry
from sslcustomize._cli._output import console, fail, print_json
from sslcustomize._decision._decide import decide
from sslcustomize._diagnosis._probe import parse_target
from sslcustomize._diagnosis._shadows import find_shadows
from sslcustomize._report._recording import sink_name
from sslcustomize._runtime._state import current_runtime

__all__ = ["register"]


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``explain``."""
    parser = commands.add_parser(
        "explain",
        help="show the effective policy and which rule a host or context gets",
        description="Show every effective setting with the file and line it comes from, the "
        "locked keys, the exceptions and named contexts; with HOST[:PORT] or --context, the "
        "decision for it: rule, trust anchors, mode, pins, expiry.",
    )
    parser.add_argument("host", metavar="HOST[:PORT]", nargs="?")
    parser.add_argument("--context", metavar="NAME", help="the named context to explain")
    parser.add_argument("--json", action="store_true", help="print a JSON document")
    parser.set_defaults(handler=run)


def _setting(setting: Any) -> dict[str, Any]:
    return {"value": setting.value, "origin": str(setting.origin)}


def gather(host: str | None, port: int | None, context: str | None) -> dict[str, Any]:
    """Collect what ``explain`` shows, as plain data."""
    policy = current_runtime().policy
    today = dt.datetime.now(dt.timezone.utc).date()
    document: dict[str, Any] = {
        "files": [{"layer": f.layer, "path": f.path} for f in policy.files],
        "errors": [str(e) for e in policy.errors],
        "warnings": list(policy.warnings),
        "shadowed_exceptions": [str(s) for s in find_shadows(policy.exceptions, today)],
        "mode": _setting(policy.mode),
        "trust": [{"value": str(s), "origin": str(s.origin)} for s in policy.trust],
        "minimum_tls": _setting(policy.minimum_tls),
        "allow_code_opt_out": _setting(policy.allow_code_opt_out),
        "report": {
            # The sink records go to: the default depends on the system layer and journald.
            "sink": {"value": sink_name(policy), "origin": str(policy.report_sink.origin)},
            "path": _setting(policy.report_path),
        },
        "locked": {key: str(origin) for key, origin in policy.locked.items()},
        "environment": [environment_entry(e) for e in policy.environment],
        "exceptions": [
            {
                "host": str(e.host),
                "pins": list(e.pins),
                "ca": [str(c) for c in e.ca],
                "check_hostname": e.check_hostname,
                "mode": e.mode,
                "expires": e.expires.isoformat() if e.expires else None,
                "expired": e.expired(today),
                "reason": e.reason,
                "origin": str(e.origin),
            }
            for e in policy.exceptions
        ],
        "contexts": {
            name: {
                key: _setting(getattr(rule, key)) if getattr(rule, key) else None
                for key in ("mode", "minimum_tls", "allow_code_opt_out")
            }
            | {"origin": str(rule.origin)}
            for name, rule in policy.contexts.items()
        },
    }
    if host is not None or context is not None:
        decision = decide(policy, host=host, port=port, context=context, today=today)
        document["decision"] = {
            "host": host,
            "port": port,
            "context": context,
            "rule": decision.rule,
            "origin": str(decision.origin) if decision.origin else None,
            "mode": decision.mode,
            "trust": [str(s) for s in decision.trust],
            "extra_ca": [str(s) for s in decision.extra_ca],
            "pins": list(decision.pins),
            "check_hostname": decision.check_hostname,
            "minimum_tls": decision.minimum_tls,
            "allow_code_opt_out": decision.allow_code_opt_out,
            "expires": (
                decision.exception.expires.isoformat()
                if decision.exception and decision.exception.expires
                else None
            ),
            "fallback": decision.fallback,
            "environment": [environment_entry(e) for e in decision.environment],
        }
    return document


def run(args: argparse.Namespace) -> int:
    """Print the explanation."""
    host = port = None
    if args.host:
        try:
            target = parse_target(args.host)
        except ValueError as error:
            return fail(str(error))
        host, port = target.host, target.port
    document = gather(host, port, args.context)
    if args.json:
        print_json(document)
    else:
        _render(document)
    return EXIT_USAGE if document["errors"] else EXIT_OK


def _render_problems(out: Any, document: dict[str, Any]) -> None:
    from rich.markup import escape  # noqa: PLC0415 - rich only for the CLI

    for error in document["errors"]:
        out.print(f"[red]error:[/] {escape(error)}\n[red]strict defaults apply.[/]")
    for warning in document["warnings"]:
        out.print(f"[yellow]warning:[/] {escape(warning)}")
    for shadow in document["shadowed_exceptions"]:
        out.print(f"[yellow]hidden exception:[/] {escape(shadow)}")
    for entry in document["environment"]:
        colour = "green" if entry["state"] == "added" else "yellow"
        out.print(
            f"[{colour}]environment:[/] {escape(entry['meaning'])} ({escape(entry['value'])})"
        )


def _decided_for(decision: dict[str, Any]) -> str:
    """Name what the decision is for: ``host:port`` (the port chooses the exception too)."""
    host, port = decision["host"], decision["port"]
    if host is None:
        return f"context {decision['context']}"
    shown_host = f"[{host}]" if ":" in host else host
    named = f"{shown_host}:{port}" if port is not None else shown_host
    return named + (f" (context {decision['context']})" if decision["context"] else "")


def _render(document: dict[str, Any]) -> None:
    from rich.markup import escape  # noqa: PLC0415 - rich only for the CLI
    from rich.table import Table  # noqa: PLC0415

    out = console()
    _render_problems(out, document)
    table = Table(title="Effective policy", title_justify="left")
    table.add_column("setting")
    table.add_column("value", overflow="fold")
    # Folded, never cut: an ellipsis took the line number off "policy.toml:7" (issue 33 §4).
    table.add_column("from", overflow="fold")
    for key in ("mode", "minimum_tls", "allow_code_opt_out"):
        locked = " (locked)" if key in document["locked"] else ""
        table.add_row(key, f"{document[key]['value']}{locked}", escape(document[key]["origin"]))
    for source in document["trust"]:
        table.add_row("trust", escape(source["value"]), escape(source["origin"]))
    report = document["report"]
    table.add_row("report.sink", str(report["sink"]["value"]), escape(report["sink"]["origin"]))
    out.print(table)
    if document["exceptions"]:
        exceptions = Table(title="Exceptions", title_justify="left")
        for column in ("host", "trusts", "mode", "expires", "reason", "from"):
            exceptions.add_column(column, overflow="fold")
        for e in document["exceptions"]:
            trusts = ", ".join([*(p[:20] + "..." for p in e["pins"]), *e["ca"]]) or "-"
            expires = (e["expires"] or "never") + (" [red](expired)[/]" if e["expired"] else "")
            exceptions.add_row(
                e["host"], escape(trusts), e["mode"] or "-", expires, escape(e["reason"]),
                escape(e["origin"]),
            )  # fmt: skip
        out.print(exceptions)
    for name, rule in document["contexts"].items():
        settings = ", ".join(f"{k}={v['value']}" for k, v in rule.items() if k != "origin" and v)
        out.print(f"context [bold]{escape(name)}[/]: {settings or '-'} ({escape(rule['origin'])})")
    decision = document.get("decision")
    if decision:
        what = _decided_for(decision)
        origin = f" from {escape(decision['origin'])}" if decision["origin"] else ""
        out.print(
            f"\n[bold]{escape(str(what))}[/] gets rule [bold]{escape(decision['rule'])}[/]{origin}"
        )
        out.print(f"  mode {decision['mode']}, minimum TLS {decision['minimum_tls']}")
        out.print(f"  trust: {escape(', '.join(decision['trust'] + decision['extra_ca']))}")
        # The variables shown above for every client are not repeated: only what differs
        # for this context's clients.
        above = {(entry["variable"], entry["meaning"]) for entry in document["environment"]}
        for entry in decision["environment"]:
            if (entry["variable"], entry["meaning"]) not in above:
                out.print(f"  {escape(entry['meaning'])}")
        if decision["pins"]:
            out.print(f"  pins: {', '.join(decision['pins'])}")
        if not decision["check_hostname"]:
            out.print("  host name not checked (pinned key)")
        if decision["expires"]:
            out.print(f"  expires {decision['expires']}")
