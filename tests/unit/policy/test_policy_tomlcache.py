"""The TOML cache: the parser's own result for the exact text, kept where only the user writes."""

from __future__ import annotations

import datetime as dt
import marshal
import os
import sys
from pathlib import Path
from unittest.mock import Mock

import pytest

from sslcustomize._policy._lines import locate_keys
from sslcustomize._policy._tomlcache import CachedDate, cached_parse, day_number, entry_path

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

TEXT = "version = 1\n[[exception]]\nhost = 'nas.example'\nexpires = 2027-03-01\nreason = 'r'\n"


def _counting_parser() -> Mock:
    """tomllib's parser, counting its calls (``call_count``)."""
    return Mock(wraps=tomllib.loads)


def test_the_same_text_is_parsed_once(tmp_path: Path) -> None:
    """A second read of unchanged text comes from the entry: same tree, dates and lines."""
    path, parse = str(tmp_path / "policy.toml"), _counting_parser()
    first = cached_parse(TEXT, path, parse, locate_keys)
    second = cached_parse(TEXT, path, parse, locate_keys)
    assert parse.call_count == 1
    assert second == first
    assert second[0]["exception"][0]["expires"] == dt.date(2027, 3, 1)
    assert second[1][("exception", 0, "expires")] == 4
    cached = second[0]["exception"][0]["expires"]
    assert isinstance(cached, CachedDate)
    assert cached.day == dt.date(2027, 3, 1).toordinal()
    assert repr(cached) == repr(dt.date(2027, 3, 1))
    assert hash(cached) == hash(dt.date(2027, 3, 1))
    entry = entry_path(path)
    assert entry is not None
    assert os.stat(entry).st_mode & 0o777 == 0o600


def test_an_edited_file_is_parsed_again_at_once(tmp_path: Path) -> None:
    """Attack: the entry of the old text never serves new text (an edit that adds a lock)."""
    path, parse = str(tmp_path / "policy.toml"), _counting_parser()
    cached_parse(TEXT, path, parse, locate_keys)
    edited = TEXT.replace("nas.example", "other.example")
    tree, _ = cached_parse(edited, path, parse, locate_keys)
    assert parse.call_count == 2
    assert tree["exception"][0]["host"] == "other.example"


def test_a_corrupt_entry_is_a_miss(tmp_path: Path) -> None:
    """An entry that is not what this version writes is parsed over, never trusted."""
    path, parse = str(tmp_path / "policy.toml"), _counting_parser()
    cached_parse(TEXT, path, parse, locate_keys)
    entry = entry_path(path)
    assert entry is not None
    Path(entry).write_bytes(b"\x00not marshal")
    tree, _ = cached_parse(TEXT, path, parse, locate_keys)
    assert parse.call_count == 2
    assert tree["version"] == 1


def test_a_cache_under_a_directory_others_can_write_is_not_used(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Twin: where another user could plant an entry there is no entry path at all."""
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o777)  # world-writable, not sticky
    monkeypatch.setenv("XDG_CACHE_HOME", str(shared / "cache"))
    path, parse = str(tmp_path / "policy.toml"), _counting_parser()
    assert entry_path(path) is None
    cached_parse(TEXT, path, parse, locate_keys)
    cached_parse(TEXT, path, parse, locate_keys)
    assert parse.call_count == 2


def test_invalid_toml_is_never_cached(tmp_path: Path) -> None:
    """The parser's error propagates, and the next read parses again."""
    path, parse = str(tmp_path / "policy.toml"), _counting_parser()
    for _ in range(2):
        with pytest.raises(tomllib.TOMLDecodeError):
            cached_parse("mode = \n", path, parse, locate_keys)
    assert parse.call_count == 2


@pytest.mark.parametrize(
    "day",
    [
        dt.date(1, 1, 1), dt.date(1900, 2, 28), dt.date(1900, 3, 1), dt.date(2000, 2, 29),
        dt.date(2000, 3, 1), dt.date(2024, 12, 31), dt.date(2027, 3, 1), dt.date(9999, 12, 31),
    ],
)  # fmt: skip
def test_a_cached_date_counts_days_as_datetime_does(day: dt.date) -> None:
    """The ordinal of a cached date is ``toordinal()``, leap years and centuries included."""
    assert CachedDate(day.isoformat()).day == day.toordinal()
    assert CachedDate(day.isoformat()).date() == day


def test_every_day_of_four_centuries_counts_as_datetime_does() -> None:
    """The Gregorian cycle is 400 years: every day of one, from 1900, has datetime's ordinal."""
    day = dt.date(1900, 1, 1)
    while day.year < 2300:
        assert day_number(day.year, day.month, day.day) == day.toordinal()
        day += dt.timedelta(days=1)


@pytest.mark.parametrize(
    "text",
    ["2027-02-29", "1900-02-29", "2027-13-01", "2027-00-10", "2027-04-31", "0000-01-01",
     "2027-3-1", "2027-03-01x", "20270301", "2027/03/01", "+027-03-01", "",
     "\uff12\uff10\uff12\uff17-03-01"],
)  # fmt: skip
def test_a_cached_date_that_names_no_day_is_refused(text: str) -> None:
    """Attack twin: an entry with a malformed date raises (a miss), never a wrong day."""
    with pytest.raises(ValueError, match="date"):
        CachedDate(text)


def test_an_entry_with_a_malformed_date_is_a_miss(tmp_path: Path) -> None:
    """An entry whose date does not read back is parsed over, not half-used."""
    path, parse = str(tmp_path / "policy.toml"), _counting_parser()
    cached_parse(TEXT, path, parse, locate_keys)
    entry = entry_path(path)
    assert entry is not None
    form, text, tree, pairs = marshal.loads(Path(entry).read_bytes())  # noqa: S302 - our own test file
    tree["exception"][0]["expires"] = ("date", "2027-02-30")
    Path(entry).write_bytes(marshal.dumps((form, text, tree, pairs)))
    again, _ = cached_parse(TEXT, path, parse, locate_keys)
    assert parse.call_count == 2
    assert again["exception"][0]["expires"] == dt.date(2027, 3, 1)
