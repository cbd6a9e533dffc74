"""``sslcustomize-lint``: find code that disables or weakens certificate verification.

A distribution of its own, apart from the ``sslcustomize`` runtime: nothing a hooked process or
the policy command line installs depends on it, and it imports nothing from ``sslcustomize``.
``sslcustomize lint`` runs it when it is installed (``register_command``); the
``sslcustomize-lint`` script runs it alone.

The modules each do one job: ``_rules`` (the rule table), ``_prefilter`` (skip files cheaply),
``_analyzer`` (the AST analysis, with facts from ``_tables`` and ``_commands``), ``_suppress``
(allow comments), ``_files`` and ``_runner`` (which files, on how many cores), ``_output``
(text, JSON and SARIF), ``_command`` (the command line).
"""

from __future__ import annotations

from sslcustomize_lint._command import main
from sslcustomize_lint._command import register as register_command
from sslcustomize_lint._finding import Finding, LintError
from sslcustomize_lint._rules import RULES, RULES_BY_CODE, Rule
from sslcustomize_lint._runner import LintResult, lint_files, lint_source
from sslcustomize_lint._version import __version__

__all__ = [
    "RULES",
    "RULES_BY_CODE",
    "Finding",
    "LintError",
    "LintResult",
    "Rule",
    "__version__",
    "lint_files",
    "lint_source",
    "main",
    "register_command",
]
