"""Every error of a policy file, not only the first: for ``doctor`` to name them all at once.

The loader stops at the first error (the process then uses the strict fallback, so one is
enough there). A person fixing a file wants them all: this reads the file again and again,
each time with the offending setting commented out (line numbers kept), until it loads.
Errors that follow only from an earlier cut (a table left without its last key) are not
reported.
"""

from __future__ import annotations

from sslcustomize._policy._read import parse_policy
from sslcustomize.exceptions import PolicyError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from sslcustomize._policy._read import SourceCheck

__all__ = ["every_error"]

_LIMIT = 50


def _header_of(lines: list[str], index: int) -> int | None:
    """Return the index of the table header above line ``index`` (``None``: top level)."""
    for above in range(index, -1, -1):
        if lines[above].lstrip().startswith("["):
            return above
    return None


def _cut(lines: list[str], index: int) -> bool:
    """Comment out the setting or table at ``index``; return whether anything changed."""
    if not 0 <= index < len(lines) or lines[index].lstrip().startswith("#"):
        return False
    if lines[index].lstrip().startswith("["):  # a whole table, up to the next header
        end = index + 1
        while end < len(lines) and not lines[end].lstrip().startswith("["):
            end += 1
    else:  # a setting, with the lines of a multi-line array
        end, depth = index, 0
        while end < len(lines):
            code = lines[end].split("#", 1)[0]
            depth += code.count("[") - code.count("]")
            end += 1
            if depth <= 0:
                break
    for number in range(index, end):
        lines[number] = "#"
    return True


def every_error(
    text: str, *, path: str, layer: str, check_source: SourceCheck
) -> list[PolicyError]:
    """Return every error of one policy file, in the order the loader finds them.

    Args:
        text: The file's contents.
        path: Its path (for messages and relative CA paths).
        layer: Its layer (``lock`` is an error outside ``system``).
        check_source: Checks that a trust source works now (see :func:`._read.parse_policy`).

    Returns:
        The errors, each with its line and key; ``[]`` for a valid file.
    """
    lines = text.splitlines()
    errors: list[PolicyError] = []
    cut_tables: set[int | None] = set()
    for _ in range(_LIMIT):
        error = _first_error("\n".join(lines), path, layer, check_source)
        if error is None:
            break
        syntax = error.problem.startswith("not valid TOML")
        if syntax and errors:
            break  # made by a cut, not by the author
        index = (error.line or 0) - 1
        follows_a_cut = index in cut_tables and lines[index].lstrip().startswith("[")
        if not follows_a_cut:
            errors.append(error)
        if syntax or error.line is None:
            break
        if not lines[index].lstrip().startswith("["):
            cut_tables.add(_header_of(lines, index))
        if not _cut(lines, index):
            break
    return errors


def _first_error(text: str, path: str, layer: str, check_source: SourceCheck) -> PolicyError | None:
    try:
        parse_policy(text, path=path, layer=layer, check_source=check_source)
    except PolicyError as error:
        return error
    return None
