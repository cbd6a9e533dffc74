"""Where ``sslcustomize lint``'s time goes on a tree: CPU time per phase, in one process.

    python bench/lint_phases.py [--no-extra] [--repeat N] DIR [DIR ...]

For each tree (its top-level entries, less ``site-packages`` and ``__pycache__``, as
``bench/lint_bench.py`` lints them), the files are linted in this process (``jobs=1``, the
cyclic collector off, as the command runs) with the runner's steps wrapped in timers:
start-up (importing the linter), finding the files, reading them, the word search (the
pre-filter), the cut (``module_names``, ``hot_places``, ``hot_source``, ``lines_of``),
``ast.parse`` (of the cut, a wider cut, or the whole file), the analysis and the allow
comments. ``--no-extra`` hides ``ahocorasick-rs`` from the process (``sslcustomize-lint``
without ``[fast]``). Each phase's figure is its best over ``--repeat`` runs; the timers add a
little to every phase, so the total of the phases is above an untimed run's.
"""

from __future__ import annotations

import argparse
import ast
import gc
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


def _timed(times: dict[str, float], key: str, function: Callable[..., Any]) -> Callable[..., Any]:
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        start = time.process_time()
        try:
            return function(*args, **kwargs)
        finally:
            times[key] = times.get(key, 0.0) + time.process_time() - start

    return wrapper


def main() -> None:
    """Print the phases of a lint of each tree."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("trees", nargs="+")
    parser.add_argument("--no-extra", action="store_true", help="hide ahocorasick-rs")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    if args.no_extra:
        sys.modules["ahocorasick_rs"] = None  # type: ignore[assignment]
    sys.path.insert(0, str(ROOT / "lint" / "src"))
    start = time.process_time()
    from sslcustomize_lint import _analyzer, _runner  # imported here: timed as start-up
    from sslcustomize_lint._files import discover

    startup = time.process_time() - start
    times: dict[str, float] = {}
    wrapped = [
        (_runner, "_read", "read"),
        (_runner, "word_places", "word search"),
        (_runner, "module_names", "cut"),
        (_runner, "hot_places", "cut"),
        (_runner, "hot_source", "cut"),
        (_runner, "lines_of", "cut"),
        (_runner, "find_allows", "allow comments"),
        (_analyzer.Analyzer, "__init__", "analysis"),
        (_analyzer.Analyzer, "run", "analysis"),
        (_analyzer.Analyzer, "check_callers", "analysis"),
        (ast, "parse", "parse"),
    ]
    for owner, name, key in wrapped:
        setattr(owner, name, _timed(times, key, getattr(owner, name)))
    gc.disable()
    print(f"start-up (importing the linter): {startup:.3f} s")
    for tree in args.trees:
        entries = sorted(
            os.path.join(tree, name)
            for name in os.listdir(tree)
            if name not in {"site-packages", "__pycache__"}
        )
        best: dict[str, float] = {}
        for _ in range(args.repeat):
            times.clear()
            start = time.process_time()
            files, _missing = discover(entries)
            times["find files"] = time.process_time() - start
            start = time.process_time()
            result = _runner.lint_files(files, jobs=1)
            times["total"] = times["find files"] + time.process_time() - start
            for key, value in times.items():
                best[key] = min(best.get(key, value), value)
        print(
            f"== {tree}: {result.files} files, {result.parsed} parsed, "
            f"{len(result.findings)} findings ({'without' if args.no_extra else 'with'} the extra)"
        )
        total = best.pop("total")
        for key, value in sorted(best.items(), key=lambda item: -item[1]):
            print(f"  {key:16} {value:6.3f} s  {value / total:4.0%}")
        print(f"  {'total':16} {total:6.3f} s")


if __name__ == "__main__":
    main()
