"""``sslcustomize enable``: write a layer's policy file with safe defaults."""

from __future__ import annotations

import argparse
import contextlib
import io
import os
from collections.abc import Callable

from sslcustomize._cli import EXIT_OK, EXIT_USAGE
from sslcustomize._cli._output import fail, print_json
from sslcustomize._support._files import atomic_write, make_directories
from sslcustomize._support._paths import policy_path_for_scope, pretty, unscoped_policy

__all__ = ["add_json", "add_python", "add_scope", "register", "scope_path", "with_json"]

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
    """Add ``--json``: one JSON document that says whether anything changed."""
    parser.add_argument(
        "--json",
        action="store_true",
        help='print a JSON document instead: {"changed": true|false, "messages": [...]}, for '
        "configuration management (changed is false when every file was already as asked)",
    )


def with_json(
    args: argparse.Namespace, command: Callable[[argparse.Namespace, list[str]], int]
) -> int:
    """Run ``command(args, changes)``; with ``--json``, print its lines and changes as JSON.

    ``changes`` collects the paths the command wrote or removed: ``changed`` is whether there
    is any. Errors still go to stderr, as ``fail`` writes them.
    """
    changes: list[str] = []
    if not getattr(args, "json", False):
        return command(args, changes)
    captured = io.StringIO()
    with contextlib.redirect_stdout(captured):
        status = command(args, changes)
    print_json(
        {
            "command": args.command,
            "exit": status,
            "changed": bool(changes),
            "changes": sorted(set(changes)),
            "messages": captured.getvalue().splitlines(),
        }
    )
    return status


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
    return with_json(args, _enable)


def _enable(args: argparse.Namespace, changes: list[str]) -> int:
    try:
        path = scope_path(args)
    except ValueError as error:
        return fail(str(error))
    created: list[str] = []
    status = _write_policy(args, path, created, changes)
    if status != EXIT_OK or args.scope not in ("system", "user"):
        return status
    from sslcustomize._cli._reach import reach  # noqa: PLC0415 - discovery and install only for these scopes

    return reach(args, path, created, changes)


def _write_policy(
    args: argparse.Namespace, path: str, created: list[str], changes: list[str]
) -> int:
    """Write the policy file of the scope (or change its mode); list what was created.

    ``changes`` gets the policy's path when the file was written, restored or changed.
    """
    disabled = path + ".disabled"
    try:
        if not os.path.exists(path) and os.path.exists(disabled):
            os.replace(disabled, path)
            changes.append(path)
            print(f"restored the policy that `disable` kept: {pretty(path)}")
        if os.path.exists(path):
            if args.mode and _set_mode(path, args.mode):
                changes.append(path)
                print(f"mode = {args.mode!r} in {pretty(path)}")
            elif args.mode:
                print(f"already mode = {args.mode!r}: {pretty(path)}")
            else:
                print(f"already enabled: {pretty(path)}")
            return EXIT_OK
        created += _create(path, TEMPLATE.format(mode=args.mode or "enforce"))
        changes.append(path)
    except PermissionError:
        return fail(
            f"cannot write {path}: permission denied; run as root for --scope system, "
            "or use --scope user",
            EXIT_USAGE,
        )
    print(f"enabled: {pretty(path)} (mode {args.mode or 'enforce'}, trust the system store)")
    print("check it with: sslcustomize doctor")
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
    """Set ``mode`` in the policy at ``path``; tell whether the file changed."""
    import tomlkit  # noqa: PLC0415 - keeps the file's comments and layout

    with open(path, encoding="utf-8") as file:
        text = file.read()
    document = tomlkit.parse(text)
    document["mode"] = mode
    new = tomlkit.dumps(document)
    if new == text:
        return False
    atomic_write(path, new)
    return True
