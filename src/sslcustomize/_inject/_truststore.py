"""Hook truststore (and the copy pip vendors): its client contexts verify under the policy.

A ``truststore.SSLContext`` is a shell: every setting and every connection goes to an inner
context of Python's class (``self._ctx``, made in ``__init__``), into which truststore loads
the system store at each ``wrap_socket``/``wrap_bio`` (on Linux; macOS and Windows also ask
the OS after the handshake). Made directly (``truststore.SSLContext(PROTOCOL_TLS_CLIENT)``,
as pip 24.2+ does) or through ``ssl.SSLContext(...)`` after ``inject_into_ssl()``, it would
verify out of the policy's reach.

The hook wraps ``SSLContext.__init__``: a client context's inner context is a policy context
instead (named after the module that made it), with truststore's own socket classes. Every
connection then takes the policy's path (its trust, exceptions, refusals, records), and what
truststore adds after the handshake still runs: nothing is weaker than truststore alone.
truststore's "load the system store" at each connection loads the policy's anchors (once):
under sslcustomize the policy says what the system's anchors are, as for every library.
Server contexts and ``PROTOCOL_TLS`` ones (client or server: unknown) keep truststore's own.
"""

from __future__ import annotations

import functools
import ssl
import sys
import types

from sslcustomize._connection._contexts import build_context
from sslcustomize._inject._patcher import Patcher
from sslcustomize._inject._shared import LibraryContext

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any


__all__ = ["TruststoreInner", "patch"]

_SKIPPED = ("ssl", "sslcustomize", "truststore", "pip._vendor.truststore")


class TruststoreInner(LibraryContext):
    """The policy context inside a ``truststore.SSLContext``.

    truststore calls ``set_default_verify_paths()`` on it before every connection (or, where
    OpenSSL has no default paths, ``load_verify_locations`` with a bundle it found): both
    mean "the system's anchors", which are the policy's, loaded when it was built.
    """

    @property
    def _ctx(self) -> TruststoreInner:
        """This context itself, where a stacked truststore looks for a shell's inner context.

        With two truststores stacked (pip-system-certs injects pip's, then a program calls
        ``truststore.inject_into_ssl()``), truststore's setters write onto its inner context
        through ``ssl``'s properties, which, with ``ssl.SSLContext`` rebound, reach the
        *other* truststore's setters, and those write onto ``self._ctx``. Without
        sslcustomize that inner context is a shell with an inner context of its own; here
        the inner context is this one, so the write lands on it (issue 32, item 7).
        """
        return self

    def set_default_verify_paths(self) -> None:
        """Keep the policy's anchors (loaded already): they are the system's here."""

    def load_verify_locations(
        self,
        cafile: Any = None,
        capath: Any = None,
        cadata: Any = None,
    ) -> None:
        """Load these anchors too, unless truststore asks for its guess at the system's."""
        caller = sys._getframe(1).f_globals.get("__name__", "")  # noqa: SLF001 - cheapest way
        if str(caller).endswith("truststore._openssl"):
            return
        super().load_verify_locations(cafile, capath, cadata)


def _maker() -> str:
    """Return the module that made the truststore context (the context's name)."""
    frame: types.FrameType | None = sys._getframe(2)  # noqa: SLF001 - cheapest way
    while frame is not None:
        name = str(frame.f_globals.get("__name__", ""))
        if not name.startswith(_SKIPPED):
            return name or "__main__"
        frame = frame.f_back
    return "__main__"


def _init(original: Callable[..., None]) -> Callable[..., None]:
    @functools.wraps(original)
    def __init__(self: Any, protocol: Any = None) -> None:  # noqa: N807 - it replaces __init__
        original(self, protocol)
        if protocol != ssl.PROTOCOL_TLS_CLIENT:
            return
        theirs = self._ctx
        ours = build_context(TruststoreInner, _maker(), protocol=ssl.PROTOCOL_TLS_CLIENT)
        ours.sslsocket_class = theirs.sslsocket_class
        ours.sslobject_class = theirs.sslobject_class
        self._ctx = ours

    return __init__


def patch(patcher: Patcher, trigger: str, api: types.ModuleType) -> None:
    """Hook ``truststore._api`` (``trigger``, or pip's vendored copy), just imported."""
    cls = getattr(api, "SSLContext", None)
    original = getattr(cls, "__init__", None) if isinstance(cls, type) else None
    if original is None or "__init__" not in vars(cls):
        raise LookupError(f"{trigger}.SSLContext.__init__ not found")
    patcher.replace(cls, "__init__", _init(original))
