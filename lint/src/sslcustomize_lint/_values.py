"""What the analyzer knows about an expression: a small abstract value."""

from __future__ import annotations

import ast

TYPE_CHECKING = False  # not typing's: the lint command does not import typing
if TYPE_CHECKING:
    from typing import Final, TypeAlias

__all__ = [
    "UNKNOWN",
    "Const",
    "ContextState",
    "DictVal",
    "Instance",
    "Method",
    "Param",
    "Partial",
    "Ref",
    "SeqVal",
    "Unknown",
    "Value",
]

# Plain classes with ``__slots__``, not dataclasses: importing :mod:`dataclasses` and generating
# these classes cost the lint command ~20 ms at start (a third of its start-up), and the
# analysis makes about 100,000 values on the standard library, for which a plain ``__init__``
# is the fastest. Fields are ``Final``: a value does not change once made.


class _Value:
    """Equality, hash and repr over the fields (``__slots__``), as a frozen dataclass has."""

    __slots__: tuple[str, ...] = ()

    def _fields(self) -> tuple[object, ...]:
        return tuple(getattr(self, name) for name in self.__slots__)

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and self._fields() == other._fields()

    def __hash__(self) -> int:
        return hash((type(self), *self._fields()))

    def __repr__(self) -> str:
        fields = ", ".join(f"{n}={getattr(self, n)!r}" for n in self.__slots__)
        return f"{type(self).__name__}({fields})"


class Unknown(_Value):
    """Nothing is known about the value."""

    __slots__ = ()


UNKNOWN = Unknown()


class Const(_Value):
    """A literal: bool, str, int, bytes or None; ``node`` is where it was written."""

    __slots__ = ("node", "value")

    def __init__(self, value: object, node: ast.AST) -> None:
        self.value: Final = value
        self.node: Final = node


class Ref(_Value):
    """A module-level object reached by a dotted name: ``ssl.CERT_NONE``, ``requests.get``."""

    __slots__ = ("qualname",)

    def __init__(self, qualname: str) -> None:
        self.qualname: Final = qualname


class ContextState:
    """An ``ssl.SSLContext`` followed from its creation through its attribute changes to its use.

    ``origin`` is how it was made: ``default`` (a verifying client context), ``bare`` (a legacy
    protocol, no verification), ``server``, ``client`` (``PROTOCOL_TLS_CLIENT``),
    ``client_auth`` (``Purpose.CLIENT_AUTH``: meant for servers), ``unverified`` (the private
    factories), ``pyopenssl`` (``OpenSSL.SSL.Context``: ``VERIFY_NONE`` until told), or ``other``.
    ``client`` is set when the context is handed to a client API; ``mode_required`` and
    ``hostname_on`` when verification is switched (back) on. A weakening undone before the
    context's first use by a client (``verify_mode = CERT_REQUIRED`` after ``CERT_NONE``,
    ``check_hostname = True`` after ``False``) is dropped; ``used_unrepaired`` and the
    weakenings left when a client first used it are what that client got. Compared by
    identity: each is one context object of the analyzed code.
    """

    __slots__ = (
        "client",
        "hostname_on",
        "mode_required",
        "node",
        "optout",
        "origin",
        "peer_verify",
        "scope",
        "server",
        "server_hint",
        "used_chain_only",
        "used_unrepaired",
        "verified",
        "weakenings",
    )

    def __init__(self, origin: str, node: ast.AST, scope: ast.AST, *, optout: bool = False) -> None:
        self.origin = origin
        self.node = node
        self.scope = scope
        self.server = False
        self.server_hint = False
        self.verified = False
        self.peer_verify = False  # pyOpenSSL: ``set_verify`` named ``VERIFY_PEER``
        self.client = False
        self.mode_required = False
        self.hostname_on = False
        self.optout = optout
        self.weakenings: list[tuple[str, ast.AST]] = []
        self.used_unrepaired = False
        self.used_chain_only = False

    def chain_only(self) -> bool:
        """Tell whether the chain is verified and the name is not (``CERT_REQUIRED`` alone)."""
        weak_mode = any(code == "SSC201" for code, _ in self.weakenings)
        return self.mode_required and not self.hostname_on and not weak_mode

    def use_by_client(self) -> None:
        """Record a client's use: what is weak now stays reported whatever comes after."""
        if not self.client:
            self.client = True
            self.used_unrepaired = not (self.mode_required and self.hostname_on)
            self.used_chain_only = self.chain_only()

    def repair(self, code: str) -> None:
        """Drop the weakenings with ``code`` not yet seen by a client (it has been undone)."""
        if not self.client:
            self.weakenings = [item for item in self.weakenings if item[0] != code]


class Instance(_Value):
    """An object of an evident type, such as ``requests.Session``."""

    __slots__ = ("context", "qualname")

    def __init__(self, qualname: str, context: ContextState | None = None) -> None:
        self.qualname: Final = qualname
        self.context: Final = context


class Method(_Value):
    """An attribute looked up on an instance (``type_name`` known) or an unknown receiver."""

    __slots__ = ("attr", "receiver", "type_name")

    def __init__(self, type_name: str | None, attr: str, receiver: Value) -> None:
        self.type_name: Final = type_name
        self.attr: Final = attr
        self.receiver: Final = receiver


class DictVal(_Value):
    """A dict literal or ``dict(...)`` call with string keys.

    ``has_unknown`` is true for a dict that holds unknown entries besides these: a parameter
    (``**kwargs``) given ``kwargs["cert_reqs"] = CERT_NONE``.
    """

    __slots__ = ("entries", "has_unknown", "node")

    def __init__(
        self, entries: dict[str, Value], node: ast.AST, *, has_unknown: bool = False
    ) -> None:
        self.entries: Final = entries
        self.node: Final = node
        self.has_unknown: Final = has_unknown


class SeqVal(_Value):
    """A list or tuple literal, or a string concatenation, as its items.

    ``empty`` is true only for a literal written empty (``[]``, ``()``), not for a
    concatenation whose parts are unknown.
    """

    __slots__ = ("empty", "items")

    def __init__(self, items: tuple[Value, ...], *, empty: bool = False) -> None:
        self.items: Final = items
        self.empty: Final = empty


class Partial(_Value):
    """``functools.partial(func, **kwargs)`` (or ``partialmethod``)."""

    __slots__ = ("func", "keywords")

    def __init__(self, func: Value, keywords: dict[str, Value]) -> None:
        self.func: Final = func
        self.keywords: Final = keywords


class Param(_Value):
    """A function parameter; ``default`` is the value of its default, if it has one."""

    __slots__ = ("default", "name")

    def __init__(self, name: str, default: Value | None) -> None:
        self.name: Final = name
        self.default: Final = default


Value: TypeAlias = Unknown | Const | Ref | Instance | Method | DictVal | SeqVal | Partial | Param
