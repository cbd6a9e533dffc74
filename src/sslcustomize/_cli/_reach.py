"""Reach: hook the machine's interpreters (enable), unhook them (disable), show coverage (doctor).

The work is done by :mod:`.._reach._discovery` and
:mod:`.._reach._install`; this module turns it into commands' output.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
from collections.abc import Sequence
from typing import Any

from sslcustomize._cli import EXIT_FAILURE, EXIT_OK, EXIT_USAGE
from sslcustomize._cli._output import console, fail
from sslcustomize._policy._load import policy_files
from sslcustomize._reach._discovery import Interpreter, discover
from sslcustomize._reach._install import (
    MANIFEST,
    SYSTEM_ROOT,
    install,
    installed_roots,
    record_policy,
    uninstall,
    user_root,
)
from sslcustomize._support._paths import REPORT_SPOOL, pretty
from sslcustomize._trust._checked_policy import read_layer
from sslcustomize.exceptions import PolicyError

__all__ = ["coverage", "reach", "render_coverage", "unreach"]


def _root(scope: str) -> str:
    return SYSTEM_ROOT if scope == "system" else user_root()


def reach(
    args: argparse.Namespace,
    policy: str,
    created: Sequence[str],
    facts: dict[str, Any] | None = None,
) -> int:
    """Hook every interpreter this user can reach; print what is covered and what is not.

    With ``facts`` (``enable --json``), nothing is printed: what changed, what was skipped
    and the coverage go there, and errors come as a JSON document.
    """
    root = _root(args.scope)
    as_json = facts is not None
    if args.scope == "user" and os.geteuid() == 0:
        note = (
            "as root, --scope user hooks no interpreter (a hook reaches every user of it): "
            "use --scope system"
        )
        if facts is None:
            print(note)
        else:
            facts["messages"].append(note)
        return EXIT_OK
    interpreters = discover(args.python)
    try:
        spool = REPORT_SPOOL if args.scope == "system" else None
        result = install(interpreters, root=root, scope=args.scope, spool=spool)
        if created:
            with open(policy, "rb") as file:
                record_policy(root, policy, file.read(), created[1:])
    except PermissionError as error:
        return fail(
            f"cannot write {error.filename}: permission denied; run as root for --scope "
            "system, or use --scope user",
            EXIT_USAGE,
            as_json=as_json,
        )
    except OSError as error:
        return fail(f"cannot install the hooks: {error}", EXIT_USAGE, as_json=as_json)
    if args.scope == "system":
        _warm_system_cache()
    if facts is not None:
        facts["runtime"] = root
        facts["hooks_changed"] = list(result.changed)
        facts["changed"] = facts["changed"] or bool(result.changed)
        facts["skipped"] = [
            {"python": interpreter.path, "why": why} for interpreter, why in result.skipped
        ]
        facts["interpreters"] = coverage(args.python)
        return EXIT_OK
    print(
        f"runtime: {pretty(os.path.join(root, ''))} (undo: sslcustomize disable --scope "
        f"{args.scope})"
    )
    if not result.changed:
        print("nothing changed: every hook was already in place")
    render_coverage(coverage(args.python))
    for interpreter, why in result.skipped:
        print(f"not hooked: {interpreter.path} ({interpreter.version_text or '?'}): {why}")
    if args.scope == "user":
        print(
            "not reachable without root: interpreters whose standard library this user cannot "
            "write (listed above); ask an administrator for `sslcustomize enable --scope system`"
        )
    return EXIT_OK


def _warm_system_cache() -> None:
    """Parse the system policy once as root, so that no user's process has to (its cache).

    A broken or missing policy is left for the processes to report, as they would.
    """
    for layer, path, _ in policy_files():
        if layer == "system":
            with contextlib.suppress(PolicyError, OSError):
                read_layer(layer, path)


def unreach(scope: str, facts: dict[str, Any] | None = None) -> int:
    """Undo ``reach`` for ``scope``; print what was restored (or, with ``facts``, record it)."""
    root = _root(scope)
    as_json = facts is not None
    if not os.path.exists(os.path.join(root, MANIFEST)):
        return EXIT_OK
    try:
        result = uninstall(root)
    except PermissionError as error:
        return fail(
            f"cannot restore {error.filename}: permission denied; run as root", as_json=as_json
        )
    except OSError as error:
        return fail(f"cannot undo {pretty(root)}: {error}", EXIT_FAILURE, as_json=as_json)
    if facts is not None:
        facts["restored"] = list(result.restored)
        facts["problems"] = list(result.problems)
        facts["runtime_kept"] = result.kept
        facts["changed"] = facts["changed"] or bool(result.restored) or not result.kept
        return EXIT_FAILURE if result.problems else EXIT_OK
    if not result.kept:
        print(
            f"disabled: restored {len(result.restored)} file(s) as they were and removed "
            f"{pretty(root)}"
        )
    else:
        print(f"partly disabled: restored {len(result.restored)} file(s) as they were")
    for problem in result.problems:
        print(f"not restored: {problem}", file=sys.stderr)
    if result.kept:
        print(
            f"the hooks not restored still load the runtime: {pretty(root)} stays; fix the "
            f"above and run `sslcustomize disable --scope {scope}` again",
            file=sys.stderr,
        )
    return EXIT_FAILURE if result.problems else EXIT_OK


def coverage(extra: Sequence[str] = ()) -> list[dict[str, Any]]:
    """Return one row per interpreter found: version, path, covered, by what, why not."""
    roots = installed_roots()
    rows = []
    for interpreter in discover(extra):
        by = interpreter.covered_by(roots) if interpreter.eligible else ""
        rows.append(
            {
                "path": interpreter.path,
                "names": list(interpreter.names),
                "version": interpreter.version_text,
                "free_threaded": interpreter.free_threaded,
                "implementation": interpreter.implementation,
                "stdlib": interpreter.stdlib,
                "covered": bool(by),
                "by": by,
                "reason": "" if by else interpreter.reason(roots),
                "hook": _hook_state(interpreter),
                "trust_tools": [
                    {"tool": tool, "decides": "the policy" if by else tool}
                    for tool in interpreter.tools
                ],
                "ssl_context_replaced_by": interpreter.ssl_context_replaced_by,
            }
        )
    return rows


def _hook_state(interpreter: Interpreter) -> str:
    """Return ``"system"``/``"user"`` if our sitecustomize is in its stdlib, else ``""``."""
    path = os.path.join(interpreter.stdlib, "sitecustomize.py")
    try:
        with open(path, "rb") as file:
            head = file.read(200)
    except OSError:
        return ""
    for scope in ("system", "user"):
        if b"--scope " + scope.encode() in head and head.startswith(b"# sslcustomize hook"):
            return scope
    return ""


def render_coverage(rows: list[dict[str, Any]], *, idle: bool = False) -> None:
    """Print the coverage table; ``idle``: no policy yet, so the other tools still decide."""
    from rich.table import Table  # noqa: PLC0415 - rich only for the CLI

    table = Table(title="Interpreters on this machine", title_justify="left")
    for column in ("python", "version", "covered", "by / why not"):
        table.add_column(column)
    for row in rows:
        state = "[green]yes[/]" if row["covered"] else "[red]no[/]"
        names = row["path"] + ("" if len(row["names"]) < 2 else f" (+{len(row['names']) - 1})")
        tools = ", ".join(t["tool"] for t in row.get("trust_tools", ()))
        decides = "the policy decides" if row["covered"] else "they decide alone"
        if idle and row["covered"]:
            decides = "they decide until a policy exists, then the policy"
        beside = f"; beside {tools}: {decides}" * bool(tools)
        version = (row["version"] or "?") + (" free-threaded" if row["free_threaded"] else "")
        table.add_row(names, version, state, (row["by"] or row["reason"]) + beside)
    console().print(table)
    print("venvs made from a covered interpreter are covered too; `python -S` runs without hooks")
