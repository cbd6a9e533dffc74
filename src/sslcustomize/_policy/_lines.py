"""Map each key of a policy file to the line that sets it, for messages that name the line."""

from __future__ import annotations

import re

__all__ = ["KeyPath", "locate_keys"]


# --- Locating keys in the source text -------------------------------------------------------
# Patterns are kept as text: ``re`` compiles (and caches) one when it is first used, so a
# process whose policy needs none of them never pays for compiling them.

_KEY_PART = r"""[A-Za-z0-9_-]+|"(?:[^"\\]|\\.)*"|'[^']*'"""
_HEADER = rf"^\s*(\[\[?)\s*((?:{_KEY_PART})(?:\s*\.\s*(?:{_KEY_PART}))*)\s*\]"
_ASSIGN = rf"^\s*((?:{_KEY_PART})(?:\s*\.\s*(?:{_KEY_PART}))*)\s*="

KeyPath = tuple[str | int, ...]


_ESCAPE = r"(?s)\\(?:u([0-9A-Fa-f]{4})|U([0-9A-Fa-f]{8})|(.))"
_SIMPLE_ESCAPES = {"b": "\b", "t": "\t", "n": "\n", "f": "\f", "r": "\r", '"': '"', "\\": "\\"}


def _unescape(body: str) -> str:
    r"""Decode a TOML basic string's escapes (``\U0001F600`` too, which JSON lacks)."""

    def one(match: re.Match[str]) -> str:
        code = match.group(1) or match.group(2)
        if code is not None:
            try:
                return chr(int(code, 16))
            except (ValueError, OverflowError):
                return "\ufffd"
        return _SIMPLE_ESCAPES.get(match.group(3), match.group(3))

    return re.sub(_ESCAPE, one, body)


def _split_key(text: str) -> list[str]:
    parts = []
    for token in re.findall(_KEY_PART, text):
        if token.startswith('"'):
            parts.append(_unescape(token[1:-1]))
        elif token.startswith("'"):
            parts.append(token[1:-1])
        else:
            parts.append(token)
    return parts


def locate_keys(text: str) -> dict[KeyPath, int]:
    """Map each key path (``("exception", 0, "pin")``) to the line that sets it.

    A light scan, not a parser: it runs only on text that ``tomllib`` already accepted and
    is used for messages, so a line it cannot place falls back to the enclosing table's.
    """
    lines: dict[KeyPath, int] = {}
    table: KeyPath = ()
    arrays: dict[tuple[str, ...], int] = {}
    in_multiline = False
    # TOML ends lines at \n only: str.splitlines() would also split at \x85 or \u2028.
    for number, line in enumerate(text.split("\n"), start=1):
        quotes = line.count('"""') + line.count("'''")
        if in_multiline:
            in_multiline = quotes % 2 == 0
            continue
        if quotes % 2 == 1:
            in_multiline = True
        header = re.match(_HEADER, line)
        if header:
            names = tuple(_split_key(header.group(2)))
            if header.group(1) == "[[":
                arrays[names] = arrays.get(names, -1) + 1
                table = (*names, arrays[names])
            else:
                table = names
            lines.setdefault(table, number)
            continue
        assign = re.match(_ASSIGN, line)
        if assign:
            lines.setdefault((*table, *_split_key(assign.group(1))), number)
    return lines
