"""Record every attribute an injection replaces, so that extraction restores it exactly.

Also the patches that wait for a module's import (:func:`on_import`, :func:`state_targets`),
each with its undo: what :func:`sslcustomize.inject` installs at the first context, without
the library hooks' shared code (``._shared``), which loads with the first library hook.
"""

from __future__ import annotations

import types
from collections.abc import Callable

from sslcustomize._support import _bootstrap
from sslcustomize._support._originals import unwrap_factory

__all__ = ["TARGET_HOOKS", "Patcher", "on_import", "state_targets"]

_MISSING = object()


class _Replaced:
    """One attribute replaced: where, which, what was there and what was put there.

    A plain class, not a ``_frozen`` value: the patcher is on a first context's path.
    """

    __slots__ = ("name", "new", "old", "target")

    def __init__(self, target: object, name: str, old: object, new: object) -> None:
        self.target = target
        self.name = name
        self.old = old
        self.new = new


class Patcher:
    """Replace attributes and undo the replacements, newest first."""

    def __init__(self) -> None:
        """Start with nothing replaced."""
        self._undo: list[_Replaced | Callable[[], None]] = []

    def __bool__(self) -> bool:
        """Tell whether anything is replaced."""
        return bool(self._undo)

    def replace(self, target: object, name: str, new: object) -> None:
        """Set ``target.name = new``, remembering what was there."""
        old = getattr(target, name, _MISSING)
        # A stand-in of the startup hook stands for the original it wraps.
        old = unwrap_factory(old)
        setattr(target, name, new)
        self._undo.append(_Replaced(target, name, old, new))

    def on_undo(self, action: Callable[[], None]) -> None:
        """Run ``action`` when undoing (for state that is not a plain attribute)."""
        self._undo.append(action)

    def replaced(self) -> list[tuple[object, str, object]]:
        """Return ``(target, name, original)`` for every replaced attribute."""
        return [(r.target, r.name, r.old) for r in self._undo if isinstance(r, _Replaced)]

    def undo(self) -> None:
        """Restore everything, newest first.

        An attribute that someone else replaced after us is left as they set it: restoring
        ours would silently undo their change.
        """
        while self._undo:
            item = self._undo.pop()
            if not isinstance(item, _Replaced):
                item()
            elif getattr(item.target, item.name, _MISSING) is item.new:
                if item.old is _MISSING:
                    delattr(item.target, item.name)
                else:
                    setattr(item.target, item.name, item.old)


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
