"""What waits outside the report sinks: users' spools and the dropped-records logs.

The journal and syslog sinks spool what they cannot hand over yet into a directory of the
user's own (:func:`sslcustomize._report._records.private_dir`); every sink counts what it finally
dropped in a small log there. ``report`` and ``doctor`` read both, root's for every account.
Another account's directory is read only if that uid owns it and no one else writes it, and
each file in it only as that uid's regular file, never through a link: what is read there is
as hostile as a fleet's files (see :mod:`._reading`).
"""

from __future__ import annotations

import contextlib
import json
import os
import stat

from sslcustomize._diagnosis._reading import open_regular, read_lines
from sslcustomize._report._records import (
    DROPPED_LOG,
    SPOOL_LIMIT,
    fallback_dir,
    private_dir,
    spool_files,
    spool_root,
)

__all__ = ["dropped_records", "spools_for_report"]


def _fallback_owner(directory: str) -> int | None:
    """The uid whose fallback directory this is: named after it, its own, no one else writes."""
    try:
        uid = int(os.path.basename(directory).rpartition("-")[2])
        info = os.lstat(directory)
    except (ValueError, OSError):
        return None
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != uid or info.st_mode & 0o022:
        return None
    return uid


def _every_users_directories() -> list[str]:
    """Every account's directory in the machine's report spool and in ``/var/tmp`` (for root).

    Each is still to be checked with :func:`_fallback_owner`.
    """
    import glob  # noqa: PLC0415 - only when records are read

    root = spool_root()
    spooled = sorted(glob.glob(os.path.join(glob.escape(root), "*"))) if root else []
    return [*spooled, *sorted(glob.glob(fallback_dir(0).replace("-0", "-*")))]


def spools_for_report() -> list[tuple[str, int]]:
    """Return the spools of the journal and syslog sinks this user may read, with their uids.

    Its own; for root, every account's directory in the machine's report spool and in
    ``/var/tmp`` too: only a directory that its uid owns, and no one else writes, is read,
    as that uid's records.
    """
    found: list[tuple[str, int]] = []
    directories: dict[str, int] = {}
    with contextlib.suppress(OSError):
        directories[private_dir(create=False)] = os.geteuid()
    if os.geteuid() == 0:
        for directory in _every_users_directories():
            owner = _fallback_owner(directory)
            if owner is not None:
                directories.setdefault(directory, owner)
    for directory, owner in directories.items():
        for kind in ("journal", "syslog"):
            spool = os.path.join(directory, f"{kind}-spool.jsonl")
            if spool_files(spool):
                found.append((spool, owner))
    return found


def _dropped_in(log: str, owner: int | None, path: str | None) -> int:
    """The records one dropped-records log counts (for the sink at ``path``, or all).

    With ``owner``, the log must be that uid's regular file, not a link, and is read to at
    most twice :data:`SPOOL_LIMIT` bytes (another user's log, as far as its writers go). A
    line that is not an entry of the log is passed over.

    Raises:
        OSError: It cannot be read, or is not that uid's regular file.
    """
    descriptor = open_regular(log, follow=owner is None)
    with os.fdopen(descriptor, "rb") as file:
        if owner is not None and os.fstat(descriptor).st_uid != owner:
            raise OSError(f"{log}: not a file of uid {owner}")
        total = 0
        for line in read_lines(file, None if owner is None else 2 * SPOOL_LIMIT):
            try:
                entry = json.loads(line) if line else None
            except ValueError:
                continue
            if not isinstance(entry, dict):
                continue
            count = entry.get("count")
            if not isinstance(count, int) or isinstance(count, bool) or not 0 <= count < 2**32:
                continue
            if path is None or entry.get("path") == path:
                total += count
    return total


def dropped_records(path: str | None = None, *, every_user: bool = False) -> int:
    """Return how many report records were finally dropped (all sinks, or the one at ``path``).

    Read from the dropped-records log of this user (and with ``every_user``, as root, from
    every account's directory in the report spool and ``/var/tmp``); 0 when there is none.
    """
    logs: dict[str, int | None] = {}
    with contextlib.suppress(OSError):
        logs[os.path.join(private_dir(create=False), DROPPED_LOG)] = None
    if every_user and os.geteuid() == 0:
        owners = {d: _fallback_owner(d) for d in _every_users_directories()}
        for directory, owner in owners.items():
            if owner is not None:  # another account's log: read only as its own file
                logs.setdefault(os.path.join(directory, DROPPED_LOG), owner)
    total = 0
    for log, owner in logs.items():
        with contextlib.suppress(OSError):
            total += _dropped_in(log, owner, path)
    return total
