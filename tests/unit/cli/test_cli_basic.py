"""enable, disable and run: writing, moving and using policy files."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
import trustme

from _fixtures import WritePolicy, installed_with_hook
from sslcustomize._cli import main


@pytest.fixture
def user_policy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The user layer's policy path under an empty XDG_CONFIG_HOME."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    return tmp_path / "config" / "sslcustomize" / "policy.toml"


def test_enable_writes_safe_defaults(user_policy: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """enable --scope user writes a valid enforce policy trusting the system store."""
    assert main(["enable", "--scope", "user"]) == 0
    text = user_policy.read_text()
    assert 'mode = "enforce"' in text
    assert 'trust = ["system"]' in text
    assert "enabled:" in capsys.readouterr().out
    from sslcustomize._trust._checked_policy import read_layer

    assert read_layer("user", str(user_policy)).scalars["mode"].value == "enforce"


def test_enable_again_keeps_the_file_and_mode_edit_keeps_comments(
    user_policy: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A second enable keeps the user's file; --mode changes only the mode line."""
    main(["enable", "--scope", "user"])
    user_policy.write_text(user_policy.read_text() + "# my note\n")
    assert main(["enable", "--scope", "user"]) == 0
    assert "already enabled" in capsys.readouterr().out
    assert main(["enable", "--scope", "user", "--mode", "report"]) == 0
    text = user_policy.read_text()
    assert 'mode = "report"' in text
    assert "# my note" in text
    assert "# Trust anchors" in text


def test_disable_moves_aside_and_enable_restores(
    user_policy: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """disable keeps the file as policy.toml.disabled; enable brings the same file back."""
    main(["enable", "--scope", "user", "--mode", "report"])
    assert main(["disable", "--scope", "user"]) == 0
    assert not user_policy.exists()
    assert user_policy.with_name("policy.toml.disabled").exists()
    assert main(["disable", "--scope", "user"]) == 0
    assert "not enabled" in capsys.readouterr().out
    assert main(["enable", "--scope", "user"]) == 0
    assert 'mode = "report"' in user_policy.read_text()


def test_venv_scope_outside_a_venv_is_a_usage_error(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """--scope venv outside a virtual environment exits 2 and says what to use instead."""
    monkeypatch.setattr(sys, "base_prefix", sys.prefix)
    assert main(["enable", "--scope", "venv"]) == 2
    assert "use --scope user or system" in capsys.readouterr().err


def test_system_scope_without_permission(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Writing the system layer without permission exits 2 with what to do."""
    locked = tmp_path / "locked"
    locked.mkdir()
    monkeypatch.setattr(
        "sslcustomize._cli._enable.scope_path", lambda args: str(locked / "sub" / "policy.toml")
    )
    monkeypatch.setattr(os, "makedirs", _deny)
    monkeypatch.setattr("sslcustomize._cli._enable.make_directories", _deny)
    # The policy cannot be written, so nothing of the machine's may be hooked either: in-process
    # and as root, reaching the interpreters here would change the host itself.
    monkeypatch.setattr("sslcustomize._cli._reach.reach", _never_reached)
    assert main(["enable", "--scope", "system"]) == 2
    assert "run as root" in capsys.readouterr().err


def _deny(*args: object, **kwargs: object) -> None:
    raise PermissionError


def _never_reached(*args: object, **kwargs: object) -> int:
    raise AssertionError("enable went on to hook the machine's interpreters")


def test_unknown_command_and_bad_option_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    """Usage errors exit 2 and point at --help."""
    with pytest.raises(SystemExit) as caught:
        main(["frobnicate"])
    assert caught.value.code == 2
    assert "--help" in capsys.readouterr().err
    assert main([]) == 2


def test_run_applies_policy_to_python_child(write_policy: WritePolicy) -> None:
    """run --policy: the child Python verifies under it (its smtplib context verifies)."""
    path = write_policy("minimum_tls = '1.3'\n")
    code = (
        "import ssl,sys; c = ssl._create_stdlib_context(); "
        "sys.exit(0 if c.minimum_version == ssl.TLSVersion.TLSv1_3 else 7)"
    )
    if not installed_with_hook():
        pytest.skip("needs a wheel install (the .pth hook): nox -s tests, not fast")
    assert main(["run", "--policy", str(path), "--", sys.executable, "-c", code]) == 0
    assert main(["run", "--", sys.executable, "-c", "import sys; sys.exit(3)"]) == 3


def test_run_mode_and_ca_reach_the_child(write_policy: WritePolicy, tmp_path: Path) -> None:
    """run --mode/--ca write a process layer that adds the CA to the system store."""
    ca = write_policy(trustme.CA().cert_pem.bytes().decode(), name="ca.pem")
    out = tmp_path / "out.txt"
    code = (
        "import os,sys; from sslcustomize._trust._checked_policy import load_policy; "
        "p = load_policy(); "
        f"open({str(out)!r},'w').write(p.mode.value + ' ' + ' '.join(map(str, p.trust)))"
    )
    assert main(["run", "--mode", "report", "--ca", str(ca), "--", sys.executable, "-c", code]) == 0
    assert out.read_text() == f"report system {ca}"


def test_run_ca_file_name_cannot_inject_toml(tmp_path: Path) -> None:
    """A --ca file name holding TOML syntax stays one string: it cannot set report mode."""
    ca = tmp_path / 'ca.pem"]\nmode = "report"\n#'
    ca.write_text(trustme.CA().cert_pem.bytes().decode())
    out = tmp_path / "out.txt"
    code = (
        "from sslcustomize._trust._checked_policy import load_policy; p = load_policy(); "
        f"open({str(out)!r},'w').write(p.mode.value + '|' + '|'.join(map(str, p.trust)))"
    )
    assert main(["run", "--ca", str(ca), "--", sys.executable, "-c", code]) == 0
    assert out.read_text() == f"enforce|system|{ca}"


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["run"], "nothing to run"),
        (["run", "--", "no-such-command-xyz"], "command not found"),
        (["run", "--ca", "/nope.pem", "--", "true"], "--ca /nope.pem: no such file"),
        (["run", "--policy", "/nope.toml", "--", "true"], "--policy /nope.toml: no such file"),
    ],
)
def test_run_usage_errors(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """run's mistakes exit 2 with a sentence saying what is wrong."""
    assert main(argv) == 2
    assert message in capsys.readouterr().err


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    """--version prints the package's version and exits 0."""
    import sslcustomize

    with pytest.raises(SystemExit) as caught:
        main(["--version"])
    assert caught.value.code == 0
    assert capsys.readouterr().out.strip() == f"sslcustomize {sslcustomize.__version__}"


def test_enable_and_disable_json_say_whether_anything_changed(
    user_policy: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """--json: changed only when a file was written, restored or moved; the text kept inside."""
    import json

    runs = [
        (["enable", "--scope", "user"], True),  # written
        (["enable", "--scope", "user"], False),  # already enabled
        (["enable", "--scope", "user", "--mode", "enforce"], False),  # already that mode
        (["enable", "--scope", "user", "--mode", "report"], True),
        (["disable", "--scope", "user"], True),  # moved aside
        (["disable", "--scope", "user"], False),  # nothing to disable
        (["enable", "--scope", "user"], True),  # restored
    ]
    for argv, changed in runs:
        assert main([*argv, "--json"]) == 0
        document = json.loads(capsys.readouterr().out)
        assert document["version"] == 1
        assert document["changed"] is changed, (argv, document)
        assert document["messages"], argv  # what the text would have said
    assert 'mode = "report"' in user_policy.read_text()
