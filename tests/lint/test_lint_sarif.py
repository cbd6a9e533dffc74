"""SARIF output is a SARIF 2.1.0 log (checked with sarif-pydantic's models of the standard)
and carries what GitHub code scanning needs.

The OASIS JSON schema is not vendored here (its licence is not an open-source one); the
pydantic models of the SARIF 2.1.0 object model check types and required properties.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from sslcustomize_lint import RULES, lint_files
from sslcustomize_lint._output import render

CORPUS = Path(__file__).parent / "corpus"


@pytest.fixture(scope="module")
def sarif() -> dict[str, Any]:
    files = sorted(str(p) for p in CORPUS.glob("*.py"))
    return dict(json.loads(render(lint_files(files, jobs=1), "sarif")))


def test_validates_against_the_sarif_object_model(sarif: dict[str, Any]) -> None:
    """The log parses as a SARIF 2.1.0 log: required properties present, types right."""
    models = pytest.importorskip("sarif_pydantic")
    log = models.Sarif.model_validate(sarif)
    assert log.version == "2.1.0"
    assert len(log.runs) == 1
    assert log.runs[0].results
    assert "sarif" in sarif["$schema"]
    assert "2.1.0" in sarif["$schema"]
    for result in sarif["runs"][0]["results"]:
        assert result["level"] in ("none", "note", "warning", "error")
        assert result["message"]["text"]


def test_github_requirements(sarif: dict[str, Any]) -> None:
    """Version, driver rules with security-severity, results with rule index and region."""
    assert sarif["version"] == "2.1.0"
    [run] = sarif["runs"]
    rules = run["tool"]["driver"]["rules"]
    assert [r["id"] for r in rules] == [r.code for r in RULES]
    assert all("security-severity" in r["properties"] for r in rules)
    assert run["results"]
    for result in run["results"]:
        assert rules[result["ruleIndex"]]["id"] == result["ruleId"]
        location = result["locations"][0]["physicalLocation"]
        assert location["region"]["startLine"] >= 1
        assert location["artifactLocation"]["uri"]


def test_relative_paths_use_srcroot(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Relative paths become relative URIs under %SRCROOT%, as code scanning expects."""
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "a b.py").write_text("import ssl\nctx = ssl._create_unverified_context()\n")
    monkeypatch.chdir(tmp_path)
    log = json.loads(render(lint_files(["./pkg/a b.py"], jobs=1), "sarif"))
    location = log["runs"][0]["results"][0]["locations"][0]["physicalLocation"]
    assert location["artifactLocation"] == {"uri": "pkg/a%20b.py", "uriBaseId": "%SRCROOT%"}


def test_test_file_findings_are_notes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Through the CLI, a finding in a test file is a SARIF note; elsewhere the rule's level."""
    import argparse

    from sslcustomize._cli import _lint

    monkeypatch.chdir(tmp_path)
    for name in ("tests/test_a.py", "app/a.py"):
        (tmp_path / name).parent.mkdir()
        (tmp_path / name).write_text("import requests\nrequests.get('https://x', verify=False)\n")
    parser = argparse.ArgumentParser()
    _lint.register(parser.add_subparsers())
    args = parser.parse_args(["lint", "--format", "sarif", "app", "tests"])
    out = json.loads(_run_capturing(args))
    levels = {
        r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]: r["level"]
        for r in out["runs"][0]["results"]
    }
    assert levels == {"app/a.py": "error", "tests/test_a.py": "note"}


def _run_capturing(args: Any) -> str:
    import contextlib
    import io

    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        args.handler(args)
    return buffer.getvalue()
