#!/usr/bin/env python3
"""Debian chroots with the Pythons and OpenSSLs users run: build them, run commands inside.

The host's own Pythons (pyenv 3.10-3.13, OpenSSL 3.0) are not the ones users have. Debian sid
packages CPython 3.14 and 3.15 linked to OpenSSL 3.6, Debian 13 (trixie) CPython 3.13 with
OpenSSL 3.5; they need a newer glibc than the host, so they run in chroots made by
``debootstrap`` from the Debian mirror the host's apt already uses.

* ``build [NAME ...]`` makes each chroot under ``--cache`` (default
  ``/var/cache/sslcustomize-ci``) unless it is there and was built from the same recipe (the
  recipe's hash is stored beside it); a changed recipe rebuilds it.
* ``run NAME --python python3.14 [--worktree DIR] [-- COMMAND ...]`` runs COMMAND in DIR (the
  repository this script is in by default), bind-mounted at the same path inside the chroot,
  with a venv for that worktree and Python (kept in the chroot, reused) holding ``DIR[test]``,
  its ``bin`` first on PATH. The package is reinstalled from DIR on every run.

Every command runs in a private mount namespace (``unshare -m``) where /proc, /dev, /sys, a
fresh tmpfs on /tmp and the worktree are mounted: nothing is mounted on the host, and the
namespace's mounts vanish with its last process. Needs root. Standard library only.
"""

# ruff: noqa: S603, S607 - every command here is this script's own, run as root by design
from __future__ import annotations

import argparse
import hashlib
import os
import re
import shlex
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = [
    "RECIPES",
    "build",
    "host_mirror",
    "main",
    "namespace_script",
    "requirements_without",
    "run",
]

REPO = Path(__file__).resolve().parent.parent
CACHE = Path(os.environ.get("SSLCUSTOMIZE_CI_CACHE", "/var/cache/sslcustomize-ci"))
DEFAULT_MIRROR = "http://deb.debian.org/debian"
# The host's CA bundle, copied in: pip inside reaches the package index the way the host's does.
HOST_CA = "/etc/ssl/certs/ca-certificates.crt"
CHROOT_CA = "/etc/ssl/sslcustomize-ci-host-ca.crt"
# Local package sources the host's pip may be configured with, bound read-only when present.
PIP_LOCAL_SOURCES = ("/opt/wheels", "/opt/pypi", "/opt/pypi-more")
# util-linux has unshare and setpriv (tests/_namespace.py, tests run as another user).
COMMON_PACKAGES = ("openssl", "ca-certificates", "build-essential", "util-linux", "mount")
APT_CONF = (
    # sid's Release file on a snapshot mirror is past its Valid-Until date.
    'Acquire::Check-Valid-Until "false";\nAPT::Install-Recommends "false";\n'
)


@dataclass(frozen=True)
class Recipe:
    """One chroot: a Debian suite and the packages installed into it."""

    suite: str
    packages: tuple[str, ...]
    pythons: tuple[str, ...]

    def digest(self, mirror: str) -> str:
        """Return a hash of everything the chroot is built from."""
        text = repr((self.suite, self.packages, mirror, APT_CONF, COMMON_PACKAGES))
        return hashlib.sha256(text.encode()).hexdigest()[:16]


RECIPES = {
    # CPython 3.14 and 3.15 with OpenSSL 3.6, and their test suites (CPython's TLS tests);
    # python3 (3.14) for /usr/bin/python3, which tests/loopback/test_startup_switches.py runs.
    "sid": Recipe(
        suite="sid",
        packages=(
            *("python3.14", "python3.14-venv", "python3.14-dev", "libpython3.14-testsuite"),
            *("python3.15", "python3.15-venv", "python3.15-dev", "libpython3.15-testsuite"),
            "python3",
        ),
        pythons=("python3.14", "python3.15"),
    ),
    # Debian 13: CPython 3.13 with OpenSSL 3.5.
    "trixie": Recipe(
        suite="trixie",
        packages=("python3", "python3-venv", "python3-dev"),
        pythons=("python3.13",),
    ),
}


def host_mirror(apt: Path = Path("/etc/apt")) -> str:
    """Return the Debian mirror the host's apt is configured with (deb.debian.org if none)."""
    texts = []
    for path in [apt / "sources.list", *sorted((apt / "sources.list.d").glob("*"))]:
        if path.suffix in {".list", ".sources"} or path.name == "sources.list":
            try:
                texts.append(path.read_text())
            except OSError:
                continue
    for text in texts:
        for url in re.findall(r"(?:^URIs:|^deb)\s+(?:\[[^]]*\]\s+)?(\S+)", text, re.M):
            if str(url).rstrip("/").endswith("/debian"):
                return str(url).rstrip("/")
    return DEFAULT_MIRROR


def _root(name: str) -> Path:
    return CACHE / name


def _stamp(name: str) -> Path:
    return CACHE / f"{name}.recipe"


def is_current(name: str, mirror: str) -> bool:
    """Tell whether the chroot exists and was built from today's recipe."""
    stamp = _stamp(name)
    return stamp.is_file() and stamp.read_text().strip() == RECIPES[name].digest(mirror)


def namespace_script(root: Path, binds: list[tuple[str, bool]], command: list[str]) -> str:
    """Return shell text that mounts what a chroot needs, then runs ``command`` inside it."""
    quoted = shlex.quote(str(root))
    lines = [
        "set -e",
        # The root a mount point of its own: `unshare -m` inside (tests/_namespace.py) can
        # then make "/" private, which fails (EINVAL) on a plain directory.
        f"mount --bind {quoted} {quoted}",
        f"mount -t proc proc {quoted}/proc",
        f"mount --rbind /dev {quoted}/dev",
        f"mount --rbind /sys {quoted}/sys",
        f"mount -t tmpfs -o mode=1777 tmpfs {quoted}/tmp",  # noqa: S108 - the chroot's own /tmp
    ]
    for path, read_only in binds:
        target = shlex.quote(f"{root}{path}")
        lines.append(f"mkdir -p {target} && mount --bind {shlex.quote(path)} {target}")
        if read_only:
            lines.append(f"mount -o remount,bind,ro {target}")
    lines.append(f"exec chroot {quoted} {shlex.join(command)}")
    return "\n".join(lines)


def in_chroot(
    root: Path,
    command: list[str],
    *,
    env: dict[str, str],
    binds: list[tuple[str, bool]] | None = None,
    check: bool = True,
    quiet: bool = False,
) -> int:
    """Run ``command`` inside the chroot at ``root`` in a private mount namespace."""
    script = namespace_script(root, binds or [], ["/usr/bin/env", "-i", *_env_args(env), *command])
    unshare = ["unshare", "--mount", "--propagation", "private", "/bin/sh", "-c", script]
    output = subprocess.DEVNULL if quiet else None
    code = subprocess.run(unshare, stdout=output, check=False).returncode
    if check and code != 0:
        raise SystemExit(f"chroot command failed ({code}): {shlex.join(command)}")
    return code


def _env_args(env: dict[str, str]) -> list[str]:
    return [f"{key}={value}" for key, value in env.items()]


def base_env() -> dict[str, str]:
    """Return the environment of every chroot command: nothing of the host's but pip's."""
    env = {
        "HOME": "/root",
        "PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
        "LANG": "C.UTF-8",
        "TERM": os.environ.get("TERM", "dumb"),
        "DEBIAN_FRONTEND": "noninteractive",
        "PIP_DISABLE_PIP_VERSION_CHECK": "1",
    }
    # The host's pip settings (find-links, extra index, timeout) apply inside too, and the
    # host's CA bundle where it has one (a machine behind a TLS-intercepting proxy needs it).
    env.update({key: value for key, value in os.environ.items() if key.startswith("PIP_")})
    env.pop("PIP_CERT", None)
    if os.path.exists(HOST_CA):
        env["PIP_CERT"] = CHROOT_CA
    return env


def pip_binds() -> list[tuple[str, bool]]:
    """Return the host's local package sources that exist, to bind read-only."""
    return [(path, True) for path in PIP_LOCAL_SOURCES if os.path.isdir(path)]


def _copy_host_files(root: Path) -> None:
    """Give the chroot the host's name resolution, CA bundle and pip configuration."""
    shutil.copyfile("/etc/resolv.conf", root / "etc/resolv.conf", follow_symlinks=True)
    # The host's own names: the loopback tests resolve "localhost" as the host does (on this
    # machine 127.0.0.1 alone; a chroot that listed ::1 first sent clients where no test
    # server listens).
    shutil.copyfile("/etc/hosts", root / "etc/hosts", follow_symlinks=True)
    if os.path.exists(HOST_CA):
        Path(f"{root}{CHROOT_CA}").parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(HOST_CA, f"{root}{CHROOT_CA}")
    for conf in ("/etc/pip.conf", "/etc/xdg/pip"):
        if os.path.isfile(conf):
            shutil.copyfile(conf, f"{root}{conf}")
        elif os.path.isdir(conf):
            shutil.copytree(conf, f"{root}{conf}", dirs_exist_ok=True)


def build(name: str, *, force: bool = False) -> Path:
    """Build the chroot ``name`` unless it is current; return its root."""
    recipe, mirror, root = RECIPES[name], host_mirror(), _root(name)
    if is_current(name, mirror) and not force:
        _copy_host_files(root)
        return root
    if shutil.which("debootstrap") is None:
        subprocess.run(["apt-get", "update", "-qq"], check=True)
        subprocess.run(["apt-get", "install", "-y", "-qq", "debootstrap"], check=True)
    CACHE.mkdir(parents=True, exist_ok=True)
    staging = CACHE / f"{name}.new"
    for path in (staging, CACHE / f"{name}.old", _stamp(name)):
        if path.is_dir():
            shutil.rmtree(path)
        elif path.exists():
            path.unlink()
    print(f"chroot {name}: debootstrap {recipe.suite} from {mirror}", flush=True)
    subprocess.run(
        ["debootstrap", "--variant=minbase", recipe.suite, str(staging), mirror],
        check=True,
        stdout=subprocess.DEVNULL,
    )
    (staging / "etc/apt/apt.conf.d/99sslcustomize-ci").write_text(APT_CONF)
    _copy_host_files(staging)
    env = base_env()
    in_chroot(staging, ["apt-get", "update", "-qq"], env=env)
    packages = [*COMMON_PACKAGES, *recipe.packages]
    print(f"chroot {name}: apt-get install {' '.join(packages)}", flush=True)
    in_chroot(staging, ["apt-get", "install", "-y", "-qq", *packages], env=env, quiet=True)
    in_chroot(staging, ["apt-get", "clean"], env=env)
    if root.exists():
        # Moved aside, not deleted: commands still running in the old chroot keep their files
        # (the next build deletes it).
        root.rename(CACHE / f"{name}.old")
    staging.rename(root)
    _stamp(name).write_text(recipe.digest(mirror) + "\n")
    return root


def venv_path(worktree: Path, python: str) -> str:
    """Return the chroot path of the venv for ``worktree`` and ``python``."""
    key = hashlib.sha256(str(worktree).encode()).hexdigest()[:8]
    return f"/opt/venvs/{worktree.name}-{key}-{python}"


def _load_toml(path: Path) -> dict[str, Any]:
    """Read a TOML file (Python 3.11+)."""
    if sys.version_info >= (3, 11):
        import tomllib  # noqa: PLC0415 - only --without needs it (the host may run 3.10)

        return tomllib.loads(path.read_text())
    raise SystemExit("--without reads pyproject.toml with tomllib: run me with Python 3.11+")


def requirements_without(worktree: Path, names: tuple[str, ...]) -> list[str]:
    """Return the requirements of ``.[test]`` in ``worktree`` but those named ``names``."""
    project = _load_toml(worktree / "pyproject.toml")["project"]
    every = [*project["dependencies"], *project["optional-dependencies"]["test"]]
    skip = {name.lower().replace("_", "-") for name in names}
    return [
        requirement
        for requirement in every
        if re.split(r"[^A-Za-z0-9._-]", requirement, maxsplit=1)[0].lower().replace("_", "-")
        not in skip
    ]


def run(
    name: str,
    python: str,
    worktree: Path,
    command: list[str],
    *,
    fresh: bool = False,
    install: tuple[str, ...] = (),
    without: tuple[str, ...] = (),
) -> int:
    """Run ``command`` in ``worktree`` inside chroot ``name``, in that worktree's venv."""
    root, mirror = _root(name), host_mirror()
    if not root.is_dir():
        build(name)
    elif not is_current(name, mirror):
        # Others may be running in it: a rebuild is `build`'s job, never a side effect of `run`.
        print(f"chroot {name}: built from an older recipe; `build {name}` renews it", flush=True)
    _copy_host_files(root)
    worktree = worktree.resolve()
    venv = venv_path(worktree, python)
    env, binds = base_env(), [*pip_binds(), (str(worktree), False)]
    if fresh and (root / venv.lstrip("/")).exists():
        shutil.rmtree(root / venv.lstrip("/"))
    pip = f"{venv}/bin/python -m pip install -q"
    steps = [f"cd {shlex.quote(str(worktree))}"]
    if not (root / venv.lstrip("/") / "pyvenv.cfg").exists():  # bin/python links outside
        steps.append(f"{python} -m venv {venv}")
        if without:
            requirements = shlex.join(requirements_without(worktree, without))
            steps.append(f"{pip} {requirements}")
        else:
            steps.append(f"{pip} '.[test]'")
    # The linter is a second distribution built from lint/ (docs/lint.md); its tests import it.
    packages = ". ./lint" if (worktree / "lint" / "pyproject.toml").exists() else "."
    steps.append(f"{pip} --no-deps --force-reinstall {packages}")
    if install:
        steps.append(f"{pip} {shlex.join(install)}")
    steps.append(f"exec {shlex.join(command)}")
    env["PATH"] = f"{venv}/bin:{env['PATH']}"
    env["VIRTUAL_ENV"] = venv
    # The host's pytest/nox variables (e.g. a posargs environment) must not leak; none are copied.
    return in_chroot(root, ["/bin/sh", "-c", " && ".join(steps)], env=env, binds=binds, check=False)


def main(argv: list[str] | None = None) -> int:
    """Parse the command line and build or run."""
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    commands = parser.add_subparsers(dest="action", required=True)
    build_parser = commands.add_parser("build", help="build the chroots that are missing or stale")
    build_parser.add_argument("names", nargs="*", metavar="NAME", help=", ".join(RECIPES))
    build_parser.add_argument("--force", action="store_true", help="rebuild even if current")
    run_parser = commands.add_parser("run", help="run a command in a worktree's venv in a chroot")
    run_parser.add_argument("name", choices=list(RECIPES))
    run_parser.add_argument("--python", required=True, help="e.g. python3.14")
    run_parser.add_argument("--worktree", type=Path, default=REPO)
    run_parser.add_argument("--fresh", action="store_true", help="recreate the venv")
    run_parser.add_argument(
        "--install", action="append", default=[], help="extra pip requirement (repeatable)"
    )
    run_parser.add_argument(
        "--without",
        action="append",
        default=[],
        help="leave this dependency out of a new venv (repeatable), e.g. one with no wheel yet",
    )
    argv = sys.argv[1:] if argv is None else argv
    split = argv.index("--") if "--" in argv else len(argv)
    args, command = parser.parse_args(argv[:split]), argv[split + 1 :]
    if os.geteuid() != 0:
        parser.error("needs root (debootstrap, chroot and a private mount namespace)")
    if args.action == "build":
        for name in args.names or RECIPES:
            if name not in RECIPES:
                parser.error(f"no chroot {name!r}: {', '.join(RECIPES)}")
            print(f"chroot {name}: {build(name, force=args.force)}", flush=True)
        return 0
    if args.python not in RECIPES[args.name].pythons:
        parser.error(f"{args.name} has {', '.join(RECIPES[args.name].pythons)}")
    return run(
        args.name,
        args.python,
        args.worktree,
        command or ["python", "-m", "pytest", "-q"],
        fresh=args.fresh,
        install=tuple(args.install),
        without=tuple(args.without),
    )


if __name__ == "__main__":
    sys.exit(main())
