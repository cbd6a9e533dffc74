"""Python's own ``ssl`` factories and ``SSLContext`` class, saved once for the whole package.

sslcustomize replaces ``ssl``'s factories (and, where it exists, ``ssl.wrap_socket``); the
startup hook puts stand-ins there before that, and other tools may rebind
``ssl.SSLContext`` to a subclass (truststore, gevent). Whatever must reach Python's own
objects (a server context, which must never come back to sslcustomize; ``extract()``; the
factories a moved attribute is compared with; ``doctor``'s "without sslcustomize") takes them
from here, found behind any stand-in or substitute when this module is first imported.

Support layer: it imports only the standard library, never anything of sslcustomize.
"""

from __future__ import annotations

import _ssl
import ssl

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

__all__ = [
    "ORIGINAL_CREATE_DEFAULT_CONTEXT",
    "ORIGINAL_CREATE_UNVERIFIED_CONTEXT",
    "ORIGINAL_WRAP_SOCKET",
    "PYTHON_SSLCONTEXT",
    "STAND_IN_ORIGINAL",
    "is_stand_in",
    "python_class",
    "unwrap_factory",
]

#: The attribute in which a stand-in of the startup hook keeps the factory it stands for
#: (``_sslcustomize_startup`` spells it too: it may import nothing of the package).
STAND_IN_ORIGINAL = "sslcustomize_original"


def is_stand_in(factory: object) -> bool:
    """Tell whether ``factory`` is a stand-in of the startup hook."""
    return hasattr(factory, STAND_IN_ORIGINAL)


def unwrap_factory(factory: Any) -> Any:
    """Return the factory behind the startup hook's stand-in (never a stand-in itself)."""
    while is_stand_in(factory):
        factory = getattr(factory, STAND_IN_ORIGINAL)
    return factory


def python_class(current: type[Any]) -> type[ssl.SSLContext]:
    """Return Python's own ``SSLContext`` class from ``current``'s ancestry.

    It is the class defined by module ``ssl`` directly over ``_ssl._SSLContext``; a
    substitute derives from it (truststore on CPython, gevent). Where none is found (a
    substitute that does not derive from it), ``current`` itself.
    """
    for cls in getattr(current, "__mro__", ()):
        if cls.__module__ == "ssl" and _ssl._SSLContext in cls.__bases__:  # noqa: SLF001
            return cls  # type: ignore[no-any-return]
    return current


# The factories as Python defines them, behind any stand-in of the startup hook: a server
# context must never come back to sslcustomize (the RecursionError of the .pth hook).
ORIGINAL_CREATE_DEFAULT_CONTEXT = unwrap_factory(ssl.create_default_context)
ORIGINAL_CREATE_UNVERIFIED_CONTEXT = unwrap_factory(ssl._create_unverified_context)  # noqa: SLF001
#: ``ssl.wrap_socket`` (3.10, 3.11), or ``None`` where Python has none.
ORIGINAL_WRAP_SOCKET = unwrap_factory(getattr(ssl, "wrap_socket", None))
#: Python's class, found behind whatever substitute is there already.
PYTHON_SSLCONTEXT = python_class(ssl.SSLContext)
