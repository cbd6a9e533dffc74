"""The runtime's value classes behave as dataclasses with the same options do."""

from __future__ import annotations

import copy
import dataclasses
import pickle
import subprocess
import sys
from typing import Any, Generic, TypeVar

import pytest

from sslcustomize._support import _frozen

T = TypeVar("T")


def _pair(frozen: bool = True, kw_only: bool = True) -> tuple[Any, Any]:
    """The same class built by dataclasses and by _frozen."""
    built = []
    for module in (dataclasses, _frozen):

        class Value:
            """A value."""

            name: str
            port: int | None = None
            tags: tuple[str, ...] = ()
            index: dict[str, int] = module.field(default_factory=dict, compare=False)

            def where(self) -> str:
                return f"{self.name}:{self.port}"

        built.append(module.dataclass(frozen=frozen, slots=True, kw_only=kw_only)(Value))
    return built[0], built[1]


@pytest.mark.parametrize("frozen", [True, False])
def test_same_behaviour_as_dataclasses(frozen: bool) -> None:
    """Construction, defaults, factories, repr, eq, hash and methods match dataclasses'."""
    reference, value = _pair(frozen=frozen)
    for cls in (reference, value):
        a = cls(name="a", port=1)
        assert a.where() == "a:1"
        assert a.tags == ()
        assert a.index == {}
        assert a.index is not cls(name="a").index  # a new dict per instance
        assert a == cls(name="a", port=1, index={"x": 1})  # compare=False ignored
        assert a != cls(name="a", port=2)
        assert cls.__slots__ == ("name", "port", "tags", "index")
        assert not hasattr(a, "__dict__")
    assert (
        repr(value(name="a", port=1)).split("(", 1)[1]
        == repr(reference(name="a", port=1)).split("(", 1)[1]
    )
    if frozen:
        assert hash(value(name="a")) == hash(value(name="a", index={"y": 2}))
    else:
        with pytest.raises(TypeError):
            hash(value(name="a"))


def test_frozen_refuses_assignment() -> None:
    """Assignment and deletion raise an AttributeError, as with frozen dataclasses."""
    _, value = _pair()
    item = value(name="a")
    with pytest.raises(AttributeError):
        item.name = "b"
    with pytest.raises(AttributeError):
        del item.name
    assert item.name == "a"


def test_mutable_allows_assignment() -> None:
    """Without frozen, fields can be assigned (the patcher's record of changes)."""
    _, value = _pair(frozen=False)
    item = value(name="a")
    item.name = "b"
    assert item.name == "b"


@pytest.mark.parametrize(
    ("args", "kwargs"),
    [(("a",), {}), ((), {}), ((), {"name": "a", "nope": 1})],
)
def test_bad_arguments_are_type_errors(args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
    """Positional arguments to kw_only, a missing field and an unknown one: TypeError."""
    reference, value = _pair()
    for cls in (reference, value):
        with pytest.raises(TypeError):
            cls(*args, **kwargs)


def test_positional_fields_without_kw_only() -> None:
    """Without kw_only, fields are taken by position too, in order."""
    reference, value = _pair(kw_only=False)
    assert value("a", 2) == value(name="a", port=2)
    assert reference("a", 2).port == value("a", 2).port
    with pytest.raises(TypeError):
        value("a", 2, port=3)


@_frozen.dataclass(frozen=True, slots=True, kw_only=True)
class _Picklable:  # at module level, where pickle finds classes
    name: str
    port: int | None = None
    tags: tuple[str, ...] = ()


def test_replace_copy_and_pickle() -> None:
    """replace() changes only what it names; copy and pickle round-trip frozen values."""
    item = _Picklable(name="a", port=1, tags=("t",))
    changed = _frozen.replace(item, port=2)
    assert (changed.name, changed.port, changed.tags) == ("a", 2, ("t",))
    assert item.port == 1
    assert copy.copy(item) == item
    assert copy.deepcopy(item) == item
    assert pickle.loads(pickle.dumps(item)) == item  # noqa: S301 - our own bytes


def test_generic_value_class() -> None:
    """A Generic value class stays subscriptable, as Setting[str] is in the policy."""

    @_frozen.dataclass(frozen=True, slots=True, kw_only=True)
    class Setting(Generic[T]):
        value: T

    assert Setting[str](value="x").value == "x"
    assert Setting(value=1) == Setting(value=1)


def test_a_method_the_class_defines_is_kept() -> None:
    """A class's own __str__ or __eq__ is not replaced."""

    @_frozen.dataclass(frozen=True, slots=True, kw_only=True)
    class Named:
        name: str

        def __str__(self) -> str:
            return f"<{self.name}>"

    assert str(Named(name="x")) == "<x>"


def test_the_first_context_does_not_import_dataclasses() -> None:
    """What a hooked process loads for its first context imports neither dataclasses nor inspect.

    Both cost ~20 ms at the first context of every process (measured in bench/run.py).
    """
    script = (
        "import sys, ssl, sslcustomize\n"
        "sslcustomize.inject()\n"
        "ssl.create_default_context()\n"
        "print(sorted({'dataclasses', 'inspect'} & set(sys.modules)))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    ).stdout
    assert out.strip() == "[]"


def test_replace_copies_a_dataclass_too() -> None:
    """One replace() for both kinds: the commands' dataclasses and the runtime's values."""
    reference, _ = _pair()
    item = reference(name="a", port=1)
    assert _frozen.replace(item, port=2) == reference(name="a", port=2)
