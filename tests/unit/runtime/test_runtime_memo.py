"""What a runtime remembers for the command line goes with it, not with a module."""

from __future__ import annotations

import gc
import weakref

from sslcustomize._policy._model import Policy
from sslcustomize._runtime._runtime import Runtime


class _Result:
    """A value whose lifetime a weak reference can watch."""


def test_a_memo_is_built_once_per_runtime() -> None:
    """memo() builds a key's value once; the same runtime returns it again."""
    runtime = Runtime(Policy())
    built: list[_Result] = []

    def build() -> _Result:
        built.append(_Result())
        return built[-1]

    first = runtime.memo("key", build)
    assert runtime.memo("key", build) is first
    assert built == [first]


def test_a_memo_does_not_outlive_its_runtime() -> None:
    """Twin: another runtime builds its own, and a dropped runtime's values are freed."""
    runtime = Runtime(Policy())
    value = runtime.memo("key", _Result)
    other = Runtime(Policy())
    assert other.memo("key", _Result) is not value
    watched = weakref.ref(value)
    del runtime, value
    gc.collect()
    assert watched() is None
