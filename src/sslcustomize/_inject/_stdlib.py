"""Hook the standard library's context factories.

``ssl.create_default_context`` (asyncio, and code that asks for a default context),
``ssl._create_default_https_context`` (http.client, urllib.request, xmlrpc.client) and
``ssl._create_stdlib_context`` (smtplib, imaplib, poplib, ftplib, nntplib: gh-91826), and
``ssl._create_unverified_context`` (code that opts out, so that the policy sees it).
Python 3.12+ urllib.request builds its HTTPS context when ``urlopen()`` first builds the
global opener; such an opener built before injection is dropped so the next call builds a new one.
"""

from __future__ import annotations

import ssl
import sys
import types

from _sslcustomize_startup import FACTORIES

from .._contexts import (
    ORIGINAL_CREATE_DEFAULT_CONTEXT,
    ORIGINAL_CREATE_UNVERIFIED_CONTEXT,
    PolicyContext,
    create_default_context,
    create_default_https_context,
    create_stdlib_context,
    create_unverified_context,
    unwrap_factory,
)
from ._patcher import Patcher
from ._shared import on_import

__all__ = ["inject"]


def _opener_context(opener: object) -> object:
    for handler in getattr(opener, "handlers", ()):
        context = getattr(handler, "_context", None)
        if context is not None:
            return context
    return None


def _is_default(opener: object) -> bool:
    from urllib.request import build_opener  # noqa: PLC0415 - only if urllib.request is in use

    default = sorted(type(h).__name__ for h in getattr(build_opener(), "handlers", ()))
    return sorted(type(h).__name__ for h in getattr(opener, "handlers", ())) == default


def _drop_prebuilt_opener(patcher: Patcher) -> None:
    request = sys.modules.get("urllib.request")
    if request is None:
        return
    before = getattr(request, "_opener", None)
    if before is not None and _opener_context(before) is not None and _is_default(before):
        # urlopen() built this opener, with a context made before injection (3.12+): have it
        # build a new one on next use. An opener the program installed itself is kept.
        request._opener = None  # type: ignore[attr-defined]  # noqa: SLF001

    def restore() -> None:
        module = sys.modules.get("urllib.request")
        current = getattr(module, "_opener", None)
        if module is not None and isinstance(_opener_context(current), PolicyContext):
            module._opener = before  # type: ignore[attr-defined]  # noqa: SLF001

    patcher.on_undo(restore)


def remove_stand_ins() -> None:
    """Put back the factories the startup hook's stand-ins wrap, if they are still there."""
    for name in FACTORIES:
        original = getattr(getattr(ssl, name), "sslcustomize_original", None)
        if original is not None:
            setattr(ssl, name, original)
    _restore_gevent()  # gevent.ssl's copies of the stand-ins would inject again when called


# What each ssl attribute holds by default, and the hook that replaces it there.
_DEFAULT, _UNVERIFIED = ORIGINAL_CREATE_DEFAULT_CONTEXT, ORIGINAL_CREATE_UNVERIFIED_CONTEXT
_DEFAULTS = {
    "create_default_context": (_DEFAULT, create_default_context),
    "_create_default_https_context": (_DEFAULT, create_default_https_context),
    "_create_stdlib_context": (_UNVERIFIED, create_stdlib_context),
    "_create_unverified_context": (_UNVERIFIED, create_unverified_context),
}
# A factory moved to another attribute by code keeps its meaning there: the documented global
# opt-out ``ssl._create_default_https_context = ssl._create_unverified_context`` stays an
# opt-out (obeyed and recorded, or refused) at every call.
_MOVED = {id(_DEFAULT): create_default_context, id(_UNVERIFIED): create_unverified_context}


def _hook_for(name: str, current: object) -> object | None:
    """Return the hook for ssl attribute ``name`` holding ``current``, or ``None`` to keep it."""
    current = unwrap_factory(current)  # the startup hook's stand-in
    default, hook = _DEFAULTS[name]
    if current is default:
        return hook
    return _MOVED.get(id(current))  # code's own factory: kept as it is


_HOOKS = frozenset(hook for _, hook in _DEFAULTS.values())


def _mirror_into_gevent(module: types.ModuleType) -> None:
    """Give ``gevent.ssl`` the factories ``ssl`` has now, where it holds a copy of ssl's.

    ``gevent.ssl`` copies every name of ``ssl`` when it is imported (gevent's
    ``copy_globals``), factories included, and ``from gevent import ssl`` code calls those
    copies. Copied before injection they are Python's own (a context that ignores the
    policy) or the startup hook's stand-ins (which, called after ``extract()``, would inject
    again); copied after, they are the hooks, which ``extract()`` must take back too.
    """
    for name in FACTORIES:
        copied, current = getattr(module, name, None), getattr(ssl, name)
        if current in _HOOKS and unwrap_factory(copied) is _DEFAULTS[name][0]:
            setattr(module, name, current)


def _restore_gevent() -> None:
    """Put back in ``gevent.ssl`` what ``ssl`` holds after extraction (see above)."""
    module = sys.modules.get("gevent.ssl")
    for name in FACTORIES if module is not None else ():
        copied = getattr(module, name, None)
        if copied in _HOOKS or hasattr(copied, "sslcustomize_original"):
            setattr(module, name, unwrap_factory(getattr(ssl, name)))


def inject(patcher: Patcher) -> None:
    """Replace the stdlib's factories with the policy's, where they hold Python's own."""
    patcher.on_undo(_restore_gevent)  # first, so undone last: after ssl's own attributes
    for name in FACTORIES:
        hook = _hook_for(name, getattr(ssl, name))
        if hook is not None:
            patcher.replace(ssl, name, hook)
    _drop_prebuilt_opener(patcher)
    on_import(patcher, "gevent.ssl", _mirror_into_gevent)
