"""Hook urllib3 (and the copy pip vendors): the contexts it makes are policy contexts.

urllib3 makes a context per connection when none is given: ``create_urllib3_context`` calls
the class bound to ``urllib3.util.ssl_.SSLContext`` (Python's ``ssl.SSLContext``) and sets
its versions, options, flags and verification on it; ``ssl_wrap_socket`` then loads the
``ca_certs`` it was given (requests passes certifi's bundle, which the requests hook turns
back into "the policy's anchors") or calls ``load_default_certs()``, loads the client
certificate, sets ALPN and wraps the socket.

The hook owns exactly that point: ``util.ssl_.SSLContext`` becomes a :class:`LibraryContext`
class whose instances are made under the policy, named ``urllib3`` (``requests`` when requests
made the connection). Everything else is urllib3's own code on urllib3's own context: every
setter it calls works, every argument it passes is honoured (``SSLKEYLOGFILE``, a key
password, ALPN for HTTP/2, ``ssl_version``'s warning), and its other backends keep working:
``urllib3.contrib.pyopenssl.inject_into_urllib3()`` puts pyOpenSSL's class in that place (and
takes ours back on extraction), mocks in tests replace it, and truststore's
``inject_into_ssl()`` puts its own, whose inner context the truststore hook governs.
``load_default_certs()`` loads the policy's anchors: under sslcustomize the policy says what
the system's anchors are.

urllib3 1.x (pip's) switches OpenSSL's host name check off and matches the name itself after
the handshake; such a context is marked, and the policy checks the name as well (see
:attr:`~.._connection._contextstate.ContextState.library_matches_names`). pip's ``cert``
setting adds to the policy's anchors there, as it adds to truststore's in pip itself.
"""

from __future__ import annotations

import ssl
import sys
import types

from sslcustomize._connection._contexts import (
    context_state,
    instance_class,
    load_anchors,
    start_state,
)
from sslcustomize._connection._target import Target
from sslcustomize._inject._patcher import Patcher
from sslcustomize._inject._shared import LibraryContext
from sslcustomize._inject._targets import stating
from sslcustomize._runtime._state import current_runtime
from sslcustomize._support._sslclass import PYTHON_SSLCONTEXT

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any


__all__ = ["ROOTS", "STATED", "library_name", "patch"]

#: The urllib3 packages hooked, and the requests package that drives each.
ROOTS = {"urllib3": "requests", "pip._vendor.urllib3": "pip._vendor.requests"}

# The urllib3 whose only CA paths are the user's setting, never a program's choice: pip's.
_ADDING_ROOTS = ("pip._vendor.urllib3",)


def library_name(root: str) -> str:
    """Name a urllib3 connection's context: ``requests`` if requests made it, else ``root``."""
    frame: types.FrameType | None = sys._getframe(2)  # noqa: SLF001 - cheapest way
    driver = ROOTS[root]
    while frame is not None:
        name = str(frame.f_globals.get("__name__", ""))
        library = name == root or name.startswith((root + ".", "sslcustomize", "http."))
        if not (library or name in ("ssl", "socket")):
            return driver if name == driver or name.startswith(driver + ".") else root
        frame = frame.f_back
    return root


class Urllib3Context(LibraryContext):
    """What ``urllib3.util.ssl_.SSLContext`` makes under the policy (one subclass per root)."""

    root = "urllib3"
    matches_names = False  # urllib3 1.x: it switches OpenSSL's check off and matches itself
    adds_anchors = False  # pip: its cert setting adds to the policy's anchors

    def __new__(cls, protocol: Any = None, *args: Any, **kwargs: Any) -> Urllib3Context:
        """Make the context as Python would, under the policy in effect now."""
        context: Urllib3Context = super().__new__(cls, protocol, *args, **kwargs)
        # urllib3 sets the verification itself; and code (urllib3's own tests) makes server
        # contexts with this class too (PROTOCOL_TLS), which must stay as Python makes them.
        decision = start_state(context, current_runtime(), library_name(cls.root), client=False)
        state = context_state(context)
        state.library_matches_names = cls.matches_names
        if cls.adds_anchors:
            load_anchors(context, decision)
        return context

    def load_default_certs(self, purpose: ssl.Purpose = ssl.Purpose.SERVER_AUTH) -> None:
        """Load the policy's anchors, once (pip's context has them already)."""
        if not self.adds_anchors or purpose != ssl.Purpose.SERVER_AUTH:
            super().load_default_certs(purpose)


def _context_class(root: str, original: type[Any]) -> type[Urllib3Context]:
    version = str(getattr(sys.modules.get(root), "__version__", "2"))
    namespace = {
        "root": root,
        "matches_names": version.startswith("1."),
        "adds_anchors": root in _ADDING_ROOTS,
        "__module__": __name__,
        "__qualname__": "Urllib3Context",
        "__sslcustomize_original__": original,
    }
    # Python's class, or a substitute's (gevent's, truststore's) mixed in as for every policy
    # context (see instance_class).
    return type("Urllib3Context", (instance_class(Urllib3Context),), namespace)


def _patch(patcher: Patcher, root: str) -> None:
    # Imported, not looked up: under lazy imports (PEP 810) urllib3.connection can have run
    # while util.ssl_ is still a name waiting to be loaded.
    import importlib  # noqa: PLC0415 - only once urllib3 is imported

    module = importlib.import_module(root + ".util.ssl_")
    if getattr(module, "create_urllib3_context", None) is None:
        # urllib3 without the factory it has had since 1.13: nothing here is hooked, and
        # its contexts ignore the policy. Said (once per import) by the caller.
        raise LookupError(f"{root}.util.ssl_.create_urllib3_context not found")
    current = getattr(module, "SSLContext", None)
    if getattr(current, "__sslcustomize_original__", None) is not None:
        return  # hooked already (the module seen again)
    if not (isinstance(current, type) and issubclass(current, PYTHON_SSLCONTEXT)):
        return  # pyOpenSSL's class (or a test's mock) holds the place: it stays theirs
    patcher.replace(module, "SSLContext", _context_class(root, current))


def _connect_target(connection: Any) -> Target:
    """The target of ``HTTPSConnection.connect``: the tunnel's end, or the host connected to.

    urllib3 keeps the tunnel on the connection (``_tunnel_host``/``_tunnel_port``, as
    http.client does, 1.26 to 2.x); ``server_hostname`` names the server where the code set it.
    """
    host, port = connection.host, connection.port
    tunnel_host, tunnel_port = connection._tunnel_host, connection._tunnel_port  # noqa: SLF001
    name = getattr(connection, "server_hostname", None)
    if tunnel_host:
        # An HTTPS proxy (TLS in TLS) is of no kind a pinned server's probe knows.
        scheme = getattr(getattr(connection, "proxy", None), "scheme", "http")
        return Target(
            host=name or tunnel_host,
            port=tunnel_port if isinstance(tunnel_port, int) else None,
            proxy=(host, port),
            proxy_kind="http" if scheme == "http" else None,
        )
    # Through a SOCKS5 proxy by PySocks (urllib3.contrib.socks keeps it in _socks_options,
    # 1.26 to 2.x): a pinned server's probe asks it for a tunnel of its own.
    options = getattr(connection, "_socks_options", None)
    through, kind = None, None
    if isinstance(options, dict) and options.get("socks_version") == _PYSOCKS_SOCKS5:
        proxy_host, proxy_port = options.get("proxy_host"), options.get("proxy_port")
        if isinstance(proxy_host, str) and isinstance(proxy_port, int):
            through, kind = (proxy_host, proxy_port), "socks5"
    return Target(
        host=name or host, port=port if isinstance(port, int) else None, proxy=through,
        proxy_kind=kind,
    )  # fmt: skip


#: PySocks' ``PROXY_TYPE_SOCKS5``, as urllib3.contrib.socks passes it (PySocks not imported).
_PYSOCKS_SOCKS5 = 2


def _proxy_target(connection: Any, hostname: Any, *args: Any, **kwargs: Any) -> Target:
    """The target of ``_connect_tls_proxy``: the HTTPS proxy itself, before the tunnel."""
    del args, kwargs
    port = connection.port
    return Target(host=hostname, port=port if isinstance(port, int) else None)


#: What the hook wraps on ``urllib3.connection.HTTPSConnection`` to state its targets
#: (``tests/loopback/test_target_contract.py`` checks that each still exists).
STATED: dict[str, Callable[..., Target]] = {
    "connect": _connect_target,
    "_connect_tls_proxy": _proxy_target,
}


def _state_targets(patcher: Patcher, connection: types.ModuleType) -> None:
    https = getattr(connection, "HTTPSConnection", None)
    for method, target_of in STATED.items():
        original = getattr(https, method, None)
        if original is None or hasattr(original, "__sslcustomize_original__"):
            continue
        wrapped = stating(original, target_of)
        wrapped.__sslcustomize_original__ = original  # type: ignore[attr-defined]
        patcher.replace(https, method, wrapped)


def patch(patcher: Patcher, trigger: str, connection: types.ModuleType) -> None:
    """Hook the urllib3 whose ``connection`` module (``trigger``) was imported."""
    _patch(patcher, trigger.removesuffix(".connection"))
    _state_targets(patcher, connection)
