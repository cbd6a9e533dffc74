"""Output helpers shared by the commands: JSON documents, rich consoles, error lines."""

from __future__ import annotations

import json
import os
import sys
from typing import Any

from sslcustomize._support._escape import visible

__all__ = ["JSON_VERSION", "console", "fail", "json_text", "plain", "print_json"]

JSON_VERSION = 1


def json_text(document: dict[str, Any]) -> str:
    """Return ``document`` as the text of a versioned JSON document, ending in a newline."""
    return json.dumps({"version": JSON_VERSION, **document}, indent=2, default=str) + "\n"


def print_json(document: dict[str, Any]) -> None:
    """Print a versioned JSON document on stdout, the text of :func:`json_text`.

    Written a few thousand pieces at a time, never joined whole: a fleet's report is tens
    of megabytes of text, and the pieces of an indented document several times that.
    """
    encoder = json.JSONEncoder(indent=2, default=str)
    pieces: list[str] = []
    for piece in encoder.iterencode({"version": JSON_VERSION, **document}):
        pieces.append(piece)
        if len(pieces) >= _PIECES:
            sys.stdout.write("".join(pieces))
            pieces.clear()
    pieces.append("\n")
    sys.stdout.write("".join(pieces))


#: How many pieces of JSON text :func:`print_json` joins per write.
_PIECES = 4096


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
