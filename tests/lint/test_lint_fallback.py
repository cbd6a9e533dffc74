"""The pure-Python pre-filter search against the optional accelerator: the same findings."""

from __future__ import annotations

import random
import sys
import sysconfig
from pathlib import Path

import pytest

from sslcustomize_lint import _prefilter, lint_files
from sslcustomize_lint._files import discover
from sslcustomize_lint._prefilter import (
    _LEADS,
    _PATTERNS,
    accelerated_matches,
    python_matches,
    word_places,
)

CORPUS = Path(__file__).parent / "corpus"
PACKAGE = Path(__file__).resolve().parents[2] / "src" / "sslcustomize"

needs_accelerator = pytest.mark.skipif(
    accelerated_matches is None, reason="ahocorasick-rs (sslcustomize[lint]) is not installed"
)


def test_python_matches_is_leftmost_first() -> None:
    """The fallback takes the first listed pattern at the leftmost place, then resumes after it."""
    low = b"xtlsession.request ssl verify= starttls"
    found = [(_PATTERNS[index], start) for index, start in python_matches(low)]
    assert found == [
        (b"tls", 1),
        (b"ssl", 19),
        (b"verify", 23),
        (b"tls", 36),
    ]


def _every_place_replayed(low: bytes) -> list[tuple[int, int]]:
    """The leftmost-first matches from one ``bytes.find`` pass per pattern (the reference)."""
    found = []
    for index, pattern in enumerate(_PATTERNS):
        place = low.find(pattern)
        while place >= 0:
            found.append((place, index, len(pattern)))
            place = low.find(pattern, place + 1)
    result = []
    resume = 0
    for place, index, size in sorted(found):
        if place >= resume:
            result.append((index, place))
            resume = place + size
    return result


def test_every_pattern_holds_a_lead_byte() -> None:
    """The pure search starts from a lead byte: a pattern without one would never be found."""
    assert all(any(lead in pattern for lead in _LEADS) for pattern in _PATTERNS)


def test_python_matches_finds_overlapping_and_adjacent_patterns() -> None:
    """Patterns glued together, overlapping and cut short give the reference's matches."""
    pieces = [*_PATTERNS, *(p[: len(p) // 2] for p in _PATTERNS), *(p[1:] for p in _PATTERNS)]
    pieces += [b" ", b"\n", b"s", b"l", b"q", b"x"]
    chooser = random.Random(35)
    for _ in range(400):
        low = b"".join(chooser.choice(pieces) for _ in range(chooser.randrange(1, 12)))
        assert python_matches(low) == _every_place_replayed(low), low
    glued = b"sslssltlsslverifyverify=cert_reqcert_checkcurlcurl --no-check-certificate"
    assert python_matches(glued) == _every_place_replayed(glued)
    assert len(python_matches(glued)) >= 10


def test_word_places_answers_again_for_the_same_bytes() -> None:
    """The last file's places are given again for the same bytes, and new ones for others."""
    weak = b"import ssl\nctx = ssl._create_unverified_context()\n"
    clean = b"import os\nprint(os.getcwd())\n"
    first = word_places(weak)
    assert first is not None
    assert word_places(weak) is first
    assert word_places(clean) is None
    assert word_places(bytes(bytearray(weak))) == first


@needs_accelerator
def test_same_matches_on_corpus_package_and_stdlib() -> None:
    """Both searches give the same matches on the corpus, the package and the stdlib's ssl users."""
    assert accelerated_matches is not None
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    paths = [
        *CORPUS.glob("*.py"),
        *PACKAGE.rglob("*.py"),
        *(stdlib / name for name in ("ssl.py", "smtplib.py", "ftplib.py", "imaplib.py")),
        *sorted(stdlib.glob("test/test_ssl*.py")),
    ]
    assert len(paths) > 30
    for path in paths:
        low = path.read_bytes().lower()
        assert python_matches(low) == accelerated_matches(low), path


@needs_accelerator
def test_same_findings_with_and_without_accelerator(monkeypatch: pytest.MonkeyPatch) -> None:
    """Linting the corpus and the package gives identical findings on both paths."""
    files, _ = discover([str(CORPUS), str(PACKAGE)])
    accelerated = lint_files(files, jobs=1)
    monkeypatch.setattr(_prefilter, "matches", python_matches)
    fallback = lint_files(files, jobs=1)
    assert accelerated.findings
    assert fallback.findings == accelerated.findings
    assert fallback.errors == accelerated.errors


def test_lint_runs_without_the_accelerator(tmp_path: Path) -> None:
    """With ahocorasick_rs unimportable, a fresh interpreter lints and finds."""
    import subprocess

    source = tmp_path / "client.py"
    source.write_text("import requests\nrequests.get('https://x', verify=False)\n")
    code = (
        "import sys; sys.modules['ahocorasick_rs'] = None\n"
        "from sslcustomize._cli import main\n"
        f"raise SystemExit(main(['lint', '--isolated', {str(source)!r}]))\n"
    )
    done = subprocess.run(
        [sys.executable, "-I", "-c", code],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        check=False,
    )
    assert done.returncode == 1, done.stderr
    assert "SSC101" in done.stdout
