"""Unit tests mirror the source: every runtime module has a unit test file named after it.

The layout (docs/architecture.md, "Tests"): the unit tests of
``sslcustomize/_<layer>/_<module>.py`` are in ``tests/unit/<layer>/test_<module>.py``, or
``test_<module>_<topic>.py`` when a module has several; ``test_<layer>_<module>.py`` is the
same name made unique across ``tests/`` (``tests/loopback/test_tomlcache.py`` exists, so
``tests/unit/policy/test_policy_tomlcache.py``). A layer's ``__init__.py`` that holds code is
tested by exactly ``tests/unit/<layer>/test_<layer>.py``; the public modules at the top of
the package by ``tests/unit/api/test_<module>.py`` or ``test_api_<module>.py``
(``__init__.py``: ``test_api.py``). Every unit test file of a mirrored layer is named after a
module of that layer.

A module tested elsewhere (by loopback or system tests, because what it does needs a
server, a hooked interpreter or a namespace) is in ``COVERED_ELSEWHERE`` with the reason and
the test file that covers it. Run this file as a script to print the modules without a unit
test file.
"""

from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parents[1]
SOURCE = TESTS.parent / "src"
UNIT = TESTS / "unit"

# Layers whose unit tests live elsewhere: the linter has tests/lint, apart like its package,
# and the command line is tested command by command through `main()` (tests/unit/cli and
# tests/loopback), not module by module.
NOT_MIRRORED = frozenset({"_lint", "_cli"})

#: Modules without a unit test file, each with why and the tests that cover it instead.
COVERED_ELSEWHERE: dict[str, tuple[str, str]] = {
    "_sslcustomize_startup": (
        "runs in a fresh interpreter at start-up, through the .pth hook",
        "tests/loopback/test_startup.py",
    ),
    "sslcustomize.__main__": (
        "two lines that call the command line's entry point",
        "tests/loopback/test_cli_errors.py",
    ),
    "sslcustomize._diagnosis._probe": (
        "the chain probe connects to a server (through SOCKS5, after STARTTLS)",
        "tests/loopback/test_cli_proxy.py",
    ),
    "sslcustomize._inject._asyncio": (
        "the hook states create_connection()'s target; its contract test fails when asyncio moves",
        "tests/loopback/test_target_contract.py",
    ),
    "sslcustomize._inject._httpclient": (
        "the hook states a tunnel's end; tests/unit/inject/test_targets.py tests target_of",
        "tests/loopback/test_target_contract.py",
    ),
    "sslcustomize._inject._httpcore": (
        "the hook states httpcore's targets; its contract test fails when httpcore moves",
        "tests/loopback/test_target_contract.py",
    ),
    "sslcustomize._inject._socks": (
        "the hook states python-socks' destination, tested through a real SOCKS5 proxy",
        "tests/loopback/test_target_contract.py",
    ),
    "sslcustomize._inject._aiohttp": (
        "the hook is exercised by aiohttp's connections",
        "tests/loopback/test_thirdparty_clients.py",
    ),
    "sslcustomize._inject._httpx": (
        "the hook is exercised by httpx's connections",
        "tests/loopback/test_thirdparty_clients.py",
    ),
    "sslcustomize._inject._pip": (
        "pip's vendored urllib3 is hooked in a venv with pip installed",
        "tests/loopback/test_thirdparty_pip.py",
    ),
    "sslcustomize._inject._requests": (
        "the hook is exercised by requests' connections",
        "tests/loopback/test_thirdparty_clients.py",
    ),
    "sslcustomize._inject._truststore": (
        "truststore beside the policy, in any import order, in fresh interpreters",
        "tests/loopback/test_coexist.py",
    ),
    "sslcustomize._inject._unhooked": (
        "the fail-closed stand-in for a library whose hook cannot be installed",
        "tests/loopback/test_coexist.py",
    ),
    "sslcustomize._inject._urllib3": (
        "the hook is exercised by urllib3's connections",
        "tests/loopback/test_thirdparty_clients.py",
    ),
    "sslcustomize._reach._reachhook": (
        "runs at start-up in an interpreter without the package",
        "tests/system/test_reach_system.py",
    ),
    "sslcustomize._report._journal": (
        "the systemd journal sink writes to a socket of a private namespace",
        "tests/system/test_report_journal.py",
    ),
    "sslcustomize._diagnosis._spools": (
        "the spools and dropped-records logs are what report-mode sinks leave behind",
        "tests/loopback/test_report_sinks.py",
    ),
    "sslcustomize._support._bootstrap": (
        "the start-up leaf is loaded by path at interpreter start, before any package import",
        "tests/loopback/test_startup.py",
    ),
    "sslcustomize._trust._anchorset": (
        "the Anchors value the trust layer builds; its behaviour is the anchors' loading",
        "tests/unit/trust/test_anchors.py",
    ),
    "sslcustomize._diagnosis._seen": (
        "sightings of intermediates are made by connections and read by `report`",
        "tests/loopback/test_seen.py",
    ),
}


def _module_name(path: Path, source: Path) -> str:
    parts = path.relative_to(source).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _holds_code(path: Path) -> bool:
    """Whether a module holds more than a docstring and imports (a layer's re-exports)."""
    body = ast.parse(path.read_text(encoding="utf-8")).body
    return any(
        not isinstance(node, ast.Import | ast.ImportFrom)
        and not (isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant))
        for node in body
    )


def expected_tests(source: Path) -> dict[str, tuple[str, ...]]:
    """Map each mirrored module under ``source`` to the patterns its unit test files match.

    A pattern matches ``<directory>/<stem>`` of a file under ``tests/unit``. A module's file
    may have a topic (``test_<module>_<topic>``); a layer's ``__init__`` has exactly
    ``test_<layer>``, since ``test_<layer>_<module>`` names one of its modules.
    """
    topic = r"(_\w+)?"
    expected: dict[str, tuple[str, ...]] = {}
    package = source / "sslcustomize"
    startup = source / "_sslcustomize_startup.py"
    if startup.exists():
        expected[_module_name(startup, source)] = ()
    for path in sorted(package.glob("*.py")):
        stem = "api" if path.name == "__init__.py" else path.stem
        expected[_module_name(path, source)] = (
            f"api/test_{stem}{topic}",
            f"api/test_api_{stem}{topic}",
        )
    for layer in sorted(p for p in package.iterdir() if (p / "__init__.py").exists()):
        if layer.name in NOT_MIRRORED:
            continue
        directory = layer.name.removeprefix("_")
        for path in sorted(layer.glob("*.py")):
            if path.name == "__init__.py":
                if _holds_code(path):
                    expected[_module_name(path, source)] = (f"{directory}/test_{directory}",)
                continue
            stem = path.stem.removeprefix("_")
            expected[_module_name(path, source)] = (
                f"{directory}/test_{stem}{topic}",
                f"{directory}/test_{directory}_{stem}{topic}",
            )
    return expected


def _matches(test: Path, unit: Path, patterns: tuple[str, ...]) -> bool:
    name = f"{test.parent.relative_to(unit).as_posix()}/{test.stem}"
    return any(re.fullmatch(pattern, name) for pattern in patterns)


def untested(source: Path, unit: Path) -> list[str]:
    """List the mirrored modules under ``source`` that no file under ``unit`` is named after."""
    tests = sorted(unit.rglob("test_*.py"))
    return [
        module
        for module, patterns in expected_tests(source).items()
        if not any(_matches(test, unit, patterns) for test in tests)
    ]


def unmirrored(source: Path, unit: Path) -> list[str]:
    """List the unit test files of mirrored layers named after no module (outside the layout)."""
    patterns = [p for patterns in expected_tests(source).values() for p in patterns]
    skipped = {layer.removeprefix("_") for layer in NOT_MIRRORED}
    return [
        test.relative_to(unit).as_posix()
        for test in sorted(unit.rglob("test_*.py"))
        if test.relative_to(unit).parts[0] not in skipped
        and not _matches(test, unit, tuple(patterns))
    ]


def test_every_module_has_a_unit_test_file_or_a_reason() -> None:
    """A new runtime module without tests/unit/<layer>/test_<module>.py fails here."""
    missing = sorted(set(untested(SOURCE, UNIT)) - set(COVERED_ELSEWHERE))
    assert not missing, (
        f"{missing}: add tests/unit/<layer>/test_<module>.py, or an entry in "
        "COVERED_ELSEWHERE saying which tests cover it and why not a unit test"
    )


def test_the_allow_list_is_current() -> None:
    """Each allowed module exists, has no unit test file yet, and names a test file that exists."""
    without = set(untested(SOURCE, UNIT))
    stale = sorted(set(COVERED_ELSEWHERE) - without)
    assert not stale, f"{stale}: now has a unit test file (or is gone); remove it from the list"
    for module, (reason, covered_by) in COVERED_ELSEWHERE.items():
        assert reason, module
        assert (TESTS.parent / covered_by).is_file(), (module, covered_by)


def test_every_unit_test_file_is_named_after_a_module() -> None:
    """The layout mirrors the source: no unit test file is named after nothing."""
    assert not unmirrored(SOURCE, UNIT)


@pytest.fixture
def tree(tmp_path: Path) -> tuple[Path, Path]:
    """A source tree of two layers and the unit tests of one of its modules."""
    source, unit = tmp_path / "src", tmp_path / "unit"
    for name in ("__init__.py", "exceptions.py", "_trust/__init__.py", "_trust/_anchors.py"):
        (source / "sslcustomize" / name).parent.mkdir(parents=True, exist_ok=True)
        (source / "sslcustomize" / name).write_text('"""Doc."""\n', encoding="utf-8")
    (source / "sslcustomize/_x509").mkdir()
    (source / "sslcustomize/_x509/__init__.py").write_text("X = 1\n", encoding="utf-8")
    (source / "sslcustomize/_x509/_der.py").write_text("", encoding="utf-8")
    for name in ("api/test_api.py", "trust/test_anchors_cache.py", "x509/test_x509_der.py"):
        (unit / name).parent.mkdir(parents=True, exist_ok=True)
        (unit / name).write_text("", encoding="utf-8")
    return source, unit


def test_the_check_finds_a_module_without_tests(tree: tuple[Path, Path]) -> None:
    """Attack: a new module, a public module and a layer's code without a unit test file."""
    source, unit = tree
    (source / "sslcustomize/_trust/_pins.py").write_text("", encoding="utf-8")
    (unit / "trust/test_anchorsx.py").write_text("", encoding="utf-8")
    assert untested(source, unit) == [
        "sslcustomize.exceptions",
        "sslcustomize._trust._pins",
        "sslcustomize._x509",
    ]
    assert unmirrored(source, unit) == ["trust/test_anchorsx.py"]


def test_the_check_accepts_every_form_of_the_name(tree: tuple[Path, Path]) -> None:
    """Twin: test_<module>, test_<module>_<topic> and test_<layer>_<module> all count."""
    source, unit = tree
    for name in ("api/test_exceptions.py", "x509/test_x509.py"):
        (unit / name).write_text("", encoding="utf-8")
    assert untested(source, unit) == []
    assert unmirrored(source, unit) == []


if __name__ == "__main__":
    missing = untested(SOURCE, UNIT)
    for module in missing:
        allowed = COVERED_ELSEWHERE.get(module)
        print(module, f"(elsewhere: {allowed[1]})" if allowed else "(no unit test)")
    print(f"{len(missing)} of {len(expected_tests(SOURCE))} modules without a unit test file")
    sys.exit(0)
