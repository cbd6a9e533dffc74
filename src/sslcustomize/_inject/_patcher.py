"""Record every attribute an injection replaces, so that extraction restores it exactly."""

from __future__ import annotations

from collections.abc import Callable

from sslcustomize._support._frozen import dataclass
from sslcustomize._support._originals import unwrap_factory

__all__ = ["Patcher"]

_MISSING = object()


@dataclass(slots=True)
class _Replaced:
    target: object
    name: str
    old: object
    new: object


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
