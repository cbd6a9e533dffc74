"""Development tasks: ``nox`` runs the test suite on Python 3.10-3.13 and the linters."""

from __future__ import annotations

import nox

nox.options.sessions = ["lint", "tests", "cpython"]
nox.options.error_on_missing_interpreters = True

PYTHONS = ["3.10", "3.11", "3.12", "3.13"]


@nox.session(python=PYTHONS)
def tests(session: nox.Session) -> None:
    """Run the test suite against a wheel install (the .pth startup hook needs one)."""
    session.install(".[test]")
    # Wheels for tests/test_coexist.py's pip-system-certs venv (the tests stay on loopback).
    wheelhouse = str(session.cache_dir / "wheelhouse")
    wheels = ("pip-system-certs==5.3", "truststore==0.10.5", "pip==25.3")
    session.run("python", "-m", "pip", "download", "-q", "--no-deps", "-d", wheelhouse, *wheels)
    session.env["SSLCUSTOMIZE_TEST_WHEELHOUSE"] = wheelhouse
    session.run("coverage", "erase")
    session.run("coverage", "run", "-m", "pytest", *session.posargs)
    session.run("coverage", "combine", "--quiet", success_codes=[0, 1])
    session.run("coverage", "report", "--format=total", silent=False)


@nox.session(python="3.12")
def lint(session: nox.Session) -> None:
    """Check style, lint and types (ruff, mypy strict)."""
    session.install(".[test]", "ruff", "mypy")
    session.run("ruff", "check", ".")
    session.run("ruff", "format", "--check", ".")
    session.run("mypy")


@nox.session(python="3.12")
def bench(session: nox.Session) -> None:
    """Run the benchmarks; they print ratios measured in one run."""
    session.install(".[test]", "requests", "httpx")
    session.run("python", "bench/run.py", *session.posargs)


CPYTHON_SUITES = [
    "test_ssl",
    "test_httplib",
    "test_urllib2_localnet",
    "test_xmlrpc",
    "test_smtplib",
    "test_asyncio.test_ssl",
    "test_asyncio.test_sslproto",
    "test_urllib2",
]


@nox.session(python="3.12")
def cpython(session: nox.Session) -> None:
    """Run CPython's own TLS test suites with no policy, an enforce and a report policy.

    Every test that passes with no policy must pass under both, except those listed with a
    reason in tests/cpython_expected_failures.toml. Arguments after ``--`` go to the script
    (``-- --suites test_ssl`` runs one suite).
    """
    session.install(".")
    session.run(
        "python",
        "tests/cpython_suites.py",
        "--expected",
        "tests/cpython_expected_failures.toml",
        "--suites",
        *CPYTHON_SUITES,
        *session.posargs,
    )
