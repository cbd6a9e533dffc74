"""Put the startup hook into interpreters that do not have sslcustomize, and take it out again.

What ``install()`` writes (everything is recorded in ``<root>/manifest.json`` with the bytes
and mode of what it replaced, so that ``uninstall()`` restores it byte for byte):

* ``<root>/<version>/``: a private runtime, the stdlib-only package ``sslcustomize``, the
  startup module and, for Python 3.10, a TOML reader (``tomli``); compiled by each covered
  interpreter so that no process has to;
* ``<stdlib>/sitecustomize.py`` of each interpreter: the loader (the source of
  :mod:`._reachhook`) and a call of its ``start()``; the file it displaces keeps
  running, from where it was (a symlink's target) or from a copy under
  ``<root>/<version>/displaced/``;
* the bytecode Python writes for that file (``<stdlib>/__pycache__/sitecustomize.*.pyc``),
  restored or removed on undo.

``root`` is ``/usr/local/lib/sslcustomize`` for the system scope and
``$XDG_DATA_HOME/sslcustomize`` for a user.
"""

from __future__ import annotations

import base64
import contextlib
import glob
import hashlib
import importlib.util
import json
import os
import re
import shutil
import stat
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from sslcustomize._reach._discovery import Interpreter, isolated_run
from sslcustomize._support import _bootstrap
from sslcustomize._support._files import cache_directory

__all__ = [
    "MANIFEST",
    "SYSTEM_ROOT",
    "InstallResult",
    "UninstallResult",
    "install",
    "installed_roots",
    "load_manifest",
    "record_policy",
    "uninstall",
    "user_root",
]

SYSTEM_ROOT = "/usr/local/lib/sslcustomize"
MANIFEST = "manifest.json"
MARKER = "# sslcustomize hook"

HEADER = """\
{marker}: written by `sslcustomize enable --scope {scope}`.
# `sslcustomize disable --scope {scope}` puts back what was here. See sslcustomize's docs/reach.md.
# Below: sslcustomize's loader (its module _reachhook), then one call. It finds sslcustomize in
# {runtime} (not added to sys.path), only where this environment has
# none of its own, then runs the sitecustomize it displaced.
"""
CALL = "\nstart({runtime!r}, globals(), {displaced!r}, {stdlib!r}, policy_configured)\n"
# The startup module's lines that tell whether a policy is configured, copied into the hook.
DETECTION = re.compile(
    r"^# --- sslcustomize system hook: begin -+\n(.*?)^# --- sslcustomize system hook: end",
    re.MULTILINE | re.DOTALL,
)


def hook_text(*, scope: str, runtime: str, displaced: str, stdlib: str) -> str:
    """Return the ``sitecustomize.py`` of the hook: the loader, the policy check, the call.

    Both are inlined rather than loaded from the runtime. The loader: one module fewer to find
    and unmarshal at every start of every interpreter (about 0.2 ms). The startup module's
    policy check: with no policy configured, the startup module is not even looked for
    (finding and loading it cost about half a millisecond).

    Raises:
        FileNotFoundError: The startup module is not installed.
        ValueError: It has no policy-check block (a broken install).
    """
    from sslcustomize._reach import _reachhook  # noqa: PLC0415 - its source is what the hook runs

    with open(_reachhook.__file__, encoding="utf-8") as file:
        loader = file.read()
    # The policy check is the leaf's that the startup module loads (_support._bootstrap).
    _startup_file()  # the hook imports the startup module: it must be there
    with open(_bootstrap.__file__, encoding="utf-8") as file:
        block = DETECTION.search(file.read())
    if block is None:  # pragma: no cover - the marks are in the module shipped with this one
        raise ValueError("the startup module has no policy-check block")
    header = HEADER.format(marker=MARKER, scope=scope, runtime=runtime)
    check = (
        "\n# The policy check (see sslcustomize/_support/_bootstrap.py).\nimport os\n\n" + block[1]
    )
    call = CALL.format(runtime=runtime, displaced=displaced, stdlib=stdlib)
    return header + loader + check + call


@dataclass(frozen=True, slots=True, kw_only=True)
class InstallResult:
    """What ``install()`` did: interpreters hooked, skipped (with why), and files changed."""

    hooked: tuple[Interpreter, ...]
    skipped: tuple[tuple[Interpreter, str], ...]
    changed: tuple[str, ...]


def user_root() -> str:
    """Return the per-user runtime root (``$XDG_DATA_HOME/sslcustomize``)."""
    data = os.environ.get("XDG_DATA_HOME", "").strip()
    return os.path.join(data or os.path.expanduser("~/.local/share"), "sslcustomize")


def installed_roots() -> list[tuple[str, str]]:
    """Return ``(root, label)`` for the runtime roots that have a manifest (system, user)."""
    return [
        (root, label)
        for root, label in ((SYSTEM_ROOT, "system hook"), (user_root(), "user hook"))
        if os.path.exists(os.path.join(root, MANIFEST))
    ]


def load_manifest(root: str) -> dict[str, Any]:
    """Return the manifest of ``root`` (an empty one if there is none)."""
    try:
        with open(os.path.join(root, MANIFEST), encoding="utf-8") as file:
            manifest: dict[str, Any] = json.load(file)
    except FileNotFoundError:
        return {"version": 1, "files": [], "directories": [], "interpreters": []}
    return manifest


def _save_manifest(root: str, manifest: dict[str, Any]) -> bool:
    """Write the manifest if it changed; tell whether it did."""
    text = json.dumps(manifest, indent=1, sort_keys=True) + "\n"
    return _write_if_different(os.path.join(root, MANIFEST), text.encode("utf-8"))


def _snapshot(path: str) -> dict[str, Any] | None:
    """Return what is at ``path`` (a file's bytes and mode, or a symlink's target)."""
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return None
    if stat.S_ISLNK(info.st_mode):
        return {"kind": "symlink", "target": os.readlink(path)}
    with open(path, "rb") as file:
        data = file.read()
    return {
        "kind": "file",
        "mode": stat.S_IMODE(info.st_mode),
        "data": base64.b64encode(data).decode("ascii"),
    }


def _restore(path: str, original: dict[str, Any] | None) -> None:
    if os.path.lexists(path):
        os.unlink(path)
    if original is None:
        return
    if original["kind"] == "symlink":
        os.symlink(original["target"], path)
        return
    temporary = path + ".sslcustomize-tmp"
    with open(temporary, "wb") as file:
        file.write(base64.b64decode(original["data"]))
    os.chmod(temporary, original["mode"])
    os.replace(temporary, path)


def _remember(manifest: dict[str, Any], path: str) -> None:
    """Record ``path``'s original state once (a second enable keeps the first record)."""
    if not any(entry["path"] == path for entry in manifest["files"]):
        manifest["files"].append({"path": path, "original": _snapshot(path)})


def _make_directory(manifest: dict[str, Any], path: str) -> None:
    missing = []
    current = path
    while not os.path.isdir(current):
        missing.append(current)
        current = os.path.dirname(current)
    for directory in reversed(missing):
        os.mkdir(directory)
        # Not the umask's choice: every user's Python reads it.
        os.chmod(directory, 0o755)  # noqa: S103 - world-readable on purpose
        if directory not in manifest["directories"]:
            manifest["directories"].append(directory)


def _write_if_different(path: str, data: bytes, mode: int = 0o644) -> bool:
    try:
        with open(path, "rb") as file:
            if file.read() == data and stat.S_IMODE(os.stat(path).st_mode) == mode:
                return False
    except FileNotFoundError:
        pass
    temporary = path + ".sslcustomize-tmp"
    with open(temporary, "wb") as file:
        file.write(data)
    os.chmod(temporary, mode)
    os.replace(temporary, path)
    return True


def _startup_file() -> str:
    """Return the path of the startup module installed with this package.

    Raises:
        FileNotFoundError: It is not installed.
    """
    startup = importlib.util.find_spec("_sslcustomize_startup")
    if startup is None or startup.origin is None:  # pragma: no cover - installed with the package
        raise FileNotFoundError("the startup module _sslcustomize_startup is not installed")
    return startup.origin


def _sources() -> list[tuple[str, str]]:
    """Return ``(source, relative destination)`` for every file of the private runtime."""
    import sslcustomize  # noqa: PLC0415 - the package copies itself

    package = os.path.dirname(os.path.abspath(sslcustomize.__file__))
    pairs = []
    for directory, subdirectories, files in os.walk(package):
        subdirectories[:] = sorted(d for d in subdirectories if d != "__pycache__")
        for name in sorted(files):
            if name.endswith(".py") or name == "py.typed":
                source = os.path.join(directory, name)
                pairs.append(
                    (source, os.path.join("sslcustomize", os.path.relpath(source, package)))
                )
    pairs.append((_startup_file(), "_sslcustomize_startup.py"))
    pairs += _toml_reader()
    return pairs


def _toml_reader() -> list[tuple[str, str]]:
    """Return the files of a ``tomli`` package for Python 3.10 (this one's, or pip's copy)."""
    for name in ("tomli", "pip._vendor.tomli"):
        try:
            spec = importlib.util.find_spec(name)
        except ModuleNotFoundError:
            continue
        if spec is None or not spec.submodule_search_locations:
            continue
        directory = next(iter(spec.submodule_search_locations))
        return [
            (os.path.join(directory, n), os.path.join("tomli", n))
            for n in sorted(os.listdir(directory))
            if n.endswith(".py") or n == "py.typed"
        ]
    return []


def _version() -> str:
    from sslcustomize import __version__  # noqa: PLC0415

    return str(__version__)


def install(
    interpreters: Iterable[Interpreter], *, root: str, scope: str, spool: str | None = None
) -> InstallResult:
    """Install the private runtime under ``root`` and hook each eligible interpreter.

    With ``spool`` (the system scope's :data:`REPORT_SPOOL`), make the machine's report spool
    there too, if there is none.

    Running it twice changes nothing. Interpreters that are not CPython >= 3.10, or whose
    standard-library directory this user cannot write, are returned in ``skipped``.

    Raises:
        OSError: A file could not be written (``PermissionError`` without root).
    """
    manifest = load_manifest(root)
    runtime = os.path.join(root, _version())
    changed = _copy_runtime(manifest, runtime)
    manifest["runtime"] = runtime
    if scope == "user" and "caches_made" not in manifest:
        manifest["caches_made"] = _absent_directories(os.path.dirname(cache_directory("policy")))
    hooked: list[Interpreter] = []
    skipped: list[tuple[Interpreter, str]] = []
    for interpreter, stdlib, refusal in _targets(interpreters, scope):
        if refusal:
            skipped.append((interpreter, refusal))
            continue
        changed += _hook(manifest, interpreter, stdlib, runtime=runtime, scope=scope)
        hooked.append(interpreter)
        if stdlib not in manifest["interpreters"]:
            manifest["interpreters"].append(stdlib)
    # Compile the hooks and the runtime with each interpreter, once everything is written:
    # processes that cannot write these directories would otherwise compile at every start.
    for interpreter in hooked:
        _compile(interpreter, runtime)
    _open_to_everyone(runtime)
    if spool is not None and _make_spool(manifest, spool):
        changed.append(spool)
    if _save_manifest(root, manifest):
        changed.append(os.path.join(root, MANIFEST))
    return InstallResult(hooked=tuple(hooked), skipped=tuple(skipped), changed=tuple(changed))


def _copy_runtime(manifest: dict[str, Any], runtime: str) -> list[str]:
    """Copy the runtime's files into ``runtime``; return the paths that changed."""
    _make_directory(manifest, runtime)
    changed: list[str] = []
    for source, relative in _sources():
        destination = os.path.join(runtime, relative)
        os.makedirs(os.path.dirname(destination), mode=0o755, exist_ok=True)
        with open(source, "rb") as file:
            if _write_if_different(destination, file.read()):
                changed.append(destination)
    return changed


def _targets(
    interpreters: Iterable[Interpreter], scope: str
) -> Iterator[tuple[Interpreter, str, str]]:
    """Yield each interpreter once per standard library, with why it is refused (or ``""``)."""
    seen: set[str] = set()
    for interpreter in interpreters:
        if not interpreter.eligible:
            yield interpreter, "", interpreter.reason()
            continue
        stdlib = os.path.realpath(interpreter.stdlib)
        if stdlib in seen:
            continue
        seen.add(stdlib)
        if not os.access(stdlib, os.W_OK):
            yield interpreter, stdlib, f"{stdlib} is read-only for this user"
        elif scope == "user" and (os.geteuid() == 0 or os.stat(stdlib).st_uid != os.geteuid()):
            yield interpreter, stdlib, "not this user's own: use --scope system as root"
        else:
            yield interpreter, stdlib, ""


def _make_spool(manifest: dict[str, Any], spool: str) -> bool:
    """Make the machine's report spool, root's and sticky; tell whether it was made now.

    Every account keeps there (``REPORT_SPOOL``), in a 0700 directory of its own named after
    its uid, what its report sink cannot take now, where root's ``report`` reads it:
    1733, so that anyone may make their own directory, no one may list, rename or remove
    another's. An existing one is left as it is (the runtime uses it only if it is root's).
    """
    if os.path.lexists(spool):
        return False
    if not os.path.isdir(os.path.dirname(spool)):
        _make_directory(manifest, os.path.dirname(spool))
    os.mkdir(spool, 0o700)
    os.chmod(spool, 0o1733)  # noqa: S103 - every account writes its own directory there
    manifest["spool"] = spool
    return True


def _remove_spool(manifest: dict[str, Any]) -> None:
    """Remove the report spool ``install`` made, unless records still wait in it.

    Accounts' directories that hold nothing are removed; one that holds records (or the
    count of dropped ones) stays, and with it the spool, for ``report --path`` to read.
    """
    spool = manifest.get("spool")
    if not spool:
        return
    with contextlib.suppress(OSError):
        for name in os.listdir(spool):
            with contextlib.suppress(OSError):
                os.rmdir(os.path.join(spool, name))
        os.rmdir(spool)


def _hook(
    manifest: dict[str, Any], interpreter: Interpreter, stdlib: str, *, runtime: str, scope: str
) -> list[str]:
    """Write one interpreter's ``sitecustomize.py`` and compile what it loads."""
    target = os.path.join(stdlib, "sitecustomize.py")
    cache = os.path.join(stdlib, "__pycache__")
    if stdlib not in manifest["interpreters"]:  # once: later runs find our own bytecode
        _remember(manifest, target)
        for compiled in sorted(glob.glob(os.path.join(cache, "sitecustomize.*.pyc"))):
            _remember(manifest, compiled)
    if not os.path.isdir(cache):
        _make_directory(manifest, cache)
    manifest.setdefault("caches", [])
    if cache not in manifest["caches"]:
        manifest["caches"].append(cache)
    original = next(e["original"] for e in manifest["files"] if e["path"] == target)
    displaced = _displaced(original, target, runtime)
    text = hook_text(scope=scope, runtime=runtime, displaced=displaced, stdlib=interpreter.stdlib)
    return [target] if _write_if_different(target, text.encode("utf-8")) else []


def _open_to_everyone(runtime: str) -> None:
    """Make the runtime readable by every user, whatever the installer's umask was.

    Every user's Python loads it; a root umask of 077 would otherwise make every non-root
    interpreter print "system hook failed" at each start.
    """
    for directory, _subdirectories, files in os.walk(runtime):
        os.chmod(directory, 0o755)  # noqa: S103 - world-readable on purpose
        for name in files:
            os.chmod(os.path.join(directory, name), 0o644)


def _compile(interpreter: Interpreter, runtime: str) -> None:
    """Compile an interpreter's hook and the runtime with it (bytecode is per version).

    Raises:
        subprocess.CalledProcessError: The interpreter could not compile them.
    """
    stdlib = os.path.realpath(interpreter.stdlib)
    argv = [interpreter.path, "-I", "-S", "-m", "compileall", "-q"]
    completed = isolated_run([*argv, os.path.join(stdlib, "sitecustomize.py"), runtime])
    completed.check_returncode()


def _displaced(original: dict[str, Any] | None, target: str, runtime: str) -> str:
    """Return the file the hook runs in place of ``original`` (``""`` if none)."""
    if original is None:
        return ""
    if original["kind"] == "symlink":
        link = original["target"]
        return os.path.normpath(os.path.join(os.path.dirname(target), link))
    directory = os.path.join(runtime, "displaced")
    os.makedirs(directory, mode=0o755, exist_ok=True)
    name = hashlib.sha256(target.encode()).hexdigest()[:16] + ".py"
    _write_if_different(os.path.join(directory, name), base64.b64decode(original["data"]))
    return os.path.join(directory, name)


def record_policy(root: str, path: str, data: bytes, created_directories: Sequence[str]) -> None:
    """Remember that enable wrote the policy ``path`` (removed on undo if still unchanged)."""
    manifest = load_manifest(root)
    manifest["policy"] = {
        "path": path,
        "sha256": hashlib.sha256(data).hexdigest(),
        "directories": list(created_directories),
    }
    _save_manifest(root, manifest)


@dataclass(frozen=True, slots=True, kw_only=True)
class UninstallResult:
    """What ``uninstall()`` did: paths restored, and what it could not undo (with why).

    ``kept`` tells whether the manifest and runtime were kept for another run (a hook that
    still exists could not be restored: it still loads the runtime).
    """

    restored: tuple[str, ...]
    problems: tuple[str, ...] = ()
    kept: bool = False


def uninstall(root: str) -> UninstallResult:
    """Undo everything ``install()`` recorded under ``root``, as far as it can be undone.

    A policy file that enable wrote and nobody changed is removed; an edited one stays. A path
    whose directory is gone (an interpreter removed since, as a distribution upgrade purges
    one) has nothing left to restore: it is reported and forgotten. A path that exists but
    cannot be restored is reported and kept in the manifest, with the runtime its hook still
    loads, so that running it again finishes the job. It never raises for one path.
    """
    manifest = load_manifest(root)
    restored: list[str] = []
    problems: list[str] = []
    recorded = {entry["path"] for entry in manifest["files"]}
    for cache in manifest.get("caches", []):
        for compiled in glob.glob(os.path.join(cache, "sitecustomize.*.pyc")):
            if compiled not in recorded:
                _undo(lambda path=compiled: os.unlink(path), compiled, restored, problems)
    remaining = []
    for entry in reversed(manifest["files"]):
        path = entry["path"]
        if not os.path.isdir(os.path.dirname(path)):
            problems.append(
                f"{path}: its directory is gone (interpreter removed?), nothing to restore"
            )
            continue
        if not _undo(lambda e=entry: _restore(e["path"], e["original"]), path, restored, problems):
            remaining.append(entry)
    if remaining:
        manifest["files"] = list(reversed(remaining))
        _save_manifest(root, manifest)
        return UninstallResult(restored=tuple(restored), problems=tuple(problems), kept=True)
    policy = manifest.get("policy")
    if policy:
        _undo(lambda: restored.extend(_remove_policy(policy)), policy["path"], [], problems)
    if "runtime" in manifest:
        for version in glob.glob(os.path.join(root, "*", "")):
            _undo(lambda v=version: shutil.rmtree(v), version, [], problems)
    if os.path.exists(os.path.join(root, MANIFEST)):
        os.unlink(os.path.join(root, MANIFEST))
    _remove_spool(manifest)
    _remove_directories(manifest["directories"])
    _remove_caches(manifest.get("caches_made", []))
    return UninstallResult(restored=tuple(restored), problems=tuple(problems))


def _undo(action: Any, path: str, done: list[str], problems: list[str]) -> bool:
    """Run one step of the undo; on an error, say which path and why. Tell whether it worked."""
    try:
        action()
    except OSError as error:
        problems.append(f"{path}: {error.strerror or error}")
        return False
    done.append(path)
    return True


def _absent_directories(path: str) -> list[str]:
    """Return ``path`` and its parents that do not exist yet, deepest first."""
    absent = []
    while not os.path.lexists(path) and os.path.dirname(path) != path:
        absent.append(path)
        path = os.path.dirname(path)
    return absent


def _remove_caches(made: Sequence[str]) -> None:
    """Remove the user's sslcustomize cache if it came after enable, and parents left empty.

    Hooked processes fill it (parsed policies, hashed anchors); it did not exist before.
    """
    if not made:
        return
    shutil.rmtree(made[0], ignore_errors=True)  # the cache itself: sslcustomize's alone
    for directory in made[1:]:
        with contextlib.suppress(OSError):
            os.rmdir(directory)  # a parent: only if nothing else lives there now


def _remove_directories(directories: Sequence[str]) -> None:
    """Remove the directories we made, deepest first, unless something else lives there now."""
    for directory in sorted(directories, key=len, reverse=True):
        with contextlib.suppress(OSError):
            os.rmdir(directory)


def _remove_policy(policy: dict[str, Any]) -> list[str]:
    path = policy["path"]
    try:
        with open(path, "rb") as file:
            unchanged = hashlib.sha256(file.read()).hexdigest() == policy["sha256"]
    except FileNotFoundError:
        return []
    if not unchanged:
        return []
    os.unlink(path)
    _remove_directories(policy["directories"])
    return [path]
