"""``sslcustomize lint PATH...``: the linter of the ``sslcustomize-lint`` distribution.

The linter is a distribution of its own, so that nothing a hooked process or the policy command
line installs depends on it. When it is installed, its parser is this command; when it is not,
the command says how to install it and exits 2 (a usage error: nothing was linted).
"""

from __future__ import annotations

import argparse
import sys

TYPE_CHECKING = False  # not typing's: the lint command does not import typing
if TYPE_CHECKING:
    from typing import Any

__all__ = ["register"]

EXIT_USAGE = 2


def register(commands: argparse._SubParsersAction[Any]) -> None:
    """Add the ``lint`` sub-command: the linter's own, or one that says how to install it.

    Args:
        commands: The sub-parsers of the ``sslcustomize`` parser.
    """
    try:
        from sslcustomize_lint import register_command  # noqa: PLC0415 - only for this command
    except ModuleNotFoundError as error:
        if error.name != "sslcustomize_lint":
            raise
    else:
        register_command(commands)
        return
    # Every word after ``lint`` is taken as an argument (no option prefix): whatever it was
    # given, even ``--help``, the answer is the same, and it is not argparse's usage error.
    parser = commands.add_parser(
        "lint",
        help="find code that disables or weakens certificate verification "
        "(needs sslcustomize-lint)",
        prefix_chars="\0",
        add_help=False,
    )
    parser.add_argument("arguments", nargs="*")
    parser.set_defaults(handler=_not_installed)


def _not_installed(args: argparse.Namespace) -> int:
    """Say that the linter is not installed, and the command that installs it."""
    del args  # whatever the command was given, nothing can be linted
    print(
        "sslcustomize lint: error: the linter is the sslcustomize-lint distribution, which this "
        f"Python ({sys.executable}) does not have; install it with:\n"
        f"    {sys.executable} -m pip install sslcustomize-lint",
        file=sys.stderr,
    )
    return EXIT_USAGE
