"""The process's effective runtime: read once on first use, replaced whole, fail closed; a
policy pinned by code changes with its runtime, at once."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from _fixtures import WritePolicy
from sslcustomize._policy._model import Policy, Setting
from sslcustomize._runtime import _state
from sslcustomize._runtime._state import announce, current_policy, current_runtime, set_policy
from sslcustomize.exceptions import PolicyError, PolicyWarning


@pytest.fixture(autouse=True)
def _files_again() -> Iterator[None]:
    """Leave the effective policy to the files after each test, as it was before."""
    yield
    _state.set_policy(None)


def test_a_pinned_policy_goes_back_to_the_files_with_its_runtime() -> None:
    """unpin() drops the pinned policy's runtime and the mark in one step, once."""
    policy = Policy()
    _state.set_policy(policy, pinned=True)
    runtime = _state.current_runtime()
    assert runtime.policy is policy
    assert _state.unpin() is True
    assert _state._runtime is None  # the files are read again at the next context
    assert _state.unpin() is False


def test_a_policy_set_without_pinning_is_not_unpinned() -> None:
    """Twin: set_policy() without pinned, or set_policy(None), leaves nothing for unpin()."""
    policy = Policy()
    _state.set_policy(policy)
    assert _state.unpin() is False
    assert _state.current_runtime().policy is policy
    _state.set_policy(policy, pinned=True)
    _state.set_policy(None)
    assert _state.unpin() is False


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
