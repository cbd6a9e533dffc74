"""Branches only Python 2 takes: tests whose value is the same on every Python 3.

A library that still carries its Python 2 fallback (``ssl.wrap_socket(cert_reqs=...)`` where
``SSLContext`` is missing) writes the choice in a few ways: ``hasattr(ssl, "SSLContext")``,
``sys.version_info < (3,)``, ``PY2`` (its own, six's, a compat module's), or a module flag set
by importing ``create_default_context`` in a ``try`` and cleared in its ``except
ImportError``. On Python 3 such a test has one value, so one of its branches never runs and
what it does there weakens nothing anyone runs.
"""

from __future__ import annotations

import ast

from sslcustomize_lint._evaluation import _COMPARE

__all__ = ["python3_flags", "python3_truth"]

# Names every Python 3 ``ssl`` module has (since 3.4 at the latest).
_PYTHON3_SSL_NAMES = frozenset({"SSLContext", "create_default_context", "Purpose"})
# ``sys.version_info`` on the oldest and the newest Python 3: a comparison with the same
# value at both ends has it on every Python 3 (tuples compare in order).
_OLDEST = (3, 0, 0, "alpha", 0)
_NEWEST = (3, 999, 999, "final", 999)
# Flags that libraries and their compatibility modules export under these names; imported,
# they are taken at their word (six's, future's, requests' ``compat.is_py2``).
_PY2_NAMES = frozenset({"PY2", "IS_PY2", "is_py2", "PY26", "PY27", "is_py27"})
_PY3_NAMES = frozenset({"PY3", "IS_PY3", "is_py3", "PY3K", "PY3k"})
# Comparisons of versions (not ``is``/``in``).
_ORDERS = (ast.Lt, ast.LtE, ast.Gt, ast.GtE, ast.Eq, ast.NotEq)


def _is_version_info(node: ast.expr) -> bool:
    """``sys.version_info`` (written so, or imported by name)."""
    if isinstance(node, ast.Attribute):
        return (
            node.attr == "version_info"
            and isinstance(node.value, ast.Name)
            and node.value.id == "sys"
        )
    return isinstance(node, ast.Name) and node.id == "version_info"


def _version_part(node: ast.expr, version: tuple[object, ...]) -> object:
    """The value ``node`` reads of a ``sys.version_info`` that is ``version``; None if not one.

    ``sys.version_info``, ``sys.version_info[0]``, ``sys.version_info[:2]``,
    ``sys.version_info.major``.
    """
    if _is_version_info(node):
        return version
    if isinstance(node, ast.Attribute) and _is_version_info(node.value):
        return version[0] if node.attr == "major" else None
    if not (isinstance(node, ast.Subscript) and _is_version_info(node.value)):
        return None
    index = node.slice
    if isinstance(index, ast.Constant) and index.value == 0:
        return version[0]
    if (
        isinstance(index, ast.Slice)
        and index.lower is None
        and index.step is None
        and isinstance(index.upper, ast.Constant)
        and isinstance(index.upper.value, int)
    ):
        return version[: index.upper.value]
    return None


def _constant(node: ast.expr) -> object:
    """A constant or a tuple of constants; None otherwise."""
    if isinstance(node, ast.Constant) and isinstance(node.value, int | str):
        return node.value
    if isinstance(node, ast.Tuple) and all(isinstance(e, ast.Constant) for e in node.elts):
        return tuple(e.value for e in node.elts if isinstance(e, ast.Constant))
    return None


def _version_compare(test: ast.Compare) -> bool | None:
    """``sys.version_info < (3,)``, ``sys.version_info[0] == 2``: its value on Python 3."""
    if len(test.ops) != 1 or not isinstance(test.ops[0], _ORDERS):
        return None
    compare = _COMPARE[type(test.ops[0])]
    left, right = test.left, test.comparators[0]
    results = set()
    for version in (_OLDEST, _NEWEST):
        ours, theirs = _version_part(left, version), _version_part(right, version)
        if (ours is None) == (theirs is None):
            return None  # no ``sys.version_info``, or one on both sides
        pair = (ours, _constant(right)) if theirs is None else (_constant(left), theirs)
        if None in pair:
            return None
        try:
            results.add(bool(compare(*pair)))
        except TypeError:
            return None
    return results.pop() if len(results) == 1 else None


def _has_python3_name(test: ast.Call) -> bool:
    """``hasattr(ssl, "SSLContext")``: true on every Python 3."""
    return (
        isinstance(test.func, ast.Name)
        and test.func.id == "hasattr"
        and len(test.args) == 2
        and isinstance(test.args[0], ast.Name)
        and test.args[0].id == "ssl"
        and isinstance(test.args[1], ast.Constant)
        and test.args[1].value in _PYTHON3_SSL_NAMES
    )


def python3_truth(test: ast.expr, flags: dict[str, bool]) -> bool | None:  # noqa: PLR0911
    """Return the value a branch's test has on every Python 3, or None if it can differ.

    ``flags`` are the module's names known to say which Python runs (``python3_flags``).
    """
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        inner = python3_truth(test.operand, flags)
        return None if inner is None else not inner
    if isinstance(test, ast.BoolOp):
        values = [python3_truth(value, flags) for value in test.values]
        decisive = isinstance(test.op, ast.Or)  # ``or``: one true decides; ``and``: one false
        if decisive in values:
            return decisive
        return (not decisive) if all(v is not None for v in values) else None
    if isinstance(test, ast.Call):
        return True if _has_python3_name(test) else None
    if isinstance(test, ast.Compare):
        return _version_compare(test)
    if isinstance(test, ast.Name):
        return flags.get(test.id)
    if isinstance(test, ast.Attribute) and isinstance(test.value, ast.Name):
        if test.value.id == "six" and test.attr in {"PY2", "PY3"}:
            return test.attr == "PY3"
        if test.value.id.endswith("compat"):  # ``compat.is_py2``, ``_compat.PY3``
            return _named_flag(test.attr)
    return None


def _named_flag(name: str) -> bool | None:
    """Return what a conventional flag's name says on Python 3 (``PY2``: false)."""
    if name in _PY2_NAMES:
        return False
    return True if name in _PY3_NAMES else None


def _try_flag(node: ast.Try) -> dict[str, bool]:
    """Return the flags a ``try`` sets by importing ``ssl``'s Python 3 names.

    ``try: from ssl import create_default_context; OK = True`` / ``except ImportError: OK =
    False``: OK is true on every Python 3. Only when everything the ``try`` imports is a
    Python 3 name of ``ssl`` (another import may fail on Python 3 too).
    """
    imports = [
        n
        for stmt in node.body
        for n in ast.walk(stmt)
        if isinstance(n, ast.Import | ast.ImportFrom)
    ]
    if not imports or not all(
        isinstance(n, ast.ImportFrom)
        and n.module == "ssl"
        and all(alias.name in _PYTHON3_SSL_NAMES for alias in n.names)
        for n in imports
    ):
        return {}
    handlers = [
        h
        for h in node.handlers
        if isinstance(h.type, ast.Name) and h.type.id in {"ImportError", "ModuleNotFoundError"}
    ]
    if len(handlers) != len(node.handlers) or not handlers:
        return {}
    return {
        name: value
        for name, value in _bool_bindings(node.body).items()
        if all(_bool_bindings(h.body).get(name) is (not value) for h in handlers)
    }


def _bool_bindings(body: list[ast.stmt]) -> dict[str, bool]:
    """``NAME = True`` / ``NAME = False`` statements of a block, by name."""
    bound: dict[str, bool] = {}
    for stmt in body:
        if (
            isinstance(stmt, ast.Assign)
            and len(stmt.targets) == 1
            and isinstance(stmt.targets[0], ast.Name)
            and isinstance(stmt.value, ast.Constant)
            and isinstance(stmt.value.value, bool)
        ):
            bound[stmt.targets[0].id] = stmt.value.value
    return bound


def python3_flags(tree: ast.Module) -> dict[str, bool]:
    """Return the module's names whose value is the same on every Python 3.

    ``PY2 = sys.version_info[0] == 2``; ``from six import PY3``; ``from .compat import
    is_py2``; a flag set by a ``try`` that imports ``create_default_context`` (``_try_flag``).
    A name bound twice at module level in other ways is left out.
    """
    flags: dict[str, bool] = {}
    for stmt in tree.body:
        if isinstance(stmt, ast.Try):
            flags.update(_try_flag(stmt))
        elif isinstance(stmt, ast.ImportFrom):
            for alias in stmt.names:
                value = _named_flag(alias.name)
                if value is not None and (stmt.module or "").rsplit(".", 1)[-1] in {
                    "six",
                    "utils",  # future.utils
                    "compat",
                    "_compat",
                    "compatibility",
                    "py3compat",
                }:
                    flags[alias.asname or alias.name] = value
        elif (
            isinstance(stmt, ast.Assign)
            and len(stmt.targets) == 1
            and isinstance(stmt.targets[0], ast.Name)
        ):
            value = python3_truth(stmt.value, flags)
            if value is None:
                flags.pop(stmt.targets[0].id, None)
            else:
                flags[stmt.targets[0].id] = value
    return flags
