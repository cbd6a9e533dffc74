"""Edits of a policy file through tomlkit that keep its comments and layout.

``trust``, ``enable`` and ``trust --ca-file`` add to a file; this module holds what removing
needs, where tomlkit alone would lose or misplace text: the comment block written just above
an ``[[exception]]`` that follows another belongs to it and goes with it, the block above the
next one stays, and an array of tables left empty disappears (tomlkit would write
``exception = []`` at the top). The comments above the first table stay: they often speak of
the whole section (``enable`` writes one there).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

__all__ = ["remove_tables"]


def _trailing_comments(table: Any) -> list[tuple[Any, Any]]:
    """Return the comment lines that end a table's body, after its last blank line or key.

    tomlkit keeps the comments written above a ``[[table]]`` header at the end of the table
    before it: they are the next table's, not this one's.
    """
    from tomlkit.items import Comment  # noqa: PLC0415 - tomlkit only when editing

    body: list[tuple[Any, Any]] = table.value.body
    start = len(body)
    while start and body[start - 1][0] is None and isinstance(body[start - 1][1], Comment):
        start -= 1
    return body[start:]


def remove_tables(document: Any, key: str, indices: Iterable[int]) -> None:
    """Remove the tables at ``indices`` of the array of tables ``document[key]``.

    Each table's own comment block (the lines just above its header) goes with it; the next
    table's block moves to where the removed table's was. The key goes when no table is left.
    """
    tables = document[key]
    for index in sorted(set(indices), reverse=True):
        following = _trailing_comments(tables[index])  # the next table's comments
        if index > 0:
            before = tables[index - 1].value.body
            del before[len(before) - len(_trailing_comments(tables[index - 1])) :]
            before.extend(following)
        elif index + 1 < len(tables) and following:
            nxt = tables[index + 1]
            text = "".join(item.as_string() for _, item in following)
            nxt.trivia.indent = text + nxt.trivia.indent
        del tables[index]
    if not len(tables):
        del document[key]
