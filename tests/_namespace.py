"""Run a command in a private mount namespace with throw-away overlays over some directories.

Whatever the command writes under an overlaid directory lands in a scratch upper directory and
vanishes with the namespace: tests of system-wide installs never touch the machine's files.
"""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

__all__ = ["ALWAYS_OVERLAID", "left_behind", "namespace_problem", "run_in_overlays"]

#: Written by system scope outside the trees tests name: never the machine's own.
ALWAYS_OVERLAID = ("/var/spool",)


def namespace_problem() -> str | None:
    """Return why overlays in a private namespace are impossible here (``None`` if possible)."""
    if sys.platform != "linux" or os.geteuid() != 0:
        return "needs root on Linux for a private mount namespace with overlays"
    unshare = shutil.which("unshare")
    if unshare is None:
        return "needs unshare (util-linux)"
    probe = subprocess.run(
        [unshare, "-m", "--propagation", "private", "true"], capture_output=True, check=False
    )
    if probe.returncode != 0:
        return f"unshare -m failed: {probe.stderr.decode().strip()}"
    if "overlay" not in Path("/proc/filesystems").read_text():
        return "the kernel has no overlayfs"
    return None


def run_in_overlays(
    trees: Sequence[str], scratch: Path, argv: Sequence[str], *, timeout: float = 900
) -> subprocess.CompletedProcess[str]:
    """Run ``argv`` with each of ``trees`` overlaid by a scratch directory under ``scratch``.

    ``argv[0]`` may be ``sh -c``-style shell text when ``argv`` has one element. The report
    spool's directory (/var/spool, where ``enable --scope system`` makes one) is overlaid
    too, after ``trees``, whether a test names it or not.
    """
    unshare = shutil.which("unshare")
    assert unshare is not None, namespace_problem()
    mounts = []
    trees = [*trees, *(t for t in ALWAYS_OVERLAID if t not in trees)]
    for index, tree in enumerate(trees):
        upper, work = scratch / f"upper{index}", scratch / f"work{index}"
        upper.mkdir(parents=True)
        work.mkdir()
        mounts.append(
            f"mount -t overlay overlay -o lowerdir={tree},upperdir={upper},workdir={work} {tree}"
        )
    if len(argv) == 1:
        script, arguments = " && ".join([*mounts, argv[0]]), []
    else:
        script, arguments = " && ".join([*mounts, 'exec "$@"']), ["sh", *argv]
    return subprocess.run(
        [unshare, "-m", "--propagation", "private", "sh", "-c", script, *arguments],
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def left_behind(scratch: Path, trees: Sequence[str]) -> list[str]:
    """What a namespace's writes changed for good: each overlay's upper layer against the tree.

    ``trees`` as given to :func:`run_in_overlays`. A file or link copied up must equal the
    machine's own (bytes, mode, target); a directory there must exist on the machine; a
    whiteout (a deletion) must be of something that never existed. What was written and
    removed again leaves nothing, or an equal copy.
    """
    found = []
    for index, tree in enumerate(trees):
        upper = scratch / f"upper{index}"
        for path in sorted(upper.rglob("*")):
            real = Path(tree) / path.relative_to(upper)
            info = path.lstat()
            try:
                original = real.lstat()
            except FileNotFoundError:
                original = None
            if stat.S_ISCHR(info.st_mode) and info.st_rdev == 0:  # a whiteout
                if original is not None:
                    found.append(f"removed: {real}")
            elif original is None:
                found.append(f"added: {real}")
            elif (
                stat.S_ISREG(info.st_mode)
                and (path.read_bytes() != real.read_bytes() or info.st_mode != original.st_mode)
            ) or (stat.S_ISLNK(info.st_mode) and os.readlink(path) != os.readlink(real)):
                found.append(f"changed: {real}")
    return found
