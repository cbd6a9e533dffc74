"""Write findings as text, JSON (``"version": 1``) or SARIF 2.1.0."""

from __future__ import annotations

import os

from sslcustomize._lint._finding import Finding
from sslcustomize._lint._rules import RULES
from sslcustomize._lint._runner import LintResult
from sslcustomize._support._version import __version__

TYPE_CHECKING = False  # not typing's: the lint command does not import typing
if TYPE_CHECKING:
    from typing import Any

__all__ = ["FORMATS", "render"]

FORMATS = ("text", "json", "sarif")
JSON_VERSION = 1
SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
_SEVERITY = {"error": "7.5", "warning": "5.0", "note": "2.0"}
_TOOL = "sslcustomize-lint"
_DOCS = "docs/rules/{code}.md"


def _version() -> str:
    # The package's constant, as ``sslcustomize --version`` prints it; ``importlib.metadata``
    # costs ~150 ms to import and query on the development VM (a tenth of linting the stdlib).
    return __version__


def render(result: LintResult, fmt: str) -> str:
    """Render a lint result in one of ``FORMATS``.

    Args:
        result: What linting found.
        fmt: ``text``, ``json`` or ``sarif``.

    Returns:
        The report, ending with a newline (empty for a clean text report).
    """
    if fmt == "text":
        return "".join(_text(finding) for finding in result.findings)
    # Only here: json costs the text report (the default, and pre-commit's) 2.5 ms to import.
    import json  # noqa: PLC0415

    return json.dumps(_json(result) if fmt == "json" else _sarif(result), indent=2) + "\n"


def _text(finding: Finding) -> str:
    rule = finding.rule
    note = " (test file: note)" if finding.in_tests else ""
    head = f"{finding.path}:{finding.line}:{finding.column}: {finding.code} {rule.message}{note}\n"
    return head + f"    fix: {rule.fix}\n"


def _json(result: LintResult) -> dict[str, Any]:
    return {
        "version": JSON_VERSION,
        "tool": {"name": _TOOL, "version": _version()},
        "files": result.files,
        "parsed": result.parsed,
        "findings": [
            {
                "path": f.path,
                "line": f.line,
                "column": f.column,
                "code": f.code,
                "name": f.rule.name,
                "family": f.rule.family,
                "level": f.level,
                "message": f.rule.message,
                "fix": f.rule.fix,
            }
            for f in result.findings
        ],
        "errors": [{"path": e.path, "message": e.message} for e in result.errors],
    }


def _uri(path: str) -> dict[str, str]:
    from urllib.parse import quote  # noqa: PLC0415 - only SARIF needs it

    posix = path.replace(os.sep, "/")
    if os.path.isabs(path):
        return {"uri": "file://" + quote(posix)}
    posix = posix.removeprefix("./")
    return {"uri": quote(posix), "uriBaseId": "%SRCROOT%"}


def _sarif(result: LintResult) -> dict[str, Any]:
    index = {rule.code: i for i, rule in enumerate(RULES)}
    rules = [
        {
            "id": rule.code,
            "name": rule.name,
            "shortDescription": {"text": rule.message},
            "fullDescription": {"text": rule.why},
            "help": {
                "text": f"{rule.why}\n\nFix: {rule.fix}",
                "markdown": f"{rule.why}\n\n**Fix:** {rule.fix}\n\n"
                f"See `{_DOCS.format(code=rule.code)}`.",
            },
            "defaultConfiguration": {"level": rule.level},
            "properties": {
                "tags": ["security", "tls", rule.family],
                "security-severity": _SEVERITY[rule.level],
                "precision": "high",
            },
        }
        for rule in RULES
    ]
    results = [
        {
            "ruleId": f.code,
            "ruleIndex": index[f.code],
            "level": f.level,
            "message": {"text": f"{f.rule.message}. Fix: {f.rule.fix}"},
            "locations": [
                {
                    "physicalLocation": {
                        "artifactLocation": _uri(f.path),
                        "region": {"startLine": f.line, "startColumn": f.column},
                    }
                }
            ],
        }
        for f in result.findings
    ]
    notifications = [
        {
            "level": "warning",
            "message": {"text": e.message},
            "locations": [{"physicalLocation": {"artifactLocation": _uri(e.path)}}],
        }
        for e in result.errors
    ]
    return {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": _TOOL,
                        "version": _version(),
                        "informationUri": "https://pypi.org/project/sslcustomize/",
                        "rules": rules,
                    }
                },
                "invocations": [
                    {
                        "executionSuccessful": True,
                        "toolExecutionNotifications": notifications,
                    }
                ],
                "results": results,
                "columnKind": "unicodeCodePoints",
            }
        ],
    }
