"""Stand-ins for the few :mod:`typing` names the hook's runtime uses outside annotations.

Importing :mod:`typing` costs a fresh process about 10 ms (with :mod:`contextlib`): a third
of what the first context under a policy may cost. Annotations are never evaluated here
(``from __future__ import annotations``), so only these are met at run time: ``TypeVar(...)``
and ``Generic[T]`` in class statements, ``Literal[...]`` and ``Any`` in module-level type
aliases, and ``cast``. Modules import them as::

    TYPE_CHECKING = False
    if TYPE_CHECKING:
        from typing import Any, Generic, Literal, TypeVar, cast
    else:
        from ._notyping import Any, Generic, Literal, TypeVar, cast

Type checkers read the first branch (they take any ``TYPE_CHECKING`` as true); the program
runs the second. Nothing here has a meaning at run time: ``Generic[T]`` adds no base class,
``Literal[...]`` and ``Any`` are placeholders, ``cast`` returns its value.
"""

from __future__ import annotations

__all__ = ["Any", "Generic", "Literal", "TypeVar", "cast"]


class _Form:
    """A subscriptable placeholder; as a base class it adds nothing (``__mro_entries__``)."""

    __slots__ = ("_name",)

    def __init__(self, name: str) -> None:
        self._name = name

    def __getitem__(self, parameters: object) -> _Form:
        return self

    def __mro_entries__(self, bases: tuple[type, ...]) -> tuple[type, ...]:
        return ()

    def __repr__(self) -> str:
        return f"sslcustomize._support._notyping.{self._name}"


Any = _Form("Any")
Generic = _Form("Generic")
Literal = _Form("Literal")


def TypeVar(name: str, *constraints: object, **options: object) -> str:  # noqa: N802 - typing's
    """Return the name: a type variable means nothing at run time."""
    return name


def cast(kind: object, value: object) -> object:
    """Return ``value`` unchanged, as :func:`typing.cast` does."""
    return value
