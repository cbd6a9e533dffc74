"""``sslcustomize lint``: find code that disables or weakens certificate verification.

The modules each do one job: ``_rules`` (the rule table), ``_prefilter`` (skip files cheaply),
``_analyzer`` (the AST analysis, with facts from ``_tables`` and ``_commands``), ``_suppress``
(allow comments), ``_files`` and ``_runner`` (which files, on how many cores), ``_output``
(text, JSON and SARIF).
"""

from __future__ import annotations

from sslcustomize._lint._finding import Finding, LintError
from sslcustomize._lint._rules import RULES, RULES_BY_CODE, Rule
from sslcustomize._lint._runner import LintResult, lint_files, lint_source

__all__ = [
    "RULES",
    "RULES_BY_CODE",
    "Finding",
    "LintError",
    "LintResult",
    "Rule",
    "lint_files",
    "lint_source",
]
