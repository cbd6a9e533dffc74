"""The text report's tables: rich's layout, written out without rich's rendering machinery.

A fleet's report has tables of thousands of rows, each cell a few lines, and ``rich.Table``
renders every line of every cell through its segments, padding and measurement objects: the
text report took about five times what reading the records did. On a console without
styles (piped output, ``NO_COLOR``), a table is only text, and :func:`print_table` writes
that text itself, laid out as ``rich.Table`` lays it out with its defaults (heavy head box,
a space of padding either side of each cell, the title on a line of its own, cells wrapped
at spaces, a word too long folded or cut with an ellipsis as its column says). Where a
console has styles, or a cell holds what the plain layout does not handle (a character that
is not printable, a column too narrow), the table goes to rich: the output is the same.
``tests/unit/cli/test_report_table.py`` holds the two byte for byte.

Each cell's text is still read by rich (``Console.render_str``: markup and emoji codes),
and measured in terminal cells by rich's own ``cell_len``: only the layout is done here.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator, Sequence
from typing import Any

__all__ = ["Column", "print_line", "print_table"]

#: A column: its header, and what a word too long for it becomes (``"fold"``: cut into
#: lines; ``"ellipsis"``: cut, ending in ``…``).
Column = tuple[str, str]

#: What rich calls a word: the spaces before it, itself (group 1 ends there) and the spaces
#: after it.
_WORD = re.compile(r"(\s*\S+)\s*")
_TRAILING_SPACE = re.compile(r"\s+$")
#: The narrowest column (padding included) laid out here; a narrower one goes to rich.
_NARROWEST = 3
#: A cell's padding, left and right.
_PAD = 1


def print_table(
    out: Any, title: str, columns: Sequence[Column], rows: Sequence[Sequence[str]]
) -> None:
    """Print a table of ``rows`` (cells in rich markup) on the rich console ``out``."""
    lines = _plain_lines(out, title, columns, rows) if _plain_console(out) else None
    if lines is None:
        _print_rich(out, title, columns, rows)
        return
    # Written some rows at a time: a fleet's table is tens of megabytes of text.
    write, pending = out.file.write, []
    for line in lines:
        pending.append(line)
        if len(pending) >= _LINES_PER_WRITE:
            write("".join(pending))
            pending.clear()
    write("".join(pending))


#: How many lines one write takes.
_LINES_PER_WRITE = 4096


def _plain_console(out: Any) -> bool:
    """Tell whether ``out`` prints plain text the way :func:`_plain_lines` lays it out."""
    options = out.options
    return bool(
        out.color_system is None
        and out.soft_wrap
        and not options.ascii_only
        and not options.legacy_windows
        and options.max_width >= 1
    )


def _print_rich(
    out: Any, title: str, columns: Sequence[Column], rows: Sequence[Sequence[str]]
) -> None:
    """Print the table with ``rich.Table`` (styles, and anything out of the plain layout)."""
    from rich.table import Table  # noqa: PLC0415 - rich only for the CLI

    table = Table(title=title, title_justify="left")
    for header, overflow in columns:
        table.add_column(header, overflow=overflow)  # type: ignore[arg-type]
    for row in rows:
        table.add_row(*row)
    out.print(table)


def _plain_lines(
    out: Any, title: str, columns: Sequence[Column], rows: Sequence[Sequence[str]]
) -> Iterator[str] | None:
    """The lines of the table as rich prints it without styles; ``None``: leave it to rich.

    Whether the plain layout takes the table is decided first; its lines come a row at a time.
    """
    headers = [_plain(out, header) for header, _ in columns]
    body = [[_plain(out, cell) for cell in row] for row in rows]
    if not all(text.isprintable() for row in (headers, *body) for text in row):
        return None  # tabs, new lines, zero-width characters: rich knows their rules
    borders = 2 + len(columns) - 1
    widths = _widths([headers, *body], out.options.max_width - borders)
    if widths is None:
        return None
    return _laid_out(_plain(out, title), headers, body, widths, [o for _, o in columns])


def _laid_out(
    title: str, headers: list[str], body: list[list[str]], widths: list[int], overflows: list[str]
) -> Iterator[str]:
    """The title, the box and each row's lines, one by one."""
    yield title + "\n"
    yield "┏" + "┳".join("━" * w for w in widths) + "┓\n"
    yield from _row_lines(headers, widths, overflows, "┃", top=False)
    yield "┡" + "╇".join("━" * w for w in widths) + "┩\n"
    for row in body:
        yield from _row_lines(row, widths, overflows, "│", top=True)
    yield "└" + "┴".join("─" * w for w in widths) + "┘\n"


def print_line(out: Any, text: str) -> None:
    """Print a line of ``text`` (rich markup) on ``out`` as ``out.print(text, soft_wrap=True)``."""
    if _plain_console(out):
        plain = _plain(out, text)
        # Spaces at the end are rich's to keep or drop (its versions differ): never a command.
        if plain.isprintable() and not plain[-1:].isspace():
            out.file.write(plain + "\n")
            return
    out.print(text, soft_wrap=True)


def _plain(out: Any, text: str) -> str:
    """``text`` (rich markup) as ``out`` reads it, without its styles."""
    if "[" not in text and ":" not in text:
        return text  # no markup, no emoji code: as it is
    return str(out.render_str(text).plain)


def _cells(text: str) -> int:
    """How many terminal cells ``text`` (printable) takes."""
    if text.isascii():
        return len(text)
    from rich.cells import cell_len  # noqa: PLC0415 - rich only for the CLI

    return cell_len(text)


def _measure(texts: list[str], limit: int) -> tuple[int, int]:
    """The narrowest and widest a column of ``texts`` asks for, padding in, at most ``limit``.

    The narrowest fits its longest word, the widest its longest text, as rich measures.
    """
    if limit < 1:
        return 0, 0
    inner = limit - 2 * _PAD
    if inner < 1:
        return limit, limit
    least = most = 0
    for text in texts:
        size = len if text.isascii() else _cells
        longest = max(map(size, text.splitlines()), default=0)
        shortest = min(max(map(size, text.split()), default=longest), longest)
        least = max(least, min(shortest, inner) + 2 * _PAD)
        most = max(most, min(longest, inner) + 2 * _PAD)
    return min(least, limit), min(most, limit)


def _widths(table: list[list[str]], limit: int) -> list[int] | None:
    """Each column's width, padding in, borders out, as rich sizes them to fit ``limit``."""
    columns = [list(column) for column in zip(*table, strict=True)]
    widths = [_measure(column, limit)[1] or 1 for column in columns]
    if sum(widths) > limit:
        widths = _collapse(widths, limit)
        if sum(widths) > limit:  # then every column gives up alike
            widths = _reduce(sum(widths) - limit, [1] * len(widths), widths, widths)
        widths = [_measure(column, width)[1] for column, width in zip(columns, widths, strict=True)]
    if min(widths) < _NARROWEST:
        return None
    return widths


def _collapse(widths: list[int], limit: int) -> list[int]:
    """Narrow the widest columns, step by step, to the next widest, until all fit ``limit``."""
    total = sum(widths)
    excess = total - limit
    while total and excess > 0:
        widest = max(widths)
        difference = widest - max((w for w in widths if w != widest), default=0)
        if not difference:
            break
        shares = [1 if w == widest else 0 for w in widths]
        widths = _reduce(excess, shares, [min(excess, difference)] * len(widths), widths)
        total = sum(widths)
        excess = total - limit
    return widths


def _reduce(total: int, shares: list[int], most: list[int], values: list[int]) -> list[int]:
    """Take ``total`` off ``values`` in proportion to ``shares``, each at most its ``most``."""
    shares = [share if cap else 0 for share, cap in zip(shares, most, strict=True)]
    remaining_shares = sum(shares)
    if not remaining_shares:
        return values[:]
    remaining = total
    result = []
    for share, cap, value in zip(shares, most, values, strict=True):
        if share and remaining_shares > 0:
            taken = min(cap, round(share * remaining / remaining_shares))
            result.append(value - taken)
            remaining -= taken
            remaining_shares -= share
        else:
            result.append(value)
    return result


def _row_lines(
    row: Sequence[str], widths: list[int], overflows: list[str], bar: str, *, top: bool
) -> list[str]:
    """The lines of one row: each cell wrapped, padded, and aligned at the top or the bottom."""
    cells = [
        _wrap(text, width - 2 * _PAD, overflow)
        for text, width, overflow in zip(row, widths, overflows, strict=True)
    ]
    height = max(map(len, cells))
    pad = " " * _PAD
    columns = []
    for lines, width in zip(cells, widths, strict=True):
        blank = [" " * width] * (height - len(lines))
        padded = [pad + line + pad for line in lines]
        columns.append(padded + blank if top else blank + padded)
    return [bar + bar.join(parts) + bar + "\n" for parts in zip(*columns, strict=True)]


def _wrap(text: str, width: int, overflow: str) -> list[str]:
    """The lines of a cell's ``text`` in ``width`` cells, each exactly ``width`` cells wide."""
    breaks = _breaks(text, width, fold=overflow == "fold")
    bounds = [0, *breaks, len(text)]
    lines = []
    for start, end in itertools.pairwise(bounds):
        line = text[start:end]
        excess = len(line) - width
        if excess > 0:  # spaces past the width are dropped (as many as are too many)
            spaces = _TRAILING_SPACE.search(line)
            if spaces is not None:
                line = line[: len(line) - min(len(spaces.group()), excess)]
        lines.append(_fit(line, width, overflow))
    return lines


def _fit(line: str, width: int, overflow: str) -> str:
    """``line`` cut (with ``…`` for ``ellipsis``) or padded with spaces to ``width`` cells."""
    size = _cells(line)
    if size == width:
        return line
    from rich.cells import set_cell_size  # noqa: PLC0415 - rich only for the CLI

    if size > width:
        if overflow == "ellipsis":
            line = set_cell_size(line, width - 1) + "…"
        else:
            line = set_cell_size(line, width)
    return set_cell_size(line, width)


def _breaks(text: str, width: int, *, fold: bool) -> list[int]:
    """Where ``text`` is broken into lines of ``width`` cells: at spaces, or inside a long word.

    A word that fits goes on the line; one that does not starts a new line; one longer than
    a line is folded into pieces (``fold``) or left whole, to be cut.
    """
    if not text.isascii():
        return _breaks_wide(text, width, fold=fold)
    breaks: list[int] = []
    used = 0
    for match in _WORD.finditer(text):
        start, stop = match.span(1)
        size = stop - start  # a character of printable ASCII is a cell
        if width - used >= size:
            used += match.end() - start
        elif size > width:
            if fold:
                # Cut into pieces of a line each: a break before each but the first.
                end = match.end()  # the spaces after it are in its last piece
                cuts = range(start or width, end, width)
                breaks += cuts
                used = end - cuts[-1]
            else:
                if start:
                    breaks.append(start)
                used = match.end() - start
        elif used and start:
            breaks.append(start)
            used = match.end() - start
    return breaks


def _breaks_wide(text: str, width: int, *, fold: bool) -> list[int]:
    """:func:`_breaks` for text with characters that may take two cells, or none."""
    breaks: list[int] = []
    used = 0
    for match in _WORD.finditer(text):
        start, word = match.start(), match.group()
        size = _cells(word.rstrip())
        if width - used >= size:
            used += _cells(word)
        elif size > width:
            if fold:
                from rich.cells import chop_cells  # noqa: PLC0415 - rich only for the CLI

                pieces = chop_cells(word, width)
                for index, piece in enumerate(pieces):
                    if start:
                        breaks.append(start)
                    if index == len(pieces) - 1:
                        used = _cells(piece)
                    else:
                        start += len(piece)
            else:
                if start:
                    breaks.append(start)
                used = _cells(word)
        elif used and start:
            breaks.append(start)
            used = _cells(word)
    return breaks
