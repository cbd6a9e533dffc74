"""Score TLS linters on real projects against hand labels at pinned commits (issue 36).

The labels live in ``tests/lint/realcode/labels/<project>.toml``: the repository, the pinned
commit, the project's set (``tuning`` or ``held-out``; a held-out file may name its round,
``heldout_round``, 1 when absent) and, per candidate site, its path, line, label and a one-line
reason. Labels are

* ``a``: a weakening on by default;
* ``b``: a weakening the user turns on through a documented option;
* ``c``: a safe look-alike (a finding there is a false alarm);
* ``d``: tests, examples, documentation and benchmarks, given as path patterns
  (``unscored``, added to :data:`DEFAULT_UNSCORED`): findings there are not scored.

A site may span several lines (``also``: more line numbers of its file, or ``"path:line"`` of
another file): a finding on any of them finds it.

This script fetches nothing. For each label file whose repository is present under the
mirrors directory (``--mirrors DIR`` or ``$SSLCUSTOMIZE_REALCODE_MIRRORS``; a bare or
normal git directory at ``DIR/<owner>+<name>/repo``, ``DIR/<owner>+<name>`` or
``DIR/<name>``, holding the pinned commit), it extracts the pinned commit's Python files into
a temporary directory (``git archive``, so labels are read against the commit, not a work
tree), runs each tool there, and matches findings to sites by file and line. Every tool is
credited alike: any finding on a site's line finds it, whatever its code.

    python bench/realcode.py [--mirrors DIR] [--tools sslcustomize,ruff,bandit,semgrep]
                             [--linter CMD] [--semgrep-rules DIR] [--repeat N]
                             [--project NAME ...] [--markdown] [--json FILE]

* ``--linter CMD``: how to start this linter (default: the ``sslcustomize-lint`` script, else
  ``sslcustomize lint``, beside this interpreter, else on ``PATH``); another branch's install
  is scored by passing its script, e.g. ``--linter /tmp/venv-V/bin/sslcustomize-lint``.
  It is run with ``--isolated --format json --tests report --exit-zero .``.
* ruff runs S501-S504 and S323 (``--ruff-select S`` for all its security rules, the
  comparison of the speed goal), bandit B501-B504 and B323; semgrep (``--semgrep-rules DIR``,
  a semgrep-rules tree or a directory of rule files) the TLS rules of semgrep-rules named in
  :data:`SEMGREP_RULE_FILES`, offline (``--metrics=off``), with the requests rule's id made
  unique (two files share one id, and semgrep then keeps one of them). A tool that is not
  installed is left out, and said so.
* Times are wall clock per project, best of ``--repeat`` runs; the ratio is each tool's total
  over ruff's on the same trees.

Printed per project: sites (a, b), found, missed, false alarms (findings on a look-alike, and
on a line with no label outside the unscored paths: those are printed in full so that a person
can label them), then totals for the tuning set and the two held-out sets apart: recall of
(a), of (a)+(b), precision (true sites reported over all sites and unlabelled lines reported).
The held-out rounds before :data:`FRESH_ROUND` have had their misses read ("held-out (seen)");
only the fresh round still measures code nobody tuned the linter to ("held-out (fresh)").
"""

from __future__ import annotations

import argparse
import fnmatch
import io
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[1]
LABELS = ROOT / "tests" / "lint" / "realcode" / "labels"
MIRRORS_ENV = "SSLCUSTOMIZE_REALCODE_MIRRORS"
LABEL_KINDS = ("a", "b", "c")
SETS = ("tuning", "held-out")
# The held-out round whose misses nobody has read yet; raise it when a new round is labelled.
FRESH_ROUND = 3
REPORT_SETS = ("tuning", "held-out (seen)", "held-out (fresh)")
TOOLS = ("sslcustomize", "ruff", "bandit", "semgrep")
RUFF_RULES = "S501,S502,S503,S504,S323"
BANDIT_TESTS = "B501,B502,B503,B504,B323"
SEMGREP_RULE_FILES = (
    "python/lang/security/audit/network/disabled-cert-validation.yaml",
    "python/requests/security/disabled-cert-validation.yaml",
    "python/lang/security/unverified-ssl-context.yaml",
    "python/lang/security/audit/weak-ssl-version.yaml",
    "python/lang/security/audit/ssl-wrap-socket-is-deprecated.yaml",
)
# Label d: where a project's tests, examples, documentation and benchmarks live. The linter's
# own test-file rule (docs/lint.md) plus the directories a project ships beside its code.
DEFAULT_UNSCORED = (
    "tests/",
    "test/",
    "testing/",
    "test_*.py",
    "*_test.py",
    "*_tests.py",
    "conftest.py",
    "examples/",
    "example/",
    "docs/",
    "doc/",
    "benchmarks/",
    "bench/",
)

Hit = tuple[str, int, str]  # path relative to the project's root, line, code


@dataclass(frozen=True, slots=True, kw_only=True)
class Site:
    """One labelled candidate site: where it is, its label and why."""

    path: str
    line: int
    label: str
    reason: str
    lines: frozenset[tuple[str, int]]


@dataclass(frozen=True, slots=True, kw_only=True)
class Project:
    """The labels of one project at its pinned commit."""

    name: str
    repo: str
    commit: str
    split: str
    kind: str
    unscored: tuple[str, ...]
    sites: tuple[Site, ...]
    heldout_round: int = 1

    @property
    def report_set(self) -> str:
        """Return the set the report totals this project in (one of :data:`REPORT_SETS`)."""
        if self.split != "held-out":
            return self.split
        return "held-out (fresh)" if self.heldout_round >= FRESH_ROUND else "held-out (seen)"

    def site_at(self, path: str, line: int) -> Site | None:
        """Return the site that a finding on this line belongs to, if any."""
        for site in self.sites:
            if (path, line) in site.lines:
                return site
        return None


@dataclass(slots=True, kw_only=True)
class ProjectScore:
    """What one tool found in one project."""

    project: Project
    found: list[Site] = field(default_factory=list)
    missed: list[Site] = field(default_factory=list)
    lookalikes: list[Site] = field(default_factory=list)  # c sites reported
    unlabelled: list[Hit] = field(default_factory=list)  # one per line, outside d
    seconds: float = 0.0

    def count(self, labels: str, *, found: bool = True) -> int:
        """Return how many sites with one of ``labels`` were found (or missed)."""
        sites = self.found if found else self.missed
        return sum(1 for site in sites if site.label in labels)

    @property
    def false_alarms(self) -> int:
        """Return the sites and lines reported that are not weakenings."""
        return len(self.lookalikes) + len(self.unlabelled)


def load_project(path: Path) -> Project:
    """Read one label file; raise ``ValueError`` on a label file that is not well formed."""
    with path.open("rb") as handle:
        data = tomllib.load(handle)
    missing = {"project", "repo", "commit", "split"} - data.keys()
    if missing:
        raise ValueError(f"{path}: missing {sorted(missing)}")
    if data["split"] not in SETS:
        raise ValueError(f"{path}: split must be one of {SETS}")
    if not re.fullmatch(r"[0-9a-f]{40}", data["commit"]):
        raise ValueError(f"{path}: commit must be 40 hex digits")
    heldout_round = data.get("heldout_round", 1)
    # bool is an int: refuse it too, so that a typo like `heldout_round = true` is not round 1
    if type(heldout_round) is not int or heldout_round < 1:
        raise ValueError(f"{path}: heldout_round must be a whole number from 1")
    if heldout_round != 1 and data["split"] != "held-out":
        raise ValueError(f"{path}: heldout_round is for held-out projects only")
    sites = []
    for entry in data.get("site", []):
        if entry["label"] not in LABEL_KINDS:
            raise ValueError(f"{path}: {entry['path']}:{entry['line']}: label must be a, b or c")
        lines = {(entry["path"], int(entry["line"]))}
        for extra in entry.get("also", []):
            if isinstance(extra, int):
                lines.add((entry["path"], extra))
            else:
                other, _, number = str(extra).rpartition(":")
                lines.add((other, int(number)))
        sites.append(
            Site(
                path=entry["path"],
                line=int(entry["line"]),
                label=entry["label"],
                reason=entry.get("reason", ""),
                lines=frozenset(lines),
            )
        )
    return Project(
        name=data["project"],
        repo=data["repo"],
        commit=data["commit"],
        split=data["split"],
        kind=data.get("kind", ""),
        unscored=DEFAULT_UNSCORED + tuple(data.get("unscored", ())),
        sites=tuple(sites),
        heldout_round=heldout_round,
    )


def load_projects(labels: Path = LABELS) -> list[Project]:
    """Read every label file of a directory, in name order."""
    return [load_project(path) for path in sorted(labels.glob("*.toml"))]


def is_unscored(path: str, patterns: Iterable[str]) -> bool:
    """Tell whether a path is in tests, examples or documentation (label d).

    A pattern ending in ``/`` names a directory anywhere in the path; a pattern with another
    ``/`` is matched against the whole path; any other against each file name.
    """
    parts = path.split("/")
    for pattern in patterns:
        if pattern.endswith("/"):
            if pattern.rstrip("/") in parts[:-1]:
                return True
        elif "/" in pattern:
            if fnmatch.fnmatchcase(path, pattern):
                return True
        elif fnmatch.fnmatchcase(parts[-1], pattern):
            return True
    return False


def match(project: Project, hits: Iterable[Hit]) -> ProjectScore:
    """Match one tool's findings to a project's sites by file and line."""
    result = ProjectScore(project=project)
    reported: set[Site] = set()
    unlabelled: dict[tuple[str, int], Hit] = {}
    for path, line, code in hits:
        if is_unscored(path, project.unscored):
            continue
        site = project.site_at(path, line)
        if site is None:
            unlabelled.setdefault((path, line), (path, line, code))
        else:
            reported.add(site)
    for site in project.sites:
        if site.label == "c":
            if site in reported:
                result.lookalikes.append(site)
        elif site in reported:
            result.found.append(site)
        else:
            result.missed.append(site)
    result.unlabelled = sorted(unlabelled.values())
    return result


@dataclass(slots=True)
class Totals:
    """Sums over projects for one tool and one set."""

    a: int = 0
    b: int = 0
    found_a: int = 0
    found_b: int = 0
    false_alarms: int = 0
    seconds: float = 0.0

    def add(self, score: ProjectScore) -> None:
        """Add one project's score."""
        self.a += score.count("a") + score.count("a", found=False)
        self.b += score.count("b") + score.count("b", found=False)
        self.found_a += score.count("a")
        self.found_b += score.count("b")
        self.false_alarms += score.false_alarms
        self.seconds += score.seconds

    @property
    def recall_a(self) -> float | None:
        """Return the share of default weakenings found."""
        return self.found_a / self.a if self.a else None

    @property
    def recall_b(self) -> float | None:
        """Return the share of configurable weakenings found."""
        return self.found_b / self.b if self.b else None

    @property
    def recall_ab(self) -> float | None:
        """Return the share of default and configurable weakenings found."""
        return (self.found_a + self.found_b) / (self.a + self.b) if self.a + self.b else None

    @property
    def precision(self) -> float | None:
        """Return the share of reported sites that are weakenings."""
        true = self.found_a + self.found_b
        return true / (true + self.false_alarms) if true + self.false_alarms else None


def totals(scores: Iterable[ProjectScore]) -> Totals:
    """Sum project scores."""
    result = Totals()
    for score in scores:
        result.add(score)
    return result


def _percent(value: float | None) -> str:
    return "-" if value is None else f"{value:.0%}"


# -- mirrors and trees ---------------------------------------------------------------------


def find_mirror(mirrors: Path, project: Project) -> Path | None:
    """Return the git directory that holds a project's pinned commit, if one is present."""
    owner, _, name = project.repo.partition("/")
    for candidate in (
        mirrors / f"{owner}+{name}" / "repo",
        mirrors / f"{owner}+{name}",
        mirrors / name,
    ):
        if not candidate.is_dir():
            continue
        probe = subprocess.run(
            ["git", "-C", str(candidate), "cat-file", "-e", f"{project.commit}^{{commit}}"],
            capture_output=True,
            check=False,
        )
        if probe.returncode == 0:
            return candidate
    return None


def extract(git_dir: Path, commit: str, target: Path) -> int:
    """Write the Python files of one commit under ``target``; return how many.

    Read from ``git archive`` (the commit, never a work tree), asked for Python files only: a
    snapshot mirror may lack its large data files' blobs, which would fail a whole-tree
    archive. Members whose name would leave ``target`` are skipped.
    """
    archive = subprocess.run(
        ["git", "-C", str(git_dir), "archive", "--format=tar", commit, "--", ":(glob)**/*.py"],
        capture_output=True,
        check=True,
    ).stdout
    count = 0
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        for member in tar:
            name = member.name
            if not member.isfile() or not name.endswith(".py"):
                continue
            if name.startswith("/") or ".." in name.split("/"):
                continue
            data = tar.extractfile(member)
            if data is None:
                continue
            destination = target / name
            destination.parent.mkdir(parents=True, exist_ok=True)
            destination.write_bytes(data.read())
            count += 1
    return count


# -- tools ---------------------------------------------------------------------------------


def _beside(name: str) -> str | None:
    beside = Path(sys.executable).parent / name
    return str(beside) if beside.exists() else shutil.which(name)


def default_linter() -> list[str] | None:
    """Return the command that runs this linter, if it is installed.

    The linter's own script (``sslcustomize-lint``, once it is a distribution of its own)
    is preferred to ``sslcustomize lint``, which starts it through the policy's command.
    """
    own = _beside("sslcustomize-lint")
    if own:
        return [own]
    script = _beside("sslcustomize")
    return [script, "lint"] if script else None


def semgrep_rules(source: Path, target: Path) -> Path:
    """Copy semgrep-rules' TLS rules into ``target`` with unique ids; return the directory."""
    target.mkdir(parents=True, exist_ok=True)
    chosen = [source / name for name in SEMGREP_RULE_FILES if (source / name).is_file()]
    if not chosen:
        chosen = sorted(source.glob("*.y*ml"))
    for index, path in enumerate(chosen):
        text = re.sub(
            r"^(\s*-\s*id:\s*)(\S+)", rf"\g<1>\g<2>-{index}", path.read_text(), flags=re.M
        )
        (target / f"{index}-{path.name}").write_text(text)
    return target


def command(
    tool: str, *, linter: Sequence[str], rules: Path | None, ruff_rules: str = RUFF_RULES
) -> list[str] | None:
    """Return the command that runs a tool on ``.`` with JSON output, or None if missing."""
    if tool == "sslcustomize":
        return [*linter, "--isolated", "--format", "json", "--tests", "report", "--exit-zero", "."]
    if tool == "ruff":
        ruff = _beside("ruff")
        if ruff is None:
            return None
        return [
            *(ruff, "check", "--no-cache", "--isolated", "--exit-zero"),
            *("--select", ruff_rules, "--output-format", "json", "."),
        ]
    if tool == "bandit":
        bandit = _beside("bandit")
        return [bandit, "-q", "-r", "-f", "json", "-t", BANDIT_TESTS, "."] if bandit else None
    semgrep = _beside("semgrep")
    if semgrep is None or rules is None:
        return None
    return [
        semgrep,
        "scan",
        "--config",
        str(rules),
        "--json",
        "--metrics=off",
        "--disable-version-check",
        "--quiet",
        # semgrep skips test directories by default; label d skips them here, alike for all
        "--no-git-ignore",
        ".",
    ]


def parse_hits(tool: str, out: str, root: Path) -> list[Hit]:
    """Return a tool's findings (path relative to ``root``, line, code) from its JSON."""
    data = json.loads(out or "{}")
    raw: list[tuple[str, int, str]]
    if tool == "sslcustomize":
        raw = [(f["path"], f["line"], f["code"]) for f in data.get("findings", [])]
    elif tool == "bandit":
        raw = [(r["filename"], r["line_number"], r["test_id"]) for r in data.get("results", [])]
    elif tool == "semgrep":
        raw = [(r["path"], r["start"]["line"], r["check_id"]) for r in data.get("results", [])]
    else:
        raw = [
            (r["filename"], r["location"]["row"], r["code"])
            for r in data
            if (r.get("code") or "").startswith("S")  # not syntax errors of Python 2 files
        ]
    hits = []
    for path, line, code in raw:
        full = Path(path) if Path(path).is_absolute() else root / path
        try:
            relative = full.resolve().relative_to(root.resolve()).as_posix()
        except ValueError:
            relative = Path(path).as_posix()
        hits.append((relative, int(line), str(code)))
    return hits


def run_tool(argv: list[str], root: Path, repeat: int) -> tuple[float, str]:
    """Run a tool in ``root``; return its best wall time and its output."""
    best, out = float("inf"), ""
    for _ in range(max(1, repeat)):
        start = time.perf_counter()
        proc = subprocess.run(argv, cwd=root, capture_output=True, text=True, check=False)
        best = min(best, time.perf_counter() - start)
        out = proc.stdout
        if not out.strip() and proc.returncode not in (0, 1):
            raise RuntimeError(f"{argv[0]} failed in {root}: {proc.stderr[-2000:]}")
    return best, out


# -- report --------------------------------------------------------------------------------


def _report(results: dict[str, dict[str, ProjectScore]], tools: list[str]) -> None:
    """Print per project, then totals per set and overall, then what a person should label."""
    print(f"{'project':26} {'set':16} {'a':>3} {'b':>3} " + " ".join(f"{t:>24}" for t in tools))
    print(f"{'':26} {'':16} {'':>3} {'':>3} " + " ".join(f"{'found a+b / fa':>24}" for _ in tools))
    for name, per_tool in results.items():
        any_score = next(iter(per_tool.values()))
        project = any_score.project
        a = sum(1 for s in project.sites if s.label == "a")
        b = sum(1 for s in project.sites if s.label == "b")
        cells = []
        for tool in tools:
            score = per_tool[tool]
            found = score.count("ab")
            cells.append(f"{found}/{a + b} ({score.count('a')}a) fa {score.false_alarms}")
        print(
            f"{name:26} {project.report_set:16} {a:>3} {b:>3} "
            + " ".join(f"{c:>24}" for c in cells)
        )
    for subset in (*REPORT_SETS, "all"):
        print(f"== {subset}")
        ruff_seconds = None
        sums = {}
        for tool in tools:
            sums[tool] = totals(
                per_tool[tool]
                for per_tool in results.values()
                if subset == "all" or per_tool[tool].project.report_set == subset
            )
            if tool == "ruff":
                ruff_seconds = sums[tool].seconds
        for tool, t in sums.items():
            ratio = (
                f"{t.seconds / ruff_seconds:.2f}x ruff" if ruff_seconds else f"{t.seconds:.2f} s"
            )
            print(
                f"  {tool:13} recall a {_percent(t.recall_a)} ({t.found_a}/{t.a})  "
                f"recall b {_percent(t.recall_b)} ({t.found_b}/{t.b})  "
                f"recall a+b {_percent(t.recall_ab)} ({t.found_a + t.found_b}/{t.a + t.b})  "
                f"precision {_percent(t.precision)} ({t.false_alarms} false alarms)  "
                f"time {t.seconds:.2f} s ({ratio})"
            )
    for tool in tools:
        for name, per_tool in results.items():
            score = per_tool[tool]
            for site in score.missed:
                where = f"{site.path}:{site.line} ({site.label})"
                print(f"missed   {tool:13} {name}: {where} {site.reason}")
            for site in score.lookalikes:
                print(f"look-alike {tool:11} {name}: {site.path}:{site.line} {site.reason}")
            for path, line, code in score.unlabelled:
                print(f"UNLABELLED {tool:11} {name}: {path}:{line} {code}  <- label it")


def _markdown(results: dict[str, dict[str, ProjectScore]], tools: list[str]) -> None:
    """Print the per-project table of docs/lint.md."""
    print(
        "| project (set) | commit | sites a / b | "
        + " | ".join(f"{t}: found / missed / false alarms" for t in tools)
        + " |"
    )
    print("|---|---|---|" + "---|" * len(tools))
    for name, per_tool in results.items():
        project = next(iter(per_tool.values())).project
        a = sum(1 for s in project.sites if s.label == "a")
        b = sum(1 for s in project.sites if s.label == "b")
        cells = [
            f"{per_tool[t].count('ab')} / {len(per_tool[t].missed)} / {per_tool[t].false_alarms}"
            for t in tools
        ]
        print(
            f"| {name} ({project.report_set}) | `{project.commit[:10]}` | {a} / {b} | "
            + " | ".join(cells)
            + " |"
        )


def _parser() -> argparse.ArgumentParser:
    """Return the command line's parser."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    parser.add_argument("--mirrors", default=os.environ.get(MIRRORS_ENV))
    parser.add_argument("--labels", default=str(LABELS))
    parser.add_argument("--tools", default="sslcustomize,ruff,bandit,semgrep")
    parser.add_argument(
        "--linter", help="command that runs the linter (default: sslcustomize lint)"
    )
    parser.add_argument("--semgrep-rules", help="semgrep-rules tree or a directory of rules")
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument(
        "--ruff-select",
        default=RUFF_RULES,
        help="ruff's rules (default its TLS rules; 'S' for the speed goal's comparison)",
    )
    parser.add_argument("--project", action="append", help="only these projects")
    parser.add_argument("--markdown", action="store_true", help="also print the docs table")
    parser.add_argument("--json", help="write the results to this file")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Score the tools on every project present; return 0, or 2 when none is present."""
    args = _parser().parse_args(argv)
    if not args.mirrors:
        print(f"no mirrors: give --mirrors DIR or set {MIRRORS_ENV}", file=sys.stderr)
        return 2
    linter = shlex.split(args.linter) if args.linter else default_linter()
    workdir = Path(tempfile.mkdtemp(prefix="realcode-"))
    try:
        rules = (
            semgrep_rules(Path(args.semgrep_rules), workdir / "semgrep-rules")
            if args.semgrep_rules
            else None
        )
        tools = []
        for tool in args.tools.split(","):
            if command(tool, linter=linter or ["sslcustomize", "lint"], rules=rules) is None or (
                tool == "sslcustomize" and linter is None
            ):
                print(f"{tool}: not installed (or no --semgrep-rules): left out", file=sys.stderr)
            else:
                tools.append(tool)
        results: dict[str, dict[str, ProjectScore]] = {}
        for project in load_projects(Path(args.labels)):
            if args.project and project.name not in args.project:
                continue
            mirror = find_mirror(Path(args.mirrors), project)
            if mirror is None:
                print(f"{project.name}: no mirror with {project.commit[:10]}: skipped")
                continue
            tree = workdir / "trees" / project.name
            files = extract(mirror, project.commit, tree)
            print(f"{project.name}: {files} Python files at {project.commit[:10]}", file=sys.stderr)
            per_tool = {}
            for tool in tools:
                argv_ = command(tool, linter=linter or [], rules=rules, ruff_rules=args.ruff_select)
                assert argv_ is not None
                seconds, out = run_tool(argv_, tree, args.repeat)
                per_tool[tool] = match(project, parse_hits(tool, out, tree))
                per_tool[tool].seconds = seconds
            results[project.name] = per_tool
        if not results:
            print("no project's mirror is present", file=sys.stderr)
            return 2
        _report(results, tools)
        if args.markdown:
            _markdown(results, tools)
        if args.json:
            _write_json(Path(args.json), results)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    return 0


def _write_json(path: Path, results: dict[str, dict[str, ProjectScore]]) -> None:
    payload = {
        "version": 1,
        "projects": {
            name: {
                "commit": next(iter(per_tool.values())).project.commit,
                "split": next(iter(per_tool.values())).project.split,
                "set": next(iter(per_tool.values())).project.report_set,
                "tools": {
                    tool: {
                        "found": [f"{s.path}:{s.line}" for s in score.found],
                        "missed": [f"{s.path}:{s.line}" for s in score.missed],
                        "lookalikes": [f"{s.path}:{s.line}" for s in score.lookalikes],
                        "unlabelled": [f"{p}:{n} {c}" for p, n, c in score.unlabelled],
                        "seconds": round(score.seconds, 3),
                    }
                    for tool, score in per_tool.items()
                },
            }
            for name, per_tool in results.items()
        },
    }
    temporary = path.with_suffix(".tmp")
    temporary.write_text(json.dumps(payload, indent=2) + "\n")
    temporary.replace(path)


if __name__ == "__main__":
    sys.exit(main())
