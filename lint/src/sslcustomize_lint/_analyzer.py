"""Walk one module's AST and report the places that weaken certificate verification.

The analysis is deliberately small: names are followed through imports (with aliases),
assignments in order (module constants, locals, ``with ... as``), function parameters and
their defaults, dict literals used as ``**kwargs``, ``functools.partial``, and ``self.x``
attributes set in a class's methods. An ``ssl.SSLContext`` is followed from its creation
through its attribute changes to its use, so that server contexts stay silent.
"""

from __future__ import annotations

import ast
import os
import re
from collections.abc import Callable
from itertools import accumulate

from sslcustomize_lint import _tables as t
from sslcustomize_lint._callbacks import (
    _always_returns,
    _FunctionNode,
)
from sslcustomize_lint._checks_clients import ClientChecks
from sslcustomize_lint._checks_contexts import ContextChecks
from sslcustomize_lint._checks_patches import PatchChecks
from sslcustomize_lint._checks_versions import VersionChecks
from sslcustomize_lint._core import (
    _BASE,
    _CHILD_FIELDS,
    _ENVIRONS,
    _LEAVES,
    _SESSION_TYPES,
    _VERIFYING_MODES,
    AnalyzerCore,
    RawFinding,
    _argument_for,
    _attribute_owner,
    _callee_name,
    _calls,
    _child_fields,
    _class_kind,
    _empty_dict_at,
    _flag_names,
    _is_self,
    _KwMap,
    _located,
    _location,
    _name_of,
    _parameter_names,
    _ParamSink,
    _reads_user_option,
    _Scope,
    _sessionish,
    _Sibling,
    constructed_attributes,
    defaulted_parameters,
    unrelated,
)
from sslcustomize_lint._family import FAMILIES, CallSite, Family
from sslcustomize_lint._legacy import python3_flags, python3_truth
from sslcustomize_lint._pinning import calls_host_match
from sslcustomize_lint._prefilter import lines_of, places_of
from sslcustomize_lint._siblings import (
    may_keep_weak_defaults,
    sibling_definition,
    sibling_file,
)
from sslcustomize_lint._values import (
    UNKNOWN,
    Const,
    ContextState,
    DictVal,
    Instance,
    Method,
    Param,
    Ref,
    SeqVal,
    Value,
)
from sslcustomize_lint._valuetests import (
    _TESTS,
    WEAK_SETTING_NAMES,
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

# Objects whose attributes are the keywords they are made with.
_NAMESPACES = frozenset({"types.SimpleNamespace", "argparse.Namespace"})

# Methods that change a list or set in place.
_IN_PLACE = frozenset({"append", "extend", "insert", "add", "__iadd__", "__ior__"})


class Analyzer(AnalyzerCore):
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
        super().__init__(tree, source, path, hot=hot)
        # One visitor per registered family, in the registry's order; the four known here
        # also by name, for what only one of them knows (a class's weak version attribute).
        self.context_rules = ContextChecks(self)
        self.version_rules = VersionChecks(self)
        self.client_rules = ClientChecks(self)
        self.patch_rules = PatchChecks(self)
        named: dict[type[Family], Family] = {
            type(family): family
            for family in (
                self.context_rules,
                self.version_rules,
                self.client_rules,
                self.patch_rules,
            )
        }
        self.families = tuple(named.get(kind) or kind(self) for kind in FAMILIES)
        self._line_starts: list[int] | None = None  # see ``_span``
        self._chain_names: list[str] = []  # the names the chains' callers call
        self._sets_from_self: bool | None = None  # see ``_restore_cut_init``
        # A class's weak constructor defaults, by ``id`` (``_check_default_construction``).
        self._weak_inits: dict[int, list[tuple[str, str]]] = {}
        # Calls bound to a plain name, whose instance's attributes are followed by name.
        self._bound_calls: set[int] = set()
        # Defaults of verification flags, reported unless their use is (``_check_flag_default``)
        self._flag_defaults: list[tuple[str, ast.AST]] = []
        # Module names with one value on every Python 3 (``PY2``), read at the first ``if``.
        self._python3_flags: dict[str, bool] | None = None

    # -- driving -------------------------------------------------------------------------

    def run(self, *, callers: bool = True) -> list[RawFinding]:
        """Analyze the module and return its findings, sorted by position.

        ``callers=False`` leaves the callers of ``followed_functions`` unchecked, for a
        ``check_callers`` on a tree that holds more of them.
        """
        self.visit_body(self.tree.body)
        while self._pending:
            func, scopes, class_attrs = self._pending.pop(0)
            if self._is_hot(func) or self._init_of_hot_class(func, class_attrs):
                self._visit_function(func, scopes, class_attrs)
        if callers:
            self._finish_param_sinks(self.tree)
        self.context_rules.finish_contexts()
        self._report_flag_defaults()
        self._collect_chains()
        if callers:
            self._finish_default_chains(self.tree)
        return sorted(self.findings, key=lambda f: (f[1], f[2], f[0]))

    def _collect_chains(self) -> None:
        """Keep the branches a default takes that hold a weakening in the end (with its code)."""
        for owner, name, value, (first, last) in self._branch_chains:
            codes = [c for c, line, _ in self.findings if first <= line <= last]
            codes = [c for c in codes if c != _CONFIGURABLE_NOTE]
            if codes:
                self._chains.append((owner, name, value, min(codes)))
        self._branch_chains = []
        if self._chains:
            _, classes = _function_index(self.tree)
            self._chain_names = [
                classes.get(id(f), f.name) if f.name == "__init__" else f.name
                for f, *_ in self._chains
            ]

    def _finish_default_chains(self, tree: ast.Module) -> None:
        """Report the callers' defaults that carry a weakening default one level up.

        ``def handler(verify=False)`` whose default reaches a weakening; ``class Lib: def
        __init__(self, verify=False): handler(verify=verify)`` passes its own default on, and
        ``Lib(h, kwargs.get("verify", False))`` an option's: each is reported at its default,
        and followed in turn. Callers in this file, by plain name, ``self.name`` or the
        class's name for an ``__init__``; only a default equal to the one followed (a
        literal a caller passes is its own opt-out, not followed: see docs/lint.md).
        """
        if not self._chains:
            return
        functions, classes = _function_index(tree)
        done: set[tuple[int, str]] = set()
        work = list(self._chains)
        while work:
            followed, param, default, code = work.pop()
            function = _same_function(tree, followed)
            if function is None or (id(function), param) in done:
                continue
            done.add((id(function), param))
            class_name = classes.get(id(function))
            name = class_name if function.name == "__init__" and class_name else function.name
            for call in _calls(tree, self._lines_naming((name,))):
                if _called_name(call) != name:
                    continue
                bound = _calls_function(call, function, class_name)
                if bound is None:
                    continue
                given = _argument_for(call, function, param, method=bound)
                caller = _innermost(functions, call.lineno)
                if given is None or caller is None:
                    continue
                found = _carried_default(given, caller, default)
                if found is not None:
                    self.report(code, found[1])
                    if found[0] is not None:
                        work.append((caller, found[0], default, code))

    def _init_of_hot_class(self, func: _FunctionNode, class_attrs: _Scope | None) -> bool:
        """Tell whether ``func`` is the ``__init__`` of a class with a hot method.

        What ``__init__`` stores (``self.self_signed = options.get(..., True)``) is what the
        class's other methods read; its lines need not hold a rule word themselves.
        """
        if func.name != "__init__" or class_attrs is None:
            return False
        cls = self._class_nodes.get(self._class_names_by_attrs.get(id(class_attrs), ""))
        return cls is not None and self._is_hot(cls)

    @property
    def follows_callers(self) -> bool:
        """Tell whether the last run checked callers of functions (see ``_finish_param_sinks``)."""
        return bool(self._param_sinks or self._chains)

    @property
    def followed_functions(self) -> tuple[str, ...]:
        """The names of the functions whose callers the last run checked."""
        names = [sink[0] for sink in self._param_sinks] + self._chain_names
        return tuple(dict.fromkeys(names))

    def check_callers(self, tree: ast.Module) -> list[RawFinding]:
        """Check the callers of ``followed_functions`` in ``tree``, after ``run``.

        ``tree`` is the same module parsed with more of its functions: the tree that ``run``
        saw may have left out the functions that call them (a cut source, see the runner).
        Returns all the findings, sorted by position, as ``run`` does.
        """
        self._finish_param_sinks(tree)
        self._finish_default_chains(tree)
        return sorted(self.findings, key=lambda f: (f[1], f[2], f[0]))

    def visit_body(self, body: list[ast.stmt]) -> None:
        """Visit statements in order, so that bindings see earlier assignments."""
        for stmt in body:
            self.visit(stmt)
            if type(stmt) is ast.If and not stmt.orelse and self._python3_returns(stmt):
                break  # ``if hasattr(ssl, "SSLContext"): return ...``: the rest is Python 2's

    def _python3_returns(self, node: ast.If) -> bool:
        """Tell whether every Python 3 takes an ``if`` whose body always returns."""
        if not _always_returns(node.body):
            return False
        if self._python3_flags is None:
            self._python3_flags = python3_flags(self.tree)
        return python3_truth(node.test, self._python3_flags) is True

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
                module = self.scopes[-1][alias.asname] = Ref(t.normalize(alias.name))
                self._note_sibling_module(alias.asname, 0, alias.name, module)
            else:
                self.scopes[-1][root] = Ref(root)

    def _note_sibling_module(self, name: str, level: int, module: str, bound: Value) -> bool:
        """Remember a module of this package bound to ``name`` (``import mypkg.x as x``).

        ``x.VERIFY`` and ``x.Settings(...)`` are then read from its file, while ``name``
        still holds ``bound``. Returns whether ``module`` is such a module.
        """
        if len(self.scopes) != 1 or (not level and "." not in module):
            return False
        found = sibling_file(self.path, level, module)
        if found is None:
            return False
        self._sibling_modules[name] = (found, bound)
        return True

    def _import_sibling_modules(self, node: ast.ImportFrom) -> bool:
        """Bind ``from . import settings`` (a module of the package); tell if all names were."""
        if not node.level or len(self.scopes) != 1:
            return False
        parent = node.module or ""
        package = os.path.basename(os.path.dirname(self.path or ""))
        for alias in node.names:
            if alias.name == "*" or not alias.name.islower():
                continue
            name = alias.asname or alias.name
            module = Ref(f"{package}.{alias.name}")
            dotted = f"{parent}.{alias.name}" if parent else alias.name
            if self._note_sibling_module(name, node.level, dotted, module):
                self.scopes[-1][name] = module
        return all(name in self._sibling_modules for name in _bound_names(node))

    def _visit_import_from(self, node: ast.ImportFrom) -> None:
        if self._import_sibling_modules(node):
            return
        sibling = sibling_file(self.path, node.level, node.module)
        if sibling is not None:
            for alias in node.names:
                self.scopes[-1][alias.asname or alias.name] = _Sibling(sibling, alias.name, node)
                if len(self.scopes) == 1:
                    self._sibling_imports[alias.asname or alias.name] = (sibling, alias.name)
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
            if sibling is not None:
                # ``from mypkg.settings import VERIFY`` inside ``mypkg``: its literal, if any
                bound: Value | _Sibling = _Sibling(sibling, alias.name, node, Ref(qualname))
            else:
                bound = Ref(qualname)
            self.scopes[-1][alias.asname or alias.name] = bound

    def _visit_function_def(self, node: _FunctionNode) -> None:
        for decorator in node.decorator_list:
            self.visit(decorator)
        self._pending.append((node, list(self.scopes), self.class_attrs))
        self.scopes[-1][node.name] = UNKNOWN
        self.defs[node.name] = node

    _visit_async_function_def = _visit_function_def

    def _visit_class_def(self, node: ast.ClassDef) -> None:
        for expr in [*node.bases, *node.decorator_list]:
            self.visit(expr)
        outer = self.class_attrs
        attrs: _Scope = {}  # filled by ``self.x = ...`` as the methods are visited
        self.class_attrs = attrs
        self._class_names_by_attrs[id(self.class_attrs)] = node.name
        bases = [base for base in map(self.resolve, node.bases) if isinstance(base, Ref)]
        if bases:
            self.class_attrs[_BASE] = Instance(bases[0].qualname)
        self._inherit_attributes(node)
        body: _Scope = {}
        self.scopes.append(body)
        first_method = len(self._pending)
        self.visit_body(node.body)
        self._restore_cut_init(node, first_method)
        self.scopes.pop()
        self.version_rules.check_class_versions(node.body, body)
        for name, value in body.items():
            if isinstance(value, Const):  # ``verify_tls = False`` read as ``self.verify_tls``
                self.class_attrs.setdefault(name, value)
        self.class_attrs = outer
        self.scopes[-1][node.name] = UNKNOWN
        if len(self.scopes) == 1:  # a module's class: its attributes are read by name
            self._classes[node.name] = (body, _class_kind(bases))
            self._module_class_attrs[node.name] = attrs
            self._class_nodes[node.name] = node

    def _restore_cut_init(self, node: ast.ClassDef, first_method: int) -> None:
        """Analyze a class's ``__init__`` that the cut left out, before its other methods.

        A cut tree (see the runner) lacks methods without a rule word; an ``__init__`` that
        only stores options (``self.self_signed = options.get("self_signed", True)``) is one.
        Read from the whole file, once, only for a class with a line that sets a verification
        value from ``self`` (``ctx.check_hostname = not self.self_signed``).
        """
        if self.source is None or len(self.scopes) != 2 or self.class_attrs is None:
            return
        if any(_name_of(stmt) == "__init__" for stmt in node.body):
            return
        if self._sets_from_self is None:  # most files have no such line: one search each
            self._sets_from_self = _SET_FROM_SELF.search(self.source) is not None
        if not self._sets_from_self:
            return
        start, end = self._class_span(node)
        if not _SET_FROM_SELF.search(self.source, start, end):
            return
        try:  # the class alone, not the whole file
            piece = ast.parse(b"\n" * (node.lineno - 1) + self.source[start:end])
        except (SyntaxError, ValueError, RecursionError):
            return
        for whole in piece.body:
            if isinstance(whole, ast.ClassDef) and whole.lineno == node.lineno:
                for stmt in whole.body:
                    if isinstance(stmt, ast.FunctionDef) and stmt.name == "__init__":
                        entry = (stmt, list(self.scopes), self.class_attrs)
                        self._pending.insert(first_method, entry)

    def _class_span(self, node: ast.ClassDef) -> tuple[int, int]:
        """A module-level class's bytes: to the next statement at the margin.

        Not to its ``end_lineno``: in a cut tree the class ends at its last kept member.
        """
        start = self._span(node)[0]
        source = self.source or b""
        margin = _NEXT_AT_MARGIN.search(source, start + 1)
        return start, margin.start() if margin else len(source)

    def _span(self, node: ast.stmt) -> tuple[int, int]:
        """The byte offsets of a statement's lines in the source (found once per file)."""
        if self._line_starts is None:
            source = self.source or b""
            lengths = (len(line) + 1 for line in source.split(b"\n"))
            self._line_starts = [*accumulate(lengths, initial=0)]
        starts = self._line_starts
        last = min(node.end_lineno or node.lineno, len(starts) - 1)
        return starts[min(node.lineno - 1, len(starts) - 1)], starts[last]

    def _inherit_attributes(self, node: ast.ClassDef) -> None:
        """Let ``self.x`` in a subclass read what a base class of this module stored.

        ``class Base: def __init__(self, verify_ssl=False): self.verify_ssl = verify_ssl``,
        then ``requests.post(url, verify=self.verify_ssl)`` in a subclass: the base's default
        reaches the subclass's sink. Only the attributes the subclass neither sets itself
        nor passes to its base by name (``super().__init__(verify_ssl=True)``) are inherited.
        """
        if len(self.scopes) != 1 or self.class_attrs is None:
            return
        inherited = [
            self._module_class_attrs[base.id]
            for base in node.bases
            if isinstance(base, ast.Name)
            and base.id in self._module_class_attrs
            and self.module_scope.get(base.id) is UNKNOWN  # still the class, not rebound
        ]
        if inherited:
            self._inherited[id(self.class_attrs)] = (inherited, node)

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
                self.version_rules.check_default(arg.arg, value, default)
                if not _OPTOUT_FUNCTION.search(node.name.lower()):
                    # ``verify_certs=False``: a client's switch off by default, not in the
                    # function that is the opt-out itself (``create_unverified_context``).
                    self.client_rules.check_default(arg.arg, value, default)
                self._check_flag_default(node, arg.arg, value, default)
        if args.kwarg is not None:  # ``**kwargs``: a dict of what the caller gave
            scope[args.kwarg.arg] = DictVal({}, _empty_dict_at(args.kwarg), has_unknown=True)
        self.scopes = [*scopes, scope]
        self._scope_owner[id(scope)] = node
        self.function = node
        self.visit_body(node.body)
        self.scopes, self.class_attrs, self.function = saved

    def _check_flag_default(
        self, function: _FunctionNode, name: str, value: Value, default: ast.expr
    ) -> None:
        """A parameter named for certificate verification whose default turns it off.

        ``def __init__(self, verify_certificates=False)`` of a context factory, or
        ``validate_certs=False``: whatever the value then selects (a library's own options
        class, a branch), the library's default is not to verify, reported at the default
        as a weak protocol default is. Only names that say certificates or host names
        (``verify`` alone is also a signature's); ``None`` is the usual "library default";
        not in a function named for the opt-out (``create_unverified_context``).
        """
        if (
            _CERT_FLAG.fullmatch(name.lower())
            and isinstance(value, Const)
            and value.value is not None
            and not value.value
            and not _OPTOUT_FUNCTION.search(function.name.lower())
        ):
            code = "SSC202" if "hostname" in name.lower() else "SSC101"
            self._flag_defaults.append((code, default))

    def _report_flag_defaults(self) -> None:
        """Report the flag defaults on lines where no rule reported their use already.

        A default that reaches a known sink (``session.verify = verify_ssl``) is reported
        there with the sink's own code, at the same default: once is enough.
        """
        lines = {line for _, line, _ in self.findings}
        for code, node in self._flag_defaults:
            if getattr(node, "lineno", 0) not in lines:
                self.report(code, node)

    def _visit_lambda(self, node: ast.Lambda) -> None:
        args = node.args
        positional = [*args.posonlyargs, *args.args]
        first = len(positional) - len(args.defaults)
        pairs = list(zip(positional[first:], args.defaults, strict=True))
        kw_pairs = zip(args.kwonlyargs, args.kw_defaults, strict=True)
        pairs += [(arg, default) for arg, default in kw_pairs if default is not None]
        for arg, default in pairs:  # evaluated where the lambda is made, in the outer scope
            self.version_rules.check_default(arg.arg, self.resolve(default), default)
        self.scopes.append(dict.fromkeys((a.arg for a in node.args.args), UNKNOWN))
        self.generic_visit(node)
        self.scopes.pop()

    def _visit_assign(self, node: ast.Assign) -> None:
        if type(node.value) is ast.Call and all(type(t) is ast.Name for t in node.targets):
            self._bound_calls.add(id(node.value))  # ``settings = Settings(url)``: followed
        self.visit(node.value)
        value = self.resolve(node.value)
        for target in node.targets:
            named = _target_name(target)
            if named in t.SSL_OPTION_DICTS:
                self.client_rules.check_ssl_options(node.value)
            elif named in t.SETTING_NAMES and isinstance(target, ast.Name):
                self.client_rules.check_attribute_value(named, value, node)  # scrapy's settings
            self._assign(target, value, node.value, node)
            if isinstance(node.value, ast.IfExp):
                self._check_optout_binding(target, node.value)

    def _check_optout_binding(self, target: ast.expr, node: ast.IfExp) -> None:
        """Note the weak branch of a binding that a caller's option chooses.

        ``cert_reqs = CERT_REQUIRED if check_cert else CERT_NONE`` or ``ctx.verify_mode =
        ...`` where ``check_cert`` is a parameter with no default (its default would decide
        it): the caller turns verification off through the option, a configurable weakening
        (SSC801), noted at the weak branch. ``CERT_NONE`` whatever the name; ``False`` only
        for a name of verification. Not in a function that serves (a server's client
        certificates are its own choice).
        """
        name = _target_name(target) if isinstance(target, ast.Name) else None
        if isinstance(target, ast.Attribute):
            name = target.attr
        if name is None:
            return
        uses, truth = self._guard(node.test)
        if not uses or truth is not None or self.has_server_hints(self.function):
            return
        flag = name in _VERIFY_ATTRIBUTES or bool(
            _CERT_FLAG.fullmatch(name.lower()) or _VERIFY_OPTION.fullmatch(name.lower())
        )
        for branch in (node.body, node.orelse):
            value = self.resolve(branch)
            cert_none = isinstance(value, Ref) and value.qualname in t.CERT_NONE_NAMES
            if cert_none or (flag and _is_const(value, False)):
                self.report(_CONFIGURABLE_NOTE, branch)

    def _visit_ann_assign(self, node: ast.AnnAssign) -> None:
        if node.value is not None:
            self.visit(node.value)
            self._assign(node.target, self.resolve(node.value), node.value, node)

    def _visit_aug_assign(self, node: ast.AugAssign) -> None:
        """``opts |= {"verify": False}`` adds entries; any other changes the value to unknown."""
        self.generic_visit(node)
        if (
            isinstance(node.target, ast.Attribute)
            and node.target.attr == "options"
            and isinstance(node.op, ast.BitOr)
            and self.version_rules.legacy_renegotiation(node.value)
        ):
            self.report("SSC703", node.value)  # ``ctx.options |= 0x40000``
        if not isinstance(node.target, ast.Name):
            return
        added = self.resolve(node.value)
        current = self.lookup(node.target.id)
        known = isinstance(current, DictVal | Param)
        if isinstance(node.op, ast.BitOr) and isinstance(added, DictVal) and known:
            self._add_entries(node.target, added.entries, node.value)
            return
        add = isinstance(node.op, ast.Add)
        if add and isinstance(current, SeqVal) and isinstance(added, SeqVal):
            # ``command += ["--insecure"]``: a longer list
            self._rebind(node.target.id, SeqVal(current.items + added.items))
            return
        self._forget(node.target.id)

    def _check_item(self, owner: ast.expr, name: str, value: Value, value_node: ast.expr) -> None:
        """``options["ciphers"] = "...@SECLEVEL=0"``, ``options["cert_reqs"] = "CERT_NONE"``.

        ``cert_reqs`` is a client's only where nothing says server: a server's options
        (``certfile`` in the dict, a server call in the function) ask for no client certificate.
        It counts only written there: a name may hold a caller's opt-out (requests'
        ``if verify is False: cert_reqs = "CERT_NONE"``, then ``pool_kwargs["cert_reqs"] =
        cert_reqs``).
        """
        weak = _weak_setting(name, value)
        if weak is not None:
            self.report(weak, value_node)
        elif name == "cert_reqs" and not isinstance(value_node, ast.Name) and _is_cert_none(value):
            known = self.resolve(owner)
            served = isinstance(known, DictVal) and "certfile" in known.entries
            if not served and not self.has_server_hints(self.function):
                self.report("SSC104", value_node)  # urllib3's pool options (a transport's)

    def _rebind(self, name: str, value: Value) -> None:
        """Rebind a name where it is bound (a name changed in place, ``+=``)."""
        for scope in reversed(self.scopes):
            if name in scope:
                scope[name] = value
                return

    def _forget(self, name: str) -> None:
        """Rebind a name whose value was changed in place (``+=``, ``.append``) to unknown."""
        self._rebind(name, UNKNOWN)

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

    def _visit_expr(self, node: ast.Expr) -> None:
        """A context made and thrown away (``ssl._create_unverified_context()`` alone) is unused.

        Its protocol is still checked where it is made (SSC7xx); no connection can use it.
        """
        self.generic_visit(node)
        if self.contexts and isinstance(node.value, ast.Call):
            self.contexts.pop(node.value, None)

    def _visit_try(self, node: ast.Try) -> None:
        """An optional import keeps its module: ``try: import ssl``, ``except: ssl = None``.

        The handler's fallback is the path where the module is missing, and the code that
        uses the name runs only where it is not (``if ssl is not None: ssl.SSLContext(...)``).
        """
        self.visit_body(node.body)
        scope = self.scopes[-1]
        kept = {name: scope[name] for name in _imported_names(node.body) if name in scope}
        before = (
            {id(st): len(st.weakenings) for st in self.contexts.values()} if node.orelse else {}
        )
        for handler in node.handlers:
            self.visit(handler)
        scope.update(kept)
        # A handler's weakening is not undone by the ``else:`` (it runs only without one).
        weak = self._weakenings_since(before) if node.orelse and self.contexts else []
        self.visit_body(node.orelse)
        for state, weakening in weak:
            if weakening not in state.weakenings:
                state.weakenings.append(weakening)
        self.visit_body(node.finalbody)

    _visit_try_star = _visit_try

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
            if isinstance(value_node, ast.Call) and _is_self(target.value):
                self._bind_self_construction(target.attr, value_node)
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
                self._check_item(target.value, name, value, value_node)
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
            if isinstance(target, ast.Name) and isinstance(value_node, ast.Call):
                self._bind_namespace(target.id, value_node)

    def _bind_namespace(self, name: str, call: ast.Call) -> None:
        """``opts = SimpleNamespace(verify=False)``: ``opts.verify`` is read back in this scope."""
        if (
            isinstance(call.func, ast.Attribute)
            and call.func.attr == "parse_args"
            and isinstance(call.func.value, ast.Name)
        ):
            self._bind_parsed_arguments(name, call.func.value.id)
            return
        cls = self._constructed_class(call.func)
        if cls is not None:
            # ``settings = Settings(url)``: ``settings.verify_ssl`` is the constructor's default
            for attr, value in constructed_attributes(cls, call).items():
                self.scopes[-1][f"{name}.{attr}"] = value
            return
        if not call.keywords:  # a namespace holds only what it was given by keyword
            return
        callee = self.resolve(call.func)
        if isinstance(callee, Ref) and callee.qualname in _NAMESPACES:
            for keyword in call.keywords:
                if keyword.arg is not None:
                    key = f"{name}.{keyword.arg}"
                    self.scopes[-1][key] = self._resolve_located(keyword.value)

    def _bind_self_construction(self, name: str, call: ast.Call) -> None:
        """``self.transport = Transport(url)``: ``self.transport.verify`` in every method.

        Kept as ``"transport.verify"`` in the class's attributes (no attribute has a dot),
        from ``__init__`` only, where the instance is set up before any method runs.
        """
        if self.class_attrs is None or _name_of(self.function) != "__init__":
            return
        cls = self._constructed_class(call.func)
        if cls is not None:
            for attr, value in constructed_attributes(cls, call).items():
                self.class_attrs.setdefault(f"{name}.{attr}", value)

    def _constructed_class(self, func: ast.expr) -> ast.ClassDef | None:
        """The class a call constructs: one of this module, or one imported from a sibling.

        Only a module-level name that still holds the class (not rebound, not shadowed by a
        local) counts; ``settings.Settings`` of a sibling module ``settings`` too.
        """
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
            path = self.sibling_module(func.value.id)
            if path is None or not may_keep_weak_defaults(path):
                return None  # a class without a weak default gives nothing to follow
            found = sibling_definition(path, func.attr)
            return found if isinstance(found, ast.ClassDef) else None
        if not isinstance(func, ast.Name) or any(func.id in scope for scope in self.scopes[1:]):
            return None
        name = func.id
        if name in self._class_nodes and self.module_scope.get(name) is UNKNOWN:
            return self._class_nodes[name]
        imported = self._sibling_imports.get(name)
        if imported is None or not may_keep_weak_defaults(imported[0]):
            return None
        found = sibling_definition(*imported)
        return found if isinstance(found, ast.ClassDef) else None

    def _bind_parsed_arguments(self, name: str, parser: str) -> None:
        """``args = parser.parse_args()``: ``args.verify`` is the default of ``--verify``.

        The options are the ``parser.add_argument(...)`` calls of this function (or module):
        their ``default=``, else ``False`` for ``store_true`` and ``True`` for ``store_false``
        (what the code does when the user passes nothing).
        """
        for node in ast.walk(self.function):
            if not (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr == "add_argument"
                and isinstance(node.func.value, ast.Name)
                and node.func.value.id == parser
            ):
                continue
            keywords = {k.arg: k.value for k in node.keywords if k.arg is not None}
            dest = _argument_dest(node, keywords)
            if dest is None:
                continue
            if "default" in keywords:
                value = self._resolve_located(keywords["default"])
            else:
                action = keywords.get("action")
                kind = action.value if isinstance(action, ast.Constant) else None
                if kind not in {"store_true", "store_false"}:
                    continue
                value = Const(kind == "store_false", action or node)
            self.scopes[-1][f"{name}.{dest}"] = value

    def _assign_named_attribute(
        self, owner: ast.expr, name: str, value: Value, value_node: ast.expr, stmt: ast.AST
    ) -> None:
        """``owner.<name> = value`` spelled otherwise (``setattr``, ``__dict__``, ``vars()``)."""
        store = ast.copy_location(ast.Attribute(owner, name, ast.Store()), stmt)
        self._assign_attribute(store, value, value_node, stmt)

    def _assign_attribute(
        self, target: ast.Attribute, value: Value, value_node: ast.expr, stmt: ast.AST
    ) -> None:
        base = self.resolve(target.value)
        attr = target.attr
        if isinstance(base, Ref):
            if attr in t.DISTINCTIVE_ATTRIBUTES:  # ``libcloud.security.VERIFY_SSL_CERT = False``
                self.client_rules.check_attribute_value(attr, value, stmt)
            self.patch_rules.check_patch(t.normalize(f"{base.qualname}.{attr}"), value, stmt)
            return
        state = base.context if isinstance(base, Instance) else None
        if isinstance(target.value, ast.Name) and not _is_self(target.value):
            # ``cfg.verify = False`` then ``verify=cfg.verify``: read back in this scope.
            self.scopes[-1][f"{target.value.id}.{attr}"] = _located(value, value_node)
        if isinstance(value, Param):
            # Storing a parameter: its default is checked where the caller's value is.
            self._assign_parameter(base, target, value, state, stmt)
            return
        if self._negated_option(value_node) and (
            attr == "check_hostname" or (attr == "verify" and self._session_target(base, target))
        ):
            # ``ctx.check_hostname = not value`` in ``tls_insecure_set(self, value)``: the
            # caller's true value turns the check off, a configurable weakening.
            self.report(_CONFIGURABLE_NOTE, stmt)
            return
        if (
            not isinstance(value, Const | Ref)
            and _reads_verify_option(value_node, attr)
            and self._verification_target(base, target)
        ):
            # ``ctx.check_hostname = config["ssl_check_hostname"]``, ``session.verify =
            # config.verify_certs``: the user's option set as it is, off when they say so.
            self.report(_CONFIGURABLE_NOTE, stmt)
        self.client_rules.check_attribute_value(attr, value, stmt)
        if isinstance(value, Const) and _is_self(target.value):
            self._keep_init_constant(attr, _located(value, value_node))
        if (
            state is None
            and _is_self(target.value)
            and _name_of(self.function) == "__init__"
            and not self._self_is_session()
        ):
            return  # a context wrapper class sets up its own attributes (urllib3's pyOpenSSL)
        if isinstance(value_node, ast.IfExp):  # reported at the branch taken, on its line
            branches = (value_node.body, value_node.orelse)
            stmt = next((b for b in branches if self.resolve(b) == value), stmt)
        self._assign_verification(base, target, value, state, stmt)
        if self.class_attrs is not None and _is_self(target.value) and isinstance(value, Instance):
            self.class_attrs.setdefault(attr, value)

    def _assign_parameter(
        self,
        base: Value,
        target: ast.Attribute,
        value: Param,
        state: ContextState | None,
        stmt: ast.AST,
    ) -> None:
        """``session.verify = verify_ssl``, ``ctx.verify_mode = self.validate``: a parameter."""
        attr = target.attr
        if attr == "verify" and self._session_target(base, target):
            # ``def make(verify_ssl=False): session.verify = verify_ssl``: reported at
            # the default; a caller's ``make(False)`` is checked like a keyword sink's.
            self.sink("falsy", value, "SSC102", _location(value, stmt))
        elif state is not None and (
            (attr == "verify_mode" and _is_cert_none(value))
            or (attr == "check_hostname" and _is_falsy(value))
        ):
            # ``def __init__(self, validate=CERT_NONE)`` then ``ctx.verify_mode =
            # self.validate``: the library's default weakens the context, reported there.
            code = "SSC201" if attr == "verify_mode" else "SSC202"
            self.weaken(state, code, _location(value, stmt))
        self._keep_init_param(target, value)

    def _assign_verification(
        self,
        base: Value,
        target: ast.Attribute,
        value: Value,
        state: ContextState | None,
        stmt: ast.AST,
    ) -> None:
        """``verify_mode``, ``check_hostname`` of a context, ``verify`` of a session."""
        attr = target.attr
        if attr == "verify_mode":
            if _is_cert_none(value):
                self.weaken(state, "SSC201", stmt)
            elif isinstance(value, Ref) and value.qualname in _VERIFYING_MODES and state:
                state.verified = state.mode_required = True
                state.repair("SSC201")
        elif attr == "check_hostname":
            if _is_falsy(value) and not _matches_host_itself(self.function):
                # False, 0, "": the setter takes any value's truth. Code that matches the name
                # itself after the handshake (``match_hostname(conn.getpeercert(), host)``)
                # moved the check, it did not drop it.
                self.weaken(state, "SSC202", stmt)
            elif _is_const(value, True) and state:
                # Since Python 3.7 this also turns CERT_NONE into CERT_REQUIRED.
                state.verified = state.hostname_on = state.mode_required = True
                state.repair("SSC202")
                state.repair("SSC201")
        elif attr == "verify" and _is_falsy(value) and self._session_target(base, target):
            self.report("SSC102", stmt)  # False, 0, "": requests reads it as off

    def _keep_init_constant(self, attr: str, value: Value) -> None:
        """``self.x = CONST`` (or ``kwargs.get("x", CONST)``) in ``__init__``: read back so.

        ``self.self_signed = options.get("self_signed", True)`` then ``ctx.verify_mode =
        CERT_NONE if self.self_signed else CERT_REQUIRED`` in another method: the class's
        default reaches the sink. Only an attribute that nothing else in the class stores
        (a setter or another method may change it: flow-insensitive, no single value).
        """
        if self.class_attrs is None or _name_of(self.function) != "__init__":
            return
        class_name = self._class_names_by_attrs.get(id(self.class_attrs))
        cls = self._class_nodes.get(class_name) if class_name is not None else None
        if cls is None or attr in self.class_attrs:
            return
        stores = self._self_stores.get(id(cls))
        if stores is None:
            stores = self._self_stores[id(cls)] = self._self_store_counts(cls)
        if stores.get(attr) == 1:
            self.class_attrs[attr] = value

    def _self_store_counts(self, cls: ast.ClassDef) -> dict[str, int]:
        """Count the stores to each ``self.<attr>`` in a class, from its text when known.

        The text, not the tree: a cut tree lacks the methods without a rule word, and a
        setter is one. ``setattr(self, ...)`` may store anything: nothing is counted then.
        """
        if self.source is None:
            return _self_store_counts(cls)
        start, end = self._class_span(cls)
        text = self.source[start:end]
        if b"setattr(self" in text:
            return {}
        counts: dict[str, int] = {}
        for match in _SELF_STORE.finditer(text):
            found = match.group(1) or match.group(2) or match.group(3)
            name = found.decode("ascii", "replace")
            counts[name] = counts.get(name, 0) + 1
        return counts

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

    def _verification_target(self, base: Value, target: ast.Attribute) -> bool:
        """Tell whether ``target`` is a client's ``check_hostname``, ``verify_mode``, ``verify``."""
        if self.has_server_hints(self.function):
            return False
        if target.attr in {"check_hostname", "verify_mode"}:
            return True
        return target.attr == "verify" and self._session_target(base, target)

    def _session_target(self, base: Value, target: ast.Attribute) -> bool:
        """Tell whether ``target`` (``x.verify``) is a requests/httpx session's attribute."""
        evident = isinstance(base, Instance) and base.qualname in _SESSION_TYPES
        if evident or (_is_self(target.value) and self._self_is_session()):
            return True
        return not isinstance(base, Instance) and _sessionish(target.value)

    def _self_is_session(self) -> bool:
        """Tell whether ``self`` is a session: the class's first base is a session class."""
        base = self.class_attrs.get(_BASE) if self.class_attrs is not None else None
        return isinstance(base, Instance) and t.CLASSES.get(base.qualname) in _SESSION_TYPES

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

    def _visit_compare(self, node: ast.Compare) -> None:
        """A comparison only looks at a value: ``ctx == ssl._create_unverified_context()``."""
        self.in_compare += 1
        self.generic_visit(node)
        self.in_compare -= 1

    def _visit_unary_op(self, node: ast.UnaryOp) -> None:
        self.generic_visit(node)
        if isinstance(node.op, ast.Invert) and any(
            _ref_in(self.resolve(flag), t.NO_OLD_PROTOCOL_OPTIONS)
            for flag in _or_operands(node.operand)
        ):
            self.report("SSC703", node)  # ``&= ~OP_NO_TLSv1``, ``& ~(OP_NO_TLSv1 | ...)``

    # -- expressions ---------------------------------------------------------------------

    def _visit_dict(self, node: ast.Dict) -> None:
        # Only a dict built on the environment (``{**os.environ, ...}``) is one; a table that
        # lists variable names (``{"CURL_CA_BUNDLE": "empty"}``) is not.
        spreads = [v for k, v in zip(node.keys, node.values, strict=True) if k is None]
        if any(_ref_in(self.resolve(v), _ENVIRONS) for v in spreads):
            self.check_env_dict(node)
        for key, value in zip(node.keys, node.values, strict=True):
            # An entry named by a keyword whose name alone says what it does, whatever the dict
            # is for (Celery's ``broker_use_ssl = {"ssl_cert_reqs": ssl.CERT_NONE}``).
            if isinstance(key, ast.Constant) and key.value in t.DISTINCTIVE_KEYWORDS:
                test, code = t.DISTINCTIVE_KEYWORDS[key.value]
                if _TESTS[test](self.resolve(value)):
                    self.report(code, value)
            elif isinstance(key, ast.Constant) and key.value in t.SSL_OPTION_DICTS:
                self.client_rules.check_ssl_options(
                    value
                )  # ``{"broker_use_ssl": {...}}`` (settings)
            elif isinstance(key, ast.Constant) and key.value in WEAK_SETTING_NAMES:
                # ``{"ssl_version": PROTOCOL_TLSv1}`` (tornado's ``ssl_options``),
                # ``{"tls_security_policy": "Policy-Min-TLS-1-0-..."}``
                weak = _weak_setting(key.value, self.resolve(value))
                if weak is not None:
                    self.report(weak, value)
        self._check_version_table(node)
        self._check_mode_table(node)
        self.generic_visit(node)

    def _check_version_table(self, node: ast.Dict) -> None:
        """Note the weak entries of a table from option names to protocol versions.

        ``{"tls1": "PROTOCOL_TLSv1", "tls1.2": "PROTOCOL_TLSv1_2"}`` (a command's ``--ssl``
        choices) or ``{"TLSv1.0": SSL.TLSv1_METHOD, "TLS": SSL.SSLv23_METHOD}`` (a
        setting's): the user picks a weak version by name, a configurable weakening
        (SSC802, in SSC801's family). Only a table of two or more string keys whose every
        value names a version and at least one a version that is not weak: a single weak
        value is a setting, reported where it is used.
        """
        if len(node.keys) < 2 or not any(_names_old_version(value) for value in node.values):
            return  # most dicts: no value so much as names SSLv2/3 or TLSv1/1.1
        if not all(
            isinstance(key, ast.Constant) and isinstance(key.value, str) for key in node.keys
        ):
            return
        kinds = [_version_kind(self.resolve(value)) for value in node.values]
        if None in kinds or "weak" not in kinds or "strong" not in kinds:
            return
        for value, kind in zip(node.values, kinds, strict=True):
            if kind == "weak":
                self.report(_WEAK_VERSION_NOTE, value)

    def _check_mode_table(self, node: ast.Dict) -> None:
        """Note the ``CERT_NONE`` entries of a table from option names to verify modes.

        ``{"none": ssl.CERT_NONE, "required": ssl.CERT_REQUIRED}`` indexed by a connection
        option or a URL's query (``ssl_cert_reqs=none``): the user turns verification off by
        name, a configurable weakening (SSC801). Only a table of two or more string keys whose
        every value is a verify mode, one of them verifying: a dict with one weak entry is a
        setting, checked where it is used.
        """
        if len(node.keys) < 2 or not any(
            isinstance(value, ast.Attribute | ast.Name)
            and getattr(value, "attr", getattr(value, "id", "")) == "CERT_NONE"
            for value in node.values
        ):
            return  # most dicts: no value so much as names CERT_NONE
        if not all(
            isinstance(key, ast.Constant) and isinstance(key.value, str) for key in node.keys
        ):
            return
        values = [self.resolve(value) for value in node.values]
        if not all(isinstance(v, Ref) and v.qualname in _VERIFY_MODES for v in values):
            return
        if not any(isinstance(v, Ref) and v.qualname in _VERIFYING_MODES for v in values):
            return
        for value, node_value in zip(values, node.values, strict=True):
            if _is_cert_none(value):
                self.report(_CONFIGURABLE_NOTE, node_value)

    def _visit_if(self, node: ast.If) -> None:
        """A branch taken only when a caller opts out through a parameter stays quiet.

        ``if verify is False: ctx.verify_mode = CERT_NONE`` in a library is the opt-out's
        implementation; the weakening is the caller's ``verify=False``, reported there. A branch
        taken with the parameters' defaults (``if context is None: context =
        ssl._create_stdlib_context()``) is the default path, and is reported.

        An optional import keeps its module, as in ``_visit_try``: ``if HAVE_SSL: import ssl``
        ``else: ssl = None``; the code that uses the name runs where the module is there.
        """
        self.visit(node.test)
        uses, truth = self._guard(node.test)
        python3 = self._python3_truth(node.test)
        scope = self.scopes[-1]
        kept: _Scope = {}
        weak_before: dict[int, int] | None = None  # contexts' weakenings before the body's
        branch_weak: list[tuple[ContextState, tuple[str, ast.AST]]] = []
        for body, optout, taken in (
            (node.body, uses and truth is not True, python3 is not False),
            (node.orelse, uses and truth is not False, python3 is not True),
        ):
            if not taken:
                continue  # ``if not hasattr(ssl, "SSLContext"):``: never run on Python 3
            narrowed = self._narrowed(node.test, body) if body is node.body else None
            if narrowed is not None:  # ``elif ssl_verify is False: session.verify = ssl_verify``
                saved = scope.get(narrowed)
                scope[narrowed] = Const(False, node.test)
            # A narrowed flag's value, configured elsewhere and passed on, is an option's.
            note = optout or narrowed is not None
            self._optout += note
            if body is node.body and node.orelse and self.contexts:
                weak_before = {id(st): len(st.weakenings) for st in self.contexts.values()}
            self.visit_body(body)
            if body is node.body and weak_before is not None:
                branch_weak = self._weakenings_since(weak_before)
            self._optout -= note
            if narrowed is not None:
                if saved is None:
                    scope.pop(narrowed, None)
                else:
                    scope[narrowed] = saved
            if uses and truth is not None and not optout and not self._optout and body:
                # A default takes this branch: if it weakens, so do its callers' defaults.
                span = (body[0].lineno, body[-1].end_lineno or body[-1].lineno)
                for name in _flag_names(node.test):
                    self.chain_default(name, "", span)
            kept.update((n, scope[n]) for n in _imported_names(body) if n in scope)
        scope.update(kept)
        for state, weakening in branch_weak:
            # ``if mode < REQUIRE: ctx.verify_mode = CERT_NONE`` / ``else: ... CERT_REQUIRED``:
            # the other branch's repair does not undo this one's weakening (branches are
            # exclusive; the context is weak on this path).
            if weakening not in state.weakenings:
                state.weakenings.append(weakening)

    def _python3_truth(self, test: ast.expr) -> bool | None:
        """The value ``test`` has on every Python 3 (``None``: it depends on more than that)."""
        if self._python3_flags is None:
            self._python3_flags = python3_flags(self.tree)
        return python3_truth(test, self._python3_flags)

    def _weakenings_since(
        self, before: dict[int, int]
    ) -> list[tuple[ContextState, tuple[str, ast.AST]]]:
        """The weakenings the contexts gained since ``before`` (counts by ``id``)."""
        return [
            (state, weakening)
            for state in self.contexts.values()
            for weakening in state.weakenings[before.get(id(state), 0) :]
        ]

    def _narrowed(self, test: ast.expr, body: list[ast.stmt]) -> str | None:
        """The local flag a test proves false in its branch and the branch then passes on.

        ``if ssl_verify is False:`` / ``== False`` / ``not ssl_verify`` of a name of this
        function (not a parameter: a default decides those) named for verification, whose
        branch reads it: there it is ``False``, the configured opt-out carried to a sink.
        """
        if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
            name = test.operand
        elif (
            isinstance(test, ast.Compare)
            and len(test.ops) == 1
            and isinstance(test.ops[0], ast.Is | ast.Eq)
            and isinstance(test.comparators[0], ast.Constant)
            and test.comparators[0].value is False
        ):
            name = test.left
        else:
            return None
        if not isinstance(name, ast.Name) or name.id not in self.scopes[-1]:
            return None
        low = name.id.lower()
        if not (_VERIFY_OPTION.fullmatch(low) or _CERT_FLAG.fullmatch(low)):
            return None
        if isinstance(self.scopes[-1][name.id], Param) or len(self.scopes) < 2:
            return None
        reads = any(
            isinstance(n, ast.Name) and n.id == name.id and isinstance(n.ctx, ast.Load)
            for stmt in body
            for n in ast.walk(stmt)
        )
        return name.id if reads else None

    def _guard(self, test: ast.expr, *, optout: bool = True) -> tuple[bool, bool | None]:
        """Return whether a test reads a parameter, and its value with default arguments.

        With ``optout`` (a branch), a test that reads only unrelated parameters reads none:
        it is not the caller's opt-out.
        """
        params = _parameter_names(self.function)
        flags = _flag_names(test)
        if _reads_user_option(test):
            return True, None  # ``if not module.params["validate_certs"]``: the user's choice
        if not any(n in params or isinstance(self.lookup(n), Param) for n in flags):
            return False, None
        if optout and unrelated(test):
            return False, None  # ``if protocol == "http":``: what else the caller asked for
        return True, self._truth(test, optout=optout)

    def _default_truth(self, test: ast.expr) -> bool | None:
        """A conditional expression's test on parameters, with their defaults.

        Only when every name it reads is still a parameter: one reassigned in the function
        (``if opt_out: cert_reqs = CERT_NONE``) has no single value here (flow-insensitive).
        """
        flags = _flag_names(test)
        if not flags or not all(isinstance(self.lookup(name), Param) for name in flags):
            return None
        uses, truth = self._guard(test, optout=False)
        return truth if uses else None

    def _truth(self, test: ast.expr, *, optout: bool = False) -> bool | None:
        if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
            inner = self._truth(test.operand, optout=optout)
            return None if inner is None else not inner
        if isinstance(test, ast.BoolOp):
            stop = isinstance(test.op, ast.Or)
            # A part on an unrelated parameter (``transport == "rediss" and not ssl``) does not
            # decide whether the caller opted out: it is taken as the part that changes nothing.
            values = [
                not stop if optout and unrelated(v) else self._truth(v, optout=optout)
                for v in test.values
            ]
            if stop in values:
                return stop
            return None if None in values else not stop
        if isinstance(test, ast.Compare) and len(test.ops) == 1:
            return self._compare_truth(test)
        value = _param(self.resolve(test))
        return bool(value.value) if isinstance(value, Const) else None

    def _compare_truth(self, test: ast.Compare) -> bool | None:
        """``x is None``, ``mode == "insecure"``, with default arguments: true, false, unknown."""
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
        for name, branches in self._optout_choices(keywords):
            # ``cert_reqs=CERT_REQUIRED if verify else CERT_NONE``: each branch as the call
            # would get it, the weak one as the caller's opt-out (a note).
            self._optout += 1
            for value, where in branches:
                choice = {**kwmap, name: (value, where)}
                self._check_call(node, qualname, attr, callee, args, choice, has_star)
            self._optout -= 1
        for index, arg in enumerate(args):
            if type(arg) is ast.IfExp and self._option_test(arg):
                # ``setopt(pycurl.SSL_VERIFYPEER, 1 if request.validate_cert else 0)``: each
                # branch by position as the call would get it, the weak one as an opt-out.
                self._optout += 1
                for branch in (arg.body, arg.orelse):
                    chosen = [*args[:index], branch, *args[index + 1 :]]
                    self._check_call(node, qualname, attr, callee, chosen, kwmap, has_star)
                self._optout -= 1
        if attr in _OPTION_SOURCES:
            self._check_option_source(node, attr)
        func = node.func
        if (
            type(func) is ast.Name
            and (func.id in self._class_nodes or func.id in self._sibling_imports)
        ) or (
            type(func) is ast.Attribute
            and type(func.value) is ast.Name
            and func.value.id in self._sibling_modules
        ):
            self._check_default_construction(node)
        if isinstance(callee, Method) and isinstance(node.func, ast.Attribute):
            self._mutate_dict(node.func.value, attr, args, kwmap)

    def _check_default_construction(self, node: ast.Call) -> None:
        """A construction that leaves a weakening default to the class of the package.

        ``self.tls = Tls() if use_ssl and not tls else tls`` where ``class Tls: def
        __init__(self, validate=ssl.CERT_NONE)`` keeps ``self.validate``: the library
        builds its own weak default, reported at the construction (the class's default is
        reported where it is written). ``CERT_NONE`` kept, or a false default of a parameter
        named for verification (``verify_certs=False``); not ``None``.
        """
        if id(node) in self._bound_calls:
            return  # its attributes are followed where they are used (``settings.verify``)
        cls = self._constructed_class(node.func)
        if cls is None:
            return
        weak = self._weak_inits.get(id(cls))
        if weak is None:
            weak = self._weak_inits[id(cls)] = []
            for param, value in defaulted_parameters(cls, _NO_ARGUMENTS):
                if _ref_in(value, t.CERT_NONE_NAMES):
                    weak.append((param, "SSC201"))
                elif (
                    isinstance(value, Const)
                    and value.value is not None
                    and not value.value
                    and _CERT_FLAG.fullmatch(param.lower())
                ):
                    weak.append((param, "SSC202" if "hostname" in param.lower() else "SSC101"))
        if weak:
            left = {param for param, _ in defaulted_parameters(cls, node)}
            for param, code in weak:
                if param in left:
                    self.report(code, node)

    def _negated_option(self, node: ast.expr) -> bool:
        """Tell whether ``node`` is ``not PARAM`` of a parameter that is true on opting out.

        A parameter with no default, or with a false one (``insecure=False``), that the
        caller sets to opt out; one whose default is true makes the default path weak, and
        is left to the rules of defaults.
        """
        if not (isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not)):
            return False
        value = self.resolve(node.operand)
        if not isinstance(value, Param):
            return False
        default = value.default
        return default is None or (isinstance(default, Const) and not default.value)

    def _check_option_key(
        self, node: ast.Call, key: ast.expr, default: ast.expr | None, *, verify_sense: bool
    ) -> None:
        """Note a lookup of an option that turns verification off when the user sets it.

        A key that names the switch itself (``ssl_verify``: ``verify_sense``), or one that
        exists only to turn it off (``insecure``) with no default or a false one.
        """
        name = _str(self.resolve(key))
        if name is None:
            return
        name = name.lower()
        if verify_sense and _VERIFY_OPTION.fullmatch(name):
            self.report(_CONFIGURABLE_NOTE, node)
            return
        value = self.resolve(default) if default is not None else None
        if _INSECURE_OPTION.fullmatch(name) and (
            value is None or (isinstance(value, Const) and not value.value)
        ):
            self.report(_CONFIGURABLE_NOTE, node)
        elif (
            _INSECURE_OPTION.fullmatch(name)
            and default is not None
            and isinstance(value, Const)
            and value.value is True
        ):
            # ``endpoint.get("SkipTLSVerify", True)``: the off switch is on when nothing is
            # configured, the library's default (reported at it).
            self.report("SSC101", default)

    def _option_test(self, node: ast.IfExp) -> bool:
        """Tell whether a conditional's test is a caller's or user's option of verification.

        A parameter with no default that decides it (see ``_guard``), or an attribute named
        for verification (``request.validate_cert``), when the whole expression has no value
        here (a known one is checked as it is).
        """
        if isinstance(self.resolve(node), Const | Ref):
            return False
        uses, truth = self._guard(node.test)
        if uses:
            return truth is None
        test = node.test
        if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
            test = test.operand
        if not isinstance(test, ast.Attribute):
            return False
        low = test.attr.lower()
        return bool(_VERIFY_OPTION.fullmatch(low) or _CERT_FLAG.fullmatch(low))

    def _optout_choices(
        self, keywords: list[ast.keyword]
    ) -> list[tuple[str, list[tuple[Value, ast.AST]]]]:
        """The keywords that choose between two literals on a caller's option of verification.

        ``x if verify else y`` where ``verify`` is a parameter with no default (whose default
        would decide it, see ``_default_truth``), and the test reads an option of
        verification (not ``protocol == "http"``): each branch's value, located at it.
        """
        found = []
        for keyword in keywords:
            value = keyword.value
            if keyword.arg is None or not isinstance(value, ast.IfExp):
                continue
            if not self._option_test(value):
                continue
            branches = [(self.resolve(b), b) for b in (value.body, value.orelse)]
            if all(isinstance(v, Const | Ref) for v, _ in branches):
                found.append((keyword.arg, [(v, _location(v, b)) for v, b in branches]))
        return found

    def _check_option_source(self, node: ast.Call, attr: str) -> None:
        """Note where a user's option of verification enters: a config key, a command flag.

        ``config.getboolean("global", "ssl_verify")`` reads a switch from a configuration
        file, and ``add_argument("--no-ssl-verify", dest="ssl_verify", action="store_false")``
        gives the command a flag that turns it off: each is a configurable weakening (SSC801),
        wherever its value goes. A flag that says the opposite (``--insecure``,
        ``store_true``) is noted where it is used (``verify=not args.insecure``).
        """
        keywords = {k.arg: k.value for k in node.keywords if k.arg is not None}
        if attr == "getattr":
            # ``getattr(opts, "insecure", False)``: the same key, as an attribute
            if len(node.args) in {2, 3}:
                default = node.args[2] if len(node.args) == 3 else None
                self._check_option_key(node, node.args[1], default, verify_sense=False)
            return
        if attr in {"get", "pop"}:
            # ``tls.pop("insecure", False)``: a key that exists only to turn it off, read
            # from options the caller or a file gave, off unless they ask
            if len(node.args) in {1, 2}:
                default = node.args[1] if len(node.args) == 2 else None
                self._check_option_key(node, node.args[0], default, verify_sense=False)
            return
        if attr == "getboolean":
            option = keywords.get("option") or (node.args[1] if len(node.args) >= 2 else None)
            if option is not None:
                fallback = keywords.get("fallback")
                # A verify-sense key's fallback is the value when nothing is configured:
                # judged where it goes (a false one is a default weakening).
                verify_sense = fallback is None
                self._check_option_key(node, option, fallback, verify_sense=verify_sense)
            return
        action = keywords.get("action")
        if not (isinstance(action, ast.Constant) and action.value == "store_false"):
            return
        dest = _argument_dest(node, keywords)
        if dest is not None and _VERIFY_OPTION.fullmatch(dest.lower()):
            # At ``action="store_false"``: the word that makes the flag turn it off.
            where = next(k for k in node.keywords if k.arg == "action")
            self.report(_CONFIGURABLE_NOTE, where)

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
        elif attr == "__setitem__" and len(args) == 2:
            key = _str(self.resolve(args[0]))  # ``opts.__setitem__("verify", False)``
            if key is not None:
                self._add_entries(receiver, {key: self._resolve_located(args[1])}, args[1])
        elif attr in _IN_PLACE and isinstance(receiver, ast.Name):
            if isinstance(self.lookup(receiver.id), SeqVal):
                self._forget(receiver.id)  # ``BUNDLES.append(path)``: no longer empty
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
        """Show one call to every family, then follow what it patches."""
        site = CallSite(
            node=node,
            qualname=qualname,
            attr=attr,
            callee=callee,
            args=args,
            kwmap=kwmap,
            has_star=has_star,
        )
        for family in self.families:
            family.visit_call(site)
        self._check_call_patches(node, attr, args)

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
            self.patch_rules.check_patch(t.normalize(target), self.resolve(args[1]), args[0])
        elif len(args) >= 3:
            name = _str(self.resolve(args[1]))
            if not name or not name.isidentifier():
                return
            if isinstance(first, Ref):
                target = t.normalize(f"{first.qualname}.{name}")
                self.patch_rules.check_patch(target, self.resolve(args[2]), args[0])
            else:
                # ``setattr(session, "verify", False)`` is ``session.verify = False`` written
                # so that a pattern matcher does not see it.
                self._assign_named_attribute(args[0], name, self.resolve(args[2]), args[2], node)

    # -- resolution ----------------------------------------------------------------------


# Node type -> the Analyzer method that visits it (``_visit_call`` for ``ast.Call``), or
# ``generic_visit``; filled as types are met, once per process.
_HANDLERS: dict[type, Callable[[Analyzer, Any], None]] = {}


def _matches_host_itself(scope: ast.AST | None) -> bool:
    """Tell whether a function calls a host-name match of its own (``match_hostname``)."""
    if not isinstance(scope, ast.FunctionDef | ast.AsyncFunctionDef):
        return False
    return calls_host_match(scope)


def _argument_dest(call: ast.Call, keywords: dict[str, ast.expr]) -> str | None:
    """The attribute an ``add_argument`` call sets: ``dest=``, else its first long option."""
    dest = keywords.get("dest")
    if dest is not None:
        return (
            dest.value if isinstance(dest, ast.Constant) and isinstance(dest.value, str) else None
        )
    names = [a.value for a in call.args if isinstance(a, ast.Constant) and isinstance(a.value, str)]
    if len(names) != len(call.args) or not names:
        return None
    longs = [n for n in names if n.startswith("--")]
    chosen = longs[0][2:] if longs else names[0].lstrip("-")
    return chosen.replace("-", "_") or None


def _bound_names(node: ast.ImportFrom) -> list[str]:
    """The names an import binds (``from . import a as b`` binds ``b``)."""
    return [alias.asname or alias.name for alias in node.names]


# A parameter's name that says it switches certificate or host name verification (not
# ``verify`` alone: JWT and signature libraries have one too), lowered.
_CERT_FLAG = re.compile(
    r"(?:ssl_|tls_|https_)?(?:verify|validate|check)_(?:certs?|certificates?|ssl|tls"
    r"|ssl_certs?|tls_certs?|hostname|host_name|server_cert|peer_cert)"
    r"|(?:ssl|tls|cert|certificate)_(?:verify|verification|validation|check_hostname)"
    r"|check_hostname"
)

# A function whose name says it is the opt-out itself (``_create_unverified_context``).
_OPTOUT_FUNCTION = re.compile(r"unverified|insecure|no_?verify")

# Calls through which a user's option enters: a configuration file's boolean, a command flag,
# a key of an options dict or an attribute of an options object.
_OPTION_SOURCES = frozenset({"getboolean", "add_argument", "get", "pop", "getattr"})

# An option's name that exists only to turn verification off (``insecure``, ``tls_insecure``,
# ``no_verify``, ``skip_ssl_verify``, ``ignore_certs``, ``disable_ssl_verification``), lowered.
_INSECURE_OPTION = re.compile(
    r"(?:(?:ssl|tls|https|allow)[_-]?)?insecure(?:[_-]?(?:ssl|tls|skip[_-]?verify))?"
    r"|(?:no|skip|ignore|disable|without)[_-]?(?:(?:ssl|tls)[_-]?)?"
    r"(?:verify|verification|validation|certs?|certificates?|cert[_-]?check)"
)

# The note of a configurable weakening (``_core``'s ``SSC801``).
_CONFIGURABLE_NOTE = "SSC801"
# The note of a table that lets a user choose a weak protocol version by name.
_WEAK_VERSION_NOTE = "SSC802"
# The verify modes a table of options may map to (``_check_mode_table``).
# A line that sets a verification value from an attribute of ``self`` (``_restore_cut_init``).
_SET_FROM_SELF = re.compile(
    rb"(?:verify_mode|check_hostname|cert_reqs|verify)\s*=[^=\n]*\bself\.\w"
)
# ``self.x =``, ``self.x +=`` (not ``==``), ``self.x: T =``, ``del self.x`` and a tuple's
# ``self.x, self.y =`` (each name before an ``=`` on its line is counted once per line).
_SELF_STORE = re.compile(
    rb"\bself\.(\w+)\s*(?::[^=\n]*)?(?:[-+*/%&|^@]|//|>>|<<|\*\*)?=(?!=)"
    rb"|\bself\.(\w+)\s*,(?=[^\n=]*=(?!=))|\bdel\s+self\.(\w+)"
)
# A construction with no arguments: what a class keeps when given nothing.
_NO_ARGUMENTS = ast.Call(func=ast.Name("_", ast.Load()), args=[], keywords=[])
# A line that starts a statement at the margin (not a comment, a blank or a closing bracket).
_NEXT_AT_MARGIN = re.compile(rb"\n(?=[^\s#)\]}])")
_VERIFY_ATTRIBUTES = frozenset({"verify", "verify_mode", "check_hostname", "cert_reqs"})
_VERIFY_MODES = frozenset({"ssl.CERT_NONE", "ssl.CERT_OPTIONAL", "ssl.CERT_REQUIRED"})

# An option's name that is the switch of verification itself (``verify``, ``ssl_verify``,
# ``verify_certs``, ``validate_certs``, ``check_hostname``), lowered.
_VERIFY_OPTION = re.compile(
    r"(?:(?:ssl|tls|https)[_-]?)?(?:verify|validate|check)"
    r"(?:[_-]?(?:ssl|tls|certs?|certificates?|hostname|peer|server))?"
    r"|(?:ssl|tls|cert|certificate)[_-]?(?:verify|verification|validation|check)"
)


def _names_old_version(node: ast.expr) -> bool:
    """Tell whether an expression's own text names SSL 2/3 or TLS 1.0/1.1 (before resolving)."""
    if isinstance(node, ast.Constant):
        text = node.value if isinstance(node.value, str) else ""
    elif isinstance(node, ast.Attribute):
        text = node.attr
    else:
        text = node.id if isinstance(node, ast.Name) else ""
    return "SSLv" in text or "TLSv1" in text


def _version_kind(value: Value) -> str | None:
    """``weak`` or ``strong`` for a value that names a protocol version; else ``None``.

    A constant (``ssl.PROTOCOL_TLSv1``, ``ssl.TLSVersion.TLSv1_2``, ``SSL.TLSv1_METHOD``)
    or its name as a string (``"PROTOCOL_SSLv3"``, which ``getattr(ssl, name)`` reads).
    """
    if isinstance(value, Ref):
        name = value.qualname
    elif isinstance(value, Const) and isinstance(value.value, str):
        text = value.value
        name = f"ssl.{text}" if text.startswith("PROTOCOL_") else f"OpenSSL.SSL.{text}"
    else:
        return None
    if name in t.WEAK_PROTOCOLS or name in t.WEAK_VERSIONS:
        return "weak"
    if name.startswith(("ssl.PROTOCOL_", "ssl.TLSVersion.")) or (
        name.startswith("OpenSSL.SSL.") and name.endswith(("_METHOD", "_VERSION"))
    ):
        return "strong"
    return None


def _target_name(target: ast.expr) -> str | None:
    """The name an assignment sets: ``x``, ``a.x`` or ``a["x"]``'s ``x``."""
    if isinstance(target, ast.Name):
        return target.id
    if isinstance(target, ast.Attribute):
        return target.attr
    if isinstance(target, ast.Subscript) and isinstance(target.slice, ast.Constant):
        return str(target.slice.value)
    return None


def _reads_verify_option(node: ast.expr, target: str) -> bool:
    """Tell whether ``node`` reads an option named for verification, as it is.

    ``config["ssl_check_hostname"]``, ``config.verify_certs``, ``opts.get("ssl_verify")``:
    not an attribute of ``self`` (the object's own state, followed as a value), and not
    one named as the ``target`` it is copied to (``ctx.check_hostname =
    spec.check_hostname``: a wrapper forwarding its own setting, not a user's option
    mapped to it).
    """
    name = None
    if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant):
        name = node.slice.value
    elif isinstance(node, ast.Attribute) and not (
        isinstance(node.value, ast.Name) and node.value.id in {"self", "cls"}
    ):
        name = node.attr
    elif (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "get"
        and node.args
        and isinstance(node.args[0], ast.Constant)
    ):
        name = node.args[0].value
    if not isinstance(name, str):
        return False
    low = name.lower()
    if low == target.lower():
        return False
    return bool(_VERIFY_OPTION.fullmatch(low) or _CERT_FLAG.fullmatch(low))


def _function_index(tree: ast.Module) -> tuple[list[_FunctionNode], dict[int, str]]:
    """The functions of a module (statements only, outer first), and each member's class."""
    functions: list[_FunctionNode] = []
    classes: dict[int, str] = {}  # id(member) -> its class's name
    stack: list[ast.stmt] = list(reversed(tree.body))
    while stack:
        node = stack.pop()
        if isinstance(node, ast.ClassDef):
            classes.update((id(member), node.name) for member in node.body)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            functions.append(node)
        for field in ("body", "orelse", "finalbody", "handlers"):
            inner = getattr(node, field, None)
            if isinstance(inner, list):
                stack.extend(reversed([n for n in inner if isinstance(n, ast.stmt)]))
                for handler in inner:
                    if isinstance(handler, ast.ExceptHandler):
                        stack.extend(reversed(handler.body))
    return functions, classes


def _innermost(functions: list[_FunctionNode], line: int) -> _FunctionNode | None:
    """The innermost function whose lines hold ``line`` (the latest to start)."""
    found = None
    for function in functions:
        holds = function.lineno <= line <= (function.end_lineno or function.lineno)
        if holds and (found is None or function.lineno >= found.lineno):
            found = function
    return found


def _called_name(call: ast.Call) -> str:
    func = call.func
    if isinstance(func, ast.Name):
        return func.id
    return func.attr if isinstance(func, ast.Attribute) else ""


def _same_function(tree: ast.Module, function: _FunctionNode) -> _FunctionNode | None:
    """Return ``function``'s node in ``tree`` (the whole file; it may come from a cut tree)."""
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
            and node.lineno == function.lineno
            and node.name == function.name
        ):
            return node
    return None


def _calls_function(call: ast.Call, function: _FunctionNode, owner: str | None) -> bool | None:
    """Tell whether ``call`` calls ``function``: ``None`` if not, else whether bound (a method).

    By plain name (a module function), ``self.name``/``cls.name`` (a method), or the class's
    name (its ``__init__``).
    """
    func = call.func
    if owner is None:
        return False if isinstance(func, ast.Name) and func.id == function.name else None
    if function.name == "__init__":
        return True if isinstance(func, ast.Name) and func.id == owner else None
    if (
        isinstance(func, ast.Attribute)
        and func.attr == function.name
        and isinstance(func.value, ast.Name)
        and func.value.id in {"self", "cls"}
    ):
        return True
    return None


def _carried_default(
    given: ast.expr, caller: _FunctionNode, default: object
) -> tuple[str | None, ast.expr] | None:
    """Where a caller's argument carries ``default``: its parameter (if one) and the default.

    ``verify`` of a caller ``def __init__(self, verify=False)``, or ``opts.get("verify",
    False)``; the value must be ``default`` itself (same type and value).
    """
    if isinstance(given, ast.Name):
        args = caller.args
        positional = [*args.posonlyargs, *args.args]
        first = len(positional) - len(args.defaults)
        pairs = list(zip(positional[first:], args.defaults, strict=True))
        pairs += [
            (a, d) for a, d in zip(args.kwonlyargs, args.kw_defaults, strict=True) if d is not None
        ]
        for arg, value in pairs:
            if arg.arg == given.id and _same_constant(value, default):
                return arg.arg, value
        return None
    if (
        isinstance(given, ast.Call)
        and isinstance(given.func, ast.Attribute)
        and given.func.attr == "get"
        and len(given.args) == 2
        and isinstance(given.args[0], ast.Constant)
        and _same_constant(given.args[1], default)
    ):
        return None, given.args[1]
    return None


def _same_constant(node: ast.expr, value: object) -> bool:
    return (
        isinstance(node, ast.Constant) and type(node.value) is type(value) and node.value == value
    )


def _self_store_counts(cls: ast.ClassDef) -> dict[str, int]:
    """Count the stores to each ``self.<attr>`` in a class (assignments of any kind, ``del``)."""
    counts: dict[str, int] = {}
    for node in ast.walk(cls):
        if (
            isinstance(node, ast.Attribute)
            and not isinstance(node.ctx, ast.Load)
            and isinstance(node.value, ast.Name)
            and node.value.id == "self"
        ):
            counts[node.attr] = counts.get(node.attr, 0) + 1
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id == "setattr"
            and node.args
            and isinstance(node.args[0], ast.Name)
            and node.args[0].id == "self"
        ):
            counts[""] = 2  # ``setattr(self, name, ...)``: any attribute may change
    if counts.get("") == 2:
        return {}
    return counts


def _imported_names(body: list[ast.stmt]) -> list[str]:
    """The names the import statements of a block bind (``import a.b`` binds ``a``)."""
    return [
        alias.asname or alias.name.split(".")[0]
        for stmt in body
        if isinstance(stmt, ast.Import | ast.ImportFrom)
        for alias in stmt.names
    ]


def _or_operands(node: ast.expr) -> list[ast.expr]:
    """The flags OR-ed together in ``A | B | C`` (the expression itself if it is not an OR)."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        return [*_or_operands(node.left), *_or_operands(node.right)]
    return [node]


def _handler(node_type: type) -> Callable[[Analyzer, Any], None]:
    name = re.sub(r"(?<!^)([A-Z])", r"_\1", node_type.__name__).lower()
    found: Callable[[Analyzer, Any], None] = getattr(
        Analyzer, f"_visit_{name}", Analyzer.generic_visit
    )
    _HANDLERS[node_type] = found
    return found
