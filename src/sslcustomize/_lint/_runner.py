"""Lint many files: read, pre-filter, parse, analyze, suppress; on all cores when it pays."""

from __future__ import annotations

import ast
import gc
import os
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field

from sslcustomize._lint._analyzer import Analyzer
from sslcustomize._lint._finding import Finding, LintError
from sslcustomize._lint._prefilter import (
    PARTIAL_MIN_BYTES,
    hot_lines,
    hot_source,
    may_contain_findings,
    module_names,
)
from sslcustomize._lint._suppress import find_allows

__all__ = ["LintResult", "lint_files", "lint_source"]

# Below this many files, starting worker processes costs more than it saves.
_PARALLEL_THRESHOLD = 200


@dataclass(slots=True, kw_only=True)
class LintResult:
    """What linting a set of files found."""

    files: int = 0
    parsed: int = 0
    findings: list[Finding] = field(default_factory=list)
    errors: list[LintError] = field(default_factory=list)

    def merge(self, other: LintResult) -> None:
        """Add another result to this one."""
        self.files += other.files
        self.parsed += other.parsed
        self.findings.extend(other.findings)
        self.errors.extend(other.errors)


def lint_source(data: bytes, path: str, result: LintResult) -> None:
    """Lint one file's bytes and add what it finds to ``result``.

    Args:
        data: The file's raw bytes (the encoding is read from them, as Python does).
        path: The path to show in findings.
        result: Where findings and errors are added.
    """
    result.files += 1
    if not may_contain_findings(data):
        return
    tree = None
    partial = False
    hot = None
    if len(data) >= PARTIAL_MIN_BYTES:
        # Big files: parse only the functions that hold a rule word (see ``hot_source``).
        hot = hot_lines(data, module_names(data))
        cut = hot_source(data, hot)
        if cut is not None:
            try:
                tree = ast.parse(cut, filename=path)
                partial = True
            except (SyntaxError, ValueError, RecursionError):
                tree = None  # the cut went wrong somewhere: parse the whole file
    try:
        if tree is None:
            tree = ast.parse(data, filename=path)
    except (SyntaxError, ValueError, RecursionError) as exc:
        result.errors.append(LintError(path=path, message=f"cannot parse: {exc}"))
        return
    result.parsed += 1
    analyzer = Analyzer(tree, data, path, hot=hot if partial else None)
    raw = analyzer.run()
    if partial and analyzer.follows_callers:
        # A parameter reaches a sink: its callers may sit in cut functions. Parse it whole.
        raw = Analyzer(ast.parse(data, filename=path), data, path).run()
    allows = find_allows(data.decode("utf-8", "replace")) if b"sslcustomize:" in data else {}
    for code, line, column in raw:
        if allows.get(line):
            continue
        result.findings.append(Finding(path=path, line=line, column=column, code=code))
    for line, reason in allows.items():
        if not reason:
            result.findings.append(Finding(path=path, line=line, column=1, code="SSC001"))


def _lint_chunk(paths: Sequence[str]) -> LintResult:
    result = LintResult()
    # ASTs hold no reference cycles: collecting while millions of nodes are made is wasted time.
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        _lint_paths(paths, result)
    finally:
        if was_enabled:
            gc.enable()
    return result


def _lint_paths(paths: Sequence[str], result: LintResult) -> None:
    with warnings.catch_warnings():
        # Old files carry invalid escape sequences; their SyntaxWarnings are not our findings.
        warnings.simplefilter("ignore")
        for path in paths:
            try:
                with open(path, "rb") as handle:
                    data = handle.read()
            except OSError as exc:
                result.errors.append(LintError(path=path, message=f"cannot read: {exc.strerror}"))
                continue
            lint_source(data, path, result)


def lint_files(paths: Sequence[str], *, jobs: int | None = None) -> LintResult:
    """Lint files, in worker processes when there are many.

    Args:
        paths: The files to lint.
        jobs: How many processes to use; by default, one per core when there are enough files.

    Returns:
        The findings, sorted by path and position, and the files that could not be linted.
    """
    workers = jobs if jobs is not None else (os.cpu_count() or 1)
    if workers <= 1 or len(paths) < _PARALLEL_THRESHOLD:
        result = _lint_chunk(paths)
    else:
        # Interleave the files so that each chunk gets a share of the big directories.
        count = workers * 4
        chunks = [paths[i::count] for i in range(count)]
        result = LintResult()
        # Only now: the pool's modules cost a tenth of a small run's time to import.
        import multiprocessing  # noqa: PLC0415
        from concurrent.futures import ProcessPoolExecutor  # noqa: PLC0415

        # Forked workers start at once with everything imported: no second interpreter start-up.
        methods = multiprocessing.get_all_start_methods()
        context = multiprocessing.get_context("fork" if "fork" in methods else None)
        with ProcessPoolExecutor(max_workers=workers, mp_context=context) as pool:
            for part in pool.map(_lint_chunk, chunks):
                result.merge(part)
    result.findings.sort(key=lambda f: (f.path, f.line, f.column, f.code))
    result.errors.sort(key=lambda e: e.path)
    return result
