"""The analyzer's state, its findings, and the resolution of names and values.

Every rule family (``_checks_*``) shares these; ``_analyzer.Analyzer`` walks the module.
"""

from __future__ import annotations

import ast
import builtins
import contextlib
import itertools
import re
from bisect import bisect_left
from collections.abc import Iterator

from sslcustomize_lint import _tables as t
from sslcustomize_lint._callbacks import (
    _FunctionNode,
    _keyword_value,
    _method_through_class,
)
from sslcustomize_lint._commands import Token, tokens_of
from sslcustomize_lint._evaluation import (
    _BINARY,
    _COMPARE,
    _EMPTY_COLLECTIONS,
    _EMPTY_CONSTRUCTORS,
    _ENUM_KINDS,
    _UNARY,
    _constant_result,
)
from sslcustomize_lint._overridden import default_positions, overridden_defaults
from sslcustomize_lint._pinning import PINNABLE, name_checked_lines, pinned_lines
from sslcustomize_lint._prefilter import hot_lines, is_tls_name
from sslcustomize_lint._siblings import (
    may_keep_weak_defaults,
    sibling_constants,
    sibling_definition,
    sibling_dict,
)
from sslcustomize_lint._values import (
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
from sslcustomize_lint._valuetests import (
    _TESTS,
    _env_insecure,
    _is_cert_none,
    _is_const,
    _param,
    _ref_in,
    _str,
)

__all__ = [
    "_BASE",
    "_CHILD_FIELDS",
    "_CONTEXT_KEYWORDS",
    "_ENVIRONS",
    "_LEAVES",
    "_PROCESS_METHODS",
    "_SERVER_CALLS",
    "_SESSION_TYPES",
    "_UNVERIFYING_WORDS",
    "_VERIFYING_FACTORY_WORDS",
    "_VERIFYING_MODES",
    "_WEAKENING_WORDS",
    "_WEAK_METHODS",
    "AnalyzerCore",
    "RawFinding",
    "_KwMap",
    "_ParamSink",
    "_Scope",
    "_Sibling",
    "_argument_for",
    "_attribute_owner",
    "_callee_name",
    "_calls",
    "_child_fields",
    "_class_kind",
    "_empty_dict_at",
    "_entry_node",
    "_flag_names",
    "_is_self",
    "_is_server_call",
    "_is_warning_class",
    "_located",
    "_location",
    "_name_of",
    "_option_name",
    "_parameter_names",
    "_reads_user_option",
    "_sessionish",
    "_settle",
    "_spec_default",
    "_starttls_spec",
    "_tokens",
    "constructed_attributes",
    "defaulted_parameters",
    "foreign_dict",
    "foreign_value",
    "negated_option",
    "overridden_attributes",
    "unrelated",
]

RawFinding = tuple[str, int, int]  # code, line, 1-based column


class _Sibling:
    """A name imported from a sibling module, until it is used (see ``Analyzer._settle``).

    Most imported names are never looked up, and reading a sibling file for them is a tenth
    of the analysis on a site-packages tree.
    """

    __slots__ = ("fallback", "name", "node", "path")

    def __init__(self, path: str, name: str, node: ast.AST, fallback: Value = UNKNOWN) -> None:
        self.path = path
        self.name = name
        self.node = node
        # What the name is when the module gives it no literal: ``Ref("pkg.mod.name")`` for
        # an absolute import (``from mypkg.settings import VERIFY``), so that a package's own
        # classes keep their qualified names.
        self.fallback = fallback

    def read(self) -> Value:
        """Return the name's value: a literal or an option dict the sibling module assigns it.

        A dict's entries are located at the import: a finding about one points where the
        dict is used in this module (see ``AnalyzerCore._keywords``).
        """
        text = sibling_constants(self.path, (self.name,)).get(self.name)
        if text is not None:
            return _constant(text, self.node)
        found = sibling_dict(self.path, self.name)
        if found is not None:
            return foreign_dict(found, self.node)
        return self.fallback


def foreign_value(node: ast.AST, at: ast.AST) -> Value:
    """The value of an expression written in another module, for the literals rules test.

    The other module's names are not known here: only constants (``False``, ``0``, ``""``),
    ``not`` of one, and ``ssl``'s constants by their own names (``ssl.CERT_NONE``,
    ``CERT_NONE``, ``ssl.PROTOCOL_TLSv1``) are read; ``at`` is where a finding points.
    """
    if isinstance(node, ast.Constant):
        return Const(node.value, at)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        inner = foreign_value(node.operand, at)
        return Const(not inner.value, at) if isinstance(inner, Const) else UNKNOWN
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.insert(0, node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return UNKNOWN
    if node.id == "ssl" and parts:
        return Ref(t.normalize(".".join(["ssl", *parts])))
    if not parts and node.id.startswith(_SSL_CONSTANT_PREFIXES):
        return Ref(t.normalize(f"ssl.{node.id}"))  # ``from ssl import CERT_NONE``
    return UNKNOWN


# ``ssl``'s constants that rules test, by the prefix of their names.
_SSL_CONSTANT_PREFIXES = ("CERT_", "PROTOCOL_", "OP_")


def foreign_dict(node: ast.Dict | ast.Call, at: ast.AST) -> DictVal:
    """An option dict written in another module (a display or ``dict(...)``) as a value."""
    entries: dict[str, Value] = {}
    if isinstance(node, ast.Dict):
        for key, value in zip(node.keys, node.values, strict=True):
            if isinstance(key, ast.Constant) and isinstance(key.value, str):
                entries[key.value] = foreign_value(value, at)
    else:
        for keyword in node.keywords:
            if keyword.arg is not None:
                entries[keyword.arg] = foreign_value(keyword.value, at)
    unknown = isinstance(node, ast.Call) and any(k.arg is None for k in node.keywords)
    spread = isinstance(node, ast.Dict) and any(key is None for key in node.keys)
    return DictVal(entries, at, has_unknown=unknown or spread)


def constructed_attributes(cls: ast.ClassDef, call: ast.Call) -> dict[str, Value]:
    """The attributes an instance keeps from its constructor's defaults, for one construction.

    ``class Settings: def __init__(self, url, verify_ssl=False): self.verify_ssl = verify_ssl``
    made as ``Settings(url)`` keeps ``verify_ssl`` False; a dataclass keeps its fields'
    defaults. A parameter the call gives (by keyword or position) is the caller's; a call
    that spreads ``*args`` or ``**kwargs`` gives unknown ones, so nothing is kept. Values are
    read as ``foreign_value`` reads them, located at the call.
    """
    if any(isinstance(a, ast.Starred) for a in call.args) or any(
        k.arg is None for k in call.keywords
    ):
        return {}
    params, stored = _constructor(cls)
    given = {k.arg for k in call.keywords} | set(params[: len(call.args)])
    found: dict[str, Value] = {}
    for attr, (param, default) in stored.items():
        if param not in given and default is not None:
            value = foreign_value(default, call)
            if value is not UNKNOWN:
                found[attr] = value
    return found


def defaulted_parameters(cls: ast.ClassDef, call: ast.Call) -> list[tuple[str, Value]]:
    """The parameters a construction leaves to the defaults the instance keeps, with them.

    As ``constructed_attributes``, by parameter name: ``Tls()`` of ``class Tls: def
    __init__(self, validate=ssl.CERT_NONE): self.validate = validate`` gives
    ``[("validate", ssl.CERT_NONE)]``, located at the call.
    """
    if any(isinstance(a, ast.Starred) for a in call.args) or any(
        k.arg is None for k in call.keywords
    ):
        return []
    params, stored = _constructor(cls)
    given = {k.arg for k in call.keywords} | set(params[: len(call.args)])
    return [
        (param, foreign_value(default, call))
        for param, default in stored.values()
        if param not in given and default is not None
    ]


def overridden_attributes(node: ast.ClassDef) -> frozenset[str]:
    """The attributes a class sets on ``self`` and the keywords it gives its base's ``__init__``."""
    names: set[str] = set()
    for item in ast.walk(node):
        if (
            isinstance(item, ast.Attribute)
            and isinstance(item.ctx, ast.Store)
            and _is_self(item.value)
        ):
            names.add(item.attr)
        elif (
            isinstance(item, ast.Call)
            and isinstance(item.func, ast.Attribute)
            and item.func.attr == "__init__"
        ):
            names.update(keyword.arg for keyword in item.keywords if keyword.arg is not None)
    return frozenset(names)


def weak_defaults(cls: ast.ClassDef) -> bool:
    """Tell whether a class keeps a false or ``CERT_NONE`` constructor default on ``self``."""
    for _, default in _constructor(cls)[1].values():
        value = foreign_value(default, cls) if default is not None else UNKNOWN
        if (isinstance(value, Const) and value.value in (False, "")) or _ref_in(
            value, t.CERT_NONE_NAMES
        ):
            return True
    return False


def _constructor(cls: ast.ClassDef) -> tuple[list[str], dict[str, tuple[str, ast.expr | None]]]:
    """A class's positional parameters after ``self``, and the attributes stored from them.

    Each attribute maps to its parameter and the parameter's default; an attribute set more
    than once in ``__init__`` is left out (which value it keeps depends on the path taken).
    """
    init = next(
        (s for s in cls.body if isinstance(s, ast.FunctionDef) and s.name == "__init__"), None
    )
    if init is None:
        if not any(_written_name(d).endswith("dataclass") for d in cls.decorator_list):
            return [], {}
        fields = [
            s for s in cls.body if isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name)
        ]
        names = [f.target.id for f in fields if isinstance(f.target, ast.Name)]
        return names, {name: (name, f.value) for name, f in zip(names, fields, strict=True)}
    args = init.args
    positional = [a.arg for a in (*args.posonlyargs, *args.args)][1:]
    defaults: dict[str, ast.expr | None] = dict.fromkeys(positional)
    firsts = [*args.posonlyargs, *args.args]
    for arg, default in zip(firsts[len(firsts) - len(args.defaults) :], args.defaults, strict=True):
        defaults[arg.arg] = default
    for arg, kw_default in zip(args.kwonlyargs, args.kw_defaults, strict=True):
        defaults[arg.arg] = kw_default
    stored: dict[str, tuple[str, ast.expr | None]] = {}
    twice: set[str] = set()
    for node in ast.walk(init):
        if not isinstance(node, ast.Assign | ast.AnnAssign):
            continue
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        for target in targets:
            if isinstance(target, ast.Attribute) and _is_self(target.value):
                if target.attr in stored or target.attr in twice:
                    twice.add(target.attr)
                    stored.pop(target.attr, None)
                elif isinstance(node.value, ast.Name) and node.value.id in defaults:
                    stored[target.attr] = (node.value.id, defaults[node.value.id])
                else:
                    twice.add(target.attr)  # set from something else: not the parameter
    return positional, stored


def _written_name(node: ast.expr) -> str:
    """The last name of a decorator: ``dataclass`` of ``@dataclasses.dataclass(frozen=True)``."""
    if isinstance(node, ast.Call):
        node = node.func
    if isinstance(node, ast.Attribute):
        return node.attr
    return node.id if isinstance(node, ast.Name) else ""


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


def _entry_node(node: ast.AST, key: str) -> ast.AST:
    """Return where a dict display or ``dict(...)`` writes ``key``'s value; else the dict."""
    if isinstance(node, ast.Dict):
        for name, value in zip(node.keys, node.values, strict=True):
            if isinstance(name, ast.Constant) and name.value == key:
                return value
    elif isinstance(node, ast.Call):
        for keyword in node.keywords:
            if keyword.arg == key:
                return keyword
    return node


def _empty_display(node: ast.AST) -> bool:
    return isinstance(node, ast.List | ast.Tuple) and not node.elts


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
# The note of a weakening inside a caller's opt-out branch (the configurable-weakening family).
_CONFIGURABLE = "SSC801"
# The tests of a flag whose false value turns verification off.
_OFF_TESTS = frozenset({"false", "falsy", "falsy_or_none"})

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


# ``def name():`` followed by ``return CONSTANT``, or ``name = lambda: CONSTANT``.
_CONSTANT_FUNCTION = re.compile(
    rb"^[ \t]*(?:def (\w+)\(\)[^:\n]*:[ \t]*\n"
    rb"(?:[ \t]+(?:\"\"\"[^\n]*\"\"\"|'[^'\n]*'|\"[^\"\n]*\")[ \t]*\n)?"  # a one-line docstring
    rb"[ \t]+return|(\w+) = lambda:)[ \t]+([^\n#;]+)",
    re.MULTILINE,
)


def _constant_functions(source: bytes) -> dict[str, object]:
    """The functions of a file that take nothing and return one literal, by name.

    A name defined twice with different results, or whose result is not a plain literal
    (``True``, ``0``, ``""``, ``None``), is left out.
    """
    found: dict[str, object] = {}
    clashes: set[str] = set()
    for match in _CONSTANT_FUNCTION.finditer(source):
        name = (match.group(1) or match.group(2)).decode("ascii", "replace")
        try:
            value = ast.literal_eval(match.group(3).decode("utf-8").strip())
        except (ValueError, SyntaxError, UnicodeDecodeError, MemoryError, RecursionError):
            clashes.add(name)
            continue
        literal = isinstance(value, bool | int | float | str | bytes | type(None))
        if not literal or (name in found and found[name] != value):
            clashes.add(name)
        found[name] = value
    return {name: value for name, value in found.items() if name not in clashes}


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


# Words every verification-off query flag of a connection URL holds (see ``_tables``).
_URL_FLAG_WORDS = (b"cert_req", b"tlsallowinvalid", b"tlsinsecure")


class AnalyzerCore:
    """The state of one module's analysis, and the resolution every rule family uses."""

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
        self.in_compare = 0
        # >0 inside a branch that runs only when a caller opts out through a parameter.
        self._optout = 0
        self.defs: dict[str, ast.AST] = {}  # function name -> its latest definition
        # A sink fed by a parameter; its callers are checked (see ``_ParamSink``).
        self._param_sinks: list[_ParamSink] = []
        # A class's ``__init__`` parameters stored as ``self.x`` (by identity): the class's
        # name and its ``__init__``, whose callers are the class's constructions.
        self._init_params: dict[int, tuple[str, _FunctionNode]] = {}
        self._class_names_by_attrs: dict[int, str] = {}  # id(class_attrs) -> the class's name
        # A module-level class's name -> its ``class_attrs``; and, by ``id(class_attrs)``,
        # those of its bases in this module with the attributes it overrides.
        self._module_class_attrs: dict[str, _Scope] = {}
        self._inherited: dict[int, tuple[list[_Scope], ast.ClassDef]] = {}
        self._overridden: dict[int, frozenset[str]] = {}  # by id(class_attrs), when asked
        # Defaults that reach a weakening, followed to the callers' own defaults
        # (``_finish_default_chains``): the function, its parameter, the default's value and
        # the code reported; and the function whose parameters a scope holds, by ``id``.
        self._chains: list[tuple[_FunctionNode, str, object, str]] = []
        self._scope_owner: dict[int, _FunctionNode] = {}
        # The same for a branch that a default takes (its first and last lines), kept if a
        # weakening is reported on them.
        self._branch_chains: list[tuple[_FunctionNode, str, object, tuple[int, int]]] = []
        # A class's stores to ``self.<attr>``, by ``id`` of its node (``_keep_init_constant``).
        self._self_stores: dict[int, dict[str, int]] = {}
        # Classes that constructions bound to a name are read from: the module's own, and
        # names imported from a sibling module (its file and the name there).
        self._class_nodes: dict[str, ast.ClassDef] = {}
        self._sibling_imports: dict[str, tuple[str, str]] = {}
        # A module of the package bound to a name (``import mypkg.x as x``): its file, and
        # the value the name holds while it is that module.
        self._sibling_modules: dict[str, tuple[str, Value]] = {}
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
        # Functions of the file that take nothing and return a constant (``_constant_return``).
        self._constant_functions: dict[str, object] | None = None
        self._not_constant: set[str] = set()  # names with no such definition in the source
        # a module-level class's name -> its body's names and its kind (see ``_class_member``)
        self._classes: dict[str, tuple[_Scope, str]] = {}
        self._cut_classes: dict[str, tuple[_Scope, str] | None] = {}  # read by ``_cut_class``
        self._class_names: dict[str, int] | None = None  # module-level ``class NAME``: offset
        self._url_flags: bool | None = None  # see ``may_hold_url_flags``
        self._pinned: set[int] | None = None  # see ``_pinning.pinned_lines``
        self._name_checked: set[int] | None = None  # see ``_pinning.name_checked_lines``
        self._given_defaults: set[tuple[int, int]] | None = None  # ``_overridden_default``
        self._default_sites: set[tuple[int, int]] | None = None  # ``_overridden_default``

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
            # So do classes whose instances keep a weak constructor default
            # (``self.transport = Transport(url)``, then ``self.transport.verify``).
            names.update(name.lower().encode() for name in self._weak_classes())
            self._hot = hot_lines(self.source, tuple(names))
        first = getattr(node, "lineno", 1) - 1
        last = getattr(node, "end_lineno", None) or len(self._hot)
        return any(self._hot[first:last])

    def _weak_classes(self) -> list[str]:
        """The names of this module's and imported sibling classes that keep a weak default."""
        found = [name for name, cls in self._class_nodes.items() if weak_defaults(cls)]
        for name, (path, original) in self._sibling_imports.items():
            if may_keep_weak_defaults(path):
                cls = sibling_definition(path, original)
                if isinstance(cls, ast.ClassDef) and weak_defaults(cls):
                    found.append(name)
        return found

    def may_hold_url_flags(self) -> bool:
        """Tell whether the module's text can spell a URL that turns verification off.

        Every such query flag (``ssl_cert_reqs=none``, MongoDB's ``tlsInsecure=true``...) holds
        one of these words; a module without them is not searched call by call (as a file
        without any rule word is not parsed at all: docs/lint.md, "Speed").
        """
        if self._url_flags is None:
            low = self.source.lower() if self.source is not None else None
            self._url_flags = low is None or any(word in low for word in _URL_FLAG_WORDS)
        return self._url_flags

    def report(self, code: str, node: ast.AST) -> None:
        """Record a finding at a node; inside a caller's opt-out branch, the note SSC801.

        A branch taken only when a caller opts out (see ``_visit_if``) implements the caller's
        choice: the caller's ``verify=False`` is the weakening, reported there; the branch is a
        configurable weakening, listed at note level by its own family.
        """
        if self._optout and code not in _ALWAYS:
            code = _CONFIGURABLE
        line = getattr(node, "lineno", 1)
        if code in PINNABLE:  # verification off where a pin is checked instead: not an opt-out
            if self._pinned is None:
                self._pinned = pinned_lines(self.tree, self.source)
            if line in self._pinned:
                return
        if code == "SSC202":  # the host name matched after the handshake: the check moved
            if self._name_checked is None:
                self._name_checked = name_checked_lines(self.tree, self.source)
            if line in self._name_checked:
                return
        col = getattr(node, "col_offset", 0) + 1
        if self._overridden_default(line, col):
            return  # a default that every call of the module gives: nobody gets it
        self.findings.add((code, line, col))

    def _overridden_default(self, line: int, col: int) -> bool:
        """Tell whether a finding is at a default that every call of the module gives.

        Only a position among the module's defaults (read from the analyzed tree, where the
        reported function is) asks ``overridden_defaults``, which reads the whole file: a
        call may sit in a function that the cut left out.
        """
        if self._default_sites is None:
            self._default_sites = default_positions(self.tree)
        if (line, col) not in self._default_sites:
            return False
        if self._given_defaults is None:
            self._given_defaults = overridden_defaults(self._whole_tree(), self.path)
        return (line, col) in self._given_defaults

    def weaken(self, state: ContextState | None, code: str, node: ast.AST) -> None:
        if self._optout:
            self.report(_CONFIGURABLE, node)
            return
        if state is not None:
            state.weakenings.append((code, node))
        elif not self.has_server_hints(self.function):
            self.report(code, node)

    def has_server_hints(self, scope: ast.AST) -> bool:
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

    def _check_env(self, key: Value, value: Value, node: ast.AST) -> None:
        name = _str(key)
        if name is None:
            return
        test = t.ENV_VARS.get(name.upper())
        if test is not None and _env_insecure(test, value):
            self.report("SSC303", node)

    def sink(
        self, test: str, value: Value, code: str, location: ast.AST, *, defaults: bool = True
    ) -> None:
        """Report a weakening value; remember a parameter so that its callers are checked.

        A flag given as an option turned around (``verify=not ignore_certs``) is a
        configurable weakening, noted as SSC801: off when the user asks for it.
        """
        if (
            test in _OFF_TESTS
            and not _TESTS[test](value)
            and negated_option(_keyword_value(location))
        ):
            self.report(_CONFIGURABLE, location)
            return
        if (defaults or not isinstance(value, Param)) and _TESTS[test](value):
            self.report(code, location)
            if isinstance(value, Param) and not self._optout:
                self.chain_default(value.name, code)
        elif isinstance(value, Param) and (owner := self._init_params.get(id(value))):
            self._param_sinks.append((owner[0], owner[1], value.name, test, code, True))
        elif isinstance(value, Param) and isinstance(
            self.function, ast.FunctionDef | ast.AsyncFunctionDef
        ):
            self._param_sinks.append(
                (self.function.name, self.function, value.name, test, code, False)
            )

    def chain_default(self, name: str, code: str, span: tuple[int, int] | None = None) -> None:
        """Follow the default of parameter ``name``, which reached a weakening, to callers.

        A caller that passes its own parameter with the same default, or an option looked up
        with it (``kwargs.get("verify", False)``), carries the library's default one level
        up: reported there too (see ``_finish_default_chains``). With ``span`` (a branch's
        lines), only if a weakening is reported there in the end (a context's is decided
        when the module is done), with its code.
        """
        for scope in reversed(self.scopes):
            if name in scope:
                value = scope[name]
                owner = self._scope_owner.get(id(scope))
                default = value.default if isinstance(value, Param) else None
                if owner is not None and isinstance(default, Const):
                    if span is None:
                        self._chains.append((owner, name, default.value, code))
                    else:
                        self._branch_chains.append((owner, name, default.value, span))
                return

    def check_env_dict(self, node: ast.Dict) -> None:
        for key, value in zip(node.keys, node.values, strict=True):
            if key is not None:
                self._check_env(self.resolve(key), self.resolve(value), key)

    def _keywords(self, keywords: list[ast.keyword]) -> tuple[_KwMap, bool]:
        kwmap: _KwMap = {}
        has_star = False
        for keyword in keywords:
            value = self.resolve(keyword.value)
            if keyword.arg is not None:
                kwmap[keyword.arg] = (value, _location(value, keyword))
            elif isinstance(value, DictVal):
                # A dict imported from a sibling module is reported where it is spread here.
                foreign = isinstance(value.node, ast.ImportFrom)
                for key, entry in value.entries.items():
                    where = keyword if foreign else _entry_node(value.node, key)
                    kwmap[key] = (entry, _location(entry, where))
                has_star = has_star or value.has_unknown
            else:
                has_star = True
        return kwmap, has_star

    def argument(
        self, args: list[ast.expr], kwmap: _KwMap, name: str, index: int
    ) -> tuple[Value, ast.AST] | None:
        """Return a call's argument by keyword, else by position (no ``*args`` before it)."""
        if name in kwmap:
            return kwmap[name]
        if 0 <= index < len(args) and not any(isinstance(a, ast.Starred) for a in args):
            value = self.resolve(args[index])
            return value, _location(value, args[index])
        return None

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
                self._cut_classes[name] = self._class_constants(node)
        return self._cut_classes[name]

    def _class_constants(self, node: ast.ClassDef) -> tuple[_Scope, str]:
        """A class's ``NAME = value`` lines and its kind (see ``_class_kind``)."""
        body: _Scope = {}
        for stmt in node.body:
            if (
                isinstance(stmt, ast.Assign)
                and len(stmt.targets) == 1
                and isinstance(stmt.targets[0], ast.Name)
            ):
                body[stmt.targets[0].id] = self._resolve_located(stmt.value)
        bases = [base for base in map(self.resolve, node.bases) if isinstance(base, Ref)]
        return body, _class_kind(bases)

    def _whole_tree(self) -> ast.Module:
        """Return the file's whole tree (the analyzed one may be cut), parsed at most once."""
        if self._whole is None:
            try:
                self._whole = ast.parse(self.source) if self.source is not None else self.tree
            except (SyntaxError, ValueError, RecursionError):
                self._whole = self.tree
        return self._whole

    def function_named(self, name: str) -> _FunctionNode | None:
        """Return the last function or method of this file named ``name``, cut or not."""
        found = self.defs.get(name)
        if isinstance(found, ast.FunctionDef | ast.AsyncFunctionDef) and self._hot is None:
            return found
        # A cut tree lacks functions without a rule word (a callback is one): read them from
        # the whole file, parsed once, only for the rare file that passes a callback by name.
        result = None
        for node in ast.walk(self._whole_tree()):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name == name:
                result = node
        return result

    def method_named(self, receiver: str, name: str) -> _FunctionNode | None:
        """Return the method ``receiver.name`` is, through its class when this file has it.

        ``self.cb`` in a method, ``cls.cb``, ``Verifier.cb``: that class's (or a base's of this
        file) definition; another receiver: the file's last function of that name.
        """
        known, method = _method_through_class(self._whole_tree(), receiver, name, self.function)
        return method if known else self.function_named(name)

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

    def resolve(self, node: ast.AST) -> Value:  # noqa: PLR0911 - one case per node type
        """Return what is known about the value of an expression."""
        if isinstance(node, ast.Name):  # the commonest first
            return self.lookup(node.id)
        if isinstance(node, ast.Constant):
            return Const(node.value, node)
        if isinstance(node, ast.Attribute):
            return self._resolve_attribute(node)
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

    def _resolve_attribute(self, node: ast.Attribute) -> Value:  # noqa: PLR0911 - per source
        """``self.x`` of the class, a class member, a module's name, or an object's method."""
        owner = node.value
        if (
            isinstance(owner, ast.Attribute)
            and self.class_attrs
            and _is_self(owner.value)
            and f"{owner.attr}.{node.attr}" in self.class_attrs
        ):  # ``self.transport.verify`` of ``self.transport = Transport(url)``
            key = f"{owner.attr}.{node.attr}"
            return _settle(self.class_attrs, key, self.class_attrs[key])
        if _is_self(node.value) and self.class_attrs is not None:
            if node.attr in self.class_attrs:
                return _settle(self.class_attrs, node.attr, self.class_attrs[node.attr])
            inherited = self._inherited_attribute(self.class_attrs, node.attr)
            if inherited is not None:
                return inherited
        if isinstance(node.value, ast.Name | ast.Attribute):
            member = self._member(node)
            if member is not None:
                return member
        if self._sibling_modules and isinstance(node.value, ast.Name):
            path = self.sibling_module(node.value.id)
            if path is not None:  # ``settings.VERIFY`` of ``from . import settings``
                return _Sibling(path, node.attr, node, UNKNOWN).read()
        base = self.resolve(node.value)
        if isinstance(base, Ref):
            return Ref(t.normalize(f"{base.qualname}.{node.attr}"))
        if isinstance(base, Instance):
            return Method(base.qualname, node.attr, base)
        return Method(None, node.attr, base)

    def sibling_module(self, name: str) -> str | None:
        """Return the file of the package's module that ``name`` holds here, if it does."""
        found = self._sibling_modules.get(name)
        if found is None or self.lookup(name) is not found[1]:
            return None
        return found[0]

    def _inherited_attribute(self, attrs: _Scope, name: str) -> Value | None:
        """Return ``self.name`` as a base class of this module stored it, if not overridden.

        See ``Analyzer._inherit_attributes``; bases are searched depth first, a simple MRO.
        """
        found = self._inherited.get(id(attrs))
        if found is None:
            return None
        value = None
        for base in found[0]:
            value = _settle(base, name, base[name]) if name in base else None
            value = value if value is not None else self._inherited_attribute(base, name)
            if value is not None:
                break
        if value is None:
            return None
        # Only now, for a name a base holds: which names the subclass sets itself.
        overridden = self._overridden.get(id(attrs))
        if overridden is None:
            overridden = self._overridden[id(attrs)] = overridden_attributes(found[1])
        return None if name in overridden else value

    def _resolve_dict(self, node: ast.Dict) -> DictVal:
        """A dict display: its string keys' values, and the entries of known dicts spread in."""
        entries: dict[str, Value] = {}
        for key, value in zip(node.keys, node.values, strict=True):
            if key is None:
                spread = self.resolve(value)
                if isinstance(spread, DictVal):
                    entries.update(spread.entries)
            elif isinstance(key, ast.Constant):
                if isinstance(key.value, str):
                    entries[key.value] = self._resolve_located(value)
            elif (name := self._static_str(key)) is not None:
                entries[name] = self._resolve_located(value)  # ``{"ver" + "ify": False}``
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
        if isinstance(node, ast.DictComp):
            return self._resolve_dict_comp(node)
        return UNKNOWN

    def _resolve_dict_comp(self, node: ast.DictComp) -> Value:
        """``{key: False for key in ("verify",)}``: keys from a literal, one value for all.

        Only a single loop with no condition over known strings, whose key is the loop's name
        and whose value does not read it.
        """
        if len(node.generators) != 1:
            return UNKNOWN
        loop = node.generators[0]
        if loop.ifs or loop.is_async or not isinstance(loop.target, ast.Name):
            return UNKNOWN
        name = loop.target.id
        keys = self.resolve(loop.iter)
        reads = any(isinstance(n, ast.Name) and n.id == name for n in ast.walk(node.value))
        if not (isinstance(node.key, ast.Name) and node.key.id == name) or reads:
            return UNKNOWN
        if not isinstance(keys, SeqVal) or not all(_str(k) is not None for k in keys.items):
            return UNKNOWN
        value = self._resolve_located(node.value)
        return DictVal({str(_str(k)): value for k in keys.items}, node)

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
            if isinstance(test, Const):
                return self.resolve(node.body if test.value else node.orelse)
            # A test on parameters: the branch the defaults take is the default path (the
            # other is the caller's opt-out), as for an ``if`` statement (``_visit_if``).
            truth = self._default_truth(node.test)
            if truth is None:
                return UNKNOWN
            return self.resolve(node.body if truth else node.orelse)
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
        if isinstance(node.op, ast.BitOr) and isinstance(left, DictVal):
            return self._union(left, right)
        return self._resolve_rest(node)

    @staticmethod
    def _union(left: DictVal, right: Value) -> Value:
        """``BASE | {"verify": False}``: the right one's entries win, as ``dict.__or__`` does."""
        if isinstance(right, DictVal):
            entries = {**left.entries, **right.entries}
            has_unknown = left.has_unknown or right.has_unknown
            return DictVal(entries, left.node, has_unknown=has_unknown)
        return UNKNOWN

    def _default_truth(self, test: ast.expr) -> bool | None:
        """A test's value with the parameters' defaults, if it reads one (see ``Analyzer``)."""
        return None

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

    def _resolve_call(self, node: ast.Call) -> Value:
        callee = self.resolve(node.func)
        if isinstance(callee, Ref):
            return self._resolve_call_of(callee.qualname, node)
        if isinstance(callee, Method):
            known = self._resolve_method_call(callee, node)
            if known is not None:
                return known
        if isinstance(node.func, ast.Name) and not (node.args or node.keywords):
            return self._constant_return(node.func.id, node)
        return UNKNOWN

    def _resolve_method_call(  # noqa: PLR0911 - one case per method
        self, callee: Method, node: ast.Call
    ) -> Value | None:
        """The value of ``"".join(...)``, ``d.copy()``, ``d.get(k, v)`` and the like, if known."""
        if callee.attr == "join" and node.args:
            if isinstance(node.args[0], ast.List | ast.Tuple):
                text = self._static_str(node)  # ``"_".join(["", "create", ...])``
                if text is not None:
                    return Const(text, node)
            joined = self.resolve(node.args[0])
            return joined if isinstance(joined, SeqVal) else UNKNOWN
        if callee.attr == "encode" and isinstance(callee.receiver, Const):
            return _encoded(callee.receiver, node)  # ``"ALL:@SECLEVEL=0".encode("utf-8")``
        if callee.attr in {"format", "split", "strip"}:
            return _param(callee.receiver) if _str(callee.receiver) is not None else UNKNOWN
        if callee.attr == "copy" and isinstance(callee.receiver, DictVal):
            return callee.receiver
        if callee.attr == "get" and len(node.args) == 2:
            return self._lookup_or_default(callee.receiver, node)
        if callee.attr.startswith("get") and node.keywords:
            # configparser's ``get``/``getboolean(section, option, fallback=False)``
            for keyword in node.keywords:
                if keyword.arg == "fallback":
                    known = self._resolve_located(keyword.value)
                    return known if isinstance(known, Const) else UNKNOWN
        return None

    def _constant_return(self, name: str, call: ast.Call) -> Value:
        """``insecure()`` of ``def insecure(): return False`` (or ``insecure = lambda: False``).

        Only a function of this file that takes nothing and whose first statement returns one
        constant: a trivial rewrite of the constant. Read from the source text, once per file.
        """
        if self._constant_functions is None:
            if name in self._not_constant:
                return UNKNOWN
            source, key = self.source or b"", name.encode()
            if b"def " + key + b"()" not in source and key + b" = lambda:" not in source:
                self._not_constant.add(name)  # most calls: no such definition, no table made
                return UNKNOWN
            self._constant_functions = _constant_functions(source)
        if name not in self._constant_functions:
            return UNKNOWN
        return Const(self._constant_functions[name], call)

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
        return self._resolve_other_call_of(name, node)

    def _resolve_other_call_of(self, name: str, node: ast.Call) -> Value:
        """``_resolve_call_of`` for the rest: ``shlex.split``, ``super()``, imports, builtins."""
        if name == "shlex.split" and node.args:
            return self.resolve(node.args[0])
        if name == "builtins.super" and self.class_attrs is not None:
            # ``super().cert_verify(...)`` in a subclass of ``HTTPAdapter``: the base's method
            return _settle(self.class_attrs, _BASE, self.class_attrs.get(_BASE, UNKNOWN))
        if name in _IMPORT_CALLS:
            return self._imported_module(name, node)
        if name in {"ssl.VerifyMode", "ssl.TLSVersion"} and len(node.args) == 1:
            return self._enum_by_value(name, node.args[0])
        if name.startswith("builtins."):
            return self._resolve_builtin_call(name, node)
        return UNKNOWN

    def _enum_by_value(self, name: str, arg: ast.expr) -> Value:
        """``ssl.VerifyMode(0)`` is ``CERT_NONE``, ``ssl.TLSVersion(0x0301)`` is ``TLSv1``."""
        number = self.resolve(arg)
        if name == "ssl.VerifyMode":
            return Ref("ssl.CERT_NONE") if _is_cert_none(number) else UNKNOWN
        if isinstance(number, Const) and type(number.value) is int:
            member = t.TLS_VERSION_NUMBERS.get(number.value)
            if member is not None:
                return Ref(f"ssl.TLSVersion.{member}")
        return UNKNOWN

    def _resolve_builtin_call(self, name: str, node: ast.Call) -> Value:
        """The value of a call of a builtin: ``getattr`` with a known name, empty constructors."""
        if name == "builtins.getattr" and len(node.args) >= 2:
            return self._resolve_getattr(node)
        if name in _EMPTY_CONSTRUCTORS and not node.args and not node.keywords:
            return Const(_EMPTY_CONSTRUCTORS[name], node)  # ``verify=bool()``, ``str()``
        if name in _EMPTY_COLLECTIONS and not node.args and not node.keywords:
            return SeqVal((), empty=True)  # ``verify=set()``, ``list()``: empty, so false
        if name in {"builtins.len", "builtins.bool"} and len(node.args) == 1 and not node.keywords:
            return self._resolve_len_or_bool(name, node)
        if name == "builtins.range" and not node.keywords:
            return self._resolve_range(node)
        return UNKNOWN

    def _resolve_range(self, node: ast.Call) -> Value:
        """``range(0)``, ``range(5, 5)``: a range of integer constants, empty (false) or not."""
        bounds = [self.resolve(arg) for arg in node.args]
        numbers = [b.value for b in bounds if isinstance(b, Const) and type(b.value) is int]
        if not 1 <= len(numbers) == len(bounds) <= 3 or (len(numbers) == 3 and not numbers[2]):
            return UNKNOWN
        start, stop, step = (0, *numbers, 1) if len(numbers) == 1 else (*numbers, 1)[:3]
        return Const(start < stop if step > 0 else start > stop, node)

    def _resolve_getattr(self, node: ast.Call) -> Value:
        """``getattr(base, name)``: the attribute of a known base, by a name known statically."""
        base, attr = self.resolve(node.args[0]), self._lookup_name(node.args[1])
        if isinstance(base, Ref) and attr:  # ``getattr(ssl, "_create_unverified_context")``
            return Ref(t.normalize(f"{base.qualname}.{attr}"))
        if isinstance(base, Ref) and base.qualname in _VERB_MODULES:
            # ``getattr(requests, verb)``: whichever verb, it is a request.
            return Ref(f"{base.qualname}.request")
        if len(node.args) == 3 and attr and not isinstance(base, Ref):
            # ``getattr(settings, "VERIFY_SSL", False)``: the value when nothing is set, as
            # ``d.get(key, default)``'s (``_lookup_or_default``)
            default = self._resolve_located(node.args[2])
            return default if isinstance(default, Const) else UNKNOWN
        return UNKNOWN

    def _resolve_len_or_bool(self, name: str, node: ast.Call) -> Value:
        """``len("")``, ``len([])`` and ``bool(0)`` of a literal; ``bool(os.getenv(NAME))``."""
        value = self.resolve(node.args[0])
        empty = isinstance(value, SeqVal) and value.empty and self._stays_empty(node.args[0])
        if name == "builtins.len":  # ``verify=len("")``, ``len(BUNDLES) > 0`` of ``[]``
            if isinstance(value, Const) and isinstance(value.value, str | bytes):
                return Const(len(value.value), node)
            return Const(0, node) if empty else UNKNOWN
        if empty:
            return Const(False, node)  # ``bool([])``
        if self._unset_environment(node.args[0]):
            # ``bool(os.environ.get("CA_BUNDLE"))``: ``None``, so false, when nothing is set
            return Const(False, node)
        # ``verify=bool(0)``
        return Const(bool(value.value), node) if isinstance(value, Const) else UNKNOWN

    def _stays_empty(self, node: ast.expr) -> bool:
        """Tell whether an empty list or tuple is still empty where ``node`` measures it.

        A literal is; a name only if the module does nothing else with it than bind it to an
        empty display and measure it (``len(NAME)``, ``bool(NAME)``): a list given to a call or
        changed in place anywhere, in any order, may not be empty when it is measured.
        """
        if not isinstance(node, ast.Name):
            return True
        allowed: set[int] = set()  # the names measured, and those bound to an empty display
        uses = []
        for item in ast.walk(self._whole_tree()):
            if isinstance(item, ast.Call) and isinstance(item.func, ast.Name):
                if item.func.id in {"len", "bool"} and len(item.args) == 1:
                    allowed.add(id(item.args[0]))
            elif isinstance(item, ast.Assign) and _empty_display(item.value):
                allowed.update(id(target) for target in item.targets)
            elif isinstance(item, ast.Name) and item.id == node.id:
                uses.append(item)
        return all(id(use) in allowed for use in uses)

    def _unset_environment(self, node: ast.expr) -> bool:
        """Tell whether an expression reads an environment variable without a default."""
        if not isinstance(node, ast.Call) or len(node.args) != 1 or node.keywords:
            return False
        callee = self.resolve(node.func)
        return isinstance(callee, Ref) and callee.qualname in {"os.getenv", "os.environ.get"}

    def _context(self, node: ast.Call, factory: str, origin: str) -> ContextState:
        state = self.contexts.get(node)
        if state is not None:
            return state
        origin = self._context_origin(node, factory, origin)
        state = ContextState(origin, node, scope=self.function, optout=self._optout > 0)
        if origin == "unverified":
            self._repaired_by_keywords(node, state)
        self.contexts[node] = state
        return state

    def _context_origin(self, node: ast.Call, factory: str, origin: str) -> str:
        """The kind of context a factory makes, from its protocol or purpose argument."""
        first = self.resolve(node.args[0]) if node.args else None
        for keyword in node.keywords:
            if keyword.arg in {"protocol", "purpose", "method"}:
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
        elif name == "OpenSSL.SSL.TLS_SERVER_METHOD":
            origin = "server"  # pyOpenSSL's method for a server only
        return origin

    def _repaired_by_keywords(self, node: ast.Call, state: ContextState) -> None:
        """An unverified factory's keywords that repair what it makes.

        ``_create_stdlib_context(cert_reqs=CERT_REQUIRED)`` verifies the chain; with
        ``check_hostname=True`` the names too (or raises, before gh-114905): repaired.
        """
        for keyword in node.keywords:
            value = self.resolve(keyword.value)
            if keyword.arg == "cert_reqs" and _ref_in(value, _VERIFYING_MODES):
                state.mode_required = True
            elif keyword.arg == "check_hostname" and _is_const(value, True):
                state.hostname_on = state.mode_required = True


def _encoded(text: Const, call: ast.Call) -> Value:
    """The bytes of ``"...".encode(encoding)`` when the text and the encoding are constants."""
    encoding = "utf-8"
    if call.args:
        given = call.args[0]
        if not (isinstance(given, ast.Constant) and isinstance(given.value, str)):
            return UNKNOWN
        encoding = given.value
    if not isinstance(text.value, str):
        return UNKNOWN
    try:
        return Const(text.value.encode(encoding), call)
    except (LookupError, UnicodeError):
        return UNKNOWN


# Words of a name or compared string that may be an option of verification (``verify``,
# ``validate_certs``, ``insecure``, ``ssl_context``, ``mode == "insecure"``); a test that reads
# none of them (``protocol == "http"``, ``transport == "rediss"``) is not an opt-out.
_OPTION_WORD = re.compile(
    r"verif|valid|cert|ssl|tls|secur|check|ignore|skip|trust|unsafe|strict|context|ctx|https"
    r"|hostname|pin|ca_|cafile|capath|disable|allow|mode|^no_|_no_|none|optional|require"
)


# URL schemes and transport names of TLS (``https``, ``rediss``, ``ldaps``, ``ssl``, ``tls``).
_SCHEME = re.compile(r"(https|wss|rediss|ldaps|amqps|mqtts|smtps|ftps|imaps|pop3s|ssl|tls)(://)?")


def unrelated(test: ast.expr) -> bool:
    """Tell whether a test reads no option of verification, by the names and strings it holds."""
    if _reads_user_option(test):
        return False
    words = [
        *_flag_names(test),
        *(
            n.value
            for n in ast.walk(test)
            if isinstance(n, ast.Constant)
            and isinstance(n.value, str)
            # ``scheme == "https"`` picks TLS itself, not whether it verifies: what a
            # default does inside that branch is the default of every TLS connection.
            and not _SCHEME.fullmatch(n.value.lower())
        ),
    ]
    return bool(words) and not any(_OPTION_WORD.search(word.lower()) for word in words)


def negated_option(node: ast.AST) -> bool:
    """Tell whether an argument is an option turned around: ``verify=not ignore_certs``."""
    if not (isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not)):
        return False
    operand = node.operand
    name = operand.id if isinstance(operand, ast.Name) else getattr(operand, "attr", None)
    return isinstance(name, str) and _OPTION_WORD.search(name.lower()) is not None
