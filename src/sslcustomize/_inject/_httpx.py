"""Hook httpx: ``verify=True`` and ``verify=False`` mean the policy, without a bundle per client.

httpx builds a context per transport (so per ``Client``) with ``create_ssl_context``, loading
certifi's bundle into it (~20 ms) for ``verify=True`` and making a plain unverified context for
``verify=False``.

* ``HTTPTransport.__init__`` and ``AsyncHTTPTransport.__init__``: a boolean ``verify`` with no
  ``cert`` becomes a context shared by every transport with the same ``verify``, ``http1`` and
  ``http2`` (httpcore sets the ALPN protocols on the context at each connection, from those).
  ``False`` gives a policy context with verification switched off: a code opt-out that the
  policy obeys or refuses, and records.
* ``create_ssl_context`` (in ``httpx``, ``httpx._config`` and the transports' module) returns
  a new policy context for the same arguments: callers of this public function may change it.

``verify=<SSLContext>`` is the code's own context and is used as it is (one from
``ssl.create_default_context()`` is a policy context once sslcustomize is injected).
"""

from __future__ import annotations

import functools
import os
import ssl
import types
import warnings
from collections.abc import Callable

from sslcustomize._inject._patcher import Patcher
from sslcustomize._inject._shared import ContextCache, library_context, make_opt_out

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


__all__ = ["patch"]

NAME = "httpx"
_cache = ContextCache()


def _policy_ssl_context(
    verify: Any = True,  # noqa: FBT002 - httpx's signature
    cert: Any = None,
    trust_env: bool = True,  # noqa: FBT001, FBT002 - httpx's signature
) -> ssl.SSLContext:
    """Return what ``httpx.create_ssl_context`` returns, as a policy context."""
    if isinstance(verify, ssl.SSLContext):
        context = verify
    elif verify is False:
        context = make_opt_out(library_context(NAME))
    elif isinstance(verify, str):
        warnings.warn(
            "httpx deprecates a path as verify=; pass an SSLContext made with "
            "ssl.create_default_context(cafile=... or capath=...)",
            DeprecationWarning,
            stacklevel=3,
        )
        # A path by code replaces the anchors, as httpx documents it.
        if os.path.isdir(verify):
            return library_context(NAME, capath=verify)
        return library_context(NAME, cafile=verify)
    else:
        # verify=True: the policy's anchors (SSL_CERT_FILE/SSL_CERT_DIR act through "system").
        context = library_context(NAME)
    if cert:
        warnings.warn(
            "httpx deprecates cert=; load the client certificate into the SSLContext passed "
            "as verify= (SSLContext.load_cert_chain)",
            DeprecationWarning,
            stacklevel=3,
        )
        if isinstance(cert, str):
            context.load_cert_chain(cert)
        else:
            context.load_cert_chain(*cert)
    return context


def _shared(verify: bool, http2: bool) -> ssl.SSLContext:  # noqa: FBT001
    def build() -> ssl.SSLContext:
        context = _policy_ssl_context(verify)
        # httpcore sets this ALPN list on the context at every connection.
        context.set_alpn_protocols(["http/1.1", "h2"] if http2 else ["http/1.1"])
        return context

    return _cache.get((verify, http2), build)  # type: ignore[no-any-return]


def _transport_init(original: Callable[..., None]) -> Callable[..., None]:
    import inspect  # noqa: PLC0415 - only once httpx is imported, not at every first context

    signature = inspect.signature(original)
    defaults = {name: p.default for name, p in signature.parameters.items()}

    @functools.wraps(original)
    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:  # noqa: N807 - replaces __init__
        if not args:
            # httpx's clients pass keywords only: read them without binding a signature
            # (~17 us a client, per request for a client made per request). A wrong keyword
            # still reaches httpx, which reports it.
            verify = kwargs.get("verify", defaults.get("verify"))
            if isinstance(verify, bool) and not kwargs.get("cert", defaults.get("cert")):
                http2 = bool(kwargs.get("http2", defaults.get("http2")))
                kwargs["verify"] = _shared(verify, http2)
            original(self, **kwargs)
            return
        try:
            bound = signature.bind(self, *args, **kwargs)
        except TypeError:
            original(self, *args, **kwargs)  # let httpx report the wrong call
            return
        bound.apply_defaults()
        arguments = bound.arguments
        verify = arguments.get("verify")
        if isinstance(verify, bool) and not arguments.get("cert"):
            arguments["verify"] = _shared(verify, bool(arguments.get("http2")))
        original(*bound.args, **bound.kwargs)

    return __init__


def _patch_transports(patcher: Patcher) -> Callable[[types.ModuleType], None]:
    def patch(module: types.ModuleType) -> None:
        import inspect  # noqa: PLC0415 - only once httpx is imported

        if getattr(module, "create_ssl_context", None) is not None:
            patcher.replace(module, "create_ssl_context", _policy_ssl_context)
        for name in ("HTTPTransport", "AsyncHTTPTransport"):
            transport = getattr(module, name, None)
            if (
                transport is not None
                and "verify" in inspect.signature(transport.__init__).parameters
            ):
                patcher.replace(transport, "__init__", _transport_init(transport.__init__))

    return patch


def _patch_factory(patcher: Patcher) -> Callable[[types.ModuleType], None]:
    def patch(module: types.ModuleType) -> None:
        if getattr(module, "create_ssl_context", None) is not None:
            patcher.replace(module, "create_ssl_context", _policy_ssl_context)

    return patch


def patch(patcher: Patcher, trigger: str, module: types.ModuleType) -> None:
    """Hook the httpx module ``trigger`` (``httpx``, ``_config`` or the transports)."""
    if trigger == "httpx._transports.default":
        _patch_transports(patcher)(module)
    else:
        _patch_factory(patcher)(module)
