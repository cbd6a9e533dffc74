"""Score findings against a labelled corpus (used by the corpus test and ``bench/``).

A label is a trailing ``# expect: CODE [CODE...]`` or ``# expect: none`` comment; see
``tests/lint/corpus/README.md``. Each corpus file is one family, except helper modules whose
name starts with ``_``.
"""

from __future__ import annotations

import io
import re
import tokenize
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

_EXPECT = re.compile(r"#\s*expect:\s*(?P<codes>[A-Za-z0-9 ,]+?)\s*(?:#.*)?$")

# path -> line -> expected codes (an empty set for a look-alike that must stay silent)
Labels = dict[str, dict[int, frozenset[str]]]
Hit = tuple[str, int, str]  # path, line, code
# The family of configurable weakenings (notes), scored only where it is labelled.
CONFIGURABLE = "SSC8"


def load_labels(corpus: Path) -> Labels:
    """Return the labels of every corpus file, keyed by its resolved path."""
    labels: Labels = {}
    for path in sorted(corpus.glob("*.py")):
        if path.name.startswith("_"):
            continue  # a helper module that a family imports from, not a family
        lines: dict[int, frozenset[str]] = {}
        source = path.read_text(encoding="utf-8")
        for token in tokenize.generate_tokens(io.StringIO(source).readline):
            if token.type != tokenize.COMMENT:
                continue
            match = _EXPECT.search(token.string)
            if match:
                codes = frozenset(re.split(r"[ ,]+", match.group("codes").strip()))
                lines[token.start[0]] = frozenset() if codes == {"none"} else codes
        labels[str(path.resolve())] = lines
    return labels


@dataclass
class Score:
    """Counts for one family."""

    expected: int = 0
    found: int = 0
    false_positives: int = 0
    silent_sites: int = 0
    missed: list[str] = field(default_factory=list)
    spurious: list[str] = field(default_factory=list)

    @property
    def recall(self) -> float:
        """Return the share of labelled insecure sites that were found."""
        return self.found / self.expected if self.expected else 1.0

    @property
    def precision(self) -> float:
        """Return the share of reported sites that are labelled insecure."""
        reported = self.found + self.false_positives
        return self.found / reported if reported else 1.0


def _by_line(labels: Labels, hits: Iterable[Hit]) -> dict[tuple[str, int], set[str]]:
    """Group the hits by (resolved path, line), the notes SSC8 only where they are labelled.

    The files labelled before the configurable-weakening family existed mark a library's
    opt-out branch ``none`` (it is not a weakening on by default): a note there is neither
    right nor wrong.
    """
    noted = {
        path
        for path, lines in labels.items()
        if any(code.startswith(CONFIGURABLE) for codes in lines.values() for code in codes)
    }
    by_line: dict[tuple[str, int], set[str]] = {}
    for path, line, code in hits:
        resolved = str(Path(path).resolve())
        if code.startswith(CONFIGURABLE) and resolved not in noted:
            continue
        by_line.setdefault((resolved, line), set()).add(code)
    return by_line


def score(labels: Labels, hits: Iterable[Hit], *, match_codes: bool = True) -> dict[str, Score]:
    """Score findings per family (corpus file).

    Every expected code on an insecure line is one site. With ``match_codes``, a site is found
    only by a finding with that code; without (for other tools), any finding on the line finds
    all sites of the line. A false positive is a distinct (line, code) reported on a line that
    expects nothing, or reported with a code that the line does not expect.
    """
    by_line = _by_line(labels, hits)
    scores: dict[str, Score] = {}
    for path, lines in labels.items():
        family = Path(path).stem
        result = scores.setdefault(family, Score())
        for line, expected in lines.items():
            got = by_line.get((path, line), set())
            result.expected += len(expected)
            result.silent_sites += not expected
            for code in sorted(expected):
                if code in got if match_codes else bool(got):
                    result.found += 1
                else:
                    result.missed.append(f"{family}:{line} {code}")
            wrong = (got - expected) if match_codes else (got if not expected else set())
            result.false_positives += len(wrong)
            result.spurious.extend(f"{family}:{line} {code}" for code in sorted(wrong))
        for (hit_path, line), codes in by_line.items():
            if hit_path == path and line not in lines:
                result.false_positives += len(codes)
                result.spurious.extend(f"{family}:{line} {code}" for code in sorted(codes))
    return scores


def total(scores: dict[str, Score]) -> Score:
    """Add up the scores of all families."""
    result = Score()
    for item in scores.values():
        result.expected += item.expected
        result.found += item.found
        result.false_positives += item.false_positives
        result.silent_sites += item.silent_sites
        result.missed += item.missed
        result.spurious += item.spurious
    return result
