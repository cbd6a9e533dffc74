"""``sslcustomize untrust``: remove a host's exceptions, or a trusted CA, from a policy file.

The undo of ``trust``: ``untrust HOST[:PORT]`` removes the exceptions for that host from one
layer's file, ``untrust --ca-file FILE`` the entry of a layer's ``trust`` list that names
FILE (or a copy of the same certificates, as ``trust --ca-file`` makes). The copy of a CA that
``trust`` made beside the policy file (in its ``ca/`` directory) goes too once nothing in the
file names it. The file's comments and layout are kept; the new file is validated before it
replaces the old one, so a removal never leaves a policy that fails.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
from typing import Any

from sslcustomize._cli import EXIT_FAILURE, EXIT_OK, EXIT_USAGE
from sslcustomize._cli._enable import add_scope, scope_path
from sslcustomize._cli._escape import shown
from sslcustomize._cli._output import console, fail, print_json
from sslcustomize._cli._tomledit import remove_tables
from sslcustomize._cli._trusted import read_layers
from sslcustomize._policy._hosts import HostPattern, parse_host_pattern
from sslcustomize._policy._model import LayerFile
from sslcustomize._runtime._state import set_policy
from sslcustomize._support._files import atomic_write
from sslcustomize._support._paths import policy_path_for_scope, pretty, unscoped_policy
from sslcustomize._trust._bundles import bundle_certificates
from sslcustomize._trust._checked_policy import load_policy, parse_policy
from sslcustomize.exceptions import PolicyError, TrustError

__all__ = ["register"]


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``untrust``."""
    parser = commands.add_parser(
        "untrust",
        help="remove a host's exceptions, or a trusted CA, from a policy file",
        description="Remove the exceptions for HOST (every port) or HOST:PORT (that port) "
        "from one layer's policy file, or with --ca-file the CA bundle FILE from its trust "
        "list (and the copy `trust --ca-file` made of it). Shows what goes and asks first. "
        "Exit 1 when nothing matched. `sslcustomize trusted` lists what is trusted.",
    )
    parser.add_argument("target", metavar="HOST[:PORT]", nargs="?")
    parser.add_argument(
        "--ca-file", metavar="FILE", help="instead of a host: remove this CA bundle from trust"
    )
    add_scope(parser)
    parser.add_argument("--yes", action="store_true", help="do not ask for confirmation")
    parser.add_argument("--json", action="store_true", help="print a JSON document")
    parser.set_defaults(handler=run)


class _RefusedError(Exception):
    """A refusal: the message for the user and the exit status."""

    def __init__(self, message: str, code: int = EXIT_USAGE) -> None:
        super().__init__(message)
        self.code = code


def run(args: argparse.Namespace) -> int:
    """Remove what matches, after confirmation; or say why not."""
    if args.ca_file is not None and args.target is not None:
        return fail("give HOST[:PORT] or --ca-file, not both", as_json=args.json)
    if args.ca_file is None and args.target is None:
        return fail("nothing to remove: give HOST[:PORT] or --ca-file FILE", as_json=args.json)
    try:
        return _untrust_ca(args) if args.ca_file is not None else _untrust_host(args)
    except _RefusedError as refusal:
        return fail(str(refusal), refusal.code, as_json=args.json)


# --- The file, its lock, and the confirmation ----------------------------------------------------


class _File:
    """The policy file an edit changes: its layer, text, tomlkit document and validated form."""

    def __init__(self, args: argparse.Namespace, lock: str, undo: str) -> None:
        try:
            where = (args.scope, scope_path(args)) if args.scope else unscoped_policy()
        except ValueError as error:
            raise _RefusedError(str(error)) from None
        self.layer: str = where[0]
        self.path: str = where[1]
        policy = load_policy()
        if lock in policy.locked and self.layer != "system":
            raise _RefusedError(
                f"the system policy ({policy.locked[lock]}) locks {lock}: only the "
                f"administrator can change it, in {policy_path_for_scope('system')} ({undo} "
                "--scope system, as root)"
            )
        import tomlkit  # noqa: PLC0415 - only when editing
        from tomlkit.exceptions import ParseError  # noqa: PLC0415

        try:
            with open(self.path, encoding="utf-8") as file:
                self.text = file.read()
        except FileNotFoundError:
            self.text = ""
        except (OSError, UnicodeDecodeError) as error:
            raise _RefusedError(f"cannot read {self.path}: {_why(error)}") from None
        try:
            self.document: Any = tomlkit.parse(self.text)
        except ParseError as error:
            raise _RefusedError(
                f"{self.path}: not valid TOML ({error}): fix it, then run this again"
            ) from None
        # Line numbers and resolved paths when the file is valid as it is. A file broken only by
        # what is being removed (a CA file deleted since) is still edited: the new text is
        # validated before it is written.
        self.parsed: LayerFile | None = None
        with contextlib.suppress(PolicyError):
            self.parsed = parse_policy(self.text, path=self.path, layer=self.layer)

    def array(self, key: str) -> Any:
        """Return the file's ``key`` (an array, or an array of tables); refuse anything else."""
        value = self.document.get(key, [])
        if not isinstance(value, list):
            raise _RefusedError(f"{self.path}: {key!r} is not a list; fix it by hand")
        return value

    def resolve(self, item: str) -> str:
        """Resolve a path written in the file as the policy reader does (beside the file)."""
        base = os.path.dirname(os.path.abspath(self.path))
        return os.path.normpath(os.path.join(base, os.path.expanduser(item)))

    def write(self, copies: list[str]) -> list[str]:
        """Validate and write the document; delete ``copies`` no longer named; return those.

        Raises:
            _RefusedError: The new file would not be valid, or cannot be written.
        """
        import tomlkit  # noqa: PLC0415 - only when editing

        new_text = tomlkit.dumps(self.document)
        try:
            written = parse_policy(new_text, path=self.path, layer=self.layer)
            atomic_write(self.path, new_text)
        except PolicyError as error:
            raise _RefusedError(
                f"the file would not be valid after the change, nothing written: {error}"
            ) from None
        except OSError as error:
            raise _RefusedError(f"cannot write {self.path}: {_why(error)}") from None
        set_policy(None)
        named = {s.path for s in written.trust} | {s.path for e in written.exceptions for s in e.ca}
        own = os.path.join(os.path.dirname(os.path.abspath(self.path)), "ca")
        deleted = []
        for copy in dict.fromkeys(copies):
            # Only a copy `trust` made beside this file: a CA elsewhere is the user's own file.
            if os.path.dirname(copy) != own or copy in named:
                continue
            with contextlib.suppress(FileNotFoundError):
                os.unlink(copy)
                deleted.append(copy)
        return deleted


def _why(error: Exception) -> str:
    if isinstance(error, PermissionError):
        return "permission denied (root for --scope system)"
    if isinstance(error, UnicodeDecodeError):
        return "it is not UTF-8 text"
    return str(getattr(error, "strerror", None) or error)


def _confirm(args: argparse.Namespace, question: str) -> None:
    """Ask, unless ``--yes``; refuse when there is no terminal to ask on or the answer is no."""
    if args.yes:
        return
    if not sys.stdin.isatty():
        raise _RefusedError("not a terminal, so nothing was removed: add --yes to confirm")
    sys.stdout.write(f"{question} [y/N] ")
    sys.stdout.flush()
    if sys.stdin.readline().strip().lower() not in ("y", "yes"):
        raise _RefusedError("nothing removed", EXIT_FAILURE)


def _scope_option(layer: str) -> str:
    return "" if layer == "process" else f" --scope {layer}"


def _elsewhere(found: list[tuple[str, str, int | None]], command: str) -> str:
    """Name the other layers' entries that match, each with the command that removes it."""
    if not found:
        return ""
    where = "; ".join(
        f"{pretty(path)}{f':{line}' if line else ''} ({layer} layer: "
        f"{command}{_scope_option(layer)})"
        for layer, path, line in found
    )
    return f"; it is in {where}"


# --- untrust HOST[:PORT] ----------------------------------------------------------------------


def _host_matches(text: object, asked: HostPattern) -> bool:
    """Tell whether the pattern ``text`` is ``asked``; without a port, for any port."""
    try:
        pattern = parse_host_pattern(str(text))
    except ValueError:
        return False
    if asked.port is None:
        return (pattern.kind, pattern.value) == (asked.kind, asked.value)
    return pattern == asked


def _untrust_host(args: argparse.Namespace) -> int:
    try:
        asked = parse_host_pattern(args.target)
    except ValueError as error:
        raise _RefusedError(f"{args.target!r}: {error}") from None
    edit = _File(args, "exception", f"sslcustomize untrust {asked}")
    entries = edit.array("exception")
    matched = [
        index
        for index, entry in enumerate(entries)
        if isinstance(entry, dict) and _host_matches(entry.get("host", ""), asked)
    ]
    if not matched:
        others = [
            (read.layer, read.path, e.origin.line)
            for read in read_layers()
            if read.file is not None and read.path != edit.path
            for e in read.file.exceptions
            if _host_matches(e.host, asked)
        ]
        raise _RefusedError(
            f"no exception for {asked} in {pretty(edit.path)}"
            f"{_elsewhere(others, f'sslcustomize untrust {asked}')}",
            EXIT_FAILURE,
        )
    removed = [_described(edit, entries[index], index) for index in matched]
    if not args.json:
        out = console()
        out.print(f"Remove from {shown(pretty(edit.path))}:")
        for entry in removed:
            out.print(f"  {_entry_text(entry)}")
    _confirm(args, "Remove?" if len(removed) == 1 else f"Remove these {len(removed)}?")
    remove_tables(edit.document, "exception", matched)
    copies = [edit.resolve(str(ca)) for entry in removed for ca in entry["ca"]]
    deleted = edit.write(copies)
    still = [
        {"host": str(e.host), "path": e.origin.path or "", "line": e.origin.line}
        for e in load_policy().exceptions
        if _host_matches(e.host, asked)
    ]
    if args.json:
        print_json(
            {"path": edit.path, "removed": removed, "deleted": deleted, "still_trusted": still}
        )
        return EXIT_OK
    out = console()
    for entry in removed:
        out.print(f"removed {_entry_text(entry)}")
    for copy in deleted:
        out.print(f"deleted the CA copy {shown(pretty(copy))}")
    for entry in still:
        out.print(
            f"[yellow]note:[/] {shown(entry['host'])} is still trusted by "
            f"{shown(pretty(str(entry['path'])))}:{entry['line']} (another layer)"
        )
    return EXIT_OK


def _described(edit: _File, entry: Any, index: int) -> dict[str, Any]:
    """Describe one [[exception]] table as it is written, with its line when known."""
    values = entry.unwrap()
    line = edit.parsed.exceptions[index].origin.line if edit.parsed is not None else None
    return {
        "host": str(values.get("host", "")),
        "line": line,
        "pin": [str(pin) for pin in values.get("pin", [])],
        "ca": [str(ca) for ca in values.get("ca", [])],
        "expires": values.get("expires"),
        "reason": values.get("reason"),
    }


def _entry_text(entry: dict[str, Any]) -> str:
    what = ", ".join([*entry["pin"], *(f"CA {ca}" for ca in entry["ca"])]) or "mode only"
    at = f" (line {entry['line']})" if entry["line"] else ""
    until = f", expires {entry['expires']}" if entry["expires"] else ""
    reason = f"reason {entry['reason']!r}"
    return shown(f"the exception for {entry['host']}{at}: {what}{until}, {reason}")


# --- untrust --ca-file FILE -----------------------------------------------------------------------


def _certificates(path: str) -> frozenset[bytes] | None:
    try:
        return frozenset(bundle_certificates(path))
    except (TrustError, OSError):
        return None


def _ca_matches(resolved: str, asked: str, certificates: frozenset[bytes] | None) -> bool:
    """Tell whether a trust entry is FILE: the same path, or the same certificates (a copy)."""
    if os.path.realpath(resolved) == os.path.realpath(asked):
        return True
    return certificates is not None and _certificates(resolved) == certificates


def _untrust_ca(args: argparse.Namespace) -> int:
    asked = os.path.abspath(args.ca_file)
    certificates = _certificates(asked) if os.path.isfile(asked) else None
    edit = _File(args, "trust", f"sslcustomize untrust --ca-file {args.ca_file}")
    trust = edit.array("trust")
    matched = [
        index
        for index, item in enumerate(trust)
        if str(item) not in ("system", "certifi")
        and _ca_matches(edit.resolve(str(item)), asked, certificates)
    ]
    if not matched:
        others = [
            (read.layer, read.path, source.origin.line)
            for read in read_layers()
            if read.file is not None and read.path != edit.path
            for source in read.file.trust
            if source.path is not None and _ca_matches(source.path, asked, certificates)
        ]
        raise _RefusedError(
            f"{args.ca_file} is not in the trust list of {pretty(edit.path)}"
            f"{_elsewhere(others, f'sslcustomize untrust --ca-file {args.ca_file}')}",
            EXIT_FAILURE,
        )
    if len(matched) == len(trust):
        # A layer without trust falls back to the layers below or the system store: removing
        # its last source would widen what it trusts, not narrow it.
        raise _RefusedError(
            f"{args.ca_file} is all that {pretty(edit.path)} trusts: removing it would leave "
            "the built-in default (the system store); write the trust list you want there "
            "instead (sslcustomize explain shows the effective one)"
        )
    names = [str(trust[index]) for index in matched]
    if not args.json:
        console().print(
            f"Remove from the trust list of {shown(pretty(edit.path))}: {shown(', '.join(names))}"
        )
    _confirm(args, "Remove?")
    for index in reversed(matched):
        del trust[index]
    deleted = edit.write([edit.resolve(name) for name in names])
    if args.json:
        print_json({"path": edit.path, "removed": names, "deleted": deleted})
        return EXIT_OK
    out = console()
    out.print(f"removed {shown(', '.join(names))} from trust in {shown(pretty(edit.path))}")
    for copy in deleted:
        out.print(f"deleted the CA copy {shown(pretty(copy))}")
    return EXIT_OK
