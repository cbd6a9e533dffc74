"""Lint one source in this process and return what was found (shared by the unit tests)."""

from __future__ import annotations

from sslcustomize_lint import LintResult, lint_source

__all__ = ["findings_of"]


def findings_of(source: str, path: str = "x.py") -> set[tuple[str, int]]:
    """Lint ``source`` as the file ``path``; return its findings as (code, line), after no error."""
    result = LintResult()
    lint_source(source.encode(), path, result)
    assert not result.errors
    return {(f.code, f.line) for f in result.findings}
