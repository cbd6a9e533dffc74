"""Fail closed for a client library whose hook cannot apply.

A library hook that finds nothing to patch (a urllib3 without ``create_urllib3_context``, an
aiohttp laid out otherwise) leaves that library's contexts outside the policy: they trust
what the library loads and obey its ``verify=False``. The policy cannot govern them, but it
can keep them from being weaker than Python's default: once a library is unhooked, a context
that does not verify and that library made or is using is made to verify, as
``ssl.create_default_context()`` does (Python's default store when it has no anchors), when
it is wrapped, wherever the policy refuses code opt-outs for that host. Said once per
library, on stderr.

How a context is tied to the library: it was made while the library's code was on the stack
(``SSLContext.__new__``), or it is a module-level context of the module the hook was given
(aiohttp builds its two at import), or the library's code is on the stack when it is
wrapped. Only Python's own class is wrapped (truststore's contexts verify through an inner
one of Python's class). Nothing is added to any path until a hook has failed.
"""

from __future__ import annotations

import functools
import ssl
import sys
import types
import weakref
from collections.abc import Callable

from sslcustomize._connection._contexts import PolicyContext
from sslcustomize._inject._patcher import Patcher
from sslcustomize._runtime._state import current_runtime
from sslcustomize._support._originals import PYTHON_SSLCONTEXT

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

__all__ = ["library_root", "unhooked", "unhooked_libraries"]

_libraries: dict[str, str] = {}  # root package -> why its hook could not apply
_made_by: weakref.WeakKeyDictionary[ssl.SSLContext, str] = weakref.WeakKeyDictionary()


def library_root(trigger: str) -> str:
    """Return the package a trigger module belongs to (``pip._vendor.urllib3``, ``aiohttp``)."""
    parts = trigger.split(".")
    return ".".join(parts[:3] if parts[:2] == ["pip", "_vendor"] else parts[:1])


def unhooked_libraries() -> dict[str, str]:
    """Return the libraries whose hook could not apply, and why."""
    return dict(_libraries)


def _library_on_stack() -> str | None:
    frame: types.FrameType | None = sys._getframe(1)  # noqa: SLF001 - cheapest way
    while frame is not None:
        name = str(frame.f_globals.get("__name__", ""))
        for root in _libraries:
            if name == root or name.startswith(root + "."):
                return root
        frame = frame.f_back
    return None


def _verifies(context: ssl.SSLContext) -> bool:
    return context.verify_mode == ssl.CERT_REQUIRED and context.check_hostname


def _fail_closed(context: ssl.SSLContext, host: object) -> None:
    """Make ``context`` verify as Python's default does, if an unhooked library opts out."""
    if isinstance(context, PolicyContext) or _verifies(context):
        return
    root = _made_by.get(context) or _library_on_stack()
    if root is None:
        return
    try:
        name = root.rsplit(".", 1)[-1]
        decision = current_runtime().decision(name, host if isinstance(host, str) else None, None)
        allowed = decision.allow_code_opt_out
    except Exception:  # noqa: BLE001 - a policy that cannot be read means strict
        allowed = False
    if allowed:
        return
    # verify_mode before check_hostname: ssl requires this order.
    context.verify_mode = ssl.CERT_REQUIRED
    context.check_hostname = True
    if not context.cert_store_stats()["x509_ca"]:
        context.load_default_certs()


def _guard_wrap(original: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(original)
    def wrap(self: ssl.SSLContext, *args: Any, **kwargs: Any) -> Any:
        _fail_closed(self, kwargs.get("server_hostname"))
        return original(self, *args, **kwargs)

    return wrap


def _guard_new(original: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(original)
    def __new__(cls: type[ssl.SSLContext], *args: Any, **kwargs: Any) -> Any:  # noqa: N807
        context = original(cls, *args, **kwargs)
        root = _library_on_stack()
        if root is not None:
            _made_by[context] = root
        return context

    return __new__


def _install(patcher: Patcher) -> None:
    cls = PYTHON_SSLCONTEXT
    patcher.replace(cls, "wrap_socket", _guard_wrap(cls.wrap_socket))
    patcher.replace(cls, "wrap_bio", _guard_wrap(cls.wrap_bio))
    # __new__ is a staticmethod in the class's namespace; put back exactly that object.
    original_new = vars(cls)["__new__"]
    guarded = staticmethod(_guard_new(cls.__new__))
    type.__setattr__(cls, "__new__", guarded)

    def restore() -> None:
        if vars(cls).get("__new__") is guarded:
            type.__setattr__(cls, "__new__", original_new)
        _libraries.clear()

    patcher.on_undo(restore)


def unhooked(patcher: Patcher, trigger: str, module: types.ModuleType, error: Exception) -> None:
    """Record that the hook of ``trigger`` could not apply; from now on its library fails closed."""
    root = library_root(trigger)
    first = not _libraries
    known = root in _libraries
    _libraries.setdefault(root, f"{trigger}: {error}")
    for value in vars(module).values():
        if isinstance(value, ssl.SSLContext):
            _made_by.setdefault(value, root)
    if first:
        _install(patcher)
    if not known:
        sys.stderr.write(
            f"sslcustomize: cannot hook {root} ({error}); its connections do not use the "
            "policy's anchors or exceptions, and verify as Python's default does where the "
            "policy refuses code opt-outs\n"
        )
