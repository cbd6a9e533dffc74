"""Hook urllib3 (and the copy pip vendors): its contexts are policy contexts, built once.

urllib3 builds a context per connection when none is given (``create_urllib3_context``, bound
by name into ``urllib3.connection`` at import), loads the system store into it
(``load_default_certs``) or the ``ca_certs`` it was given (requests passes certifi's bundle),
then wraps the socket (urllib3 2.x: ``connection._ssl_wrap_socket_and_match_hostname``).

* ``create_urllib3_context`` (in ``util.ssl_``, ``util`` and ``connection``) returns a
  :class:`~._shared.LibraryContext` set up exactly as urllib3's own: same versions, options,
  flags and verification settings; its ``load_default_certs()`` loads the policy's anchors.
* ``_ssl_wrap_socket_and_match_hostname`` (urllib3 2.x), for connections given no context,
  passes a context cached per policy and settings instead, with the ``ca_certs`` and client
  certificate already loaded: no bundle is parsed per connection. For a context the code gave,
  the same ``ca_certs`` is loaded into it once, not at every connection.

Contexts are named ``urllib3``, or ``requests`` when requests made the connection.
"""

from __future__ import annotations

import functools
import importlib
import os
import ssl
import sys
import types
import weakref
from collections.abc import Callable

from sslcustomize._inject._patcher import Patcher
from sslcustomize._inject._shared import ContextCache, library_context, stricter_minimum

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


__all__ = ["ROOTS", "library_name", "patch"]

#: The urllib3 packages hooked, and the requests package that drives each.
ROOTS = {"urllib3": "requests", "pip._vendor.urllib3": "pip._vendor.requests"}

# The urllib3 whose only CA paths are the user's setting, never a program's choice: pip's.
_ADDING_ROOTS = ("pip._vendor.urllib3",)

_cache = ContextCache()
# Contexts given by code, and the CA locations already loaded into each.
_loaded: weakref.WeakKeyDictionary[ssl.SSLContext, set[tuple[Any, ...]]] = (
    weakref.WeakKeyDictionary()
)

_COPIED = ("options", "verify_flags", "post_handshake_auth", "hostname_checks_common_name")


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


def _adopt(context: ssl.SSLContext, template: ssl.SSLContext) -> None:
    """Give ``context`` the settings urllib3 put on ``template`` (not its trust)."""
    context.minimum_version = stricter_minimum(context.minimum_version, template.minimum_version)
    if template.maximum_version != ssl.TLSVersion.MAXIMUM_SUPPORTED:
        context.maximum_version = template.maximum_version
    for attribute in _COPIED:
        value = getattr(template, attribute, None)
        if value is not None:
            setattr(context, attribute, value)
    # verify_mode and check_hostname: ssl refuses CERT_NONE while check_hostname is on.
    # urllib3 1.x (pip's) switches OpenSSL's host check off and matches the name itself: that
    # is not the code opting out, so a verifying context keeps OpenSSL's check on as well.
    if template.verify_mode == ssl.CERT_REQUIRED:
        context.verify_mode = ssl.CERT_REQUIRED
        context.check_hostname = True
    else:
        context.check_hostname = False  # sslcustomize: allow(mirrors the judged template)
        context.verify_mode = template.verify_mode
    if template.keylog_filename:
        context.keylog_filename = template.keylog_filename


def _factory(root: str, original: Callable[..., ssl.SSLContext]) -> Callable[..., ssl.SSLContext]:
    @functools.wraps(original)
    def create_urllib3_context(*args: Any, **kwargs: Any) -> ssl.SSLContext:
        template = original(*args, **kwargs)  # urllib3 decides, and validates the arguments
        context = library_context(library_name(root), anchors=False)
        _adopt(context, template)
        ciphers = kwargs.get("ciphers", args[3] if len(args) > 3 else None)
        if ciphers:
            context.set_ciphers(ciphers)
        return context

    # Read by _patch: urllib3.connection imported again finds util.ssl_'s factory hooked.
    create_urllib3_context.__sslcustomize_original__ = original  # type: ignore[attr-defined]
    return create_urllib3_context


def _file_key(path: str | None) -> tuple[object, ...]:
    if not path:
        return ()
    try:
        stat = os.stat(path)
    except OSError:
        return (path,)
    return (path, stat.st_mtime_ns, stat.st_size, stat.st_ino)


def _cached_context(
    root: str, original_factory: Callable[..., ssl.SSLContext], kwargs: dict[str, Any]
) -> ssl.SSLContext:
    name = library_name(root)
    ca = (kwargs.get("ca_certs"), kwargs.get("ca_cert_dir"), kwargs.get("ca_cert_data"))
    client = (kwargs.get("cert_file"), kwargs.get("key_file"), kwargs.get("key_password"))
    versions = tuple(kwargs.get(k) for k in ("cert_reqs", "ssl_version", "ssl_minimum_version",
                                            "ssl_maximum_version"))  # fmt: skip
    # urllib3 switches OpenSSL's host check off when it matches names or fingerprints itself.
    own_check = bool(kwargs.get("assert_fingerprint") or kwargs.get("assert_hostname")) or (
        kwargs.get("assert_hostname") is False
    )
    key = (name, versions, ca, _file_key(ca[0]), _file_key(ca[1]), client, _file_key(client[0]),
           own_check)  # fmt: skip

    def build() -> ssl.SSLContext:
        module = sys.modules[root + ".util.ssl_"]
        template = original_factory(
            ssl_version=module.resolve_ssl_version(versions[1]),
            ssl_minimum_version=versions[2],
            ssl_maximum_version=versions[3],
            cert_reqs=module.resolve_cert_reqs(versions[0]),
        )
        if root in _ADDING_ROOTS:
            # pip's cert setting (--cert, pip.conf): it adds to the policy's anchors, as it
            # adds to truststore's in pip itself (the requests hook dropped it under a lock).
            context = library_context(name)
            if any(ca):
                context.load_verify_locations(ca[0], ca[1], ca[2])
        else:
            # verify=PATH (ca_certs): these anchors replace the policy's, as the code asked.
            context = library_context(name, cafile=ca[0], capath=ca[1], cadata=ca[2])
        _adopt(context, template)
        if client[0]:
            context.load_cert_chain(client[0], client[1], client[2])
        if own_check:
            context.check_hostname = False  # sslcustomize: allow(urllib3 1.x checks the name)
        context.set_alpn_protocols(module.ALPN_PROTOCOLS)  # urllib3 sets it per connection
        return context

    return _cache.get(key, build)  # type: ignore[no-any-return]


def _wrapper(
    root: str, original: Callable[..., Any], original_factory: Callable[..., ssl.SSLContext]
) -> Callable[..., Any]:
    @functools.wraps(original)
    def _ssl_wrap_socket_and_match_hostname(sock: Any, **kwargs: Any) -> Any:
        context = kwargs.get("ssl_context")
        ca = (kwargs.get("ca_certs"), kwargs.get("ca_cert_dir"), kwargs.get("ca_cert_data"))
        if context is None:
            kwargs["ssl_context"] = _cached_context(root, original_factory, kwargs)
            kwargs.update(ca_certs=None, ca_cert_dir=None, ca_cert_data=None)
            kwargs.update(cert_file=None, key_file=None, key_password=None)
            return original(sock, **kwargs)
        if any(ca):
            # urllib3 would load these into the code's context at every connection.
            key = (*ca, _file_key(ca[0]), _file_key(ca[1]))
            done = _loaded.setdefault(context, set())
            if key in done:
                kwargs.update(ca_certs=None, ca_cert_dir=None, ca_cert_data=None)
            else:
                result = original(sock, **kwargs)
                done.add(key)
                return result
        return original(sock, **kwargs)

    # Read by _patch, which wraps a connection module's function once.
    _ssl_wrap_socket_and_match_hostname.__sslcustomize_original__ = original  # type: ignore[attr-defined]
    return _ssl_wrap_socket_and_match_hostname


def _patch(patcher: Patcher, root: str) -> Callable[[types.ModuleType], None]:
    def patch(connection: types.ModuleType) -> None:
        # Imported, not looked up: under lazy imports (PEP 810) urllib3.connection can have
        # run while util.ssl_ is still a name waiting to be loaded.
        ssl_ = importlib.import_module(root + ".util.ssl_")
        util = importlib.import_module(root + ".util")
        found = getattr(ssl_, "create_urllib3_context", None)
        if found is None:
            # urllib3 without the factory it has had since 1.13: nothing here is hooked, and
            # its contexts ignore the policy. Said (once per import) by the caller.
            raise LookupError(f"{root}.util.ssl_.create_urllib3_context not found")
        # A module imported again finds the factory of an earlier import already hooked.
        original: Callable[..., ssl.SSLContext] = getattr(found, "__sslcustomize_original__", found)
        factory = found if found is not original else _factory(root, original)
        for module in (ssl_, util, connection):
            if getattr(module, "create_urllib3_context", None) is original:
                patcher.replace(module, "create_urllib3_context", factory)
        wrap = getattr(connection, "_ssl_wrap_socket_and_match_hostname", None)
        if wrap is not None and not hasattr(wrap, "__sslcustomize_original__"):  # urllib3 2.x
            patcher.replace(
                connection, "_ssl_wrap_socket_and_match_hostname", _wrapper(root, wrap, original)
            )

    return patch


def patch(patcher: Patcher, trigger: str, connection: types.ModuleType) -> None:
    """Hook the urllib3 whose ``connection`` module (``trigger``) was imported."""
    _patch(patcher, trigger.removesuffix(".connection"))(connection)
