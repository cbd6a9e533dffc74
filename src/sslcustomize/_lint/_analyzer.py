"""Walk one module's AST and report the places that weaken certificate verification.

The analysis is deliberately small: names are followed through imports (with aliases),
assignments in order (module constants, locals, ``with ... as``), function parameters and
their defaults, dict literals used as ``**kwargs``, ``functools.partial``, and ``self.x``
attributes set in a class's methods. An ``ssl.SSLContext`` is followed from its creation
through its attribute changes to its use, so that server contexts stay silent.
"""

from __future__ import annotations

import ast
import builtins
import contextlib
import itertools
import re
from bisect import bisect_left
from collections.abc import Callable, Iterator

from sslcustomize._lint import _tables as t
from sslcustomize._lint._callbacks import (
    _VERIFY_FLAGS,
    _FunctionNode,
    _keyword_value,
    _or_operands,
    _returns_true_always,
    _truthy_constant,
)
from sslcustomize._lint._commands import Token, scan_command, tokens_of
from sslcustomize._lint._evaluation import (
    _BINARY,
    _COMPARE,
    _EMPTY_COLLECTIONS,
    _EMPTY_CONSTRUCTORS,
    _ENUM_KINDS,
    _UNARY,
    _constant_result,
)
from sslcustomize._lint._prefilter import hot_lines, is_tls_name, lines_of, places_of
from sslcustomize._lint._siblings import sibling_constants, sibling_file
from sslcustomize._lint._values import (
    UNKNOWN,
    Const,
    ContextState,
    DictVal,
    Instance,
    Method,
    Param,
    Partial,
    Ref,
    SeqVal,
    Value,
)
from sslcustomize._lint._valuetests import (
    _TESTS,
    _env_insecure,
    _is_cert_none,
    _is_const,
    _is_falsy,
    _param,
    _ref_in,
    _str,
    _weak_setting,
)

TYPE_CHECKING = False  # not typing's: the lint command does not import typing
if TYPE_CHECKING:
    from typing import Any

__all__ = ["Analyzer", "RawFinding"]

RawFinding = tuple[str, int, int]  # code, line, 1-based column


class _Sibling:
    """A name imported from a sibling module, until it is used (see ``Analyzer._settle``).

    Most imported names are never looked up, and reading a sibling file for them is a tenth
    of the analysis on a site-packages tree.
    """

    __slots__ = ("name", "node", "path")

    def __init__(self, path: str, name: str, node: ast.AST) -> None:
        self.path = path
        self.name = name
        self.node = node

    def read(self) -> Value:
        """Return the name's value: a literal the sibling module assigns it, or unknown."""
        return _constant(sibling_constants(self.path, (self.name,)).get(self.name), self.node)


_Scope = dict[str, "Value | _Sibling"]
_KwMap = dict[str, tuple[Value, ast.AST]]

_SERVER_CALLS = frozenset(
    {
        "start_server",
        "create_server",
        "start_unix_server",
        "create_unix_server",
        "run_app",
        "serve",
        "TCPSite",
        "SSLServer",
        "make_server",
        "run_simple",
    }
)
_SERVER_MARKERS = frozenset({"PROTOCOL_TLS_SERVER", "CLIENT_AUTH", "server_side"} | _SERVER_CALLS)
_BARE_PROTOCOLS = frozenset(
    {
        "ssl.PROTOCOL_TLS",
        "ssl.PROTOCOL_SSLv23",
        "ssl.PROTOCOL_SSLv3",
        "ssl.PROTOCOL_SSLv2",
        "ssl.PROTOCOL_TLSv1",
        "ssl.PROTOCOL_TLSv1_1",
        "ssl.PROTOCOL_TLSv1_2",
    }
)
_VERIFYING_MODES = frozenset({"ssl.CERT_REQUIRED", "ssl.CERT_OPTIONAL"})
_PROCESS_METHODS = frozenset(
    {"create_subprocess_exec", "create_subprocess_shell", "subprocess_exec", "subprocess_shell"}
)
# Node types with nothing to analyze below them.
_LEAVES = frozenset({ast.Load, ast.Store, ast.Del, ast.Name, ast.Constant})
# Fields that never hold a node worth visiting: names, numbers and strings, operators and
# load/store contexts (nodes without fields, and without handlers).
_SCALAR_FIELDS = frozenset(
    {"id", "attr", "arg", "name", "asname", "module", "level", "kind", "conversion"}
    | {"is_async", "type_comment", "tag", "ctx", "op", "ops"}
)
# Node type -> its fields that ``generic_visit`` looks into, filled as types are met.
_CHILD_FIELDS: dict[type, tuple[str, ...]] = {}


def _child_fields(node_type: type[ast.AST]) -> tuple[str, ...]:
    fields = _CHILD_FIELDS.get(node_type)
    if fields is None:
        fields = tuple(f for f in node_type._fields if f not in _SCALAR_FIELDS)
        _CHILD_FIELDS[node_type] = fields
    return fields


_SESSION_TYPES = frozenset({"requests.Session", "httpx.Client", "httpx.AsyncClient"})
# Modules whose functions that a name looked up at run time can reach are HTTP requests.
_VERB_MODULES = frozenset({"requests", "httpx"})
_SESSIONISH_NAMES = ("session", "client", "http", "sess")


# Methods whose first argument is tested by ``_weak_setting`` (or, for set_verify, as a mode).
_WEAK_METHODS = {
    "set_min_proto_version": "SSC702",
    "set_max_proto_version": "SSC702",
    "set_ciphers": "SSC704",
    "set_cipher_list": "SSC704",
    "clear_options": "SSC703",
    "set_verify": "SSC208",
}


class Analyzer:
    """Analyze one module.

    Args:
        tree: The parsed module.
        source: The module's bytes. When given, functions whose lines hold no word that a rule
            needs (and no module-level name bound on such a line) are not analyzed.
        path: The module's file. When given, constants imported by name from a sibling module
            of the same package are read from that module.
        hot: ``hot_lines`` of the source, if the caller has them already.
    """

    def __init__(
        self,
        tree: ast.Module,
        source: bytes | None = None,
        path: str | None = None,
        *,
        hot: list[bool] | None = None,
    ) -> None:
        self.tree = tree
        self.source = source
        self.path = path
        self._in_compare = 0
        # >0 inside a branch that runs only when a caller opts out through a parameter.
        self._optout = 0
        self._defs: dict[str, ast.AST] = {}  # function name -> its latest definition
        # A sink fed by a parameter; its callers are checked (see ``_ParamSink``).
        self._param_sinks: list[_ParamSink] = []
        # A class's ``__init__`` parameters stored as ``self.x`` (by identity): the class's
        # name and its ``__init__``, whose callers are the class's constructions.
        self._init_params: dict[int, tuple[str, _FunctionNode]] = {}
        self._class_names_by_attrs: dict[int, str] = {}  # id(class_attrs) -> the class's name
        self._hot: list[bool] | None = hot  # computed from the module's names when not given
        self.findings: set[RawFinding] = set()
        self.module_scope: _Scope = {}
        self.scopes: list[_Scope] = [self.module_scope]
        self.contexts: dict[ast.AST, ContextState] = {}
        self.imported: set[str] = set()
        self.class_attrs: _Scope | None = None
        self.function: ast.AST = tree
        self._server_hints: dict[ast.AST, bool] = {}
        self._pending: list[tuple[_FunctionNode, list[_Scope], _Scope | None]] = []
        self._star_modules: list[str] = []  # ``from module import *``, in order
        self._whole: ast.Module | None = None  # the uncut tree, parsed when a callback needs it
        # a module-level class's name -> its body's names and its kind (see ``_class_member``)
        self._classes: dict[str, tuple[_Scope, str]] = {}
        self._cut_classes: dict[str, tuple[_Scope, str] | None] = {}  # read by ``_cut_class``
        self._class_names: dict[str, int] | None = None  # module-level ``class NAME``: offset

    # -- driving -------------------------------------------------------------------------

    def run(self, *, callers: bool = True) -> list[RawFinding]:
        """Analyze the module and return its findings, sorted by position.

        ``callers=False`` leaves the callers of ``followed_functions`` unchecked, for a
        ``check_callers`` on a tree that holds more of them.
        """
        self.visit_body(self.tree.body)
        while self._pending:
            func, scopes, class_attrs = self._pending.pop(0)
            if self._is_hot(func):
                self._visit_function(func, scopes, class_attrs)
        if callers:
            self._finish_param_sinks(self.tree)
        self._finish_contexts()
        return sorted(self.findings, key=lambda f: (f[1], f[2], f[0]))

    @property
    def follows_callers(self) -> bool:
        """Tell whether the last run checked callers of functions (see ``_finish_param_sinks``)."""
        return bool(self._param_sinks)

    @property
    def followed_functions(self) -> tuple[str, ...]:
        """The names of the functions whose callers the last run checked."""
        return tuple(dict.fromkeys(sink[0] for sink in self._param_sinks))

    def check_callers(self, tree: ast.Module) -> list[RawFinding]:
        """Check the callers of ``followed_functions`` in ``tree``, after ``run``.

        ``tree`` is the same module parsed with more of its functions: the tree that ``run``
        saw may have left out the functions that call them (a cut source, see the runner).
        Returns all the findings, sorted by position, as ``run`` does.
        """
        self._finish_param_sinks(tree)
        return sorted(self.findings, key=lambda f: (f[1], f[2], f[0]))

    def _is_hot(self, node: ast.AST) -> bool:
        """Tell whether a function may hold a finding (see ``source``)."""
        if self.source is None:
            return True
        if self._hot is None:
            # Module constants on hot lines (``OPTS = {"verify": False}``) heat their users.
            names = {
                name.lower().encode()
                for name, value in self.module_scope.items()
                if _suspect(_settle(self.module_scope, name, value))
            }
            self._hot = hot_lines(self.source, tuple(names))
        first = getattr(node, "lineno", 1) - 1
        last = getattr(node, "end_lineno", None) or len(self._hot)
        return any(self._hot[first:last])

    def report(self, code: str, node: ast.AST) -> None:
        """Record a finding at a node (not inside a caller's opt-out branch, see ``_visit_if``)."""
        if self._optout and code not in _ALWAYS:
            return
        line = getattr(node, "lineno", 1)
        col = getattr(node, "col_offset", 0) + 1
        self.findings.add((code, line, col))

    def visit_body(self, body: list[ast.stmt]) -> None:
        """Visit statements in order, so that bindings see earlier assignments."""
        for stmt in body:
            self.visit(stmt)

    def visit(self, node: ast.AST) -> None:
        """Visit a node and, unless its handler takes over, its children."""
        handler = _HANDLERS.get(type(node)) or _handler(type(node))
        handler(self, node)

    def generic_visit(self, node: ast.AST) -> None:
        """Visit the children of a node in source order."""
        # ``ast.iter_child_nodes`` and ``visit`` inlined: this loop is where the analysis spends
        # its time.
        handlers = _HANDLERS
        for name in _CHILD_FIELDS.get(type(node)) or _child_fields(type(node)):
            value = getattr(node, name, None)
            if type(value) is list:
                for item in value:
                    kind = type(item)
                    if kind not in _LEAVES and isinstance(item, ast.AST):
                        (handlers.get(kind) or _handler(kind))(self, item)
            elif (kind := type(value)) not in _LEAVES and isinstance(value, ast.AST):
                (handlers.get(kind) or _handler(kind))(self, value)

    def _visit_name(self, node: ast.Name) -> None:
        """Names have nothing below them worth visiting."""

    _visit_constant = _visit_name
    _visit_pass = _visit_name

    def _visit_attribute(self, node: ast.Attribute) -> None:
        """``a.b.c``: only the innermost value may hold something to visit (a call)."""
        value = node.value
        while type(value) is ast.Attribute:
            value = value.value
        kind = type(value)
        if kind not in _LEAVES:
            (_HANDLERS.get(kind) or _handler(kind))(self, value)

    def _visit_keyword(self, node: ast.keyword) -> None:
        """A keyword argument: its value (``generic_visit`` without the loop over fields)."""
        kind = type(node.value)
        if kind not in _LEAVES:
            (_HANDLERS.get(kind) or _handler(kind))(self, node.value)

    # -- statements ----------------------------------------------------------------------

    def _visit_import(self, node: ast.Import) -> None:
        for alias in node.names:
            root = alias.name.split(".")[0]
            self.imported.add(root)
            if alias.asname:
                self.scopes[-1][alias.asname] = Ref(t.normalize(alias.name))
            else:
                self.scopes[-1][root] = Ref(root)

    def _visit_import_from(self, node: ast.ImportFrom) -> None:
        sibling = sibling_file(self.path, node.level, node.module)
        if sibling is not None:
            for alias in node.names:
                self.scopes[-1][alias.asname or alias.name] = _Sibling(sibling, alias.name, node)
            if node.level or not node.module:
                return
        elif node.level or not node.module:
            for alias in node.names:
                self.scopes[-1][alias.asname or alias.name] = UNKNOWN
            return
        self.imported.add(node.module.split(".")[0])
        for alias in node.names:
            if alias.name == "*":
                self._star_modules.append(node.module)
                continue
            qualname = t.normalize(f"{node.module}.{alias.name}")
            self.scopes[-1][alias.asname or alias.name] = Ref(qualname)

    def _visit_function_def(self, node: _FunctionNode) -> None:
        for decorator in node.decorator_list:
            self.visit(decorator)
        self._pending.append((node, list(self.scopes), self.class_attrs))
        self.scopes[-1][node.name] = UNKNOWN
        self._defs[node.name] = node

    _visit_async_function_def = _visit_function_def

    def _visit_class_def(self, node: ast.ClassDef) -> None:
        for expr in [*node.bases, *node.decorator_list]:
            self.visit(expr)
        outer = self.class_attrs
        self.class_attrs = {}  # filled by ``self.x = ...`` as the methods are visited
        self._class_names_by_attrs[id(self.class_attrs)] = node.name
        bases = [base for base in map(self.resolve, node.bases) if isinstance(base, Ref)]
        if bases:
            self.class_attrs[_BASE] = Instance(bases[0].qualname)
        body: _Scope = {}
        self.scopes.append(body)
        self.visit_body(node.body)
        self.scopes.pop()
        self._check_class_versions(node.body, body)
        for name, value in body.items():
            if isinstance(value, Const):  # ``verify_tls = False`` read as ``self.verify_tls``
                self.class_attrs.setdefault(name, value)
        self.class_attrs = outer
        self.scopes[-1][node.name] = UNKNOWN
        if len(self.scopes) == 1:  # a module's class: its attributes are read by name
            self._classes[node.name] = (body, _class_kind(bases))

    def _check_class_versions(self, statements: list[ast.stmt], body: _Scope) -> None:
        """A weak protocol or version bound as a class attribute is a configuration choice.

        ``method = SSL.SSLv3_METHOD`` in a Twisted-style context factory, read back as
        ``self.method``: reported where it is chosen, as a parameter's default is. Only an
        attribute named as the keyword it feeds (``method``, ``ssl_version``,
        ``minimum_version``).
        """
        for stmt in statements:
            if isinstance(stmt, ast.Assign):
                target: ast.expr = stmt.targets[0]
            elif isinstance(stmt, ast.AnnAssign) and stmt.value is not None:
                target = stmt.target
            else:
                continue
            if not isinstance(target, ast.Name):
                continue
            # Named as the keyword it feeds: read back as ``self.method``, which is not
            # followed. A constant (``PROTOCOL``) is followed where it is used instead.
            name = target.id
            if name in t.PROTOCOL_KEYWORDS or name in t.MIN_VERSION_KEYWORDS:
                code = _weak_setting(name, _settle(body, name, body.get(name, UNKNOWN)))
                if code is not None:
                    self.report(code, stmt)

    def _visit_function(
        self, node: _FunctionNode, scopes: list[_Scope], class_attrs: _Scope | None
    ) -> None:
        saved = (self.scopes, self.class_attrs, self.function)
        self.scopes = scopes
        self.class_attrs = class_attrs
        scope: _Scope = {}
        args = node.args
        positional = [*args.posonlyargs, *args.args]
        defaults: list[ast.expr | None] = [None] * (len(positional) - len(args.defaults))
        defaults += list(args.defaults)
        pairs = list(zip(positional, defaults, strict=True))
        pairs += list(zip(args.kwonlyargs, args.kw_defaults, strict=True))
        for arg, default in pairs:
            if default is None:
                scope[arg.arg] = Param(arg.arg, None)
            else:
                value = self.resolve(default)
                # Keep where the default was written: the finding points there.
                scope[arg.arg] = Param(arg.arg, _located(value, default))
                self._check_default(arg.arg, value, default)
        if args.kwarg is not None:  # ``**kwargs``: a dict of what the caller gave
            scope[args.kwarg.arg] = DictVal({}, _empty_dict_at(args.kwarg), has_unknown=True)
        self.scopes = [*scopes, scope]
        self.function = node
        self.visit_body(node.body)
        self.scopes, self.class_attrs, self.function = saved

    def _check_default(self, name: str, value: Value, default: ast.expr) -> None:
        """A weak protocol as any parameter's default is a configuration choice.

        ``def open_ssl_socket(version=ssl.PROTOCOL_SSLv2)`` (or a lambda's) is reported here,
        once; the uses of the parameter are not reported again.
        """
        if _ref_in(value, t.WEAK_PROTOCOLS):
            self.report("SSC701", default)
        elif name in t.MIN_VERSION_KEYWORDS and _weak_setting(name, value):
            self.report("SSC702", default)

    def _visit_lambda(self, node: ast.Lambda) -> None:
        args = node.args
        positional = [*args.posonlyargs, *args.args]
        first = len(positional) - len(args.defaults)
        pairs = list(zip(positional[first:], args.defaults, strict=True))
        kw_pairs = zip(args.kwonlyargs, args.kw_defaults, strict=True)
        pairs += [(arg, default) for arg, default in kw_pairs if default is not None]
        for arg, default in pairs:  # evaluated where the lambda is made, in the outer scope
            self._check_default(arg.arg, self.resolve(default), default)
        self.scopes.append(dict.fromkeys((a.arg for a in node.args.args), UNKNOWN))
        self.generic_visit(node)
        self.scopes.pop()

    def _visit_assign(self, node: ast.Assign) -> None:
        self.visit(node.value)
        value = self.resolve(node.value)
        for target in node.targets:
            self._assign(target, value, node.value, node)

    def _visit_ann_assign(self, node: ast.AnnAssign) -> None:
        if node.value is not None:
            self.visit(node.value)
            self._assign(node.target, self.resolve(node.value), node.value, node)

    def _visit_named_expr(self, node: ast.NamedExpr) -> None:
        self.visit(node.value)
        self._assign(node.target, self.resolve(node.value), node.value, node)

    def _visit_with(self, node: ast.With | ast.AsyncWith) -> None:
        for item in node.items:
            self.visit(item.context_expr)
            if item.optional_vars is not None:
                value = self.resolve(item.context_expr)
                self._bind(item.optional_vars, value)
        self.visit_body(node.body)

    _visit_async_with = _visit_with

    def _visit_for(self, node: ast.For | ast.AsyncFor) -> None:
        self.visit(node.iter)
        self._bind(node.target, UNKNOWN)
        self.visit_body(node.body)
        self.visit_body(node.orelse)

    _visit_async_for = _visit_for

    def _bind(self, target: ast.AST, value: Value) -> None:
        if isinstance(target, ast.Name):
            self.scopes[-1][target.id] = value
        elif isinstance(target, ast.Tuple | ast.List):
            for element in target.elts:
                self._bind(element, UNKNOWN)
        elif isinstance(target, ast.Starred):
            self._bind(target.value, UNKNOWN)

    def _assign(self, target: ast.AST, value: Value, value_node: ast.expr, stmt: ast.AST) -> None:
        if isinstance(target, ast.Attribute):
            self.visit(target.value)
            self._assign_attribute(target, value, value_node, stmt)
        elif isinstance(target, ast.Subscript):
            self.visit(target.value)
            self.visit(target.slice)
            key = self.resolve(target.slice)
            owner = _attribute_owner(target.value)
            name = _str(key)
            if owner is not None and name and name.isidentifier():
                # ``obj.__dict__["verify"] = False`` and ``vars(obj)[...]``: ``obj.verify = False``
                self._assign_named_attribute(owner, name, value, value_node, stmt)
                return
            self._check_env(key, value, stmt)
            if name is not None:  # ``kwargs["verify"] = False``, spread later
                self._add_entries(target.value, {name: _located(value, value_node)}, target)
        elif (
            isinstance(target, ast.Tuple | ast.List)
            and isinstance(value_node, ast.Tuple | ast.List)
            and len(target.elts) == len(value_node.elts)
            and not any(isinstance(e, ast.Starred) for e in (*target.elts, *value_node.elts))
        ):
            # ``ctx.check_hostname, ctx.verify_mode = False, ssl.CERT_NONE``: pair by pair
            for element, item in zip(target.elts, value_node.elts, strict=True):
                self._assign(element, self.resolve(item), item, stmt)
        else:
            self._bind(target, value)

    def _assign_named_attribute(
        self, owner: ast.expr, name: str, value: Value, value_node: ast.expr, stmt: ast.AST
    ) -> None:
        """``owner.<name> = value`` spelled otherwise (``setattr``, ``__dict__``, ``vars()``)."""
        store = ast.copy_location(ast.Attribute(owner, name, ast.Store()), stmt)
        self._assign_attribute(store, value, value_node, stmt)

    def _assign_attribute(  # noqa: PLR0912 - one case per attribute that rules read
        self, target: ast.Attribute, value: Value, value_node: ast.expr, stmt: ast.AST
    ) -> None:
        base = self.resolve(target.value)
        attr = target.attr
        if isinstance(base, Ref):
            self._check_patch(t.normalize(f"{base.qualname}.{attr}"), value, stmt)
            return
        state = base.context if isinstance(base, Instance) else None
        if isinstance(target.value, ast.Name) and not _is_self(target.value):
            # ``cfg.verify = False`` then ``verify=cfg.verify``: read back in this scope.
            self.scopes[-1][f"{target.value.id}.{attr}"] = _located(value, value_node)
        if isinstance(value, Param):
            if attr == "verify" and self._session_target(base, target):
                # ``def make(verify_ssl=False): session.verify = verify_ssl``: reported at
                # the default; a caller's ``make(False)`` is checked like a keyword sink's.
                self._sink("falsy", value, "SSC102", _location(value, stmt))
            self._keep_init_param(target, value)
            return  # storing a parameter: its default is checked where the caller's value is
        self._check_attribute_value(attr, value, stmt)
        if state is None and _is_self(target.value) and _name_of(self.function) == "__init__":
            return  # a context wrapper class sets up its own attributes (urllib3's pyOpenSSL)
        if attr == "verify_mode":
            if _is_cert_none(value):
                self._weaken(state, "SSC201", stmt)
            elif isinstance(value, Ref) and value.qualname in _VERIFYING_MODES and state:
                state.verified = state.mode_required = True
                state.repair("SSC201")
        elif attr == "check_hostname":
            if _is_falsy(value):  # False, 0, "": the setter takes any value's truth
                self._weaken(state, "SSC202", stmt)
            elif _is_const(value, True) and state:
                state.verified = state.hostname_on = True
                state.repair("SSC202")
        elif attr == "verify" and _is_falsy(value) and self._session_target(base, target):
            self.report("SSC102", stmt)  # False, 0, "": requests reads it as off
        if self.class_attrs is not None and _is_self(target.value) and isinstance(value, Instance):
            self.class_attrs.setdefault(attr, value)

    def _keep_init_param(self, target: ast.Attribute, value: Param) -> None:
        """``self.verify = verify`` in ``__init__``: read back as that parameter in the methods.

        A sink that it reaches has the class's constructions as its callers
        (``Provider(verify=False)``), checked as a function's callers are.
        """
        init = self.function
        if (
            self.class_attrs is None
            or not _is_self(target.value)
            or not isinstance(init, ast.FunctionDef | ast.AsyncFunctionDef)
            or init.name != "__init__"
            or value.name not in _parameter_names(init)
        ):
            return
        class_name = self._class_names_by_attrs.get(id(self.class_attrs))
        if class_name is not None and target.attr not in self.class_attrs:
            self.class_attrs[target.attr] = value
            self._init_params[id(value)] = (class_name, init)

    @staticmethod
    def _session_target(base: Value, target: ast.Attribute) -> bool:
        """Tell whether ``target`` (``x.verify``) is a requests/httpx session's attribute."""
        evident = isinstance(base, Instance) and base.qualname in _SESSION_TYPES
        return evident or (not isinstance(base, Instance) and _sessionish(target.value))

    def _check_attribute_value(self, attr: str, value: Value, stmt: ast.AST) -> None:
        """Attributes whose name alone says what a value does (weak TLS, distinctive flags)."""
        weak = _weak_setting(attr, value)
        if weak:
            self.report(weak, stmt)
        elif distinctive := (
            t.DISTINCTIVE_KEYWORDS.get(attr) or t.DISTINCTIVE_ATTRIBUTES.get(attr)
        ):
            test, code = distinctive
            if _TESTS[test](value):
                self.report(code, stmt)

    def _weaken(self, state: ContextState | None, code: str, node: ast.AST) -> None:
        if self._optout:
            return
        if state is not None:
            state.weakenings.append((code, node))
        elif not self._has_server_hints(self.function):
            self.report(code, node)

    def _has_server_hints(self, scope: ast.AST) -> bool:
        if scope is self.tree:
            return False  # a module mixes clients and servers: only evident uses count there
        cached = self._server_hints.get(scope)
        if cached is None:
            cached = any(
                (isinstance(n, ast.Attribute) and n.attr in _SERVER_MARKERS)
                or (isinstance(n, ast.Name) and n.id in _SERVER_MARKERS)
                or (isinstance(n, ast.keyword) and n.arg == "server_side")
                for n in ast.walk(scope)
            )
            self._server_hints[scope] = cached
        return cached

    def _check_patch(self, target: str, value: Value, stmt: ast.AST) -> None:
        if target != "ssl._create_default_https_context" and target not in t.PATCH_TARGETS:
            return
        if isinstance(value, Ref) and (
            value.qualname == target
            or value.qualname.startswith("sslcustomize.")
            or (
                target == "ssl._create_default_https_context"
                and value.qualname == "ssl.create_default_context"
            )
        ):
            return  # restores the original, or hands over to sslcustomize
        if target == "ssl._create_default_https_context":
            if not self._keeps_verification(value, stmt):
                self.report("SSC301", stmt)
        elif target in t.ALWAYS_WEAKENING_PATCHES or self._weakening_replacement(value, stmt):
            self.report("SSC302", stmt)

    def _keeps_verification(self, value: Value, stmt: ast.AST) -> bool:
        """Tell whether a replacement default HTTPS context factory evidently verifies.

        ``lambda: ssl.create_default_context(cafile=certifi.where())``, a ``def`` of this file
        that returns such a context, or ``partial(ssl.create_default_context, cafile=...)``:
        a verifying factory with other trust, and no word that weakens it.
        """
        if isinstance(value, Partial):
            return (
                isinstance(value.func, Ref)
                and value.func.qualname == "ssl.create_default_context"
                and not any(_TESTS["falsy"](v) or _is_cert_none(v) for v in value.keywords.values())
            )
        node: ast.AST | None = getattr(stmt, "value", None)
        if isinstance(node, ast.Name):
            node = self._function_named(node.id)
        if not isinstance(node, ast.Lambda | ast.FunctionDef | ast.AsyncFunctionDef):
            return False
        text = re.sub(rb"\s+", b"", ast.unparse(node).encode().lower())
        return any(word in text for word in _VERIFYING_FACTORY_WORDS) and not any(
            word in text for word in _UNVERIFYING_WORDS
        )

    def _weakening_replacement(self, value: Value, stmt: ast.AST) -> bool:
        """Tell whether a replacement function shows a weakening (a wrapper need not)."""
        if isinstance(value, Partial):
            return any(_TESTS["falsy"](v) or _is_cert_none(v) for v in value.keywords.values())
        expr = getattr(stmt, "value", None)
        if isinstance(stmt, ast.expr):  # setattr(target, name, value): the value is elsewhere
            return True
        node: ast.AST | None = expr
        if isinstance(expr, ast.Name):
            node = self._defs.get(expr.id)
        first, last = getattr(node, "lineno", None), getattr(node, "end_lineno", None)
        if self.source is None or first is None:
            return True
        lines = self.source.splitlines()[first - 1 : last]
        text = b"\n".join(lines).lower()
        return any(word in text for word in _WEAKENING_WORDS)

    def _check_env(self, key: Value, value: Value, node: ast.AST) -> None:
        name = _str(key)
        if name is None:
            return
        test = t.ENV_VARS.get(name.upper())
        if test is not None and _env_insecure(test, value):
            self.report("SSC303", node)

    def _finish_contexts(self) -> None:
        for state in self.contexts.values():
            if state.optout:
                continue
            server = state.server and not state.client
            if state.origin == "client_auth":
                if state.client and not state.server:
                    self.report("SSC207", state.node)
                continue
            repaired = state.mode_required and state.hostname_on
            if state.client:
                repaired = not state.used_unrepaired
            if state.origin == "unverified" and not server and not repaired:
                self.report("SSC203", state.node)
            if server or state.origin == "server":
                continue
            self._finish_client_context(state)

    def _finish_client_context(self, state: ContextState) -> None:
        # Decided per context: a context handed to a client is a client's, whatever else the
        # function does; otherwise server hints around it keep it quiet.
        quiet = not state.client and (state.server_hint or self._has_server_hints(state.scope))
        if state.origin == "pyopenssl":
            if not quiet:
                for code, node in state.weakenings:
                    self.report(code, node)
            if state.client and not state.verified and not state.weakenings:
                self.report("SSC209", state.node)
            return
        for code, node in state.weakenings:
            self.report(code, node)
        if state.origin != "bare" or quiet:
            return
        if not (state.verified or state.weakenings):
            self.report("SSC204", state.node)
        elif state.mode_required and not state.hostname_on and not state.weakenings:
            self.report("SSC206", state.node)

    def _finish_param_sinks(self, tree: ast.Module) -> None:
        """Check the callers, in ``tree``, of functions that pass a parameter on to a sink.

        Only callers in the same module, by plain name (or ``self.name``/``cls.name``), with
        a literal or a module constant as the argument, are followed: one call level.
        """
        if not self._param_sinks:
            return
        by_name: dict[str, list[_ParamSink]] = {}
        for sink in self._param_sinks:
            by_name.setdefault(sink[0], []).append(sink)
        saved = self.scopes
        self.scopes = [self.module_scope]
        try:
            for node in _calls(tree, self._lines_naming(tuple(by_name))):
                func = node.func
                if isinstance(func, ast.Name):
                    name, method = func.id, False
                elif isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
                    if func.value.id not in {"self", "cls"}:
                        continue
                    name, method = func.attr, True
                else:
                    continue
                for _, function, param, test, code, bound in by_name.get(name, ()):
                    given = _argument_for(node, function, param, method=method or bound)
                    literal = isinstance(given, ast.Constant | ast.Name)
                    if given is not None and literal and _TESTS[test](self.resolve(given)):
                        self.report(code, given)
        finally:
            self.scopes = saved

    def _lines_naming(self, names: tuple[str, ...]) -> list[int] | None:
        """Return the numbers of the lines that hold one of ``names``; ``None``: unknown.

        A call of a function has its name on one of its lines: ``_calls`` need not look into
        statements without such a line.
        """
        if self.source is None or not all(name.isascii() for name in names):
            return None  # bytes that are not UTF-8 may spell a name otherwise
        places = sorted(places_of(self.source, tuple(name.encode() for name in names)))
        flags = lines_of(self.source, places)
        return [number for number, flag in enumerate(flags, 1) if flag]

    def _sink(
        self, test: str, value: Value, code: str, location: ast.AST, *, defaults: bool = True
    ) -> None:
        """Report a weakening value; remember a parameter so that its callers are checked."""
        if (defaults or not isinstance(value, Param)) and _TESTS[test](value):
            self.report(code, location)
        elif isinstance(value, Param) and (owner := self._init_params.get(id(value))):
            self._param_sinks.append((owner[0], owner[1], value.name, test, code, True))
        elif isinstance(value, Param) and isinstance(
            self.function, ast.FunctionDef | ast.AsyncFunctionDef
        ):
            self._param_sinks.append(
                (self.function.name, self.function, value.name, test, code, False)
            )

    def _visit_compare(self, node: ast.Compare) -> None:
        """A comparison only looks at a value: ``ctx == ssl._create_unverified_context()``."""
        self._in_compare += 1
        self.generic_visit(node)
        self._in_compare -= 1

    def _visit_unary_op(self, node: ast.UnaryOp) -> None:
        self.generic_visit(node)
        if isinstance(node.op, ast.Invert) and _ref_in(
            self.resolve(node.operand), t.NO_OLD_PROTOCOL_OPTIONS
        ):
            self.report("SSC703", node)

    # -- expressions ---------------------------------------------------------------------

    def _visit_dict(self, node: ast.Dict) -> None:
        # Only a dict built on the environment (``{**os.environ, ...}``) is one; a table that
        # lists variable names (``{"CURL_CA_BUNDLE": "empty"}``) is not.
        spreads = [v for k, v in zip(node.keys, node.values, strict=True) if k is None]
        if any(_ref_in(self.resolve(v), _ENVIRONS) for v in spreads):
            self._check_env_dict(node)
        self.generic_visit(node)

    def _check_env_dict(self, node: ast.Dict) -> None:
        for key, value in zip(node.keys, node.values, strict=True):
            if key is not None:
                self._check_env(self.resolve(key), self.resolve(value), key)

    def _visit_if(self, node: ast.If) -> None:
        """A branch taken only when a caller opts out through a parameter stays quiet.

        ``if verify is False: ctx.verify_mode = CERT_NONE`` in a library is the opt-out's
        implementation; the weakening is the caller's ``verify=False``, reported there. A branch
        taken with the parameters' defaults (``if context is None: context =
        ssl._create_stdlib_context()``) is the default path, and is reported.
        """
        self.visit(node.test)
        uses, truth = self._guard(node.test)
        for body, optout in (
            (node.body, uses and truth is not True),
            (node.orelse, uses and truth is not False),
        ):
            self._optout += optout
            self.visit_body(body)
            self._optout -= optout

    def _guard(self, test: ast.expr) -> tuple[bool, bool | None]:
        """Return whether a test reads a parameter, and its value with default arguments."""
        params = _parameter_names(self.function)
        flags = _flag_names(test)
        if _reads_user_option(test):
            return True, None  # ``if not module.params["validate_certs"]``: the user's choice
        if not any(n in params or isinstance(self.lookup(n), Param) for n in flags):
            return False, None
        return True, self._truth(test)

    def _truth(self, test: ast.expr) -> bool | None:  # noqa: PLR0911 - one case per form
        if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
            inner = self._truth(test.operand)
            return None if inner is None else not inner
        if isinstance(test, ast.BoolOp):
            values = [self._truth(v) for v in test.values]
            stop = isinstance(test.op, ast.Or)
            if stop in values:
                return stop
            return None if None in values else not stop
        if isinstance(test, ast.Compare) and len(test.ops) == 1:
            left = _param(self.resolve(test.left))
            right = _param(self.resolve(test.comparators[0]))
            if isinstance(left, Ref) and isinstance(right, Ref):
                left, right = Const(left.qualname, test), Const(right.qualname, test)
            if not (isinstance(left, Const) and isinstance(right, Const)):
                return None
            op = test.ops[0]
            if isinstance(op, ast.Is | ast.Eq):
                return left.value is right.value or left.value == right.value
            if isinstance(op, ast.IsNot | ast.NotEq):
                return not (left.value is right.value or left.value == right.value)
            return None
        value = _param(self.resolve(test))
        return bool(value.value) if isinstance(value, Const) else None

    def _visit_call(self, node: ast.Call) -> None:
        self.generic_visit(node)
        callee = self.resolve(node.func)
        args: list[ast.expr] = list(node.args)
        keywords = list(node.keywords)
        if isinstance(callee, Ref) and callee.qualname in {
            "functools.partial",
            "functools.partialmethod",
        }:
            if not args:
                return
            # A partial carries its keywords to every call: check it as the call it makes.
            callee = self.resolve(args[0])
            args = args[1:]
        qualname, attr = _callee_name(callee)
        if attr == "__init__" and (qualname or "").removesuffix(".__init__") in t.KEYWORD_SINKS:
            # ``original_init(self, **kwargs)`` with ``original_init = TCPConnector.__init__``
            # (a patched constructor), or ``super().__init__(**kwargs)`` in a subclass: the
            # call configures that class as constructing it would.
            qualname = (qualname or "").removesuffix(".__init__")
            attr = qualname.rsplit(".", 1)[-1]
            if isinstance(callee, Ref):
                args = args[1:]  # the unbound ``__init__`` is given ``self`` first
        kwmap, has_star = self._keywords(keywords)
        self._check_call(node, qualname, attr, callee, args, kwmap, has_star)
        if isinstance(callee, Method) and isinstance(node.func, ast.Attribute):
            self._mutate_dict(node.func.value, attr, args, kwmap)

    def _mutate_dict(
        self, receiver: ast.expr, attr: str, args: list[ast.expr], kwmap: _KwMap
    ) -> None:
        """Follow ``d.update(verify=False)``, ``d.update({...})`` and ``d.setdefault(k, v)``."""
        if attr == "update":
            added = {key: _located(value, loc) for key, (value, loc) in kwmap.items()}
            for arg in args:
                other = self.resolve(arg)
                if isinstance(other, DictVal):
                    added = {**other.entries, **added}
            self._add_entries(receiver, added, receiver)
        elif attr == "setdefault" and len(args) == 2:
            key = _str(self.resolve(args[0]))
            current = self.resolve(receiver)
            if key is not None and isinstance(current, DictVal) and key not in current.entries:
                self._add_entries(receiver, {key: self._resolve_located(args[1])}, args[1])

    def _add_entries(self, receiver: ast.expr, added: dict[str, Value], at: ast.AST) -> None:
        """Rebind a name that holds a known dict (or a parameter) to it with more entries.

        ``at`` is where they are written: a dict that was empty so far (``{}``, ``**kwargs``)
        is located there, so that a finding about an entry points at the line that wrote it.
        """
        if not added or not isinstance(receiver, ast.Name):
            return
        current = self.lookup(receiver.id)
        if isinstance(current, Param):
            # ``def f(opts): opts["verify"] = False``: what the caller put in stays unknown
            current = DictVal({}, receiver, has_unknown=True)
        if not isinstance(current, DictVal):
            return
        node = current.node
        if not current.entries and not (isinstance(node, ast.Dict) and node.keys):
            node = _empty_dict_at(at)
        entries = {**current.entries, **added}
        self.scopes[-1][receiver.id] = DictVal(entries, node, has_unknown=current.has_unknown)

    def _keywords(self, keywords: list[ast.keyword]) -> tuple[_KwMap, bool]:
        kwmap: _KwMap = {}
        has_star = False
        for keyword in keywords:
            value = self.resolve(keyword.value)
            if keyword.arg is not None:
                kwmap[keyword.arg] = (value, _location(value, keyword))
            elif isinstance(value, DictVal):
                for key, entry in value.entries.items():
                    kwmap[key] = (entry, _location(entry, value.node))
                has_star = has_star or value.has_unknown
            else:
                has_star = True
        return kwmap, has_star

    def _check_call(  # noqa: PLR0917 - the call's parts, already resolved
        self,
        node: ast.Call,
        qualname: str | None,
        attr: str,
        callee: Value,
        args: list[ast.expr],
        kwmap: _KwMap,
        has_star: bool,  # noqa: FBT001 - one of several positional facts about a call
    ) -> None:
        """Run every family's checks on one call."""
        self._check_flag_sinks(qualname, attr, args, kwmap)
        self._check_weak_tls(qualname, attr, args, kwmap)
        self._check_client_options(node, qualname, attr, args, kwmap)
        self._check_contexts(node, qualname, attr, callee, args, kwmap)
        self._check_stdlib_clients(node, qualname, attr, args, kwmap, has_star)
        self._check_process(node, qualname, attr, args, kwmap)
        self._check_warnings(node, qualname, attr, args, kwmap)
        self._check_call_patches(node, attr, args)

    def _argument(
        self, args: list[ast.expr], kwmap: _KwMap, name: str, index: int
    ) -> tuple[Value, ast.AST] | None:
        """Return a call's argument by keyword, else by position (no ``*args`` before it)."""
        if name in kwmap:
            return kwmap[name]
        if 0 <= index < len(args) and not any(isinstance(a, ast.Starred) for a in args):
            value = self.resolve(args[index])
            return value, _location(value, args[index])
        return None

    def _check_flag_sinks(
        self, qualname: str | None, attr: str, args: list[ast.expr], kwmap: _KwMap
    ) -> None:
        """Verification flags given to a call: known sinks, HTTP verbs, distinctive keywords."""
        known_sinks = t.KEYWORD_SINKS.get(qualname or "")
        if known_sinks is not None:
            for name, index, test, code in known_sinks:
                found = self._argument(args, kwmap, name, index)
                if found:
                    self._sink(test, found[0], code, found[1])
        elif attr in t.HTTP_VERBS or attr == "ws_connect":
            for name, code in (("verify", "SSC101"), ("ssl", "SSC103"), ("verify_ssl", "SSC103")):
                if name in kwmap:
                    self._sink("falsy", kwmap[name][0], code, kwmap[name][1])

        for name, (value, location) in kwmap.items():
            distinctive = t.DISTINCTIVE_KEYWORDS.get(name)
            if distinctive and not _is_server_call(attr):
                # A parameter passed through (``Config(ssl_cert_reqs=ssl_cert_reqs)``): its
                # default is this function's, for a callee of unknown kind; check the callers.
                given = _spec_default(value)
                self._sink(distinctive[0], given, distinctive[1], location, defaults=False)
            elif name in t.ENV_VARS and _env_insecure(t.ENV_VARS[name], value):
                self.report("SSC303", location)
        if known_sinks is None and qualname != "ssl.wrap_socket" and "cert_reqs" in kwmap:
            value, location = kwmap["cert_reqs"]
            self._sink("cert_none", value, "SSC504" if attr == "tls_set" else "SSC104", location)

    def _check_client_options(
        self,
        node: ast.Call,
        qualname: str | None,
        attr: str,
        args: list[ast.expr],
        kwmap: _KwMap,
    ) -> None:
        """Options of particular clients: env dicts, sslopt, ldap3, pycurl, pyVmomi, mqtt, mongo."""
        if "env" in kwmap and isinstance(kwmap["env"][0], DictVal) and kwmap["env"][0].node:
            self._check_env_entries(kwmap["env"][0])
        if attr == "update" and args and isinstance(self.resolve(args[0]), DictVal):
            self._check_env_entries(self.resolve(args[0]))  # type: ignore[arg-type]
        if "sslopt" in kwmap:
            self._check_sslopt(kwmap["sslopt"][0])
        if attr == "Tls" and "validate" in kwmap and _is_cert_none(kwmap["validate"][0]):
            self.report("SSC508", kwmap["validate"][1])
        if attr == "setopt" and len(args) >= 2 and _option_name(args[0]) in t.PYCURL_VERIFY_OPTIONS:
            found = self._argument(args, kwmap, "value", 1)
            if found and _is_falsy(found[0]):
                self.report("SSC510", found[1])
        if attr == "SmartConnectNoSSL" or qualname == "pyVim.connect.SmartConnectNoSSL":
            self.report("SSC512", node)
        if attr == "tls_insecure_set":
            found = self._argument(args, kwmap, "value", 0)
            if found and _is_const(found[0], True):
                self.report("SSC504", found[1])
        if qualname in t.MONGO_CLIENTS:
            for item in args:
                text = _str(self.resolve(item))
                if text and any(flag in text.lower() for flag in t.MONGO_URI_FLAGS):
                    self.report("SSC503", item)

    def _check_env_entries(self, value: DictVal) -> None:
        if isinstance(value.node, ast.Dict):
            self._check_env_dict(value.node)

    def _check_sslopt(self, value: Value) -> None:
        value = _param(value)
        if not isinstance(value, DictVal):
            return
        for key, entry in value.entries.items():
            if (key == "cert_reqs" and _is_cert_none(entry)) or (
                key == "check_hostname" and _is_falsy(entry)
            ):
                self.report("SSC501", _location(entry, value.node))
            elif key == "ssl_version" and _ref_in(entry, t.WEAK_PROTOCOLS):
                # ``sslopt={"ssl_version": ssl.PROTOCOL_TLSv1}``: the socket's protocol
                self.report("SSC701", _location(entry, value.node))

    def _check_contexts(  # noqa: PLR0917 - the call's parts, already resolved
        self,
        node: ast.Call,
        qualname: str | None,
        attr: str,
        callee: Value,
        args: list[ast.expr],
        kwmap: _KwMap,
    ) -> None:
        if qualname == "sslcustomize.create_legacy_context":
            self.report("SSC901", node)
        elif qualname in t.CONTEXT_FACTORIES and not self._in_compare:
            self.resolve(node)  # registers the context so that it is followed
        elif qualname == "ssl.wrap_socket":
            server = "server_side" in kwmap and _is_const(kwmap["server_side"][0], True)
            mode = kwmap.get("cert_reqs")
            if not server and (mode is None or _is_cert_none(mode[0])):
                self.report("SSC205", mode[1] if mode else node)
        if isinstance(callee, Method) and isinstance(callee.receiver, Instance):
            self._context_method(callee.receiver, attr, args, kwmap)
        if not self.contexts and not self._in_compare:
            # No context followed yet, so no argument is one: a context made in an argument
            # (``f(ssl.create_default_context())``) was registered when that call was visited.
            return
        given = [(self.resolve(a), "") for a in args] + [(v, k) for k, (v, _) in kwmap.items()]
        if attr in _SERVER_CALLS:
            for value, _ in given:
                if isinstance(value, Instance) and value.context is not None:
                    value.context.server = True
            return
        client_call = attr in t.CLIENT_CALLS
        for value, keyword in given:
            by_keyword = keyword in _CONTEXT_KEYWORDS and not _is_server_call(attr)
            if isinstance(value, Instance) and value.context and (client_call or by_keyword):
                value.context.use_by_client()

    def _context_method(
        self, receiver: Instance, attr: str, args: list[ast.expr], kwmap: _KwMap
    ) -> None:
        """Follow a method called on a context (or on a pyOpenSSL connection of one)."""
        state = receiver.context
        if state is None:
            return
        if receiver.qualname == "OpenSSL.SSL.Connection":
            if attr in {"set_connect_state", "connect", "connect_ex", "set_tlsext_host_name"}:
                state.use_by_client()
            elif attr in {"set_accept_state", "accept"}:
                state.server = True
            return
        if attr in {"wrap_socket", "wrap_bio"}:
            side = kwmap.get("server_side")
            if side is not None and _is_const(side[0], True):
                state.server = True
            elif (side is not None and _is_const(side[0], False)) or "server_hostname" in kwmap:
                state.use_by_client()
        elif attr == "load_cert_chain" and state.origin == "bare":
            state.server_hint = True  # most often a server; a client would set verify_mode
        elif attr.startswith(("use_certificate", "use_privatekey")):
            state.server_hint = True  # pyOpenSSL: a server's key and certificate
        elif attr == "set_verify" and (args or "mode" in kwmap):
            off = self._verify_off(args, kwmap)
            if off is not None:
                state.weakenings.append(("SSC208", off))
            else:
                state.verified = True  # VERIFY_PEER with a callback that checks, or unknown

    def _verify_off(self, args: list[ast.expr], kwmap: _KwMap) -> ast.AST | None:
        """Return where a pyOpenSSL ``set_verify(mode, callback)`` turns verification off.

        Off: ``VERIFY_NONE``, or flags OR-ed without ``VERIFY_PEER``
        (``VERIFY_NONE | VERIFY_CLIENT_ONCE``; ``VERIFY_NONE`` is 0), or ``VERIFY_PEER`` with a
        callback that returns true whatever OpenSSL found. ``None``: verifying, or unknown.
        """
        mode = args[0] if args else _keyword_value(kwmap["mode"][1])
        flags = [self.resolve(flag) for flag in _or_operands(mode)]
        names = [flag.qualname if isinstance(flag, Ref) else None for flag in flags]
        if "OpenSSL.SSL.VERIFY_PEER" not in names:
            if any(map(_is_cert_none, flags)) or (
                len(names) > 1 and all(name in _VERIFY_FLAGS for name in names)
            ):
                return mode
            return None
        callback: ast.AST | None = args[1] if len(args) > 1 else None
        if callback is None and "callback" in kwmap:
            callback = _keyword_value(kwmap["callback"][1])
        if callback is not None and self._accepts_all(callback):
            return callback
        return None

    def _names_verify_flag(self, mode: ast.AST) -> bool:
        """Tell whether a receiver-less ``set_verify``'s mode names a pyOpenSSL flag (not a 0)."""
        return any(
            isinstance(value, Ref) and value.qualname in _VERIFY_FLAGS | t.CERT_NONE_NAMES
            for value in map(self.resolve, _or_operands(mode))
        )

    def _accepts_all(self, callback: ast.AST) -> bool:
        """Tell whether a verify callback returns true whatever the ``ok`` it is given."""
        if isinstance(callback, ast.Lambda):
            return _truthy_constant(callback.body)
        name = None
        if isinstance(callback, ast.Name):
            name = callback.id
        elif isinstance(callback, ast.Attribute):
            name = callback.attr  # ``self.verify_cb``: a method of this file, by its name
        if name is None:
            return False
        function = self._function_named(name)
        return function is not None and _returns_true_always(function)

    def _cut_class(self, name: str) -> tuple[_Scope, str] | None:
        """Read a module-level class that the cut tree lacks (it holds no rule word).

        Only its ``NAME = value`` lines are read; the whole file is parsed once, and only
        when the source has ``class NAME`` at the start of a line.
        """
        if self._class_names is None:
            found = _CLASS_LINE.finditer(self.source) if self.source is not None else ()
            self._class_names = {m.group(1).decode("ascii"): m.start() for m in found}
        start = self._class_names.get(name)
        if start is None or self.source is None:
            return None
        if name in self._cut_classes:
            return self._cut_classes[name]
        self._cut_classes[name] = None
        # Parse the class alone: from its line to the next line that starts a statement at
        # the margin (a class cut from the tree is small; the whole file may not be).
        end = _MARGIN_LINE.search(self.source, start + 1)
        try:
            piece = ast.parse(self.source[start : end.start() if end else len(self.source)])
        except (SyntaxError, ValueError, RecursionError):
            return None
        for node in piece.body:
            if isinstance(node, ast.ClassDef) and node.name == name:
                body: _Scope = {}
                for stmt in node.body:
                    if (
                        isinstance(stmt, ast.Assign)
                        and len(stmt.targets) == 1
                        and isinstance(stmt.targets[0], ast.Name)
                    ):
                        body[stmt.targets[0].id] = self._resolve_located(stmt.value)
                bases = [base for base in map(self.resolve, node.bases) if isinstance(base, Ref)]
                self._cut_classes[name] = (body, _class_kind(bases))
        return self._cut_classes[name]

    def _whole_tree(self) -> ast.Module:
        """Return the file's whole tree (the analyzed one may be cut), parsed at most once."""
        if self._whole is None:
            try:
                self._whole = ast.parse(self.source) if self.source is not None else self.tree
            except (SyntaxError, ValueError, RecursionError):
                self._whole = self.tree
        return self._whole

    def _function_named(self, name: str) -> _FunctionNode | None:
        """Return the last function or method of this file named ``name``, cut or not."""
        found = self._defs.get(name)
        if isinstance(found, ast.FunctionDef | ast.AsyncFunctionDef) and self._hot is None:
            return found
        # A cut tree lacks functions without a rule word (a callback is one): read them from
        # the whole file, parsed once, only for the rare file that passes a callback by name.
        result = None
        for node in ast.walk(self._whole_tree()):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name == name:
                result = node
        return result

    def _check_weak_tls(
        self, qualname: str | None, attr: str, args: list[ast.expr], kwmap: _KwMap
    ) -> None:
        """Weak protocol versions, version bounds, options and cipher strings (SSC7xx)."""
        if qualname in t.PROTOCOL_CALLS:
            for item in args:
                value = self.resolve(item)
                if not isinstance(value, Param) and _ref_in(value, t.WEAK_PROTOCOLS):
                    self.report("SSC701", item)
        elif args and attr in _WEAK_METHODS:
            first = self.resolve(args[0])
            code = _WEAK_METHODS[attr]
            if code == "SSC208":
                if qualname is None:  # receiver unknown: set_verify(VERIFY_NONE) or the like
                    off = self._verify_off(args, kwmap)
                    if off is not None and (off is not args[0] or self._names_verify_flag(args[0])):
                        self._weaken(None, code, off)
            elif _weak_setting(attr, first):
                self.report(code, args[0])
        for name, (value, location) in kwmap.items():
            weak = _weak_setting(name, value)
            if weak and not (weak in {"SSC701", "SSC702"} and isinstance(value, Param)):
                self.report(weak, location)

    def _check_stdlib_clients(  # noqa: PLR0917 - the call's parts, already resolved
        self,
        node: ast.Call,
        qualname: str | None,
        attr: str,
        args: list[ast.expr],
        kwmap: _KwMap,
        has_star: bool,  # noqa: FBT001 - one of several positional facts about a call
    ) -> None:
        spec = t.NO_CONTEXT_CLIENTS.get(qualname or "")
        if spec is None:
            spec = _starttls_spec(qualname, attr, self.imported)
        if spec is None or has_star:
            return
        name, index, code = spec
        given = kwmap.get(name)
        if given is None and index < len(args):
            return  # passed positionally
        if given is None or _is_const(given[0], None):
            self.report(code, node)

    def _check_process(
        self,
        node: ast.Call,
        qualname: str | None,
        attr: str,
        args: list[ast.expr],
        kwmap: _KwMap,
    ) -> None:
        if qualname not in t.PROCESS_CALLS and attr not in _PROCESS_METHODS:
            return
        values = [self.resolve(a) for a in args]
        if "args" in kwmap:
            values.append(kwmap["args"][0])
        tokens: list[Token] = []
        for value, source in zip(values, [*args, node], strict=False):
            tokens.extend(_tokens(value, source))
        for code, location in scan_command(tokens):
            self.report(code, location)

    def _check_warnings(
        self,
        node: ast.Call,
        qualname: str | None,
        attr: str,
        args: list[ast.expr],
        kwmap: _KwMap,
    ) -> None:
        if qualname == "urllib3.disable_warnings" or (
            qualname is None and attr == "disable_warnings" and "urllib3" in self.imported
        ):
            category = kwmap.get("category")
            value = category[0] if category else (self.resolve(args[0]) if args else None)
            if value is None or _is_warning_class(value):
                self.report("SSC105", node)
        elif qualname in {"warnings.filterwarnings", "warnings.simplefilter"}:
            index = 2 if qualname == "warnings.filterwarnings" else 1
            action = kwmap.get("action") or ((self.resolve(args[0]), node) if args else None)
            category = kwmap.get("category") or (
                (self.resolve(args[index]), node) if len(args) > index else None
            )
            message = kwmap.get("message") or (
                (self.resolve(args[1]), node)
                if qualname == "warnings.filterwarnings" and len(args) > 1
                else None
            )
            ignored = action is not None and _str(action[0]) == "ignore"
            by_category = (
                category is not None
                and isinstance(category[0], Ref)
                and category[0].qualname.endswith("InsecureRequestWarning")
            )
            # urllib3's text: "Unverified HTTPS request is being made to host ..."
            text = _str(message[0]) if message else None
            by_message = text is not None and "unverified https" in text.lower()
            if ignored and (by_category or by_message):
                self.report("SSC105", node)

    def _check_call_patches(self, node: ast.Call, attr: str, args: list[ast.expr]) -> None:
        if attr in {"setenv", "putenv", "setdefault"}:
            if len(args) >= 2:
                self._check_env(self.resolve(args[0]), self.resolve(args[1]), args[0])
            return
        if attr == "__setattr__" and isinstance(node.func, ast.Attribute) and len(args) == 2:
            args = [node.func.value, *args]  # obj.__setattr__(name, value)
        elif attr != "setattr" or len(args) < 2:
            return
        first = self.resolve(args[0])
        if len(args) == 2 and isinstance(first, Const) and isinstance(first.value, str):
            target = first.value  # pytest's monkeypatch.setattr("ssl.x", value)
            self._check_patch(t.normalize(target), self.resolve(args[1]), args[0])
        elif len(args) >= 3:
            name = _str(self.resolve(args[1]))
            if not name or not name.isidentifier():
                return
            if isinstance(first, Ref):
                target = t.normalize(f"{first.qualname}.{name}")
                self._check_patch(target, self.resolve(args[2]), args[0])
            else:
                # ``setattr(session, "verify", False)`` is ``session.verify = False`` written
                # so that a pattern matcher does not see it.
                self._assign_named_attribute(args[0], name, self.resolve(args[2]), args[2], node)

    # -- resolution ----------------------------------------------------------------------

    def lookup(self, name: str) -> Value:
        """Return what a name is bound to, innermost scope first."""
        for scope in reversed(self.scopes):
            if name in scope:
                return _settle(scope, name, scope[name])
        if hasattr(builtins, name):
            return Ref(f"builtins.{name}")
        if self._star_modules:  # ``from ssl import *``: CERT_NONE is ssl.CERT_NONE
            return Ref(t.normalize(f"{self._star_modules[-1]}.{name}"))
        return UNKNOWN

    def resolve(self, node: ast.AST) -> Value:  # noqa: PLR0911, PLR0912 - one case per node type
        """Return what is known about the value of an expression."""
        if isinstance(node, ast.Name):  # the commonest first
            return self.lookup(node.id)
        if isinstance(node, ast.Constant):
            return Const(node.value, node)
        if isinstance(node, ast.Attribute):
            if _is_self(node.value) and self.class_attrs and node.attr in self.class_attrs:
                return _settle(self.class_attrs, node.attr, self.class_attrs[node.attr])
            if isinstance(node.value, ast.Name | ast.Attribute):
                member = self._member(node)
                if member is not None:
                    return member
            base = self.resolve(node.value)
            if isinstance(base, Ref):
                return Ref(t.normalize(f"{base.qualname}.{node.attr}"))
            if isinstance(base, Instance):
                return Method(base.qualname, node.attr, base)
            return Method(None, node.attr, base)
        if isinstance(node, ast.Call):
            return self._resolve_call(node)
        if isinstance(node, ast.Dict):
            return self._resolve_dict(node)
        if isinstance(node, ast.List | ast.Tuple):
            return self._resolve_sequence(node)
        if isinstance(node, ast.BinOp | ast.BoolOp | ast.Compare | ast.IfExp | ast.UnaryOp):
            return self._evaluate(node)
        if isinstance(node, ast.Subscript):
            return self._resolve_subscript(node)
        return self._resolve_rest(node)

    def _resolve_dict(self, node: ast.Dict) -> DictVal:
        """A dict display: its string keys' values, and the entries of known dicts spread in."""
        entries: dict[str, Value] = {}
        for key, value in zip(node.keys, node.values, strict=True):
            if key is None:
                spread = self.resolve(value)
                if isinstance(spread, DictVal):
                    entries.update(spread.entries)
            elif isinstance(key, ast.Constant) and isinstance(key.value, str):
                entries[key.value] = self._resolve_located(value)
        return DictVal(entries, node)

    def _resolve_sequence(self, node: ast.List | ast.Tuple) -> SeqVal:
        """A list or tuple display: its items, and those of known sequences spread in."""
        items: list[Value] = []
        for element in node.elts:
            if isinstance(element, ast.Starred):
                spread = self.resolve(element.value)
                if isinstance(spread, SeqVal):
                    items.extend(spread.items)
            else:
                items.append(self._resolve_located(element))
        return SeqVal(tuple(items), empty=not node.elts)

    def _resolve_rest(self, node: ast.AST) -> Value:  # noqa: PLR0911 - one case per node type
        """``resolve`` for strings built from parts and the expressions that pass a value on."""
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
            left, right = self.resolve(node.left), self.resolve(node.right)
            if isinstance(left, SeqVal) and isinstance(right, SeqVal):
                return SeqVal(left.items + right.items)
            if _str(left) is not None or _str(right) is not None:
                return SeqVal((left, right))
            return UNKNOWN
        if isinstance(node, ast.JoinedStr):
            return SeqVal(tuple(self.resolve(v) for v in node.values))
        if isinstance(node, ast.FormattedValue):
            return self.resolve(node.value)
        if isinstance(node, ast.NamedExpr | ast.Await):
            return self.resolve(node.value)
        return UNKNOWN

    def _evaluate(  # noqa: PLR0911 - one case per node type
        self, node: ast.BinOp | ast.BoolOp | ast.Compare | ast.IfExp | ast.UnaryOp
    ) -> Value:
        """Evaluate an expression of known constants as Python would (``verify=1 == 2``).

        A value that is false when the code runs is false however it is written: numbers,
        comparisons, ``and``/``or``/``not``, ``x if TEST else y`` with a known test. Anything
        that depends on a value unknown here stays unknown.
        """
        if isinstance(node, ast.IfExp):
            test = self.resolve(node.test)
            if not isinstance(test, Const):
                return UNKNOWN
            return self.resolve(node.body if test.value else node.orelse)
        if isinstance(node, ast.BoolOp):
            return self._evaluate_bool(node)
        if isinstance(node, ast.Compare):
            return self._evaluate_compare(node)
        if isinstance(node, ast.UnaryOp):
            operand = self.resolve(node.operand)  # ``verify=not True``, ``-0``
            if not isinstance(operand, Const):
                return UNKNOWN
            return _constant_result(_UNARY.get(type(node.op)), (operand.value,), node)
        left, right = self.resolve(node.left), self.resolve(node.right)
        if isinstance(left, Const) and isinstance(right, Const):
            return _constant_result(_BINARY.get(type(node.op)), (left.value, right.value), node)
        return self._resolve_rest(node)

    def _evaluate_bool(self, node: ast.BoolOp) -> Value:
        """``a or b`` stops at a true value, ``a and b`` at a false one; unknown stops all."""
        result: Value = UNKNOWN
        for operand in node.values:
            result = self.resolve(operand)
            if not isinstance(result, Const):
                return UNKNOWN
            if bool(result.value) is isinstance(node.op, ast.Or):
                return result
        return result

    def _evaluate_compare(self, node: ast.Compare) -> Value:
        """``a < b < c``: each pair in turn, as Python chains them."""
        consts = []
        for part in (node.left, *node.comparators):
            value = self.resolve(part)
            if not isinstance(value, Const):
                return UNKNOWN
            consts.append(value.value)
        for op, pair in zip(node.ops, itertools.pairwise(consts), strict=True):
            outcome = _constant_result(_COMPARE.get(type(op)), pair, node)
            if not isinstance(outcome, Const) or not outcome.value:
                return outcome
        return Const(True, node)

    def _resolve_subscript(self, node: ast.Subscript) -> Value:
        """``d["verify"]`` of a known dict, ``ssl.__dict__["name"]`` of a module."""
        key = self._static_str(node.slice)
        owner = _attribute_owner(node.value)
        if owner is not None and key is not None:
            base = self.resolve(owner)
            if isinstance(base, Ref):
                return Ref(t.normalize(f"{base.qualname}.{key}"))
        base = self.resolve(node.value)
        if isinstance(base, DictVal) and key is not None:
            return base.entries.get(key, UNKNOWN)
        if isinstance(base, Ref) and key is not None and base.qualname.startswith("ssl."):
            return Ref(t.normalize(f"{base.qualname}.{key}"))  # ``ssl.VerifyMode["CERT_NONE"]``
        if isinstance(base, SeqVal) and base.items:
            index = self.resolve(node.slice)  # ``[False][0]``, ``(True, False)[1]``
            if isinstance(index, Const) and type(index.value) is int:
                with contextlib.suppress(IndexError):
                    return base.items[index.value]
        return UNKNOWN

    def _lookup_name(self, node: ast.expr) -> str | None:
        """The name ``getattr`` looks up: a static string, or a parameter's string default.

        ``def floor(name="TLSv1"): getattr(ssl.TLSVersion, name)`` looks up ``TLSv1`` when the
        caller says nothing.
        """
        value = self.resolve(node)
        if isinstance(value, Param) and isinstance(value.default, Const):
            return value.default.value if isinstance(value.default.value, str) else None
        return self._static_str(node)

    def _static_str(self, node: ast.AST) -> str | None:
        """Return the string an expression builds from literals (``"a" + "b"``, ``"".join``)."""
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "join"
            and len(node.args) == 1
            and isinstance(node.args[0], ast.List | ast.Tuple)
        ):
            separator = self._static_str(node.func.value)
            parts = [self._static_str(element) for element in node.args[0].elts]
            if separator is not None and all(part is not None for part in parts):
                return separator.join(part for part in parts if part is not None)
            return None
        value = self.resolve(node)
        if isinstance(value, Const):
            return value.value if isinstance(value.value, str) else None
        return None

    def _member(self, node: ast.Attribute) -> Value | None:
        """A class attribute, an enum member's value, or an attribute set on a local name.

        ``Config.verify_tls`` (a class of this module), ``Verify.OFF.value``, ``Mode.NONE`` of
        an ``IntEnum`` (an ``int``, false if 0; a plain ``Enum`` member is always true), and
        ``cfg.verify`` after ``cfg.verify = False`` in the same scope.
        """
        owner = node.value
        if isinstance(owner, ast.Attribute) and node.attr == "value":
            found = self._class_member(owner)
            return found[0] if found is not None else None
        if isinstance(owner, ast.Name):
            found = self._class_member(node)
            if found is not None:
                value, kind = found
                return value if kind != "enum" else None
            for scope in reversed(self.scopes):
                key = f"{owner.id}.{node.attr}"
                if key in scope:
                    return _settle(scope, key, scope[key])
                if owner.id in scope:
                    break
        return None

    def _class_member(self, node: ast.Attribute) -> tuple[Value, str] | None:
        """Return a module class's attribute and the class's kind (``enum``, ``value``...)."""
        if not isinstance(node.value, ast.Name) or self.lookup(node.value.id) is not UNKNOWN:
            return None
        found = self._classes.get(node.value.id)
        if found is None and self._hot is not None:
            found = self._cut_class(node.value.id)
        if found is None or node.attr not in found[0]:
            return None
        scope, kind = found
        return _settle(scope, node.attr, scope[node.attr]), kind

    def _resolve_located(self, node: ast.expr) -> Value:
        """``_located(self.resolve(node), node)``, without making a literal's value twice.

        Data tables (thousands of literals in a dict or list) are resolved entry by entry.
        """
        if isinstance(node, ast.Constant):
            return Const(node.value, node)
        return _located(self.resolve(node), node)

    def _resolve_call(self, node: ast.Call) -> Value:  # noqa: PLR0911 - one case per callee kind
        callee = self.resolve(node.func)
        if isinstance(callee, Ref):
            return self._resolve_call_of(callee.qualname, node)
        if isinstance(callee, Method):
            if callee.attr == "join" and node.args:
                if isinstance(node.args[0], ast.List | ast.Tuple):
                    text = self._static_str(node)  # ``"_".join(["", "create", ...])``
                    if text is not None:
                        return Const(text, node)
                joined = self.resolve(node.args[0])
                return joined if isinstance(joined, SeqVal) else UNKNOWN
            if callee.attr in {"format", "split", "strip"}:
                return _param(callee.receiver) if _str(callee.receiver) is not None else UNKNOWN
            if callee.attr == "copy" and isinstance(callee.receiver, DictVal):
                return callee.receiver
            if callee.attr == "get" and len(node.args) == 2:
                return self._lookup_or_default(callee.receiver, node)
        return UNKNOWN

    def _lookup_or_default(self, mapping: Value, node: ast.Call) -> Value:
        """``d.get(key, default)``: the entry of a known dict, else the default.

        ``verify=settings.get("verify", False)`` and ``os.environ.get("VERIFY", False)`` are
        off unless something is configured: the default is the value of the default path, as a
        parameter's default is.
        """
        key = _str(self.resolve(node.args[0]))
        if isinstance(mapping, DictVal) and key is not None and key in mapping.entries:
            return mapping.entries[key]
        default = self._resolve_located(node.args[1])
        return default if isinstance(default, Const) else UNKNOWN

    def _imported_module(self, name: str, node: ast.Call) -> Value:
        """``__import__("ssl")``, ``importlib.import_module("ssl")``: the module they return.

        ``__import__("a.b")`` returns ``a`` unless a ``fromlist`` is given.
        """
        module = _str(self.resolve(node.args[0])) if node.args else None
        if not module or not all(part.isidentifier() for part in module.split(".")):
            return UNKNOWN
        if name == "builtins.__import__" and len(node.args) < 4 and not node.keywords:
            module = module.split(".")[0]
        return Ref(t.normalize(module))

    def _resolve_call_of(self, name: str, node: ast.Call) -> Value:  # noqa: PLR0911 - per case
        """The value of a call of a module-level callable (``ssl.SSLContext(...)``, ``dict()``)."""
        origin = t.CONTEXT_FACTORIES.get(name)
        if origin is not None:
            return Instance("ssl.SSLContext", self._context(node, name, origin))
        if name in t.CLASSES:
            return Instance(t.CLASSES[name])
        if name in {"os.getenv", "os.environ.get"} and len(node.args) == 2:
            return self._lookup_or_default(UNKNOWN, node)
        if name == "OpenSSL.SSL.Connection" and node.args:
            context = self.resolve(node.args[0])
            if isinstance(context, Instance) and context.context is not None:
                return Instance(name, context.context)
        if name in {"functools.partial", "functools.partialmethod"} and node.args:
            kwmap, _ = self._keywords(node.keywords)
            return Partial(self.resolve(node.args[0]), {k: v for k, (v, _) in kwmap.items()})
        if name == "builtins.dict":
            kwmap, _ = self._keywords(node.keywords)
            entries = {k: _located(v, loc) for k, (v, loc) in kwmap.items()}
            return DictVal(entries, node)
        if name == "shlex.split" and node.args:
            return self.resolve(node.args[0])
        if name == "builtins.super" and self.class_attrs is not None:
            # ``super().cert_verify(...)`` in a subclass of ``HTTPAdapter``: the base's method
            return _settle(self.class_attrs, _BASE, self.class_attrs.get(_BASE, UNKNOWN))
        if name in _IMPORT_CALLS:
            return self._imported_module(name, node)
        if name == "ssl.VerifyMode" and len(node.args) == 1:
            value = self.resolve(node.args[0])  # ``ssl.VerifyMode(0)`` is ``CERT_NONE``
            return Ref("ssl.CERT_NONE") if _is_cert_none(value) else UNKNOWN
        if name.startswith("builtins."):
            return self._resolve_builtin_call(name, node)
        return UNKNOWN

    def _resolve_builtin_call(self, name: str, node: ast.Call) -> Value:  # noqa: PLR0911 - per case
        """The value of a call of a builtin: ``getattr`` with a known name, empty constructors."""
        if name == "builtins.getattr" and len(node.args) >= 2:
            base, attr = self.resolve(node.args[0]), self._lookup_name(node.args[1])
            if isinstance(base, Ref) and attr:  # ``getattr(ssl, "_create_unverified_context")``
                return Ref(t.normalize(f"{base.qualname}.{attr}"))
            if isinstance(base, Ref) and base.qualname in _VERB_MODULES:
                # ``getattr(requests, verb)``: whichever verb, it is a request.
                return Ref(f"{base.qualname}.request")
            return UNKNOWN
        if name in _EMPTY_CONSTRUCTORS and not node.args and not node.keywords:
            return Const(_EMPTY_CONSTRUCTORS[name], node)  # ``verify=bool()``, ``str()``
        if name in _EMPTY_COLLECTIONS and not node.args and not node.keywords:
            return SeqVal((), empty=True)  # ``verify=set()``, ``list()``: empty, so false
        if name == "builtins.len" and len(node.args) == 1 and not node.keywords:
            value = self.resolve(node.args[0])  # ``verify=len("")``
            if isinstance(value, Const) and isinstance(value.value, str | bytes):
                return Const(len(value.value), node)
            return UNKNOWN
        if name == "builtins.bool" and len(node.args) == 1 and not node.keywords:
            value = self.resolve(node.args[0])  # ``verify=bool(0)``
            return Const(bool(value.value), node) if isinstance(value, Const) else UNKNOWN
        return UNKNOWN

    def _context(self, node: ast.Call, factory: str, origin: str) -> ContextState:
        state = self.contexts.get(node)
        if state is not None:
            return state
        first = self.resolve(node.args[0]) if node.args else None
        for keyword in node.keywords:
            if keyword.arg in {"protocol", "purpose"}:
                first = self.resolve(keyword.value)
        # A parameter's default is what the context gets when the caller says nothing
        # (``def wrap(sock, version=ssl.PROTOCOL_TLSv1): ssl.SSLContext(version)``).
        given = _param(first) if first is not None else None
        name = given.qualname if isinstance(given, Ref) else None
        if factory == "ssl.SSLContext":
            if name == "ssl.PROTOCOL_TLS_SERVER":
                origin = "server"
            elif name == "ssl.PROTOCOL_TLS_CLIENT":
                origin = "client"
            elif first is not None and name not in _BARE_PROTOCOLS:
                origin = "other"
        elif name == "ssl.Purpose.CLIENT_AUTH":
            origin = "client_auth"
        state = ContextState(origin, node, scope=self.function, optout=self._optout > 0)
        if origin == "unverified":
            # ``_create_stdlib_context(cert_reqs=CERT_REQUIRED)`` verifies the chain; with
            # ``check_hostname=True`` the names too (or raises, before gh-114905): repaired.
            for keyword in node.keywords:
                value = self.resolve(keyword.value)
                if keyword.arg == "cert_reqs" and _ref_in(value, _VERIFYING_MODES):
                    state.mode_required = True
                elif keyword.arg == "check_hostname" and _is_const(value, True):
                    state.hostname_on = state.mode_required = True
        self.contexts[node] = state
        return state


# Node type -> the Analyzer method that visits it (``_visit_call`` for ``ast.Call``), or
# ``generic_visit``; filled as types are met, once per process.
_HANDLERS: dict[type, Callable[[Analyzer, Any], None]] = {}


def _handler(node_type: type) -> Callable[[Analyzer, Any], None]:
    name = re.sub(r"(?<!^)([A-Z])", r"_\1", node_type.__name__).lower()
    found: Callable[[Analyzer, Any], None] = getattr(
        Analyzer, f"_visit_{name}", Analyzer.generic_visit
    )
    _HANDLERS[node_type] = found
    return found


def _suspect(value: Value) -> bool:
    """Tell whether a module-level value could carry a weakening into a function."""
    if isinstance(value, Const):
        return value.value in (False, True, None, "", "0") or (
            isinstance(value.value, str) and value.value.upper() in {"CERT_NONE", "NONE"}
        )
    if isinstance(value, Ref):
        # An alias of a TLS name (``from sslcustomize import create_legacy_context as legacy``).
        return is_tls_name(value.qualname.encode())
    return isinstance(value, DictVal | SeqVal | Partial | Instance)


def _callee_name(callee: Value) -> tuple[str | None, str]:
    """Return the qualified name of a callee (if known) and its last component."""
    if isinstance(callee, Ref):
        return callee.qualname, callee.qualname.rsplit(".", 1)[-1]
    if isinstance(callee, Method):
        if callee.type_name is not None:
            return t.normalize(f"{callee.type_name}.{callee.attr}"), callee.attr
        return None, callee.attr
    return None, ""


def _starttls_spec(
    qualname: str | None, attr: str, imported: set[str]
) -> tuple[str, int, str] | None:
    if qualname in t.STARTTLS_TYPES:
        name, index = t.STARTTLS_TYPES[qualname]
        return name, index, "SSC602"
    if qualname is None and attr in t.STARTTLS_METHODS:
        name, _, modules = t.STARTTLS_METHODS[attr]
        if any(module in imported for module in modules):
            # The receiver's type is not evident: any positional argument may be a context.
            return name, 0, "SSC602"
        if attr == "starttls" and "imaplib" in imported:
            return "ssl_context", 0, "SSC602"
    return None


def _is_self(node: ast.AST) -> bool:
    return isinstance(node, ast.Name) and node.id == "self"


def _sessionish(node: ast.AST) -> bool:
    """Tell whether an expression's name suggests an HTTP session (``s``, ``self.session``)."""
    name = node.attr if isinstance(node, ast.Attribute) else getattr(node, "id", "")
    name = name.lower()
    return name == "s" or any(part in name for part in _SESSIONISH_NAMES)


def _is_warning_class(value: Value) -> bool:
    if not isinstance(value, Ref):
        return False
    last = value.qualname.rsplit(".", 1)[-1]
    return last in {"InsecureRequestWarning", "HTTPWarning", "Warning", "SecurityWarning"}


def _located(value: Value, node: ast.AST) -> Value:
    """Remember that ``value`` was written at ``node`` (for dict entries and defaults)."""
    if isinstance(value, Const):
        return Const(value.value, node)
    return value


# A module-level class statement's name (ASCII names: the others are rare enough to miss).
_CLASS_LINE = re.compile(rb"^class ([A-Za-z_][A-Za-z0-9_]*)", re.MULTILINE)
# A line that starts a statement at the margin (not a comment, a blank or a closing bracket).
_MARGIN_LINE = re.compile(rb"\n(?=[^\s#)\]}])")


def _class_kind(bases: list[Ref]) -> str:
    kinds = {_ENUM_KINDS.get(base.qualname) for base in bases}
    return "enum" if "enum" in kinds else "value" if "value" in kinds else "class"


def _location(value: Value, fallback: ast.AST) -> ast.AST:
    """Return where a finding about ``value`` should point."""
    if isinstance(value, Param) and isinstance(value.default, Const):
        return value.default.node
    if isinstance(value, Const) and _written_inside(value.node, fallback):
        return value.node
    return fallback


def _written_inside(node: ast.AST, container: ast.AST) -> bool:
    """Tell whether a constant was written in a dict/list (its node is not the keyword's)."""
    return isinstance(container, ast.Dict | ast.Call) and node is not container


def _tokens(value: Value, source: ast.AST) -> Iterator[Token]:
    value = _param(value)
    if isinstance(value, Const) and isinstance(value.value, str):
        yield from tokens_of(value.value, value.node)
    elif isinstance(value, SeqVal):
        for item in value.items:
            yield from _tokens(item, source)


_CONTEXT_KEYWORDS = frozenset({"ssl", "context", "ssl_context", "ssl_ctx", "tls_context"})


def _is_server_call(attr: str) -> bool:
    """Tell whether a callee's name says it serves (``start_server``, ``Server``, ``listen``)."""
    low = attr.lower()
    return attr in _SERVER_CALLS or any(w in low for w in ("server", "serve", "listen", "accept"))


def _argument_for(
    call: ast.Call, function: _FunctionNode, param: str, *, method: bool
) -> ast.expr | None:
    """Return the argument a call gives to one parameter of a function, if evident."""
    for keyword in call.keywords:
        if keyword.arg == param:
            return keyword.value
    positional = [a.arg for a in (*function.args.posonlyargs, *function.args.args)]
    if method and positional and positional[0] in {"self", "cls"}:
        positional = positional[1:]
    if param not in positional or any(isinstance(a, ast.Starred) for a in call.args):
        return None
    index = positional.index(param)
    return call.args[index] if index < len(call.args) else None


def _option_name(node: ast.expr) -> str | None:
    """The name of an option constant: ``pycurl.SSL_VERIFYPEER``, ``c.SSL_VERIFYPEER``."""
    if isinstance(node, ast.Attribute):
        return node.attr
    return node.id if isinstance(node, ast.Name) else None


def _empty_dict_at(node: ast.AST) -> ast.Dict:
    """An empty dict display located at ``node``: where entries written later are reported."""
    return ast.copy_location(ast.Dict(keys=[], values=[]), node)


def _attribute_owner(node: ast.expr) -> ast.expr | None:
    """Return ``obj`` for ``obj.__dict__`` or ``vars(obj)``: a mapping of its attributes."""
    if isinstance(node, ast.Attribute) and node.attr == "__dict__":
        return node.value
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == "vars"
        and len(node.args) == 1
    ):
        return node.args[0]
    return None


def _reads_user_option(test: ast.expr) -> bool:
    """Tell whether a test reads an Ansible module's option (``module.params["validate_certs"]``).

    The option is what the user of the module wrote in a task: a branch taken on it is the
    user's opt-out, as a branch on a library function's parameter is its caller's.
    """
    return any(
        isinstance(node, ast.Subscript)
        and isinstance(node.value, ast.Attribute)
        and node.value.attr == "params"
        and isinstance(node.slice, ast.Constant)
        and isinstance(node.slice.value, str)
        for node in ast.walk(test)
    )


def _spec_default(value: Value) -> Value:
    """Return the ``default`` of an option spec: ``dict(type="bool", default=False)``.

    An Ansible module's argument spec gives each option as a dict: its ``default`` is what the
    module does when the user says nothing. Any other value is returned as it is.
    """
    if isinstance(value, DictVal) and "type" in value.entries and "default" in value.entries:
        return value.entries["default"]
    return value


def _calls(tree: ast.AST, lines: list[int] | None) -> Iterator[ast.Call]:
    """Yield the calls in ``tree``, looking only into nodes that span one of ``lines``.

    ``lines`` sorted; ``None``: look everywhere. Faster than ``ast.walk`` (no generator per
    node, no fields that never hold a node), and most statements are passed over whole.
    """
    stack: list[ast.AST] = [tree]
    while stack:
        node = stack.pop()
        if lines is not None and isinstance(node, ast.stmt | ast.expr):
            at = bisect_left(lines, node.lineno)
            if at == len(lines) or lines[at] > (node.end_lineno or node.lineno):
                continue
        if type(node) is ast.Call:
            yield node
        for field_name in _CHILD_FIELDS.get(type(node)) or _child_fields(type(node)):
            value = getattr(node, field_name, None)
            if type(value) is list:
                stack.extend(item for item in value if isinstance(item, ast.AST))
            elif isinstance(value, ast.AST):
                stack.append(value)


def _settle(scope: _Scope, name: str, value: Value | _Sibling) -> Value:
    """Return a scope's value for a name, reading a sibling's constant the first time."""
    if isinstance(value, _Sibling):
        value = scope[name] = value.read()
    return value


def _constant(text: str | None, node: ast.AST) -> Value:
    """Turn a constant read from a sibling module into a value."""
    if text is None:
        return UNKNOWN
    if text in {"False", "True", "None", "0"}:
        return Const({"False": False, "True": True, "None": None, "0": 0}[text], node)
    if text in {"''", '""'}:
        return Const("", node)
    if text.endswith("CERT_NONE") and not text.startswith(("'", '"')):
        return Ref("ssl.CERT_NONE")
    return Const(text.strip("'\""), node)


# The key of ``class_attrs`` that holds what ``super()`` is: an instance of the first base
# class that resolves to a module-level name. Not an identifier, so no attribute is called so.
_BASE = "super()"
# (name its callers call, function, parameter, test, code, whether the callers' first
# positional argument is its second parameter, as for a class's ``__init__``)
_ParamSink = tuple[str, "_FunctionNode", str, str, str, bool]

# Reported even inside an opt-out branch: not a weakening that a parameter switches on.
_ALWAYS = frozenset({"SSC001", "SSC901"})
# Calls that return a module named by a string.
_IMPORT_CALLS = frozenset({"builtins.__import__", "importlib.import_module"})
_ENVIRONS = frozenset({"os.environ"})
# In a replacement default HTTPS context factory (whitespace removed, lowered): calls that make
# a verifying context, and words that undo it.
_VERIFYING_FACTORY_WORDS = (
    b"create_default_context(",
    b"sslcontext(ssl.protocol_tls_client",
    b"sslcontext(protocol_tls_client",
)
_UNVERIFYING_WORDS = (
    b"cert_none",
    b"verify_none",
    b"_create_unverified",
    b"_create_stdlib",
    b"check_hostname=false",
    b"check_hostname=0",
    b"verify_mode=0",
    b"purpose.client_auth",
)
_WEAKENING_WORDS = (b"verify", b"cert_none", b"check_hostname", b"_create_unverified", b"cert_reqs")


def _name_of(node: ast.AST) -> str:
    return getattr(node, "name", "")


def _parameter_names(function: ast.AST) -> frozenset[str]:
    args = getattr(function, "args", None)
    if not isinstance(args, ast.arguments):
        return frozenset()
    return frozenset(a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs))


def _flag_names(test: ast.expr) -> list[str]:
    """Return the names a test reads as flags: alone, negated, combined or compared."""
    if isinstance(test, ast.Name):
        return [test.id]
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return _flag_names(test.operand)
    if isinstance(test, ast.BoolOp):
        return [name for value in test.values for name in _flag_names(value)]
    if isinstance(test, ast.Compare):
        return [n.id for n in (test.left, *test.comparators) if isinstance(n, ast.Name)]
    return []
