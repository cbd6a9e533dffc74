"""The gate in front of every policy connection: no application byte before the verdict.

``SSLSocket`` and ``SSLObject`` (and gevent's sockets, and anything else built on them) do all
their TLS work through the object their context's ``_wrap_socket``/``_wrap_bio`` returns.
A :class:`Gate` stands in for that object: every call that can move application data
(``read``, ``write``, ``shutdown``) first completes the handshake explicitly and has the chain
judged, so a handshake that OpenSSL would otherwise complete inside ``SSL_write`` or
``SSL_read`` (``do_handshake_on_connect=False``, ``SSLObject.write()`` first) is judged too,
whichever socket class the caller uses. A rejected connection stays rejected: every later call
raises the same :class:`~sslcustomize.CertificateRejected`.
"""

from __future__ import annotations

import _socket
import enum
import socket
import ssl

from sslcustomize.exceptions import CertificateRejected

# The first handshake of a hooked process imports this module: not typing (see _notyping).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any, TypeAlias

    # judge(gate) -> (the rejection to raise or None to proceed, the chain judged).
    Judge: TypeAlias = Callable[["Gate"], "tuple[CertificateRejected | None, tuple[bytes, ...]]"]
    # explain(gate, error) -> the rejection for a failure of OpenSSL's own verification.
    Explain: TypeAlias = Callable[["Gate", ssl.SSLCertVerificationError], CertificateRejected]
    # remember(gate, session): a session handed out by a judged connection.
    Remember: TypeAlias = Callable[["Gate", Any], None]
    # admit(gate, session) -> whether a session offered before the handshake may be resumed.
    Admit: TypeAlias = Callable[["Gate", Any], bool]
    # prepare(context): complete a context's own store before a connection moves onto it.
    Prepare: TypeAlias = Callable[[ssl.SSLContext], None]

__all__ = ["Gate", "GateState"]


class GateState(enum.Enum):
    """Where a gated connection stands. It only moves forward: NEW, then OPEN or REJECTED."""

    #: Made; the handshake has not completed, or its chain is not judged yet: no data moves.
    NEW = "new"
    #: The handshake completed and the chain was accepted (or needs no judging): data moves.
    OPEN = "open"
    #: A verdict refused the chain: every later call raises the same rejection.
    REJECTED = "rejected"


# Read at every read and write of an open connection: a module global, not an enum lookup.
_OPEN = GateState.OPEN

_OWN = frozenset(
    ("_raw", "_caller_context", "_judge", "_explain", "_remember", "_admit", "_prepare",
     "_state", "_rejection", "_chain", "resumed_from")
)  # fmt: skip


class Gate:
    """Stand in for ``_ssl._SSLSocket``: judge the handshake before any data moves.

    ``raw`` is anything with the ``_ssl._SSLSocket`` interface the gate calls
    (``do_handshake``, ``read``, ``write``, ``shutdown``, ``context``, ``session``,
    ``owner``): a test may give a fake one.
    """

    __slots__ = tuple(_OWN)

    def __init__(
        self,
        raw: Any,
        caller_context: ssl.SSLContext,
        *,
        judge: Judge | None,
        explain: Explain,
        remember: Remember,
        admit: Admit,
        prepare: Prepare | None = None,
        resumed_from: object = None,
    ) -> None:
        """Guard ``raw``, made for ``caller_context``; ``judge`` runs once after the handshake."""
        set_ = object.__setattr__
        set_(self, "_prepare", prepare)
        set_(self, "_raw", raw)
        set_(self, "_caller_context", caller_context)
        set_(self, "_judge", judge)
        set_(self, "_explain", explain)
        set_(self, "_remember", remember)
        set_(self, "_admit", admit)
        set_(self, "_state", GateState.NEW)
        set_(self, "_rejection", None)
        set_(self, "_chain", ())
        set_(self, "resumed_from", resumed_from)

    @property
    def state(self) -> GateState:
        """Where the connection stands."""
        state: GateState = self._state
        return state

    @property
    def chain(self) -> tuple[bytes, ...]:
        """The chain the verdict was given on (DER, leaf first); empty until then."""
        chain: tuple[bytes, ...] = self._chain
        return chain

    # --- the handshake and its verdict -------------------------------------------------------

    def do_handshake(self) -> None:
        """Complete the handshake, then judge the chain (once)."""
        if self._state is GateState.REJECTED:
            raise self._rejection
        try:
            self._raw.do_handshake()
        except CertificateRejected:
            raise
        except ssl.SSLCertVerificationError as error:
            raise self._reject(self._explain(self, error)) from error
        if self._state is GateState.NEW:
            found: CertificateRejected | None = None
            if self._judge is not None:
                found, chain = self._judge(self)
                object.__setattr__(self, "_chain", chain)
            if found is not None:
                raise self._reject(found)
            object.__setattr__(self, "_state", GateState.OPEN)

    def _reject(self, rejection: CertificateRejected) -> CertificateRejected:
        object.__setattr__(self, "_rejection", rejection)
        object.__setattr__(self, "_state", GateState.REJECTED)
        owner = getattr(self._raw, "owner", None)
        # _socket's class, not socket's: gevent's SSLSocket passes its inner _socket.socket as
        # the owner (gevent/ssl.py, __create_sslobj), and after monkey.patch_all() the name
        # socket.socket is gevent's class; neither is an instance of it, so a gevent peer
        # never saw the end of a rejected connection that the caller still held open.
        if isinstance(owner, _socket.socket):
            # Nothing more goes out, and the peer sees the connection end. Not close(): the
            # socket's own do_handshake() still restores its timeout on this descriptor.
            try:  # noqa: SIM105 - no contextlib on the first handshake (see _notyping)
                _socket.socket.shutdown(owner, socket.SHUT_RDWR)
            except OSError:
                pass
        return rejection

    def _ready(self) -> None:
        if self._state is GateState.REJECTED:
            raise self._rejection
        if self._state is GateState.NEW:
            self.do_handshake()

    # --- calls that move data ----------------------------------------------------------------

    def read(self, *args: Any) -> Any:
        """Read application data once the chain is accepted."""
        if self._state is not _OPEN:  # one comparison per call once open: no call of _ready
            self._ready()
        return self._raw.read(*args)

    def write(self, data: Any) -> int:
        """Write application data once the chain is accepted."""
        if self._state is not _OPEN:
            self._ready()
        return self._raw.write(data)  # type: ignore[no-any-return]

    def shutdown(self) -> Any:
        """Send close_notify once the chain is accepted (a rejected peer gets nothing)."""
        self._ready()
        return self._raw.shutdown()

    # --- what callers read and set -----------------------------------------------------------

    @property
    def context(self) -> ssl.SSLContext:
        """The caller's context (the engine behind the connection stays private)."""
        context: ssl.SSLContext = self._caller_context
        return context

    @context.setter
    def context(self, value: ssl.SSLContext) -> None:
        # OpenSSL verifies a connection with the trust store of the context it is moved to
        # (SSL_set_SSL_CTX). A connection on the caller's own context moves, as in Python; one
        # on an engine stays there: its plan (a pinned leaf as the only anchor, an exception's
        # CA) would otherwise give way to whatever the new context trusts.
        if self._raw.context is self._caller_context:
            if self._prepare is not None:
                self._prepare(value)  # its own store complete: the policy's anchors registered
            self._raw.context = value
        object.__setattr__(self, "_caller_context", value)

    @property
    def session(self) -> Any:
        """The connection's session; once judged, resumable for the same host only."""
        session = self._raw.session
        if session is not None and self._state is GateState.OPEN:
            self._remember(self, session)
        return session

    @session.setter
    def session(self, value: Any) -> None:
        # Offered before the handshake: only a session this connection's plan admits (see
        # Runtime.session_entry); anything else means a full, verified handshake.
        if value is not None and self._admit(self, value):
            self._raw.session = value
            object.__setattr__(self, "resumed_from", value)

    @property
    def raw(self) -> Any:
        """The ``_ssl._SSLSocket`` behind the gate."""
        return self._raw

    def __getattr__(self, name: str) -> Any:
        """Pass everything else (cipher, version, getpeercert...) to the connection."""
        return getattr(object.__getattribute__(self, "_raw"), name)

    def __setattr__(self, name: str, value: Any) -> None:
        """Set attributes of the connection itself (``owner``...)."""
        if name in _OWN or name in ("context", "session"):
            object.__setattr__(self, name, value)
        else:
            setattr(self._raw, name, value)
