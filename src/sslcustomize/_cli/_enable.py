"""``sslcustomize enable``: write a layer's policy file with safe defaults."""

from __future__ import annotations

import argparse
import os
from typing import Any

from sslcustomize._cli import EXIT_OK, EXIT_USAGE
from sslcustomize._cli._output import fail, print_json
from sslcustomize._support._files import atomic_write, make_directories
from sslcustomize._support._paths import policy_path_for_scope, pretty, unscoped_policy

__all__ = ["add_json", "add_python", "add_scope", "register", "say", "scope_path"]

TEMPLATE = """\
# sslcustomize policy, written by `sslcustomize enable`.
# Every key is described in the policy reference (docs/policy.md of sslcustomize).
version = 1

# "enforce" rejects certificates that fail; "report" records them and lets them through.
mode = "{mode}"

# Trust anchors: "system" (the platform store), "certifi", or paths to PEM bundles and
# OpenSSL hashed directories.
trust = ["system"]

# Scoped exceptions instead of verify=False; add them with `sslcustomize trust HOST`.
"""


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``enable``."""
    parser = commands.add_parser(
        "enable",
        help="turn sslcustomize on for a venv, a user or the whole system",
        description="Write the policy file of a scope with safe defaults (verify everything "
        "against the system trust store). An existing policy is kept; --mode changes its mode.",
    )
    add_scope(parser)
    parser.add_argument("--mode", choices=("enforce", "report"), help="enforce (default) or report")
    add_python(parser)
    add_json(parser)
    parser.set_defaults(handler=run)


def add_json(parser: argparse.ArgumentParser) -> None:
    """Add ``--json`` to ``enable`` and ``disable``: a document that says what changed."""
    parser.add_argument(
        "--json",
        action="store_true",
        help='print a JSON document instead of text; "changed" says whether anything changed',
    )


def say(facts: dict[str, Any], message: str, *, as_json: bool) -> None:
    """Print a line of ``enable``/``disable``, or keep it in the JSON document's messages."""
    facts["messages"].append(message)
    if not as_json:
        print(message)


def add_python(parser: argparse.ArgumentParser) -> None:
    """Add ``--python PATH`` (repeatable): interpreters to cover beyond those found."""
    parser.add_argument(
        "--python",
        action="append",
        default=[],
        metavar="PATH",
        help="also cover this interpreter (repeatable); PATH, /usr/bin, /usr/local/bin, pyenv "
        "and uv Pythons are found without it",
    )


def add_scope(parser: argparse.ArgumentParser) -> None:
    """Add ``--scope`` to a command's parser."""
    parser.add_argument(
        "--scope",
        choices=("venv", "user", "system"),
        help="which policy layer (default: the file SSLCUSTOMIZE_POLICY names; else the venv's "
        "policy if it exists, else the user's if it exists; else venv inside a virtual "
        "environment, else user)",
    )


def scope_path(args: argparse.Namespace) -> str:
    """Return the policy file for ``args.scope``, or by the rule of :func:`unscoped_policy`.

    Raises:
        ValueError: The scope is not available here.
    """
    if args.scope:
        return policy_path_for_scope(args.scope)
    return unscoped_policy()[1]


def run(args: argparse.Namespace) -> int:
    """Write or update the policy file; for system and user, hook the interpreters too."""
    try:
        path = scope_path(args)
    except ValueError as error:
        return fail(str(error), as_json=args.json)
    created: list[str] = []
    facts: dict[str, Any] = {
        "command": "enable",
        "scope": args.scope or unscoped_policy()[0],
        "path": path,
        "changed": False,
        "created": created,
        "messages": [],
    }
    status = _write_policy(args, path, created, facts)
    if status == EXIT_OK and args.scope in ("system", "user"):
        from sslcustomize._cli._reach import reach  # noqa: PLC0415 - discovery and install only for these scopes

        status = reach(args, path, created, facts if args.json else None)
    if args.json and status == EXIT_OK:
        print_json(facts)
    return status


def _write_policy(
    args: argparse.Namespace, path: str, created: list[str], facts: dict[str, Any]
) -> int:
    """Write the policy file of the scope (or change its mode); list what was created."""
    disabled = path + ".disabled"
    try:
        if not os.path.exists(path) and os.path.exists(disabled):
            os.replace(disabled, path)
            facts["changed"] = facts["restored"] = True
            kept = f"restored the policy that `disable` kept: {pretty(path)}"
            say(facts, kept, as_json=args.json)
        if os.path.exists(path):
            if args.mode:
                facts["changed"] = _set_mode(path, args.mode) or facts["changed"]
                say(facts, f"mode = {args.mode!r} in {pretty(path)}", as_json=args.json)
            else:
                say(facts, f"already enabled: {pretty(path)}", as_json=args.json)
            return EXIT_OK
        created += _create(path, TEMPLATE.format(mode=args.mode or "enforce"))
    except PermissionError:
        return fail(
            f"cannot write {path}: permission denied; run as root for --scope system, "
            "or use --scope user",
            EXIT_USAGE,
            as_json=args.json,
        )
    facts["changed"] = True
    mode = args.mode or "enforce"
    say(facts, f"enabled: {pretty(path)} (mode {mode}, trust the system store)", as_json=args.json)
    say(facts, "check it with: sslcustomize doctor", as_json=args.json)
    return EXIT_OK


def _create(path: str, text: str) -> list[str]:
    """Write a new policy file; return it and the directories made for it (deepest last)."""
    directory = os.path.dirname(path)
    missing = []
    while directory and not os.path.isdir(directory):
        missing.append(directory)
        directory = os.path.dirname(directory)
    make_directories(os.path.dirname(path))
    atomic_write(path, text)
    return [path, *reversed(missing)]


def _set_mode(path: str, mode: str) -> bool:
    """Set the file's ``mode``; tell whether that changed it (idempotence for ``--json``)."""
    import tomlkit  # noqa: PLC0415 - keeps the file's comments and layout

    with open(path, encoding="utf-8") as file:
        document = tomlkit.parse(file.read())
    if document.get("mode") == mode:
        return False
    document["mode"] = mode
    atomic_write(path, tomlkit.dumps(document))
    return True
