"""The pure-Python pre-filter search against the optional accelerator: the same findings."""

from __future__ import annotations

import sys
import sysconfig
from pathlib import Path

import pytest

from sslcustomize_lint import _prefilter, lint_files
from sslcustomize_lint._files import discover
from sslcustomize_lint._prefilter import _PATTERNS, accelerated_matches, python_matches

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
