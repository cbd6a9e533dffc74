"""What the analyzer knows about an expression: a small abstract value."""

from __future__ import annotations

import ast

# ``dataclasses``, not ``sslcustomize._frozen``: the analysis makes about 100,000 of these
# values on the standard library, and the generated ``__init__`` is three times faster.
from dataclasses import dataclass, field

TYPE_CHECKING = False  # not typing's: the lint command does not import typing
if TYPE_CHECKING:
    from typing import TypeAlias

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


@dataclass(frozen=True, slots=True)
class Unknown:
    """Nothing is known about the value."""


UNKNOWN = Unknown()


@dataclass(frozen=True, slots=True)
class Const:
    """A literal: bool, str, int, bytes or None; ``node`` is where it was written."""

    value: object
    node: ast.AST


@dataclass(frozen=True, slots=True)
class Ref:
    """A module-level object reached by a dotted name: ``ssl.CERT_NONE``, ``requests.get``."""

    qualname: str


@dataclass(slots=True, eq=False)
class ContextState:
    """An ``ssl.SSLContext`` followed from its creation through its attribute changes to its use.

    ``origin`` is how it was made: ``default`` (a verifying client context), ``bare`` (a legacy
    protocol, no verification), ``server``, ``client`` (``PROTOCOL_TLS_CLIENT``),
    ``client_auth`` (``Purpose.CLIENT_AUTH``: meant for servers), ``unverified`` (the private
    factories), ``pyopenssl`` (``OpenSSL.SSL.Context``: ``VERIFY_NONE`` until told), or ``other``.
    ``client`` is set when the context is handed to a client API; ``mode_required`` and
    ``hostname_on`` when verification is switched (back) on.
    """

    origin: str
    node: ast.AST
    scope: ast.AST
    server: bool = False
    server_hint: bool = False
    verified: bool = False
    client: bool = False
    mode_required: bool = False
    hostname_on: bool = False
    optout: bool = False
    weakenings: list[tuple[str, ast.AST]] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class Instance:
    """An object of an evident type, such as ``requests.Session``."""

    qualname: str
    context: ContextState | None = None


@dataclass(frozen=True, slots=True)
class Method:
    """An attribute looked up on an instance (``type_name`` known) or an unknown receiver."""

    type_name: str | None
    attr: str
    receiver: Value


@dataclass(frozen=True, slots=True)
class DictVal:
    """A dict literal or ``dict(...)`` call with string keys."""

    entries: dict[str, Value]
    node: ast.AST


@dataclass(frozen=True, slots=True)
class SeqVal:
    """A list or tuple literal, or a string concatenation, as its items.

    ``empty`` is true only for a literal written empty (``[]``, ``()``), not for a
    concatenation whose parts are unknown.
    """

    items: tuple[Value, ...]
    empty: bool = False


@dataclass(frozen=True, slots=True)
class Partial:
    """``functools.partial(func, **kwargs)`` (or ``partialmethod``)."""

    func: Value
    keywords: dict[str, Value]


@dataclass(frozen=True, slots=True)
class Param:
    """A function parameter; ``default`` is the value of its default, if it has one."""

    name: str
    default: Value | None


Value: TypeAlias = Unknown | Const | Ref | Instance | Method | DictVal | SeqVal | Partial | Param
