"""The ``sslcustomize`` command: ``main(argv) -> int`` and the console-script ``entrypoint()``.

Each command lives in its own module, ``_cli/_<name>.py``, which defines ``register(commands)``:
it adds its sub-parser and sets ``handler`` to a function ``(args) -> int``.
Exit status: 0 ok, 1 a verdict of failure (rejected host, findings), 2 usage or configuration.
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import importlib
import os
import sys
import warnings
from collections.abc import Sequence

TYPE_CHECKING = False  # not typing's: the lint command does not import typing
if TYPE_CHECKING:
    from typing import Any

__all__ = [
    "COMMANDS",
    "EXIT_FAILURE",
    "EXIT_OK",
    "EXIT_USAGE",
    "build_parser",
    "entrypoint",
    "main",
]

# Command modules, in the order ``--help`` lists them.
COMMANDS = (
    "check",
    "scan",
    "trust",
    "untrust",
    "trusted",
    "explain",
    "status",
    "report",
    "doctor",
    "enable",
    "disable",
    "lock",
    "unlock",
    "run",
    "lint",
    "schema",
)

EXIT_OK = 0
EXIT_FAILURE = 1
EXIT_USAGE = 2
EXIT_BROKEN_PIPE = 141  # 128 + SIGPIPE, what a shell reports for `... | head`


class _Formatter(argparse.HelpFormatter):
    """argparse's help formatter, told the terminal's width without ``shutil``.

    argparse makes a formatter for every argument added, and the default one imports
    ``shutil`` (with bz2, lzma and zlib) for ``get_terminal_size``: 4 ms of every command,
    a seventieth of a lint of 2,000 files. The width is found the same way: ``COLUMNS``,
    else the terminal of stdout, else 80.
    """

    def __init__(
        self,
        prog: str,
        indent_increment: int = 2,
        max_help_position: int = 24,
        width: int | None = None,
    ) -> None:
        if width is None:
            width = _terminal_columns() - 2
        super().__init__(prog, indent_increment, max_help_position, width)


def _terminal_columns() -> int:
    try:
        columns = int(os.environ.get("COLUMNS", ""))
    except ValueError:
        columns = 0
    if columns > 0:
        return columns
    try:
        return os.get_terminal_size(sys.__stdout__.fileno()).columns or 80  # type: ignore[union-attr]
    except (AttributeError, ValueError, OSError):
        return 80


class _Parser(argparse.ArgumentParser):
    """An ArgumentParser whose usage errors end with a hint of what to do."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", _Formatter)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> None:  # type: ignore[override]
        self.print_usage(sys.stderr)
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message}\nTry '{self.prog} --help'.\n")


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """Build the parser with every command registered, or only the command ``only``.

    Each command module imports what its command needs; ``sslcustomize lint`` on a small tree
    would otherwise spend most of its time importing the policy and context machinery.
    """
    parser = _Parser(
        prog="sslcustomize",
        description="Certificate verification for every TLS client in this Python, under one "
        "policy with scoped, expiring, auditable exceptions.",
    )
    from sslcustomize import __version__  # noqa: PLC0415 - the package is loaded by now

    parser.add_argument("--version", action="version", version=f"sslcustomize {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for name in (only,) if only in COMMANDS else COMMANDS:
        module = importlib.import_module(f"sslcustomize._cli._{name}")
        module.register(commands)
    parser.set_defaults(command_parsers=commands.choices)
    return parser


def _parse(parser: argparse.ArgumentParser, arguments: list[str]) -> argparse.Namespace:
    """Parse ``arguments``; an option the command does not take is the command's usage error.

    argparse reports it from the top-level parser, whose usage lists only the commands
    (``enable --json`` printed ``usage: sslcustomize [-h] [--version] COMMAND ...``).
    """
    args, unknown = parser.parse_known_args(arguments)
    if unknown:
        command = getattr(args, "command_parsers", {}).get(getattr(args, "command", None))
        (command or parser).error(f"unrecognized arguments: {' '.join(unknown)}")
    return args


# What the commands import beyond the standard library (the hook needs none of it). A Python
# reached by `enable --scope system` runs the hook without them: `python -m sslcustomize`
# there must say where the command line lives, not end in a traceback.
_CLI_DEPENDENCIES = frozenset({"rich", "tomlkit", "platformdirs", "cryptography", "ahocorasick_rs"})


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line and return its exit status.

    An in-process caller gets the cyclic collector back as it found it: ``lint`` and
    ``report`` switch it off while they read (the console script ends the process instead).
    """
    collecting = gc.isenabled()
    try:
        return _dispatch(argv)[0]
    finally:
        if collecting:
            gc.enable()


def _missing_dependency(name: str) -> int:
    sys.stderr.write(
        f"sslcustomize: the command line needs {name}, which this Python ({sys.executable}) "
        "does not have: run the `sslcustomize` command of the environment it was installed "
        "in, or install it here "
        f"with {sys.executable} -m pip install sslcustomize\n"
    )
    return EXIT_USAGE


def _show_warning(  # noqa: PLR0917 - warnings.showwarning's signature
    message: Warning | str,
    category: type[Warning],
    filename: str,
    lineno: int,
    file: Any = None,
    line: str | None = None,
) -> None:
    """Print the package's own warnings as one line each, without Python's file and source."""
    from sslcustomize.exceptions import SSLCustomizeWarning  # noqa: PLC0415 - loaded by the commands

    if not issubclass(category, SSLCustomizeWarning):
        _PYTHON_SHOWWARNING(message, category, filename, lineno, file, line)
        return
    stream = file if file is not None else sys.stderr
    with contextlib.suppress(OSError, ValueError):  # stderr closed: say nothing, as Python
        stream.write(f"sslcustomize: warning: {message}\n")


_PYTHON_SHOWWARNING = warnings.showwarning


def _dispatch(argv: Sequence[str] | None) -> tuple[int, argparse.Namespace | None]:
    """Run the command line; return its exit status and the arguments of a quick exit.

    A command sets ``quick_exit`` when it leaves nothing that the interpreter's teardown must
    do (no threads, temporary files or exit handlers of its own). Its arguments are returned,
    else ``None``: what the command left in them (``lint``'s syntax trees) stays unfreed
    until the process ends.
    """
    arguments = sys.argv[1:] if argv is None else list(argv)
    # The first word that is not an option names the command (the top level has no option
    # that takes a value); anything else (help, a typo) gets every command.
    chosen = next((a for a in arguments if not a.startswith("-")), None)
    with warnings.catch_warnings():
        warnings.showwarning = _show_warning
        try:
            parser = build_parser(chosen)
            args = _parse(parser, arguments)
            handler = getattr(args, "handler", None)
            if handler is None:
                parser.print_help()
                return EXIT_USAGE, None
            status = int(handler(args))
            # What is still buffered goes now: a reader gone before the interpreter's own final
            # flush (3.14's stdout buffer holds 128 KiB) is a reader gone like any other.
            sys.stdout.flush()
        except ModuleNotFoundError as error:
            missing = (error.name or "").partition(".")[0]
            if missing not in _CLI_DEPENDENCIES:
                raise
            return _missing_dependency(missing), None
        except KeyboardInterrupt:
            return 130, None
        except BrokenPipeError:
            return _reader_gone(), None
    return status, args if getattr(args, "quick_exit", False) else None


def _reader_gone() -> int:
    """The reader of stdout went away (``| head``): stop quietly, as a SIGPIPE would.

    Later writes (the interpreter flushes stdout at exit) go to the null device, so that no
    traceback follows; the status is the shell's for a process ended by SIGPIPE.
    """
    null = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(null, sys.stdout.fileno())
    except (OSError, ValueError):  # stdout has no descriptor (replaced in-process)
        pass
    finally:
        os.close(null)
    return EXIT_BROKEN_PIPE


def entrypoint() -> None:
    """Console-script entry point."""
    status, kept = _dispatch(None)
    if kept is not None:
        # Skip the interpreter's teardown: after a lint of 2,000 files it takes 7 ms, a
        # fortieth of the run, to free what the process is about to give back anyway (and
        # ``kept`` holds the trees the lint did not free: see ``lint_files``' ``keep``).
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        except BrokenPipeError:
            status = _reader_gone()
        os._exit(status)
    sys.exit(status)
