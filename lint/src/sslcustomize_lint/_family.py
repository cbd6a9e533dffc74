"""Rule families as visitors: the call-site value each one is shown, and their registry.

A family (``_checks_contexts``, ``_checks_versions``, ``_checks_clients``, ``_checks_patches``)
is a class registered with :func:`register`. The analyzer makes one of each per module
(``Analyzer.families``), shows each every call as a :class:`CallSite`, and asks the family for
what it alone knows (a class attribute's weak version, a replaced ``ssl`` function). A family
reaches the analysis it shares with the others (names, values, contexts followed, findings)
through ``core``; no family derives from another or from the analyzer.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

TYPE_CHECKING = False  # not typing's: the lint command does not import typing
if TYPE_CHECKING:
    from sslcustomize_lint._analyzer import Analyzer
    from sslcustomize_lint._core import _KwMap
    from sslcustomize_lint._values import Value

__all__ = ["FAMILIES", "CallSite", "Family", "register"]


@dataclass(frozen=True, slots=True, kw_only=True)
class CallSite:
    """One call, resolved once for every family.

    ``qualname`` and ``attr`` name the callee (``ssl.SSLContext``, ``SSLContext``); ``callee``
    is its value, ``args`` the positional arguments (a partial's own taken off, a patched
    ``__init__``'s ``self`` too) and ``kwmap`` the keywords with where each came from.
    """

    node: ast.Call
    qualname: str | None
    attr: str
    callee: Value
    args: list[ast.expr]
    kwmap: _KwMap
    has_star: bool  # a ``*args`` or ``**kwargs`` the analysis could not see into


class Family:
    """A rule family: one visitor of call sites, over the analysis of one module."""

    def __init__(self, core: Analyzer) -> None:
        self.core = core

    def visit_call(self, site: CallSite) -> None:
        """Check one call."""


#: Every family, in the order they see a call (the order they were registered in).
FAMILIES: list[type[Family]] = []


def register(family: type[Family]) -> type[Family]:
    """Add a family to those every analyzer runs."""
    FAMILIES.append(family)
    return family
