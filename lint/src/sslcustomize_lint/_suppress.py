"""Suppression comments: ``# sslcustomize: allow(reason)`` on the finding's line.

The reason is required. An ``allow()`` without one suppresses nothing and is reported itself
(``SSC001``), so that every opt-out carries a reason that ``grep`` finds.
"""

from __future__ import annotations

import re

__all__ = ["Allows", "find_allows"]

_ALLOW = re.compile(r"#\s*sslcustomize:\s*allow\((?P<reason>[^)]*)\)")
# line number -> the stripped reason ("" when none was given)
Allows = dict[int, str]


def find_allows(source: str) -> Allows:
    """Return the suppression comments of a module, by line.

    Only real comments count: the text inside a string or docstring does not.

    Args:
        source: The module's text.

    Returns:
        The reason given on each line that carries a suppression comment.
    """
    allows: Allows = {}
    if _ALLOW.search(source) is None:
        # Most files that name the marker do so in text (docs, this linter's own modules):
        # without a match, tokenizing the file (a third of a millisecond per 100 lines) is
        # needless.
        return allows
    # Only here: most runs meet no allow comment, and tokenize costs every run 1.2 ms to import.
    import io  # noqa: PLC0415
    import tokenize  # noqa: PLC0415

    try:
        for token in tokenize.generate_tokens(io.StringIO(source).readline):
            if token.type == tokenize.COMMENT:
                match = _ALLOW.search(token.string)
                if match:
                    allows[token.start[0]] = match.group("reason").strip()
    except (tokenize.TokenError, SyntaxError):
        pass  # the file parsed, so this is unreachable in practice; keep what was found
    return allows
