"""``sslcustomize schema``: print the JSON Schema of ``policy.toml``."""

from __future__ import annotations

import argparse
import json
import sys

from sslcustomize._cli import EXIT_OK
from sslcustomize._diagnosis._schema import policy_schema

__all__ = ["register"]


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``schema``."""
    parser = commands.add_parser(
        "schema",
        help="print the JSON Schema of policy.toml (for editors)",
        description="Print the JSON Schema (draft 2020-12) of a policy file. Save it and point "
        "your editor's TOML support at it (a '#:schema ./policy.schema.json' first line for "
        "taplo and tombi, or Even Better TOML's schema association).",
    )
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Print the schema."""
    sys.stdout.write(json.dumps(policy_schema(), indent=2) + "\n")
    return EXIT_OK
