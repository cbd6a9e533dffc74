"""Nothing from the caller's directory or environment runs in what sslcustomize starts.

Another local user (uid 4242) plants modules in a shared directory; root runs ``doctor`` and
``enable --scope system`` from there (the latter in a private mount namespace with throw-away
overlays, see _namespace.py). The planted code must never run, and the commands must still
find and report every interpreter. The startup hook, too, imports the package installed beside
it, not one planted in the current directory. Issue 22 #1.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import _pki
import _servers
from _namespace import namespace_problem, run_in_overlays
from sslcustomize._reach._discovery import Interpreter, discover, probe

pytestmark = pytest.mark.slow

CLI = str(Path(sys.executable).with_name("sslcustomize"))
ATTACKER = 4242
# Names the probe, site, compileall and the startup hook import, or could.
PLANTED = ("json", "sysconfig", "site", "os", "compileall", "_sslcustomize_startup", "tomli")


def _plant(directory: Path, marker: Path) -> Path:
    """Fill ``directory`` with modules (and a package) that record that they ran; uid 4242's."""
    directory.mkdir(parents=True, exist_ok=True)
    code = f"open({str(marker)!r}, 'a').write(__name__ + '\\n')\n"
    for name in PLANTED:
        (directory / f"{name}.py").write_text(code)
    (directory / "sslcustomize").mkdir(exist_ok=True)
    (directory / "sslcustomize" / "__init__.py").write_text(code)
    for path in [directory, *directory.rglob("*")]:
        os.chown(path, ATTACKER, ATTACKER)
    directory.chmod(0o777)
    return directory


def _ran(marker: Path) -> list[str]:
    return marker.read_text().split() if marker.exists() else []


def _eligible(interpreters: list[Interpreter]) -> list[Interpreter]:
    return [i for i in interpreters if i.eligible]


@pytest.fixture
def planted(tmp_path: Path) -> tuple[Path, Path]:
    """A directory of planted modules and the marker file they write when they run."""
    if os.geteuid() != 0:
        pytest.skip("needs root to plant files as another user")
    marker = tmp_path / "ran"
    return _plant(tmp_path / "shared", marker), marker


def test_probe_ignores_the_current_directory_and_python_variables(
    planted: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """probe() runs no module from the cwd, PYTHONPATH or PYTHONSTARTUP; it still sees the facts."""
    directory, marker = planted
    monkeypatch.chdir(directory)
    monkeypatch.setenv("PYTHONPATH", str(directory))
    monkeypatch.setenv("PYTHONSTARTUP", str(directory / "json.py"))
    monkeypatch.delenv("PYTHONSAFEPATH", raising=False)
    found = probe(sys.executable)
    assert _ran(marker) == []
    assert found.version == tuple(sys.version_info[:3])
    assert os.path.realpath(found.stdlib) == os.path.realpath(os.path.dirname(os.__file__))
    assert found.startup.endswith("_sslcustomize_startup.py")


def test_probe_skips_another_users_site_directory(tmp_path: Path) -> None:
    """With HOME another user's, their user site .pth does not run; one's own user site does."""
    if os.geteuid() != 0:
        pytest.skip("needs root to own files as another user")
    marker = tmp_path / "ran"
    home = tmp_path / "home"
    version = f"python{sys.version_info[0]}.{sys.version_info[1]}"
    site = home / ".local" / "lib" / version / "site-packages"
    site.mkdir(parents=True)
    (site / "planted.pth").write_text(f"import os; open({str(marker)!r}, 'a').write('pth\\n')\n")
    base = os.path.realpath(os.path.join(sys.base_prefix, "bin", version))
    env = {**os.environ, "HOME": str(home)}
    code = (
        "from sslcustomize._reach._discovery import probe; import sys; "
        "print(probe(sys.argv[1]).path)"
    )
    for path in [home, *home.rglob("*")]:
        os.chown(path, ATTACKER, ATTACKER)
    theirs = subprocess.run(
        [sys.executable, "-c", code, base], env=env, capture_output=True, text=True, check=True
    )
    assert _ran(marker) == [], theirs.stderr
    for path in [home, *home.rglob("*")]:
        os.chown(path, 0, 0)
    subprocess.run([sys.executable, "-c", code, base], env=env, check=True, capture_output=True)
    assert _ran(marker) == ["pth"]


def test_doctor_from_a_planted_directory_runs_none_of_it(planted: tuple[Path, Path]) -> None:
    """sudo sslcustomize doctor in another user's directory: nothing planted runs, all is found."""
    directory, marker = planted
    env = {k: v for k, v in os.environ.items() if k != "PYTHONSAFEPATH"}
    result = subprocess.run(
        [CLI, "doctor", "--json"],
        cwd=directory,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert _ran(marker) == [], result.stderr
    rows = json.loads(result.stdout)["interpreters"]
    expected = {os.path.realpath(i.stdlib) for i in _eligible(discover())}
    reported = {os.path.realpath(r["stdlib"]) for r in rows if r["version"]}
    assert expected
    assert expected <= reported


def test_enable_and_disable_system_from_a_planted_directory_run_none_of_it(
    planted: tuple[Path, Path], tmp_path: Path
) -> None:
    """enable/doctor/disable --scope system as root from uid 4242's directory: none of it runs."""
    problem = namespace_problem()
    if problem:
        pytest.skip(problem)
    directory, marker = planted
    stdlibs = sorted({os.path.realpath(i.stdlib) for i in _eligible(discover())})
    trees = ["/etc", "/usr/local/lib", *stdlibs]
    script = (
        f"cd {directory} && {CLI} enable --scope system >{tmp_path}/enable.out 2>&1 && "
        f"ls /usr/local/lib/sslcustomize/policy-cache >{tmp_path}/cache.list && "
        f"{CLI} doctor --json >{tmp_path}/doctor.json && "
        f"{CLI} disable --scope system >{tmp_path}/disable.out 2>&1"
    )
    env_unset = "unset PYTHONSAFEPATH; "
    result = run_in_overlays(trees, tmp_path / "overlays", [env_unset + script])
    assert result.returncode == 0, result.stdout + result.stderr
    assert _ran(marker) == []
    rows = json.loads((tmp_path / "doctor.json").read_text())["interpreters"]
    hooked = {os.path.realpath(r["stdlib"]) for r in rows if r["by"] == "system hook"}
    assert set(stdlibs) - {os.path.realpath(os.path.dirname(os.__file__))} <= hooked
    # enable parsed the system policy as root: users' processes find it in root's cache.
    assert len((tmp_path / "cache.list").read_text().split()) == 1


def test_startup_hook_imports_the_package_beside_it(
    planted: tuple[Path, Path], tmp_path: Path
) -> None:
    """A fresh interpreter under a policy in a planted cwd uses the real package: its CA works."""
    directory, marker = planted
    pki = _pki.TestPKI()
    ca = tmp_path / "ca.pem"
    ca.write_bytes(pki.root_pem)
    policy = tmp_path / "policy.toml"
    policy.write_text(f'version = 1\ntrust = ["system", "{ca}"]\n')
    code = textwrap.dedent(
        r"""
        import ssl, sys, urllib.request
        out = []
        for port in sys.argv[1:]:
            try:
                urllib.request.urlopen(f"https://localhost:{port}/", timeout=20).read()
                out.append("accepted")
            except Exception as exc:
                cause = getattr(exc, "reason", exc)
                refused = isinstance(cause, ssl.SSLCertVerificationError)
                out.append("rejected" if refused else repr(exc))
        out.append(sys.modules["sslcustomize"].__file__)
        print("\n".join(out))
        """
    )
    env = {**os.environ, "SSLCUSTOMIZE_POLICY": str(policy)}
    env.pop("PYTHONSAFEPATH", None)
    with _servers.serve_https(pki["good"]) as good, _servers.serve_https(pki["self_signed"]) as bad:
        result = subprocess.run(
            [sys.executable, "-c", code, str(good.port), str(bad.port)],
            cwd=directory,
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
    assert result.returncode == 0, result.stderr
    good_verdict, bad_verdict, package = result.stdout.strip().split("\n")
    assert (good_verdict, bad_verdict) == ("accepted", "rejected")
    assert not package.startswith(str(directory))
    assert _ran(marker) == []


def test_every_subprocess_of_the_package_is_audited() -> None:
    """Only discovery, `run`'s user command and report's journalctl start processes (docs)."""
    source = Path(__file__).parents[2] / "src" / "sslcustomize"
    starters = ("subprocess.run(", "subprocess.call(", "subprocess.Popen(", "os.exec", "os.spawn")
    found = sorted(
        str(path.relative_to(source))
        for path in source.rglob("*.py")
        if "_lint" not in path.parts  # the linter names these calls in its tables, never calls them
        and any(starter in path.read_text() for starter in starters)
    )
    assert found == ["_cli/_report.py", "_cli/_run.py", "_reach/_discovery.py"]


# --- Free-threaded builds are found (issue 21 #7) ------------------------------------------------

_FREE_THREADED = """#!/bin/sh
# Stands for a free-threaded CPython (none is packaged here): answers the probe as one would.
echo '{"implementation": "cpython", "version": [3, 14, 2], "executable": "'"$0"'",
 "prefix": "/opt/ft", "base_prefix": "/opt/ft", "stdlib": "/opt/ft/lib/python3.14t",
 "purelib": "/opt/ft/lib/python3.14t/site-packages", "user_site": "", "startup": "",
 "sitecustomize": "", "free_threaded": true}' | tr -d '\\n'
echo
"""


def test_doctor_finds_free_threaded_interpreters(tmp_path: Path) -> None:
    """python3.14t on PATH is probed and listed as free-threaded; look-alike names are not."""
    bin_directory = tmp_path / "bin"
    bin_directory.mkdir()
    for name in ("python3.14t", "python3.14td", "python3.14t-config", "python3.14-config"):
        (bin_directory / name).write_text(_FREE_THREADED)
        (bin_directory / name).chmod(0o755)
    env = {**os.environ, "PATH": f"{bin_directory}{os.pathsep}{os.environ['PATH']}"}
    result = subprocess.run(
        [CLI, "doctor", "--json"], env=env, capture_output=True, text=True, timeout=300, check=False
    )
    rows = json.loads(result.stdout)["interpreters"]
    found = [r for r in rows if r["path"].startswith(str(bin_directory))]
    assert [(Path(r["path"]).name, r["version"], r["free_threaded"]) for r in found] == [
        ("python3.14t", "3.14.2", True)
    ]
    assert found[0]["covered"] is False
    assert not any(r["free_threaded"] for r in rows if r not in found)  # the lab's builds
