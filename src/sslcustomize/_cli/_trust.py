"""``sslcustomize trust``: add a scoped exception for a server, after showing what is trusted."""

from __future__ import annotations

import argparse
import datetime as dt
import os
import ssl
import sys
from collections.abc import Sequence
from typing import Any

from sslcustomize._cli import EXIT_FAILURE, EXIT_OK, EXIT_USAGE
from sslcustomize._cli._check import add_proxy, inspect_target, seconds
from sslcustomize._cli._enable import add_scope, scope_path
from sslcustomize._cli._escape import shown
from sslcustomize._cli._output import console, fail, print_json
from sslcustomize._diagnosis._analysis import describe
from sslcustomize._diagnosis._probe import (
    STARTTLS_PORTS,
    ProbeError,
    Target,
    parse_target,
    proxy_for,
)
from sslcustomize._diagnosis._shadows import find_shadows
from sslcustomize._policy._hosts import HostPattern, parse_host_pattern
from sslcustomize._policy._model import HostException
from sslcustomize._runtime import _state
from sslcustomize._runtime._state import current_policy, current_runtime
from sslcustomize._support._files import atomic_write, make_directories
from sslcustomize._support._frozen import dataclass, replace
from sslcustomize._support._paths import pretty, unscoped_policy
from sslcustomize._trust._checked_policy import parse_policy
from sslcustomize._x509._der import spki_pin
from sslcustomize.exceptions import PolicyError

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
    parser.add_argument("target", metavar="TARGET", nargs="?")
    parser.add_argument(
        "--ca-file",
        metavar="FILE",
        help="instead of a TARGET: add this PEM bundle of CA certificates (your organisation's "
        "CA) to the layer's trust list, for every host",
    )
    parser.add_argument(
        "--cert-file",
        metavar="FILE",
        help="pin the key of this certificate (PEM or DER, the server's, obtained out of band) "
        "instead of fetching it: nothing connects, nothing is trusted on first use",
    )
    parser.add_argument(
        "--really-a-ca",
        action="store_true",
        help="with --ca-file: the certificate names hosts but is a CA; trust it for every host",
    )
    parser.add_argument(
        "--starttls", choices=sorted(STARTTLS_PORTS), help="speak this protocol before TLS"
    )
    kind = parser.add_mutually_exclusive_group()
    kind.add_argument("--pin", action="store_true", help="trust exactly the server's key (default)")
    kind.add_argument(
        "--ca", action="store_true", help="trust the CA the server sends, for this host"
    )
    when = parser.add_mutually_exclusive_group()
    when.add_argument(
        "--expires",
        metavar="DATE",
        type=_date,
        help="YYYY-MM-DD (default: the replaced exception's date, else today plus the "
        "policy's exception_days, 90 unless set)",
    )
    when.add_argument("--days", type=int, metavar="N", help="expire N days from today")
    parser.add_argument(
        "--reason",
        metavar="TEXT",
        help="why (a ticket, an owner); default: the replaced exception's reason, else asked",
    )
    add_scope(parser)
    parser.add_argument(
        "--no-check-hostname", action="store_true", help="with --pin: do not check the name"
    )
    parser.add_argument("--yes", action="store_true", help="do not ask for confirmation")
    parser.add_argument(
        "--pin-through-proxy",
        action="store_true",
        help="with --yes: pin the key that came through a proxy even though the proxy may "
        "intercept TLS (then the key is the proxy's, not the server's)",
    )
    parser.add_argument("--force", action="store_true", help="add it even if it verifies already")
    parser.add_argument("--timeout", type=seconds, default=10.0, help="seconds (default 10)")
    add_proxy(parser)
    parser.add_argument("--json", action="store_true", help="print a JSON document")
    parser.set_defaults(handler=run)


def _asked_expiry(args: argparse.Namespace) -> dt.date | None:
    """Return the expiry ``--expires``/``--days`` ask for; refuse one dead on arrival."""
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


def _expiry(
    args: argparse.Namespace, existing: HostException | None, default_days: int
) -> dt.date | None:
    """The expiry to write: asked for, else the replaced exception's, else the default.

    Re-trusting a re-keyed appliance keeps the date its exception had; an exception that
    has expired (being renewed) or never existed gets the policy's ``exception_days``.
    """
    asked = _asked_expiry(args)
    if asked is not None:
        return asked
    today = dt.date.today()
    if existing is not None and existing.expires is not None and existing.expires > today:
        return existing.expires
    return today + dt.timedelta(days=default_days) if default_days else None


def _date(text: str) -> dt.date:
    """Parse ``--expires``: an ISO date, with a usage error that says so."""
    try:
        return dt.date.fromisoformat(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a date: write YYYY-MM-DD (for example "
            f"{dt.date.today() + dt.timedelta(days=90)}), or use --days N"
        ) from None


def host_pattern(target: Target) -> str:
    """Return the ``host`` an exception for ``target`` names: always with its port.

    Scoped by port, trusting one service of a host (its SMTP) never hides the exception of
    another (its web UI).
    """
    host = f"[{target.host}]" if ":" in target.host else target.host
    return f"{host}:{target.port}"


def _exception_table(
    args: argparse.Namespace, target: Target, values: dict[str, Any], kept: _Kept
) -> Any:
    import tomlkit  # noqa: PLC0415 - only when writing

    table = tomlkit.table()
    table["host"] = host_pattern(target)
    for key, value in values.items():
        table[key] = value
    if args.no_check_hostname:
        table["check_hostname"] = False
    if kept.expires is not None:
        table["expires"] = kept.expires
    table["reason"] = kept.reason
    return table


@dataclass(frozen=True, slots=True, kw_only=True)
class _Kept:
    """The expiry and reason an edit writes, and whether they come from the old exception."""

    expires: dt.date | None
    reason: str
    kept_expires: bool = False
    kept_reason: bool = False


def _policy_text(path: str) -> str:
    """The file ``trust`` edits, as text ("" when it does not exist yet)."""
    try:
        with open(path, encoding="utf-8") as file:
            return file.read()
    except FileNotFoundError:
        return ""
    except (OSError, UnicodeDecodeError) as error:
        raise _file_refusal(path, "read", error) from None


def _file_refusal(path: str, verb: str, error: OSError | UnicodeDecodeError) -> _RefusedError:
    """Say in one line why the policy file at ``path`` cannot be read or written."""
    if isinstance(error, PermissionError):
        return _RefusedError(f"cannot {verb} {path}: permission denied (root for --scope system)")
    if isinstance(error, (IsADirectoryError, NotADirectoryError, UnicodeDecodeError)):
        return _RefusedError(f"cannot use {path} as a policy file: {_why(error)}")
    return _RefusedError(f"cannot {verb} {path}: {_why(error)}")


def _existing(path: str, layer: str, pattern: HostPattern) -> HostException | None:
    """Return the exception for ``pattern`` in the file to edit; refuse a broken file.

    Raises:
        _RefusedError: The file cannot be read or is not a valid policy (an edit through a
            TOML library would fail with its traceback, or keep the error).
    """
    text = _policy_text(path)
    if not text:
        return None
    try:
        parsed = parse_policy(text, path=path, layer=layer)
    except PolicyError as error:
        raise _RefusedError(
            f"{error}: fix that line of the policy file (sslcustomize explain lists every "
            "error), then run this again; nothing was written"
        ) from None
    same = [entry for entry in parsed.exceptions if entry.host == pattern]
    return same[0] if same else None


def _same_host(entry: Any, pattern: HostPattern) -> bool:
    try:
        return parse_host_pattern(str(entry.get("host", ""))) == pattern
    except ValueError:
        return False


def _write(path: str, layer: str, table: Any) -> tuple[int, bool]:
    """Put ``table`` in ``path`` as an [[exception]]; validate before replacing.

    An exception for the same host and port is replaced in place (a key change re-trusted
    leaves no dead duplicate); otherwise the table is appended.

    Returns:
        The line of the exception, and whether it replaced one.
    """
    import tomlkit  # noqa: PLC0415

    text = _policy_text(path)
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
    # Raises PolicyError: nothing written.
    parsed = parse_policy(new_text, path=path, layer=layer)
    make_directories(os.path.dirname(path))
    atomic_write(path, new_text)
    written = [e for e in parsed.exceptions if e.host == pattern]
    return (written[-1].origin.line or 0) if written else 0, bool(same)


def _confirm(question: str) -> bool:
    sys.stdout.write(f"{question} [y/N] ")
    sys.stdout.flush()
    return sys.stdin.readline().strip().lower() in ("y", "yes")


class _RefusedError(Exception):
    """A refusal: the message for the user, the exit status, and facts for ``--json``."""

    def __init__(
        self, message: str, code: int = EXIT_USAGE, *, details: dict[str, Any] | None = None
    ) -> None:
        super().__init__(message)
        self.code = code
        self.details = details or {}


def _read_certificate(name: str) -> bytes:
    """Return the first certificate of ``name`` (PEM or DER) as DER; refuse anything else."""
    try:
        with open(name, "rb") as file:
            data = file.read(1 << 20)
    except OSError as error:
        raise _RefusedError(f"--cert-file {name}: {_why(error)}") from None
    begin = data.find(b"-----BEGIN CERTIFICATE-----")
    try:
        if begin >= 0:
            end = data.index(b"-----END CERTIFICATE-----", begin)
            der = ssl.PEM_cert_to_DER_cert(data[begin : end + 25].decode("ascii"))
        else:
            der = data
        describe(der)
    except (ValueError, UnicodeDecodeError):
        raise _RefusedError(
            f"--cert-file {name}: not a certificate (PEM or DER); a private key or a CSR is "
            "not what the server presents"
        ) from None
    return der


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


def _show(  # noqa: PLR0917 - the parts of one prompt
    args: argparse.Namespace,
    target: Target,
    edit: _Edit,
    document: dict[str, Any],
    der: bytes,
    values: dict[str, Any],
) -> None:
    cert = describe(der)
    out = console()
    path, kept = edit.path, edit.kept
    # Subject, issuer and names are the server's words (a MITM's too): shown, never obeyed.
    if args.cert_file is not None:
        out.print(
            f"[bold]{shown(target)}[/]: the certificate of {shown(args.cert_file)} (not fetched: "
            "no connection made)"
        )
    else:
        out.print(f"[bold]{shown(target)}[/]: {', '.join(document['reasons']) or 'verified'}")
    out.print(f"  subject: {shown(cert.subject)}\n  issuer:  {shown(cert.issuer)}")
    if cert.names:
        out.print(f"  names:   {shown(', '.join(cert.names))}")
    out.print(f"  valid:   {cert.not_before} to {cert.not_after}\n  pin:     {cert.pin}")
    if document["interception"] and not args.ca:
        # A pin through an inspecting proxy pins the proxy's forged key for this host.
        out.print(
            f"[yellow]note:[/] this certificate comes from the proxy {shown(document['proxy'])}"
            ", not the server: pinning it trusts the proxy for this host; to trust the "
            "proxy's CA instead, use --ca (this host) or --ca-file (every host)"
        )
    if args.cert_file is not None:
        _cert_file_notes(out, target, cert, check_hostname=not args.no_check_hostname)
    if edit.existing is not None:
        _show_replaced(out, target, edit.existing, values)
    what = "its CA" if args.ca else "exactly this key"
    out.print(f"Trust {what} for {shown(host_pattern(target))} in {shown(pretty(path))}")
    out.print(f"  {_lifetime(kept)}")


def _trusted_text(pins: Sequence[str], cas: Sequence[object]) -> str:
    return ", ".join([*pins, *(f"CA {pretty(str(ca))}" for ca in cas)]) or "no key (mode only)"


def _show_replaced(
    out: Any, target: Target, existing: HostException, values: dict[str, Any]
) -> None:
    """Show what the new exception replaces: old -> new, loudly when the key changed.

    As SSH's "remote host identification has changed": a new key for a pinned host is either a
    re-key or someone in the middle, and only the person confirming can tell which.
    """
    new_pins = values.get("pin", [])
    where = shown(f"{pretty(str(existing.origin.path))}:{existing.origin.line}")
    if existing.pins and new_pins and not set(new_pins) & set(existing.pins):
        out.print(
            f"[bold red]WARNING: the key of {shown(host_pattern(target))} has changed[/] since "
            "it was trusted: either the server was re-keyed, or someone is in the middle. "
            "Confirm the new pin with the server's administrator before you accept it."
        )
    out.print(f"  old: {shown(_trusted_text(existing.pins, existing.ca))} ({where})")
    out.print(f"  new: {shown(_trusted_text(new_pins, values.get('ca', [])))}")
    out.print(
        f"  replaces the exception at {where} (reason '{shown(existing.reason)}'"
        f"{f', until {existing.expires}' if existing.expires else ''})"
    )


def _cert_file_notes(out: Any, target: Target, cert: Any, *, check_hostname: bool) -> None:
    """Say what a pin from a file will not do: a name it lacks, a CA's key."""
    if check_hostname and not any(_name_covers(name, target.host) for name in cert.names):
        out.print(
            f"[yellow]note:[/] the certificate does not name {shown(target.host)}: connections "
            "will fail with hostname_mismatch unless you add --no-check-hostname"
        )


def _name_covers(name: str, host: str) -> bool:
    """Tell whether a certificate name covers ``host`` (a one-label wildcard too)."""
    name, host = name.lower().rstrip("."), host.lower().rstrip(".")
    if name.startswith("*."):
        return host.partition(".")[2] == name[2:] and "." in host
    return name == host


def _lifetime(kept: _Kept) -> str:
    """Say until when and why, and what was kept from the exception replaced."""
    until = f"until {kept.expires}" if kept.expires else "with no expiry"
    until += " (kept)" if kept.kept_expires else ""
    because = f"reason '{shown(kept.reason)}'" if kept.reason else "no reason yet"
    return f"{until}, {because}{' (kept)' if kept.kept_reason else ''}"


def _apply(
    args: argparse.Namespace, target: Target, edit: _Edit, values: dict[str, Any], ca: bytes | None
) -> tuple[int, bool]:
    path = edit.path
    try:
        if ca is not None:
            make_directories(os.path.dirname(values["ca"][0]))
            atomic_write(values["ca"][0], ssl.DER_cert_to_PEM_cert(ca))
        return _write(path, edit.layer, _exception_table(args, target, values, edit.kept))
    except PolicyError as error:
        raise _RefusedError(
            f"the new exception would not be valid, nothing written: {error}"
        ) from None
    except (OSError, UnicodeDecodeError) as error:
        raise _file_refusal(path, "write", error) from None


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


@dataclass(frozen=True, slots=True, kw_only=True)
class _Edit:
    """Which file an edit changes, as which layer, and the expiry and reason it writes."""

    path: str
    layer: str
    existing: HostException | None
    kept: _Kept


def _plan_edit(args: argparse.Namespace, target: Target) -> _Edit:
    """Find the file, its exception for the target, and what the new one keeps from it."""
    try:
        layer, path = (args.scope, scope_path(args)) if args.scope else unscoped_policy()
    except ValueError as error:
        raise _RefusedError(str(error)) from None
    existing = _existing(path, layer, parse_host_pattern(host_pattern(target)))
    days = current_policy().exception_days.value
    expires = _expiry(args, existing, days)
    if args.reason:
        reason, kept_reason = args.reason, False
    elif existing is not None:
        reason, kept_reason = existing.reason, True
    else:
        reason, kept_reason = "", False
    kept = _Kept(
        expires=expires,
        reason=reason,
        kept_expires=existing is not None and expires is not None and expires == existing.expires,
        kept_reason=kept_reason,
    )
    return _Edit(path=path, layer=layer, existing=existing, kept=kept)


def _ask_reason(edit: _Edit, *, interactive: bool) -> _Edit:
    """Fill in the reason: asked on a terminal, else a dated default.

    Every exception carries a reason, so Enter takes the dated default, and the prompt says
    which (it said "Enter for none" and then wrote one).
    """
    if edit.kept.reason:
        return edit
    default = f"added with `sslcustomize trust` on {dt.date.today()}"
    reason = ""
    if interactive:
        sys.stdout.write(f"Reason (a ticket, an owner; Enter for '{default}'): ")
        sys.stdout.flush()
        reason = sys.stdin.readline().strip()
    return replace(edit, kept=replace(edit.kept, reason=reason or default))


def _renew(args: argparse.Namespace, target: Target, edit: _Edit) -> int:
    """Change only the reason or expiry of the exception that already verifies the target."""
    import tomlkit  # noqa: PLC0415 - only when writing

    assert edit.existing is not None  # noqa: S101 - the caller checked
    path = edit.path
    document_toml = tomlkit.parse(_policy_text(path))
    pattern = edit.existing.host
    for entry in document_toml["exception"]:
        if _same_host(entry, pattern):
            if edit.kept.expires is not None:
                entry["expires"] = edit.kept.expires
            entry["reason"] = edit.kept.reason
            break
    new_text = tomlkit.dumps(document_toml)
    try:
        parse_policy(new_text, path=path, layer=edit.layer)
        atomic_write(path, new_text)
    except PolicyError as error:
        raise _RefusedError(f"the change would not be valid, nothing written: {error}") from None
    except OSError as error:
        raise _RefusedError(f"cannot write {path}: {_why(error)}") from None
    if args.json:
        print_json({
            "target": str(target), "host": host_pattern(target), "path": path,
            "line": edit.existing.origin.line, "replaced": False, "renewed": True,
            "expires": edit.kept.expires, "reason": edit.kept.reason,
        })  # fmt: skip
    else:
        console().print(
            f"updated the exception for {shown(host_pattern(target))} at "
            f"{shown(pretty(path))}:{edit.existing.origin.line}: {_lifetime(edit.kept)}"
        )
    return EXIT_OK


def _asks_for_lifetime(args: argparse.Namespace) -> bool:
    return bool(args.reason or args.days is not None or args.expires is not None)


def _certificate(
    args: argparse.Namespace, target: Target, proxy: Any
) -> tuple[dict[str, Any], bool, tuple[bytes, ...]]:
    """Return what ``check`` says of the target, whether it verifies, and its chain.

    With ``--cert-file`` nothing connects: the file is the chain, and nothing is known of
    how the server would verify.
    """
    if args.cert_file is not None:
        document = {"reasons": [], "interception": False, "proxy": None}
        return document, False, (_read_certificate(args.cert_file),)
    try:
        return inspect_target(target, None, args.timeout, proxy, runtime=current_runtime())
    except ProbeError as error:
        raise _RefusedError(f"could not fetch the certificate of {target}: {error}") from None


def _add(args: argparse.Namespace) -> int:
    if args.no_check_hostname and args.ca:
        raise _RefusedError(
            "--no-check-hostname goes with --pin only: a CA alone must name the host"
        )
    if args.cert_file is not None and args.ca:
        raise _RefusedError(
            "--cert-file pins the key of that certificate: to trust a CA, use --ca-file FILE "
            "(every host) or name it in the exception's ca list"
        )
    _asked_expiry(args)  # refuse a bad date before connecting
    try:
        target = parse_target(args.target, args.starttls)
        proxy = proxy_for(target, args.proxy)
    except ValueError as error:
        raise _RefusedError(str(error)) from None
    policy = current_policy()
    if "exception" in policy.locked and args.scope != "system":
        raise _RefusedError(
            f"the system policy ({policy.locked['exception']}) locks exceptions: ask the "
            "administrator to add this one to /etc/sslcustomize/policy.toml"
        )
    edit = _plan_edit(args, target)
    document, verified, chain = _certificate(args, target, proxy)
    if verified and not args.force:
        mine = edit.existing is not None and document["rule"] == f"exception {edit.existing.host}"
        if mine and _asks_for_lifetime(args):
            return _renew(args, target, edit)
        hint = (
            "; to change its reason or expiry, give --reason, --days or --expires" if mine else ""
        )
        raise _RefusedError(
            f"{target} already verifies under rule '{document['rule']}': nothing to trust"
            f"{hint} (add --force to add an exception anyway)",
            EXIT_FAILURE,
        )
    _refuse_a_proxys_key(args, target, document)
    values, shown_der, ca = _what_to_trust(args, target, edit.path, chain)
    if not args.json:
        _show(args, target, edit, document, shown_der, values)
    if not args.yes:
        if not sys.stdin.isatty():
            raise _RefusedError("not a terminal, so nothing was written: add --yes to confirm")
        if not _confirm("Add this exception?"):
            raise _RefusedError("nothing written", EXIT_FAILURE)
    edit = _ask_reason(edit, interactive=not args.yes)
    line, replaced = _apply(args, target, edit, values, ca)
    if args.json:
        old = edit.existing
        print_json({
            "target": str(target), "host": host_pattern(target), "path": edit.path, "line": line,
            "replaced": replaced, "expires": edit.kept.expires, "reason": edit.kept.reason,
            **values,
            "old": {"pin": list(old.pins), "ca": [str(ca) for ca in old.ca]} if old else None,
            "fetched": args.cert_file is None,
            "proxy": document.get("proxy"), "interception": document.get("interception"),
        })  # fmt: skip
    else:
        done = "replaced the exception" if replaced else "added an exception"
        console().print(
            f"{done} for {shown(host_pattern(target))} at {shown(pretty(edit.path))}:{line}, "
            f"{_lifetime(edit.kept)}"
        )
    _warn_shadows(host_pattern(target))
    return EXIT_OK


def _refuse_a_proxys_key(
    args: argparse.Namespace, target: Target, document: dict[str, Any]
) -> None:
    """Refuse, without a person to ask, to pin a key that an inspecting proxy may have sent.

    Through a TLS-inspecting proxy the certificate is the proxy's, forged for this host:
    pinning it trusts the proxy for the host, and the server's own key stays unknown (issue
    32 #10). On a terminal the prompt says so; with ``--yes`` only ``--pin-through-proxy``
    asks for it.
    """
    if args.ca or not document["interception"] or not args.yes or args.pin_through_proxy:
        return
    raise _RefusedError(
        f"the certificate of {target} came through the proxy {document['proxy']} and is not "
        "trusted: if the proxy intercepts TLS, its key is the proxy's, not the server's, so "
        "nothing was written. Trust the proxy's CA instead ("
        f"{document['interception']['trust_host'] or 'sslcustomize trust --ca-file PROXY-CA.pem'}"
        "), or add --pin-through-proxy if the proxy only tunnels",
        details={"proxy": document["proxy"], "interception": document["interception"]},
    )


def run(args: argparse.Namespace) -> int:
    """Fetch, show, confirm, write; or say why not."""
    if args.really_a_ca and args.ca_file is None:
        return fail("--really-a-ca goes with --ca-file FILE", EXIT_USAGE, as_json=args.json)
    if args.ca_file is not None or args.target is None:
        return _run_ca_file(args)
    try:
        return _add(args)
    except _RefusedError as refusal:
        if args.json and refusal.details:
            print_json(
                {"error": {"message": str(refusal), "exit": refusal.code}, **refusal.details}
            )
            return fail(str(refusal), refusal.code)
        return fail(str(refusal), refusal.code, as_json=args.json)


def _run_ca_file(args: argparse.Namespace) -> int:
    if args.ca_file is None:
        return fail("nothing to trust: give TARGET (host[:port]) or --ca-file FILE", EXIT_USAGE)
    if args.target is not None:
        return fail(
            "give TARGET or --ca-file, not both: --ca-file trusts a CA for every host",
            EXIT_USAGE,
            as_json=args.json,
        )
    from sslcustomize._cli._cafile import CAFileError, add_ca_file  # noqa: PLC0415 - only for --ca-file

    try:
        return add_ca_file(args)
    except CAFileError as error:
        return fail(str(error), EXIT_USAGE, as_json=args.json)
