"""``sslcustomize trust``: add a scoped exception for a server, after showing what is trusted."""

from __future__ import annotations

import argparse
import datetime as dt
import os
import ssl
import sys
from typing import Any

from .._analysis import describe
from .._files import atomic_write
from .._paths import pretty
from .._policy import parse_policy
from .._probe import STARTTLS_PORTS, ProbeError, Target, parse_target
from .._reasons import spki_pin
from .._state import current_policy
from ..exceptions import PolicyError
from . import EXIT_FAILURE, EXIT_OK, EXIT_USAGE
from ._check import inspect_target
from ._enable import add_scope, scope_path
from ._output import console, fail, print_json

__all__ = ["register"]


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``trust``."""
    parser = commands.add_parser(
        "trust",
        help="add a scoped exception for a server (pin its key, or trust its CA)",
        description="Fetch TARGET's certificate, show its subject, issuer, validity and pin, "
        "and after confirmation add an exception for that host to a policy file. The file's "
        "comments and layout are kept.",
    )
    parser.add_argument("target", metavar="TARGET")
    parser.add_argument("--starttls", choices=sorted(STARTTLS_PORTS))
    kind = parser.add_mutually_exclusive_group()
    kind.add_argument("--pin", action="store_true", help="trust exactly the server's key (default)")
    kind.add_argument(
        "--ca", action="store_true", help="trust the CA the server sends, for this host"
    )
    when = parser.add_mutually_exclusive_group()
    when.add_argument("--expires", metavar="DATE", type=dt.date.fromisoformat, help="YYYY-MM-DD")
    when.add_argument("--days", type=int, metavar="N", help="expire N days from today")
    parser.add_argument("--reason", metavar="TEXT", help="why (a ticket, an owner)")
    add_scope(parser)
    parser.add_argument(
        "--no-check-hostname", action="store_true", help="with --pin: do not check the name"
    )
    parser.add_argument("--yes", action="store_true", help="do not ask for confirmation")
    parser.add_argument("--force", action="store_true", help="add it even if it verifies already")
    parser.add_argument("--timeout", type=float, default=10.0)
    parser.add_argument("--json", action="store_true", help="print a JSON document")
    parser.set_defaults(handler=run)


def _exception_table(args: argparse.Namespace, target: Target, values: dict[str, Any]) -> Any:
    import tomlkit  # noqa: PLC0415 - only when writing

    table = tomlkit.table()
    table["host"] = target.host
    for key, value in values.items():
        table[key] = value
    if args.no_check_hostname:
        table["check_hostname"] = False
    expires = args.expires
    if args.days is not None:
        expires = dt.date.today() + dt.timedelta(days=args.days)
    if expires is not None:
        table["expires"] = expires
    table["reason"] = args.reason or f"added with `sslcustomize trust` on {dt.date.today()}"
    return table


def _write(path: str, table: Any) -> int:
    """Append ``table`` as an [[exception]] to ``path``; validate before replacing. Return line."""
    import tomlkit  # noqa: PLC0415

    text = ""
    if os.path.exists(path):
        with open(path, encoding="utf-8") as file:
            text = file.read()
    document = tomlkit.parse(text) if text else tomlkit.document()
    if "version" not in document:
        document.add("version", 1)
    if "exception" not in document:
        document.add("exception", tomlkit.aot())
    document["exception"].append(table)
    new_text = tomlkit.dumps(document)
    layer = parse_policy(new_text, path=path, layer="user")  # raises PolicyError: nothing written
    os.makedirs(os.path.dirname(path), exist_ok=True)
    atomic_write(path, new_text)
    return layer.exceptions[-1].origin.line or 0


def _confirm(question: str) -> bool:
    sys.stdout.write(f"{question} [y/N] ")
    sys.stdout.flush()
    return sys.stdin.readline().strip().lower() in ("y", "yes")


class _RefusedError(Exception):
    """A refusal: the message for the user and the exit status."""

    def __init__(self, message: str, code: int = EXIT_USAGE) -> None:
        super().__init__(message)
        self.code = code


def _what_to_trust(
    args: argparse.Namespace, target: Target, path: str, chain: tuple[bytes, ...]
) -> tuple[dict[str, Any], bytes, bytes | None]:
    """Return the exception's values, the certificate shown, and a CA certificate to write."""
    if not args.ca:
        return {"pin": [spki_pin(chain[0])]}, chain[0], None
    if not describe(chain[-1]).self_issued:
        raise _RefusedError(
            f"{target} does not send its CA certificate; get it from the server's "
            "administrator and name it in the policy's `ca` list, or use --pin"
        )
    ca_path = os.path.join(os.path.dirname(path), "ca", f"{target.host}.pem")
    return {"ca": [ca_path]}, chain[-1], chain[-1]


def _show(
    args: argparse.Namespace, target: Target, path: str, document: dict[str, Any], der: bytes
) -> None:
    shown = describe(der)
    out = console()
    out.print(f"[bold]{target}[/]: {', '.join(document['reasons']) or 'verified'}")
    out.print(f"  subject: {shown.subject}\n  issuer:  {shown.issuer}")
    out.print(f"  valid:   {shown.not_before} to {shown.not_after}\n  pin:     {shown.pin}")
    what = "its CA" if args.ca else "exactly this key"
    out.print(f"Trust {what} for {target.host} in {pretty(path)}?")


def _apply(
    args: argparse.Namespace, target: Target, path: str, values: dict[str, Any], ca: bytes | None
) -> int:
    try:
        if ca is not None:
            os.makedirs(os.path.dirname(values["ca"][0]), exist_ok=True)
            atomic_write(values["ca"][0], ssl.DER_cert_to_PEM_cert(ca))
        return _write(path, _exception_table(args, target, values))
    except PolicyError as error:
        raise _RefusedError(
            f"the new exception would not be valid, nothing written: {error}"
        ) from None
    except PermissionError:
        raise _RefusedError(
            f"cannot write {path}: permission denied (root for --scope system)"
        ) from None


def _add(args: argparse.Namespace) -> int:
    if args.no_check_hostname and args.ca:
        raise _RefusedError(
            "--no-check-hostname goes with --pin only: a CA alone must name the host"
        )
    try:
        target = parse_target(args.target, args.starttls)
        path = scope_path(args, existing=True)
    except ValueError as error:
        raise _RefusedError(str(error)) from None
    policy = current_policy()
    if "exception" in policy.locked and args.scope != "system":
        raise _RefusedError(
            f"the system policy ({policy.locked['exception']}) locks exceptions: ask the "
            "administrator to add this one to /etc/sslcustomize/policy.toml"
        )
    try:
        document, verified, chain = inspect_target(target, None, args.timeout)
    except ProbeError as error:
        raise _RefusedError(f"could not fetch the certificate of {target}: {error}") from None
    if verified and not args.force:
        raise _RefusedError(
            f"{target} already verifies under rule '{document['rule']}': nothing to trust "
            "(add --force to add an exception anyway)",
            EXIT_FAILURE,
        )
    values, shown_der, ca = _what_to_trust(args, target, path, chain)
    if not args.json:
        _show(args, target, path, document, shown_der)
    if not args.yes:
        if not sys.stdin.isatty():
            raise _RefusedError("not a terminal, so nothing was written: add --yes to confirm")
        if not _confirm("Add this exception?"):
            raise _RefusedError("nothing written", EXIT_FAILURE)
    line = _apply(args, target, path, values, ca)
    if args.json:
        print_json({"target": str(target), "path": path, "line": line, **values})
    else:
        console().print(f"added an exception for {target.host} at {pretty(path)}:{line}")
    return EXIT_OK


def run(args: argparse.Namespace) -> int:
    """Fetch, show, confirm, write; or say why not."""
    try:
        return _add(args)
    except _RefusedError as refusal:
        return fail(str(refusal), refusal.code)
