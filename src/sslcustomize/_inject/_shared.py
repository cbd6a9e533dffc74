"""What the third-party hooks share: library contexts, opt-outs and cached contexts.

Libraries are patched when they are imported (:func:`._patcher.on_import`), whether that
happens before :func:`sslcustomize.inject`, after it, or at startup through the ``.pth`` hook;
this module loads with the first library hook, not with the first context.

Contexts that a library would build per connection, per session or per client are built once
per policy and settings instead (:class:`ContextCache`), with what the library sets on them
per connection already set, and then frozen: the library's own per-connection settings are
then no-ops, and any other change raises instead of reaching every other connection.
"""

from __future__ import annotations

import ssl
from collections.abc import Callable, Hashable

from sslcustomize._connection._contexts import (
    PolicyContext,
    build_context,
    context_state,
    load_anchors,
)
from sslcustomize._runtime._state import current_runtime

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


__all__ = [
    "ContextCache",
    "LibraryContext",
    "library_context",
    "make_opt_out",
]


class LibraryContext(PolicyContext):
    """A :class:`PolicyContext` handed to a client library.

    ``load_default_certs()`` loads the policy's trust anchors (the library asks for "the
    system's" anchors; under sslcustomize the policy says what they are).
    """

    def load_default_certs(self, purpose: ssl.Purpose = ssl.Purpose.SERVER_AUTH) -> None:
        """Load the policy's trust anchors (server authentication only)."""
        if purpose != ssl.Purpose.SERVER_AUTH:
            super().load_default_certs(purpose)
            return
        load_anchors(self, context_state(self).decision)


def library_context(
    name: str,
    *,
    cafile: str | None = None,
    capath: str | None = None,
    cadata: str | bytes | None = None,
) -> LibraryContext:
    """Build a context for a library's connections under the policy.

    Args:
        name: The context name (``requests``, ``httpx``...).
        cafile: Trust exactly these anchors, as the code asked (``verify=PATH``).
        capath: Likewise, a hashed directory.
        cadata: Likewise, PEM text or DER bytes.
    """
    return build_context(LibraryContext, name, cafile=cafile, capath=capath, cadata=cadata)


def make_opt_out(context: ssl.SSLContext) -> ssl.SSLContext:
    """Turn verification off as code asked; the policy obeys or refuses it per connection."""
    # verify_mode after check_hostname: ssl requires this order.
    context.check_hostname = False  # sslcustomize: allow(code's opt-out; the policy decides)
    context.verify_mode = ssl.CERT_NONE  # sslcustomize: allow(code's opt-out; the policy decides)
    return context


class ContextCache:
    """Contexts built once per policy and key, shared by every connection with that key.

    Only contexts whose settings are a function of the key are cached; ``build`` sets on
    them whatever the library sets per connection, and the context is frozen once built
    (see :class:`~._stdlib.SharedContext`). The cache lives in the policy's
    runtime: a new policy starts with none.
    """

    def get(self, key: Hashable, build: Callable[[], ssl.SSLContext]) -> Any:
        """Return the context for ``key`` under the current policy, building it if needed."""

        def frozen() -> ssl.SSLContext:
            context = build()
            if isinstance(context, PolicyContext):
                context.freeze()
            return context

        return current_runtime().shared((id(self), key), frozen)
