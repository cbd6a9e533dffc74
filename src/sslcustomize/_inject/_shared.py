"""What the third-party hooks share: post-import hooks with an undo, and cached contexts.

Libraries are patched when they are imported (``_bootstrap.hooks``), whether that
happens before :func:`sslcustomize.inject`, after it, or at startup through the ``.pth`` hook.

Contexts that a library would build per connection, per session or per client are built once
per policy and settings instead (:class:`ContextCache`), with what the library sets on them
per connection already set, and then frozen: the library's own per-connection settings are
then no-ops, and any other change raises instead of reaching every other connection.
"""

from __future__ import annotations

import ssl
import types
from collections.abc import Callable, Hashable

from sslcustomize._connection._contexts import (
    PolicyContext,
    build_context,
    context_state,
    load_anchors,
)
from sslcustomize._inject._patcher import Patcher
from sslcustomize._runtime._state import current_runtime
from sslcustomize._support import _bootstrap

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


__all__ = [
    "TARGET_HOOKS",
    "ContextCache",
    "LibraryContext",
    "library_context",
    "make_opt_out",
    "on_import",
    "state_targets",
]


def on_import(
    patcher: Patcher, module_name: str, patch: Callable[[types.ModuleType], None]
) -> None:
    """Run ``patch(module)`` once ``module_name`` is imported (now if it already is).

    :meth:`Patcher.undo` forgets the hook if the module was never imported.
    """

    def callback(module: types.ModuleType) -> None:
        patch(module)

    patcher.on_undo(lambda: _bootstrap.hooks.unregister(callback))
    _bootstrap.hooks.register(module_name, callback)


_PYTHON_SOCKS = (
    "python_socks.sync._proxy",
    "python_socks.sync.v2._proxy",
    "python_socks.async_.asyncio._proxy",
    "python_socks.async_.asyncio.v2._proxy",
    "python_socks.async_.anyio._proxy",
    "python_socks.async_.anyio.v2._proxy",
    "python_socks.async_.trio._proxy",
    "python_socks.async_.trio.v2._proxy",
)

#: The modules whose connections are told their target by a hook of their own (see
#: :mod:`._targets`), and the hook module of each (``patch(patcher, trigger, module)``).
#: Not watched by the start-up hook: importing ``http.client`` or ``httpcore`` does not load
#: sslcustomize; a connection needs a context first, and the first context installs these.
TARGET_HOOKS: dict[str, str] = {
    "http.client": "_httpclient",
    "asyncio.base_events": "_asyncio",
    "httpcore": "_httpcore",
    **dict.fromkeys(_PYTHON_SOCKS, "_socks"),
}


def state_targets(patcher: Patcher) -> None:
    """Install each of :data:`TARGET_HOOKS` once its module is imported (now if it is)."""

    def hook(trigger: str, hooks: str) -> Callable[[types.ModuleType], None]:
        def patch(module: types.ModuleType) -> None:
            import importlib  # noqa: PLC0415 - only once a hooked module is imported

            importlib.import_module(f"sslcustomize._inject.{hooks}").patch(patcher, trigger, module)

        return patch

    for trigger, hooks in TARGET_HOOKS.items():
        on_import(patcher, trigger, hook(trigger, hooks))


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
