"""``sslcustomize disable``: turn a layer off, keeping its file for ``enable`` to restore."""

from __future__ import annotations

import argparse
import os

from sslcustomize._cli import EXIT_OK
from sslcustomize._cli._enable import add_json, add_scope, scope_path, with_json
from sslcustomize._cli._output import fail
from sslcustomize._support._paths import pretty, process_policy_paths

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
    return with_json(args, _disable)


def _disable(args: argparse.Namespace, changes: list[str]) -> int:
    if args.scope is None and process_policy_paths():
        return fail(
            "SSLCUSTOMIZE_POLICY names this process's policy: unset the variable to turn that "
            "policy off, or name a layer with --scope"
        )
    try:
        path = scope_path(args)
    except ValueError as error:
        return fail(str(error))
    if args.scope in ("system", "user"):
        from sslcustomize._cli._reach import unreach  # noqa: PLC0415 - only for these scopes

        existed = os.path.exists(path)
        status = unreach(args.scope, changes)
        if status != EXIT_OK or (existed and not os.path.exists(path)):
            return status  # the policy enable wrote, unchanged, went with the hooks
    if not os.path.exists(path):
        print(f"not enabled: {pretty(path)} does not exist")
        return EXIT_OK
    try:
        os.replace(path, path + ".disabled")
    except PermissionError:
        return fail(f"cannot move {path}: permission denied; run as root for --scope system")
    changes.append(path)
    print(f"disabled: moved {pretty(path)} to {pretty(path)}.disabled")
    if os.environ.get("SSLCUSTOMIZE_POLICY"):
        print("note: SSLCUSTOMIZE_POLICY is set, so this process's children still use a policy")
    return EXIT_OK
