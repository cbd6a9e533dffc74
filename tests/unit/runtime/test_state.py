"""The process's effective runtime: read once on first use, replaced whole, fail closed."""

from __future__ import annotations

import pytest

from _fixtures import WritePolicy
from sslcustomize._policy._model import Policy, Setting
from sslcustomize._runtime._state import announce, current_policy, current_runtime, set_policy
from sslcustomize.exceptions import PolicyError, PolicyWarning


def test_the_files_are_read_once_and_kept(
    write_policy: WritePolicy, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The first call reads SSLCUSTOMIZE_POLICY; later calls return the same runtime."""
    monkeypatch.setenv("SSLCUSTOMIZE_POLICY", str(write_policy("mode = 'report'\n")))
    runtime = current_runtime()
    assert runtime.policy.mode.value == "report"
    monkeypatch.setenv("SSLCUSTOMIZE_POLICY", str(write_policy("mode = 'enforce'\n")))
    assert current_runtime() is runtime
    set_policy(None)  # re-read the files
    assert current_policy().mode.value == "enforce"


def test_a_broken_file_fails_closed_and_says_so_once(
    write_policy: WritePolicy, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Attack: a bad mode gives enforce with the system store, and one stderr message."""
    path = write_policy("mode = 'off'\n")
    monkeypatch.setenv("SSLCUSTOMIZE_POLICY", str(path))
    policy = current_policy()
    current_policy()
    assert policy.fallback
    assert policy.mode.value == "enforce"
    err = capsys.readouterr().err
    assert err.count(f"sslcustomize: {path}:1") == 1
    assert "until this is fixed" in err


def test_a_new_policy_is_a_new_runtime() -> None:
    """set_policy replaces the runtime; the old one is not reused."""
    set_policy(Policy(mode=Setting(value="report")))
    old = current_runtime()
    set_policy(Policy())
    assert current_runtime() is not old
    assert current_policy().mode.value == "enforce"
    assert old.policy.mode.value == "report"


def test_announce_warns_of_each_locked_key(capsys: pytest.CaptureFixture[str]) -> None:
    """Lock warnings are PolicyWarnings; errors go to stderr with what applies instead."""
    error = PolicyError("bad", path="/p.toml", line=2, key="mode")
    with pytest.warns(PolicyWarning, match="'mode' is locked"):
        announce(Policy(errors=(error,), warnings=("/u.toml:1: 'mode' is locked by /s.toml:2",)))
    assert "sslcustomize: /p.toml:2: mode: bad\nsslcustomize: using strict defaults" in (
        capsys.readouterr().err
    )
