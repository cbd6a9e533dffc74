"""Run the linter's command in this process (shared by the CLI and config tests)."""

from __future__ import annotations

from sslcustomize_lint import main

__all__ = ["run"]


def run(*argv: str) -> int:
    """Run ``sslcustomize-lint ARGV...`` (``sslcustomize lint ARGV...``) and return its status."""
    return main(list(argv))
