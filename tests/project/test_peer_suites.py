"""The table and comparison of tests/peer_suites.py (the nox session ``peers``), not run."""

from __future__ import annotations

import ast
import os
from typing import TYPE_CHECKING

import pytest

import peer_suites as ps
from cpython_suites import FAILED, PASSED, SKIPPED, SuiteRun

if TYPE_CHECKING:
    from pathlib import Path

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TABLE = os.path.join(ROOT, "tests", "peer_suites.toml")


def test_the_repository_table_reads_and_names_each_library() -> None:
    """The committed table loads; every library of the issue has a suite, each with files."""
    suites = ps.load_table(TABLE)
    projects = {suite.project for suite in suites}
    assert {"urllib3", "requests", "httpx", "aiohttp", "truststore"} <= projects
    assert all(suite.files for suite in suites)
    urllib3 = sorted(suite.version for suite in suites if suite.project == "urllib3")
    assert len(urllib3) == 2  # the oldest and the newest 2.x supported
    for suite in suites:
        pinned = [r for r in suite.requirements if "==" not in r]
        assert not pinned, f"{suite.name}: unpinned {pinned}"


def test_known_failures_are_each_in_the_docs() -> None:
    """Every test the table lists as failing under a policy is named in docs/clients.md."""
    with open(os.path.join(ROOT, "docs", "clients.md"), encoding="utf-8") as file:
        clients = file.read()
    for suite in ps.load_table(TABLE):
        for test_id in suite.known:
            assert test_id in clients, f"{suite.name}: {test_id} is not in docs/clients.md"


def _table(tmp_path: Path, text: str) -> str:
    path = tmp_path / "table.toml"
    path.write_text(text)
    return str(path)


def test_table_needs_files_a_reason_and_known_keys(tmp_path: Path) -> None:
    """A suite without files, a listed test without reason or an unknown key is refused."""
    good = '[suite.a]\nproject = "a"\nversion = "1"\nfiles = ["t"]\n'
    (suite,) = ps.load_table(_table(tmp_path, good + '[suite.a.known]\n"m::t" = "why"\n'))
    assert suite.known == {"m::t": "why"}
    assert suite.timeout == 60
    with pytest.raises(ValueError, match="needs files"):
        ps.load_table(_table(tmp_path, '[suite.a]\nproject = "a"\nversion = "1"\n'))
    with pytest.raises(ValueError, match="one-line reason"):
        ps.load_table(_table(tmp_path, good + '[suite.a.known]\n"m::t" = " "\n'))
    with pytest.raises(ValueError, match="unknown keys"):
        ps.load_table(_table(tmp_path, good + "fils = []\n"))
    with pytest.raises(TypeError, match="list of strings"):
        ps.load_table(_table(tmp_path, good + "args = [1]\n"))


def test_junit_ids_statuses_and_first_error_line(tmp_path: Path) -> None:
    """Test ids are class::name; failure and error count as failed, with their first line."""
    junit = tmp_path / "junit.xml"
    junit.write_text(
        '<testsuites><testsuite name="pytest">'
        '<testcase classname="test.test_ssl.T" name="test_ok[a]"/>'
        '<testcase classname="test.test_ssl.T" name="test_bad">'
        '<failure message="AssertionError: no&#10;second line">tb</failure></testcase>'
        '<testcase classname="m" name="test_err"><error message="">E  OSError: x\nmore</error>'
        "</testcase>"
        '<testcase classname="m" name="test_skip"><skipped message="why"/></testcase>'
        '<testcase classname="m" name="test_twice"/>'
        '<testcase classname="m" name="test_twice"><error message="teardown"/></testcase>'
        "</testsuite></testsuites>"
    )
    results, messages = ps.parse_junit(str(junit))
    assert results == {
        "test.test_ssl.T::test_ok[a]": PASSED,
        "test.test_ssl.T::test_bad": FAILED,
        "m::test_err": FAILED,
        "m::test_skip": SKIPPED,
        "m::test_twice": FAILED,
    }
    assert messages["test.test_ssl.T::test_bad"] == "AssertionError: no"
    assert messages["m::test_err"] == "E  OSError: x"
    assert ps.parse_junit(str(tmp_path / "missing.xml")) == ({}, {})


def test_environment_has_no_ca_variables_and_the_modes_policy(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """CA and proxy variables and SSLCUSTOMIZE_* are dropped; HOME is empty; policy per mode."""
    for name in ("SSL_CERT_FILE", "REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE", "https_proxy"):
        monkeypatch.setenv(name, "/x")
    monkeypatch.setenv("SSLCUSTOMIZE_DISABLE", "1")
    baseline = ps.environment("baseline", str(tmp_path))
    assert not {"SSL_CERT_FILE", "REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE", "https_proxy"} & set(
        baseline
    )
    assert not [key for key in baseline if key.startswith("SSLCUSTOMIZE_")]
    assert os.listdir(baseline["HOME"]) == []
    for mode in ("enforce", "report"):
        env = ps.environment(mode, str(tmp_path))
        with open(env["SSLCUSTOMIZE_POLICY"], encoding="utf-8") as file:
            text = file.read()
        assert f'mode = "{mode}"' in text
        assert 'trust = ["system"]' in text


def test_pytest_command_is_serial_and_loopback_only() -> None:
    """Each run blocks non-loopback hosts, writes junit XML and has a per-test timeout."""
    suite = ps.load_table(TABLE)[0]
    command = ps.pytest_command("py", suite, "/j.xml")
    assert "--allow-hosts=127.0.0.1,::1,localhost" in command
    assert "--junitxml=/j.xml" in command
    assert f"--timeout={suite.timeout}" in command
    assert not [arg for arg in command if arg.startswith(("-n", "--numprocesses"))]
    assert command[-len(suite.files) :] == list(suite.files)


def _result(base: dict[str, str], enforce: dict[str, str], known: dict[str, str]) -> ps.SuiteResult:
    suite = ps.Suite(
        name="s",
        project="p",
        version="1",
        requirements=(),
        requirement_files=(),
        remove=(),
        files=("t",),
        args=(),
        timeout=1,
        known=known,
        cannot_run={},
    )
    runs = {
        mode: SuiteRun(mode=mode, results=results, seconds=1.0, returncode=0, log="")
        for mode, results in (("baseline", base), ("enforce", enforce), ("report", base))
    }
    return ps.compare_runs(suite, runs, {mode: {} for mode in runs})


def test_regression_listed_and_stale() -> None:
    """Passed then failed is a regression unless listed; a listed test that passes is stale."""
    base = {"m::a": PASSED, "m::b": PASSED, "m::c": FAILED}
    result = _result(base, {"m::a": FAILED, "m::b": PASSED, "m::c": FAILED}, {})
    assert result.regressions["enforce"] == {"m::a": FAILED}
    assert result.regressions["report"] == {}
    listed = _result(base, {"m::a": FAILED, "m::b": PASSED}, {"m::a": "why", "m::b": "old"})
    assert listed.regressions["enforce"] == {}
    assert listed.listed["enforce"] == {"m::a": "why"}
    assert set(listed.stale) == {"m::b"}  # passes under both policies
    assert "regr. enforce" in ps.result_table([listed])
    missing = _result(base, {"m::b": PASSED}, {})
    assert missing.regressions["enforce"] == {"m::a": "missing"}


def test_paths_in_test_ids_are_named() -> None:
    """A test id holding the tree's or the venv's path is the same id in every run."""
    found = {"m::t[/w/a/src/x.py]": PASSED, "m::t[/v/base/lib/y.py]": FAILED, "m::u": PASSED}
    assert ps.normalized(found, {"/w/a/src": "<src>", "/v/base": "<venv>"}) == {
        "m::t[<src>/x.py]": PASSED,
        "m::t[<venv>/lib/y.py]": FAILED,
        "m::u": PASSED,
    }


def test_a_kept_baseline_reads_back(tmp_path: Path) -> None:
    """A baseline saved in the cache is read back as it was; a missing one is None."""
    path = str(tmp_path / "baselines" / "s.json")
    assert ps._load_baseline(path) is None
    run = SuiteRun(mode="baseline", results={"m::a": PASSED}, seconds=3.0, returncode=0, log="")
    ps._save_baseline(path, run, {"m::b": "E  boom"})
    found = ps._load_baseline(path)
    assert found is not None
    assert found[0].results == {"m::a": PASSED}
    assert found[1] == {"m::b": "E  boom"}


def test_ci_runs_the_peers_session() -> None:
    """The noxfile's default sessions (what .ci/run runs) include peers."""
    with open(os.path.join(ROOT, "noxfile.py"), encoding="utf-8") as file:
        tree = ast.parse(file.read())
    defaults = [
        ast.literal_eval(node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Assign)
        and any(ast.unparse(target) == "nox.options.sessions" for target in node.targets)
    ]
    assert defaults
    assert "peers" in defaults[0]


def test_node_ids_of_junit_ids(tmp_path: Path) -> None:
    """A junit id maps to the file it came from: module, class and parameters kept."""
    (tmp_path / "test" / "with_dummyserver").mkdir(parents=True)
    (tmp_path / "test" / "with_dummyserver" / "test_https.py").write_text("")
    (tmp_path / "test" / "test_ssl.py").write_text("")
    assert (
        ps.node_id(str(tmp_path), "test.with_dummyserver.test_https.TestHTTPS::test_a[h2]")
        == "test/with_dummyserver/test_https.py::TestHTTPS::test_a[h2]"
    )
    assert ps.node_id(str(tmp_path), "test.test_ssl::test_b") == "test/test_ssl.py::test_b"
    assert ps.node_id(str(tmp_path), "test.gone.T::test_c") is None


def test_a_test_that_passes_when_run_again_is_flaky_not_a_regression() -> None:
    """A regression that passed on its rerun is reported as flaky and does not fail the run."""
    base = {"m::a": PASSED, "m::b": PASSED}
    result = _result(base, {"m::a": FAILED, "m::b": FAILED}, {})
    cleared = ps._without_flaky(result, {"enforce": {"m::a": FAILED}})
    assert cleared.regressions["enforce"] == {"m::b": FAILED}
    assert cleared.flaky == {"enforce": {"m::a": FAILED}}
