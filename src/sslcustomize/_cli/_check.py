"""``sslcustomize check``: connect to a server and say whether the policy accepts it, and why."""

from __future__ import annotations

import argparse
import dataclasses
import datetime as dt
from typing import Any

from sslcustomize._cli import EXIT_FAILURE, EXIT_OK, EXIT_USAGE
from sslcustomize._cli._escape import shown
from sslcustomize._cli._output import console, fail, print_json
from sslcustomize._connection._contexts import policy_context
from sslcustomize._decision._decide import Decision, decide, longest_prefix
from sslcustomize._diagnosis._analysis import Analysis, Problem, analyse, describe
from sslcustomize._diagnosis._probe import (
    STARTTLS_PORTS,
    ProbeError,
    Proxy,
    Target,
    fetch_chain,
    parse_target,
    proxy_for,
)
from sslcustomize._diagnosis._seen import load_sightings, missing_intermediate, report_file
from sslcustomize._policy._model import DEFAULT_EXCEPTION_DAYS, EnvTrust, Policy
from sslcustomize._runtime._runtime import Runtime
from sslcustomize._runtime._state import current_runtime
from sslcustomize._support._bootstrap import CLIENTS
from sslcustomize._support._frozen import replace
from sslcustomize._verdict._reasons import explain, renewal, trust_command
from sslcustomize._verdict._verify import Check

__all__ = [
    "add_proxy",
    "client_settings",
    "context_problem",
    "environment_entry",
    "inspect_target",
    "plan_for",
    "register",
    "seconds",
]


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``check``."""
    parser = commands.add_parser(
        "check",
        help="connect to a server and verify it under the policy",
        description="Connect to TARGET (host[:port], https://..., smtps://, imaps://, pop3s://, "
        "ftps://), fetch its certificate chain and verify it under the effective policy. Shows "
        "the chain, the rule that applies, the verdict, every problem and its fix. "
        "Exit 0 verified, 1 rejected, 2 could not check.",
    )
    parser.add_argument("target", metavar="TARGET")
    parser.add_argument(
        "--starttls", choices=sorted(STARTTLS_PORTS), help="speak this protocol before TLS"
    )
    parser.add_argument("--context", metavar="NAME", help="check as this named context would")
    parser.add_argument(
        "--timeout", type=seconds, default=10.0, help="seconds for the whole check (default 10)"
    )
    add_proxy(parser)
    parser.add_argument("--json", action="store_true", help="print a JSON document")
    parser.set_defaults(handler=run)


# Longer than any wait a person means, short of what the socket layer refuses (about 2**31 ms).
_LONGEST_TIMEOUT = 86400.0


def seconds(text: str) -> float:
    """Parse ``--timeout``: a number of seconds above 0 (``0`` would mean non-blocking sockets)."""
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not 0 < value <= _LONGEST_TIMEOUT:  # NaN fails too
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a number of seconds above 0 and at most {_LONGEST_TIMEOUT:g}"
        )
    return value


def context_problem(policy: Policy, name: str | None) -> str | None:
    """Say why ``--context NAME`` names nothing that could change a verdict (``None`` if fine).

    A name must be a dotted module name, and match a ``[context."..."]`` table of the policy
    (by its longest dotted prefix) or a client that sslcustomize covers: anything else is a
    typing mistake, whose check would silently be the default rule's.
    """
    if name is None:
        return None
    if not all(part.isidentifier() for part in name.split(".")):
        return (
            f"--context {name!r} is not a module name: write dotted identifiers, such as "
            "smtplib, urllib3 or myapp.mail"
        )
    known = sorted({*policy.contexts, *(client.name for client in CLIENTS)})
    if longest_prefix(dict.fromkeys(known, True), name):
        return None
    import difflib  # noqa: PLC0415 - only for a mistake

    close = difflib.get_close_matches(name, known, n=1)
    guess = f"did you mean {close[0]}? " if close else ""
    return (
        f"--context {name}: no [context] table of the policy and no client sslcustomize covers "
        f"is named so; {guess}known: {', '.join(known)}"
    )


def add_proxy(parser: argparse.ArgumentParser) -> None:
    """Add ``--proxy`` to a command that connects (check, trust, scan)."""
    parser.add_argument(
        "--proxy",
        metavar="URL",
        help="connect through this proxy: http://HOST:PORT (CONNECT), socks5://HOST:PORT or "
        "socks5h://HOST:PORT (the proxy resolves names); '' for none (default: HTTPS_PROXY, "
        "else ALL_PROXY, unless NO_PROXY names the host)",
    )


def client_settings(context: str | None) -> tuple[int, bool]:
    """Return the verify flags and common-name check of a client's policy context.

    A chain is verified with the very settings a client's policy context has (3.13's strict
    flags too). Making that context costs as much as a handshake's verification: ``scan``
    asks once, not per target.
    """
    reference = policy_context(context or "sslcustomize.check")
    return int(reference.verify_flags), reference.hostname_checks_common_name


def plan_for(
    target: Target, context: str | None, settings: tuple[int, bool], *, runtime: Runtime
) -> Check:
    """Return what ``target``'s chain is judged against: its decision and the client's flags."""
    today = dt.datetime.now(dt.timezone.utc).date()
    decision = decide(
        runtime.policy, host=target.host, port=target.port, context=context, today=today
    )
    return Check(
        runtime=runtime,
        decision=decision,
        name=context or "sslcustomize.check",
        host=target.host,
        port=target.port,
        verify_flags=settings[0],
        common_name=settings[1],
    )


def inspect_target(
    target: Target,
    context: str | None,
    timeout: float,
    proxy: Proxy | None = None,
    *,
    runtime: Runtime,
    settings: tuple[int, bool] | None = None,
    fetched: tuple[tuple[bytes, ...], str] | None = None,
) -> tuple[dict[str, Any], bool, tuple[bytes, ...]]:
    """Fetch and judge ``target`` under ``runtime``: the document, whether it verified, the chain.

    ``settings`` are :func:`client_settings` when already known; ``fetched`` the chain and
    TLS version when already fetched (``scan``'s refused handshakes).

    Raises:
        ProbeError: The server could not be checked.
    """
    policy = runtime.policy
    today = dt.datetime.now(dt.timezone.utc).date()
    plan = plan_for(target, context, settings or client_settings(context), runtime=runtime)
    decision = plan.decision
    chain, version = fetched or fetch_chain(target, timeout=timeout, proxy=proxy)
    analysis = _seen_intermediate(
        analyse(plan, chain, starttls=target.starttls), plan, chain, target, policy
    )
    clients = _client_verdicts(policy, plan, chain, target, today)
    exception = decision.exception
    reasons = [problem.reason for problem in analysis.problems]
    document = {
        "target": str(target),
        "proxy": str(proxy) if proxy else None,
        "interception": _interception(proxy, target, chain, reasons),
        "host": target.host,
        "port": target.port,
        "starttls": target.starttls,
        "tls_version": version,
        "context": context,
        "rule": decision.rule,
        "origin": str(decision.origin) if decision.origin else None,
        "mode": decision.mode,
        "expires": exception.expires.isoformat() if exception and exception.expires else None,
        "expired_exception": _expired(decision, target, policy),
        "policy_errors": [str(error) for error in policy.errors],
        "verdict": "verified" if analysis.verified else "rejected",
        "reasons": reasons,
        "problems": _without_pins_through_a_proxy(
            [dataclasses.asdict(problem) for problem in analysis.problems],
            _interception(proxy, target, chain, reasons),
        ),
        "notes": list(analysis.notes) + [entry.describe() for entry in _ignored(decision)],
        "environment": [environment_entry(e) for e in policy.environment],
        "clients": clients,
        "chain": [dataclasses.asdict(describe(der)) for der in chain],
    }
    return document, analysis.verified, chain


def _expired(decision: Decision, target: Target, policy: Policy) -> dict[str, Any] | None:
    """The expired exception that would have applied, and the command that renews it."""
    expired = decision.expired
    if expired is None:
        return None
    days = policy.exception_days.value or DEFAULT_EXCEPTION_DAYS
    return {
        "host": str(expired.host),
        "origin": str(expired.origin),
        "expires": expired.expires.isoformat() if expired.expires else None,
        "reason": expired.reason,
        "renew": trust_command(target.host, target.port, starttls=target.starttls, days=days),
        "advice": renewal(
            pattern=str(expired.host), origin=str(expired.origin), expired_on=expired.expires,
            host=target.host, port=target.port, starttls=target.starttls, days=days,
        ),
    }  # fmt: skip


# What an intercepting proxy's own CA looks like to a client that does not trust it.
_INTERCEPTED = ("unknown_issuer", "self_signed", "incomplete_chain")


def _without_pins_through_a_proxy(
    problems: list[dict[str, Any]], interception: dict[str, Any] | None
) -> list[dict[str, Any]]:
    """Through a proxy that may intercept, a problem's fix is the proxy's CA, never a pin.

    Pinning the key a TLS-inspecting proxy presented would trust the proxy for the host.
    """
    if interception is None:
        return problems
    return [
        {**problem, "fix": interception["advice"]} if problem["reason"] in _INTERCEPTED
        else problem
        for problem in problems
    ]  # fmt: skip


def _interception(
    proxy: Proxy | None, target: Target, chain: tuple[bytes, ...], reasons: list[str]
) -> dict[str, Any] | None:
    """Say what a chain that came through a proxy and fails for want of an issuer means.

    A TLS-inspecting proxy presents, for every host, a certificate it issued with its own CA;
    a tunnelling proxy presents the server's. An untrusted issuer through a proxy is the
    signature of the first: name that CA and how to trust it, for one host or for all.
    """
    if proxy is None or not any(reason in _INTERCEPTED for reason in reasons):
        return None
    top = describe(chain[-1])
    issuer = top.subject if top.self_issued else top.issuer
    sent = top.self_issued and len(chain) > 1
    host_only = f"sslcustomize trust --ca --proxy {proxy} {target}" if sent else None
    every = "sslcustomize trust --ca-file PROXY-CA.pem"
    advice = (
        f"the chain came through the proxy {proxy} and is issued by '{issuer}', which the "
        "policy does not trust: a proxy that intercepts TLS presents certificates of its own "
        "CA, not the server's. If it is your organisation's inspection proxy, get its CA "
        "certificate from IT and trust it for the proxied hosts: "
        + (f"{host_only} (this host), or " if host_only else "")
        + f"{every} (every host); if it is not, someone is intercepting this connection"
    )
    return {
        "proxy": str(proxy),
        "issuer": issuer,
        "ca_sent": sent,
        "trust_host": host_only,
        "trust_every_host": every,
        "advice": advice,
    }


def _seen_intermediate(
    analysis: Analysis, plan: Check, chain: tuple[bytes, ...], target: Target, policy: Policy
) -> Analysis:
    """An unknown issuer that this machine saw verify as an intermediate: an incomplete chain.

    The report database names the intermediates of chains that reached a trust anchor (see
    :mod:`.._diagnosis._seen`); the server that does not send one of them lacks only that
    certificate.
    """
    if not any(problem.reason == "unknown_issuer" for problem in analysis.problems):
        return analysis
    sighting = missing_intermediate(chain, load_sightings(report_file(policy)))
    if sighting is None:
        return analysis
    problem, fix = explain(
        "incomplete_chain", chain=chain, host=plan.host, port=plan.port, starttls=target.starttls
    )
    found = Problem(
        reason="incomplete_chain", problem=f"{problem} ({sighting.describe()})", fix=fix
    )
    problems = tuple(found if p.reason == "unknown_issuer" else p for p in analysis.problems)
    return replace(analysis, problems=problems)


def environment_entry(entry: EnvTrust) -> dict[str, Any]:
    """Describe a CA-bundle variable as ``check``, ``explain`` and ``doctor`` show it."""
    return {
        "variable": entry.variable,
        "value": entry.value,
        "clients": list(entry.clients) or ["*"],
        "state": entry.state,
        "why": entry.why,
        "meaning": entry.describe(),
    }


def _ignored(decision: Decision) -> tuple[EnvTrust, ...]:
    return decision.ignored_environment


def _client_verdicts(
    policy: Policy, plan: Check, chain: tuple[bytes, ...], target: Target, today: dt.date
) -> list[dict[str, Any]]:
    """Judge the chain again for each client whose CA-bundle variables change its trust.

    ``REQUESTS_CA_BUNDLE`` adds a CA for requests and pip only: the same chain can verify for
    them and not for other clients, and ``check`` says so per client rather than one verdict.
    """
    names = dict.fromkeys(
        client
        for entry in policy.environment
        for client in entry.clients
        if not entry.applies_to(plan.name)
    )
    rows = []
    for client in names:
        decision = decide(policy, host=target.host, port=target.port, context=client, today=today)
        if decision.trust == plan.decision.trust and not decision.ignored_environment:
            continue
        verified = analyse(replace(plan, decision=decision, name=client), chain)
        variables = [e.variable for e in decision.environment if e.clients]
        rows.append(
            {
                "client": client,
                "verdict": "verified" if verified.verified else "rejected",
                "reasons": [problem.reason for problem in verified.problems],
                "variables": variables,
                "notes": [e.describe() for e in decision.ignored_environment],
            }
        )
    return rows


def run(args: argparse.Namespace) -> int:
    """Check the target and print the result."""
    try:
        target = parse_target(args.target, args.starttls)
        proxy = proxy_for(target, args.proxy)
    except ValueError as error:
        return fail(str(error), as_json=args.json)
    runtime = current_runtime()
    problem = context_problem(runtime.policy, args.context)
    if problem:
        return fail(problem, EXIT_USAGE, as_json=args.json)
    try:
        document, verified, _ = inspect_target(
            target, args.context, args.timeout, proxy, runtime=runtime
        )
    except ProbeError as error:
        return fail(f"could not check {target}: {error}", EXIT_USAGE, as_json=args.json)
    if args.json:
        print_json(document)
    else:
        render(document)
    return EXIT_OK if verified else EXIT_FAILURE


def render(document: dict[str, Any]) -> None:
    """Print a check result for a person."""
    from rich.tree import Tree  # noqa: PLC0415 - rich only for the CLI

    out = console()
    via = f" (STARTTLS {document['starttls']})" if document["starttls"] else ""
    via += f" through the proxy {shown(document['proxy'])}" if document["proxy"] else ""
    tree = Tree(f"[bold]{shown(document['target'])}[/]{via} {document['tls_version']}")
    node = tree
    for index, cert in enumerate(document["chain"]):
        label = "leaf" if index == 0 else f"#{index}"
        node = node.add(f"[bold]{shown(cert['subject'] or '(empty subject)')}[/] ({label})")
        node.add(f"issuer: {shown(cert['issuer'])}")
        node.add(f"valid: {cert['not_before']} to {cert['not_after']}")
        node.add(f"key: {cert['key']}, signature: {cert['signature_algorithm']}")
        if cert["names"]:
            node.add(f"names: {shown(', '.join(cert['names']))}")
        node.add(f"pin: {cert['pin']}")
        node.add(f"sha256: {cert['sha256']}")
    out.print(tree)
    origin = f" ({document['origin']})" if document["origin"] else ""
    expires = f", expires {document['expires']}" if document["expires"] else ""
    out.print(f"rule: {shown(document['rule'])}{shown(origin)}, mode {document['mode']}{expires}")
    if document["expired_exception"]:
        out.print(f"[yellow]expired exception:[/] {shown(document['expired_exception']['advice'])}")
    for error in document["policy_errors"]:
        out.print(f"[red]policy error:[/] {shown(error)} (strict defaults apply)")
    others = " for other clients" if document["clients"] else ""
    if document["verdict"] == "verified":
        out.print(f"[green bold]verified[/]{others}")
    else:
        out.print(f"[red bold]rejected[/]{others}: {', '.join(document['reasons'])}")
        for problem in document["problems"]:
            out.print(f"  [red]{problem['reason']}[/]: {shown(problem['problem'])}")
            out.print(f"    fix: {shown(problem['fix'])}")
    _render_after(out, document)


def _render_after(out: Any, document: dict[str, Any]) -> None:
    """Print the verdicts per client, the notes, and what an intercepting proxy means."""
    for row in document["clients"]:
        because = f" ({', '.join(row['variables'])})" if row["variables"] else ""
        if row["verdict"] == "verified":
            out.print(f"[green bold]verified[/] for {shown(row['client'])}{shown(because)}")
        else:
            reasons = ", ".join(row["reasons"])
            out.print(
                f"[red bold]rejected[/] for {shown(row['client'])}{shown(because)}: {reasons}"
            )
        for note in row["notes"]:
            out.print(f"  [yellow]note:[/] {shown(note)}")
    for note in document["notes"]:
        out.print(f"[yellow]note:[/] {shown(note)}")
    if document["interception"]:
        out.print(f"[red bold]interception:[/] {shown(document['interception']['advice'])}")
