"""Output helpers shared by the commands: JSON documents, rich consoles, error lines."""

from __future__ import annotations

import math
import os
import sys
from collections.abc import Callable
from json.encoder import encode_basestring_ascii as _string
from typing import Any

from sslcustomize._support._escape import visible

__all__ = ["JSON_VERSION", "console", "fail", "json_text", "plain", "print_json"]

JSON_VERSION = 1


def json_text(document: dict[str, Any]) -> str:
    """Return ``document`` as the text of a versioned JSON document, ending in a newline."""
    pieces: list[str] = []
    _Indented(pieces.append).value({"version": JSON_VERSION, **document}, "")
    pieces.append("\n")
    return "".join(pieces)


def print_json(document: dict[str, Any]) -> None:
    """Print a versioned JSON document on stdout, the text of :func:`json_text`.

    Written a few thousand pieces at a time, never joined whole: a fleet's report is tens
    of megabytes of text, and the pieces of an indented document several times that.
    """
    pieces: list[str] = []

    def add(piece: str) -> None:
        pieces.append(piece)
        if len(pieces) >= _PIECES:
            sys.stdout.write("".join(pieces))
            pieces.clear()

    _Indented(add).value({"version": JSON_VERSION, **document}, "")
    pieces.append("\n")
    sys.stdout.write("".join(pieces))


#: How many pieces of JSON text :func:`print_json` joins per write (a list of texts is one).
_PIECES = 1024
_INDENT = "  "


class _Indented:
    """Write a value as ``json.dumps(value, indent=2, default=str)`` does, byte for byte.

    ``json`` never uses its C encoder with ``indent``: its Python encoder makes a generator
    per container and a piece per token, which cost a fleet's report a tenth of its time.
    Here each list of texts is one C-encoded join (``encode_basestring_ascii`` per item),
    and the rest follows ``json.encoder``'s rules: the order of its type checks, its
    numbers, ``NaN``/``Infinity``, its keys, ``str`` of any other object, and its error on a
    circular reference. ``tests/unit/cli/test_cli_output.py`` compares the two.
    """

    __slots__ = ("_add", "_path")

    def __init__(self, add: Callable[[str], object]) -> None:
        self._add = add
        self._path: set[int] = set()  # the containers being written, against a cycle

    def value(self, value: Any, indent: str) -> None:
        """Write ``value``, whose first line is already indented by ``indent``."""
        if isinstance(value, str):
            self._add(_string(value))
        elif isinstance(value, (list, tuple, dict)):
            self._container(value, indent)
        else:
            scalar = _scalar(value)
            if scalar is None:  # another object: json.dumps writes str() of it
                self._enter(value)
                self._add(_string(str(value)))
                self._path.discard(id(value))
            else:
                self._add(scalar)

    def _enter(self, value: object) -> None:
        if id(value) in self._path:
            raise ValueError("Circular reference detected")
        self._path.add(id(value))

    def _container(self, value: list[Any] | tuple[Any, ...] | dict[Any, Any], indent: str) -> None:
        if not value:
            self._add("{}" if isinstance(value, dict) else "[]")
            return
        self._enter(value)
        inner = indent + _INDENT
        between = ",\n" + inner
        if isinstance(value, dict):
            self._add("{\n" + inner)
            first = True
            for key, item in value.items():
                if not first:
                    self._add(between)
                first = False
                self._add(_string(_key(key)) + ": ")
                self.value(item, inner)
            self._add("\n" + indent + "}")
        else:
            try:  # a list of texts, the most common: one join, each text C-encoded
                text = between.join(map(_string, value))
            except TypeError:  # another kind of item among them
                self._add("[\n" + inner)
                for index, item in enumerate(value):
                    if index:
                        self._add(between)
                    self.value(item, inner)
                self._add("\n" + indent + "]")
            else:
                self._add("[\n" + inner + text + "\n" + indent + "]")
        self._path.discard(id(value))


def _scalar(value: object) -> str | None:
    """A number, ``True``, ``False`` or ``None`` as JSON text; ``None`` for anything else."""
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, int):
        return int.__repr__(value)
    if isinstance(value, float):
        return _float(value)
    return None


def _float(value: float) -> str:
    """A float as ``json`` writes it (``allow_nan``: ``NaN``, ``Infinity``, ``-Infinity``)."""
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    return float.__repr__(value)


def _key(key: object) -> str:
    """A key as ``json`` writes it: a text, or a number, boolean or ``None`` made one."""
    if isinstance(key, str):
        return key
    if isinstance(key, float):
        return _float(key)
    scalar = _scalar(key)
    if scalar is None:
        raise TypeError(f"keys must be str, int, float, bool or None, not {type(key).__name__}")
    return scalar


def plain() -> bool:
    """Tell whether output must be plain text: ``NO_COLOR`` is set (https://no-color.org)."""
    return bool(os.environ.get("NO_COLOR"))


def console() -> Any:
    """Return a rich console on stdout: styled on a terminal, plain text otherwise.

    Piped output (not a terminal) has no escape sequences at all; ``NO_COLOR`` drops every
    style too (bold and italic included), not just colours, so that a terminal that asks for
    no colour gets the same text a log gets.
    """
    from rich.console import Console  # noqa: PLC0415 - rich only for the CLI

    # Piped output is read by people in logs too: wide enough that tables are not cut.
    width = None if sys.stdout.isatty() else 160
    if plain():
        return Console(highlight=False, soft_wrap=True, width=width, color_system=None)
    return Console(highlight=False, soft_wrap=True, width=width)


def fail(message: str, code: int = 2, *, as_json: bool = False) -> int:
    """Print ``sslcustomize: message`` on stderr and return ``code``.

    With ``as_json`` (the command was given ``--json``), stdout also gets a JSON document
    ``{"version": 1, "error": {"message": ..., "exit": code}}``, so that a program reading
    the output gets JSON whether the command succeeded or not.
    """
    # Errors quote servers (a greeting, a proxy's answer): never a control character raw.
    sys.stderr.write(f"sslcustomize: {visible(message)}\n")
    if as_json:
        print_json({"error": {"message": message, "exit": code}})
    return code
