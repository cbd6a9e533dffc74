"""The tests' layout (docs/architecture.md, "Tests"): directories, names, what unit tests use."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parents[1]
PACKAGE = TESTS.parent / "src" / "sslcustomize"
CORPUS = TESTS / "lint" / "corpus"

# Where loopback servers, namespaces and hooked interpreters come from: a unit test uses none.
LOOPBACK_HELPERS = frozenset({"_servers", "_namespace", "_proxy", "_index", "_coexist_scenario"})
LOOPBACK_NAMES = frozenset({"run_python", "run_in_overlays", "serve_https", "serve_tls"})
LOOPBACK_FIXTURES = frozenset({
    "https_server", "smtp_server", "ftps_server", "imap_server", "pop3_server", "nntp_server",
    "plain_tcp_server", "wss_server",
})  # fmt: skip


def _test_files() -> list[Path]:
    return sorted(p for p in TESTS.rglob("test_*.py") if CORPUS not in p.parents)


def _uses(path: Path) -> set[str]:
    """The helper modules a test file imports, and the helpers and fixtures it names."""
    used: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            used.update(alias.name for alias in node.names if alias.name in LOOPBACK_HELPERS)
        elif isinstance(node, ast.ImportFrom) and node.module in LOOPBACK_HELPERS:
            used.add(node.module)
        elif isinstance(node, ast.arg) and node.arg in LOOPBACK_FIXTURES:
            used.add(node.arg)
        elif isinstance(node, ast.Name) and node.id in LOOPBACK_NAMES:
            used.add(node.id)
    return used


def test_unit_directories_are_layers() -> None:
    """tests/unit/<name> names a layer subpackage of sslcustomize (or api, the public surface)."""
    layers = {p.name.removeprefix("_") for p in PACKAGE.iterdir() if (p / "__init__.py").exists()}
    directories = {p.name for p in (TESTS / "unit").iterdir() if p.is_dir()} - {"__pycache__"}
    assert directories, "no unit tests found"
    assert directories <= layers | {"api"}, directories - layers


def test_no_test_directory_is_a_package() -> None:
    """No __init__.py: helpers beside conftest.py are imported by name from every directory."""
    assert not [p for p in TESTS.rglob("__init__.py") if CORPUS not in p.parents]


def test_test_file_names_are_unique() -> None:
    """Each test module is imported by its file name, so two directories cannot share one."""
    names = [p.name for p in _test_files()]
    assert len(names) > 60
    assert len(names) == len(set(names)), sorted({n for n in names if names.count(n) > 1})


@pytest.mark.parametrize(
    "path",
    [
        pytest.param(p, id=p.relative_to(TESTS).as_posix())
        for p in _test_files()
        if TESTS / "unit" in p.parents
    ],
)
def test_unit_tests_start_no_server_namespace_or_hooked_interpreter(path: Path) -> None:
    """A test under tests/unit uses no loopback server, namespace or hooked-interpreter helper."""
    uses = _uses(path)
    assert not uses, f"{sorted(uses)}: this test belongs in tests/loopback or tests/system"


def test_the_unit_check_sees_loopback_helpers() -> None:
    """Twin: the same check finds the servers, namespaces and hooked interpreters of the others."""
    assert {"_servers", "https_server"} <= _uses(TESTS / "loopback" / "test_infra.py")
    assert "run_python" in _uses(TESTS / "loopback" / "test_startup.py")
    assert "run_in_overlays" in _uses(TESTS / "system" / "test_reach_system.py")


def _version_in(path: Path, pattern: str) -> str:
    found = re.search(pattern, path.read_text(encoding="utf-8"), re.MULTILINE)
    assert found is not None, f"no version in {path}"
    return found.group(1)


def test_the_distributions_and_the_changelog_name_one_version() -> None:
    """The package, the linter's distribution and the CHANGELOG's top entry agree."""
    root = TESTS.parent
    package = _version_in(root / "pyproject.toml", r'^version = "([^"]+)"')
    module = _version_in(PACKAGE / "_support" / "_version.py", r'^__version__ = "([^"]+)"')
    linter = _version_in(
        root / "lint" / "src" / "sslcustomize_lint" / "_version.py", r'^__version__ = "([^"]+)"'
    )
    changelog = _version_in(root / "CHANGELOG.md", r"^## (\S+)")
    assert package == module == linter
    assert package.removesuffix(".dev0") == changelog
