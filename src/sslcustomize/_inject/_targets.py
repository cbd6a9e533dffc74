"""What the hooks that state where a library's connections go share: :func:`stating`.

Each such hook wraps the method where its library makes a connection, and states the
connection's target (host, port, proxy) around the call (see :mod:`.._connection._target`):
a port-scoped exception then matches the server's port, never a proxy's. Which modules are
hooked so is :data:`._patcher.TARGET_HOOKS`; urllib3's and aiohttp's targets are stated by
their client hooks (:mod:`._urllib3`, :mod:`._aiohttp`).
"""

from __future__ import annotations

import functools
from collections.abc import Callable

from sslcustomize._connection._target import Target, state, unstate

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

__all__ = ["stating"]

_CO_COROUTINE = 0x80  # inspect.CO_COROUTINE, without importing inspect


def stating(
    original: Callable[..., Any], target_of: Callable[..., Target | None]
) -> Callable[..., Any]:
    """Wrap ``original`` (a function or coroutine function) to state its connection's target.

    ``target_of`` gets the call's arguments and returns the target, or ``None`` to leave
    the target stated around the call (if any) as it is.
    """
    if getattr(getattr(original, "__code__", None), "co_flags", 0) & _CO_COROUTINE:

        @functools.wraps(original)
        async def stated_async(*args: Any, **kwargs: Any) -> Any:
            target = target_of(*args, **kwargs)
            if target is None:
                return await original(*args, **kwargs)
            token = state(target)
            try:
                return await original(*args, **kwargs)
            finally:
                unstate(token)

        return stated_async

    @functools.wraps(original)
    def stated_sync(*args: Any, **kwargs: Any) -> Any:
        target = target_of(*args, **kwargs)
        if target is None:
            return original(*args, **kwargs)
        token = state(target)
        try:
            return original(*args, **kwargs)
        finally:
            unstate(token)

    return stated_sync
