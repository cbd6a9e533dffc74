"""Static evaluation of constant expressions: the tables ``Analyzer._evaluate`` reads."""

from __future__ import annotations

import ast
import operator
from collections.abc import Callable

from sslcustomize_lint._values import UNKNOWN, Const, Value

__all__ = [
    "_BINARY",
    "_COMPARE",
    "_EMPTY_COLLECTIONS",
    "_EMPTY_CONSTRUCTORS",
    "_ENUM_KINDS",
    "_NUMBERS",
    "_SCALARS",
    "_UNARY",
    "_constant_result",
]


# Enum bases whose members are their values (an ``int``/``str`` subclass: 0 and "" are false)
# or opaque objects that are always true (``enum.Enum``; ``.value`` reads the value).
_ENUM_KINDS = {
    "enum.Enum": "enum",
    "enum.IntEnum": "value",
    "enum.IntFlag": "value",
    "enum.Flag": "value",
    "enum.StrEnum": "value",
}


_NUMBERS = (bool, int, float, complex)


# Builtins that called without arguments make a false value.
_EMPTY_CONSTRUCTORS: dict[str, object] = {
    "builtins.bool": False,
    "builtins.int": 0,
    "builtins.float": 0.0,
    "builtins.str": "",
    "builtins.bytes": b"",
    "builtins.complex": 0j,
}


_EMPTY_COLLECTIONS = frozenset(
    {"builtins.list", "builtins.tuple", "builtins.set", "builtins.frozenset"}
)


_UNARY: dict[type, Callable[..., object]] = {
    ast.Not: operator.not_,
    ast.USub: operator.neg,
    ast.UAdd: operator.pos,
    ast.Invert: operator.invert,
}


_COMPARE: dict[type, Callable[..., object]] = {
    ast.Eq: operator.eq,
    ast.NotEq: operator.ne,
    ast.Lt: operator.lt,
    ast.LtE: operator.le,
    ast.Gt: operator.gt,
    ast.GtE: operator.ge,
    ast.Is: operator.is_,
    ast.IsNot: operator.is_not,
    ast.In: lambda a, b: operator.contains(b, a),
    ast.NotIn: lambda a, b: not operator.contains(b, a),
}


_BINARY: dict[type, Callable[..., object]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
    ast.BitOr: operator.or_,
    ast.BitAnd: operator.and_,
    ast.BitXor: operator.xor,
}


_SCALARS = (bool, int, float, complex, str, bytes, type(None))


def _constant_result(
    function: Callable[..., object] | None, operands: tuple[object, ...], node: ast.AST
) -> Value:
    """Apply an operator to constants, as the interpreter would; unknown if it cannot.

    Only scalars; ``*`` and ``%`` only on numbers (no string built a gigabyte long, no
    format string run); an operation that raises is unknown.
    """
    if function is None or not all(isinstance(value, _SCALARS) for value in operands):
        return UNKNOWN
    if function in {operator.mul, operator.mod} and not all(
        isinstance(value, _NUMBERS) for value in operands
    ):
        return UNKNOWN
    if any(isinstance(value, int) and abs(value) > 1 << 64 for value in operands):
        return UNKNOWN
    try:
        return Const(function(*operands), node)
    except (ArithmeticError, TypeError, ValueError):
        return UNKNOWN
