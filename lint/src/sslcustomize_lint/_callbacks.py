"""pyOpenSSL verification: verify flags and callbacks that accept every certificate."""

from __future__ import annotations

import ast

_FunctionNode = ast.FunctionDef | ast.AsyncFunctionDef


__all__ = [
    "_VERIFY_FLAGS",
    "_FunctionNode",
    "_always_returns",
    "_always_true",
    "_factory_product",
    "_keyword_value",
    "_method_through_class",
    "_or_operands",
    "_returns_true_always",
    "_swallowed_cert_error",
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


def _always_true(node: ast.AST) -> bool:
    """Tell whether an expression is true whatever it reads: ``True``, ``1``, ``ok or True``."""
    if isinstance(node, ast.BoolOp) and isinstance(node.op, ast.Or):
        return any(map(_always_true, node.values))
    return _truthy_constant(node)


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
            node.value is not None and _always_true(node.value)
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


def _factory_product(factory: _FunctionNode) -> ast.Lambda | _FunctionNode | None:
    """Return the callback a factory makes: ``def make(...): def cb(...): ...; return cb``.

    Only when the factory ends in ``return NAME`` of a function defined in its own body, or in
    ``return lambda ...``: the callback a caller gets (``cb = self._make_cb(host)``).
    """
    last = factory.body[-1] if factory.body else None
    if not isinstance(last, ast.Return) or last.value is None:
        return None
    if isinstance(last.value, ast.Lambda):
        return last.value
    if not isinstance(last.value, ast.Name):
        return None
    made = None
    for stmt in factory.body:
        if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef) and stmt.name == last.value.id:
            made = stmt
    return made


# Errors of a certificate or host-name check, by their last dotted name (``ssl``'s,
# ``service_identity``'s, OpenSSL's, Twisted's).
_CERT_ERRORS = frozenset(
    {
        "CertificateError",
        "SSLCertVerificationError",
        "SSLError",
        "VerificationError",
        "CertificateVerificationError",
        "VerifyHostnameError",
    }
)
# A handler that calls one of these refuses the connection rather than carrying on.
_REFUSALS = frozenset(
    {"close", "shutdown", "abort", "abortConnection", "loseConnection", "set_exception", "fail"}
)


def _error_names(handler: ast.ExceptHandler) -> list[str]:
    """The last dotted names of the exception types an ``except`` clause catches."""
    kinds = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
    names = []
    for kind in kinds:
        if isinstance(kind, ast.Name):
            names.append(kind.id)
        elif isinstance(kind, ast.Attribute):
            names.append(kind.attr)
    return names


def _carries_on(handler: ast.ExceptHandler) -> bool:
    """Tell whether an ``except`` clause lets the code go on: no raise, return or refusal."""
    for node in (n for stmt in handler.body for n in ast.walk(stmt)):
        if isinstance(node, ast.Raise | ast.Return):
            return False
        if isinstance(node, ast.Call):
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            if name in _REFUSALS:
                return False
    return True


def _swallowed_cert_error(function: ast.Lambda | _FunctionNode) -> ast.ExceptHandler | None:
    """Return the ``except`` clause of ``function`` that catches a certificate error and goes on.

    ``try: verify_hostname(conn, host)`` / ``except (CertificateError, VerificationError):
    log(...)``: a mismatch is only logged, the connection is kept. Not in functions defined
    inside it (they are judged where they are used).
    """
    if isinstance(function, ast.Lambda):
        return None
    stack: list[ast.AST] = list(function.body)
    while stack:
        node = stack.pop()
        # ``try`` and ``try``/``except*`` (``ast.TryStar``, Python 3.11+) alike.
        for handler in getattr(node, "handlers", ()):
            if (
                isinstance(handler, ast.ExceptHandler)
                and handler.type is not None
                and any(name in _CERT_ERRORS for name in _error_names(handler))
                and _carries_on(handler)
            ):
                return handler
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda | ast.ClassDef):
            stack.extend(ast.iter_child_nodes(node))
    return None


# How many base classes deep a method is looked for.
_BASES_FOLLOWED = 8


def _enclosing_class(tree: ast.Module, function: ast.AST) -> ast.ClassDef | None:
    """The module-level class whose lines hold ``function`` (a method or a closure in one)."""
    line = getattr(function, "lineno", None)
    if line is None:
        return None
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and node.lineno <= line <= (node.end_lineno or line):
            return node
    return None


def _method_through_class(
    tree: ast.Module, receiver: str, name: str, function: ast.AST
) -> tuple[bool, _FunctionNode | None]:
    """Resolve ``self.name``, ``cls.name`` or ``Class.name`` through the class and its bases.

    Returns whether ``receiver`` is a class of this file (else the caller looks the name up
    otherwise) and the method, ``None`` when the class (or a base of it that this file does
    not define) may hold it unseen. The class's own definition wins over its bases',
    the first base over the later ones, as Python's method order does for single chains.
    """
    classes = {node.name: node for node in tree.body if isinstance(node, ast.ClassDef)}
    if receiver in {"self", "cls"}:
        start = _enclosing_class(tree, function)
    else:
        start = classes.get(receiver)
    if start is None:
        return False, None
    pending, seen = [start], set[str]()
    while pending and len(seen) < _BASES_FOLLOWED:
        cls = pending.pop(0)
        seen.add(cls.name)
        found = None
        for stmt in cls.body:
            if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef) and stmt.name == name:
                found = stmt
            elif isinstance(stmt, ast.Assign | ast.AnnAssign) and any(
                isinstance(t, ast.Name) and t.id == name
                for t in (stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target])
            ):
                return True, None  # ``cb = staticmethod(accept)``: bound otherwise
        if found is not None:
            return True, found
        for base in cls.bases:
            known = classes.get(base.id) if isinstance(base, ast.Name) else None
            if known is None:
                if isinstance(base, ast.Name) and base.id == "object":
                    continue
                return True, None  # a base from elsewhere may define it
            if known.name not in seen:
                pending.append(known)
    return True, None
