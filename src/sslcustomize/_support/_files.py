"""Files: written atomically (a temporary file, then ``os.replace``), read only when regular."""

from __future__ import annotations

import os
import stat
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:  # annotations only: typing is kept off the hook's path (see _notyping)
    from collections.abc import Iterable

__all__ = [
    "APP",
    "atomic_write",
    "cache_directory",
    "make_directories",
    "private_directory",
    "read_regular",
    "root_path",
    "trusted_path",
    "user_cache_dir",
    "write_cache_entry",
    "xdg_directory",
]

APP = "sslcustomize"


def atomic_write(path: str, text: str | Iterable[str], mode: int = 0o644) -> None:
    """Replace ``path`` with ``text`` so that readers see the old or the new file, never half.

    ``text`` may come in pieces (a page of tens of megabytes need not be held whole).
    """
    directory = os.path.dirname(os.path.abspath(path))
    import tempfile  # noqa: PLC0415 - only the commands write files; hooked processes read

    descriptor, temporary = tempfile.mkstemp(prefix=".tmp-", dir=directory)
    try:
        with os.fdopen(descriptor, "w", encoding="utf-8") as file:
            if isinstance(text, str):
                file.write(text)
            else:
                file.writelines(text)
            file.flush()
            os.fsync(file.fileno())
        os.chmod(temporary, mode)
        os.replace(temporary, path)
    except BaseException:
        os.unlink(temporary)
        raise


def write_cache_entry(entry: str, data: bytes, *, mode: int = 0o600, keep: int = 0) -> None:
    """Write a cache entry ``entry`` (``NAME-KEY`` in a private directory), best effort.

    Written beside it under a name of this process and moved into place, so a reader sees
    the old entry or the new one, never half; a link planted at either name is not followed.
    ``keep``: at most that many entries with the same ``NAME-`` stay in the directory, the
    least recently written going first, so that a cache keyed by paths (a new temporary policy
    file each run) does not grow for ever. A cache that cannot be written, or pruned, costs
    the next process time, never a policy.
    """
    temporary = f"{entry}.{os.getpid()}.tmp"
    try:
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
        descriptor = os.open(temporary, flags, 0o600)
        try:
            os.write(descriptor, data)
            os.fchmod(descriptor, mode)  # the umask's choice would not do for root's 0644
        finally:
            os.close(descriptor)
        os.replace(temporary, entry)
    except OSError:
        try:  # noqa: SIM105 - contextlib stays out of the first context
            os.unlink(temporary)
        except OSError:
            pass
        return
    if keep:
        _prune(entry, keep)


def _prune(entry: str, keep: int) -> None:
    """Leave at most ``keep`` entries of ``entry``'s kind in its directory (oldest go first)."""
    directory, name = os.path.split(entry)
    kind = name.rpartition("-")[0] + "-"
    try:
        with os.scandir(directory) as found:
            entries = [
                (item.stat(follow_symlinks=False).st_mtime_ns, item.path)
                for item in found
                if item.name.startswith(kind) and "." not in item.name[len(kind) :]
            ]
    except OSError:
        return
    if len(entries) <= keep:
        return
    entries.sort()
    for _, path in entries[: len(entries) - keep]:
        try:  # noqa: SIM105 - contextlib stays out of the first context
            os.unlink(path)
        except OSError:  # noqa: PERF203 - another process may have pruned it first
            pass


def make_directories(path: str) -> None:
    """Make ``path`` and its missing parents ``0755`` whatever the umask; leave existing ones.

    Policy files and the CA copies beside them are read by every user's processes and
    written by their owner alone: under a umask of 000 (some containers' root), a directory
    made ``0777`` would let any user replace a CA that a policy trusts.
    """
    missing = []
    current = os.path.abspath(path)
    while not os.path.isdir(current):
        missing.append(current)
        current = os.path.dirname(current)
    for directory in reversed(missing):
        try:
            os.mkdir(directory, 0o755)
        except FileExistsError:
            continue
        os.chmod(directory, 0o755)  # noqa: S103 - read by all, written by the owner alone


def read_regular(path: str, limit: int, *, private: bool = False, root_only: bool = False) -> bytes:
    """Read a regular file (symlinks to one are followed) of at most ``limit`` bytes.

    Opened non-blocking (a FIFO with no writer would hang the open) and checked with ``fstat``
    on the descriptor before any read, so a FIFO, a device (``/dev/zero``, ``/dev/stdin``), a
    socket or a directory is never read, and a swap after the check changes nothing.
    ``private``: the file must also be no link, owned by this user and writable by no one
    else (a cache entry that is read as trusted). ``root_only``: no link, owned by root and
    writable by no one else (the system layer's cache entry).

    Raises:
        OSError: The file cannot be opened or read (a link, with ``private``).
        ValueError: It is not a regular file, is larger than ``limit``, or is not private.
    """
    strict = private or root_only
    flags = os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | (os.O_NOFOLLOW if strict else 0)
    descriptor = os.open(path, flags)
    try:
        info = os.fstat(descriptor)
        if not stat.S_ISREG(info.st_mode):
            raise ValueError("not a regular file")
        if private and (info.st_uid != os.geteuid() or info.st_mode & 0o077):
            raise ValueError("not this user's alone")
        if root_only and (info.st_uid != 0 or info.st_mode & 0o022):
            raise ValueError("not root's alone")
        chunks: list[bytes] = []
        size = 0
        while size <= limit:
            chunk = os.read(descriptor, limit + 1 - size)
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        if size > limit:
            raise ValueError(f"larger than {limit} bytes")
        return b"".join(chunks)
    finally:
        os.close(descriptor)


def xdg_directory(variable: str, default: str) -> str | None:
    """Return ``$variable`` or ``~/default`` on Linux and BSD; ``None`` elsewhere."""
    if sys.platform in ("win32", "darwin"):
        return None
    configured = os.environ.get(variable, "").strip()
    return os.path.join(configured or os.path.expanduser(default), APP)


def user_cache_dir() -> str:
    """Return the user cache directory of sslcustomize, as platformdirs computes it.

    On Linux the XDG rule is applied here: importing platformdirs would add ~10 ms to the
    first context of every process. Other platforms ask platformdirs.
    """
    path = xdg_directory("XDG_CACHE_HOME", "~/.cache")
    if path is not None:
        return path
    import platformdirs  # noqa: PLC0415 # pragma: no cover - macOS and Windows

    return platformdirs.user_cache_dir(APP, appauthor=False)  # pragma: no cover


def cache_directory(name: str) -> str:
    """Return the path of one of sslcustomize's caches (``anchors``, ``policy``)."""
    return os.path.join(os.path.realpath(user_cache_dir()), name)


def private_directory(path: str) -> bool:
    """Make ``path`` (and its parents) if needed; tell whether it is ours alone, 0700."""
    try:
        os.makedirs(path, mode=0o700, exist_ok=True)
        info = os.lstat(path)
        if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.geteuid():
            return False
        if info.st_mode & 0o077:
            os.chmod(path, 0o700)
    except OSError:
        return False
    return trusted_path(path)


def root_path(path: str) -> bool:
    """Tell whether ``path`` and every directory above it belong to root and only root writes.

    Stricter than :func:`trusted_path`: not even a sticky directory, and not this user.
    """
    current = os.sep
    for part in ["", *[p for p in os.path.realpath(path).split(os.sep) if p]]:
        current = os.path.join(current, part) if part else current
        try:
            info = os.lstat(current)
        except OSError:
            return False
        if stat.S_ISLNK(info.st_mode) or info.st_uid != 0 or info.st_mode & 0o022:
            return False
    return True


def trusted_path(path: str) -> bool:
    """Tell whether nobody but this user and root can change ``path`` or any directory above it.

    Each component of the resolved path must be owned by root or the effective user and not
    writable by group or others, except a sticky directory (``/tmp``), where others cannot
    rename or remove what they do not own. OpenSSL reads a hashed directory lazily, by path:
    a parent another user controls could swap it for one holding their CA.
    """
    real = os.path.realpath(path)
    uid = os.geteuid()
    current = os.sep
    components = [part for part in real.split(os.sep) if part]
    for index in range(len(components) + 1):
        if index:
            current = os.path.join(current, components[index - 1])
        try:
            info = os.lstat(current)
        except OSError:
            return False
        if stat.S_ISLNK(info.st_mode) or info.st_uid not in (0, uid):
            return False
        last = index == len(components)
        if info.st_mode & 0o022 and (last or not info.st_mode & stat.S_ISVTX):
            return False
    return True
