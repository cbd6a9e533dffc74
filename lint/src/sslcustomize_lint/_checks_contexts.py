"""Checks of ``ssl`` and pyOpenSSL contexts (SSC2xx).

Their creation, their settings, and their first use by a client.
"""

from __future__ import annotations

import ast
import re

from sslcustomize_lint import _tables as t
from sslcustomize_lint._callbacks import (
    _VERIFY_FLAGS,
    _always_true,
    _factory_product,
    _FunctionNode,
    _keyword_value,
    _or_operands,
    _returns_true_always,
    _swallowed_cert_error,
)
from sslcustomize_lint._core import (
    _CONTEXT_KEYWORDS,
    _SERVER_CALLS,
    _is_server_call,
    _KwMap,
)
from sslcustomize_lint._family import CallSite, Family, register
from sslcustomize_lint._values import (
    ContextState,
    Instance,
    Method,
    Ref,
    Value,
)
from sslcustomize_lint._valuetests import (
    _is_cert_none,
    _is_const,
)

__all__ = ["_MODE_FLAGS", "ContextChecks"]

_PEER = frozenset({"OpenSSL.SSL.VERIFY_PEER"})
# A receiver-less ``set_verify``'s mode that names a pyOpenSSL flag (not a bare 0).
_MODE_FLAGS = _VERIFY_FLAGS | t.CERT_NONE_NAMES

# Words of a host-name check after a pyOpenSSL handshake (service_identity's
# ``verify_hostname``, a ``match_hostname`` of its own, OpenSSL's ``X509_VERIFY_PARAM_set1_host``
# through the bindings, or the peer certificate's names read and compared): where the file
# holds one, the name is taken to be checked.
_NAME_CHECK_WORDS = (
    b"verify_hostname",
    b"match_hostname",
    b"service_identity",
    b"set1_host",
    b"get_subject",
    b"commonName",
    b"subjectAltName",
    b"DNSName",
    b"X509_check_host",
)


# A function named as an info callback (``info_callback``, Twisted's
# ``_identityVerifyingInfoCallback``).
_INFO_CALLBACK_DEF = re.compile(rb"def\s+(\w*(?:InfoCallback|info_callback)\w*)\s*\(")

# How many bindings, partials and factories a callback argument is followed through.
_BINDINGS_FOLLOWED = 3

TYPE_CHECKING = False  # not typing's: the lint command does not import typing
if TYPE_CHECKING:
    from sslcustomize_lint._analyzer import Analyzer


@register
class ContextChecks(Family):
    """Checks of ``ssl`` and pyOpenSSL contexts (SSC2xx)."""

    def visit_call(self, site: CallSite) -> None:
        """Follow the contexts a call makes, configures or is given."""
        self._check_contexts(site)
        if site.attr == "set_info_callback" and site.args:
            # An info callback that logs a failed name check and goes on keeps the connection.
            function = self.callback_function(site.args[0])
            if function is not None and _swallowed_cert_error(function) is not None:
                self._info_callbacks.add(function)
                self.core.weaken(None, "SSC208", site.node)

    def _finish_info_callbacks(self) -> None:
        """A method named as an info callback that swallows a failed name check.

        Twisted's ``ClientTLSOptions`` checks the host name in its
        ``_identityVerifyingInfoCallback``; a subclass that overrides it and only logs the
        ``CertificateError`` keeps every connection. Reported at the ``except`` clause, unless
        it was reported where it is handed to ``set_info_callback``.
        """
        source = self.core.source
        if source is None or not (b"InfoCallback" in source or b"info_callback" in source):
            return
        for match in _INFO_CALLBACK_DEF.finditer(source):
            function = self.core.function_named(match.group(1).decode("ascii"))
            if function is None or function in self._info_callbacks:
                continue
            handler = _swallowed_cert_error(function)
            if handler is not None:
                self.core.report("SSC208", handler)

    def __init__(self, core: Analyzer) -> None:
        super().__init__(core)
        # Info callbacks reported where they are handed to ``set_info_callback``.
        self._info_callbacks: set[ast.AST] = set()

    def finish_contexts(self) -> None:
        self._finish_info_callbacks()
        for state in self.core.contexts.values():
            if state.optout:
                continue
            server = state.server and not state.client
            if state.origin == "client_auth":
                if state.client and not state.server:
                    self.core.report("SSC207", state.node)
                continue
            repaired = state.mode_required and state.hostname_on
            if state.client:
                repaired = not state.used_unrepaired
            if state.origin == "unverified" and not server and not repaired:
                # Repaired halfway (``CERT_REQUIRED`` without the name check): SSC206.
                chain_only = state.used_chain_only if state.client else state.chain_only()
                self.core.report("SSC206" if chain_only else "SSC203", state.node)
            if server or state.origin == "server":
                continue
            self._finish_client_context(state)

    def _finish_pyopenssl_context(self, state: ContextState, *, quiet: bool) -> None:
        if not quiet:
            for code, node in state.weakenings:
                self.core.report(code, node)
        if state.client and not state.verified and not state.weakenings:
            self.core.report("SSC209", state.node)
        elif state.client and state.peer_verify and not state.weakenings and not quiet:
            source = self.core.source
            if source is not None and not any(word in source for word in _NAME_CHECK_WORDS):
                self.core.report("SSC210", state.node)  # the chain is checked, the name never

    def _finish_client_context(self, state: ContextState) -> None:
        # Decided per context: a context handed to a client is a client's, whatever else the
        # function does; otherwise server hints around it keep it quiet.
        quiet = not state.client and (state.server_hint or self.core.has_server_hints(state.scope))
        if state.origin == "pyopenssl":
            self._finish_pyopenssl_context(state, quiet=quiet)
            return
        for code, node in state.weakenings:
            self.core.report(code, node)
        if state.origin != "bare" or quiet:
            return
        if not (state.verified or state.weakenings):
            self.core.report("SSC204", state.node)
        elif state.mode_required and not state.hostname_on and not state.weakenings:
            self.core.report("SSC206", state.node)

    def _check_contexts(self, site: CallSite) -> None:
        node, qualname, attr, callee, args, kwmap = (
            site.node,
            site.qualname,
            site.attr,
            site.callee,
            site.args,
            site.kwmap,
        )
        self._check_context_factories(node, qualname, kwmap)
        if isinstance(callee, Method) and isinstance(callee.receiver, Instance):
            self._context_method(callee.receiver, attr, args, kwmap)
        if not self.core.contexts and not self.core.in_compare:
            # No context followed yet, so no argument is one: a context made in an argument
            # (``f(ssl.create_default_context())``) was registered when that call was visited.
            return
        # An unknown callee by the name it is written with (``start_server(...)``).
        self._follow_context_arguments(attr or _written_name(node.func), args, kwmap)

    def _check_context_factories(self, node: ast.Call, qualname: str | None, kwmap: _KwMap) -> None:
        """The legacy opt-out, contexts made (followed from here), and ``ssl.wrap_socket``."""
        if qualname == "sslcustomize.create_legacy_context":
            self.core.report("SSC901", node)
        elif qualname in t.CONTEXT_FACTORIES and not self.core.in_compare:
            self.core.resolve(node)  # registers the context so that it is followed
        elif qualname == "ssl.wrap_socket":
            server = "server_side" in kwmap and _is_const(kwmap["server_side"][0], True)
            mode = kwmap.get("cert_reqs")
            if not server and (mode is None or _is_cert_none(mode[0])):
                self.core.report("SSC205", mode[1] if mode else node)

    def _follow_context_arguments(self, attr: str, args: list[ast.expr], kwmap: _KwMap) -> None:
        """A followed context given to a call: used by a server, or by a client.

        A context made in the call's argument (``foo(ssl.SSLContext(PROTOCOL_TLS))``) cannot be
        given a key and certificate to serve with, so a client will use it, unless the callee
        serves. ``SSL.Connection(ctx)`` of a pyOpenSSL context given no key or certificate is
        a client's too.
        """
        states = self._given_contexts(args, kwmap)
        if attr in _SERVER_CALLS:
            for state, _, _ in states:
                state.server = True
            return
        client_call = attr in t.CLIENT_CALLS
        serves = _is_server_call(attr)
        for state, keyword, node in states:
            by_keyword = keyword in _CONTEXT_KEYWORDS and not serves
            made_here = isinstance(node, ast.Call) and not serves and state.origin != "server"
            if client_call or by_keyword or made_here:
                state.use_by_client()
        if attr == "Connection" and args and states and states[0][2] is args[0]:
            first = states[0][0]
            if first.origin == "pyopenssl" and not first.server_hint:
                first.use_by_client()

    def _given_contexts(
        self, args: list[ast.expr], kwmap: _KwMap
    ) -> list[tuple[ContextState, str, ast.AST]]:
        """The followed contexts among a call's arguments, with their keyword and node."""
        given: list[tuple[Value, str, ast.AST]] = [(self.core.resolve(a), "", a) for a in args]
        given += [(v, k, _keyword_value(location)) for k, (v, location) in kwmap.items()]
        return [
            (value.context, keyword, node)
            for value, keyword, node in given
            if isinstance(value, Instance) and value.context is not None
        ]

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
            _wrapped(state, kwmap)
        elif attr == "load_cert_chain" and state.origin == "bare":
            state.server_hint = True  # most often a server; a client would set verify_mode
        elif attr.startswith(("use_certificate", "use_privatekey")):
            state.server_hint = True  # pyOpenSSL: a server's key and certificate
        elif attr == "set_verify" and (args or "mode" in kwmap):
            off = self.verify_off(args, kwmap)
            if off is not None:
                state.weakenings.append(("SSC208", off))
            else:
                state.verified = True  # VERIFY_PEER with a callback that checks, or unknown
                callback = args[1] if len(args) > 1 else kwmap.get("callback", (None, None))[1]
                state.peer_verify = self.names_flag(
                    args[0] if args else kwmap["mode"][1], _PEER
                ) and self._passes_verdict(None if callback is None else _keyword_value(callback))

    def verify_off(self, args: list[ast.expr], kwmap: _KwMap) -> ast.AST | None:
        """Return where a pyOpenSSL ``set_verify(mode, callback)`` turns verification off.

        Off: ``VERIFY_NONE``, or flags OR-ed without ``VERIFY_PEER``
        (``VERIFY_NONE | VERIFY_CLIENT_ONCE``; ``VERIFY_NONE`` is 0), or ``VERIFY_PEER`` with a
        callback that returns true whatever OpenSSL found. ``None``: verifying, or unknown.
        """
        mode = args[0] if args else _keyword_value(kwmap["mode"][1])
        flags = [self.core.resolve(flag) for flag in _or_operands(mode)]
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

    def _passes_verdict(self, callback: ast.AST | None) -> bool:
        """Tell whether a verify callback only hands back OpenSSL's verdict (or there is none).

        One that reads the certificate (a pin, a name compared) checks something of its own.
        """
        if callback is None or (isinstance(callback, ast.Constant) and callback.value is None):
            return True
        if isinstance(callback, ast.Lambda):
            function: ast.Lambda | _FunctionNode | None = callback
        elif isinstance(callback, ast.Attribute):
            function = self._attribute_callback(callback)
        else:
            name = callback.id if isinstance(callback, ast.Name) else None
            function = None if name is None else self.core.function_named(name)
        return function is not None and _returns_last_argument(function)

    def names_flag(self, mode: ast.AST, flags: frozenset[str]) -> bool:
        """Tell whether a ``set_verify`` mode names one of ``flags`` (alone or OR-ed)."""
        return any(
            isinstance(value, Ref) and value.qualname in flags
            for value in map(self.core.resolve, _or_operands(_keyword_value(mode)))
        )

    def _accepts_all(self, callback: ast.AST) -> bool:
        """Tell whether a verify callback accepts what OpenSSL or a name check refused.

        It returns true whatever the ``ok`` it is given, or it catches a failed name check
        (``CertificateError``) and goes on.
        """
        function = self.callback_function(callback)
        if function is None:
            return False
        if isinstance(function, ast.Lambda):
            return _always_true(function.body)
        return _returns_true_always(function) or _swallowed_cert_error(function) is not None

    def callback_function(
        self, callback: ast.AST, depth: int = 0
    ) -> ast.Lambda | _FunctionNode | None:
        """Return the function a callback argument is, where this file shows it.

        A lambda; a function or method of the file by its name (``cb``, ``self.cb``,
        ``Verifier.accept``: a staticmethod or classmethod alike); a name bound in the calling
        function to one of these; ``functools.partial(cb, ...)``; or what a factory of the file
        returns (``cb = self._make_cb(host)`` where ``_make_cb`` ends in ``return inner``).
        """
        if isinstance(callback, ast.Lambda):
            return callback
        if depth > _BINDINGS_FOLLOWED:
            return None
        if isinstance(callback, ast.Attribute):
            return self._attribute_callback(callback)
        if isinstance(callback, ast.Name):
            name = callback.id
            function = self.core.function_named(name)
            if function is not None:
                return function
            bound = _bound_in(self.core.function, name)
            return None if bound is None else self.callback_function(bound, depth + 1)
        return self._made_callback(callback, depth) if isinstance(callback, ast.Call) else None

    def _attribute_callback(self, callback: ast.Attribute) -> _FunctionNode | None:
        """The method ``self.cb``, ``cls.cb`` or ``Verifier.cb`` names, through its class.

        Through the class of the calling method (or the named class) and its bases in this
        file, not the file's last function of that name: two classes may each have a ``cb``.
        Another receiver (``obj.cb``) is still looked up by name alone.
        """
        receiver = callback.value.id if isinstance(callback.value, ast.Name) else ""
        return self.core.method_named(receiver, callback.attr)

    def _made_callback(self, call: ast.Call, depth: int) -> ast.Lambda | _FunctionNode | None:
        """The callback a call makes: a ``functools.partial`` of one, or a factory's product."""
        callee = self.core.resolve(call.func)
        if isinstance(callee, Ref) and callee.qualname == "functools.partial":
            first = call.args[0] if call.args else None
            return None if first is None else self.callback_function(first, depth + 1)
        factory = self.callback_function(call.func, depth + 1)
        return None if isinstance(factory, ast.Lambda | None) else _factory_product(factory)


def _bound_in(scope: ast.AST, name: str) -> ast.expr | None:
    """Return the value last assigned to ``name`` by a plain ``name = value`` in a function.

    Only in the function's own body (not in functions nested in it); ``None`` when the
    scope is the module or nothing binds the name so.
    """
    if not isinstance(scope, ast.FunctionDef | ast.AsyncFunctionDef):
        return None
    bound = None
    stack: list[ast.AST] = list(scope.body)
    while stack:
        node = stack.pop(0)
        if (
            isinstance(node, ast.Assign)
            and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name)
            and node.targets[0].id == name
        ):
            bound = node.value
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda | ast.ClassDef):
            stack.extend(ast.iter_child_nodes(node))
    return bound


def _wrapped(state: ContextState, kwmap: _KwMap) -> None:
    """``ctx.wrap_socket(...)``: a server's if ``server_side=True``, a client's if it says so."""
    side = kwmap.get("server_side")
    if side is not None and _is_const(side[0], True):
        state.server = True
    elif (side is not None and _is_const(side[0], False)) or "server_hostname" in kwmap:
        state.use_by_client()


def _written_name(func: ast.expr) -> str:
    """The last name a callee is written with: ``f`` in ``f(...)``, ``g`` in ``a.g(...)``."""
    if isinstance(func, ast.Name):
        return func.id
    return func.attr if isinstance(func, ast.Attribute) else ""


def _returns_last_of_rest(function: ast.Lambda) -> bool:
    """Tell whether a lambda is ``lambda *args: args[-1]``."""
    rest, last = function.args.vararg, function.body
    return (
        rest is not None
        and isinstance(last, ast.Subscript)
        and isinstance(last.value, ast.Name)
        and last.value.id == rest.arg
        and isinstance(last.slice, ast.UnaryOp)
        and isinstance(last.slice.op, ast.USub)
        and isinstance(last.slice.operand, ast.Constant)
        and last.slice.operand.value == 1
    )


def _returns_last_argument(function: ast.Lambda | _FunctionNode) -> bool:
    """Tell whether a callback returns its last argument (``ok``) and never reads the others."""
    names = [a.arg for a in (*function.args.posonlyargs, *function.args.args)]
    if not names:
        return isinstance(function, ast.Lambda) and _returns_last_of_rest(function)
    body = [function.body] if isinstance(function, ast.Lambda) else function.body
    read = {
        node.id
        for stmt in body
        for node in ast.walk(stmt)
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load)
    }
    if read & set(names[:-1]):
        return False
    if isinstance(function, ast.Lambda):
        return isinstance(function.body, ast.Name) and function.body.id == names[-1]
    returns = [node for stmt in body for node in ast.walk(stmt) if isinstance(node, ast.Return)]
    return bool(returns) and all(
        isinstance(r.value, ast.Name) and r.value.id == names[-1] for r in returns
    )
