"""``sslcustomize scan``: check many targets at once, with a progress bar; CSV or JSON out."""

from __future__ import annotations

import argparse
import csv
import ssl
import sys
from concurrent.futures import Future, ThreadPoolExecutor, wait
from typing import Any

from sslcustomize._cli import EXIT_FAILURE, EXIT_OK
from sslcustomize._cli._check import (
    add_proxy,
    client_settings,
    context_problem,
    inspect_target,
    plan_for,
    seconds,
)
from sslcustomize._cli._escape import shown, visible
from sslcustomize._cli._output import console, fail, print_json
from sslcustomize._diagnosis._probe import (
    STARTTLS_PORTS,
    ProbeError,
    fetch_verified,
    parse_target,
    proxy_for,
)
from sslcustomize._runtime._runtime import Runtime
from sslcustomize._runtime._state import current_runtime
from sslcustomize._verdict._verify import Check, build_oracle, failed_verdict, oracle_settings
from sslcustomize._x509._der import expiry_and_pin

__all__ = ["register"]


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``scan``."""
    parser = commands.add_parser(
        "scan",
        help="check many targets concurrently",
        description="Check every target listed in FILE (one per line: TARGET, optionally "
        "followed by a STARTTLS protocol; '#' starts a comment) under the policy. Exit 0 when "
        "all verify, 1 when any is rejected or could not be checked.",
    )
    parser.add_argument("file", metavar="FILE", help="the list of targets ('-' for stdin)")
    parser.add_argument("--jobs", type=int, default=16, help="connections at once (default 16)")
    parser.add_argument("--context", metavar="NAME", help="check as this named context would")
    parser.add_argument(
        "--timeout", type=seconds, default=10.0, help="seconds per target (default 10)"
    )
    add_proxy(parser)
    output = parser.add_mutually_exclusive_group()
    output.add_argument("--json", action="store_true", help="print a JSON document")
    output.add_argument("--csv", action="store_true", help="print CSV")
    parser.set_defaults(handler=run)


def _read_targets(name: str) -> list[tuple[str, str | None]]:
    stream = sys.stdin if name == "-" else open(name, encoding="utf-8")  # noqa: SIM115
    with stream:
        lines = stream.read().splitlines()
    targets = []
    for number, raw in enumerate(lines, start=1):
        line = raw.partition("#")[0].strip()
        if not line:
            continue
        target, _, protocol = line.partition(" ")
        protocol = protocol.strip() or None
        if protocol is not None and protocol not in STARTTLS_PORTS:
            raise ValueError(f"{name}:{number}: unknown STARTTLS protocol {protocol!r}")
        targets.append((target, protocol))
    return targets


def _scan_one(
    target_text: str, protocol: str | None, args: argparse.Namespace, settings: tuple[int, bool]
) -> dict[str, Any]:
    row: dict[str, Any] = {"target": target_text, "starttls": protocol}
    runtime = current_runtime()
    try:
        target = parse_target(target_text, protocol)
        proxy = proxy_for(target, args.proxy)
        plan = plan_for(target, args.context, settings, runtime=runtime)
        verifier = _handshake_verifier(runtime, plan)
        if verifier is None:
            document, _, _ = inspect_target(
                target, args.context, args.timeout, proxy, runtime=runtime, settings=settings
            )
            return _row(row, document)
        fetched = fetch_verified(target, verifier, timeout=args.timeout, proxy=proxy)
        if fetched.verified:
            # OpenSSL accepted the chain in the handshake with the verdict's own verifier: the
            # replay would say the same. Of the chain, the row needs the leaf's expiry and pin.
            not_after, pin = expiry_and_pin(fetched.chain[0])
            return {
                **row, "verdict": "verified", "reasons": [], "rule": plan.decision.rule,
                "error": None, "not_after": not_after.isoformat(), "pin": pin, "fix": None,
            }  # fmt: skip
        document, _, _ = inspect_target(
            target,
            args.context,
            args.timeout,
            proxy,
            runtime=runtime,
            settings=settings,
            fetched=(fetched.chain, fetched.version),
        )
    except (ValueError, ProbeError) as error:
        return {
            **row, "verdict": "error", "reasons": [], "rule": None, "error": str(error),
            "not_after": None, "pin": None, "fix": None,
        }  # fmt: skip
    if document["verdict"] == "verified":
        # The handshake refused what the replay accepts: the refusal stands (fail closed).
        reasons = failed_verdict(
            fetched.verify_code, fetched.verify_message, fetched.chain, target.host, target.port
        ).reasons
        document = {**document, "verdict": "rejected", "reasons": list(reasons)}
    return _row(row, document)


def _row(row: dict[str, Any], document: dict[str, Any]) -> dict[str, Any]:
    """Return a target's row from its ``check`` document."""
    return {
        **row,
        "verdict": document["verdict"],
        "reasons": document["reasons"],
        "rule": document["rule"],
        "error": None,
        "not_after": document["chain"][0]["not_after"],
        "pin": document["chain"][0]["pin"],
        "fix": document["problems"][0]["fix"] if document["problems"] else None,
    }


def _handshake_verifier(runtime: Runtime, plan: Check) -> ssl.SSLContext | None:
    """Return a context whose own handshake gives ``plan``'s verdict, shared per runtime.

    It is the offline verifier (the same anchors, host check and flags) allowed TLS 1.3, so
    the one handshake a target costs fetches its chain and judges it. ``None`` under a pin:
    a pinned key is judged by rules beyond OpenSSL's (:func:`.._verdict._verify.judge_chain`).
    """
    if plan.decision.pins:
        return None
    settings = oracle_settings(plan)

    def build() -> ssl.SSLContext:
        trust, extra, check_hostname, flags, common_name = settings
        anchors = runtime.trust.anchors_for(trust) + runtime.trust.anchors_for(extra)
        context = build_oracle(anchors, check_hostname, flags, common_name)
        context.maximum_version = ssl.TLSVersion.MAXIMUM_SUPPORTED  # a real handshake: TLS 1.3
        return context

    return runtime.shared(("scan", *settings), build)


def run(args: argparse.Namespace) -> int:
    """Scan every target and print the results."""
    problem = context_problem(current_runtime().policy, args.context)
    if problem:
        return fail(problem, as_json=args.json)
    try:
        targets = _read_targets(args.file)
    except OSError as error:
        return fail(f"cannot read {args.file}: {error.strerror or error}", as_json=args.json)
    except ValueError as error:
        return fail(str(error), as_json=args.json)
    rows = _scan_all(targets, args, client_settings(args.context))
    if args.json:
        print_json({"summary": _summary(rows), "results": rows})
    elif args.csv:
        writer = csv.writer(sys.stdout)
        columns = ("target", "starttls", "verdict", "reasons", "rule", "not_after", "pin", "error")
        writer.writerow(columns)
        for row in rows:
            cells = {**row, "reasons": " ".join(row["reasons"])}
            # A server's words (an error text) never reach a terminal that shows the CSV raw.
            writer.writerow(["" if cells[c] is None else visible(str(cells[c])) for c in columns])
    else:
        _render(rows)
    return EXIT_OK if all(row["verdict"] == "verified" for row in rows) else EXIT_FAILURE


def _scan_all(
    targets: list[tuple[str, str | None]], args: argparse.Namespace, settings: tuple[int, bool]
) -> list[dict[str, Any]]:
    show = sys.stderr.isatty() and not (args.json or args.csv)
    with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        futures = [
            pool.submit(_scan_one, target, protocol, args, settings) for target, protocol in targets
        ]
        if show:
            _progress(futures)
        return [future.result() for future in futures]


def _progress(futures: list[Future[dict[str, Any]]]) -> None:
    """Show a progress bar until every target is done.

    rich loads only here and for the table: importing its progress bar costs more than a
    hundred handshakes on loopback, and ``--json``, ``--csv`` or a pipe show none.
    """
    from rich.progress import Progress  # noqa: PLC0415 - rich only for the CLI, on a terminal

    with Progress(transient=True) as progress:
        task = progress.add_task("checking", total=len(futures))
        for future in futures:
            future.add_done_callback(lambda _f: progress.advance(task))
        wait(futures)


def _summary(rows: list[dict[str, Any]]) -> dict[str, int]:
    """Count the targets by verdict: ``verified``, ``rejected``, ``error``, and ``total``."""
    counts = dict.fromkeys(("verified", "rejected", "error"), 0)
    for row in rows:
        counts[row["verdict"]] += 1
    return {**counts, "total": len(rows)}


def _render(rows: list[dict[str, Any]]) -> None:
    from rich.table import Table  # noqa: PLC0415

    table = Table(title=f"{len(rows)} target(s)", title_justify="left")
    table.add_column("target", no_wrap=True)
    for column in ("starttls", "verdict"):
        table.add_column(column)
    # One line per target: an error's whole text is printed below the table, where it is not
    # wrapped into a column (200 errors made 485 lines).
    table.add_column("reasons / error", no_wrap=True, max_width=30, overflow="ellipsis")
    table.add_column("rule")
    # The certificate's end of validity, not an exception's expiry (a rule sits beside it).
    table.add_column("cert valid until", no_wrap=True)
    table.add_column("pin", no_wrap=True, min_width=51)  # whole, to copy into a policy
    colours = {"verified": "green", "rejected": "red", "error": "yellow"}
    for row in rows:
        verdict = f"[{colours[row['verdict']]}]{row['verdict']}[/]"
        detail = ", ".join(row["reasons"]) or shown(row["error"] or "")
        table.add_row(
            shown(row["target"]), row["starttls"] or "-", verdict, detail,
            shown(row["rule"] or ""), (row["not_after"] or "")[:10], row["pin"] or "",
        )  # fmt: skip
    out = console()
    out.print(table)
    summary = _summary(rows)
    out.print(
        f"{summary['verified']} verified, {summary['rejected']} rejected, "
        f"{summary['error']} error(s) of {summary['total']} target(s)"
    )
    for row in rows:
        if row["error"]:
            out.print(f"error: {shown(row['target'])}: {shown(row['error'])}")
