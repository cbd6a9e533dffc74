"""Benchmark ``sslcustomize lint`` against bandit and ruff: speed, recall and precision.

Needs ``pip install bandit ruff`` in the interpreter that runs this script (it installs
nothing), and ``sslcustomize_lint`` importable (installed, or ``PYTHONPATH=lint/src``).

    python bench/lint_bench.py [--site-packages DIR] [--tree NAME=DIR] [--repeat N]
                               [--ruff-select CODES] [--skip-bandit-trees] [--semgrep-rules DIR]
                               [--before DIR] [--skip-corpus]

In one run, on the same trees, it measures:

* the labelled corpus (``tests/lint/corpus``): recall and precision of each tool. bandit and
  ruff are run with only their TLS rules (bandit B501-B504, B323; ruff S501-S504, S323) and are
  credited with a site when they report anything on its line, whatever the code; this linter
  must report the labelled code.
* with ``--semgrep-rules DIR`` (semgrep from PyPI, rules from a local copy of semgrep-rules,
  run offline with ``--metrics=off``), semgrep on the corpus too, credited like bandit and
  ruff. The corpus is copied to a temporary directory first: semgrep skips ``tests/``
  directories by default. Rule ids must be unique in DIR (semgrep-rules has two
  ``disabled-cert-validation``; with both, semgrep keeps one, not always the same).
* the installed standard library (``sysconfig.get_paths()["stdlib"]`` without its
  ``site-packages``), a site-packages tree (by default this interpreter's) and each
  ``--tree NAME=DIR`` (a TLS-heavy tree of real projects' client code, say): files per second
  of each tool, wall clock, best of ``--repeat`` runs (bandit: one), caches off, and this
  linter's findings per family (test files included; ``--tests report``). On the trees ruff
  runs ``--select S`` (``--ruff-select``: all its security rules, as the performance issue
  measures it), not only its TLS rules. This linter runs twice where ``ahocorasick-rs`` is
  installed: with it (``sslcustomize``) and without it (``sslcustomize-noextra``, the module
  hidden from the process), as ``sslcustomize-lint`` and ``sslcustomize-lint[fast]`` would.
  The tools take turns, round after round, and the ratio of ruff's time to each variant's in
  each round is printed too (median and range): the development VM's speed drifts by a third
  over seconds. So is the CPU time of each run (user + system, all its processes), which the
  load of a shared machine disturbs less than the wall clock.
* with ``--before DIR`` (a directory that holds another version's ``sslcustomize_lint``, such
  as ``lint/src`` of a checkout of the main branch), that version too, with and without the
  extra (``sslcustomize-before``, ``sslcustomize-before-noextra``), in the same rounds: the
  ratio of its time to this version's per round, and whether both find the same.

The linter's modules are compiled to bytecode first, as an installed package's are.
Each tree is first read once by ``cat``-like reading so that no tool pays for a cold page cache
that the one before it warmed: every tool starts from the same (warm) cache, and none keeps a
cache of its own (ruff ``--no-cache``; this linter and bandit have none). Neither ruff nor this
linter reads a configuration file (``--isolated`` for both): the directory the bench is run
from must not change what is timed.
"""

from __future__ import annotations

import argparse
import compileall
import json
import os
import resource
import shutil
import site
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT / "tests" / "lint" / "corpus"
sys.path.insert(0, str(ROOT / "lint" / "src"))

from sslcustomize_lint._files import discover  # noqa: E402
from sslcustomize_lint._prefilter import accelerated_matches  # noqa: E402
from sslcustomize_lint._rules import RULES_BY_CODE  # noqa: E402
from sslcustomize_lint._scoring import load_labels, score, total  # noqa: E402

BANDIT_TESTS = "B501,B502,B503,B504,B323"
RUFF_RULES = "S501,S502,S503,S504,S323"
# The rules ruff runs on the timed trees (``--ruff-select``).
RUFF_SPEED_RULES = ["S"]

# What the ``sslcustomize-lint`` console script runs (``sslcustomize lint`` runs the same
# parser), without depending on the script being installed.
_OURS = "from sslcustomize_lint._command import entrypoint\nentrypoint()\n"
# The same without the optional accelerator: an import of it fails, as where it is not installed.
_OURS_NOEXTRA = "import sys\nsys.modules['ahocorasick_rs'] = None\n" + _OURS


def _tool(name: str) -> list[str]:
    beside = Path(sys.executable).parent / name
    if beside.exists():
        return [str(beside)]
    found = shutil.which(name)
    if found is None:
        sys.exit(f"{name} not found: pip install bandit ruff")
    return [found]


BEFORE: list[str] = []  # the --before directory, when given


def _env(tool: str) -> dict[str, str]:
    env = dict(os.environ)
    source = BEFORE[0] if "-before" in tool else str(ROOT / "lint" / "src")
    env["PYTHONPATH"] = os.pathsep.join([source, env.get("PYTHONPATH", "")])
    return env


SEMGREP_RULES: list[str] = []  # the --semgrep-rules directory, when given


def command(tool: str, paths: list[str], *, speed: bool = False) -> list[str]:
    """Return the command line that runs one tool on paths with JSON output."""
    if tool == "semgrep":
        return [
            *_tool("semgrep"),
            "scan",
            "--config",
            *SEMGREP_RULES,
            "--json",
            "--metrics=off",
            "--disable-version-check",
            "--quiet",
            *paths,
        ]
    if tool.startswith("sslcustomize"):
        return [
            sys.executable,
            "-c",
            _OURS_NOEXTRA if tool.endswith("-noextra") else _OURS,
            "--isolated",
            "--format",
            "json",
            "--tests",
            "report",
            *paths,
        ]
    if tool == "bandit":
        return [*_tool("bandit"), "-q", "-r", "-f", "json", "-t", BANDIT_TESTS, *paths]
    return [
        *_tool("ruff"),
        "check",
        "--no-cache",
        "--isolated",
        "--exit-zero",
        "--select",
        ",".join(RUFF_SPEED_RULES) if speed else RUFF_RULES,
        "--output-format",
        "json",
        *paths,
    ]


def _timed(tool: str, paths: list[str], *, speed: bool = False) -> tuple[float, str]:
    """Run a tool once; return its wall time and its output."""
    wall, _, out = _measured(tool, paths, speed=speed)
    return wall, out


def _measured(tool: str, paths: list[str], *, speed: bool = False) -> tuple[float, float, str]:
    """Run a tool once; return its wall time, its CPU time (all its processes) and its output."""
    argv = command(tool, paths, speed=speed)
    env = _env(tool)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.run(argv, capture_output=True, text=True, env=env, check=False)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    return wall, cpu, proc.stdout


def _hits(tool: str, out: str) -> list[tuple[str, int, str]]:
    """Return a tool's findings (path, line, code) from its JSON output."""
    data = json.loads(out or "{}")
    if tool.startswith("sslcustomize"):
        return [(f["path"], f["line"], f["code"]) for f in data["findings"]]
    if tool == "bandit":
        return [(r["filename"], r["line_number"], r["test_id"]) for r in data.get("results", [])]
    if tool == "semgrep":
        return [(r["path"], r["start"]["line"], r["check_id"]) for r in data.get("results", [])]
    return [
        (r["filename"], r["location"]["row"], r["code"])
        for r in data
        if (r.get("code") or "").startswith("S")  # not syntax errors of Python 2 files
    ]


def run(tool: str, paths: list[str]) -> list[tuple[str, int, str]]:
    """Run a tool once and return its hits (path, line, code)."""
    return _hits(tool, _timed(tool, paths)[1])


def race(
    tools: tuple[str, ...], paths: list[str], repeat: int, cpu: dict[str, list[float]] | None = None
) -> dict[str, list[float]]:
    """Time tools on the same paths, taking turns, ``repeat`` rounds; return each one's times.

    Taking turns (and changing who goes first each round) puts the tools in the same state of
    a shared machine, whose speed drifts by a third over seconds on the development VM.
    ``cpu``, if given, receives each run's CPU time by tool.
    """
    times: dict[str, list[float]] = {tool: [] for tool in tools}
    for round_ in range(repeat):
        order = tools if round_ % 2 == 0 else tools[::-1]
        for tool in order:
            wall, seconds, _ = _measured(tool, paths, speed=True)
            times[tool].append(wall)
            if cpu is not None:
                cpu.setdefault(tool, []).append(seconds)
    return times


def _warm(files: list[str]) -> None:
    """Read every file once, so that each tool meets the same page cache."""
    for path in files:
        with open(path, "rb") as handle:
            handle.read()


def _families(hits: list[tuple[str, int, str]]) -> str:
    counts: dict[str, int] = {}
    for _, _, code in hits:
        family = RULES_BY_CODE[code].family
        counts[family] = counts.get(family, 0) + 1
    return "  ".join(f"{name}={n}" for name, n in sorted(counts.items())) or "none"


def tree_paths(root: str) -> list[str]:
    """Return the entries of a tree, without a nested ``site-packages``."""
    return sorted(
        str(p) for p in Path(root).iterdir() if p.name not in {"site-packages", "__pycache__"}
    )


def main() -> None:
    """Run the benchmark and print its tables."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--site-packages", default=site.getsitepackages()[0])
    parser.add_argument(
        "--tree", action="append", default=[], metavar="NAME=DIR", help="another tree to time"
    )
    parser.add_argument("--ruff-select", default="S", help="ruff's rules on the timed trees")
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--skip-bandit-trees", action="store_true", help="bandit on corpus only")
    parser.add_argument("--semgrep-rules", help="a directory of semgrep rules: semgrep on corpus")
    parser.add_argument("--before", help="another version's sslcustomize_lint parent directory")
    parser.add_argument("--skip-corpus", action="store_true", help="time the trees only")
    args = parser.parse_args()
    RUFF_SPEED_RULES[:] = [args.ruff_select]
    tools: tuple[str, ...] = ("sslcustomize", "ruff", "bandit")
    if args.semgrep_rules:
        SEMGREP_RULES.append(args.semgrep_rules)
        tools += ("semgrep",)
    search = "ahocorasick-rs" if accelerated_matches is not None else "pure Python, no [lint]"
    print(f"pre-filter search: {search}")
    # An installed package has its bytecode; the sources here may not (PYTHONDONTWRITEBYTECODE),
    # and compiling the linter at each run would be timed as its start-up.
    compileall.compile_dir(str(ROOT / "lint" / "src" / "sslcustomize_lint"), quiet=1)
    if args.before:
        BEFORE.append(str(Path(args.before).resolve()))
        compileall.compile_dir(str(Path(BEFORE[0]) / "sslcustomize_lint"), quiet=1)
    if not args.skip_corpus:
        corpus(tools)
    trees = {
        "stdlib": tree_paths(sysconfig.get_paths()["stdlib"]),
        "site-packages": tree_paths(args.site_packages),
    }
    for given in args.tree:
        name, _, directory = given.partition("=")
        trees[name] = tree_paths(directory)
    ours: tuple[str, ...] = ("sslcustomize",)
    if accelerated_matches:
        ours += ("sslcustomize-noextra",)
    if BEFORE:
        ours += tuple(variant.replace("sslcustomize", "sslcustomize-before") for variant in ours)
    for name, paths in trees.items():
        time_tree(name, paths, ours, repeat=args.repeat, bandit=not args.skip_bandit_trees)


def corpus(tools: tuple[str, ...]) -> None:
    """Score each tool on the labelled corpus (recall and precision) and print it."""
    print(f"== corpus {CORPUS}")
    labels = load_labels(CORPUS)
    corpus_files = [str(p) for p in sorted(CORPUS.glob("*.py"))]
    temporary = tempfile.TemporaryDirectory()
    copy = Path(temporary.name) / "corpus"
    shutil.copytree(CORPUS, copy)
    for tool in tools:
        if tool == "semgrep":
            hits = [
                (str(CORPUS / Path(path).name), line, code)
                for path, line, code in run(tool, [str(copy)])
            ]
        else:
            hits = run(tool, corpus_files)
        scores = score(labels, hits, match_codes=tool == "sslcustomize")
        overall = total(scores)
        print(
            f"{tool:13} recall {overall.recall:6.1%}  precision {overall.precision:6.1%}  "
            f"({overall.found}/{overall.expected} sites, {overall.false_positives} false)"
        )
        families = "  ".join(
            f"{name}={s.recall:.0%}/{s.precision:.0%}" for name, s in sorted(scores.items())
        )
        print(f"{'':13} per corpus file (recall/precision): {families}")
        if tool == "sslcustomize":
            print(f"{'':13} findings per family: {_families(hits)}")
    temporary.cleanup()


def time_tree(
    name: str, paths: list[str], ours: tuple[str, ...], *, repeat: int, bandit: bool
) -> None:
    """Time this linter's variants, ruff and (once) bandit on one tree; print the table."""
    files, _ = discover(paths)
    print(f"== {name}: {len(files)} files under {Path(paths[0]).parent}")
    _warm(files)
    hits = {tool: _hits(tool, _timed(tool, paths, speed=True)[1]) for tool in (*ours, "ruff")}
    cpu: dict[str, list[float]] = {}
    times = race((*ours, "ruff"), paths, repeat, cpu)
    if bandit:
        # bandit is ~50x slower: once is enough to place it, and repeating it would load
        # the machine while the others are timed.
        once, out = _timed("bandit", paths)
        times["bandit"], hits["bandit"] = [once], _hits("bandit", out)
    for tool, seconds in times.items():
        best = min(seconds)
        used = f"  CPU {min(cpu[tool]):.2f} s (best)" if tool in cpu else ""
        print(
            f"{tool:13} {best:8.2f} s  {len(files) / best:9.0f} files/s  "
            f"{len(hits[tool]):5} findings{used}"
        )
        if tool == "sslcustomize":
            print(f"{'':13} findings per family: {_families(hits[tool])}")
    for variant in ours:
        best = min(times[variant])
        for other in ("bandit", "ruff"):
            if other in times:
                print(f"  {variant} / {other}: {min(times[other]) / best:.2f}x files/s")
        _per_round(f"ruff's time / {variant}'s", times["ruff"], times[variant])
        _per_round(f"ruff's CPU time / {variant}'s", cpu["ruff"], cpu[variant])
        before = variant.replace("sslcustomize", "sslcustomize-before")
        if before != variant and before in times:
            _per_round(f"{before}'s time / {variant}'s", times[before], times[variant])
            _per_round(f"{before}'s CPU time / {variant}'s", cpu[before], cpu[variant])
            same = sorted(hits[before]) == sorted(hits[variant])
            print(f"  {variant} and {before}: {'the same' if same else 'DIFFERENT'} findings")


def _per_round(what: str, numerators: list[float], denominators: list[float]) -> None:
    """Print the median and range of a ratio of two tools' times taken in the same rounds."""
    rounds = sorted(n / d for n, d in zip(numerators, denominators, strict=True))
    print(
        f"  per round, {what}: median {statistics.median(rounds):.2f}x, "
        f"{rounds[0]:.2f}x to {rounds[-1]:.2f}x over {len(rounds)} rounds"
    )


if __name__ == "__main__":
    main()
