"""``sslcustomize unlock KEY``: remove a key from the system policy's locks (see ``_lock``)."""

from __future__ import annotations

import argparse

from sslcustomize._cli._lock import add_lock_arguments, run

__all__ = ["register"]


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``unlock``."""
    parser = commands.add_parser(
        "unlock",
        help="let the other layers change a key the system policy locked",
        description="Remove KEY from the system policy's lock list.",
    )
    add_lock_arguments(parser)
    parser.set_defaults(handler=run, unlock=True)
