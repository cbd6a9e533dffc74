"""Render the docs page of each rule from the rule table (``python -m sslcustomize_lint._docs``).

The pages under ``docs/rules/`` are generated, so that messages, docs and SARIF never drift; a
test checks that the committed pages match.
"""

from __future__ import annotations

import sys
from pathlib import Path

from sslcustomize_lint._rules import RULES, Rule

__all__ = ["render_index", "render_rule", "write_pages"]


def render_rule(rule: Rule) -> str:
    """Return the Markdown page of one rule."""
    return (
        f"# {rule.code} {rule.name}\n\n"
        f"Family: `{rule.family}` · SARIF level: `{rule.level}`\n\n"
        f"## What\n\n{rule.message}.\n\n"
        f"## Why it matters\n\n{rule.why}\n\n"
        f"## The safe replacement\n\n{rule.fix}\n\n"
        f"Instead of:\n\n```python\n{rule.bad}\n```\n\n"
        f"write:\n\n```python\n{rule.good}\n```\n\n"
        "## Keeping it on purpose\n\n"
        "Put `# sslcustomize: allow(reason)` on the reported line. The reason is required; "
        "`allow()` alone suppresses nothing and is reported as SSC001.\n"
    )


def render_index() -> str:
    """Return the Markdown table of all rules (included in ``docs/lint.md``)."""
    rows = [
        f"| [{r.code}](rules/{r.code}.md) | `{r.name}` | {r.family} | {r.message} |" for r in RULES
    ]
    return "| code | name | family | what |\n|---|---|---|---|\n" + "\n".join(rows) + "\n"


def write_pages(directory: Path) -> None:
    """Write one page per rule into ``directory``."""
    directory.mkdir(parents=True, exist_ok=True)
    for rule in RULES:
        (directory / f"{rule.code}.md").write_text(render_rule(rule), encoding="utf-8")


if __name__ == "__main__":
    write_pages(Path(sys.argv[1] if len(sys.argv) > 1 else "docs/rules"))
