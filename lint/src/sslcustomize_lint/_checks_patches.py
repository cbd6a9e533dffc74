"""Checks of monkeypatches and silenced warnings (SSC105, SSC301, SSC302)."""

from __future__ import annotations

import ast
import re

from sslcustomize_lint import _tables as t
from sslcustomize_lint._core import (
    _UNVERIFYING_WORDS,
    _VERIFYING_FACTORY_WORDS,
    _WEAKENING_WORDS,
    _is_warning_class,
    _KwMap,
)
from sslcustomize_lint._family import CallSite, Family, register
from sslcustomize_lint._values import (
    Partial,
    Ref,
    Value,
)
from sslcustomize_lint._valuetests import (
    _TESTS,
    _is_cert_none,
    _str,
)

__all__ = ["PatchChecks"]


@register
class PatchChecks(Family):
    """Checks of monkeypatches and silenced warnings (SSC105, SSC301, SSC302)."""

    def visit_call(self, site: CallSite) -> None:
        """Check a call that silences the warnings of unverified requests."""
        self._check_warnings(site)

    def check_patch(self, target: str, value: Value, stmt: ast.AST) -> None:
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
                self.core.report("SSC301", stmt)
        elif target in t.ALWAYS_WEAKENING_PATCHES or self._weakening_replacement(value, stmt):
            self.core.report("SSC302", stmt)

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
            node = self.core.function_named(node.id)
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
            node = self.core.defs.get(expr.id)
        first, last = getattr(node, "lineno", None), getattr(node, "end_lineno", None)
        if self.core.source is None or first is None:
            return True
        lines = self.core.source.splitlines()[first - 1 : last]
        text = b"\n".join(lines).lower()
        return any(word in text for word in _WEAKENING_WORDS)

    def _check_warnings(self, site: CallSite) -> None:
        node, qualname, attr, args, kwmap = (
            site.node,
            site.qualname,
            site.attr,
            site.args,
            site.kwmap,
        )
        if qualname == "urllib3.disable_warnings" or (
            qualname is None and attr == "disable_warnings" and "urllib3" in self.core.imported
        ):
            category = kwmap.get("category")
            value = category[0] if category else (self.core.resolve(args[0]) if args else None)
            if value is None or _is_warning_class(value):
                self.core.report("SSC105", node)
        elif qualname in {
            "warnings.filterwarnings",
            "warnings.simplefilter",
        } and self._ignores_insecure_warning(node, qualname, args, kwmap):
            self.core.report("SSC105", node)

    def _warning_filter_argument(
        self, node: ast.Call, args: list[ast.expr], kwmap: _KwMap, name: str, index: int | None
    ) -> tuple[Value, ast.AST] | None:
        """A ``warnings`` filter's argument, by keyword or at ``index`` (``None``: keyword only)."""
        if name in kwmap:
            return kwmap[name]
        if index is not None and len(args) > index:
            return self.core.resolve(args[index]), node
        return None

    def _ignores_insecure_warning(
        self, node: ast.Call, qualname: str, args: list[ast.expr], kwmap: _KwMap
    ) -> bool:
        """Tell whether a ``warnings`` filter ignores urllib3's ``InsecureRequestWarning``."""
        filterwarnings = qualname == "warnings.filterwarnings"
        action = self._warning_filter_argument(node, args, kwmap, "action", 0)
        category = self._warning_filter_argument(
            node, args, kwmap, "category", 2 if filterwarnings else 1
        )
        message = self._warning_filter_argument(
            node, args, kwmap, "message", 1 if filterwarnings else None
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
        return ignored and (by_category or by_message)
