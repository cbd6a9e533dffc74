"""Value classes for the hook's runtime, without the start-up cost of :mod:`dataclasses`.

The modules a hooked process loads at its first TLS context declare their values with
``@dataclass(frozen=True, slots=True, kw_only=True)`` imported from here. Type checkers see
:func:`dataclasses.dataclass` itself; at run time this module builds the same classes without
importing :mod:`dataclasses` (which imports :mod:`inspect` and :mod:`ast`, ~20 ms on the
development machine) and without compiling generated source for each class (~2 ms each, about
thirty classes): the methods are shared functions that read the class's list of fields.

What the classes do is what dataclasses do with these options: an ``__init__`` taking the
fields by keyword (``kw_only``) or also by position, defaults and
``field(default_factory=..., compare=...)``, ``__repr__``, ``__eq__`` over the compared fields
of the same class, ``__hash__`` when frozen, ``__slots__``, assignment refused on frozen
instances (:class:`FrozenInstanceError`, an ``AttributeError``), pickling and :mod:`copy`; a
method the class defines itself is kept. :func:`replace` is :func:`dataclasses.replace` for
them. Not supported (not used here): ``__post_init__``, ``init=False``, ``ClassVar`` fields,
inheritance between value classes, ordering. ``tests/unit/support/test_frozen.py`` holds them
to the behaviour of :mod:`dataclasses`.
"""

from __future__ import annotations

__all__ = ["FrozenInstanceError", "dataclass", "field", "replace"]

TYPE_CHECKING = False  # not typing.TYPE_CHECKING: importing typing is a cost this module avoids
if TYPE_CHECKING:
    from dataclasses import FrozenInstanceError, dataclass, field, replace
else:
    from operator import attrgetter

    _MISSING = object()

    class FrozenInstanceError(AttributeError):
        """Assignment to a field of a frozen value."""

    class _Field:
        __slots__ = ("compare", "default", "default_factory")

        def __init__(self, default: object, default_factory: object, *, compare: bool) -> None:
            self.default = default
            self.default_factory = default_factory
            self.compare = compare

    def field(
        *, default: object = _MISSING, default_factory: object = _MISSING, compare: bool = True
    ) -> object:
        """A field's default (or factory) and whether it takes part in ``==`` and ``hash``."""
        return _Field(default, default_factory, compare=compare)

    def _init(self: object, *args: object, **kwargs: object) -> None:
        cls = type(self)
        if args:
            _positional(cls, args, kwargs)
        pop = kwargs.pop
        for name, store, default in cls.__value_init__:
            value = pop(name, default)
            if value.__class__ is _Field:
                value = value.default_factory()  # type: ignore[attr-defined]
            elif value is _MISSING:
                raise TypeError(f"{cls.__name__}() missing required argument: {name!r}")
            store(self, value)
        if kwargs:
            unexpected = ", ".join(map(repr, kwargs))
            raise TypeError(f"{cls.__name__}() got unexpected keyword arguments: {unexpected}")

    def _positional(cls: type, args: tuple[object, ...], kwargs: dict[str, object]) -> None:
        """Move positional arguments into ``kwargs`` under their fields' names."""
        names = cls.__value_fields__
        if cls.__value_kw_only__:
            raise TypeError(f"{cls.__name__}() takes keyword arguments only")
        if len(args) > len(names):
            raise TypeError(f"{cls.__name__}() takes at most {len(names)} arguments")
        for name, value in zip(names, args, strict=False):
            if name in kwargs:
                raise TypeError(f"{cls.__name__}() got multiple values for {name!r}")
            kwargs[name] = value

    def _compared(self: object) -> tuple[object, ...]:
        return type(self).__value_compared__(self)  # type: ignore[no-any-return]

    def _eq(self: object, other: object) -> bool:
        if other.__class__ is self.__class__:
            return _compared(self) == _compared(other)
        return NotImplemented

    def _hash(self: object) -> int:
        return hash(_compared(self))

    def _repr(self: object) -> str:
        cls = type(self)
        inner = ", ".join(f"{name}={getattr(self, name)!r}" for name in cls.__value_fields__)
        return f"{cls.__qualname__}({inner})"

    def _frozen_setattr(self: object, name: str, value: object) -> None:
        raise FrozenInstanceError(f"cannot assign to field {name!r}")

    def _frozen_delattr(self: object, name: str) -> None:
        raise FrozenInstanceError(f"cannot delete field {name!r}")

    def _getstate(self: object) -> list[object]:
        return [getattr(self, name) for name in type(self).__value_fields__]

    def _setstate(self: object, state: list[object]) -> None:
        for name, value in zip(type(self).__value_fields__, state, strict=True):
            object.__setattr__(self, name, value)

    def _tuple_getter(names: tuple[str, ...]) -> object:
        """A C-speed function returning the tuple of those attributes (one name, too)."""
        if len(names) == 1:
            single = attrgetter(names[0])
            return staticmethod(lambda obj: (single(obj),))
        return staticmethod(attrgetter(*names)) if names else staticmethod(lambda _obj: ())

    def _defaults(namespace: dict[str, object], names: tuple[str, ...]) -> dict[str, object]:
        """Take the fields' defaults out of the class body: a value, or a ``_Field``."""
        defaults = {}
        for name in names:
            if name not in namespace:
                continue
            value = namespace.pop(name)
            if not isinstance(value, _Field):
                defaults[name] = value
            elif value.default is not _MISSING:
                defaults[name] = value.default
            elif value.default_factory is not _MISSING:
                defaults[name] = value  # called for each instance
        return defaults

    def _build(cls: type, *, frozen: bool, kw_only: bool) -> type:
        # The class's own annotations, in order (inspect.get_annotations would import inspect).
        names = tuple(cls.__dict__.get("__annotations__", {}))  # noqa: RUF063
        body = cls.__dict__
        compared = tuple(
            name
            for name in names
            if not (isinstance(body.get(name), _Field) and not body[name].compare)
        )
        namespace = dict(body)
        defaults = _defaults(namespace, names)
        namespace.pop("__dict__", None)
        namespace.pop("__weakref__", None)
        namespace.update(
            __slots__=names,
            __value_fields__=names,
            __value_kw_only__=kw_only,
        )
        methods = {
            "__init__": _init,
            "__repr__": _repr,
            "__eq__": _eq,
            "__getstate__": _getstate,
            "__setstate__": _setstate,
            "__match_args__": () if kw_only else names,
        }
        if frozen:
            methods.update(__hash__=_hash, __setattr__=_frozen_setattr, __delattr__=_frozen_delattr)
        elif "__eq__" not in body:
            methods["__hash__"] = None  # mutable and compared by value: unhashable
        namespace.update(
            (name, method)
            for name, method in methods.items()
            if name not in body or (name == "__hash__" and body[name] is None)
        )
        namespace["__value_compared__"] = _tuple_getter(compared)
        built = type(cls)(cls.__name__, cls.__bases__, namespace)
        # Each field's slot is set through its descriptor (past a frozen __setattr__), with its
        # default, _MISSING when it has none, or the _Field whose factory makes it.
        built.__value_init__ = tuple(
            (name, built.__dict__[name].__set__, defaults.get(name, _MISSING)) for name in names
        )
        return built

    def dataclass(
        cls: type | None = None,
        /,
        *,
        frozen: bool = False,
        slots: bool = True,
        kw_only: bool = False,
    ) -> object:
        """Build a value class as :func:`dataclasses.dataclass` would (always slotted)."""
        del slots

        def wrap(cls: type) -> type:
            return _build(cls, frozen=frozen, kw_only=kw_only)

        return wrap if cls is None else wrap(cls)

    def replace(obj: object, /, **changes: object) -> object:
        """Return a copy of ``obj`` with ``changes``, as :func:`dataclasses.replace` does.

        A dataclass (the commands' own values) is copied by :func:`dataclasses.replace`.
        """
        cls = type(obj)
        if not hasattr(cls, "__value_fields__"):
            import dataclasses  # noqa: PLC0415 - only the commands have dataclasses

            return dataclasses.replace(obj, **changes)
        values = {name: getattr(obj, name) for name in cls.__value_fields__}
        values.update(changes)
        return cls(**values)
