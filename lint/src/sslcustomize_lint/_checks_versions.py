"""Checks of weak protocol versions, version bounds, options and cipher strings (SSC7xx)."""

from __future__ import annotations

import ast

from sslcustomize_lint import _tables as t
from sslcustomize_lint._callbacks import _keyword_value, _or_operands
from sslcustomize_lint._checks_contexts import _MODE_FLAGS
from sslcustomize_lint._core import (
    _WEAK_METHODS,
    _KwMap,
    _Scope,
    _settle,
)
from sslcustomize_lint._family import CallSite, Family, register
from sslcustomize_lint._values import (
    UNKNOWN,
    Const,
    Param,
    Ref,
    Value,
)
from sslcustomize_lint._valuetests import (
    _ref_in,
    _str,
    _weak_setting,
)

__all__ = ["VersionChecks"]

# OpenSSL's options that allow insecure legacy renegotiation (without RFC 5746), by name and
# by bit: ``SSL_OP_ALLOW_UNSAFE_LEGACY_RENEGOTIATION`` (0x40000) with any peer, and
# ``SSL_OP_LEGACY_SERVER_CONNECT`` (0x4) with unpatched servers, all a client talks to.
_LEGACY_RENEGOTIATION = frozenset(
    {"OP_ALLOW_UNSAFE_LEGACY_RENEGOTIATION", "OP_LEGACY_SERVER_CONNECT"}
)
_LEGACY_RENEGOTIATION_BITS = 0x40000 | 0x4


@register
class VersionChecks(Family):
    """Checks of weak protocol versions, version bounds, options and cipher strings (SSC7xx)."""

    def visit_call(self, site: CallSite) -> None:
        """Check a call that chooses a weak protocol version."""
        self._check_weak_tls(site)

    def check_class_versions(self, statements: list[ast.stmt], body: _Scope) -> None:
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
                    self.core.report(code, stmt)

    def check_default(self, name: str, value: Value, default: ast.expr) -> None:
        """A weak protocol as any parameter's default is a configuration choice.

        ``def open_ssl_socket(version=ssl.PROTOCOL_SSLv2)`` (or a lambda's) is reported here,
        once; the uses of the parameter are not reported again.
        """
        if _ref_in(value, t.WEAK_PROTOCOLS):
            self.core.report("SSC701", default)
        elif name in t.MIN_VERSION_KEYWORDS and _weak_setting(name, value):
            self.core.report("SSC702", default)

    def _check_weak_method(
        self, qualname: str | None, attr: str, args: list[ast.expr], kwmap: _KwMap
    ) -> None:
        """A method whose first argument sets a version bound, options, ciphers or a mode."""
        first = self.core.resolve(args[0])
        code = _WEAK_METHODS[attr]
        if code == "SSC208":
            if qualname is None:  # receiver unknown: set_verify(VERIFY_NONE) or the like
                off = self.core.context_rules.verify_off(args, kwmap)
                if off is not None and (
                    off is not args[0] or self.core.context_rules.names_flag(args[0], _MODE_FLAGS)
                ):
                    self.core.weaken(None, code, off)
        elif _weak_setting(attr, first):
            self.core.report(code, args[0])

    def legacy_renegotiation(self, options: ast.AST) -> bool:
        """Tell whether options OR-ed together allow unsafe legacy renegotiation.

        ``SSL_OP_ALLOW_UNSAFE_LEGACY_RENEGOTIATION`` (bit ``0x40000``) lets a connection
        renegotiate without RFC 5746, which CVE-2009-3555's prefix injection needs.
        ``OP_LEGACY_SERVER_CONNECT`` (``0x4``) does the same between a client and the servers
        that lack RFC 5746 (OpenSSL: "clients that are willing to connect to servers that do
        not implement RFC 5746 secure renegotiation are subject to attacks such as
        CVE-2009-3555"); OpenSSL 3 no longer sets it by default, and a client that sets it
        again takes that protection back.
        """
        for flag in _or_operands(options):
            if isinstance(flag, ast.Constant) and type(flag.value) is int:
                if flag.value & _LEGACY_RENEGOTIATION_BITS:
                    return True
                continue
            value = self.core.resolve(flag)
            if isinstance(value, Const) and type(value.value) is int:
                if value.value & _LEGACY_RENEGOTIATION_BITS:
                    return True
                continue
            name = value.qualname if isinstance(value, Ref) else _dotted(flag)
            if name and name.rsplit(".", 1)[-1].removeprefix("SSL_") in _LEGACY_RENEGOTIATION:
                return True
        return False

    def _check_m2crypto(self, args: list[ast.expr], kwmap: _KwMap) -> None:
        """``M2Crypto.SSL.Context("sslv3")``: a weak protocol by its name."""
        given: ast.AST | None = args[0] if args else None
        if given is None and "protocol" in kwmap:
            given = _keyword_value(kwmap["protocol"][1])
        name = _str(self.core.resolve(given)) if given is not None else None
        if given is not None and name is not None and name.lower() in t.M2CRYPTO_WEAK_PROTOCOLS:
            self.core.report("SSC701", given)

    def _check_weak_tls(self, site: CallSite) -> None:
        """Weak protocol versions, version bounds, options and cipher strings (SSC7xx)."""
        qualname, attr, args, kwmap = site.qualname, site.attr, site.args, site.kwmap
        if qualname == "M2Crypto.SSL.Context":
            self._check_m2crypto(args, kwmap)
        if qualname in t.PROTOCOL_CALLS:
            for item in args:
                value = self.core.resolve(item)
                if not isinstance(value, Param) and _ref_in(value, t.WEAK_PROTOCOLS):
                    self.core.report("SSC701", item)
        elif args and attr == "set_options" and self.legacy_renegotiation(args[0]):
            self.core.report("SSC703", args[0])  # pyOpenSSL's ``set_options(... | 0x40000)``
        elif args and attr in _WEAK_METHODS:
            self._check_weak_method(qualname, attr, args, kwmap)
        for name, (value, location) in kwmap.items():
            weak = _weak_setting(name, value)
            if weak and not (weak in {"SSC701", "SSC702"} and isinstance(value, Param)):
                self.core.report(weak, location)


def _dotted(node: ast.AST) -> str | None:
    """The dotted name an expression writes (``SSL.OP_X``), if it is one."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        base = _dotted(node.value)
        return f"{base}.{node.attr}" if base else None
    return None
