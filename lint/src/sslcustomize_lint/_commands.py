"""Find verification-disabling flags in command lines given to subprocesses.

A command line arrives as words (from a list of arguments) or as a shell string; both are cut
into tokens, each remembering the AST node it came from, so that a finding points at the
string that holds the flag.
"""

from __future__ import annotations

import ast
import re
import shlex
from collections.abc import Iterable, Iterator

__all__ = ["Token", "scan_command", "tokens_of"]

Token = tuple[str, ast.AST]

# Shell words that end one command and start the next.
_SEPARATORS = frozenset({";", "&&", "||", "|", "&", "\n"})
_GIT_SSLVERIFY = re.compile(r"^http\.(?:\S+\.)?sslverify(?:=(false|0|no|off))?$", re.IGNORECASE)
_FALSE_WORDS = frozenset({"false", "0", "no", "off"})


def tokens_of(text: str, node: ast.AST) -> Iterator[Token]:
    """Cut one string into shell words, each tagged with the node it came from.

    Args:
        text: A single argument or a whole shell command.
        node: The AST node of the string.

    Yields:
        The words of the string.
    """
    if not any(c.isspace() for c in text) and not any(c in text for c in ";|&"):
        yield text, node
        return
    lexer = shlex.shlex(text, posix=True, punctuation_chars=";&|")
    lexer.whitespace_split = True
    try:
        words = list(lexer)
    except ValueError:  # unbalanced quotes: fall back to plain splitting
        words = text.split()
    for word in words:
        yield word, node


def _segments(tokens: Iterable[Token]) -> Iterator[list[Token]]:
    segment: list[Token] = []
    for token in tokens:
        if token[0] in _SEPARATORS:
            if segment:
                yield segment
            segment = []
        else:
            segment.append(token)
    if segment:
        yield segment


def _program(word: str) -> str:
    name = word.rsplit("/", 1)[-1].lower()
    return name.removesuffix(".exe")


def _is_pip(segment: list[Token], index: int) -> bool:
    name = _program(segment[index][0])
    if re.fullmatch(r"pip[0-9.]*", name):
        return True
    # ``python -m pip`` / ``sys.executable -m pip``: the word after ``-m``.
    return name == "-m" and index + 1 < len(segment) and _program(segment[index + 1][0]) == "pip"


def scan_command(tokens: Iterable[Token]) -> Iterator[tuple[str, ast.AST]]:
    """Yield ``(code, node)`` for every disabling flag in a command line.

    Args:
        tokens: The words of the command line.

    Yields:
        The rule code and the node of the word that carries the flag.
    """
    for segment in _segments(tokens):
        programs = [_program(word) for word, _ in segment]
        pip = any(_is_pip(segment, i) for i in range(len(segment)))
        for i, (word, node) in enumerate(segment):
            lower = word.lower()
            if pip and (lower == "--trusted-host" or lower.startswith("--trusted-host=")):
                yield "SSC401", node
            elif "curl" in programs[:i] and (
                lower == "--insecure" or re.fullmatch(r"-[a-zA-Z]*k[a-zA-Z]*", word)
            ):
                yield "SSC402", node
            elif "wget" in programs[:i] and lower == "--no-check-certificate":
                yield "SSC403", node
            elif "git" in programs[:i] and _git_disables(segment, i):
                yield "SSC404", node


def _git_disables(segment: list[Token], index: int) -> bool:
    match = _GIT_SSLVERIFY.match(segment[index][0])
    if match is None:
        return False
    if match.group(1) is not None:
        return True
    # ``git config http.sslVerify false``: the value is the next word.
    following = segment[index + 1][0].lower() if index + 1 < len(segment) else ""
    return following in _FALSE_WORDS
