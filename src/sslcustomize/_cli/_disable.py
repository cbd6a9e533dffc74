"""``sslcustomize disable``: turn a layer off, keeping its file for ``enable`` to restore."""

from __future__ import annotations

import argparse
import os
from typing import Any

from sslcustomize._cli import EXIT_OK
from sslcustomize._cli._enable import add_json, add_scope, say, scope_path
from sslcustomize._cli._output import fail, print_json
from sslcustomize._support._paths import pretty, process_policy_paths, unscoped_policy

__all__ = ["register"]


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``disable``."""
    parser = commands.add_parser(
        "disable",
        help="turn sslcustomize off for a venv, a user or the system",
        description="Move the scope's policy file aside (to policy.toml.disabled) so that "
        "nothing is lost; `enable` brings it back.",
    )
    add_scope(parser)
    add_json(parser)
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Undo the hooks of the system or user scope, then move the policy file aside."""
    if args.scope is None and process_policy_paths():
        return fail(
            "SSLCUSTOMIZE_POLICY names this process's policy: unset the variable to turn that "
            "policy off, or name a layer with --scope",
            as_json=args.json,
        )
    try:
        path = scope_path(args)
    except ValueError as error:
        return fail(str(error), as_json=args.json)
    facts: dict[str, Any] = {
        "command": "disable",
        "scope": args.scope or unscoped_policy()[0],
        "path": path,
        "changed": False,
        "moved_to": None,
        "messages": [],
    }
    status = _disable(args, path, facts)
    # Hooks that could not be restored are a result, not a refusal: the document lists them
    # (a refusal has printed its own error document already).
    if args.json and (status == EXIT_OK or facts.get("problems")):
        print_json(facts)
    return status


def _disable(args: argparse.Namespace, path: str, facts: dict[str, Any]) -> int:
    if args.scope in ("system", "user"):
        from sslcustomize._cli._reach import unreach  # noqa: PLC0415 - only for these scopes

        existed = os.path.exists(path)
        status = unreach(args.scope, facts if args.json else None)
        if status != EXIT_OK or (existed and not os.path.exists(path)):
            facts["changed"] = facts["changed"] or existed
            return status  # the policy enable wrote, unchanged, went with the hooks
    if not os.path.exists(path):
        say(facts, f"not enabled: {pretty(path)} does not exist", as_json=args.json)
        return EXIT_OK
    try:
        os.replace(path, path + ".disabled")
    except PermissionError:
        return fail(
            f"cannot move {path}: permission denied; run as root for --scope system",
            as_json=args.json,
        )
    facts["changed"] = True
    facts["moved_to"] = path + ".disabled"
    say(facts, f"disabled: moved {pretty(path)} to {pretty(path)}.disabled", as_json=args.json)
    if os.environ.get("SSLCUSTOMIZE_POLICY"):
        say(
            facts,
            "note: SSLCUSTOMIZE_POLICY is set, so this process's children still use a policy",
            as_json=args.json,
        )
    return EXIT_OK
