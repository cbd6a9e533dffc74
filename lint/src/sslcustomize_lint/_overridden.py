"""Defaults no caller gets: parameters that every call of their function gives.

A module's helper (``class _TLSContext: def __init__(self, check_hostname=False)``) that the
module builds only one way, ``_TLSContext(check_hostname=ssl_check_hostname)`` with the
caller's option (itself on by default), never runs with its own default: the weak default is
not what anyone gets, and a finding there is a false alarm. What the calls pass is judged
where they pass it.
"""

from __future__ import annotations

import ast
import os
from functools import lru_cache

__all__ = ["default_positions", "overridden_defaults"]

_FunctionNode = ast.FunctionDef | ast.AsyncFunctionDef


def _signature(node: ast.stmt) -> tuple[list[str], dict[str, ast.expr]] | None:
    """The positional parameters a caller passes and the defaults, of a function or a class.

    A class's are its ``__init__``'s without ``self``; a decorated class (a dataclass) or one
    without an ``__init__`` of its own has none known.
    """
    if isinstance(node, ast.ClassDef):
        if node.decorator_list:
            return None
        inits = [s for s in node.body if isinstance(s, _FunctionNode) and s.name == "__init__"]
        if len(inits) != 1:
            return None
        function, skip = inits[0], 1
    elif isinstance(node, _FunctionNode):
        function, skip = node, 0
    else:
        return None
    args = function.args
    positional = [*args.posonlyargs, *args.args]
    defaults = dict(
        zip(
            (a.arg for a in positional[len(positional) - len(args.defaults) :]),
            args.defaults,
            strict=True,
        )
    )
    defaults.update(
        (a.arg, d) for a, d in zip(args.kwonlyargs, args.kw_defaults, strict=True) if d is not None
    )
    return [a.arg for a in positional[skip:]], defaults


def _gives(call: ast.Call, positional: list[str], name: str) -> bool:
    """Tell whether a call surely gives the parameter ``name``: by keyword or by position."""
    if name in {k.arg for k in call.keywords}:
        return True
    return name in positional and positional.index(name) < len(call.args)


def _exported(tree: ast.Module) -> set[str]:
    """The names of the module's ``__all__``, when it is a literal list or tuple."""
    names: set[str] = set()
    for stmt in tree.body:
        targets = stmt.targets if isinstance(stmt, ast.Assign) else [getattr(stmt, "target", None)]
        value = getattr(stmt, "value", None)
        if isinstance(value, ast.List | ast.Tuple) and any(
            isinstance(t, ast.Name) and t.id == "__all__" for t in targets
        ):
            names.update(
                e.value
                for e in value.elts
                if isinstance(e, ast.Constant) and isinstance(e.value, str)
            )
    return names


@lru_cache(maxsize=256)
def _package_exports(directory: str) -> frozenset[str] | None:
    """The ``__all__`` of the package ``__init__.py`` in ``directory``; None without one."""
    try:
        with open(os.path.join(directory, "__init__.py"), "rb") as init:
            source = init.read()
    except OSError:
        return None
    if b"__all__" not in source:
        return None
    try:
        return frozenset(_exported(ast.parse(source)))
    except (SyntaxError, ValueError, RecursionError):
        return None


def _internal(name: str, tree: ast.Module, path: str | None) -> bool:
    """Tell whether a module-level name is evidently not offered to other modules' callers.

    Left out of the module's ``__all__``; without one, ``_``-prefixed or left out of its
    package's ``__all__`` (``redis.asyncio`` lists what it offers).
    """
    exported = _exported(tree)
    if exported:
        return name not in exported
    if name.startswith("_"):
        return True
    package = _package_exports(os.path.dirname(os.path.abspath(path))) if path else None
    return package is not None and name not in package


def _signatures(tree: ast.Module) -> dict[str, tuple[list[str], dict[str, ast.expr]]]:
    """The module-level functions and classes that have defaults, by name."""
    signatures = {}
    for stmt in tree.body:
        signature = _signature(stmt)
        if signature is not None and signature[1]:
            signatures[getattr(stmt, "name", "")] = signature
    return signatures


def default_positions(tree: ast.Module) -> set[tuple[int, int]]:
    """Where the defaults of the module's functions and classes are (cheap: no walk).

    Only a finding at one of them needs ``overridden_defaults``.
    """
    return {
        (default.lineno, default.col_offset + 1)
        for _, defaults in _signatures(tree).values()
        for default in defaults.values()
    }


def _calls_and_uses(
    tree: ast.Module, names: set[str]
) -> tuple[dict[str, list[ast.Call]], set[str]]:
    """The calls of each of ``names`` by name, and those of them used in another way.

    A type annotation that names one neither calls nor passes it on.
    """
    calls: dict[str, list[ast.Call]] = {name: [] for name in names}
    named: list[ast.Name] = []
    not_uses: set[int] = set()  # the callee of each call, and names in annotations
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            if node.id in calls:
                named.append(node)
        elif isinstance(node, ast.Call):
            if isinstance(node.func, ast.Name) and node.func.id in calls:
                calls[node.func.id].append(node)
                not_uses.add(id(node.func))
        elif isinstance(node, ast.AnnAssign | ast.arg) and node.annotation is not None:
            not_uses.update(id(n) for n in ast.walk(node.annotation))
        elif isinstance(node, _FunctionNode) and node.returns is not None:
            not_uses.update(id(n) for n in ast.walk(node.returns))
    return calls, {node.id for node in named if id(node) not in not_uses}


def overridden_defaults(tree: ast.Module, path: str | None = None) -> set[tuple[int, int]]:
    """Return where the defaults are (line, column + 1) that no call of the module leaves.

    Of a module-level function or class that is internal (``_internal``: a public one has
    callers elsewhere), that the module calls by its name at least once and uses in no other
    way (not passed on, subclassed or rebound: another caller may then exist), a parameter
    every such call gives, by keyword or by position, with no ``*args`` or ``**kwargs`` that
    could stand for it.
    """
    signatures = {
        name: signature
        for name, signature in _signatures(tree).items()
        if _internal(name, tree, path)
    }
    if not signatures:
        return set()
    calls, other_uses = _calls_and_uses(tree, set(signatures))
    positions: set[tuple[int, int]] = set()
    for name, (positional, defaults) in signatures.items():
        made = calls[name]
        if not made or name in other_uses:
            continue
        if any(isinstance(a, ast.Starred) for call in made for a in call.args) or any(
            k.arg is None for call in made for k in call.keywords
        ):
            continue  # ``f(*args)``, ``f(**options)``: what they give is not known
        for parameter, default in defaults.items():
            if all(_gives(call, positional, parameter) for call in made):
                positions.add((default.lineno, default.col_offset + 1))
    return positions
