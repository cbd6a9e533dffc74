"""Files read and written safely: regular files only, bounded, atomic, private where trusted."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from sslcustomize._support._files import (
    atomic_write,
    make_directories,
    private_directory,
    read_regular,
    trusted_path,
    write_cache_entry,
)


def test_read_regular_reads_a_file_within_the_limit(tmp_path: Path) -> None:
    """A regular file up to the limit is read whole; one byte more is refused."""
    path = tmp_path / "f"
    path.write_bytes(b"x" * 10)
    assert read_regular(str(path), 10) == b"x" * 10
    with pytest.raises(ValueError, match="larger than 9 bytes"):
        read_regular(str(path), 9)


def test_read_regular_refuses_a_fifo_without_hanging(tmp_path: Path) -> None:
    """Attack: a FIFO with no writer is refused at once (non-blocking open, fstat check)."""
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    with pytest.raises(ValueError, match="not a regular file"):
        read_regular(str(fifo), 100)
    with pytest.raises(ValueError, match="not a regular file"):
        read_regular(str(tmp_path), 100)
    with pytest.raises(ValueError, match="not a regular file"):
        read_regular("/dev/zero", 100)


def test_a_private_read_refuses_links_and_files_others_can_write(tmp_path: Path) -> None:
    """A cache entry must be no link and writable by this user alone."""
    entry = tmp_path / "entry"
    entry.write_bytes(b"data")
    entry.chmod(0o600)
    assert read_regular(str(entry), 100, private=True) == b"data"
    link = tmp_path / "link"
    link.symlink_to(entry)
    assert read_regular(str(link), 100) == b"data"
    with pytest.raises(OSError):  # noqa: PT011 - ELOOP, the errno varies by platform
        read_regular(str(link), 100, private=True)
    entry.chmod(0o622)
    with pytest.raises(ValueError, match="not this user's alone"):
        read_regular(str(entry), 100, private=True)


def test_atomic_write_replaces_the_file_with_the_mode_given(tmp_path: Path) -> None:
    """The new text and mode are there; no temporary file is left beside it."""
    path = tmp_path / "policy.toml"
    path.write_text("old", encoding="utf-8")
    atomic_write(str(path), "new", mode=0o640)
    assert path.read_text(encoding="utf-8") == "new"
    assert path.stat().st_mode & 0o777 == 0o640
    assert [p.name for p in tmp_path.iterdir()] == ["policy.toml"]


def test_make_directories_are_0755_whatever_the_umask(tmp_path: Path) -> None:
    """Under umask 000 the directories made are still not writable by others."""
    old = os.umask(0)
    try:
        make_directories(str(tmp_path / "a" / "b"))
    finally:
        os.umask(old)
    assert (tmp_path / "a").stat().st_mode & 0o777 == 0o755
    assert (tmp_path / "a" / "b").stat().st_mode & 0o777 == 0o755


def test_a_directory_under_one_others_can_write_is_not_trusted(tmp_path: Path) -> None:
    """Attack: a world-writable parent (not sticky) could swap what is below it."""
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o777)
    assert not trusted_path(str(shared / "x"))
    assert not private_directory(str(shared / "cache"))


def test_a_private_directory_is_made_0700_and_trusted(tmp_path: Path) -> None:
    """Twin: under tmp_path (sticky /tmp above it) a directory of ours is made and trusted."""
    directory = tmp_path / "cache" / "anchors"
    assert private_directory(str(directory))
    assert directory.stat().st_mode & 0o777 == 0o700
    directory.chmod(0o755)
    assert private_directory(str(directory))
    assert directory.stat().st_mode & 0o777 == 0o700


def test_atomic_write_takes_pieces_and_a_broken_one_leaves_the_old_file(tmp_path: Path) -> None:
    """A page written in pieces is their text; one that raises leaves the old file whole."""
    path = tmp_path / "page.html"
    atomic_write(str(path), (piece for piece in ("<p>", "a" * 100_000, "</p>\n")))
    assert path.read_text(encoding="utf-8") == "<p>" + "a" * 100_000 + "</p>\n"

    def broken() -> Any:
        yield "<p>half"
        raise OSError(28, "No space left on device")

    with pytest.raises(OSError, match="No space"):
        atomic_write(str(path), broken())
    assert path.read_text(encoding="utf-8") == "<p>" + "a" * 100_000 + "</p>\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["page.html"]


def test_a_cache_entry_is_written_private_and_moved_into_place(tmp_path: Path) -> None:
    """An entry is its bytes, 0600 (or the mode given), with no temporary file left beside it."""
    entry = tmp_path / "cpython-312-4-0000abcd"
    write_cache_entry(str(entry), b"data")
    assert entry.read_bytes() == b"data"
    assert entry.stat().st_mode & 0o777 == 0o600
    write_cache_entry(str(entry), b"new", mode=0o644)
    assert (entry.read_bytes(), entry.stat().st_mode & 0o777) == (b"new", 0o644)
    assert sorted(p.name for p in tmp_path.iterdir()) == [entry.name]


def test_a_link_planted_at_the_temporary_name_is_not_followed(tmp_path: Path) -> None:
    """Attack: a link at the entry's temporary name leaves its target as it was, and no entry."""
    target = tmp_path / "target"
    target.write_bytes(b"keep")
    entry = tmp_path / "cache" / "cpython-312-4-0000abcd"
    entry.parent.mkdir()
    (entry.parent / f"{entry.name}.{os.getpid()}.tmp").symlink_to(target)
    write_cache_entry(str(entry), b"data")
    assert target.read_bytes() == b"keep"
    assert not entry.exists()


def test_a_cache_keeps_its_newest_entries_of_a_kind(tmp_path: Path) -> None:
    """Entries of a kind beyond ``keep`` go, the least recently written first; others stay."""
    for index in range(5):
        old = tmp_path / f"cpython-312-4-{index:08x}"
        old.write_bytes(b"old")
        os.utime(old, ns=(index * 10**9, index * 10**9))
    other = tmp_path / "cpython-311-4-00000000"  # another interpreter's kind
    other.write_bytes(b"other")
    unrelated = tmp_path / "cpython-312-4-00000001.99.tmp"  # someone's write under way
    unrelated.write_bytes(b"tmp")
    write_cache_entry(str(tmp_path / "cpython-312-4-ffffffff"), b"new", keep=3)
    left = sorted(p.name for p in tmp_path.iterdir())
    assert left == [
        "cpython-311-4-00000000",
        "cpython-312-4-00000001.99.tmp",
        "cpython-312-4-00000003",
        "cpython-312-4-00000004",
        "cpython-312-4-ffffffff",
    ]
