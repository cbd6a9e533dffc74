"""A finding: one rule broken at one place, and a file that could not be linted."""

from __future__ import annotations

from dataclasses import dataclass

from sslcustomize_lint._rules import RULES_BY_CODE, Rule

__all__ = ["Finding", "LintError"]


@dataclass(frozen=True, slots=True, kw_only=True)
class Finding:
    """One place in one file where verification is weakened."""

    path: str
    line: int
    column: int
    code: str
    in_tests: bool = False  # in a test file: reported at level ``note``, exit status unchanged

    @property
    def rule(self) -> Rule:
        """Return the rule this finding breaks."""
        return RULES_BY_CODE[self.code]

    @property
    def level(self) -> str:
        """Return the SARIF level: the rule's, or ``note`` in a test file."""
        return "note" if self.in_tests else self.rule.level


@dataclass(frozen=True, slots=True, kw_only=True)
class LintError:
    """A file that could not be read or parsed; it is skipped, not reported as clean."""

    path: str
    message: str
