"""pyOpenSSL verification: verify flags and callbacks that accept every certificate."""

from __future__ import annotations

import ast

_FunctionNode = ast.FunctionDef | ast.AsyncFunctionDef


__all__ = [
    "_VERIFY_FLAGS",
    "_FunctionNode",
    "_always_returns",
    "_keyword_value",
    "_or_operands",
    "_returns_true_always",
    "_truthy_constant",
]


# pyOpenSSL's verify flags; without VERIFY_PEER none of them makes a client verify.
_VERIFY_FLAGS = frozenset(
    f"OpenSSL.SSL.{flag}"
    for flag in ("VERIFY_NONE", "VERIFY_PEER", "VERIFY_FAIL_IF_NO_PEER_CERT", "VERIFY_CLIENT_ONCE")
)


def _keyword_value(location: ast.AST) -> ast.AST:
    return location.value if isinstance(location, ast.keyword) else location


def _or_operands(node: ast.AST) -> list[ast.AST]:
    """Return the operands of ``a | b | c`` (the node itself if it is no ``|``)."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        return [*_or_operands(node.left), *_or_operands(node.right)]
    return [node]


def _truthy_constant(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and node.value is not None and bool(node.value)


def _returns_true_always(function: _FunctionNode) -> bool:
    """Tell whether every way out of ``function`` returns a true constant (``return True``).

    The last statement must be such a return (no fall-through to ``None``), every other
    ``return`` too, and nothing may raise: a callback that looks at ``ok`` or the certificate
    on any path is not this.
    """
    body = function.body
    if not _always_returns(body):
        return False
    stack: list[ast.AST] = list(body)
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Raise):
            return False
        if isinstance(node, ast.Return) and not (
            node.value is not None and _truthy_constant(node.value)
        ):
            return False
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda | ast.ClassDef):
            stack.extend(ast.iter_child_nodes(node))
    return True


def _always_returns(body: list[ast.stmt]) -> bool:
    """Tell whether ``body`` cannot fall through: it ends in a ``return`` on every branch.

    ``if ok: return True`` / ``else: return 1`` ends both ways; an ``if`` without ``else``,
    a loop or a ``try`` may fall through (to ``None``) and does not count.
    """
    if not body:
        return False
    last = body[-1]
    if isinstance(last, ast.Return):
        return True
    if isinstance(last, ast.If):
        return _always_returns(last.body) and _always_returns(last.orelse)
    if isinstance(last, ast.With | ast.AsyncWith):
        return _always_returns(last.body)
    return False
