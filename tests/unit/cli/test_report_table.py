"""The text report's tables: what ``print_table`` writes is what ``rich.Table`` prints."""

from __future__ import annotations

import io
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rich.console import Console
from rich.table import Table

from sslcustomize._cli import _table
from sslcustomize._cli._escape import shown
from sslcustomize._cli._table import Column, print_line, print_table

# Words as a report's cells hold them: host names, paths, commands, and what a hostile record
# may carry (markup, emoji codes, wide and combining characters, a word longer than any line).
_WORDS = st.sampled_from(
    (
        "srv0001.corp.example:8443", "m001,", "/opt/app001/bin/worker.py,", "expired,", "-",
        "sslcustomize", "check", "[bold red](suspicious)[/]", r"\[bold]", ":smile:", ":",
        "漢字のホスト", "e\u0301", "x" * 70, "—", "…", "a", "", "  ", "CN=Corp,O=Corp",
        "ab\u200dcd", "tab\there", "new\nline", "\u2028",
    )
)  # fmt: skip
#: Those the plain layout takes (the others, not printable, go to rich).
_PRINTABLE = _WORDS.filter(str.isprintable)
_CELLS = st.lists(_PRINTABLE, max_size=12).map(" ".join)
_ANY_CELLS = st.lists(_WORDS, max_size=12).map(" ".join)
_OVERFLOWS = st.sampled_from(("fold", "ellipsis"))


def _console(width: int, **options: Any) -> tuple[Console, io.StringIO]:
    """A console as the report makes it for piped output, writing to a string."""
    file = io.StringIO()
    settings: dict[str, Any] = {"highlight": False, "soft_wrap": True, "color_system": None}
    settings.update(options)
    return Console(file=file, width=width, **settings), file


def _by_rich(width: int, title: str, columns: list[Column], rows: list[list[str]]) -> str:
    out, file = _console(width)
    table = Table(title=title, title_justify="left")
    for header, overflow in columns:
        table.add_column(header, overflow=overflow)  # type: ignore[arg-type]
    for row in rows:
        table.add_row(*row)
    out.print(table)
    return file.getvalue()


def _by_table(width: int, title: str, columns: list[Column], rows: list[list[str]]) -> str:
    out, file = _console(width)
    print_table(out, title, columns, rows)
    return file.getvalue()


@settings(max_examples=400, deadline=None)
@given(
    width=st.sampled_from((30, 60, 80, 120, 160, 230)),
    columns=st.lists(st.tuples(_CELLS, _OVERFLOWS), min_size=1, max_size=6),
    cells=st.lists(st.lists(_CELLS, min_size=6, max_size=6), max_size=6),
)
def test_a_table_is_what_rich_prints(
    width: int, columns: list[Column], cells: list[list[str]]
) -> None:
    rows = [row[: len(columns)] for row in cells]
    title = "What would fail under enforce"
    assert _by_table(width, title, columns, rows) == _by_rich(width, title, columns, rows)


@settings(max_examples=100, deadline=None)
@given(
    width=st.sampled_from((12, 40, 160)),
    columns=st.lists(st.tuples(_ANY_CELLS, _OVERFLOWS), min_size=1, max_size=8),
    cells=st.lists(st.lists(_ANY_CELLS, min_size=8, max_size=8), max_size=4),
)
def test_what_the_plain_layout_leaves_is_what_rich_prints(
    width: int, columns: list[Column], cells: list[list[str]]
) -> None:
    """Tabs, new lines, zero-width joiners, columns narrower than their padding: rich's."""
    rows = [row[: len(columns)] for row in cells]
    assert _by_table(width, "t", columns, rows) == _by_rich(width, "t", columns, rows)


@settings(max_examples=200, deadline=None)
@given(
    width=st.sampled_from((40, 80, 160)),
    cells=st.lists(st.lists(st.text(max_size=30), min_size=3, max_size=3), max_size=5),
)
def test_any_text_shown_is_what_rich_prints(width: int, cells: list[list[str]]) -> None:
    """Any text at all, made safe as the report makes it (``shown``), prints as rich prints it."""
    columns: list[Column] = [("server", "fold"), ("users", "ellipsis"), ("fix", "fold")]
    rows = [[shown(text) for text in row] for row in cells]
    assert _by_table(width, "By program", columns, rows) == _by_rich(
        width, "By program", columns, rows
    )


def test_the_plain_layout_writes_a_fleets_table() -> None:
    """The common case is laid out here, not handed to rich (the test above holds it to rich's)."""
    columns: list[Column] = [("server", "fold"), ("machines", "fold"), ("count", "fold")]
    rows = [[f"srv{n:04d}.corp.example:443", ", ".join(f"m{m:03d}" for m in range(60)), "3"]
            for n in range(3)]  # fmt: skip
    out, _ = _console(160)
    lines = _table._plain_lines(out, "Servers", columns, rows)
    assert lines is not None
    assert "".join(lines) == _by_rich(160, "Servers", columns, rows)


@pytest.mark.parametrize(
    "options",
    [{"color_system": "truecolor", "force_terminal": True}, {"soft_wrap": False}],
    ids=["styled", "cropped"],
)
def test_a_console_with_styles_or_cropping_is_left_to_rich(options: dict[str, Any]) -> None:
    """Styles (a terminal's bold header, the red suspicious flag) are rich's to print."""
    columns: list[Column] = [("server", "fold"), ("count", "fold")]
    rows = [["[bold red]srv.example[/]", "1"]]
    out, file = _console(80, **options)
    print_table(out, "Servers", columns, rows)
    reference, expected = _console(80, **options)
    table = Table(title="Servers", title_justify="left")
    for header, overflow in columns:
        table.add_column(header, overflow=overflow)  # type: ignore[arg-type]
    table.add_row(*rows[0])
    reference.print(table)
    assert file.getvalue() == expected.getvalue()
    assert not _table._plain_console(out)


@settings(max_examples=300, deadline=None)
@given(text=st.one_of(st.text(max_size=40), _ANY_CELLS), width=st.sampled_from((20, 160)))
def test_a_line_is_what_rich_prints(text: str, width: int) -> None:
    """A line of the text report (a command to paste) prints as ``print(soft_wrap=True)`` does."""
    for line in (f"  {shown(text)}", text if "[" not in text else shown(text)):
        out, file = _console(width)
        print_line(out, line)
        reference, expected = _console(width)
        reference.print(line, soft_wrap=True)
        assert file.getvalue() == expected.getvalue()
