"""``sslcustomize lint PATH...``: find code that disables or weakens certificate verification."""

from __future__ import annotations

import argparse
import gc
import sys
from typing import Any

from sslcustomize._lint import RULES, lint_files
from sslcustomize._lint._files import discover
from sslcustomize._lint._output import FORMATS, render

__all__ = ["register", "run"]

EXIT_OK = 0
EXIT_FINDINGS = 1
EXIT_USAGE = 2


def register(commands: argparse._SubParsersAction[Any]) -> None:
    """Add the ``lint`` sub-command.

    Args:
        commands: The sub-parsers of the ``sslcustomize`` parser.
    """
    parser = commands.add_parser(
        "lint",
        help="find code that disables or weakens certificate verification",
        description="Find code that disables or weakens certificate verification. "
        "Exit status: 0 clean, 1 findings, 2 usage error. Suppress one line with "
        "'# sslcustomize: allow(reason)'.",
    )
    parser.add_argument("paths", nargs="+", metavar="PATH", help="files or directories")
    parser.add_argument("--format", choices=FORMATS, default="text", help="output format")
    parser.add_argument(
        "--select",
        action="append",
        default=[],
        metavar="CODES",
        help="only these rule codes or prefixes, comma-separated (SSC1,SSC203)",
    )
    parser.add_argument(
        "--ignore", action="append", default=[], metavar="CODES", help="skip these codes"
    )
    parser.add_argument(
        "--exit-zero", action="store_true", help="exit 0 even when there are findings"
    )
    parser.add_argument("--jobs", type=int, default=None, help="worker processes (default: cores)")
    parser.set_defaults(handler=run)


def _codes(values: list[str]) -> list[str] | None:
    """Split comma-separated code prefixes; ``None`` if one matches no rule."""
    prefixes = [part.strip().upper() for value in values for part in value.split(",")]
    prefixes = [p for p in prefixes if p]
    for prefix in prefixes:
        if not any(rule.code.startswith(prefix) for rule in RULES):
            return None
    return prefixes


def run(args: argparse.Namespace) -> int:
    """Lint the paths and print the report.

    Args:
        args: The parsed command line.

    Returns:
        0 if clean, 1 if there are findings, 2 on a usage error.
    """
    select = _codes(args.select)
    ignore = _codes(args.ignore)
    if select is None or ignore is None:
        known = ", ".join(rule.code for rule in RULES)
        print(f"sslcustomize lint: error: unknown rule code; known: {known}", file=sys.stderr)
        return EXIT_USAGE
    files, missing = discover(args.paths)
    if missing:
        print(f"sslcustomize lint: error: no such file or directory: {missing[0]}", file=sys.stderr)
        return EXIT_USAGE
    # A short-lived process that makes millions of AST nodes without cycles: the cyclic GC only
    # costs time here (about a quarter of the run on the standard library).
    gc.disable()
    result = lint_files(files, jobs=args.jobs)
    result.findings = [
        f
        for f in result.findings
        if (not select or f.code.startswith(tuple(select)))
        and not f.code.startswith(tuple(ignore) or ("\0",))
    ]
    sys.stdout.write(render(result, args.format))
    for error in result.errors:
        print(f"{error.path}: {error.message}", file=sys.stderr)
    if args.format == "text":
        print(f"{len(result.findings)} finding(s) in {result.files} file(s)", file=sys.stderr)
    if result.findings and not args.exit_zero:
        return EXIT_FINDINGS
    return EXIT_OK
