"""Lint many files: read, pre-filter, parse, analyze, suppress; on all cores when it pays."""

from __future__ import annotations

import ast
import contextlib
import gc
import marshal
import os
import struct
import sys
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field

from sslcustomize_lint._analyzer import Analyzer
from sslcustomize_lint._finding import Finding, LintError
from sslcustomize_lint._prefilter import (
    PARTIAL_MIN_BYTES,
    hot_places,
    hot_source,
    lines_of,
    module_names,
    word_places,
)
from sslcustomize_lint._suppress import find_allows

TYPE_CHECKING = False  # not typing's: the lint command does not import typing
if TYPE_CHECKING:
    from typing import NoReturn

__all__ = ["LintResult", "lint_files", "lint_source"]

# Below this many files, forking a worker costs more than it saves.
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
    _lint_one(data, path, result)


def _lint_one(data: bytes, path: str, result: LintResult) -> Analyzer | None:
    """``lint_source``; return the analyzer of a parsed file (its trees with it), else ``None``."""
    result.files += 1
    if b"\0" in data:
        # A binary (a compiled extension named on the command line): Python would refuse it
        # too. Said at once, without searching megabytes of machine code for rule words.
        result.errors.append(LintError(path=path, message="cannot parse: not Python source"))
        return None
    words = word_places(data)
    if words is None:
        return None
    tree = None
    places: list[int] = []
    names: tuple[bytes, ...] = ()
    cut = None
    if len(data) >= PARTIAL_MIN_BYTES:
        # Big files: parse only the functions that hold a rule word (see ``hot_source``).
        names = module_names(data, words)
        places = hot_places(data, names, words)
        cut, tree = _parse_cut(data, places, path)
    partial = tree is not None
    try:
        if tree is None:
            tree = ast.parse(data, filename=path)
    except (SyntaxError, ValueError, RecursionError) as exc:
        result.errors.append(LintError(path=path, message=f"cannot parse: {exc}"))
        return None
    result.parsed += 1
    analyzer = Analyzer(tree, data, path, hot=lines_of(data, places) if partial else None)
    # A cut tree may lack the callers of a function that passes a parameter on to a sink:
    # they are looked for below, in a tree with them.
    raw = analyzer.run(callers=not partial)
    if partial and analyzer.follows_callers:
        # Parse again with the lines that name those functions hot too.
        followed = tuple(name.lower().encode() for name in analyzer.followed_functions)
        wider_cut = hot_source(data, hot_places(data, names + followed, words))
        raw = analyzer.check_callers(_wider_tree(data, path, wider_cut, cut, tree))
    allows = find_allows(data.decode("utf-8", "replace")) if b"sslcustomize:" in data else {}
    for code, line, column in raw:
        if allows.get(line):
            continue
        result.findings.append(Finding(path=path, line=line, column=column, code=code))
    for line, reason in allows.items():
        if not reason:
            result.findings.append(Finding(path=path, line=line, column=1, code="SSC001"))
    return analyzer


def _wider_tree(
    data: bytes, path: str, wider_cut: bytes | None, cut: bytes | None, tree: ast.Module
) -> ast.Module:
    """Return the tree of ``wider_cut``: ``tree`` if it is ``cut``, else the whole file's.

    The cut tree again when the callers are in the functions already parsed (no second
    parse), or when nothing parses: a cut function is not Python, and it is all there is.
    """
    if wider_cut == cut:
        return tree
    wider = _parse(wider_cut, path)
    if wider is None:
        with contextlib.suppress(SyntaxError, ValueError, RecursionError):
            wider = ast.parse(data, filename=path)
    return wider if wider is not None else tree


def _parse_cut(data: bytes, places: list[int], path: str) -> tuple[bytes | None, ast.Module | None]:
    """Parse ``data`` with its cold functions cut (``hot_source``): the cut and its tree.

    The tree is ``None`` if nothing is cut (the cut too), or when the cut source does not
    parse: the cut went wrong somewhere, and the whole file is to be parsed instead.
    """
    cut = hot_source(data, places)
    return cut, _parse(cut, path)


def _parse(cut: bytes | None, path: str) -> ast.Module | None:
    """Parse a cut source (``hot_source``); ``None`` for no cut or one that does not parse."""
    if cut is None:
        return None
    try:
        return ast.parse(cut, filename=path)
    except (SyntaxError, ValueError, RecursionError):
        return None


def _lint_paths(paths: Sequence[str], result: LintResult, hoard: _Hoard | None = None) -> None:
    with warnings.catch_warnings():
        # Old files carry invalid escape sequences; their SyntaxWarnings are not our findings.
        warnings.simplefilter("ignore")
        for path in paths:
            try:
                data = _read(path)
            except OSError as exc:
                result.errors.append(LintError(path=path, message=f"cannot read: {exc.strerror}"))
                continue
            analyzer = _lint_one(data, path, result)
            if hoard is not None and analyzer is not None:
                hoard.keep(analyzer, len(data))


# Most source files fit in one read of this size; bigger ones take a few.
_READ_SIZE = 1 << 18


def _read(path: str) -> bytes:
    """Return a file's bytes: ``os.read`` until the end, without a buffered file object.

    On the standard library this takes half the time of ``open(path, "rb").read()``.
    """
    fd = os.open(path, os.O_RDONLY)
    try:
        chunks = []
        while chunk := os.read(fd, _READ_SIZE):
            chunks.append(chunk)
    finally:
        os.close(fd)
    return chunks[0] if len(chunks) == 1 else b"".join(chunks)


def lint_files(
    paths: Sequence[str], *, jobs: int | None = None, keep: list[object] | None = None
) -> LintResult:
    """Lint files, in forked worker processes when there are many.

    Args:
        paths: The files to lint.
        jobs: How many processes to use; by default, one per core when there are enough files.
        keep: If given, what this process's analysis of each parsed file made (its syntax
            trees) is appended here instead of being freed, up to a budget (see ``_Hoard``):
            for a caller that ends the process right after, without freeing its memory (the
            console script). Forked workers always do so.

    Returns:
        The findings, sorted by path and position, and the files that could not be linted.
    """
    hoard = None if keep is None else _Hoard(_HOARD_BYTES, keep)
    workers = jobs if jobs is not None else (os.cpu_count() or 1)
    # ASTs hold no reference cycles: collecting while millions of nodes are made is wasted time.
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        if workers <= 1 or len(paths) < _PARALLEL_THRESHOLD or not _can_fork():
            result = LintResult()
            _lint_paths(paths, result, hoard)
        else:
            result = _lint_forked(paths, min(workers, len(paths)), hoard)
    finally:
        if was_enabled:
            gc.enable()
    result.findings.sort(key=lambda f: (f.path, f.line, f.column, f.code))
    result.errors.sort(key=lambda e: e.path)
    return result


def _can_fork() -> bool:
    if not hasattr(os, "fork"):
        return False
    # Forking a process that runs threads can deadlock the child (and Python 3.12 warns).
    threading = sys.modules.get("threading")
    return threading is None or threading.active_count() == 1


# The work queue holds at most this many items, so that it fits in a pipe's buffer (16 KiB
# on macOS, 64 KiB on Linux) and is written whole before the fork.
_MAX_ITEMS = 4096
_ITEM = struct.Struct("=I")


def _lint_forked(paths: Sequence[str], workers: int, hoard: _Hoard | None) -> LintResult:
    """Lint files in this process and ``workers - 1`` forked copies of it.

    The children start at once, with every module imported (no second interpreter start-up).
    They share one queue of work items, a pipe written whole before the fork: each process
    reads one item at a time (a 4-byte read from a pipe is never split), so a process that
    meets big files takes fewer of them and all finish together. Each child sends back its
    counts, findings and errors as one ``marshal``-ed tuple of plain values.
    """
    size = -(-len(paths) // _MAX_ITEMS)  # files per item
    items = [paths[i : i + size] for i in range(0, len(paths), size)]
    queue_in, queue_out = os.pipe()
    try:
        os.write(queue_out, b"".join(_ITEM.pack(i) for i in range(len(items))))
    finally:
        os.close(queue_out)
    children: list[tuple[int, int]] = []  # (pid, read end of its result pipe)
    try:
        for _ in range(workers - 1):
            result_in, result_out = os.pipe()
            pid = os.fork()
            if pid == 0:  # pragma: no cover - the child; its work is checked in the parent
                os.close(result_in)
                _child(queue_in, items, result_out)
            os.close(result_out)
            children.append((pid, result_in))
        result = LintResult()
        _drain(queue_in, items, result, hoard)
        failed = False
        for pid, result_in in children:
            with os.fdopen(result_in, "rb") as pipe:
                data = pipe.read()
            _, status = os.waitpid(pid, 0)
            if status != 0 or not data:
                failed = True
                continue
            # S302: the bytes come from our own forked child over a private pipe.
            files, parsed, findings, errors = marshal.loads(data)  # noqa: S302
            result.files += files
            result.parsed += parsed
            result.findings.extend(
                Finding(path=p, line=line, column=col, code=code) for p, line, col, code in findings
            )
            result.errors.extend(LintError(path=p, message=m) for p, m in errors)
        children.clear()
    finally:
        os.close(queue_in)
        _stop(children)  # still there only when this process was interrupted
    if failed:
        # A child died; which files it had taken is not known. Do them all here.
        result = LintResult()
        _lint_paths(paths, result)
    return result


def _stop(children: list[tuple[int, int]]) -> None:
    """End the children that still run and close their pipes."""
    if not children:
        return
    import signal  # noqa: PLC0415 - only when interrupted; the import costs every run ~3 ms

    for pid, result_in in children:
        os.close(result_in)
        os.kill(pid, signal.SIGTERM)
        os.waitpid(pid, 0)


def _drain(
    queue: int, items: list[Sequence[str]], result: LintResult, hoard: _Hoard | None = None
) -> None:
    """Lint the queue's items until it is empty."""
    while len(record := os.read(queue, _ITEM.size)) == _ITEM.size:
        _lint_paths(items[_ITEM.unpack(record)[0]], result, hoard)


class _Hoard:
    """What a process keeps of each file it parsed, instead of freeing it.

    A forked child ends with ``os._exit``, and the console script without a teardown: freeing
    a file's syntax tree as the next file starts is work that the end of the process makes
    needless (about 4% of a lint of a site-packages tree). Up to ``room`` bytes of parsed
    source (a tree takes about 25 times its source's size), so that memory stays bounded on
    any tree.
    """

    __slots__ = ("kept", "room")

    def __init__(self, room: int, kept: list[object] | None = None) -> None:
        self.kept: list[object] = [] if kept is None else kept
        self.room = room

    def keep(self, thing: object, size: int) -> None:
        """Keep ``thing`` if ``size`` bytes still fit; else let it be freed."""
        if size <= self.room:
            self.room -= size
            self.kept.append(thing)


# Parsed source a child keeps the trees of (see ``_Hoard``): about 100 MB of trees at most.
_HOARD_BYTES = 4 << 20


def _child(
    queue: int, items: list[Sequence[str]], out: int
) -> NoReturn:  # pragma: no cover - runs in a forked child
    status = 1
    try:
        result = LintResult()
        hoard = _Hoard(_HOARD_BYTES)  # lives until os._exit below: what it keeps is never freed
        _drain(queue, items, result, hoard)
        data = marshal.dumps(
            (
                result.files,
                result.parsed,
                [(f.path, f.line, f.column, f.code) for f in result.findings],
                [(e.path, e.message) for e in result.errors],
            )
        )
        with os.fdopen(out, "wb") as pipe:
            pipe.write(data)
        status = 0
    finally:
        # Not ``sys.exit``: the parent's atexit handlers and buffered output are the parent's.
        os._exit(status)
