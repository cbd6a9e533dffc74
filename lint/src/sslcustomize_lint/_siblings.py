"""Constants, option dicts and classes imported by name from a sibling module of a package.

``from .settings import VERIFY_SSL`` (or ``from mypkg.settings import VERIFY_SSL`` inside
``mypkg``) is followed to that module's file, where a module-level assignment of a literal
(``VERIFY_SSL = False``, ``MODE = ssl.CERT_NONE``) is read with one regular expression: no
parse, and each file read once per process.

An option dict (``DEFAULTS = {"verify": False}``, ``dict(...)``) or a class (whose
constructor's defaults its instances keep) imported the same way is read from the module's
tree: the file is parsed only when its text defines that name so, once per process.
"""

from __future__ import annotations

import ast
import os
import re
from functools import lru_cache

__all__ = [
    "may_keep_weak_defaults",
    "sibling_constants",
    "sibling_definition",
    "sibling_dict",
    "sibling_file",
]

# ``NAME = literal`` at the start of a line, for the literals that rules test. It starts with
# the newline before the name, which the regex engine finds fast (four times faster than ``^``
# with ``re.MULTILINE``, which is tried at every byte); ``_constants`` puts one before the file.
_ASSIGNMENT = re.compile(
    rb"\n([A-Za-z_]\w*)[ \t]*(?::[^=\n]*)?=[ \t]*"
    rb"(False|True|None|0|''|\"\"|(?:ssl\.)?CERT_NONE|['\"](?:CERT_NONE|none|NONE)['\"])"
    rb"[ \t]*(?:#[^\n]*)?(?=\n|\Z)",
)


@lru_cache(maxsize=1024)
def _package_root(directory: str) -> tuple[str, str] | None:
    """Return the top package directory above ``directory`` and its name.

    Cached: every absolute import of every file in a directory asks for the same answer, and
    each asking costs one ``stat`` per package level.
    """
    top = None
    while os.path.isfile(os.path.join(directory, "__init__.py")):
        top = directory
        parent = os.path.dirname(directory)
        if parent == directory:
            break
        directory = parent
    return (top, os.path.basename(top)) if top else None


def sibling_file(path: str | None, level: int, module: str | None) -> str | None:
    """Return the file of a module imported from the same package, if it exists.

    Args:
        path: The importing file.
        level: The number of leading dots of the import.
        module: The dotted module name after the dots (or the absolute name).

    Returns:
        The path of the module's ``.py`` file (or its package's ``__init__.py``), or ``None``.
    """
    if path is None:
        return None
    return _module_file(_directory(path), level, module)


@lru_cache(maxsize=64)
def _directory(path: str) -> str:
    """The absolute directory of a file: asked once per import, the same for a whole file."""
    return os.path.dirname(os.path.abspath(path))


@lru_cache(maxsize=4096)
def _module_file(directory: str, level: int, module: str | None) -> str | None:
    """``sibling_file`` for a file in ``directory``: the files of a package share the answers."""
    parts = module.split(".") if module else []
    if level:
        for _ in range(level - 1):
            directory = os.path.dirname(directory)
    else:
        root = _package_root(directory)
        if root is None or not parts or parts[0] != root[1]:
            return None
        directory = os.path.dirname(root[0])
    base = os.path.join(directory, *parts)
    for candidate in (base + ".py", os.path.join(base, "__init__.py")):
        if os.path.isfile(candidate):
            return candidate
    return None


@lru_cache(maxsize=256)
def _constants(path: str) -> dict[str, str]:
    """Return the module-level literal assignments of a file (read once per process)."""
    return {m.group(1).decode(): m.group(2).decode() for m in _ASSIGNMENT.finditer(_source(path))}


def sibling_constants(path: str, names: tuple[str, ...]) -> dict[str, str]:
    """Return the literal module-level values of some names in a module file.

    Args:
        path: The module's file.
        names: The names imported from it.

    Returns:
        Each name that is assigned one of the literals that rules test, with its source text.
    """
    found = _constants(path)
    return {name: found[name] for name in names if name in found}


@lru_cache(maxsize=256)
def _source(path: str) -> bytes:
    """Return a sibling file's bytes with a newline before them (read once per process)."""
    try:
        with open(path, "rb") as handle:
            return b"\n" + handle.read()
    except OSError:
        return b"\n"


# A module-level class, or a module-level name bound to a dict display or ``dict(...)``.
_DEFINITION = re.compile(
    rb"\n(?:class ([A-Za-z_]\w*)\b|([A-Za-z_]\w*)[ \t]*(?::[^=\n]*)?=[ \t]*(?:\{|dict\())"
)

# A dict entry or keyword whose value a rule tests: false, ``CERT_NONE``, a protocol.
_WEAK_ENTRY = re.compile(rb"[:=][ \t]*(?:False|(?:ssl\.)?(?:CERT_NONE|PROTOCOL_)|0\b|''|\"\")")

# Words without which no definition of a file can hold a weakening that rules test: a false
# literal or a verification constant (``verify=False``, ``"cert_reqs": ssl.CERT_NONE``).
_WEAK_WORDS = (b"False", b"CERT_NONE", b"PROTOCOL_", b"VERIFY_NONE")


@lru_cache(maxsize=256)
def _definition_names(path: str) -> frozenset[str]:
    """The module-level classes and dict-bound names of a file that may hold a weakening."""
    data = _source(path)
    if not any(word in data for word in _WEAK_WORDS):
        return frozenset()
    return frozenset(
        (m.group(1) or m.group(2)).decode("ascii", "replace") for m in _DEFINITION.finditer(data)
    )


@lru_cache(maxsize=256)
def _dict_names(path: str) -> frozenset[str]:
    """The module-level names a file binds to a dict that may hold a weak entry."""
    data = _source(path)
    if _WEAK_ENTRY.search(data) is None:
        return frozenset()
    return frozenset(
        m.group(2).decode("ascii", "replace") for m in _DEFINITION.finditer(data) if m.group(2)
    )


def sibling_dict(path: str, name: str) -> ast.Dict | ast.Call | None:
    """Return the dict display or ``dict(...)`` a sibling module binds ``name`` to, if any.

    The file is parsed only when its text binds the name so and holds a weak entry.
    """
    if name not in _dict_names(path):
        return None
    found = sibling_definition(path, name)
    return found if isinstance(found, ast.Dict | ast.Call) else None


def sibling_definition(path: str, name: str) -> ast.expr | ast.ClassDef | None:
    """Return a sibling module's class or dict named ``name``, from its text.

    Args:
        path: The module's file.
        name: The name imported from it.

    Returns:
        The ``ClassDef``, or the dict display or ``dict(...)`` call last assigned to the name
        at module level; ``None`` when the module defines neither. Only that statement is
        parsed (from its line, decorators included, to the next line at the margin), once.
    """
    if name not in _definition_names(path):
        return None
    return _definition(path, name)


# A line that starts a statement at the margin (not a comment, a blank or a closing bracket).
_MARGIN_LINE = re.compile(rb"\n(?=[^\s#)\]}])")


@lru_cache(maxsize=256)
def _definition(path: str, name: str) -> ast.expr | ast.ClassDef | None:
    """Parse the statement that defines ``name`` last at module level (see above)."""
    data = _source(path)
    word = re.escape(name.encode("ascii", "replace"))
    pattern = rb"(?:\n@[^\n]*)*\nclass " + word + rb"\b|\n" + word + rb"[ \t]*(?::[^=\n]*)?="
    starts = list(re.finditer(pattern, data))
    if not starts:
        return None
    start = starts[-1]
    end = _MARGIN_LINE.search(data, start.end())
    try:
        piece = ast.parse(data[start.start() : end.start() if end else len(data)])
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    stmt = piece.body[-1] if piece.body else None
    if isinstance(stmt, ast.ClassDef):
        return stmt
    value = stmt.value if isinstance(stmt, ast.Assign | ast.AnnAssign) else None
    if isinstance(value, ast.Dict) or (
        isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == "dict"
    ):
        return value
    return None


# A parameter or a dataclass field named for verification (``verify_ssl``, ``validate``,
# ``cert_reqs``, ``check_hostname``, ``insecure``, ``verifySsl``...) whose default is false or
# ``CERT_NONE``: a flag of another name gives a sink nothing to report. The first letter of a
# word may be a capital (camelCase); no IGNORECASE, which makes the search slower.
_WEAK_PARAMETER = re.compile(
    rb"(?:erif|alid|ert|ssl|tls|SSL|TLS|ecur|heck)\w*[ \t]*(?::[^=,()\n]*)?="
    rb"[ \t]*(?:False|(?:ssl\.)?CERT_NONE)\b"
)


@lru_cache(maxsize=256)
def may_keep_weak_defaults(path: str) -> bool:
    """Tell whether a file's text may hold a class that keeps a weak constructor default.

    Read without a parse, each ``__init__`` signature (or, in a file that names
    ``dataclass``, the whole text) searched: a file that answers no is never parsed for its
    classes.
    """
    data = _source(path)
    start = data.find(b"def __init__(")
    while start != -1:
        end = data.find(b":\n", start)
        if _WEAK_PARAMETER.search(data, start, end if end != -1 else len(data)):
            return True
        start = data.find(b"def __init__(", start + 1)
    return b"dataclass" in data and _WEAK_PARAMETER.search(data) is not None
