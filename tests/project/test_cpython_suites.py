"""The comparison of tests/cpython_suites.py (the nox session ``cpython``), without running it."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

import cpython_suites as cs

if TYPE_CHECKING:
    from pathlib import Path

BASE = {"test.test_ssl.A.test_a": cs.PASSED, "test.test_ssl.A.test_b": cs.PASSED}


def _run(mode: str, results: dict[str, str]) -> cs.SuiteRun:
    return cs.SuiteRun(mode=mode, results=results, seconds=0.0, returncode=0, log="")


def test_same_results_are_no_regression() -> None:
    """A policy run where everything that passed still passes has no finding."""
    found = cs.compare(_run("baseline", BASE), _run("enforce", dict(BASE)), {})
    assert (found.regressions, found.expected, found.stale) == ({}, {}, {})


def test_a_failure_or_a_missing_test_is_a_regression() -> None:
    """A test that passed without a policy and failed, or vanished, under one is a regression."""
    other = _run("report", {"test.test_ssl.A.test_a": cs.FAILED})
    found = cs.compare(_run("baseline", BASE), other, {})
    assert found.regressions == {
        "test.test_ssl.A.test_a": cs.FAILED,
        "test.test_ssl.A.test_b": cs.MISSING,
    }


def test_a_listed_failure_is_expected_and_a_listed_pass_is_stale() -> None:
    """A listed test that fails is expected; one that passes makes the list stale."""
    expected = {"test.test_ssl.A.test_a": "reason", "test.test_ssl.A.test_b": "reason"}
    other = _run(
        "enforce", {"test.test_ssl.A.test_a": cs.FAILED, "test.test_ssl.A.test_b": cs.PASSED}
    )
    found = cs.compare(_run("baseline", BASE), other, expected)
    assert found.expected == {"test.test_ssl.A.test_a": "reason"}
    assert found.stale == {"test.test_ssl.A.test_b": cs.PASSED}
    assert found.regressions == {}


def test_a_listed_test_that_does_not_pass_without_policy_is_stale() -> None:
    """Listing a test that does not even pass in the baseline is a stale entry."""
    found = cs.compare(_run("baseline", BASE), _run("enforce", BASE), {"test.test_ssl.B.x": "r"})
    assert found.stale == {"test.test_ssl.B.x": "missing in baseline"}


def test_junit_statuses(tmp_path: Path) -> None:
    """Failures and errors count as failed, skips as skipped, the rest as passed."""
    path = tmp_path / "j.xml"
    path.write_text(
        '<testsuites><testsuite><testcase name="t.a"/><testcase name="t.b"><failure/></testcase>'
        '<testcase name="t.c"><error/></testcase><testcase name="t.d"><skipped/></testcase>'
        "</testsuite></testsuites>",
        encoding="utf-8",
    )
    assert cs.parse_junit(str(path)) == {
        "t.a": cs.PASSED, "t.b": cs.FAILED, "t.c": cs.FAILED, "t.d": cs.SKIPPED,
    }  # fmt: skip
    assert cs.parse_junit(str(tmp_path / "absent.xml")) == {}


def test_expected_file_needs_a_reason_and_a_known_mode(tmp_path: Path) -> None:
    """The list is read per mode; an empty reason or an unknown mode is refused."""
    path = tmp_path / "x.toml"
    path.write_text('[enforce]\n"t.a" = "why"\n', encoding="utf-8")
    assert cs.load_expected(str(path)) == {"enforce": {"t.a": "why"}, "report": {}}
    path.write_text('[enforce]\n"t.a" = " "\n', encoding="utf-8")
    with pytest.raises(ValueError, match="reason"):
        cs.load_expected(str(path))
    path.write_text('[baseline]\n"t.a" = "why"\n', encoding="utf-8")
    with pytest.raises(ValueError, match="baseline"):
        cs.load_expected(str(path))


def test_the_repository_list_reads() -> None:
    """The list kept in the repository parses and gives every entry a reason."""
    from pathlib import Path

    listed = cs.load_expected(str(Path(__file__).parents[1] / "cpython_expected_failures.toml"))
    assert listed["enforce"]
    assert all(reason.strip() for table in listed.values() for reason in table.values())


def test_environment_has_no_user_policy_and_the_modes_policy(tmp_path: Path) -> None:
    """Baseline has no SSLCUSTOMIZE_POLICY; a policy mode names its own file; HOME is empty."""
    base = cs.environment("baseline", str(tmp_path))
    assert "SSLCUSTOMIZE_POLICY" not in base
    assert base["HOME"] == str(tmp_path / "home")
    report = cs.environment("report", str(tmp_path))
    assert 'mode = "report"' in (tmp_path / "report.toml").read_text(encoding="utf-8")
    assert report["SSLCUSTOMIZE_POLICY"] == str(tmp_path / "report.toml")


def test_suite_of_prefers_the_longest_name() -> None:
    """test_asyncio.test_ssl ids belong to that suite, not to a shorter prefix."""
    suites = ["test_ssl", "test_asyncio.test_ssl"]
    assert cs.suite_of("test.test_asyncio.test_ssl.T.x", suites) == "test_asyncio.test_ssl"
    assert cs.suite_of("test.test_ssl.T.x", suites) == "test_ssl"
    assert cs.suite_of("other.T.x", suites) == "?"
