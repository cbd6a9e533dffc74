"""Python's own ``ssl.SSLContext``, whatever the name ``ssl.SSLContext`` holds now.

Other tools rebind ``ssl.SSLContext`` to a subclass of their own: truststore's
``inject_into_ssl()`` (which pip-system-certs calls at every interpreter start) and gevent's
``patch_ssl()``. ``ssl.py``'s property setters find their class through that module global
(``super(SSLContext, SSLContext).minimum_version.__set__(...)``), so once it is rebound,
setting ``minimum_version``, ``options``, ``verify_mode``... on an instance of Python's class
(or of any subclass that does not derive from the substitute) calls the same setter again,
without end: the RecursionError of truststore#121, #143, #214, and of pip-system-certs beside
sslcustomize.

Every context sslcustomize makes is a :data:`StdlibContext`: Python's class, found behind any
substitute, whose functions that name the global ``SSLContext`` are rebuilt to name Python's
class instead. Their code is CPython's own, unchanged; only the name they look up is pinned.
Whatever anyone rebinds later, these contexts behave as Python's.
"""

from __future__ import annotations

import ssl
import types

from sslcustomize._support._originals import PYTHON_SSLCONTEXT

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

__all__ = ["PYTHON_SSLCONTEXT", "StdlibContext", "substitute"]


def substitute() -> type[Any] | None:
    """Return the class that ``ssl.SSLContext`` names now, if it is not Python's own."""
    current = ssl.SSLContext
    return None if current is PYTHON_SSLCONTEXT else current


def _pinned_globals() -> dict[str, Any]:
    namespace = dict(vars(ssl))
    namespace["SSLContext"] = PYTHON_SSLCONTEXT
    return namespace


_GLOBALS = _pinned_globals()


def _pin(function: Any) -> Any:
    """Return ``function`` rebuilt to see Python's class as ``SSLContext`` (if it names it)."""
    if not isinstance(function, types.FunctionType) or "SSLContext" not in (
        function.__code__.co_names
    ):
        return function
    pinned = types.FunctionType(
        function.__code__, _GLOBALS, function.__name__, function.__defaults__, function.__closure__
    )
    pinned.__kwdefaults__ = function.__kwdefaults__
    pinned.__qualname__ = function.__qualname__
    pinned.__doc__ = function.__doc__
    return pinned


def _pinned_namespace() -> dict[str, Any]:
    namespace: dict[str, Any] = {"__module__": "ssl", "__qualname__": "SSLContext"}
    for name, value in vars(PYTHON_SSLCONTEXT).items():
        if isinstance(value, property):
            fget, fset, fdel = _pin(value.fget), _pin(value.fset), _pin(value.fdel)
            if (fget, fset, fdel) != (value.fget, value.fset, value.fdel):
                namespace[name] = property(fget, fset, fdel, value.__doc__)
        elif isinstance(value, types.FunctionType) and _pin(value) is not value:
            namespace[name] = _pin(value)
    return namespace


#: Python's ``SSLContext`` with the name ``SSLContext`` pinned in its functions: what every
#: context of sslcustomize (policy contexts, engines, verifiers) is an instance of.
if TYPE_CHECKING:
    StdlibContext = ssl.SSLContext
else:
    StdlibContext = type("SSLContext", (PYTHON_SSLCONTEXT,), _pinned_namespace())
