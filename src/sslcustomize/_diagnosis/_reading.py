"""Read report records as hostile input: bounded, field by field, each labelled with its source.

``report`` reads what many users and machines wrote: fleet directories gathered by someone
else's script, group-shared logs, other users' spools, the journal (whose ``SSLCUSTOMIZE_*``
fields any local user writes). Nothing read here is trusted:

* a file is opened only if it is a regular file: ``lstat`` first, then
  ``O_NOFOLLOW | O_NONBLOCK`` and ``fstat`` on the descriptor (a FIFO is never waited on, a
  device never read, a link swapped in between is refused by the kernel);
* inside a directory, symbolic links are not followed at all (neither to files nor to
  directories, inside or outside the tree): each is skipped and counted;
* a file is read to at most :data:`MAX_FILE_BYTES`, a line to at most :data:`MAX_LINE`
  (a longer line is passed over in chunks, never held whole);
* a file with SQLite's header that is not a report database is skipped and counted;
* every record is validated field by field (:func:`validate`): a bad one is skipped and
  counted by source and reason, and the good ones of the same file are kept;
* each record is labelled with where it came from (``source``: the file, or the spool owner's
  uid from ``fstat``), so that a forged ``program`` or ``machine`` cannot pass as another's.

Reading streams: each valid record is handed to the :class:`Reading`'s ``accept`` as soon as
it is read, and nothing of it is kept here, so a fleet of a million records costs the memory
of what ``accept`` keeps of them (see :mod:`._summary`), not of the records.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import ipaddress
import json
import operator
import os
import re
import stat
from collections.abc import Callable, Iterable, Iterator, Mapping
from json.scanner import make_scanner
from typing import Any, BinaryIO, cast

from sslcustomize._report._journal import FIELD_PREFIX, IDENTIFIER, INTEGER_FIELDS, TUPLE_FIELDS
from sslcustomize._report._records import SPOOL_SUFFIX, spool_parts
from sslcustomize._verdict._reasons import REASONS, STARTTLS_PORTS

__all__ = [
    "MAX_FILE_BYTES",
    "MAX_LAYOUTS",
    "MAX_LINE",
    "JournalLayout",
    "Reading",
    "is_host_name",
    "journal_layout",
    "journal_varying",
    "open_regular",
    "parse_time",
    "read_journal_output",
    "read_journal_stream",
    "read_lines",
    "read_path",
    "read_spool_of",
    "record_from_journal",
    "shared_key",
    "sink_time",
    "validate",
    "varying_fields",
]

#: The most bytes read from one file (a sink's file, an export, a spool part).
MAX_FILE_BYTES = 256 << 20
#: The longest line read as a record, in bytes. A record's fields are cut at 4 KiB by the
#: journal writer; a legitimate record stays far below this.
MAX_LINE = 256 << 10
#: The longest string field, in characters, and the most items of a list field.
MAX_TEXT = 8192
MAX_ITEMS = 64
#: How deep a fleet directory is walked.
MAX_DEPTH = 16
_SQLITE_HEADER = b"SQLite format 3\x00"
#: The length of a time as the sinks write it: ``2026-12-01T10:00:00+00:00``.
_SINK_TIME = 25
_CHUNK = 64 << 10
#: The files SQLite keeps beside a database (read with it, not as files of their own).
_SQLITE_SIDE_FILES = (".sqlite3-wal", ".sqlite3-shm", ".sqlite3-journal")

#: Every reason code a record may carry (``REASONS``, and those only records use).
KNOWN_REASONS = frozenset((*REASONS, "code_opt_out", "variable_ignored"))
_VERDICTS = frozenset({"rejected", "accepted", "opt_out", "refused", "ignored"})
_TEXT_FIELDS = (
    "program",
    "context",
    "mode",
    "rule",
    "origin",
    "machine",
    "leaf_subject",
    "issuer",
    "not_after",
    "pin",
    "top_issuer",
    "comm",
    "expired_host",
    "expired_origin",
)
_LIST_FIELDS = ("chain_sha256", "intermediates")
_LAYERS = frozenset({"system", "venv", "user", "process"})
_LABEL = re.compile(r"(?!-)[A-Za-z0-9-]{1,63}(?<!-)\Z")
_SCOPE_ID = re.compile(r"[A-Za-z0-9_.-]{1,15}\Z")


class Reading:
    """What reading gave: the valid records, and the skipped ones counted by source and reason.

    Each valid record goes to ``accept`` as it is read, and is not kept here. Without
    ``accept``, the records are collected in :attr:`records`: for a few records (a test, one
    small file), never for what a fleet sends.
    """

    def __init__(
        self,
        accept: Callable[[dict[str, Any]], object] | None = None,
        *,
        take: Callable[[Any, str, int | None, bool], str] | None = None,
        take_journal: Callable[[dict[str, Any], str, int | None], str | None] | None = None,
    ) -> None:
        """Start with nothing read; hand each valid record to ``accept``.

        With ``take`` instead, each decoded entry goes to it unchecked, with its source, the
        owner that vouches for its uid and whether it came from the journal: ``take`` checks
        it as :func:`validate` does and returns why it refuses it ("" when it took it).
        With ``take_journal`` too, a journal entry goes to it as ``journalctl`` printed it
        (not turned into a record first): it returns as ``take`` does, or ``None`` for an
        entry that holds no record (another program's), which is not counted.
        """
        self.records: list[dict[str, Any]] = []
        self._accept = self.records.append if accept is None else accept
        self._take = take
        self._take_journal = take_journal if take is not None else None
        #: How many valid records were handed on.
        self.kept = 0
        self.skipped: dict[tuple[str, str], int] = {}
        #: Per file read: how many records it gave, and how many lines were not records.
        self.files: dict[str, list[int]] = {}

    def skip(self, source: str, reason: str, count: int = 1) -> None:
        """Count ``count`` records or files of ``source`` skipped for ``reason``."""
        key = (source, reason)
        self.skipped[key] = self.skipped.get(key, 0) + count

    def add(
        self, entry: Any, source: str, *, owner: int | None = None, journal: bool = False
    ) -> None:
        """Validate one entry read from ``source``; keep it labelled, or count it skipped.

        ``uid`` is kept only where something other than the writer vouches for it: the
        journal's trusted ``_UID`` (``journal``), or the owner of a user's spool (``owner``,
        from ``fstat``). A uid a line of a file claims is checked, then dropped.
        """
        take = self._take
        if take is not None:
            why = take(entry, source, owner, journal)
            counts = self.files.get(source)
            if counts is None:
                counts = self.files[source] = [0, 0]
            if why:
                self.skip(source, why)
                counts[1] += 1
            else:
                self.kept += 1
                counts[0] += 1
            return
        record, why = validate(entry)
        if record is None:
            self.skip(source, why)
            self.files.setdefault(source, [0, 0])[1] += 1
            return
        record["source"] = source
        if owner is not None:
            record["uid"] = owner  # the file's owner, from fstat: not what the line claims
        elif not journal:
            record.pop("uid", None)
        self.kept += 1
        counts = self.files.get(source)
        if counts is None:
            counts = self.files[source] = [0, 0]
        counts[0] += 1
        self._accept(record)

    def skipped_list(self) -> list[dict[str, Any]]:
        """The skips as ``{"source", "reason", "count"}``, by source then reason."""
        return [
            {"source": source, "reason": reason, "count": count}
            for (source, reason), count in sorted(self.skipped.items())
        ]

    def skipped_total(self) -> int:
        """How many records, lines and files were skipped in all."""
        return sum(self.skipped.values())


# --- Values -------------------------------------------------------------------------------------


def is_host_name(host: object) -> bool:
    """Tell whether ``host`` is a DNS name (letters, digits, hyphens), an IPv4 or IPv6 address.

    Only such a host is ever put into a command that ``report`` prints: it cannot start with
    ``-`` (an option), and holds no space, quote or shell character.
    """
    if not isinstance(host, str) or not host or len(host) > 253:
        return False
    address, _, scope = host.partition("%")
    if ":" in address:
        return (not scope or bool(_SCOPE_ID.match(scope))) and _parses(
            ipaddress.IPv6Address, address
        )
    if scope:
        return False
    if _parses(ipaddress.IPv4Address, host):
        return True
    name = host[:-1] if host.endswith(".") else host
    return all(_LABEL.match(label) for label in name.split("."))


def _parses(kind: type[ipaddress.IPv4Address | ipaddress.IPv6Address], text: str) -> bool:
    try:
        kind(text)
    except ValueError:
        return False
    return True


def parse_time(value: str) -> dt.datetime:
    """Return the aware UTC time an ISO 8601 text says (a date alone: its midnight UTC).

    Raises:
        ValueError: ``value`` is not such a text.
    """
    text = value.strip()
    if text.endswith(("Z", "z")):
        text = text[:-1] + "+00:00"
    parsed = dt.datetime.fromisoformat(text)
    if parsed.tzinfo is None:
        return parsed.replace(tzinfo=dt.timezone.utc)
    try:
        return parsed.astimezone(dt.timezone.utc)
    except OverflowError:  # year 1 east of UTC, or year 9999 west of it
        raise ValueError(f"{value!r} is out of range in UTC") from None


def _time(value: str) -> bool:
    """Tell whether ``value`` is an ISO 8601 time :func:`parse_time` reads."""
    if len(value) == _SINK_TIME and value.endswith("+00:00"):
        # As the sinks write it (the common case, a third of the cost of parse_time).
        try:
            dt.datetime.fromisoformat(value)
        except ValueError:
            pass  # parse_time decides
        else:
            return True
    try:
        parse_time(value)
    except ValueError:
        return False
    return True


def validate(entry: object) -> tuple[dict[str, Any] | None, str]:
    """Return a record's known fields checked one by one, or ``None`` and why it is refused.

    Types and ranges: ``time`` an ISO 8601 text, ``verdict`` a known verdict, ``port`` an
    integer 1-65535, ``pid``/``uid`` non-negative integers, ``reasons`` a list of known reason
    codes, strings at most :data:`MAX_TEXT` characters, lists at most :data:`MAX_ITEMS` items.
    ``host`` is any bounded string here: one that is not a host name is kept, shown escaped and
    flagged (see :func:`is_host_name`). Fields not known are dropped.

    It runs once per record of a fleet: each check is written out (``x.__class__ is str``
    rather than a helper's call per field), one group of fields per function, which makes it
    a fraction of the JSON decoding's cost. The first field that is wrong is named.
    """
    if not isinstance(entry, dict):
        return None, "not a JSON object"
    record: dict[str, Any] = {}
    why = (
        _check_core(entry, record) or _check_reasons(entry, record)
        or _check_numbers(entry, record)
        or _check_texts(entry, record) or _check_lists(entry, record)
        or _check_choices(entry, record)
    )  # fmt: skip
    if why:
        return None, why
    return record, ""


_LARGEST = 2**32


def _check_core(entry: dict[str, Any], record: dict[str, Any]) -> str:
    """Check and keep ``time``, ``verdict``, ``host`` and ``port``; "" if they are good."""
    get = entry.get
    time = get("time")
    if time.__class__ is not str or len(time) > MAX_TEXT:
        return "time is not a text"
    if not _time(time):
        return "time is not an ISO 8601 date"
    verdict = get("verdict")
    if verdict.__class__ is not str or verdict not in _VERDICTS:
        return "verdict is not a known verdict"
    host = get("host")
    if host is not None and (host.__class__ is not str or len(host) > MAX_TEXT):
        return "host is not a text (or too long)"
    port = get("port")
    if port is not None and (port.__class__ is not int or not 1 <= port <= 65535):
        return "port is not an integer 1-65535"
    record["time"] = time
    record["verdict"] = verdict
    record["host"] = host
    record["port"] = port
    return ""


def _check_reasons(entry: dict[str, Any], record: dict[str, Any]) -> str:
    """Check and keep ``reasons``: a short list of known reason codes, each kept once."""
    reasons = entry.get("reasons", [])
    if reasons.__class__ is not list or len(reasons) > MAX_ITEMS:
        return "reasons is not a list"
    for reason in reasons:
        if reason.__class__ is not str or reason not in KNOWN_REASONS:
            return "reasons holds an unknown reason"
    record["reasons"] = list(dict.fromkeys(reasons)) if len(reasons) > 1 else reasons
    return ""


def _check_numbers(entry: dict[str, Any], record: dict[str, Any]) -> str:
    """Check and keep ``pid``, ``uid`` and ``version``: each absent or an integer 0-2**32."""
    for name in ("pid", "uid", "version"):
        value = entry.get(name)
        if value is not None:
            if value.__class__ is not int or not 0 <= value <= _LARGEST:
                return f"{name} is not a non-negative integer"
            record[name] = value
    return ""


def _check_texts(entry: dict[str, Any], record: dict[str, Any]) -> str:
    """Check and keep the other texts: each absent or at most :data:`MAX_TEXT` characters."""
    get = entry.get
    for name in _TEXT_FIELDS:
        value = get(name)
        if value is not None:
            if value.__class__ is not str or len(value) > MAX_TEXT:
                return f"{name} is not a text (or too long)"
            record[name] = value
    return ""


def _check_lists(entry: dict[str, Any], record: dict[str, Any]) -> str:
    """Check and keep ``chain_sha256`` and ``intermediates``: lists of bounded texts."""
    for name in _LIST_FIELDS:
        value = entry.get(name, [])
        if value.__class__ is not list or len(value) > MAX_ITEMS:
            return f"{name} is not a list of texts"
        for item in value:
            if item.__class__ is not str or len(item) > MAX_TEXT:
                return f"{name} is not a list of texts"
        record[name] = value
    return ""


def _check_choices(entry: dict[str, Any], record: dict[str, Any]) -> str:
    """Check and keep ``starttls`` and ``expired_layer``: absent or one of their values."""
    starttls = entry.get("starttls")
    if starttls is not None and (starttls.__class__ is not str or starttls not in STARTTLS_PORTS):
        return "starttls is not a known protocol"
    layer = entry.get("expired_layer")
    if layer is not None and (layer.__class__ is not str or layer not in _LAYERS):
        return "expired_layer is not a policy layer"
    record["starttls"] = starttls
    record["expired_layer"] = layer
    return ""


# --- Checked once per distinct value ----------------------------------------------------------

#: The fields one program's records of one server share and the summary reads, the key of
#: a plan: texts or ``None``, then two numbers and two lists of texts.
_SHARED = (
    "verdict", "host", "program", "context", "rule", "top_issuer", "starttls", "expired_host",
    "expired_origin", "expired_layer", "version", "port", "reasons", "intermediates",
)  # fmt: skip
#: The fields checked on every record: they vary, or the summary does not read them. The
#: sinks always write them: ``time``, ``pid``, ``machine``, then the program's and the
#: chain's (texts or ``None``, the chain a list of texts).
_VARYING = (
    "time", "pid", "machine", "mode", "origin", "leaf_subject", "issuer", "not_after", "pin",
    "chain_sha256",
)  # fmt: skip
#: The fields besides the lists that the sinks write as ``null`` when unset.
_SINK_TEXTS = tuple(name for name in (*_SHARED, *_VARYING) if name not in TUPLE_FIELDS)
# One C call fetches them all from a sink's record; a journal's names only what it has.
_shared_values = operator.itemgetter(*_SHARED)
_varying_values = operator.itemgetter(*_VARYING)
#: Where the sinks' times have their separators (every third character from the fifth).
_SINK_SEPARATORS = "--T::+:"


def shared_key(entry: dict[str, Any]) -> tuple[Any, ...] | None:
    """The values of ``entry``'s shared fields, as a key; ``None`` if their shape is unusual.

    A key equal to the key of a record :func:`validate` passed has valid values: a JSON
    value equal to a text is that text, to ``None`` is ``None``, to a tuple of texts a list
    of those texts. Only numbers compare equal across types (``443 == 443.0``, ``1 == True``),
    so ``port`` and ``version`` must be ``int`` here; a list or object where a text belongs
    makes the key unhashable (``TypeError`` where it is looked up).
    """
    try:
        values = _shared_values(entry)
    except KeyError:  # a journal's record, or a record written by hand
        values = tuple(map(entry.get, _SHARED))
    version, port, reasons, intermediates = values[-4:]
    if (
        (port is not None and port.__class__ is not int)
        or (version is not None and version.__class__ is not int)
        or reasons.__class__ is not list
        or intermediates.__class__ is not list
    ):
        return None
    return (values[:-2], tuple(reasons), tuple(intermediates))


def sink_time(value: Any) -> bool:
    """Tell whether ``value`` is a valid time as the sinks write it: ``2026-12-01T10:00:00+00:00``.

    Such times compare as text in time order, and their UTC day is their first ten
    characters (the other layouts ``datetime`` reads, such as week dates, do not).
    """
    if (
        value.__class__ is not str
        or len(value) != _SINK_TIME
        or value[4::3] != _SINK_SEPARATORS
        or not value.endswith("+00:00")
    ):
        return False
    try:
        dt.datetime.fromisoformat(value)
    except ValueError:
        return False
    return True


def varying_fields(entry: dict[str, Any], known: tuple[Any, ...]) -> tuple[Any, ...] | None:
    """Check the fields of ``entry`` outside :func:`shared_key` as :func:`validate` does.

    Returns its program's and chain's fields (``mode`` to ``chain_sha256`` of
    :data:`_VARYING`) when every field passes; ``None`` sends the entry to :func:`validate`,
    which decides and names the first field that is wrong. Only in the common shape: a time
    as the sinks write it, every field of :data:`_VARYING` present.

    ``known`` holds those fields of a record that passed (the last of the same plan): equal
    ones pass without a check, as equal values of JSON are of the same type but for numbers
    (a text equals only a text, a list of texts only such a list).
    """
    try:
        values = _varying_values(entry)
    except KeyError:
        return None
    time, pid, machine = values[0], values[1], values[2]
    get = entry.get
    uid, comm = get("uid"), get("comm")  # only the journal's records have them
    if not (
        sink_time(time)
        and (pid is None or (pid.__class__ is int and 0 <= pid <= _LARGEST))
        and (machine is None or (machine.__class__ is str and len(machine) <= MAX_TEXT))
        and ((uid is None and comm is None) or (_counts((uid,)) and _texts((comm,))))
    ):
        return None
    rest = values[3:]
    return rest if rest == known or _program_and_chain(rest) else None


def _program_and_chain(values: tuple[Any, ...]) -> bool:
    """Tell whether the texts and then the chain (``mode`` to ``chain_sha256``) are valid."""
    chain = values[-1]
    return (
        _texts(values[:-1])
        and chain.__class__ is list
        and len(chain) <= MAX_ITEMS
        and _texts(chain, absent=False)
    )


def _counts(values: tuple[Any, ...]) -> bool:
    """Tell whether each of ``values`` is ``None`` or an integer 0-2**32."""
    for value in values:
        if value is not None and (value.__class__ is not int or not 0 <= value <= _LARGEST):
            return False
    return True


def _texts(values: Iterable[Any], *, absent: bool = True) -> bool:
    """Tell whether each of ``values`` is a text of at most :data:`MAX_TEXT` (or ``None``)."""
    for value in values:
        if value.__class__ is not str or len(value) > MAX_TEXT:
            if value is None and absent:
                continue
            return False
    return True


# --- Files --------------------------------------------------------------------------------------


def open_regular(path: str, *, follow: bool) -> int:
    """Open ``path`` to read if it is a regular file, never waiting (a FIFO) or reading a device.

    Raises:
        OSError: It is missing, a link (unless ``follow``), or not a regular file.
    """
    if not follow:
        info = os.lstat(path)
        if stat.S_ISLNK(info.st_mode):
            raise OSError(f"{path}: a symbolic link (not followed)")
        if not stat.S_ISREG(info.st_mode):
            raise OSError(f"{path}: not a regular file")
    flags = os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | (0 if follow else os.O_NOFOLLOW)
    descriptor = os.open(path, flags)
    if not stat.S_ISREG(os.fstat(descriptor).st_mode):
        os.close(descriptor)
        raise OSError(f"{path}: not a regular file")
    return descriptor


def read_lines(file: BinaryIO, limit: int | None = None) -> Iterator[bytes | None]:
    """Yield each line of ``file`` (``None`` for one longer than :data:`MAX_LINE`), to ``limit``.

    ``limit`` is :data:`MAX_FILE_BYTES` unless given. A long line is skipped a chunk at a
    time, so its length costs no memory.
    """
    budget = MAX_FILE_BYTES if limit is None else limit
    while budget > 0:
        line = file.readline(min(MAX_LINE + 1, budget))
        if not line:
            return
        budget -= len(line)
        if len(line) <= MAX_LINE:
            yield line
            continue
        while not line.endswith(b"\n") and budget > 0:  # the rest of the long line
            line = file.readline(min(_CHUNK, budget))
            if not line:
                break
            budget -= len(line)
        yield None


#: How many bytes :func:`_line_blocks` reads at a time (at most :data:`MAX_LINE`).
_BLOCK = 64 << 10


def _line_blocks(file: BinaryIO, limit: int | None = None) -> Iterator[list[str | None]]:
    """Yield the lines of ``file`` a block at a time, each decoded and without its newline.

    The same lines as :func:`read_lines` (``None`` for one longer than :data:`MAX_LINE`,
    to ``limit``, :data:`MAX_FILE_BYTES` unless given), cut from blocks read whole: a block
    of complete lines is decoded in one call and split at its newlines, and a line is never
    held past :data:`MAX_LINE` bytes. Decoding lines together gives the text each gives
    alone: a newline byte is never part of a UTF-8 sequence, so no replacement of a broken
    sequence reaches across it.
    """
    budget = MAX_FILE_BYTES if limit is None else limit
    pending = b""  # the start of a line whose newline is not read yet
    long = False  # inside a line longer than MAX_LINE, passed over
    while budget > 0:
        chunk = file.read(min(_BLOCK, budget))
        if not chunk:
            break
        budget -= len(chunk)
        lines: list[str | None] = []
        start = 0
        if long:
            start = chunk.find(b"\n") + 1
            if not start:
                continue
            long = False
            lines.append(None)
        last = chunk.rfind(b"\n")
        if last < start:
            pending += chunk[start:]
            if len(pending) > MAX_LINE:
                pending, long = b"", True
        else:
            lines += _split(pending + chunk[start : last + 1])
            pending = chunk[last + 1 :]
        if lines:
            yield lines
    if long:
        yield [None]
    elif pending:
        yield [pending.decode("utf-8", "replace")]


def _split(body: bytes) -> list[str | None]:
    """The lines of ``body`` (complete lines), decoded; ``None`` for one over :data:`MAX_LINE`."""
    if len(body) <= MAX_LINE:
        lines: list[str | None] = list(body.decode("utf-8", "replace").split("\n"))
        lines.pop()  # what follows the last newline: nothing
        return lines
    return [
        line.decode("utf-8", "replace") if len(line) < MAX_LINE else None
        for line in body.split(b"\n")[:-1]
    ]


def _read_jsonl(file: BinaryIO, source: str, reading: Reading, owner: int | None) -> None:
    """Read JSON lines (sink files, spools, ``journalctl -o json`` exports) into ``reading``."""
    take = reading._take  # noqa: SLF001 - this module's own class
    if take is None:
        for entry, journal in _entries(file, source, reading):
            reading.add(entry, source, owner=owner, journal=journal)
    else:
        # Counted here, once per file: the reader's bookkeeping is not per record.
        kept = 0
        take_journal = reading._take_journal  # noqa: SLF001 - this module's own class
        for entry, journal in _entries(file, source, reading, raw=take_journal is not None):
            if journal and take_journal is not None:
                why = take_journal(entry, source, owner)
                if why is None:
                    continue  # another program's journal entry in an export: not ours to count
            else:
                why = take(entry, source, owner, journal)
            if why:
                _not_a_record(reading, source, why)
            else:
                kept += 1
        if kept:
            reading.kept += kept
            reading.files.setdefault(source, [0, 0])[0] += kept
    if file.read(1):
        reading.skip(source, f"file longer than {MAX_FILE_BYTES} bytes (the rest not read)")


def _entries(
    file: BinaryIO, source: str, reading: Reading, *, raw: bool = False
) -> Iterator[tuple[Any, bool]]:
    """Yield each line's JSON value and whether it is a journal entry; count what is not one.

    A journal entry is given as the record it holds (another program's is passed over), or
    as it is (``raw``).
    """
    scan = _scan_once
    for block in _line_blocks(file):
        for line in block:
            if line is None:
                _not_a_record(reading, source, f"line longer than {MAX_LINE} bytes")
                continue
            try:
                entry, end = scan(line, 0)
            except (StopIteration, ValueError, RecursionError):
                end = -1
            if end != len(line):  # not one JSON value alone: json.loads decides
                entry = _json_text(line)
                if entry is _NOT_JSON:
                    _not_a_record(reading, source, "line is not JSON (a torn write?)")
                    continue
                if entry is _BLANK:
                    continue
            journal = entry.__class__ is dict and (
                "__CURSOR" in entry or "SYSLOG_IDENTIFIER" in entry
            )
            if journal and not raw:
                entry = record_from_journal(entry)
                if entry is None:
                    continue  # another program's journal entry in an export: not ours to count
            yield entry, journal


def _not_a_record(reading: Reading, source: str, why: str) -> None:
    """Count a line of ``source`` that is not a record."""
    reading.skip(source, why)
    reading.files.setdefault(source, [0, 0])[1] += 1


#: What :func:`_json_line` returns for a line that is not JSON, and for a blank line.
_NOT_JSON = object()
_BLANK = object()
_raw_decode = json.JSONDecoder().raw_decode
#: What ``raw_decode`` calls (the C scanner, made as ``JSONDecoder`` makes it):
#: ``StopIteration`` where ``raw_decode`` raises ``JSONDecodeError``, one Python frame less.
_scan_once = make_scanner(cast("Any", json.JSONDecoder()))  # typeshed: the scanner's own type
#: What JSON counts as white space (``str.strip()`` would take more: ``\x0b``, ``\x1c``...).
_JSON_SPACE = " \t\n\r"
#: What ``bytes.strip()`` takes: a line of only these is blank.
_ASCII_SPACE = " \t\n\r\x0b\x0c"


def _json_line(line: bytes) -> Any:
    """The value of one line of JSON, or :data:`_NOT_JSON`, or :data:`_BLANK` (white space)."""
    return _json_text(line.decode("utf-8", "replace"))


def _json_text(text: str) -> Any:
    """The value of one decoded line of JSON, or :data:`_NOT_JSON`, or :data:`_BLANK`.

    Exactly what ``json.loads`` accepts, without its two regular-expression scans in the
    common case (a line that starts with its value and ends with it or white space): a line
    that does not decode so is handed to ``json.loads`` itself. Nesting deep enough to
    exhaust the decoder's recursion is not JSON here either.
    """
    try:
        value, end = _raw_decode(text)
    except (ValueError, RecursionError):
        pass
    else:
        if end == len(text) or not text[end:].strip(_JSON_SPACE):
            return value
    if not text.strip(_ASCII_SPACE):
        return _BLANK
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        return _NOT_JSON


def _copy(descriptor: int, target: str) -> bool:
    """Copy the open file to ``target`` (new, 0600); ``False`` when it is over the bound."""
    if os.fstat(descriptor).st_size > MAX_FILE_BYTES:
        return False
    os.lseek(descriptor, 0, os.SEEK_SET)
    budget = MAX_FILE_BYTES
    with open(os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600), "wb") as out:
        while chunk := os.read(descriptor, min(_CHUNK * 16, budget + 1)):
            budget -= len(chunk)
            if budget < 0:
                return False  # it grew while being copied
            out.write(chunk)
    return True


def _read_sqlite(descriptor: int, path: str, reading: Reading) -> None:
    """Read a SQLite report database; a file that is not one is skipped and counted.

    SQLite opens files by name, without ``O_NONBLOCK``: a FIFO put in the file's place after
    it was checked would hang it. So the database and its ``-wal`` are copied, through
    descriptors checked to be regular files, into a private temporary directory, and the
    copy is read (a snapshot: what a writer appends meanwhile is for the next report).
    """
    import tempfile  # noqa: PLC0415 - only when a database is read

    with tempfile.TemporaryDirectory(prefix="sslcustomize-report-") as directory:
        copy = os.path.join(directory, "records.sqlite3")
        if not _copy(descriptor, copy):
            reading.skip(path, f"database larger than {MAX_FILE_BYTES} bytes")
            return
        try:
            wal = open_regular(path + "-wal", follow=False)
        except FileNotFoundError:
            pass  # no write-ahead log: everything is in the database
        except OSError as error:
            reading.skip(path + "-wal", _why(error))
        else:
            with os.fdopen(wal, "rb") as file:
                _copy(file.fileno(), copy + "-wal")
        _rows(copy, path, reading)


def _rows(copy: str, source: str, reading: Reading) -> None:
    """Read the records of the database ``copy`` of ``source``, each validated."""
    import sqlite3  # noqa: PLC0415 - only when a database is read

    try:
        with contextlib.closing(sqlite3.connect(copy, timeout=1.0)) as connection:
            for (text,) in connection.execute("SELECT record FROM records ORDER BY id"):
                if not isinstance(text, str) or len(text) > MAX_LINE:
                    reading.skip(source, "database row is not a record")
                    continue
                try:
                    entry = json.loads(text)
                except (ValueError, RecursionError):  # nesting past the decoder's depth
                    reading.skip(source, "database row is not JSON")
                    continue
                reading.add(entry, source)
    except sqlite3.Error as error:
        reading.skip(source, f"not a report database ({error})")


def _read_file(path: str, reading: Reading, *, follow: bool, owner: int | None = None) -> None:
    """Read one file of records (its kind told by its first bytes) into ``reading``."""
    try:
        descriptor = open_regular(path, follow=follow)
    except OSError as error:
        reading.skip(path, _why(error))
        return
    with os.fdopen(descriptor, "rb") as file:
        if owner is not None and os.fstat(descriptor).st_uid != owner:
            reading.skip(path, f"not a file of uid {owner}")
            return
        if file.read(len(_SQLITE_HEADER)) == _SQLITE_HEADER:
            _read_sqlite(descriptor, path, reading)
            return
        file.seek(0)
        source = f"spool of uid {owner}: {path}" if owner is not None else path
        _read_jsonl(file, source, reading, owner)


def _why(error: OSError) -> str:
    """A skipped file's reason, without the path the message may repeat."""
    text = error.strerror or str(error)
    return text.rpartition(": ")[2] if ": " in text else text


def _walk(directory: str, reading: Reading, depth: int = 0) -> None:
    """Read every regular file under ``directory``, in name order, following no link."""
    try:
        with os.scandir(directory) as found:
            entries = sorted(found, key=lambda e: e.name)
    except OSError as error:
        reading.skip(directory, f"directory not readable ({_why(error)})")
        return
    for entry in entries:
        path = entry.path
        try:
            info = entry.stat(follow_symlinks=False)
        except OSError as error:
            reading.skip(path, _why(error))
            continue
        if stat.S_ISLNK(info.st_mode):
            reading.skip(path, "a symbolic link (not followed)")
        elif stat.S_ISDIR(info.st_mode):
            if depth >= MAX_DEPTH:
                reading.skip(path, f"deeper than {MAX_DEPTH} directories")
            else:
                _walk(path, reading, depth + 1)
        elif not stat.S_ISREG(info.st_mode):
            reading.skip(path, f"not a regular file ({_kind(info.st_mode)})")
        elif entry.name.endswith(_SQLITE_SIDE_FILES):
            continue  # part of a database beside it, read with it
        else:
            _read_file(path, reading, follow=False)


def _kind(mode: int) -> str:
    for test, name in (
        (stat.S_ISFIFO, "a FIFO"),
        (stat.S_ISSOCK, "a socket"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
    ):
        if test(mode):
            return name
    return "not a file"


def read_path(path: str, reading: Reading) -> None:
    """Read the records at ``path`` into ``reading``.

    ``path`` is a ``sqlite`` or ``jsonl`` sink file (with its spool, the records not yet
    written to it), a ``journalctl -o json`` export, or a directory of such files gathered from
    many machines (walked in name order; links inside it are not followed). The path named
    itself may be a link (the person typing it chose it); it must still be a regular file or
    a directory.
    """
    if os.path.isdir(path):
        _walk(path, reading)
        return
    _read_file(path, reading, follow=True)
    spool = path + SPOOL_SUFFIX
    for part, offset in spool_parts(spool):
        _read_part(part, offset, reading, owner=None)


def _read_part(part: str, offset: int, reading: Reading, owner: int | None) -> None:
    """Read one spool part from ``offset`` (records before it were written into the sink)."""
    source = f"spool of uid {owner}: {part}" if owner is not None else part
    try:
        descriptor = open_regular(part, follow=False)
    except OSError as error:
        if not isinstance(error, FileNotFoundError):  # a part being emptied moved on
            reading.skip(source, _why(error))
        return
    with os.fdopen(descriptor, "rb") as file:
        if owner is not None and os.fstat(descriptor).st_uid != owner:
            reading.skip(source, f"not a file of uid {owner}")
            return
        file.seek(offset)
        _read_jsonl(file, source, reading, owner)


def read_spool_of(spool: str, owner: int | None, reading: Reading) -> None:
    """Read a spool, each part from its offset; a user's: each part ``owner``'s regular file.

    With ``owner`` (a journal or syslog spool of that uid), its records are labelled as that
    uid's (``uid`` and ``source``), whatever they claim.
    """
    for part, offset in spool_parts(spool):
        _read_part(part, offset, reading, owner)


#: The ``source`` of records read from the journal (its trusted fields say uid and machine).
JOURNAL = "the systemd journal"


def read_journal_output(data: bytes, reading: Reading) -> None:
    """Read what ``journalctl -o json`` printed: each line bounded and validated alike."""
    import io  # noqa: PLC0415 - only for the journal's output

    read_journal_stream(io.BytesIO(data), reading)


def read_journal_stream(stream: BinaryIO, reading: Reading) -> None:
    """Read ``journalctl -o json`` output as it comes (a pipe): line by line, bounded alike."""
    _read_jsonl(stream, JOURNAL, reading, None)


def _journal_text(value: Any) -> str:
    """A journal field as ``journalctl -o json`` prints it: a string, or bytes as numbers."""
    if isinstance(value, list):
        return bytes(v for v in value if isinstance(v, int) and 0 <= v < 256).decode(
            "utf-8", "replace"
        )
    return str(value)


def _journal_values(value: Any) -> list[str]:
    """Every value of a field (a repeated field is a list of values)."""
    if isinstance(value, list) and value and not all(isinstance(v, int) for v in value):
        return [_journal_text(v) for v in value]
    return [_journal_text(value)]


def _journal_field(name: str, value: Any) -> Any:
    """The value of the record's field ``name`` that a journal field holds."""
    values = _journal_values(value)
    if name in TUPLE_FIELDS:
        return values
    if name in INTEGER_FIELDS:
        try:
            return int(values[0])
        except ValueError:
            return values[0]
    return values[0]


#: The record's fields by their journal names (``SSLCUSTOMIZE_HOST``: ``host``).
_JOURNAL_NAMES = {
    FIELD_PREFIX + name.upper(): name
    for name in (*_SINK_TEXTS, *sorted(TUPLE_FIELDS), "uid", "comm")
}

_JOURNAL_KNOWN = frozenset(_JOURNAL_NAMES.values())


def _journal_fields(entry: Mapping[str, Any]) -> dict[str, Any] | None:
    """The record's fields an entry holds, or ``None`` if one is named otherwise.

    Each field as :func:`_journal_field` reads it, a text without its calls. A field that
    :func:`validate` does not know is left out (it would drop it); one named in other than
    upper case (``SSLCUSTOMIZE_Host``) is left to the caller, which reads every field.
    """
    record: dict[str, Any] = {}
    names = _JOURNAL_NAMES
    for key, value in entry.items():
        name = names.get(key)
        if name is None:
            if key.startswith(FIELD_PREFIX) and key[len(FIELD_PREFIX) :].lower() in _JOURNAL_KNOWN:
                return None
        elif value.__class__ is not str:
            record[name] = _journal_field(name, value)
        elif name in INTEGER_FIELDS:
            # int() reads any run of decimal digits; anything else as _journal_field does.
            record[name] = int(value) if value.isdecimal() else _journal_field(name, value)
        else:
            record[name] = [value] if name in TUPLE_FIELDS else value
    return record


def record_from_journal(entry: Mapping[str, Any]) -> dict[str, Any] | None:
    """Return the record one ``journalctl -o json`` entry holds (``None``: not a record).

    The journal's trusted fields say where it came from: ``machine`` (``_HOSTNAME``), ``uid``
    (``_UID``) and ``comm`` (``_COMM``), whatever the record itself claims. The record is
    still to be validated (:func:`validate`).
    """
    if _journal_text(entry.get("SYSLOG_IDENTIFIER", "")) != IDENTIFIER:
        return None
    record = _journal_fields(entry)
    if record is None:  # a field not named as journald names it: every field, one by one
        record = {}
        for key, value in entry.items():
            if key.startswith(FIELD_PREFIX):
                name = key[len(FIELD_PREFIX) :].lower()
                record[name] = _journal_field(name, value)
    if "verdict" not in record:
        return None
    for name in TUPLE_FIELDS:
        record.setdefault(name, [])
    for name in _SINK_TEXTS:  # absent is null, as the sinks write it (and as validate reads it)
        record.setdefault(name, None)
    for name, trusted in (("machine", "_HOSTNAME"), ("uid", "_UID"), ("comm", "_COMM")):
        if trusted in entry:
            text = _journal_text(entry[trusted])
            # isdecimal, not isdigit: int() reads every decimal digit, never a superscript.
            record[name] = int(text) if name == "uid" and text.isdecimal() else text
    return record


# --- Journal entries in one reading -------------------------------------------------------------

#: The record's program and chain fields (``mode`` to ``chain_sha256``), as in :data:`_VARYING`.
_PROGRAM_AND_CHAIN = _VARYING[3:]
#: The most layouts of journal entries a summary keeps apart (see :class:`JournalLayout`).
MAX_LAYOUTS = 64


class JournalLayout:
    """Where a record's fields are in journal entries that have exactly the same keys.

    ``journalctl -o json`` prints each entry with the fields it has: entries of one program's
    records share them. A layout's ``get`` (one ``operator.itemgetter``) fetches every key of
    such an entry, in this order: ``SYSLOG_IDENTIFIER`` and the shared fields present
    (``[:shared]``, a plan's key), ``SSLCUSTOMIZE_TIME``, the program's and chain's fields
    present (``[shared + 1:varying]``), then ``pid``, ``machine``, ``uid`` and ``comm`` where
    present (their positions, or -1), then the keys the record does not read. An entry for
    which ``get`` finds every key and that has as many keys as the layout has exactly its
    keys (:func:`journal_varying`); what :func:`record_from_journal` makes of it is then
    decided by the values alone.

    Only an entry whose fields are all named as journald names them (``SSLCUSTOMIZE_HOST``,
    never ``SSLCUSTOMIZE_Host``), with a verdict and a time, and no ``SSLCUSTOMIZE_UID``
    without the trusted ``_UID``, has a layout: any other goes through
    :func:`record_from_journal` and :func:`validate` every time.
    """

    __slots__ = ("comm", "get", "machine", "pid", "plans", "shared", "size", "uid", "varying")

    def __init__(
        self, names: list[str], positions: dict[str, int], shared: int, varying: int
    ) -> None:
        """Fetch ``names`` (every key) at once; ``positions`` of pid, machine, uid and comm."""
        self.get = operator.itemgetter(*names)
        self.size = len(names)
        self.shared, self.varying = shared, varying
        self.pid, self.machine = positions.get("pid", -1), positions.get("machine", -1)
        self.uid, self.comm = positions.get("uid", -1), positions.get("comm", -1)
        #: Plans by the values of the shared fields (see :meth:`._summary.Summary.take_journal`).
        self.plans: dict[tuple[Any, ...], Any] = {}


def journal_layout(entry: Mapping[str, Any]) -> JournalLayout | None:
    """The layout of ``entry``'s keys; ``None`` if its entries must be read one by one."""
    present = _layout_fields(entry)
    if present is None:
        return None
    order = ["SYSLOG_IDENTIFIER", *(_journal_key(n) for n in _SHARED if n in present)]
    shared = len(order)
    order.append(_journal_key("time"))
    order += [_journal_key(n) for n in _PROGRAM_AND_CHAIN if n in present]
    varying = len(order)
    positions = {}
    # journald's trusted fields, where there, are what the record holds (the record's own
    # are left unread, as record_from_journal overrides them); pid has none.
    for name, trusted in _TRUSTED:
        key = trusted if trusted is not None and trusted in entry else _journal_key(name)
        if key in entry:
            positions[name] = len(order)
            order.append(key)
    taken = set(order)
    order += [key for key in entry if key not in taken]
    return JournalLayout(order, positions, shared, varying)


def _layout_fields(entry: Mapping[str, Any]) -> set[str] | None:
    """The record's fields ``entry`` has, if its entries can have a layout; else ``None``."""
    names = _JOURNAL_NAMES
    known = [key for key in entry if key.startswith(FIELD_PREFIX)]
    if any(key not in names for key in known if key[len(FIELD_PREFIX) :].lower() in _JOURNAL_KNOWN):
        return None  # named otherwise: record_from_journal reads every field, in order
    present = {names[key] for key in known if key in names}
    if (
        "SYSLOG_IDENTIFIER" not in entry
        or not {"verdict", "time"} <= present
        or ("uid" in present and "_UID" not in entry)
    ):
        return None
    return present


_TRUSTED = (("pid", None), ("machine", "_HOSTNAME"), ("uid", "_UID"), ("comm", "_COMM"))


def _journal_key(name: str) -> str:
    return FIELD_PREFIX + name.upper()


def journal_varying(
    values: tuple[Any, ...], layout: JournalLayout, known: tuple[Any, ...]
) -> tuple[Any, Any, tuple[Any, ...]] | None:
    """The machine, uid and program's and chain's values of a journal entry, if all are valid.

    ``values`` are what ``layout.get`` fetched. Checked as :func:`record_from_journal` then
    :func:`validate` would, in the common shape only (texts where the sinks send texts, a time
    as they write it, numbers in decimal digits): ``None`` sends the entry to them, which
    decide. ``known`` are the program's and chain's values of an entry that passed: equal
    ones pass unchecked (a JSON value equal to a text, or to a list of texts, is one).
    """
    shared = layout.shared
    if not sink_time(values[shared]):
        return None
    trusted = _journal_trusted(values, layout)
    if trusted is None:
        return None
    rest = values[shared + 1 : layout.varying]
    if rest != known and not _journal_texts(rest):
        return None
    return trusted[0], trusted[1], rest


def _journal_trusted(values: tuple[Any, ...], layout: JournalLayout) -> tuple[Any, Any] | None:
    """The machine and uid of a journal entry, if they, its pid and comm are valid."""
    # Absent is None; a field present is a text (journald's ``null`` is read as "None").
    pid, machine, uid, comm = (
        values[p] if p >= 0 else _ABSENT
        for p in (layout.pid, layout.machine, layout.uid, layout.comm)
    )
    if not (
        (pid is _ABSENT or _decimal(pid) is not None)
        and (machine is _ABSENT or (machine.__class__ is str and len(machine) <= MAX_TEXT))
        and (comm is _ABSENT or (comm.__class__ is str and len(comm) <= MAX_TEXT))
    ):
        return None
    if uid is _ABSENT:
        return (None if machine is _ABSENT else machine), None
    number = _decimal(uid)
    if number is None:
        return None
    return (None if machine is _ABSENT else machine), number


#: A field the entry does not have.
_ABSENT: Any = object()


def _decimal(value: Any) -> int | None:
    """A journal field's decimal text as the integer it reads as, if 0-2**32; else ``None``."""
    if value.__class__ is not str or not value.isdecimal():
        return None
    number = int(value)
    return number if number <= _LARGEST else None


def _journal_texts(values: tuple[Any, ...]) -> bool:
    """Tell whether each value is a bounded text, or a short list of them (a repeated field)."""
    for value in values:
        if value.__class__ is list:
            if len(value) > MAX_ITEMS or not _texts(value, absent=False):
                return False
        elif value.__class__ is not str or len(value) > MAX_TEXT:
            return False
    return True
