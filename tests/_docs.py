"""The documentation's code blocks, read by test_docs (project) and test_schema (unit/policy)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

__all__ = ["DOCS", "POLICY_BLOCKS", "ROOT", "blocks"]

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"


def blocks(path: Path, language: str) -> list[str]:
    """The fenced blocks of *language* in the Markdown file *path*."""
    text = path.read_text(encoding="utf-8")
    return re.findall(rf"```{language}\n(.*?)```", text, flags=re.DOTALL)


POLICY_BLOCKS = [
    pytest.param(block, id=f"{path.name}-{index}")
    for path in (ROOT / "README.md", *sorted(DOCS.glob("*.md")))
    for index, block in enumerate(blocks(path, "toml"))
]
