"""The process's effective runtime: a policy pinned by code changes with its runtime, at once."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from sslcustomize._policy._model import Policy
from sslcustomize._runtime import _state


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
