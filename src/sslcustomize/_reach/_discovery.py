"""Find the Python interpreters of the machine and ask each one what covers it.

Places looked at (``python3``, ``python3.X`` and free-threaded ``python3.Xt``): ``PATH``,
``/usr/bin``, ``/usr/local/bin``, pyenv's versions
(``$PYENV_ROOT`` or ``~/.pyenv``), uv's managed Pythons (``$UV_PYTHON_INSTALL_DIR`` or
``~/.local/share/uv/python``) and any named with ``--python``. Each candidate is started once
with a small probe (it works on Python 2.7 too, to say why it is not covered); interpreters
that share a standard-library directory are one interpreter with several names.

Every child interpreter the package starts is isolated from the caller (issue 22 #1: root ran
a ``json.py`` another user had planted in the directory ``sudo sslcustomize doctor`` was run
from): see :func:`isolated_run`. Root starts no candidate that another user could have
changed (issue 32 #3: with ``sudo`` keeping ``HOME``, another user's ``~/.pyenv`` is searched):
see :func:`unsafe_for_root`.
"""

from __future__ import annotations

import contextlib
import glob
import json
import os
import re
import stat
import subprocess
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from sslcustomize._support._frozen import replace

__all__ = [
    "MINIMUM",
    "SAFE_CWD",
    "Interpreter",
    "candidates",
    "discover",
    "isolated_environment",
    "isolated_run",
    "probe",
    "unsafe_for_root",
]

MINIMUM = (3, 10)
# python3, python3.12, and free-threaded builds: python3.13t, python3.14t (issue 21 #7).
_NAME = re.compile(r"^python(3(\.\d+t?)?)?$")
# Where child interpreters run: a directory only root can write, whoever the caller is.
SAFE_CWD = "/"
# Symbolic links followed in one path before giving up: the kernel's own limit (MAXSYMLINKS).
_MAX_LINKS = 40

# Runs in the interpreter being asked; Python 2.7 syntax on purpose (to report it as older).
# Its first line drops the current directory ('' for ``-c``) before anything is imported:
# Python before 3.11 has no -P, and PYTHONSAFEPATH is set for the others (belt and braces).
_PROBE = r"""
import sys
sys.path[:] = [p for p in sys.path if p and p != "."]
import json, os
try:
    import sysconfig
    stdlib = sysconfig.get_path("stdlib")
    purelib = sysconfig.get_path("purelib")
except Exception:
    stdlib = purelib = ""
try:
    import site
    user_site = site.getusersitepackages() if site.ENABLE_USER_SITE else ""
except Exception:
    user_site = ""
try:
    free_threaded = bool(sysconfig.get_config_var("Py_GIL_DISABLED"))
except Exception:
    free_threaded = False
startup = sys.modules.get("_sslcustomize_startup")
custom = sys.modules.get("sitecustomize")
# Trust tools on this interpreter's path, and whether one replaced ssl.SSLContext at startup
# (pip-system-certs does, from its .pth).
tools = []
for name, parts in (("truststore", ("truststore", "__init__.py")),
                    ("pip-system-certs", ("pip_system_certs", "__init__.py")),
                    ("pip's vendored truststore", ("pip", "_vendor", "truststore", "__init__.py"))):
    for entry in sys.path:
        if entry and os.path.isfile(os.path.join(entry, *parts)):
            tools.append(name)
            break
early = sys.modules.get("ssl")
replaced = getattr(early, "SSLContext", None)
replaced = "" if replaced is None or replaced.__module__ == "ssl" else (
    replaced.__module__ + "." + replaced.__name__)
# Where a policy is configured, the hook must have put sslcustomize's factories on ssl.
hooked = None
try:
    if startup is not None and startup.policy_configured():
        import ssl
        factory = ssl.create_default_context
        hooked = bool(getattr(factory, "sslcustomize_original", None) or
                      getattr(factory, "__module__", "").startswith("sslcustomize"))
except Exception:
    hooked = False
print(json.dumps({
    "implementation": getattr(getattr(sys, "implementation", None), "name", "cpython"),
    "version": list(sys.version_info[:3]),
    "executable": sys.executable,
    "prefix": sys.prefix,
    "base_prefix": getattr(sys, "base_prefix", sys.prefix),
    "stdlib": stdlib,
    "purelib": purelib,
    "user_site": user_site,
    "startup": getattr(startup, "__file__", "") or "",
    "sitecustomize": getattr(custom, "__file__", "") or "",
    "tools": tools,
    "ssl_context_replaced_by": replaced,
    "hooked": hooked,
    "free_threaded": free_threaded,
}))
"""


@dataclass(frozen=True, slots=True, kw_only=True)
class Interpreter:
    """One interpreter found on the machine, and what covers it.

    ``covered_by`` is ``"system hook"``, ``"user hook"``, ``"own install"``, ``"user site"``
    or ``""``; ``reason`` says why an interpreter is not covered (or cannot be).
    """

    path: str
    names: tuple[str, ...] = ()
    implementation: str = ""
    version: tuple[int, ...] = ()
    prefix: str = ""
    stdlib: str = ""
    purelib: str = ""
    user_site: str = ""
    startup: str = ""
    sitecustomize: str = ""
    tools: tuple[str, ...] = ()
    ssl_context_replaced_by: str = ""
    hooked: bool | None = None
    free_threaded: bool = False
    error: str = ""

    @property
    def eligible(self) -> bool:
        """Tell whether sslcustomize can cover this interpreter (CPython >= 3.10)."""
        return not self.error and self.implementation == "cpython" and self.version >= MINIMUM

    @property
    def version_text(self) -> str:
        """Return the version as ``3.12.1`` (empty if unknown)."""
        return ".".join(map(str, self.version))

    def covered_by(self, runtime_roots: Sequence[tuple[str, str]] = ()) -> str:
        """Return what runs the startup hook in this interpreter (``""`` if nothing does).

        Args:
            runtime_roots: ``(directory, label)`` of each private runtime installed.
        """
        if not self.startup or self.hooked is False:
            return ""
        startup = os.path.realpath(self.startup)
        for root, label in runtime_roots:
            if startup.startswith(os.path.realpath(root) + os.sep):
                return label
        if self.user_site and startup.startswith(os.path.realpath(self.user_site) + os.sep):
            return "user site"
        return "own install"

    def reason(self, runtime_roots: Sequence[tuple[str, str]] = ()) -> str:
        """Return why this interpreter is not covered (``""`` when it is)."""
        if self.error:
            return self.error
        if self.implementation != "cpython":
            return f"not CPython ({self.implementation})"
        if self.version < MINIMUM:
            return f"Python {self.version_text} is older than 3.10"
        if self.covered_by(runtime_roots):
            return ""
        return self._missing_hook()

    def _missing_hook(self) -> str:
        """Say what is missing in an eligible interpreter that is not covered."""
        if self.startup and self.hooked is False:
            beside = f" ({self.ssl_context_replaced_by} replaced ssl.SSLContext)" * bool(
                self.ssl_context_replaced_by
            )
            return f"the startup hook ran but could not hook ssl's factories{beside}"
        if not os.access(self.stdlib, os.W_OK):
            return f"no hook: {self.stdlib} is read-only for this user (run enable as root)"
        return "no hook: run `sslcustomize enable --scope system` (again) to cover it"


def _home() -> str:
    return os.path.expanduser("~")


def _on_path() -> list[str]:
    """Interpreters named like Python in the directories of ``PATH``, then the usual two."""
    found: list[str] = []
    directories = [d for d in os.environ.get("PATH", "").split(os.pathsep) if d]
    for directory in [*directories, "/usr/bin", "/usr/local/bin"]:
        if os.path.basename(directory.rstrip(os.sep)) == "shims":
            continue  # pyenv's shims are scripts that pick a version; the versions are below
        try:
            names = sorted(os.listdir(directory))
        except OSError:
            continue
        found += [os.path.join(directory, n) for n in names if _NAME.match(n)]
    return found


def _managed() -> list[str]:
    """Interpreters that pyenv and uv keep in their own directories."""
    pyenv = os.environ.get("PYENV_ROOT") or os.path.join(_home(), ".pyenv")
    uv = os.environ.get("UV_PYTHON_INSTALL_DIR") or os.path.join(
        os.environ.get("XDG_DATA_HOME") or os.path.join(_home(), ".local", "share"), "uv", "python"
    )
    found: list[str] = []
    for versions in (os.path.join(pyenv, "versions"), uv):
        for name in ("python3", "python3.*t"):  # a free-threaded build may lack python3
            found += sorted(glob.glob(os.path.join(versions, "*", "bin", name)))
        # A Python 2 has no python3: its ``python``, listed (never hooked) with the reason.
        found += [
            path
            for path in sorted(glob.glob(os.path.join(versions, "*", "bin", "python")))
            if not glob.glob(os.path.join(os.path.dirname(path), "python3*"))
        ]
    return found


def candidates(extra: Iterable[str] = ()) -> list[str]:
    """Return the paths of possible interpreters, in search order, without duplicates."""
    extra = list(extra)
    found = [*_on_path(), *_managed(), *(os.path.abspath(p) for p in extra)]
    unique: list[str] = []
    for path in found:
        if path not in unique and os.path.isfile(path) and os.access(path, os.X_OK):
            unique.append(path)
    unique += [p for p in extra if not os.path.isfile(p) and p not in unique]
    return unique


def unsafe_for_root(path: str) -> str:
    """Say why root must not execute ``path``, or return ``""`` when only root can change it.

    The path is resolved one component at a time, as the kernel resolves it: every directory,
    symbolic link and the file itself must belong to root, and no directory or file may be
    writable by group or others. A sticky directory (``/tmp``) is the one exception on the
    way: there, others cannot rename or remove an entry root owns, and the next component is
    checked in turn. A link's target is checked as well as the link, so a link another user
    can swap (or a link into their tree) is refused.
    """
    pending = [part for part in os.path.abspath(path).split(os.sep) if part]
    current = os.sep
    hops = 0
    found = _roots(current)
    problem = found if isinstance(found, str) else _writable(current, found, last=not pending)
    while pending and not problem:
        part = pending.pop(0)
        if part == ".":
            continue
        if part == "..":
            current = os.path.dirname(current)
            continue
        candidate = os.path.join(current, part)
        info = _roots(candidate)
        if isinstance(info, str):
            return info
        if stat.S_ISLNK(info.st_mode):
            hops += 1
            if hops > _MAX_LINKS:
                return f"{path}: too many levels of symbolic links"
            try:
                target = os.readlink(candidate)
            except OSError as error:
                return f"cannot inspect {candidate}: {error.strerror}"
            current = os.sep if os.path.isabs(target) else current
            pending[:0] = [p for p in target.split(os.sep) if p]
            continue
        current = candidate
        problem = _writable(current, info, last=not pending)
    return problem


def _roots(path: str) -> os.stat_result | str:
    """Return ``path``'s ``lstat`` if it belongs to root, else why not (a message)."""
    try:
        info = os.lstat(path)
    except OSError as error:
        return f"cannot inspect {path}: {error.strerror}"
    if info.st_uid != 0:
        return f"{path} belongs to uid {info.st_uid}, not root"
    return info


def _writable(path: str, info: os.stat_result, *, last: bool) -> str:
    """Say whether others can write ``path`` (no link); a sticky directory passes on the way."""
    sticky = stat.S_ISDIR(info.st_mode) and info.st_mode & stat.S_ISVTX
    if info.st_mode & 0o022 and (last or not sticky):
        return f"{path} is writable by {'others' if info.st_mode & 0o002 else 'its group'}"
    return ""


def isolated_environment() -> dict[str, str]:
    """Return the environment for a child interpreter: the caller's, without Python's own.

    Every ``PYTHON*`` variable goes (``PYTHONPATH``, ``PYTHONHOME``, ``PYTHONSTARTUP``,
    ``PYTHONUSERBASE``...), and ``PYTHONSAFEPATH=1`` keeps the current directory off
    ``sys.path`` on 3.11+. Not ``-E``: the child must still see ``SSLCUSTOMIZE_POLICY``,
    which its startup hook ignores under ``-E`` as Python ignores its own variables.
    """
    environment = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    environment["PYTHONSAFEPATH"] = "1"
    return environment


def _user_site_is_ours() -> bool:
    """Tell whether the user base Python would read (``~/.local``) belongs to this user.

    ``sudo`` may keep the caller's ``HOME``: root must not run the ``.pth`` files of another
    user's site directory, so a child then runs with ``-s``.
    """
    owners = []
    for path in (_home(), os.path.join(_home(), ".local")):
        with contextlib.suppress(OSError):
            owners.append(os.stat(path).st_uid)
    return all(owner == os.geteuid() for owner in owners)


def isolated_run(
    argv: Sequence[str], *, timeout: float | None = None, user_site: bool = False
) -> subprocess.CompletedProcess[str]:
    """Run a child interpreter (``argv[0]``) isolated from the caller's directory and variables.

    It runs in :data:`SAFE_CWD` with :func:`isolated_environment`, and with ``-s`` unless
    ``user_site`` is asked for and the user site directory belongs to this user. Output is
    captured as text; the exit status is not checked.
    """
    flags = [] if user_site and _user_site_is_ours() else ["-s"]
    return subprocess.run(  # noqa: S603 - an interpreter of the machine, with our own arguments
        [argv[0], *flags, *argv[1:]],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=isolated_environment(),
        cwd=SAFE_CWD,
        check=False,
    )


def probe(path: str, *, timeout: float = 20.0) -> Interpreter:
    """Start ``path`` once, isolated, and return what it says about itself."""
    try:
        completed = isolated_run([path, "-c", _PROBE], timeout=timeout, user_site=True)
    except (OSError, subprocess.SubprocessError) as exc:
        return Interpreter(path=path, names=(path,), error=f"cannot run: {exc}")
    try:
        facts = json.loads(completed.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        message = (completed.stderr.strip().splitlines() or ["no output"])[-1]
        return Interpreter(path=path, names=(path,), error=f"probe failed: {message}")
    return Interpreter(
        path=path,
        names=(path,),
        implementation=str(facts["implementation"]),
        version=tuple(int(v) for v in facts["version"]),
        prefix=str(facts["prefix"]),
        stdlib=str(facts["stdlib"]),
        purelib=str(facts["purelib"]),
        user_site=str(facts["user_site"]),
        startup=str(facts["startup"]),
        sitecustomize=str(facts["sitecustomize"]),
        tools=tuple(str(t) for t in facts.get("tools", ())),
        ssl_context_replaced_by=str(facts.get("ssl_context_replaced_by") or ""),
        hooked=None if facts.get("hooked") is None else bool(facts["hooked"]),
        free_threaded=bool(facts.get("free_threaded", False)),
    )


def discover(extra: Iterable[str] = ()) -> list[Interpreter]:
    """Find and probe the machine's interpreters; one entry per standard-library directory.

    The running interpreter's own environment is included (a venv is an interpreter too). As
    root, a candidate that another user could have changed is not started: it is returned
    with the reason as its ``error`` (the running interpreter, already running, is exempt).
    """
    paths = candidates(extra)
    if sys.executable and sys.executable not in paths:
        paths.insert(0, sys.executable)
    merged: dict[str, Interpreter] = {}
    for path in paths:
        unsafe = unsafe_for_root(path) if os.geteuid() == 0 and path != sys.executable else ""
        if unsafe:
            error = f"not run: {unsafe} (root runs only what root alone can change)"
            merged[f"unsafe|{path}"] = Interpreter(path=path, names=(path,), error=error)
            continue
        found = probe(path)
        key = os.path.realpath(found.prefix) + "|" + os.path.realpath(found.stdlib or path)
        if key in merged:
            first = merged[key]
            merged[key] = replace(first, names=(*first.names, path))
            continue
        merged[key] = found
    return list(merged.values())
