"""Run the ``lint`` command through its own parser (shared by the CLI and config tests)."""

from __future__ import annotations

import argparse

from sslcustomize._cli import _lint

__all__ = ["run"]


def run(*argv: str) -> int:
    """Run ``sslcustomize lint ARGV...`` in this process and return its exit status."""
    parser = argparse.ArgumentParser(prog="sslcustomize")
    _lint.register(parser.add_subparsers())
    args = parser.parse_args(["lint", *argv])
    return int(args.handler(args))
