"""Lint sources in this process and return what was found (shared by the unit tests)."""

from __future__ import annotations

from pathlib import Path

from sslcustomize_lint import LintResult, lint_files, lint_source
from sslcustomize_lint._files import discover

__all__ = ["findings_of", "lint_package", "package_findings"]


def findings_of(source: str, path: str = "x.py") -> set[tuple[str, int]]:
    """Lint ``source`` as the file ``path``; return its findings as (code, line), after no error."""
    result = LintResult()
    lint_source(source.encode(), path, result)
    assert not result.errors
    return {(f.code, f.line) for f in result.findings}


def lint_package(root: Path, files: dict[str, str]) -> tuple[set[tuple[str, int, str]], int]:
    """Write a package under ``root``; return its findings (file, line, code) and files parsed."""
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    found, _ = discover([str(root)])
    result = lint_files(found, jobs=1)
    assert not result.errors
    findings = {
        (Path(f.path).relative_to(root).as_posix(), f.line, f.code) for f in result.findings
    }
    return findings, result.parsed


def package_findings(root: Path, files: dict[str, str]) -> set[tuple[str, int, str]]:
    """Write a package's files under ``root``; return its findings (file, line, code)."""
    return lint_package(root, files)[0]
