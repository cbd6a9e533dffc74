"""Development tasks: ``nox`` runs the linters and the test suite on every supported CPython.

The whole default run (``nox``) takes about 40 minutes. Quick ones for a change: ``nox -s fast``
(the unit tests from the source tree, no wheel: under a minute once its venv exists),
``nox -s lint``, and one Python on one part of the suite, ``nox -s tests-3.12 --
tests/loopback/test_x.py``.

* ``tests``: Python 3.10-3.13 of this machine (pyenv's are found without ``PYENV_VERSION``).
* ``fast`` (not run by default): ``tests/unit`` on 3.12, without the tests marked ``slow``.
* ``debian``: the suite on CPython 3.14 and 3.15 (Debian sid, OpenSSL 3.6) and 3.13 (Debian 13,
  OpenSSL 3.5), in chroots made by ``.ci/chroot.py``: they need root and ``debootstrap`` on a
  Debian-like host (skipped with the reason elsewhere, unless
  ``SSLCUSTOMIZE_CI_CHROOTS=require``, which ``.ci/run`` sets).
* ``cpython`` and ``debian_cpython``: CPython's own TLS test suites under the hook.
* ``peers``: the hooked libraries' own test suites (urllib3, requests, httpx, aiohttp,
  truststore) under the hook; ``debian_peers`` (not run by default: CI's time) runs urllib3's
  and requests' on Debian's 3.14 and 3.15.
"""

from __future__ import annotations

import os
import re
import shutil
import sys
from pathlib import Path

import nox

nox.options.sessions = ["lint", "tests", "cpython", "peers", "debian", "debian_cpython"]
nox.options.error_on_missing_interpreters = True

PYTHONS = ["3.10", "3.11", "3.12", "3.13"]
# (chroot, interpreter) pairs of .ci/chroot.py: Debian sid's 3.14 and 3.15, Debian 13's 3.13.
DEBIAN = ["sid:python3.14", "sid:python3.15", "trixie:python3.13"]
DEBIAN_CPYTHON = ["sid:python3.14", "sid:python3.15"]
CHROOT_SCRIPT = ".ci/chroot.py"


def _use_pyenv_interpreters(versions: list[str]) -> None:
    """Put pyenv's ``pythonX.Y`` on PATH where only its shim (or nothing) would be found.

    A pyenv shim runs only the versions ``pyenv`` has selected, so nox would find
    ``python3.10`` and fail to run it; the newest installed ``X.Y.Z`` is used instead.
    """
    root = Path(os.environ.get("PYENV_ROOT") or Path.home() / ".pyenv")
    for version in versions:
        found = shutil.which(f"python{version}")
        if found is not None and Path(found).parent != root / "shims":
            continue
        pattern = re.compile(rf"{re.escape(version)}\.(\d+)")
        installed = [
            (int(match.group(1)), path / "bin")
            for path in (root / "versions").glob(f"{version}.*")
            if (match := pattern.fullmatch(path.name)) and (path / f"bin/python{version}").exists()
        ]
        if installed:
            os.environ["PATH"] = f"{max(installed)[1]}{os.pathsep}{os.environ['PATH']}"


_use_pyenv_interpreters([*PYTHONS, "3.12"])


@nox.session(python=PYTHONS)
def tests(session: nox.Session) -> None:
    """Run the test suite on a wheel install (slow; quick: ``fast``, or ``tests-3.12 -- FILE``).

    A wheel install, because the .pth startup hook needs one. Arguments after ``--`` go to
    pytest.
    """
    session.install(".[test]", "./lint")
    # Wheels for tests/loopback/test_coexist.py's pip-system-certs venv (the tests stay on
    # loopback).
    wheelhouse = str(session.cache_dir / "wheelhouse")
    wheels = ("pip-system-certs==5.3", "truststore==0.10.5", "pip==25.3")
    session.run("python", "-m", "pip", "download", "-q", "--no-deps", "-d", wheelhouse, *wheels)
    session.env["SSLCUSTOMIZE_TEST_WHEELHOUSE"] = wheelhouse
    session.run("coverage", "erase")
    session.run("coverage", "run", "-m", "pytest", *session.posargs)
    session.run("coverage", "combine", "--quiet", success_codes=[0, 1])
    session.run("coverage", "report", "--format=total", silent=False)


@nox.session(python="3.12", reuse_venv=True)
def fast(session: nox.Session) -> None:
    """Run the unit tests on 3.12 from the source tree (quick: the edit-test loop, no wheel).

    No wheel is built: ``src`` goes on ``PYTHONPATH``, which the unit tests need no more of
    (they start no interpreter through the ``.pth`` hook: that is tests/loopback's). The venv
    is kept between runs and holds only the dependencies. Tests marked ``slow`` are left out.
    Arguments after ``--`` replace ``tests/unit`` (``nox -s fast -- tests/unit/trust``).
    """
    project = nox.project.load_toml("pyproject.toml")["project"]
    session.install(*project["dependencies"], *project["optional-dependencies"]["test"])
    session.env["PYTHONPATH"] = str(Path("src").resolve())
    arguments = session.posargs or ["tests/unit"]
    session.run(
        "python", "-m", "pytest", "-q", "-p", "no:cacheprovider", "-m", "not slow", *arguments
    )


@nox.session(python="3.12")
def lint(session: nox.Session) -> None:
    """Check style, lint, types and the layers' imports (quick: ruff, mypy, lint-imports)."""
    session.install(".[test]", "./lint", "ruff", "mypy", "import-linter")
    session.run("ruff", "check", ".")
    session.run("ruff", "format", "--check", ".")
    session.run("mypy")
    # .importlinter: each layer imports only those below it, function-level imports included.
    session.run("lint-imports", "--no-cache")


@nox.session(python="3.12")
def bench(session: nox.Session) -> None:
    """Run the benchmarks; they print ratios measured in one run."""
    session.install(".[test]", "./lint", "requests", "httpx")
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
CPYTHON_ARGUMENTS = [
    "tests/cpython_suites.py",
    "--expected",
    "tests/cpython_expected_failures.toml",
    "--suites",
    *CPYTHON_SUITES,
]


@nox.session(python="3.12")
def cpython(session: nox.Session) -> None:
    """Run CPython's TLS test suites with no policy, enforce and report (slow; one: see below).

    Every test that passes with no policy must pass under both, except those listed with a
    reason in tests/cpython_expected_failures.toml. Arguments after ``--`` go to the script
    (``-- --suites test_ssl`` runs one suite).
    """
    session.install(".")
    session.run("python", *CPYTHON_ARGUMENTS, *session.posargs)


PEERS_ARGUMENTS = ["tests/peer_suites.py", "--table", "tests/peer_suites.toml"]


@nox.session(python="3.12")
def peers(session: nox.Session) -> None:
    """Run the hooked libraries' test suites without sslcustomize and under two policies.

    Every test that passes without sslcustomize must pass under both policies, except those
    listed with a reason in tests/peer_suites.toml (and docs/clients.md). The sdists and the
    suites' venvs are kept in nox's cache; arguments after ``--`` go to the script
    (``-- --suites requests`` runs one suite, ``--keep DIR`` keeps logs and junit files).
    """
    cache = session.cache_dir / "peers"
    wheels = cache / "wheel"
    shutil.rmtree(wheels, ignore_errors=True)
    session.run("python", "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(wheels), ".")
    (wheel,) = wheels.glob("sslcustomize-*.whl")
    session.run(
        "python", *PEERS_ARGUMENTS, "--cache", str(cache), "--wheel", str(wheel), *session.posargs
    )


def _id(target: str) -> str:
    """Return a session id for a target: ``sid:python3.14`` -> ``sid-3.14``."""
    return target.replace(":python", "-")


def _chroot_problem() -> str | None:
    """Return why the Debian chroots cannot be used here (``None`` if they can)."""
    if sys.platform != "linux" or os.geteuid() != 0:
        return "needs root on Linux (debootstrap, chroot, unshare)"
    if shutil.which("debootstrap") is None and shutil.which("apt-get") is None:
        return "needs debootstrap, or apt-get to install it"
    return None


def _in_chroot(session: nox.Session, target: str, command: list[str]) -> None:
    """Build the chroot of ``target`` if needed, then run ``command`` in a new venv there."""
    problem = _chroot_problem()
    if problem is not None:
        if os.environ.get("SSLCUSTOMIZE_CI_CHROOTS") == "require":
            session.error(f"Debian chroots are required here but {problem}")
        session.skip(f"Debian chroots: {problem}")
    chroot, python = target.split(":")
    script = [sys.executable, CHROOT_SCRIPT]
    session.run(*script, "build", chroot, external=True)
    run = [*script, "run", chroot, "--python", python, "--fresh", "--", *command]
    session.run(*run, external=True)


@nox.session(python=False)
@nox.parametrize("target", DEBIAN, ids=[_id(target) for target in DEBIAN])
def debian(session: nox.Session, target: str) -> None:
    """Run the suite on Debian's CPython 3.13-3.15 in a chroot (slow; root and debootstrap).

    3.14 and 3.15 of Debian sid (OpenSSL 3.6), 3.13 of Debian 13 (OpenSSL 3.5): the chroot is
    built with debootstrap at the first run (about two minutes), as root.
    """
    _in_chroot(session, target, ["python", "-m", "pytest", *session.posargs])


@nox.session(python=False)
@nox.parametrize("target", DEBIAN_CPYTHON, ids=[_id(t) for t in DEBIAN_CPYTHON])
def debian_cpython(session: nox.Session, target: str) -> None:
    """Run CPython's TLS suites under the hook on Debian's 3.14 and 3.15 (root, debootstrap)."""
    _in_chroot(session, target, ["python", *CPYTHON_ARGUMENTS, *session.posargs])


# urllib3 and requests: the suites issue 31 asks for on 3.14/3.15. About 10 minutes per Python
# on 2 shared cores, venvs made: over CI's budget, so not among the default sessions.
DEBIAN_PEERS = ["urllib3-2_8", "requests"]


@nox.session(python=False)
@nox.parametrize("target", DEBIAN_CPYTHON, ids=[_id(t) for t in DEBIAN_CPYTHON])
def debian_peers(session: nox.Session, target: str) -> None:
    """Run urllib3's and requests' own suites under the hook on Debian's CPython 3.14 and 3.15."""
    cache = Path(".nox/.cache") / f"peers-{_id(target)}"
    wheels = cache / "wheel"
    shutil.rmtree(wheels, ignore_errors=True)
    pip_wheel = [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps"]
    session.run(*pip_wheel, "-w", str(wheels), ".", external=True)
    (wheel,) = wheels.glob("sslcustomize-*.whl")
    command = [*PEERS_ARGUMENTS, "--cache", str(cache), "--wheel", str(wheel)]
    _in_chroot(session, target, ["python", *command, "--suites", *DEBIAN_PEERS, *session.posargs])
