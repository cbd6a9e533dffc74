"""TOML parsed once per version of a file: a private cache of the parser's own results.

Importing ``tomllib`` and parsing a policy costs a fresh process about 25 ms: more than half
of what Python's own first ``create_default_context()`` costs in all. So what reading a
policy's text yields, the tree the parser returned and the line of each key (for messages),
is kept in ``marshal`` form under the user cache directory (``policy/``), one entry per
policy path, beside the exact text it was read from.

An entry is used only when:

* the text read now is the text it was parsed from, so an edited file is parsed again at
  once and nothing stale is ever used;
* it lies in a directory nobody but this user (and root) can change, the rule the anchors
  cache follows, and is a regular file (not a link) owned by this user, private to them;
* it is one this version writes.

The system layer is different (issue 22 #12): it carries the administrator's locks, so a
user's cache never decides it. Its entries live in :data:`SYSTEM_CACHE`, next to the runtime
that ``enable --scope system`` installs; they are read only when that directory and every one
above it belong to root and nobody else can write them, and the entry is root's and written
by no one else; only root writes them, and only where that runtime exists. A user's process
that finds no such entry parses the system file itself.

Anything else is a miss: the file is parsed as it would be without a cache, and the entry
rewritten. Nothing can come out weaker than a parse: the tree is what the parser returned
for these very characters. Invalid TOML is never cached; its error comes from the parser.
Writing is best effort: a cache that cannot be written costs time, never a policy.
"""

from __future__ import annotations

import binascii
import marshal
import os
import sys
from collections.abc import Callable

from sslcustomize._support._files import (
    cache_directory,
    private_directory,
    read_regular,
    root_path,
    write_cache_entry,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    import datetime as dt
    from typing import Any
else:
    from sslcustomize._support._notyping import Any


__all__ = ["SYSTEM_CACHE", "CachedDate", "cached_parse", "day_number", "entry_path"]

#: Where the system layer's parsed policy is kept: only root writes there (see above).
SYSTEM_CACHE = "/usr/local/lib/sslcustomize/policy-cache"

# What an entry holds: (FORMAT, text, tree, lines). In the tree, dates and times are tagged
# tuples (the parser returns no tuples, so a tuple is always a tag; a date is read back as a
# CachedDate); lines are pairs of a key path (a list) and its line.
_FORMAT = 2
_TAG = f"{sys.implementation.cache_tag}-{marshal.version}"
_MAX_ENTRY = 4 << 20  # an entry of a 1 MiB policy is about that size
_KEEP = 64  # entries of this interpreter's kind in a user's cache (see write_cache_entry)
#: What the parser returns besides dates and times (which are tagged tuples in an entry).
_PLAIN = (str, int, float, bool)

Tree = dict[str, Any]
KeyLines = dict[tuple[str | int, ...], int]


def cached_parse(
    text: str,
    path: str,
    parse: Callable[[str], Tree],
    locate: Callable[[str], KeyLines],
    *,
    system: bool = False,
) -> tuple[Tree, KeyLines]:
    """Return ``parse(text)`` and ``locate(text)``; from the entry of ``path`` if it has this text.

    Args:
        text: The policy file's text, as read now.
        path: The policy file.
        parse: The TOML parser.
        locate: What finds each key's line.
        system: ``path`` is the system layer: only root's cache may serve it.

    Raises:
        Exception: What ``parse`` raises (nothing is cached then).
    """
    entry = entry_path(path, system=system)
    if entry is not None:
        found = _read(entry, text, system=system)
        if found is not None:
            return found
    tree = parse(text)
    lines = locate(text)
    if entry is not None and (not system or os.geteuid() == 0):
        _write(entry, text, tree, lines, system=system)
    return tree, lines


def entry_path(path: str, *, system: bool = False) -> str | None:
    """Return where the entry of the policy file ``path`` lives; ``None``: no safe cache."""
    if not hasattr(os, "geteuid"):  # pragma: no cover - Windows: no ownership checks
        return None
    if system:
        directory = _system_directory()
        if directory is None:
            return None
    else:
        directory = cache_directory("policy")
        if not private_directory(directory):
            return None
    key = binascii.crc32(os.fsencode(os.path.abspath(path)))
    return os.path.join(directory, f"{_TAG}-{key:08x}")


def _system_directory() -> str | None:
    """Return :data:`SYSTEM_CACHE` if root alone can change it (root makes it if need be)."""
    if os.geteuid() == 0 and os.path.isdir(os.path.dirname(SYSTEM_CACHE)):
        try:  # noqa: SIM105 - contextlib stays out of the first context
            os.mkdir(SYSTEM_CACHE, 0o755)
        except OSError:
            pass
    return SYSTEM_CACHE if root_path(SYSTEM_CACHE) else None


def _read(entry: str, text: str, *, system: bool = False) -> tuple[Tree, KeyLines] | None:
    try:
        if system:
            data = read_regular(entry, _MAX_ENTRY, root_only=True)
        else:
            data = read_regular(entry, _MAX_ENTRY, private=True)
        # S302: a file of this user's (or root's) alone, checked on the open descriptor.
        form, source, encoded, pairs = marshal.loads(data)  # noqa: S302
        if form != _FORMAT or source != text:
            return None
        tree = _decode(encoded)
        lines = {tuple(key): line for key, line in pairs}
    except (OSError, EOFError, KeyError, ValueError, TypeError):
        return None
    if not isinstance(tree, dict) or not all(type(line) is int for line in lines.values()):
        return None
    return tree, lines


def _write(entry: str, text: str, tree: Tree, lines: KeyLines, *, system: bool) -> None:
    pairs = [[list(key), line] for key, line in lines.items()]
    try:
        data = marshal.dumps((_FORMAT, text, _encode(tree), pairs))
    except ValueError:  # pragma: no cover - the parser returns only what marshal writes
        return
    # One entry per policy path: a user's cache is bounded, the system's has one path.
    write_cache_entry(entry, data, mode=0o644 if system else 0o600, keep=0 if system else _KEEP)


def _encode(value: object) -> Any:
    if isinstance(value, dict):
        return {key: _encode(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_encode(item) for item in value]
    if isinstance(value, _PLAIN):
        return value
    import datetime as dt  # noqa: PLC0415 - only for a policy with dates: the parser loaded it

    # datetime before date: a datetime is a date.
    for kind, cls in (("datetime", dt.datetime), ("date", dt.date), ("time", dt.time)):
        if isinstance(value, cls):
            return (kind, value.isoformat())
    return value


#: The days of each month in a common year.
_MONTH_DAYS = (31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)


def day_number(year: int, month: int, day: int) -> int:
    """Return the proleptic Gregorian ordinal of a date, as ``datetime.date.toordinal()``.

    Raises:
        ValueError: No such date (the range and the rules are ``datetime.date``'s).
    """
    if not (1 <= year <= 9999 and 1 <= month <= len(_MONTH_DAYS)):
        raise ValueError(f"no such date: {year}-{month}-{day}")
    lengths = list(_MONTH_DAYS)
    if year % 4 == 0 and (year % 100 != 0 or year % 400 == 0):
        lengths[1] = 29
    if not 1 <= day <= lengths[month - 1]:
        raise ValueError(f"no such date: {year}-{month}-{day}")
    before = year - 1
    return (
        before * 365 + before // 4 - before // 100 + before // 400 + sum(lengths[: month - 1]) + day
    )


class CachedDate:
    """A TOML date read back from an entry, without importing :mod:`datetime` (~0.4 ms).

    A policy with dated exceptions is read at every hooked process's first context, and
    its dates are only compared with today's at a connection to an excepted host: the
    reader keeps the day's ordinal (:meth:`datetime.date.toordinal`), and
    :meth:`date` makes the real date where one is shown. Its ``repr`` is the date's, so a
    date where the policy wants another type gets the same message from the cache as from
    the parser.
    """

    __slots__ = ("day", "iso")

    def __init__(self, iso: str) -> None:
        """Read ``YYYY-MM-DD`` (what ``date.isoformat()`` wrote).

        Raises:
            ValueError: ``iso`` is not exactly that form or names no date.
        """
        year, month, day = iso[:4], iso[5:7], iso[8:]
        digits = year + month + day
        form = iso[4:5] + iso[7:8] == "--" and len(digits) == 8
        if not form or not digits.isascii() or not digits.isdigit():
            raise ValueError(f"not a date: {iso!r}")
        self.day = day_number(int(year), int(month), int(day))
        self.iso = iso

    def date(self) -> dt.date:
        """Return the :class:`datetime.date` this is."""
        import datetime as dt  # noqa: PLC0415 - only where a date is shown or compared

        return dt.date.fromisoformat(self.iso)

    def __repr__(self) -> str:
        """Return the ``repr`` of the date, as the parser's value would give it."""
        return repr(self.date())

    def __eq__(self, other: object) -> bool:
        """Tell whether ``other`` is the same day (a ``datetime.date`` or a cached one)."""
        if isinstance(other, CachedDate):
            return self.day == other.day
        # A date exists only where datetime is loaded: comparing with one loads nothing.
        datetime = sys.modules.get("datetime")
        if datetime is not None and type(other) is datetime.date:
            day: int = other.toordinal()  # type: ignore[attr-defined]  # a datetime.date
            return self.day == day
        return NotImplemented

    def __hash__(self) -> int:
        """Hash as the date does (they compare equal)."""
        return hash(self.date())


def _decoder(kind: str) -> Callable[[str], object]:
    """Return what reads a tagged date or time back (``KeyError`` for an unknown tag)."""
    if kind == "date":
        return CachedDate
    import datetime as dt  # noqa: PLC0415 - only for a policy with a date-time or a time

    decoders: dict[str, Callable[[str], object]] = {
        "datetime": dt.datetime.fromisoformat,
        "time": dt.time.fromisoformat,
    }
    return decoders[kind]


def _decode(value: object) -> object:
    if isinstance(value, dict):
        return {key: _decode(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_decode(item) for item in value]
    if isinstance(value, tuple):
        kind, iso = value
        return _decoder(kind)(iso)
    if value is None or isinstance(value, (bytes, set, frozenset, complex)):
        raise ValueError("not a value the parser returns")
    return value
