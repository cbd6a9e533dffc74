"""Files: written atomically (a temporary file, then ``os.replace``), read only when regular."""

from __future__ import annotations

import os
import stat

__all__ = ["atomic_write", "read_regular"]


def atomic_write(path: str, text: str, mode: int = 0o644) -> None:
    """Replace ``path`` with ``text`` so that readers see the old or the new file, never half."""
    directory = os.path.dirname(os.path.abspath(path))
    import tempfile  # noqa: PLC0415 - only the commands write files; hooked processes read

    descriptor, temporary = tempfile.mkstemp(prefix=".tmp-", dir=directory)
    try:
        with os.fdopen(descriptor, "w", encoding="utf-8") as file:
            file.write(text)
            file.flush()
            os.fsync(file.fileno())
        os.chmod(temporary, mode)
        os.replace(temporary, path)
    except BaseException:
        os.unlink(temporary)
        raise


def read_regular(path: str, limit: int) -> bytes:
    """Read a regular file (symlinks to one are followed) of at most ``limit`` bytes.

    Opened non-blocking (a FIFO with no writer would hang the open) and checked with ``fstat``
    on the descriptor before any read, so a FIFO, a device (``/dev/zero``, ``/dev/stdin``), a
    socket or a directory is never read, and a swap after the check changes nothing.

    Raises:
        OSError: The file cannot be opened or read.
        ValueError: It is not a regular file, or larger than ``limit``.
    """
    descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    try:
        if not stat.S_ISREG(os.fstat(descriptor).st_mode):
            raise ValueError("not a regular file")
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
