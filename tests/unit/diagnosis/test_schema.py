"""The policy JSON Schema: printed by `sslcustomize schema`, true to the docs and the loader."""

from __future__ import annotations

import datetime as dt
import json
import sys
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from _docs import POLICY_BLOCKS
from sslcustomize._cli import main
from sslcustomize._diagnosis import _schema
from sslcustomize._policy import _model as _policy_model
from sslcustomize._trust._checked_policy import parse_policy
from sslcustomize.exceptions import PolicyError

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

PIN = "sha256/" + "A" * 43 + "="


def _validator() -> jsonschema.Draft202012Validator:
    schema = _schema.policy_schema()
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(
        schema, format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER
    )


def _as_json(value: Any) -> Any:
    """TOML values as an editor's schema support sees them: dates as ISO strings."""
    if isinstance(value, dict):
        return {key: _as_json(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_as_json(item) for item in value]
    if isinstance(value, (dt.date, dt.datetime)):
        return value.isoformat()
    return value


def _schema_accepts(text: str) -> bool:
    return _validator().is_valid(_as_json(tomllib.loads(text)))


def _loader_accepts(text: str, tmp_path: Path) -> bool:
    try:
        parse_policy(text, path=str(tmp_path / "policy.toml"), layer="system")
    except PolicyError:
        return False
    return True


def test_schema_command_prints_the_schema(capsys: pytest.CaptureFixture[str]) -> None:
    """`sslcustomize schema` prints a valid draft 2020-12 schema, the package's own."""
    assert main(["schema"]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed == _schema.policy_schema()
    jsonschema.Draft202012Validator.check_schema(printed)


@pytest.mark.parametrize("block", POLICY_BLOCKS)
def test_every_docs_example_validates(block: str) -> None:
    """Every TOML policy example in README and docs/ is valid under the schema."""
    errors = [error.message for error in _validator().iter_errors(_as_json(tomllib.loads(block)))]
    assert errors == []


def test_the_schema_lists_the_loaders_values() -> None:
    """Modes, TLS versions, sinks and lockable keys are the loader's, no more, no less."""
    assert _schema.MODES == _policy_model.MODES
    assert _schema.TLS_VERSIONS == _policy_model.TLS_VERSIONS
    assert _schema.SINKS == _policy_model.SINKS
    assert _schema.LOCKABLE == _policy_model.LOCKABLE


VALID = [
    "version = 1\n",
    "mode = 'report'\nminimum_tls = '1.3'\nallow_code_opt_out = false\n",
    "trust = ['system', 'certifi']\n",
    "lock = ['mode', 'exception']\n",
    "[report]\nsink = 'jsonl'\npath = 'r.jsonl'\n",
    f"[[exception]]\nhost = 'nas.example:8443'\npin = ['{PIN}']\ncheck_hostname = false\n"
    "expires = 2030-01-01\nreason = 'r'\n",
    "[[exception]]\nhost = '10.0.0.0/8'\nmode = 'report'\nreason = 'lab'\n",
    "[context.'myapp.mail']\nmode = 'report'\ntrust = ['system']\n",
]

INVALID = [
    "version = 2\n",
    "mode = 'audit'\n",
    "minimum_tls = '1.1'\n",
    "allow_code_opt_out = 'yes'\n",
    "trust = 'system'\n",
    "colour = 'blue'\n",
    "lock = ['everything']\n",
    "[report]\nsink = 'kafka'\n",
    "[report]\nsink = 'jsonl'\nformat = 'x'\n",
    "[[exception]]\npin = ['" + PIN + "']\nreason = 'no host'\n",
    "[[exception]]\nhost = 'h'\npin = ['" + PIN + "']\n",
    "[[exception]]\nhost = 'h'\npin = ['sha1/abc']\nreason = 'bad pin'\n",
    "[[exception]]\nhost = 'h'\nreason = 'changes nothing'\n",
    "[[exception]]\nhost = 'h'\nmode = 'report'\ncheck_hostname = false\nreason = 'r'\n",
    "[[exception]]\nhost = 'h'\nmode = 'report'\nexpires = '2030-01-01T00:00:00'\nreason = 'r'\n",
    "[[exception]]\nhost = 'h'\nmode = 'report'\nreason = 'r'\nowner = 'me'\n",
    "[context.'smtplib']\nmode = 'audit'\n",
    "[context.'smtplib']\nhost = 'x'\n",
]


@pytest.mark.parametrize("text", VALID)
def test_schema_and_loader_accept_the_same_valid_files(text: str, tmp_path: Path) -> None:
    """A valid policy: both the schema and the loader accept it."""
    assert (_schema_accepts(text), _loader_accepts(text, tmp_path)) == (True, True)


@pytest.mark.parametrize("text", INVALID)
def test_schema_and_loader_refuse_the_same_invalid_files(text: str, tmp_path: Path) -> None:
    """An invalid policy: both the schema and the loader refuse it."""
    assert (_schema_accepts(text), _loader_accepts(text, tmp_path)) == (False, False)
