"""``sslcustomize doctor``: this Python's TLS situation, and what sslcustomize changes in it."""

from __future__ import annotations

import argparse
import datetime as dt
import hashlib
import importlib.util
import os
import site
import ssl
import sys
from typing import Any

from sslcustomize import _inject
from sslcustomize._cli import EXIT_OK, EXIT_USAGE
from sslcustomize._cli._check import environment_entry
from sslcustomize._cli._enable import add_python
from sslcustomize._cli._output import console, print_json
from sslcustomize._connection._contexts import create_default_context
from sslcustomize._decision._decide import decide
from sslcustomize._diagnosis._shadows import find_shadows
from sslcustomize._diagnosis._spools import dropped_records
from sslcustomize._inject._stdlib import create_stdlib_context
from sslcustomize._policy._errors import every_error
from sslcustomize._policy._load import policy_files
from sslcustomize._policy._model import Policy
from sslcustomize._support._originals import unwrap_factory
from sslcustomize._support._paths import ENV_POLICY
from sslcustomize._trust._anchors import check_source, find_system_store
from sslcustomize._trust._bundles import bundle_certificates
from sslcustomize._trust._checked_policy import load_policy
from sslcustomize._trust._environment import VARIABLES, pip_config_cert
from sslcustomize.exceptions import TrustError

__all__ = ["gather", "register"]

# The CA-bundle variables (one registry: _trust._environment.VARIABLES), then the others.
TLS_ENVIRONMENT = (*VARIABLES, "PYTHONHTTPSVERIFY", ENV_POLICY)

# From the one client registry (docs/clients.md lists the same): which ssl factory each
# standard-library client calls when the caller gives no context, and the hook module that
# covers each third-party client.
STDLIB_CLIENTS = tuple(
    (client.name, client.factory) for client in _inject.CLIENTS if client.stdlib and client.factory
)
THIRD_PARTY = {client.name: client.hook for client in _inject.CLIENTS if not client.stdlib}
_HOOKS = {
    "_create_default_https_context": create_default_context,
    "create_default_context": create_default_context,
    "_create_stdlib_context": create_stdlib_context,
}


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``doctor``."""
    parser = commands.add_parser(
        "doctor",
        help="show this Python's TLS situation and what sslcustomize changes",
        description="Show Python and OpenSSL, the trust store, the policy layers and their "
        "errors, environment variables that change TLS, and which clients verify.",
    )
    parser.add_argument("--json", action="store_true", help="print a JSON document")
    add_python(parser)
    parser.set_defaults(handler=run)


def _original_factory(name: str) -> Any:
    for target, attribute, original in _inject.replaced_attributes():
        if target is ssl and attribute == name:
            return original
    return unwrap_factory(getattr(ssl, name))  # behind the startup hook's stand-in


def _verifies(factory: Any) -> bool:
    context = factory()
    return bool(context.verify_mode == ssl.CERT_REQUIRED and context.check_hostname)


def _clients(policy: Policy) -> list[dict[str, Any]]:
    rows = []
    for module, factory_name in STDLIB_CLIENTS:
        if importlib.util.find_spec(module.partition(".")[0]) is None:
            continue
        without = _verifies(_original_factory(factory_name))
        decision = decide(policy, context=module)
        with_policy = _verifies(_HOOKS[factory_name])
        rows.append(
            {
                "client": module,
                "factory": f"ssl.{factory_name}",
                "verifies_without": without,
                "verifies_with": with_policy,
                "mode_with": decision.mode,
                "rule": decision.rule,
            }
        )
    return rows


def _pip_cert(policy: Policy) -> dict[str, Any] | None:
    """Pip's ``cert`` setting in its configuration files, and what the policy makes of it."""
    found = pip_config_cert()
    if found is None:
        return None
    value, where = found
    lock = policy.locked.get("trust")
    meaning = (
        f"ignored for pip: the system policy locks trust ({lock})"
        if lock is not None
        else "adds its CAs to the policy's trust for pip"
    )
    return {"value": value, "where": where, "meaning": meaning}


def _pth_locations() -> list[str]:
    directories = [*site.getsitepackages(), site.getusersitepackages()]
    return [
        os.path.join(d, "sslcustomize.pth")
        for d in directories
        if os.path.isfile(os.path.join(d, "sslcustomize.pth"))
    ]


def _errors_of(layer: str, path: str, first: str) -> list[str]:
    """Every error of a file that has one (the loader names only the first)."""
    try:
        with open(path, encoding="utf-8") as file:
            text = file.read()
    except (OSError, UnicodeDecodeError):
        return [first]
    errors = every_error(text, path=path, layer=layer, check_source=check_source)
    return [str(error) for error in errors] or [first]


def _layers(policy: Policy) -> list[dict[str, Any]]:
    errors = {error.path: str(error) for error in policy.errors}
    rows = []
    for layer, path, required in policy_files():
        exists = os.path.exists(path)
        first = errors.get(path)
        rows.append(
            {
                "layer": layer,
                "path": path,
                "exists": exists,
                "required": required,
                "error": first,
                "errors": _errors_of(layer, path, first) if first else [],
            }
        )
    return rows


def gather(today: dt.date | None = None) -> dict[str, Any]:
    """Collect the facts ``doctor`` shows, as plain data."""
    today = today or dt.date.today()
    policy = load_policy()
    try:
        store = find_system_store()
        trust_store: dict[str, Any] = {
            "file": store.file,
            "directory": store.directory,
            "found_by": store.found_by,
            "error": None,
        }
    except TrustError as error:
        trust_store = {"file": None, "directory": None, "found_by": None, "error": str(error)}
    startup = sys.modules.get("_sslcustomize_startup")
    layers = _layers(policy)
    configured = any(row["exists"] for row in layers)
    tools = _trust_tools(configured=configured)
    return {
        "python": {"version": sys.version.split()[0], "executable": sys.executable},
        "openssl": ssl.OPENSSL_VERSION,
        "trust_store": trust_store,
        "policy": {
            "configured": configured,
            "fallback": policy.fallback,
            "mode": policy.mode.value,
            "trust": [str(source) for source in policy.trust],
            "errors": [str(error) for error in policy.errors],
            "warnings": list(policy.warnings),
        },
        "layers": layers,
        "report_dropped": dropped_records(),
        "environment": {name: os.environ.get(name) for name in TLS_ENVIRONMENT},
        "environment_trust": [environment_entry(e) for e in policy.environment],
        "pip_cert": _pip_cert(policy),
        "startup_hook": {
            "installed": _pth_locations(),
            "loaded": startup is not None,
            "active": _inject.is_injected(),
        },
        "clients": _clients(policy),
        "expired_exceptions": [
            {"host": str(e.host), "expires": e.expires, "origin": str(e.origin)}
            for e in policy.exceptions
            if e.expired(today)
        ],
        "expiring_exceptions": [
            {"host": str(e.host), "expires": e.expires, "origin": str(e.origin)}
            for e in policy.exceptions
            if e.expires and not e.expired(today) and e.expires <= today + SOON
        ],
        "shadowed_exceptions": [str(s) for s in find_shadows(policy.exceptions, today)],
        "certifi": _certifi_comparison(trust_store),
        "third_party": _third_party(configured=configured),
        "trust_tools": tools,
        "who_decides": _who_decides(configured=configured, tools=tools),
    }


SOON = dt.timedelta(days=30)


def _fingerprints(paths: list[str]) -> set[str]:
    prints: set[str] = set()
    for path in paths:
        try:
            certificates = bundle_certificates(path)  # as OpenSSL reads it
        except TrustError:
            continue
        prints.update(hashlib.sha256(der).hexdigest() for der in certificates)
    return prints


def _certifi_comparison(store: dict[str, Any]) -> dict[str, Any]:
    """Count the CAs the system store has that certifi lacks, and the reverse."""
    try:
        import certifi  # noqa: PLC0415 - optional
    except ImportError:
        return {"installed": False}
    system_files = [store["file"]] if store["file"] else []
    if not system_files and store["directory"]:
        directory = store["directory"]
        system_files = [os.path.join(directory, n) for n in sorted(os.listdir(directory))]
    system = _fingerprints(system_files)
    bundle = _fingerprints([certifi.where()])
    return {
        "installed": True,
        "bundle": certifi.where(),
        "system_only": len(system - bundle),
        "certifi_only": len(bundle - system),
    }


def _third_party(*, configured: bool) -> list[dict[str, Any]]:
    """List the installed third-party clients and whether sslcustomize covers each.

    ``covered`` is now: with no policy the hook is loaded but idle, and the client verifies as
    it would without sslcustomize; ``covered_once_policy`` is what a policy would change.
    """
    from importlib import metadata  # noqa: PLC0415

    rows = []
    for name, hook in THIRD_PARTY.items():
        try:
            version = metadata.version(name)
        except metadata.PackageNotFoundError:
            continue
        hookable = _hook_in_place() and (
            importlib.util.find_spec(f"sslcustomize._inject.{hook}") is not None
        )
        rows.append(
            {
                "client": name,
                "version": version,
                "covered": hookable and configured,
                "covered_once_policy": hookable,
                "by": hook,
            }
        )
    return rows


# What decides what when another trust tool is present (docs/clients.md, "Working beside
# truststore and pip-system-certs").
_TRUST_TOOLS = {
    "truststore": (
        "the policy decides: truststore's client contexts verify under it, through their "
        "inner context; truststore still asks the OS after the handshake on macOS/Windows"
    ),
    "pip-system-certs": (
        "the policy decides: it injects truststore at every start of this environment's "
        "interpreters, whose contexts then verify under the policy"
    ),
}


# Who decides while sslcustomize is idle (no policy file): each tool as if sslcustomize were
# not installed.
_IDLE_DECIDES = {
    "truststore": (
        "truststore decides for the code that uses it (truststore.SSLContext, "
        "inject_into_ssl()); Python's ssl defaults decide for the rest"
    ),
    "pip-system-certs": (
        "truststore decides: pip-system-certs injects it at every start of this environment's "
        "interpreters (sslcustomize is idle)"
    ),
    "pip's vendored truststore": "pip decides for its own connections, with the OS trust store",
}


def _trust_tools(*, configured: bool = True) -> list[dict[str, Any]]:
    """List the other trust tools installed here, whether one is active now, and who decides.

    ``decides`` is who decides now; ``decides_once_policy`` who will once a policy exists (the
    same when one exists).
    """
    from importlib import metadata  # noqa: PLC0415

    from sslcustomize._support._sslclass import substitute  # noqa: PLC0415

    replaced = substitute()
    active = f"{replaced.__module__}.{replaced.__qualname__}" if replaced is not None else None
    rows: list[dict[str, Any]] = []
    for name, decides in _TRUST_TOOLS.items():
        try:
            version = metadata.version(name)
        except metadata.PackageNotFoundError:
            continue
        rows.append({"tool": name, "version": version, "decides": decides})
    try:
        pip = metadata.version("pip")
    except metadata.PackageNotFoundError:
        pip = None
    vendored = importlib.util.find_spec("pip._vendor.truststore") if pip is not None else None
    if vendored is not None:
        rows.append(
            {
                "tool": "pip's vendored truststore",
                "version": _vendored_version(vendored.origin),
                "vendored_by": f"pip {pip}",
                "decides": _TRUST_TOOLS["truststore"],
            }
        )
    for row in rows:
        row["ssl_context_replaced_by"] = active
        row["covered"] = _hook_in_place()
        if not row["covered"]:
            row["decides"] = f"{row['tool']} decides alone: no sslcustomize hook in this process"
        row["decides_once_policy"] = row["decides"]
        if not configured and row["covered"]:
            row["decides"] = _IDLE_DECIDES[row["tool"]]
    return rows


def _who_decides(*, configured: bool, tools: list[dict[str, Any]]) -> dict[str, Any]:
    """Say who decides now whether a certificate is accepted, and who will once a policy exists."""
    if configured:
        now = "the policy decides for every covered client"
        return {"idle": False, "now": now, "once_policy": now}
    by_tool = {row["tool"]: row for row in tools if row["covered"]}
    if "pip-system-certs" in by_tool:
        now = (
            "truststore decides (pip-system-certs injects it at every start); elsewhere each "
            "client's own defaults"
        )
    elif "truststore" in by_tool and by_tool["truststore"]["ssl_context_replaced_by"]:
        now = "truststore decides (it replaced ssl.SSLContext in this process)"
    else:
        now = (
            "each client decides as it would without sslcustomize (Python's ssl defaults: "
            "smtplib, imaplib, poplib, ftplib do not verify)"
        )
    once = (
        "the policy decides for every covered client (the clients and trust tools listed), "
        "and smtplib, imaplib, poplib and ftplib verify"
        if _hook_in_place()
        else "nothing changes in this process: it has no sslcustomize hook (python -S, or "
        "sslcustomize is not installed for this Python)"
    )
    return {"idle": True, "now": now, "once_policy": once}


def _vendored_version(origin: str | None) -> str:
    """Return the ``__version__`` a vendored truststore's ``__init__.py`` states (``?``).

    Read from the source, not imported: importing it would load pip's vendored copies of
    what it needs, in the process that is reporting on them.
    """
    import re  # noqa: PLC0415

    try:
        with open(origin or "", encoding="utf-8") as file:
            found = re.search(r"""^__version__\s*=\s*["']([^"']+)["']""", file.read(), re.M)
    except OSError:
        return "?"
    return found.group(1) if found else "?"


def _hook_in_place() -> bool:
    """Tell whether this process started with the startup hook (own install or system hook)."""
    return "_sslcustomize_startup" in sys.modules and not sys.flags.no_site


def run(args: argparse.Namespace) -> int:
    """Print the report."""
    facts = gather()
    idle = not facts["policy"]["configured"]
    facts["interpreters"] = _interpreters(args.python, idle=idle)
    status = EXIT_USAGE if facts["policy"]["errors"] else EXIT_OK
    if args.json:
        print_json(facts)
        return status
    _render(facts)
    _render_interpreters(facts["interpreters"], idle=idle)
    return status


# Coverage: which interpreters of the machine run the startup hook (see docs/reach.md).


def _interpreters(extra: list[str], *, idle: bool) -> list[dict[str, Any]]:
    from sslcustomize._cli._reach import coverage  # noqa: PLC0415 - starts each interpreter once

    rows = coverage(extra)
    for row in rows:
        for tool in row["trust_tools"]:
            tool["decides_once_policy"] = tool["decides"]
            if idle:  # a hook with no policy to apply: the tool decides, as without us
                tool["decides"] = tool["tool"]
    return rows


def _render_interpreters(rows: list[dict[str, Any]], *, idle: bool) -> None:
    from sslcustomize._cli._reach import render_coverage  # noqa: PLC0415

    render_coverage(rows, idle=idle)


def _yes(value: bool) -> str:  # noqa: FBT001 - a formatter
    return "[green]yes[/]" if value else "[red]no[/]"


def _render(facts: dict[str, Any]) -> None:
    from rich.markup import escape  # noqa: PLC0415 - rich only for the CLI
    from rich.table import Table  # noqa: PLC0415

    out = console()
    out.print(f"[bold]Python[/] {facts['python']['version']} ({facts['python']['executable']})")
    out.print(f"[bold]OpenSSL[/] {facts['openssl']}")
    store = facts["trust_store"]
    if store["error"]:
        out.print(f"[bold]System trust store[/] [red]{store['error']}[/]")
    else:
        found = " and ".join(p for p in (store["file"], store["directory"]) if p)
        out.print(f"[bold]System trust store[/] {found} ({store['found_by']})")
    hook = facts["startup_hook"]
    installed = ", ".join(hook["installed"]) or "[red]not installed[/] (install from a wheel)"
    out.print(f"[bold]Startup hook[/] {installed}; {_hook_state(hook)}")

    layers = Table(title="Policy layers", title_justify="left")
    for column in ("layer", "file", "state"):
        layers.add_column(column)
    for row in facts["layers"]:
        state = "[green]ok[/]" if row["exists"] else "absent"
        if row["errors"]:
            state = "\n".join(f"[red]{escape(error)}[/]" for error in row["errors"])
        layers.add_row(row["layer"], row["path"], state)
    out.print(layers)
    _render_policy(out, facts)
    _render_tables(out, facts)


def _hook_state(hook: dict[str, Any]) -> str:
    """Say whether the hooks are in place, knowing that they install lazily."""
    if hook["active"]:
        return "hooks in place in this process: [green]yes[/]"
    if hook["loaded"]:
        return (
            "loaded; hooks not in place yet in this process (normal: they install when a "
            "program first imports ssl with a policy configured)"
        )
    if hook["installed"]:
        return "not loaded in this process (no policy was configured when it started)"
    return "not loaded in this process"


def _unique(items: list[str]) -> list[str]:
    return list(dict.fromkeys(items))


def _render_policy(out: Any, facts: dict[str, Any]) -> None:
    policy = facts["policy"]
    if policy["fallback"]:
        out.print("[red bold]Policy errors: strict defaults apply (system store, enforce).[/]")
    elif not policy["configured"]:
        who = facts["who_decides"]
        out.print("[bold]sslcustomize is idle[/]: no policy file exists, so it changes nothing.")
        out.print(f"  who decides now: {who['now']}")
        out.print(f"  once a policy exists: {who['once_policy']}")
        out.print("  turn it on: sslcustomize enable (or enable --scope system, as root)")
    else:
        trust = ", ".join(_unique(policy["trust"]))
        out.print(f"Policy: mode [bold]{policy['mode']}[/]; trusted: {trust}")
    for warning in policy["warnings"]:
        out.print(f"[yellow]warning:[/] {warning}")
    for shadow in facts["shadowed_exceptions"]:
        out.print(f"[yellow]hidden exception:[/] {shadow}")
    if facts["report_dropped"]:
        out.print(f"[yellow]report records dropped (sink unwritable):[/] {facts['report_dropped']}")
    for expired in facts["expired_exceptions"]:
        out.print(
            f"[yellow]expired exception[/] {expired['host']} on {expired['expires']} "
            f"({expired['origin']}): no longer applied"
        )
    for soon in facts["expiring_exceptions"]:
        out.print(
            f"[yellow]exception expiring soon[/] {soon['host']} on {soon['expires']} "
            f"({soon['origin']})"
        )
    certifi = facts["certifi"]
    if certifi["installed"]:
        out.print(
            f"certifi ({certifi['bundle']}) lacks {certifi['system_only']} CA(s) of the system "
            f"store and has {certifi['certifi_only']} it lacks"
        )
    _render_tools(out, facts)


def _render_tools(out: Any, facts: dict[str, Any]) -> None:
    """Say which third-party clients are covered and who decides beside other trust tools."""
    for row in facts["third_party"]:
        if row["covered"]:
            state = "[green]covered[/]"
        elif row["covered_once_policy"]:
            state = (
                "not covered now (idle: it verifies as without sslcustomize); covered once a "
                "policy exists"
            )
        else:
            state = "[red]not covered[/]"
        out.print(f"{row['client']} {row['version']}: {state}")
    for row in facts["trust_tools"]:
        once = ""
        if row["decides_once_policy"] != row["decides"]:
            once = f"; once a policy exists, {row['decides_once_policy']}"
        out.print(f"{row['tool']} {row['version']}: {row['decides']}{once}")
        if row["ssl_context_replaced_by"]:
            out.print(f"  ssl.SSLContext is {row['ssl_context_replaced_by']} in this process")


def _render_tables(out: Any, facts: dict[str, Any]) -> None:
    from rich.markup import escape  # noqa: PLC0415 - rich only for the CLI
    from rich.table import Table  # noqa: PLC0415

    env = Table(title="Environment variables that change TLS", title_justify="left")
    env.add_column("variable")
    env.add_column("value")
    env.add_column("under the policy")
    meanings = {entry["variable"]: entry["meaning"] for entry in facts["environment_trust"]}
    for name, value in facts["environment"].items():
        shown = "(unset)" if value is None else repr(value)
        env.add_row(name, escape(shown), escape(meanings.get(name, "")))
    pip = facts["pip_cert"]
    if pip:
        env.add_row(
            f"pip cert ({escape(pip['where'])})", escape(repr(pip["value"])), pip["meaning"]
        )
    out.print(env)

    clients = Table(title="Standard-library clients", title_justify="left")
    with_column = "with sslcustomize" if facts["policy"]["configured"] else "once a policy exists"
    for column in ("client", "calls", "verifies without sslcustomize", with_column):
        clients.add_column(column)
    for row in facts["clients"]:
        mode = f" ({row['mode_with']}, {row['rule']})" if row["verifies_with"] else ""
        clients.add_row(
            row["client"],
            row["factory"],
            _yes(row["verifies_without"]),
            _yes(row["verifies_with"]) + mode,
        )
    out.print(clients)
