"""``sslcustomize lock KEY`` / ``unlock KEY``: the system layer's ``lock`` list, by command.

A lock keeps the venv, user and process layers from changing a key (SPEC, "Policy layers"):
only the system layer has locks, so both commands edit that file alone, with its comments and
layout kept, and validate the result before it replaces the file.
"""

from __future__ import annotations

import argparse
from typing import Any

from sslcustomize._cli import EXIT_FAILURE, EXIT_OK, EXIT_USAGE
from sslcustomize._cli._output import fail, print_json
from sslcustomize._policy._model import LOCKABLE
from sslcustomize._runtime._state import set_policy
from sslcustomize._support._files import atomic_write
from sslcustomize._support._paths import policy_path_for_scope
from sslcustomize._trust._checked_policy import parse_policy
from sslcustomize.exceptions import PolicyError

__all__ = ["add_lock_arguments", "register", "run"]


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``lock``."""
    parser = commands.add_parser(
        "lock",
        help="lock a key of the system policy so that no other layer changes it",
        description="Add KEY to the system policy's lock list: the venv, user and process "
        "layers can no longer change it (a layer that tries gets a warning naming its file "
        "and line, and the system value stands). Only the system layer has locks.",
    )
    add_lock_arguments(parser)
    parser.set_defaults(handler=run, unlock=False)


def add_lock_arguments(parser: argparse.ArgumentParser) -> None:
    """Add KEY, ``--scope`` (system only) and ``--json``; shared with ``unlock``."""
    parser.add_argument("key", metavar="KEY", choices=LOCKABLE, help=", ".join(LOCKABLE))
    parser.add_argument(
        "--scope",
        choices=("venv", "user", "system"),
        default="system",
        help="system (the default, and the only layer that has locks)",
    )
    parser.add_argument("--json", action="store_true", help="print a JSON document")


def run(args: argparse.Namespace) -> int:
    """Add KEY to the system policy's locks, or with ``args.unlock`` remove it."""
    verb = "unlock" if args.unlock else "lock"
    path = policy_path_for_scope("system")
    if args.scope != "system":
        return fail(
            f"only the system layer has locks ({path}): a lock there binds every "
            f"other layer; run `sslcustomize {verb} {args.key}` as root, without --scope",
            as_json=args.json,
        )
    import tomlkit  # noqa: PLC0415 - only when editing
    from tomlkit.exceptions import ParseError  # noqa: PLC0415

    try:
        with open(path, encoding="utf-8") as file:
            text = file.read()
        document: Any = tomlkit.parse(text)
        parse_policy(text, path=path, layer="system")
    except FileNotFoundError:
        # A file holding only a lock would turn sslcustomize on for the whole machine.
        return fail(
            f"there is no system policy ({path}): create it with `sslcustomize enable "
            "--scope system`, then lock its keys",
            as_json=args.json,
        )
    except (OSError, UnicodeDecodeError, ParseError, PolicyError) as error:
        return fail(
            f"cannot {verb} in {path}: {error}; fix the file first, nothing was written",
            as_json=args.json,
        )
    locks = document.get("lock")
    current = [str(key) for key in locks] if isinstance(locks, list) else []
    changed = (args.key in current) == args.unlock
    if changed and args.unlock:
        if len(current) == 1:
            del document["lock"]
        else:
            del locks[current.index(args.key)]
    elif changed and locks is None:
        document["lock"] = [args.key]
    elif changed:
        locks.append(args.key)
    if changed:
        new_text = tomlkit.dumps(document)
        try:
            parse_policy(new_text, path=path, layer="system")
            atomic_write(path, new_text)
        except PolicyError as error:
            return fail(f"the change would not be valid, nothing written: {error}", EXIT_USAGE)
        except OSError as error:
            return fail(
                f"cannot write {path}: {error.strerror or error} (run as root)",
                as_json=args.json,
            )
        set_policy(None)
    return _said(args, path, changed=changed)


def _said(args: argparse.Namespace, path: str, *, changed: bool) -> int:
    if args.json:
        print_json({"path": path, "key": args.key, "locked": not args.unlock, "changed": changed})
        return EXIT_OK
    if changed:
        done = "unlocked" if args.unlock else "locked"
        print(f"{done} {args.key!r} in {path}")
        return EXIT_OK
    if args.unlock:
        return fail(f"{args.key!r} is not locked in {path}: nothing to unlock", EXIT_FAILURE)
    print(f"already locked: {args.key!r} in {path}")
    return EXIT_OK
