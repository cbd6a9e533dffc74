"""The ``lint`` command through its own parser: formats, exit codes, selection, suppression."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from _lint_cli import run

INSECURE = 'import requests\nrequests.get("https://x", verify=False)\n'


@pytest.fixture
def insecure(tmp_path: Path) -> Path:
    path = tmp_path / "app.py"
    path.write_text(INSECURE)
    return path


def test_clean_exits_zero(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A clean tree exits 0 and prints no finding."""
    (tmp_path / "ok.py").write_text('import requests\nrequests.get("https://x")\n')
    assert run(str(tmp_path)) == 0
    assert capsys.readouterr().out == ""


def test_findings_exit_one_text(insecure: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Findings exit 1; text lines are ``path:line:col: CODE message`` plus the fix."""
    assert run(str(insecure)) == 1
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith(f"{insecure}:2:27: SSC101 ")
    assert out[1].startswith("    fix: ")
    assert "sslcustomize trust HOST" in out[1]
    assert "create_legacy_context()" in out[1]


def test_configurable_weakening_is_listed_but_does_not_fail(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An opt-out option (SSC801) is listed as a note and exits 0; its twin, a default, exits 1."""
    option = tmp_path / "option.py"
    option.write_text(
        "import ssl\n\n\ndef connect(validate_certs=True):\n"
        "    ctx = ssl.create_default_context()\n"
        "    if not validate_certs:\n"
        "        ctx.check_hostname = False\n"
        "        ctx.verify_mode = ssl.CERT_NONE\n"
        "    return ctx\n"
    )
    assert run(str(option)) == 0
    captured = capsys.readouterr()
    assert " SSC801 " in captured.out
    assert "0 finding(s)" in captured.err
    default = tmp_path / "default.py"
    default.write_text(option.read_text().replace("validate_certs=True", "validate_certs=False"))
    assert run(str(default)) == 1


def test_exit_zero(insecure: Path) -> None:
    """--exit-zero exits 0 even with findings."""
    assert run("--exit-zero", str(insecure)) == 0


def test_missing_path_is_usage_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A path that does not exist exits 2."""
    assert run(str(tmp_path / "nope")) == 2
    assert "no such file" in capsys.readouterr().err


def test_unknown_code_is_usage_error(insecure: Path) -> None:
    """An unknown rule code in --select or --ignore exits 2."""
    assert run("--select", "SSC999", str(insecure)) == 2
    assert run("--ignore", "XYZ", str(insecure)) == 2


def test_bad_format_is_usage_error(insecure: Path) -> None:
    """An unknown --format is rejected by argparse with exit 2."""
    with pytest.raises(SystemExit) as info:
        run("--format", "xml", str(insecure))
    assert info.value.code == 2


def test_json(insecure: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """JSON output carries version 1, the finding, its rule texts and the fix."""
    assert run("--format", "json", str(insecure)) == 1
    data = json.loads(capsys.readouterr().out)
    assert data["version"] == 1
    assert data["files"] == 1
    [finding] = data["findings"]
    assert finding["code"] == "SSC101"
    assert (finding["line"], finding["column"]) == (2, 27)
    assert finding["family"] == "http-client-flags"
    assert "sslcustomize trust HOST" in finding["fix"]


def test_select_and_ignore(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """--select keeps matching prefixes, --ignore drops them."""
    path = tmp_path / "two.py"
    path.write_text(INSECURE + "import smtplib\nsmtplib.SMTP_SSL('h')\n")
    assert run("--format", "json", "--select", "SSC6", str(path)) == 1
    codes = [f["code"] for f in json.loads(capsys.readouterr().out)["findings"]]
    assert codes == ["SSC601"]
    assert run("--format", "json", "--ignore", "SSC601,SSC1", str(path)) == 0
    assert json.loads(capsys.readouterr().out)["findings"] == []


def test_suppression_with_reason(tmp_path: Path) -> None:
    """``# sslcustomize: allow(reason)`` on the finding's line suppresses it."""
    path = tmp_path / "a.py"
    path.write_text(INSECURE.rstrip() + "  # sslcustomize: allow(loopback test server)\n")
    assert run(str(path)) == 0


def test_suppression_is_scoped_to_its_line(tmp_path: Path) -> None:
    """A suppression on another line does not hide the finding."""
    path = tmp_path / "a.py"
    path.write_text("# sslcustomize: allow(whole file)\n" + INSECURE)
    assert run(str(path)) == 1


def test_allow_without_reason(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``allow()`` without a reason suppresses nothing and is reported as SSC001."""
    path = tmp_path / "a.py"
    path.write_text(INSECURE.rstrip() + "  # sslcustomize: allow( )\n")
    assert run("--format", "json", str(path)) == 1
    codes = [f["code"] for f in json.loads(capsys.readouterr().out)["findings"]]
    assert codes == ["SSC001", "SSC101"]


def test_allow_in_a_string_is_not_a_suppression(tmp_path: Path) -> None:
    """Only comments suppress: the marker inside a string does not."""
    path = tmp_path / "a.py"
    path.write_text('import requests\nrequests.get("# sslcustomize: allow(x)", verify=False)\n')
    assert run(str(path)) == 1


def test_legacy_context_has_its_own_code(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """create_legacy_context() is reported as SSC901, a visible opt-out."""
    path = tmp_path / "a.py"
    path.write_text("import sslcustomize\nctx = sslcustomize.create_legacy_context()\n")
    assert run("--format", "json", str(path)) == 1
    [finding] = json.loads(capsys.readouterr().out)["findings"]
    assert (finding["code"], finding["level"]) == ("SSC901", "note")


def test_parse_error_is_reported_and_skipped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An unparseable file is named on stderr and does not change the exit status."""
    (tmp_path / "broken.py").write_text("import ssl\ndef (:\n")
    assert run(str(tmp_path)) == 0
    assert "broken.py: cannot parse" in capsys.readouterr().err


def test_main_dispatches_to_lint(
    insecure: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``sslcustomize._cli.main(["lint", ...])`` runs this command (other commands stubbed)."""
    import sslcustomize._cli as cli

    monkeypatch.setattr(cli, "COMMANDS", ("lint",))
    assert cli.main(["lint", str(insecure)]) == 1
    assert "SSC101" in capsys.readouterr().out


def test_pre_commit_hook_definition() -> None:
    """.pre-commit-hooks.yaml installs the linter's distribution and runs its script."""
    root = Path(__file__).parents[2]
    hooks = (root / ".pre-commit-hooks.yaml").read_text(encoding="utf-8")
    assert "- id: sslcustomize-lint\n" in hooks
    assert "  entry: sslcustomize-lint\n" in hooks
    assert '  additional_dependencies: ["./lint"]\n' in hooks
    assert "  language: python\n" in hooks
    assert "types_or: [python, pyi]" in hooks
    script = 'sslcustomize-lint = "sslcustomize_lint._command:entrypoint"'
    assert script in (root / "lint" / "pyproject.toml").read_text()


def test_standalone_script_is_the_same_command(insecure: Path, tmp_path: Path) -> None:
    """``sslcustomize-lint PATH`` reports what ``sslcustomize lint PATH`` does, exit 1 and 0."""
    script = Path(sys.executable).parent / "sslcustomize-lint"
    found = subprocess.run(
        [str(script), "--isolated", str(insecure)], capture_output=True, text=True, check=False
    )
    assert found.returncode == 1, found.stderr
    assert "SSC101" in found.stdout
    clean = tmp_path / "clean.py"
    clean.write_text("import requests\nrequests.get('https://example.org', timeout=5)\n")
    done = subprocess.run(
        [str(script), "--isolated", str(clean)], capture_output=True, text=True, check=False
    )
    assert (done.returncode, done.stdout) == (0, ""), done.stderr


def test_without_the_linter_lint_says_how_to_install_it(tmp_path: Path) -> None:
    """Without sslcustomize-lint, ``lint`` exits 2 with the pip command; other commands work."""
    script = (
        "import sys\n"
        "sys.modules['sslcustomize_lint'] = None  # as if not installed\n"
        "from sslcustomize._cli import main\n"
        "print(main(sys.argv[1:]))\n"
    )
    for argv in (["lint", str(tmp_path)], ["lint", "--help"], ["lint"]):
        done = subprocess.run(
            [sys.executable, "-c", script, *argv], capture_output=True, text=True, check=False
        )
        assert done.stdout == "2\n", done.stderr
        assert f"{sys.executable} -m pip install sslcustomize-lint" in done.stderr
    helped = subprocess.run(
        [sys.executable, "-c", script, "--help"], capture_output=True, text=True, check=False
    )
    assert "lint" in helped.stdout
    assert "Traceback" not in helped.stderr


def test_linter_imports_nothing_from_sslcustomize(insecure: Path) -> None:
    """The linter's distribution runs with the sslcustomize package unimportable."""
    script = (
        "import sys\n"
        "sys.modules['sslcustomize'] = None  # any import of it fails\n"
        "from sslcustomize_lint import main\n"
        "print(main(['--isolated', sys.argv[1]]))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script, str(insecure)], capture_output=True, text=True, check=False
    )
    assert done.stdout.splitlines()[-1] == "1", done.stderr
    assert "SSC101" in done.stdout


def test_lint_does_not_import_what_it_does_not_use(insecure: Path) -> None:
    """A JSON run outside a configured project loads neither typing nor importlib.metadata.

    Start-up is part of the linter's speed on a tree (``bench/lint_bench.py``):

    ``importlib.metadata`` (for the version) alone took ~150 ms on the development VM, a tenth
    of linting the standard library.
    """
    script = (
        "import sys\n"
        "from sslcustomize._cli import main\n"
        "status = main(['lint', '--format', 'json', sys.argv[1]])\n"
        "unwanted = {'typing', 'importlib.metadata', 'signal', 'tomllib'}\n"
        "print(sorted(unwanted & set(sys.modules)), file=sys.stderr)\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", script, insecure.name],
        capture_output=True,
        text=True,
        check=False,
        cwd=insecure.parent,  # no pyproject.toml: tomllib is not needed
    )
    assert proc.stderr.strip().splitlines()[-1] == "[]"
    assert json.loads(proc.stdout)["findings"][0]["code"] == "SSC101"


def test_console_script_ends_without_teardown_and_loses_no_output(tmp_path: Path) -> None:
    """``python -m sslcustomize lint`` ends at once (no exit handler runs) with all its output.

    The output is large enough to sit in stdout's buffer when the process ends; an exit
    handler registered before the command shows that the teardown is skipped.
    """
    for i in range(300):
        (tmp_path / f"m{i}.py").write_text(INSECURE)
    script = (
        "import atexit, sys\n"
        "atexit.register(lambda: print('teardown ran', file=sys.stderr))\n"
        "from sslcustomize._cli import entrypoint\n"
        "sys.argv = ['sslcustomize', 'lint', '--format', 'json', sys.argv[1]]\n"
        "entrypoint()\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", script, str(tmp_path)], capture_output=True, text=True, check=False
    )
    assert proc.returncode == 1
    assert len(json.loads(proc.stdout)["findings"]) == 300
    assert "teardown ran" not in proc.stderr


def test_console_script_stops_quietly_when_its_reader_goes(tmp_path: Path) -> None:
    """``sslcustomize lint | head -1``: no traceback from the flush before the quick exit.

    The status is the findings' (1) when the output went out in one write that the closed pipe
    cut short, or 141 (as for SIGPIPE) when a later write failed.
    """
    for i in range(300):
        (tmp_path / f"m{i}.py").write_text(INSECURE)
    proc = subprocess.Popen(
        [sys.executable, "-m", "sslcustomize", "lint", str(tmp_path)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdout is not None
    assert proc.stderr is not None
    assert proc.stdout.readline().startswith(str(tmp_path).encode())
    proc.stdout.close()  # the reader goes away while the linter still writes
    err = proc.stderr.read()
    proc.stderr.close()
    assert proc.wait() in {1, 141}
    assert b"Traceback" not in err
    assert err.endswith(b"300 finding(s) in 300 file(s)\n") or proc.returncode == 141


@pytest.mark.parametrize("collecting", [True, False])
@pytest.mark.parametrize("command", ["sslcustomize-lint", "sslcustomize lint"])
def test_an_in_process_lint_gives_back_the_collector_as_it_found_it(
    collecting: bool, command: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The run switches the cyclic collector off; a caller in the same process gets it back."""
    import gc

    from sslcustomize._cli import main as sslcustomize_main
    from sslcustomize_lint import main as lint_main

    source = tmp_path / "weak.py"
    source.write_text("import requests\nrequests.get(URL, verify=False)\n", encoding="utf-8")

    def lint(arguments: list[str]) -> int:
        if command == "sslcustomize-lint":
            return lint_main(arguments)
        return sslcustomize_main(["lint", *arguments])

    try:
        if not collecting:
            gc.disable()
        assert lint([str(source)]) == 1  # a finding: the lint ran
        capsys.readouterr()
        assert gc.isenabled() is collecting
    finally:
        gc.enable()
