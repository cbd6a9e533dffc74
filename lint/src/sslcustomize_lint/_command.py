"""The ``lint`` command: ``sslcustomize lint PATH...`` and ``sslcustomize-lint PATH...``.

The same parser serves both: ``sslcustomize``'s command line registers it as its ``lint``
command when this distribution is installed, and the ``sslcustomize-lint`` script runs it
alone (the pre-commit hook, a CI job without the runtime).
"""

from __future__ import annotations

import argparse
import gc
import os
import sys
from collections.abc import Sequence
from dataclasses import replace

from sslcustomize_lint._config import (
    TEST_MODES,
    ConfigError,
    LintConfig,
    find_config,
    is_test_path,
    matches,
)
from sslcustomize_lint._files import discover
from sslcustomize_lint._finding import Finding
from sslcustomize_lint._output import FORMATS, render
from sslcustomize_lint._rules import RULES
from sslcustomize_lint._runner import LintResult, lint_files
from sslcustomize_lint._version import __version__

TYPE_CHECKING = False  # not typing's: the lint command does not import typing
if TYPE_CHECKING:
    from typing import Any

__all__ = ["entrypoint", "main", "register", "run"]

EXIT_OK = 0
EXIT_FINDINGS = 1
EXIT_USAGE = 2


def register(commands: argparse._SubParsersAction[Any]) -> None:
    """Add the ``lint`` sub-command.

    Args:
        commands: The sub-parsers of the ``sslcustomize`` parser.
    """
    _arguments(commands.add_parser("lint", help=_HELP, description=_DESCRIPTION))


_HELP = "find code that disables or weakens certificate verification"
_DESCRIPTION = (
    "Find code that disables or weakens certificate verification. "
    "Exit status: 0 clean, 1 findings, 2 usage error. Suppress one line with "
    "'# sslcustomize: allow(reason)'."
)


def _arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("paths", nargs="+", metavar="PATH", help="files or directories")
    parser.add_argument("--format", choices=FORMATS, default="text", help="output format")
    parser.add_argument(
        "--json",
        dest="format",
        action="store_const",
        const="json",
        default=argparse.SUPPRESS,
        help="the same as --format json (every command's --json)",
    )
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
    parser.add_argument(
        "--exclude",
        action="append",
        default=[],
        metavar="PATTERNS",
        help="more paths to skip, comma-separated (added to the defaults and pyproject.toml)",
    )
    parser.add_argument(
        "--tests",
        choices=TEST_MODES,
        default=None,
        help="test files: report as notes that do not fail the run (default), exclude, or "
        "report like any file",
    )
    parser.add_argument(
        "--isolated", action="store_true", help="ignore [tool.sslcustomize.lint] in pyproject.toml"
    )
    # Nothing to clean up at exit: the console script ends the process without a teardown.
    parser.set_defaults(handler=run, quick_exit=True)


def _codes(values: list[str]) -> list[str] | None:
    """Split comma-separated code prefixes; ``None`` if one matches no rule."""
    prefixes = [part.strip().upper() for value in values for part in value.split(",")]
    prefixes = [p for p in prefixes if p]
    for prefix in prefixes:
        if not any(rule.code.startswith(prefix) for rule in RULES):
            return None
    return prefixes


def _error(message: str) -> int:
    print(f"sslcustomize lint: error: {message}", file=sys.stderr)
    return EXIT_USAGE


def _keep(finding: Finding, config: LintConfig, select: list[str], ignore: list[str]) -> bool:
    if select and not finding.code.startswith(tuple(select)):
        return False
    if ignore and finding.code.startswith(tuple(ignore)):
        return False
    return not any(
        finding.code.startswith(codes) and matches(finding.path, (pattern,), config.root)
        for pattern, codes in config.per_file_ignores.items()
    )


def _chosen_codes(
    args: argparse.Namespace, config: LintConfig
) -> tuple[list[str], list[str]] | None:
    """The selected and ignored code prefixes; ``None`` if one, or one configured, is unknown."""
    configured = [config.select, config.ignore, *config.per_file_ignores.values()]
    select = _codes(args.select or list(config.select))
    ignore = _codes([*config.ignore, *args.ignore])
    if select is None or ignore is None or any(_codes(list(c)) is None for c in configured):
        return None
    return select, ignore


def run(args: argparse.Namespace) -> int:
    """Lint the paths and print the report.

    Args:
        args: The parsed command line.

    Returns:
        0 if clean, 1 if there are findings (outside test files), 2 on a usage error.
    """
    try:
        config = LintConfig(root=os.getcwd()) if args.isolated else find_config(os.getcwd())
    except ConfigError as exc:
        return _error(str(exc))
    chosen = _chosen_codes(args, config)
    if chosen is None:
        known = ", ".join(rule.code for rule in RULES)
        return _error(f"unknown rule code; known: {known}")
    select, ignore = chosen
    tests = args.tests or config.tests
    exclude = config.exclude + tuple(
        part.strip() for value in args.exclude for part in value.split(",") if part.strip()
    )
    files, missing = discover(
        args.paths, exclude=exclude, root=config.root, skip_tests=tests == "exclude"
    )
    if missing:
        return _error(f"no such file or directory: {missing[0]}")
    # A short-lived process that makes millions of AST nodes without cycles: the cyclic GC only
    # costs time here (about a quarter of the run on the standard library).
    gc.disable()
    # What the analysis made stays unfreed in ``args`` until the console script ends the
    # process without a teardown (``quick_exit``); an in-process caller frees it on return.
    args.kept = []
    result = lint_files(files, jobs=args.jobs, keep=args.kept)
    result.findings = [
        replace(f, in_tests=tests == "note" and is_test_path(f.path))
        for f in result.findings
        if _keep(f, config, select, ignore)
    ]
    failing = _show(result, args.format)
    if failing and not args.exit_zero:
        return EXIT_FINDINGS
    return EXIT_OK


def _show(result: LintResult, fmt: str) -> int:
    """Print the report, the files that could not be linted, and a count; return the failing."""
    sys.stdout.write(render(result, fmt))
    for error in result.errors:
        print(f"{error.path}: {error.message}", file=sys.stderr)
    failing = sum(not f.in_tests and f.rule.fails for f in result.findings)
    if fmt == "text":
        notes = len(result.findings) - failing
        extra = f" (and {notes} note(s): in test files, or for review)" if notes else ""
        print(f"{failing} finding(s){extra} in {result.files} file(s)", file=sys.stderr)
    return failing


def _dispatch(argv: Sequence[str] | None) -> tuple[int, argparse.Namespace]:
    parser = argparse.ArgumentParser(prog="sslcustomize-lint", description=_DESCRIPTION)
    parser.add_argument("--version", action="version", version=f"sslcustomize-lint {__version__}")
    _arguments(parser)
    args = parser.parse_args(argv)
    return int(args.handler(args)), args


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``sslcustomize-lint ARGV...`` and return its exit status.

    Args:
        argv: The arguments after the program's name (default: ``sys.argv[1:]``).

    Returns:
        0 if clean, 1 if there are findings, 2 on a usage error.
    """
    # An in-process caller gets the cyclic collector back as it found it: the run switches
    # it off (the console script ends the process instead).
    collecting = gc.isenabled()
    try:
        return _dispatch(argv)[0]
    finally:
        if collecting:
            gc.enable()


def entrypoint() -> None:
    """Console-script entry point of ``sslcustomize-lint``."""
    status, _kept = _dispatch(None)
    # Skip the interpreter's teardown, as ``sslcustomize lint`` does (``quick_exit``): freeing
    # the syntax trees kept in ``_kept`` is work the process is about to give back anyway.
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(status)
