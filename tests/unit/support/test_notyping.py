"""The typing stand-ins of the hook's runtime: meaningless at run time, and harmless."""

from __future__ import annotations

from sslcustomize._support._notyping import Any, Generic, Literal, TypeVar, cast


def test_generic_adds_no_base_class() -> None:
    """A class written over Generic[T] derives from object alone."""
    t = TypeVar("T")
    namespace: dict[str, object] = {}
    exec("class Box(Generic[t]):\n    pass\n", {"Generic": Generic, "t": t}, namespace)  # noqa: S102 - a class statement, the way modules use it
    box = namespace["Box"]
    assert isinstance(box, type)
    assert box.__mro__ == (box, object)


def test_forms_are_subscriptable_placeholders() -> None:
    """Literal[...] and Any[...] give the placeholder back; its repr names it."""
    assert Literal["enforce", "report"] is Literal
    assert Any[int] is Any
    assert repr(Any) == "sslcustomize._support._notyping.Any"


def test_typevar_and_cast_do_nothing() -> None:
    """TypeVar returns its name; cast returns its value itself."""
    assert TypeVar("T", bound=int) == "T"
    value = object()
    assert cast(int, value) is value
