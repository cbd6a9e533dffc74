"""``sslcustomize trust``: add a scoped exception for a server, after showing what is trusted."""

from __future__ import annotations

import argparse
import datetime as dt
import os
import ssl
import sys
from typing import Any

from .. import _state
from .._analysis import describe
from .._der import spki_pin
from .._files import atomic_write
from .._hosts import HostPattern, parse_host_pattern
from .._paths import pretty
from .._policy import parse_policy
from .._probe import STARTTLS_PORTS, ProbeError, Target, parse_target
from .._shadows import find_shadows
from .._state import current_policy
from ..exceptions import PolicyError
from . import EXIT_FAILURE, EXIT_OK, EXIT_USAGE
from ._check import inspect_target
from ._enable import add_scope, scope_path
from ._escape import shown
from ._output import console, fail, print_json

__all__ = ["register"]


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``trust``."""
    parser = commands.add_parser(
        "trust",
        help="add a scoped exception for a server (pin its key, or trust its CA)",
        description="Fetch TARGET's certificate, show its subject, issuer, validity and pin, "
        "and after confirmation add an exception for that host and port to a policy file "
        "(replacing the one for the same host and port). The file's comments and layout are "
        "kept.",
    )
    parser.add_argument("target", metavar="TARGET")
    parser.add_argument(
        "--starttls", choices=sorted(STARTTLS_PORTS), help="speak this protocol before TLS"
    )
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
    parser.add_argument("--timeout", type=float, default=10.0, help="seconds (default 10)")
    parser.add_argument("--json", action="store_true", help="print a JSON document")
    parser.set_defaults(handler=run)


def _expires(args: argparse.Namespace) -> dt.date | None:
    """Return the expiry asked for; refuse one that would be dead on arrival."""
    today = dt.date.today()
    expires: dt.date | None = args.expires
    if args.days is not None:
        if args.days < 1:
            raise _RefusedError(f"--days {args.days}: an exception must live at least one day")
        expires = today + dt.timedelta(days=args.days)
    if expires is not None and expires <= today:
        raise _RefusedError(
            f"--expires {expires} is not after today ({today}): that exception would already "
            "be expired, so nothing was written"
        )
    return expires


def host_pattern(target: Target) -> str:
    """Return the ``host`` an exception for ``target`` names: always with its port.

    Scoped by port, trusting one service of a host (its SMTP) never hides the exception of
    another (its web UI).
    """
    host = f"[{target.host}]" if ":" in target.host else target.host
    return f"{host}:{target.port}"


def _exception_table(
    args: argparse.Namespace, target: Target, values: dict[str, Any], expires: dt.date | None
) -> Any:
    import tomlkit  # noqa: PLC0415 - only when writing

    table = tomlkit.table()
    table["host"] = host_pattern(target)
    for key, value in values.items():
        table[key] = value
    if args.no_check_hostname:
        table["check_hostname"] = False
    if expires is not None:
        table["expires"] = expires
    table["reason"] = args.reason or f"added with `sslcustomize trust` on {dt.date.today()}"
    return table


def _same_host(entry: Any, pattern: HostPattern) -> bool:
    try:
        return parse_host_pattern(str(entry.get("host", ""))) == pattern
    except ValueError:
        return False


def _write(path: str, table: Any) -> tuple[int, bool]:
    """Put ``table`` in ``path`` as an [[exception]]; validate before replacing.

    An exception for the same host and port is replaced in place (a key change re-trusted
    leaves no dead duplicate); otherwise the table is appended.

    Returns:
        The line of the exception, and whether it replaced one.
    """
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
    entries = document["exception"]
    pattern = parse_host_pattern(str(table["host"]))
    same = [index for index, entry in enumerate(entries) if _same_host(entry, pattern)]
    if same:
        entries[same[0]] = table
        for index in reversed(same[1:]):
            del entries[index]
    else:
        entries.append(table)
    new_text = tomlkit.dumps(document)
    layer = parse_policy(new_text, path=path, layer="user")  # raises PolicyError: nothing written
    os.makedirs(os.path.dirname(path), exist_ok=True)
    atomic_write(path, new_text)
    written = [e for e in layer.exceptions if e.host == pattern]
    return (written[-1].origin.line or 0) if written else 0, bool(same)


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
    cert = describe(der)
    out = console()
    # Subject, issuer and names are the server's words (a MITM's too): shown, never obeyed.
    out.print(f"[bold]{shown(target)}[/]: {', '.join(document['reasons']) or 'verified'}")
    out.print(f"  subject: {shown(cert.subject)}\n  issuer:  {shown(cert.issuer)}")
    if cert.names:
        out.print(f"  names:   {shown(', '.join(cert.names))}")
    out.print(f"  valid:   {cert.not_before} to {cert.not_after}\n  pin:     {cert.pin}")
    what = "its CA" if args.ca else "exactly this key"
    out.print(f"Trust {what} for {shown(host_pattern(target))} in {shown(pretty(path))}?")


def _apply(  # noqa: PLR0917 - the parts of one edit
    args: argparse.Namespace,
    target: Target,
    path: str,
    values: dict[str, Any],
    ca: bytes | None,
    expires: dt.date | None,
) -> tuple[int, bool]:
    try:
        if ca is not None:
            os.makedirs(os.path.dirname(values["ca"][0]), exist_ok=True)
            atomic_write(values["ca"][0], ssl.DER_cert_to_PEM_cert(ca))
        return _write(path, _exception_table(args, target, values, expires))
    except PolicyError as error:
        raise _RefusedError(
            f"the new exception would not be valid, nothing written: {error}"
        ) from None
    except PermissionError:
        raise _RefusedError(
            f"cannot write {path}: permission denied (root for --scope system)"
        ) from None
    except (IsADirectoryError, NotADirectoryError, UnicodeDecodeError) as error:
        raise _RefusedError(f"cannot use {path} as a policy file: {_why(error)}") from None
    except OSError as error:
        raise _RefusedError(f"cannot write {path}: {_why(error)}") from None


def _why(error: Exception) -> str:
    if isinstance(error, IsADirectoryError):
        return "it is a directory"
    if isinstance(error, UnicodeDecodeError):
        return "it is not UTF-8 text"
    return str(getattr(error, "strerror", None) or error)


def _warn_shadows(pattern: str) -> None:
    """After writing: say when the new exception hides another one, or another hides it."""
    _state.set_policy(None)
    host = parse_host_pattern(pattern)
    for shadow in find_shadows(current_policy().exceptions):
        if host in (shadow.winner.host, shadow.loser.host):
            sys.stderr.write(f"sslcustomize: warning: {shadow}\n")


def _add(args: argparse.Namespace) -> int:
    if args.no_check_hostname and args.ca:
        raise _RefusedError(
            "--no-check-hostname goes with --pin only: a CA alone must name the host"
        )
    expires = _expires(args)
    try:
        target = parse_target(args.target, args.starttls)
        path = scope_path(args)
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
    line, replaced = _apply(args, target, path, values, ca, expires)
    if args.json:
        print_json({
            "target": str(target), "host": host_pattern(target), "path": path, "line": line,
            "replaced": replaced, **values,
        })  # fmt: skip
    else:
        done = "replaced the exception" if replaced else "added an exception"
        console().print(f"{done} for {host_pattern(target)} at {pretty(path)}:{line}")
    _warn_shadows(host_pattern(target))
    return EXIT_OK


def run(args: argparse.Namespace) -> int:
    """Fetch, show, confirm, write; or say why not."""
    try:
        return _add(args)
    except _RefusedError as refusal:
        return fail(str(refusal), refusal.code)
