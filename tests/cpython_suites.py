"""Run CPython's own TLS test suites with no policy, an enforce policy and a report policy.

Every test that passes with no policy must pass under both policies, except those listed, each
with a reason, in the expected-failures file; a listed test that no longer fails is an error
too (the list is stale). The nox session ``cpython`` runs this script with the venv's
interpreter, where the wheel's ``.pth`` hook is installed; pytest does not collect it (its name
does not start with ``test_``).

The suites only use loopback; no ``-u`` resource is enabled, so ``network`` stays off.

Usage: ``python tests/cpython_suites.py --expected FILE --suites test_ssl test_httplib ...``
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from collections import Counter
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping, Sequence

__all__ = [
    "FAILED",
    "MISSING",
    "MODES",
    "PASSED",
    "SKIPPED",
    "Comparison",
    "SuiteRun",
    "compare",
    "load_toml",
    "main",
]

MODES = ("baseline", "enforce", "report")
POLICIES = {
    "enforce": "version = 1\n",
    "report": 'version = 1\nmode = "report"\n\n[report]\nsink = "none"\n',
}
PASSED = "passed"
FAILED = "failed"
SKIPPED = "skipped"
MISSING = "missing"
# One test file of test_ssl takes about a minute; a hung handshake must not block CI for long.
TIMEOUT_SECONDS = 600


@dataclass(frozen=True, slots=True, kw_only=True)
class SuiteRun:
    """The outcome of one ``python -m test`` run: a status per test id."""

    mode: str
    results: Mapping[str, str]
    seconds: float
    returncode: int
    log: str


@dataclass(frozen=True, slots=True, kw_only=True)
class Comparison:
    """How one policy run differs from the baseline."""

    mode: str
    regressions: Mapping[str, str]  # test id -> status under the policy (passed in baseline)
    expected: Mapping[str, str]  # listed tests that did fail: test id -> reason
    stale: Mapping[str, str]  # listed tests that passed: test id -> status


def load_toml(path: str) -> dict[str, Any]:
    """Read a TOML file with tomllib, or tomli on Python 3.10."""
    if sys.version_info >= (3, 11):
        import tomllib

        with open(path, "rb") as file:
            return tomllib.load(file)
    import tomli  # pragma: no cover - Python 3.10

    with open(path, "rb") as file:  # pragma: no cover - Python 3.10
        data: dict[str, Any] = tomli.load(file)
    return data  # pragma: no cover - Python 3.10


def load_expected(path: str) -> dict[str, dict[str, str]]:
    """Return ``{mode: {test id: reason}}`` from the expected-failures file.

    Raises:
        ValueError: a mode other than ``enforce``/``report``, or an empty reason.
    """
    data = load_toml(path)
    expected: dict[str, dict[str, str]] = {mode: {} for mode in POLICIES}
    for mode, table in data.items():
        if mode not in POLICIES or not isinstance(table, dict):
            raise ValueError(f"{path}: [{mode}] is not one of {sorted(POLICIES)}")
        for test_id, reason in table.items():
            if not isinstance(reason, str) or not reason.strip():
                raise ValueError(f"{path}: [{mode}] {test_id!r} needs a one-line reason")
            expected[mode][test_id] = reason
    return expected


def parse_junit(path: str) -> dict[str, str]:
    """Return ``{test id: passed|failed|skipped}`` from a regrtest ``--junit-xml`` file."""
    results: dict[str, str] = {}
    if not os.path.exists(path):
        return results
    for case in ET.parse(path).getroot().iter("testcase"):  # noqa: S314 - our child's own file
        tags = {child.tag for child in case}
        if tags & {"failure", "error"}:
            status = FAILED
        elif "skipped" in tags:
            status = SKIPPED
        else:
            status = PASSED
        test_id = case.get("name", "")
        # A test id seen twice (subtests, a rerun) counts as failed if any instance failed.
        if results.get(test_id) != FAILED:
            results[test_id] = status
    return results


def environment(mode: str, workdir: str) -> dict[str, str]:
    """Return the environment of one run: no user policy, and the mode's process policy."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("SSLCUSTOMIZE_")}
    # An empty home: no user layer (~/.config/sslcustomize) and no ~/.pydistutils.cfg & co.
    home = os.path.join(workdir, "home")
    os.makedirs(home, exist_ok=True)
    env["HOME"] = home
    env["XDG_CONFIG_HOME"] = os.path.join(home, ".config")
    for name in ("SSL_CERT_FILE", "SSL_CERT_DIR", "HTTPS_PROXY", "https_proxy", "ALL_PROXY"):
        env.pop(name, None)
    if mode in POLICIES:
        policy = os.path.join(workdir, f"{mode}.toml")
        with open(policy, "w", encoding="utf-8") as file:
            file.write(POLICIES[mode])
        env["SSLCUSTOMIZE_POLICY"] = policy
    return env


def run_suites(
    *,
    python: str,
    suites: Sequence[str],
    mode: str,
    workdir: str,
    jobs: int,
    match_file: str | None = None,
) -> SuiteRun:
    """Run ``python -m test`` on ``suites`` under ``mode`` and collect per-test results."""
    tag = f"{mode}-rerun" if match_file else mode
    junit = os.path.join(workdir, f"{tag}.xml")
    log = os.path.join(workdir, f"{tag}.log")
    command = [python, "-m", "test", f"-j{jobs}", f"--timeout={TIMEOUT_SECONDS}"]
    command += ["--junit-xml", junit]
    if match_file:
        command += ["--matchfile", match_file]
    command += list(suites)
    started = time.monotonic()
    with open(log, "w", encoding="utf-8") as output:
        completed = subprocess.run(
            command,
            env=environment(mode, workdir),
            cwd=workdir,
            stdout=output,
            stderr=subprocess.STDOUT,
            check=False,
        )
    return SuiteRun(
        mode=mode,
        results=parse_junit(junit),
        seconds=time.monotonic() - started,
        returncode=completed.returncode,
        log=log,
    )


def compare(baseline: SuiteRun, other: SuiteRun, expected: Mapping[str, str]) -> Comparison:
    """Compare a policy run with the baseline, given that mode's expected failures."""
    regressions: dict[str, str] = {}
    listed: dict[str, str] = {}
    stale: dict[str, str] = {}
    for test_id, status in baseline.results.items():
        now = other.results.get(test_id, MISSING)
        if status != PASSED:
            continue
        if test_id in expected:
            if now == PASSED:
                stale[test_id] = now
            else:
                listed[test_id] = expected[test_id]
        elif now != PASSED:
            regressions[test_id] = now
    for test_id in expected:
        if baseline.results.get(test_id) != PASSED and test_id not in stale:
            # Listed, but it does not pass without a policy: the list no longer says anything.
            stale[test_id] = f"{baseline.results.get(test_id, MISSING)} in baseline"
    return Comparison(mode=other.mode, regressions=regressions, expected=listed, stale=stale)


def suite_of(test_id: str, suites: Iterable[str]) -> str:
    """Return the suite (``test_asyncio.test_ssl``) that a test id belongs to."""
    matches = [s for s in suites if test_id.startswith(f"test.{s}.")]
    return max(matches, key=len) if matches else "?"


def count_table(runs: Sequence[SuiteRun], suites: Sequence[str]) -> str:
    """Return per-suite counts (passed/failed/skipped) of every run, as aligned text."""
    width = max(len(s) for s in suites) + 2
    lines = [
        "suite".ljust(width) + "".join(f"{r.mode + ' p/f/s':>22}" for r in runs),
    ]
    per_run = []
    for run in runs:
        counts: Counter[tuple[str, str]] = Counter()
        for test_id, status in run.results.items():
            counts[suite_of(test_id, suites), status] += 1
        per_run.append(counts)
    for suite in [*suites, "total"]:
        cells = []
        for counts in per_run:
            trio = [
                sum(n for (s, st), n in counts.items() if st == status and suite in {s, "total"})
                for status in (PASSED, FAILED, SKIPPED)
            ]
            cells.append(f"{'/'.join(map(str, trio)):>22}")
        lines.append(suite.ljust(width) + "".join(cells))
    return "\n".join(lines)


def confirm(
    comparison: Comparison, *, python: str, suites: Sequence[str], workdir: str, jobs: int
) -> tuple[dict[str, str], dict[str, str]]:
    """Re-run a mode's regressions once; return (confirmed, flaky) regressions.

    The machine is shared and a loopback test can time out under load; a test that fails
    twice under the policy, having passed without it, is a regression.
    """
    if not comparison.regressions:
        return {}, {}
    match_file = os.path.join(workdir, f"{comparison.mode}-rerun.txt")
    with open(match_file, "w", encoding="utf-8") as file:
        file.writelines(f"{test_id}\n" for test_id in comparison.regressions)
    involved = sorted({suite_of(t, suites) for t in comparison.regressions} - {"?"}) or suites
    rerun = run_suites(
        python=python,
        suites=involved,
        mode=comparison.mode,
        workdir=workdir,
        jobs=jobs,
        match_file=match_file,
    )
    confirmed = {t: s for t, s in comparison.regressions.items() if rerun.results.get(t) != PASSED}
    flaky = {t: s for t, s in comparison.regressions.items() if t not in confirmed}
    return confirmed, flaky


def main(argv: Sequence[str] | None = None) -> int:
    """Run the three modes, print the counts and every difference; return the exit code."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--expected", required=True, help="the expected-failures TOML file")
    parser.add_argument("--suites", nargs="+", required=True, help="regrtest test names")
    parser.add_argument("--python", default=sys.executable, help="the interpreter to test")
    parser.add_argument("--jobs", type=int, default=2, help="regrtest -j (default: 2)")
    parser.add_argument("--keep", help="write logs and junit files here (default: a temp dir)")
    args = parser.parse_args(argv)

    expected = load_expected(args.expected)
    with tempfile.TemporaryDirectory(prefix="cpython-suites-") as scratch:
        workdir = args.keep or scratch
        os.makedirs(workdir, exist_ok=True)
        return _run_all(args, expected, workdir)


def _run_all(
    args: argparse.Namespace, expected: Mapping[str, Mapping[str, str]], workdir: str
) -> int:
    """Run and compare every mode in ``workdir``; return the exit code."""
    started = time.monotonic()
    runs = []
    for mode in MODES:
        run = run_suites(
            python=args.python, suites=args.suites, mode=mode, workdir=workdir, jobs=args.jobs
        )
        print(f"{mode}: {len(run.results)} tests in {run.seconds:.0f} s (exit {run.returncode})")
        if not run.results:
            print(f"{mode}: no result; the log follows\n" + _tail(run.log))
            return 1
        runs.append(run)
    print(count_table(runs, args.suites))

    failed = False
    baseline = runs[0]
    for run in runs[1:]:
        comparison = compare(baseline, run, expected[run.mode])
        confirmed, flaky = confirm(
            comparison, python=args.python, suites=args.suites, workdir=workdir, jobs=args.jobs
        )
        for test_id, reason in sorted(comparison.expected.items()):
            print(f"{run.mode}: expected failure {test_id}: {reason}")
        for test_id, status in sorted(flaky.items()):
            print(f"{run.mode}: FLAKY {test_id} ({status}, passed when run again)")
        for test_id, status in sorted(confirmed.items()):
            print(f"{run.mode}: REGRESSION {test_id}: {status} (passed with no policy)")
        for test_id, status in sorted(comparison.stale.items()):
            print(f"{run.mode}: STALE {test_id} is listed as failing but {status}")
        failed = failed or bool(confirmed or comparison.stale)
        if confirmed:
            print(f"{run.mode}: see {run.log}" if args.keep else _tail(run.log))
    print(f"total {time.monotonic() - started:.0f} s")
    return 1 if failed else 0


def _tail(path: str, lines: int = 60) -> str:
    """Return the last lines of a log file."""
    with open(path, encoding="utf-8", errors="replace") as file:
        return "".join(file.readlines()[-lines:])


if __name__ == "__main__":
    sys.exit(main())
