"""Run a command in a private mount namespace with throw-away overlays over some directories.

Whatever the command writes under an overlaid directory lands in a scratch upper directory and
vanishes with the namespace: tests of system-wide installs never touch the machine's files.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

__all__ = ["namespace_problem", "run_in_overlays"]


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

    ``argv[0]`` may be ``sh -c``-style shell text when ``argv`` has one element.
    """
    unshare = shutil.which("unshare")
    assert unshare is not None, namespace_problem()
    mounts = []
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
