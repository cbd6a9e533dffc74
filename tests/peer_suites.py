"""Run the hooked libraries' own test suites with no sslcustomize, an enforce and a report policy.

For each suite of the table (``tests/peer_suites.toml``): the library's sdist is downloaded
from PyPI (its test suite), unpacked, and its TLS-relevant test files are run three times by
pytest: in a venv without sslcustomize (the baseline), then in a venv of the same
requirements with the sslcustomize wheel installed, once under an enforce policy and once
under a report policy (``trust = ["system"]`` both). A test that passes in the baseline and
fails or errors under a policy is a regression; the run fails on a regression the table does
not list with its reason, and on a listed test that no longer fails (the list is stale).

Every run is serial, on loopback only (pytest-socket's ``--allow-hosts``), with the CA
variables unset and an empty HOME. Downloads, venvs and baseline results are cached under
``--cache``, keyed by the interpreter, OpenSSL, the requirements and the suite's files and
arguments, so a second run only reinstalls the wheel and runs the two policy runs
(``--fresh-baseline`` runs the baselines again). The nox session ``peers`` runs
this script; pytest does not collect it (its name does not start with ``test_``).

Usage: ``python tests/peer_suites.py --table tests/peer_suites.toml --cache DIR --wheel WHEEL``
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from cpython_suites import (
    FAILED,
    MISSING,
    MODES,
    PASSED,
    SKIPPED,
    SuiteRun,
    compare,
    load_toml,
)

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

__all__ = [
    "POLICIES",
    "Suite",
    "SuiteResult",
    "compare_runs",
    "environment",
    "load_table",
    "main",
    "node_id",
    "normalized",
    "parse_junit",
    "pytest_command",
    "result_table",
]

POLICIES = {
    "enforce": 'version = 1\nmode = "enforce"\ntrust = ["system"]\n',
    # The report sink is off: a record written to stderr or a file would be output the
    # suites' own capture tests see; the verdicts are the same with any sink.
    "report": 'version = 1\nmode = "report"\ntrust = ["system"]\n\n[report]\nsink = "none"\n',
}
# Variables that would change which CAs or proxies a library uses: the suites run with none.
UNSET = (
    "SSL_CERT_FILE",
    "SSL_CERT_DIR",
    "REQUESTS_CA_BUNDLE",
    "CURL_CA_BUNDLE",
    "SSLKEYLOGFILE",
    "HTTP_PROXY",
    "HTTPS_PROXY",
    "ALL_PROXY",
    "NO_PROXY",
    "PYTEST_ADDOPTS",
    "PYTHONPATH",
)
LOOPBACK = "--allow-hosts=127.0.0.1,::1,localhost"
# A whole run that takes this long has hung past pytest-timeout's per-test limit.
RUN_TIMEOUT_SECONDS = 1800
# A run still alive this long after pytest wrote its junit XML waits for a leftover thread.
EXIT_GRACE_SECONDS = 30
TIMED_OUT = -1
HUNG_AT_EXIT = -2
# More regressions than this in one run are not a loaded machine's: none is run again.
RERUN_LIMIT = 50


@dataclass(frozen=True, slots=True, kw_only=True)
class Suite:
    """One library's test suite at one pinned version, as the table describes it."""

    name: str
    project: str  # the PyPI project whose sdist holds the tests
    version: str
    requirements: tuple[str, ...]  # pinned, the library itself included
    requirement_files: tuple[str, ...]  # pip -r files inside the sdist
    remove: tuple[str, ...]  # paths of the sdist tree removed so the installed library is tested
    files: tuple[str, ...]  # test files or directories, relative to the sdist
    args: tuple[str, ...]  # more pytest arguments (-k, -m, -o ...)
    timeout: int  # pytest-timeout's per-test limit, in seconds
    known: Mapping[str, str]  # test id -> why it fails under a policy (both modes)
    cannot_run: Mapping[str, str]  # test id or pattern -> why it cannot run anywhere here


@dataclass(frozen=True, slots=True, kw_only=True)
class SuiteResult:
    """The three runs of one suite and their comparison."""

    suite: Suite
    runs: Mapping[str, SuiteRun]
    messages: Mapping[str, Mapping[str, str]]  # mode -> test id -> first line of its error
    regressions: Mapping[str, Mapping[str, str]]  # mode -> unlisted regression -> status
    listed: Mapping[str, Mapping[str, str]]  # mode -> listed failure -> reason
    stale: Mapping[str, str]  # listed test -> why the listing is stale
    flaky: Mapping[str, Mapping[str, str]] = field(default_factory=dict)  # passed when rerun


def _strings(value: object, where: str) -> tuple[str, ...]:
    """Return a TOML list of strings as a tuple, or raise ``TypeError``."""
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise TypeError(f"{where} must be a list of strings")
    return tuple(value)


def _reasons(value: object, where: str) -> dict[str, str]:
    """Return a TOML table of test id -> one-line reason, or raise ``TypeError``/``ValueError``."""
    if not isinstance(value, dict):
        raise TypeError(f"{where} must be a table")
    for key, reason in value.items():
        if not isinstance(reason, str) or not reason.strip():
            raise ValueError(f"{where}: {key!r} needs a one-line reason")
    return dict(value)


def load_table(path: str) -> list[Suite]:
    """Return the suites of the table file, in its order.

    Raises:
        TypeError: a field of the wrong type (a suite without project or version).
        ValueError: an unknown key, a suite without files, or a listed test without a reason.
    """
    data = load_toml(path)
    suites = []
    for name, entry in data.get("suite", {}).items():
        where = f"{path}: [suite.{name}]"
        if not isinstance(entry, dict):
            raise TypeError(f"{where} must be a table")
        unknown = set(entry) - {
            "project",
            "version",
            "requirements",
            "requirement_files",
            "remove",
            "files",
            "args",
            "timeout",
            "known",
            "cannot_run",
        }
        if unknown:
            raise ValueError(f"{where}: unknown keys {sorted(unknown)}")
        project, version = entry.get("project"), entry.get("version")
        if not isinstance(project, str) or not isinstance(version, str):
            raise TypeError(f"{where} needs project and version (strings)")
        files = _strings(entry.get("files", []), f"{where}.files")
        if not files:
            raise ValueError(f"{where} needs files")
        timeout = entry.get("timeout", 60)
        if not isinstance(timeout, int) or timeout <= 0:
            raise TypeError(f"{where}.timeout must be a positive integer")
        suites.append(
            Suite(
                name=name,
                project=project,
                version=version,
                requirements=_strings(entry.get("requirements", []), f"{where}.requirements"),
                requirement_files=_strings(
                    entry.get("requirement_files", []), f"{where}.requirement_files"
                ),
                remove=_strings(entry.get("remove", []), f"{where}.remove"),
                files=files,
                args=_strings(entry.get("args", []), f"{where}.args"),
                timeout=timeout,
                known=_reasons(entry.get("known", {}), f"{where}.known"),
                cannot_run=_reasons(entry.get("cannot_run", {}), f"{where}.cannot_run"),
            )
        )
    return suites


def parse_junit(path: str) -> tuple[dict[str, str], dict[str, str]]:
    """Return ``({test id: status}, {test id: first error line})`` from pytest's junit XML.

    A test id is ``classname::name`` (``test.test_ssl.TestSSL::test_x[a]``). A test that
    fails in its call and errors in its teardown appears twice: it counts as failed.
    """
    results: dict[str, str] = {}
    messages: dict[str, str] = {}
    if not os.path.exists(path):
        return results, messages
    for case in ET.parse(path).getroot().iter("testcase"):  # noqa: S314 - our child's own file
        test_id = f"{case.get('classname', '')}::{case.get('name', '')}"
        problems = [child for child in case if child.tag in {"failure", "error"}]
        if problems:
            status = FAILED
            text = problems[0].get("message") or problems[0].text or ""
            messages.setdefault(test_id, (text.strip().splitlines() or [""])[0][:200])
        elif any(child.tag == "skipped" for child in case):
            status = SKIPPED
        else:
            status = PASSED
        if results.get(test_id) != FAILED:
            results[test_id] = status
    return results, messages


def normalized(found: Mapping[str, str], places: Mapping[str, str]) -> dict[str, str]:
    """Return ``found`` with each path of ``places`` in its test ids replaced by a name.

    A test parametrized by a path (requests': a file of its own tree, of pytest's install)
    has an id per tree and venv; the runs differ in both.
    """
    result = {}
    for test_id, value in found.items():
        key = test_id
        for path, name in places.items():
            key = key.replace(path, name)
        result[key] = value
    return result


def environment(mode: str, workdir: str) -> dict[str, str]:
    """Return the environment of one run: no CA variables, an empty HOME, the mode's policy."""
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith("SSLCUSTOMIZE_") and key.upper() not in UNSET
    }
    home = os.path.join(workdir, f"home-{mode}")
    os.makedirs(home, exist_ok=True)
    env["HOME"] = home
    env["XDG_CONFIG_HOME"] = os.path.join(home, ".config")
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    if mode in POLICIES:
        policy = os.path.join(workdir, f"{mode}.toml")
        with open(policy, "w", encoding="utf-8") as file:
            file.write(POLICIES[mode])
        env["SSLCUSTOMIZE_POLICY"] = policy
    return env


def pytest_command(
    python: str, suite: Suite, junit: str, targets: Sequence[str] | None = None
) -> list[str]:
    """Return the pytest command of one run: serial, loopback only, junit XML.

    ``targets`` (node ids) replace the suite's files, to run some tests again.
    """
    return [
        python,
        "-m",
        "pytest",
        "-p",
        "no:cacheprovider",
        LOOPBACK,
        f"--timeout={suite.timeout}",
        f"--junitxml={junit}",
        "-o",
        "junit_family=xunit1",
        "-q",
        "--no-header",
        "-rN",
        *suite.args,
        *(suite.files if targets is None else targets),
    ]


def _digest(suite: Suite, python: str, tree: str) -> str:
    """Return a key of what a venv of the suite holds: interpreter, OpenSSL, requirements."""
    sha = hashlib.sha256()
    version = subprocess.run(
        [python, "-c", "import ssl, sys; print(sys.version, ssl.OPENSSL_VERSION)"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    sha.update(version.encode())
    for requirement in suite.requirements:
        sha.update(requirement.encode() + b"\0")
    for name in suite.requirement_files:
        with open(os.path.join(tree, name), "rb") as file:
            sha.update(file.read())
    return sha.hexdigest()[:16]


def _pip(python: str, *args: str) -> None:
    """Run pip quietly in a venv; raise with its output on failure."""
    completed = subprocess.run(
        [python, "-m", "pip", "--disable-pip-version-check", "-q", *args],
        capture_output=True,
        text=True,
        check=False,
    )
    if completed.returncode != 0:
        raise RuntimeError(f"pip {' '.join(args)} failed:\n{completed.stdout}{completed.stderr}")


def _venv(suite: Suite, *, python: str, tree: str, cache: str, hooked: bool) -> str:
    """Return the interpreter of the suite's cached venv, made (or remade) if needed."""
    kind = "hooked" if hooked else "base"
    path = os.path.join(cache, "venvs", f"{suite.name}-{kind}")
    marker = os.path.join(path, ".peer-suites")
    digest = _digest(suite, python, tree)
    venv_python = os.path.join(path, "bin", "python")
    if os.path.exists(marker):
        with open(marker, encoding="utf-8") as file:
            if file.read() == digest:
                return venv_python
    shutil.rmtree(path, ignore_errors=True)
    subprocess.run([python, "-m", "venv", path], check=True)
    files = [arg for name in suite.requirement_files for arg in ("-r", os.path.join(tree, name))]
    _pip(venv_python, "install", *suite.requirements, *files)
    with open(marker, "w", encoding="utf-8") as file:
        file.write(digest)
    return venv_python


def _install_wheel(venv_python: str, wheel: str) -> None:
    """Install the sslcustomize wheel under test into a hooked venv.

    The wheel changes from run to run, its own requirements do not: they are installed with
    the venv's first wheel only (a resolution against the index costs seconds per suite).
    """
    marker = os.path.join(os.path.dirname(os.path.dirname(venv_python)), ".peer-suites-wheel")
    if not os.path.exists(marker):
        _pip(venv_python, "install", wheel)
        with open(marker, "w", encoding="utf-8") as file:
            file.write(os.path.basename(wheel))
    _pip(venv_python, "install", "--no-deps", "--force-reinstall", wheel)


def _sdist(suite: Suite, *, python: str, cache: str) -> str:
    """Return the path of the suite's sdist, downloaded from PyPI once."""
    directory = os.path.join(cache, "sdists")
    os.makedirs(directory, exist_ok=True)
    prefix = f"{suite.project.replace('-', '_').lower()}-{suite.version}."
    for name in os.listdir(directory):
        if name.replace("-", "_", name.count("-") - 1).lower().startswith(prefix):
            return os.path.join(directory, name)
    requirement = f"{suite.project}=={suite.version}"
    command = [python, "-m", "pip", "download", "-q", "--no-binary", ":all:", "--no-deps"]
    subprocess.run([*command, "-d", directory, requirement], check=True)
    for name in os.listdir(directory):
        if name.replace("-", "_", name.count("-") - 1).lower().startswith(prefix):
            return os.path.join(directory, name)
    raise RuntimeError(f"pip downloaded no sdist of {requirement} into {directory}")


def _unpack(sdist: str, target: str, remove: Sequence[str]) -> str:
    """Unpack an sdist into ``target``; return its top directory, without ``remove``."""
    shutil.rmtree(target, ignore_errors=True)
    os.makedirs(target)
    with tarfile.open(sdist) as archive:
        if sys.version_info >= (3, 12):
            archive.extractall(target, filter="data")
        else:  # pragma: no cover - the session runs on 3.12
            archive.extractall(target)  # noqa: S202 - a PyPI sdist pinned by version
    (top,) = os.listdir(target)
    tree = os.path.join(target, top)
    for name in remove:
        path = os.path.join(tree, name)
        if os.path.isdir(path):
            shutil.rmtree(path)
        elif os.path.exists(path):
            os.remove(path)
    return tree


def _run_pytest(
    suite: Suite,
    mode: str,
    *,
    venv_python: str,
    tree: str,
    scratch: str,
    targets: Sequence[str] | None = None,
) -> tuple[SuiteRun, dict[str, str]]:
    """Run the suite's files (or ``targets``) once in ``mode``; return the run and errors."""
    tag = "rerun" if targets is not None else "run"
    junit = os.path.join(scratch, f"junit-{tag}.xml")
    log = os.path.join(scratch, f"pytest-{tag}.log")
    with contextlib.suppress(FileNotFoundError):
        os.remove(junit)  # a kept one of an earlier run would look like this run's end
    started = time.monotonic()
    with open(log, "w", encoding="utf-8") as output:
        process = subprocess.Popen(
            pytest_command(venv_python, suite, junit, targets),
            env=environment(mode, scratch),
            cwd=tree,
            stdin=subprocess.DEVNULL,  # a pass phrase prompt fails instead of hanging
            stdout=output,
            stderr=subprocess.STDOUT,
        )
        returncode = _wait(process, junit, started)
    if returncode == HUNG_AT_EXIT:
        with open(log, "a", encoding="utf-8") as output:
            output.write(f"\npeer_suites: killed {EXIT_GRACE_SECONDS} s after its junit XML\n")
    places = {tree: "<src>", os.path.dirname(os.path.dirname(venv_python)): "<venv>"}
    results, errors = (normalized(found, places) for found in parse_junit(junit))
    run = SuiteRun(
        mode=mode,
        results=results,
        seconds=time.monotonic() - started,
        returncode=returncode,
        log=log,
    )
    return run, errors


def _wait(process: subprocess.Popen[bytes], junit: str, started: float) -> int:
    """Wait for a pytest run; return its exit code, or why it was killed.

    pytest writes the junit XML when its session ends; a process still alive well after that
    waits for a thread some test left running (the results are complete: it is killed).
    """
    written = None
    while True:
        try:
            return process.wait(timeout=1)
        except subprocess.TimeoutExpired:
            pass
        now = time.monotonic()
        if written is None and os.path.exists(junit):
            written = now
        if written is not None and now - written > EXIT_GRACE_SECONDS:
            process.kill()
            process.wait()
            return HUNG_AT_EXIT
        if now - started > RUN_TIMEOUT_SECONDS:
            process.kill()
            process.wait()
            return TIMED_OUT


def _baseline_file(suite: Suite, *, python: str, tree: str, cache: str) -> str:
    """Return where the baseline of the suite as the table has it now is kept.

    The baseline does not depend on sslcustomize: it is run again only when the interpreter,
    OpenSSL, the requirements or the suite's files and arguments change.
    """
    sha = hashlib.sha256(_digest(suite, python, tree).encode())
    sha.update(repr((suite.version, suite.remove, suite.files, suite.args, suite.timeout)).encode())
    return os.path.join(cache, "baselines", f"{suite.name}-{sha.hexdigest()[:16]}.json")


def _load_baseline(path: str) -> tuple[SuiteRun, dict[str, str]] | None:
    """Return a kept baseline run, or ``None``."""
    try:
        with open(path, encoding="utf-8") as file:
            data = json.load(file)
    except (OSError, ValueError):
        return None
    run = SuiteRun(mode="baseline", results=data["results"], seconds=0.0, returncode=0, log=path)
    return run, data["messages"]


def _save_baseline(path: str, run: SuiteRun, messages: Mapping[str, str]) -> None:
    """Keep a baseline run (written whole, then renamed: a killed run leaves none)."""
    os.makedirs(os.path.dirname(path), exist_ok=True)
    data = {"version": 1, "results": dict(run.results), "messages": dict(messages)}
    with open(f"{path}.tmp", "w", encoding="utf-8") as file:
        json.dump(data, file, indent=1, sort_keys=True)
    os.replace(f"{path}.tmp", path)


def run_suite(
    suite: Suite,
    *,
    python: str,
    cache: str,
    wheel: str,
    workdir: str,
    fresh_baseline: bool = False,
) -> SuiteResult:
    """Run one suite in the three modes and compare each policy run with the baseline.

    The baseline is taken from the cache when one was run for the same venv and files, unless
    ``fresh_baseline``.
    """
    sdist = _sdist(suite, python=python, cache=cache)
    runs: dict[str, SuiteRun] = {}
    messages: dict[str, dict[str, str]] = {}
    flaky: dict[str, dict[str, str]] = {}
    for mode in MODES:
        scratch = os.path.join(workdir, suite.name, mode)
        os.makedirs(scratch, exist_ok=True)
        # Unpacked again for each mode, at one path: a test parametrized by its own file's
        # path gets the same id in every mode (pytest 9 on 3.14 made one "path1" in one
        # tree and the path itself in another).
        tree = _unpack(sdist, os.path.join(workdir, suite.name, "src"), suite.remove)
        if mode == "baseline":
            kept = _baseline_file(suite, python=python, tree=tree, cache=cache)
            found = None if fresh_baseline else _load_baseline(kept)
            if found is not None:
                runs[mode], messages[mode] = found
                continue
        venv_python = _venv(suite, python=python, tree=tree, cache=cache, hooked=mode != "baseline")
        if mode == "enforce":
            _install_wheel(venv_python, wheel)
        run, errors = _run_pytest(suite, mode, venv_python=venv_python, tree=tree, scratch=scratch)
        if mode == "baseline" and run.results:
            _save_baseline(kept, run, errors)
        runs[mode], messages[mode] = run, errors
        if mode in POLICIES:
            flaky[mode] = _rerun(suite, runs, mode, venv_python=venv_python, tree=tree)
    result = compare_runs(suite, runs, messages)
    return _without_flaky(result, flaky)


def node_id(tree: str, test_id: str) -> str | None:
    """Return pytest's node id of a junit test id (``pkg.mod.Class::name``), or ``None``."""
    classname, _, name = test_id.partition("::")
    parts = classname.split(".")
    for end in range(len(parts), 0, -1):
        path = "/".join(parts[:end]) + ".py"
        if os.path.isfile(os.path.join(tree, path)):
            return "::".join([path, *parts[end:], name])
    return None


def _rerun(
    suite: Suite, runs: Mapping[str, SuiteRun], mode: str, *, venv_python: str, tree: str
) -> dict[str, str]:
    """Run the files of a mode's regressions once more; return the regressions that passed.

    A test that passes without sslcustomize and fails twice under the policy is a regression;
    one that passes the second time is flaky (a loopback time-out on a loaded machine).
    Past :data:`RERUN_LIMIT` regressions the policy run is plainly broken: none is rerun.
    """
    base, now = runs["baseline"].results, runs[mode].results
    failing = [
        test_id
        for test_id, status in base.items()
        if status == PASSED and now.get(test_id) != PASSED and test_id not in suite.known
    ]
    # Whole files, in the suite's order: a test may fail only after another one in its file
    # (requests' test_certificate_failure after a test that set REQUESTS_CA_BUNDLE), and run
    # on its own it would pass and hide that regression.
    nodes = [node for node in (node_id(tree, test_id) for test_id in failing) if node]
    files = {node.split("::", 1)[0] for node in nodes}
    targets = [path for path in suite.files if path in files] or sorted(files)
    targets += sorted(files - set(targets))
    if not targets or len(failing) > RERUN_LIMIT:
        return {}
    scratch = os.path.dirname(runs[mode].log)
    again, _ = _run_pytest(
        suite, mode, venv_python=venv_python, tree=tree, scratch=scratch, targets=targets
    )
    return {t: now.get(t, MISSING) for t in failing if again.results.get(t) == PASSED}


def _without_flaky(result: SuiteResult, flaky: Mapping[str, Mapping[str, str]]) -> SuiteResult:
    """Return ``result`` with the tests that passed when run again as flaky, not regressions."""
    regressions = {
        mode: {t: s for t, s in found.items() if t not in flaky.get(mode, {})}
        for mode, found in result.regressions.items()
    }
    return replace(result, regressions=regressions, flaky=dict(flaky))


def compare_runs(
    suite: Suite, runs: Mapping[str, SuiteRun], messages: Mapping[str, Mapping[str, str]]
) -> SuiteResult:
    """Compare each policy run of a suite with its baseline, given the suite's known failures.

    A known failure may be one mode's only, so it is stale only where it fails in neither.
    """
    regressions: dict[str, dict[str, str]] = {}
    listed: dict[str, dict[str, str]] = {}
    stale: dict[str, str] = {}
    for mode in POLICIES:
        comparison = compare(runs["baseline"], runs[mode], suite.known)
        regressions[mode] = dict(comparison.regressions)
        listed[mode] = dict(comparison.expected)
        for test_id, why in comparison.stale.items():
            stale.setdefault(test_id, f"{mode}: {why}")
    for test_id in list(stale):
        if any(test_id in listed[mode] for mode in POLICIES):
            del stale[test_id]
    return SuiteResult(
        suite=suite,
        runs=runs,
        messages=messages,
        regressions=regressions,
        listed=listed,
        stale=stale,
    )


def result_table(results: Sequence[SuiteResult]) -> str:
    """Return the summary: per suite, tests run, passes, regressions per mode, minutes."""
    header = ("suite", "tests run", "passed (baseline)", "regr. enforce", "regr. report", "s")
    rows = [header]
    for result in results:
        base = result.runs["baseline"].results
        rows.append(
            (
                result.suite.name,
                str(len(base)),
                str(sum(status == PASSED for status in base.values())),
                _count(result, "enforce"),
                _count(result, "report"),
                str(round(sum(run.seconds for run in result.runs.values()))),
            )
        )
    widths = [max(len(row[i]) for row in rows) for i in range(len(header))]
    return "\n".join(
        "  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True))
        for row in rows
    )


def _count(result: SuiteResult, mode: str) -> str:
    """Return ``N`` regressions of a mode, with ``(+M listed)`` when some are listed."""
    text = str(len(result.regressions[mode]))
    if result.listed[mode]:
        text += f" (+{len(result.listed[mode])} listed)"
    return text


def report(results: Sequence[SuiteResult]) -> bool:
    """Print the table and every difference; return whether the run failed."""
    print(result_table(results))
    failed = False
    for result in results:
        name = result.suite.name
        for mode in POLICIES:
            run = result.runs[mode]
            if run.returncode == HUNG_AT_EXIT:
                print(f"{name} {mode}: pytest hung after its last test (a thread left running)")
            if not run.results:
                print(f"{name} {mode}: NO RESULT (exit {run.returncode}); see {run.log}")
                failed = True
            for test_id in sorted(result.listed[mode]):
                print(f"{name} {mode}: listed {test_id}: {result.listed[mode][test_id]}")
            for test_id in sorted(result.flaky.get(mode, {})):
                print(f"{name} {mode}: FLAKY {test_id} (failed, then passed when run again)")
            for test_id, status in sorted(result.regressions[mode].items()):
                first = result.messages[mode].get(test_id, status)
                print(f"{name} {mode}: REGRESSION {test_id}: {first}")
            failed = failed or bool(result.regressions[mode])
        if not result.runs["baseline"].results:
            print(f"{name} baseline: NO RESULT; see {result.runs['baseline'].log}")
            failed = True
        for test_id, why in sorted(result.stale.items()):
            print(f"{name}: STALE {test_id} is listed as failing but {why}")
            failed = True
    return failed


def main(argv: Sequence[str] | None = None) -> int:
    """Run the chosen suites of the table, print the results; return the exit code."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--table", required=True, help="the suites' TOML table")
    parser.add_argument("--cache", required=True, help="downloads and venvs are kept here")
    parser.add_argument("--wheel", required=True, help="the sslcustomize wheel to test")
    parser.add_argument("--suites", nargs="*", help="run these suites of the table only")
    parser.add_argument("--python", default=sys.executable, help="the interpreter of the venvs")
    parser.add_argument("--keep", help="keep the trees, logs and junit files here")
    parser.add_argument(
        "--fresh-baseline",
        action="store_true",
        help="run the baselines again even where the cache has one for the same venv and files",
    )
    args = parser.parse_args(argv)

    suites = load_table(args.table)
    if args.suites:
        unknown = set(args.suites) - {suite.name for suite in suites}
        if unknown:
            parser.error(f"no such suites: {sorted(unknown)}")
        suites = [suite for suite in suites if suite.name in args.suites]
    wheel = os.path.abspath(args.wheel)
    cache = os.path.abspath(args.cache)
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="peer-suites-") as scratch:
        workdir = os.path.abspath(args.keep or scratch)
        results = []
        for suite in suites:
            result = run_suite(
                suite,
                python=args.python,
                cache=cache,
                wheel=wheel,
                workdir=workdir,
                fresh_baseline=args.fresh_baseline,
            )
            seconds = sum(run.seconds for run in result.runs.values())
            count = len(result.runs["baseline"].results)
            # Flushed: CI's log shows each suite as it ends, not all at the session's end.
            print(f"{suite.name}: {count} tests, {seconds:.0f} s", flush=True)
            results.append(result)
        failed = report(results)
    print(f"total {time.monotonic() - started:.0f} s")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
