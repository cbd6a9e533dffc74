"""Configuration: ``[tool.sslcustomize.lint]``, excludes, per-file ignores, test files."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from _lint_cli import run

INSECURE = 'import requests\nrequests.get("https://x", verify=False)\n'
SILENCED = "import urllib3\nurllib3.disable_warnings()\n"


def codes(capsys: pytest.CaptureFixture[str], *argv: str) -> list[tuple[str, str]]:
    run("--format", "json", *argv)
    data = json.loads(capsys.readouterr().out)
    return sorted((Path(f["path"]).as_posix(), f["code"]) for f in data["findings"])


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "app").mkdir()
    (tmp_path / "app" / "client.py").write_text(INSECURE + SILENCED)
    return tmp_path


def configure(project: Path, table: str) -> None:
    (project / "pyproject.toml").write_text(f"[project]\nname = 'x'\n\n{table}")


def test_no_config_reports_everything(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Without a table, every rule applies."""
    assert codes(capsys, "app") == [("app/client.py", "SSC101"), ("app/client.py", "SSC105")]


def test_select_and_ignore_from_pyproject(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """select and ignore in pyproject.toml narrow the findings; --isolated skips the table."""
    configure(project, '[tool.sslcustomize.lint]\nselect = ["SSC1"]\nignore = ["SSC105"]\n')
    assert codes(capsys, "app") == [("app/client.py", "SSC101")]
    assert len(codes(capsys, "--isolated", "app")) == 2


def test_config_found_from_a_subdirectory(
    project: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The nearest pyproject.toml upwards from the working directory is read."""
    configure(project, '[tool.sslcustomize.lint]\nignore = ["SSC1"]\n')
    monkeypatch.chdir(project / "app")
    assert codes(capsys, ".") == []


def test_per_file_ignores(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """per-file-ignores drops the codes only in matching files."""
    (project / "app" / "other.py").write_text(INSECURE)
    configure(project, '[tool.sslcustomize.lint.per-file-ignores]\n"app/client.py" = ["SSC101"]\n')
    assert codes(capsys, "app") == [("app/client.py", "SSC105"), ("app/other.py", "SSC101")]


def test_exclude_patterns(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """exclude in pyproject.toml and --exclude skip files; the default excludes stay."""
    (project / "app" / "gen_pb2.py").write_text(INSECURE)
    (project / "legacy").mkdir()
    (project / "legacy" / "old.py").write_text(INSECURE)
    configure(project, '[tool.sslcustomize.lint]\nexclude = ["legacy/"]\n')
    assert codes(capsys, ".", "--exclude", "*_pb2.py,client.py") == []
    assert ("legacy/old.py", "SSC101") in codes(capsys, ".", "--isolated")


@pytest.mark.parametrize("directory", ["build", "node_modules", ".venv", "venv", "dist"])
def test_default_excludes(
    project: Path, capsys: pytest.CaptureFixture[str], directory: str
) -> None:
    """Vendored and build directories are skipped when walking, but linted when named."""
    target = project / directory / "lib"
    target.mkdir(parents=True)
    (target / "mod.py").write_text(INSECURE)
    assert all(not path.startswith(directory) for path, _ in codes(capsys, "."))
    assert codes(capsys, directory) == [(f"{directory}/lib/mod.py", "SSC101")]


def test_tests_are_notes_by_default(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Findings in test files are notes that do not fail the run; --tests report makes them."""
    (project / "tests").mkdir()
    (project / "tests" / "test_api.py").write_text(INSECURE)
    assert run("tests") == 0
    out = capsys.readouterr()
    assert "SSC101" in out.out
    assert "(test file: note)" in out.out
    assert run("--tests", "report", "tests") == 1


def test_tests_note_level_in_json(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """JSON gives test-file findings the level note; other files keep the rule's level."""
    (project / "tests").mkdir()
    (project / "tests" / "conftest.py").write_text(INSECURE)
    run("--format", "json", "app", "tests")
    found = json.loads(capsys.readouterr().out)["findings"]
    levels = {(Path(f["path"]).as_posix(), f["code"]): f["level"] for f in found}
    assert levels == {
        ("app/client.py", "SSC101"): "error",
        ("app/client.py", "SSC105"): "warning",
        ("tests/conftest.py", "SSC101"): "note",
    }


def test_tests_excluded_by_switch(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """tests = "exclude" (or --tests exclude) does not lint test files at all."""
    (project / "tests").mkdir()
    (project / "tests" / "test_api.py").write_text(INSECURE)
    configure(project, '[tool.sslcustomize.lint]\ntests = "exclude"\n')
    assert all(not p.startswith("tests/") for p, _ in codes(capsys, "."))
    assert ("tests/test_api.py", "SSC101") in codes(capsys, ".", "--tests", "report")


@pytest.mark.parametrize(
    "table",
    [
        '[tool.sslcustomize.lint]\nselect = ["SSC999"]\n',
        "[tool.sslcustomize.lint]\nunknown = 1\n",
        '[tool.sslcustomize.lint]\ntests = "maybe"\n',
        '[tool.sslcustomize.lint]\nignore = "SSC1\n',
    ],
)
def test_bad_config_is_a_usage_error(
    project: Path, capsys: pytest.CaptureFixture[str], table: str
) -> None:
    """An unknown code, key or value, or broken TOML, exits 2 and says why."""
    configure(project, table)
    assert run("app") == 2
    assert "sslcustomize lint: error:" in capsys.readouterr().err


def test_docs_example_is_a_valid_config(tmp_path: Path) -> None:
    """The pyproject.toml example of docs/lint.md is read as documented."""
    from sslcustomize_lint._config import find_config

    docs = Path(__file__).parents[2] / "docs" / "lint.md"
    [block] = re.findall(r"```toml pyproject.toml\n(.*?)```", docs.read_text(), flags=re.DOTALL)
    (tmp_path / "pyproject.toml").write_text(block)
    config = find_config(str(tmp_path))
    assert config.select == ("SSC1", "SSC2", "SSC7")
    assert config.ignore == ("SSC105",)
    assert config.per_file_ignores == {"scripts/*": ("SSC4",)}
    assert "legacy/" in config.exclude
    assert "node_modules" in config.exclude
    assert config.tests == "note"


@pytest.mark.parametrize(
    "text",
    [
        '[tool.sslcustomize.lint]\nignore = ["SSC105"]\n',
        '[tool."sslcustomize".lint]\nignore = ["SSC105"]\n',
        "[tool.sslcustomize]\nlint = { ignore = ['SSC105'] }\n",
        '[tool]\nsslcustomize.lint.ignore = ["SSC105"]\n',
        "[tool]\nsslcustomize = { lint = { ignore = ['SSC105'] } }\n",
        "[tool . sslcustomize . lint]\nignore = ['SSC105']\n",
    ],
)
def test_every_spelling_of_the_table_is_read(tmp_path: Path, text: str) -> None:
    """However TOML spells the table, it is found (the cheap test before parsing lets it by)."""
    from sslcustomize_lint._config import find_config

    (tmp_path / "pyproject.toml").write_text(
        '[project]\nname = "x"\ndependencies = ["sslcustomize>=0.2"]\n\n' + text
    )
    assert find_config(str(tmp_path)).ignore == ("SSC105",)


def test_a_dependency_on_sslcustomize_is_not_a_table(tmp_path: Path) -> None:
    """A pyproject.toml that only depends on sslcustomize is not parsed: no tomllib import."""
    (tmp_path / "pyproject.toml").write_text(
        '[project]\nname = "x"\ndependencies = ["sslcustomize>=0.2", "requests"]\n'
    )
    script = (
        "import sys\nfrom sslcustomize_lint._config import find_config\n"
        "find_config(sys.argv[1])\nprint('tomllib' in sys.modules, 'tomli' in sys.modules)\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", script, str(tmp_path)], capture_output=True, text=True, check=True
    )
    assert proc.stdout.split() == ["False", "False"]
