"""The floor: the least a hook must do to verify every client of a process under one policy.

Not a product: the yardstick of ``bench/run.py``. ``install(POLICY)`` reads the policy's
``trust`` list (from a marshal cache keyed by the file's size and mtime, parsing the TOML only
on a miss), makes one ``SSL_CTX`` that points at the hashed system directory (OpenSSL looks a
CA up there when a chain needs it: nothing is read now) and at the policy's CA files, and
hands that one context to every caller of ``ssl.create_default_context``, to http.client and
to urllib3 (and so requests; httpx calls ``ssl.create_default_context``). Trust is the
policy's: the context ignores what callers load into it. There are no exceptions, modes,
reports, named contexts, or protection of the shared context against its callers' setters:
what sslcustomize costs above this is the price of those.
"""

from __future__ import annotations

import marshal
import os
import ssl
from typing import Any

_ORIGINAL = ssl.create_default_context
_state: dict[str, ssl.SSLContext] = {}


def _trust(policy: str) -> list[str]:
    """Return the policy's trust list, from the marshal cache when the file did not change."""
    info = os.stat(policy)
    key = (policy, info.st_size, info.st_mtime_ns)
    cache = os.path.join(os.environ.get("XDG_CACHE_HOME", "/tmp"), "floor-hook.marshal")
    try:
        with open(cache, "rb") as file:
            cached_key, trust = marshal.load(file)
        if tuple(cached_key) == key:
            return list(trust)
    except (OSError, EOFError, ValueError, TypeError):
        pass
    import tomllib

    with open(policy, "rb") as file:
        trust = list(tomllib.load(file).get("trust", ["system"]))
    try:
        os.makedirs(os.path.dirname(cache), exist_ok=True)
        with open(cache, "wb") as file:
            marshal.dump((key, trust), file)
    except OSError:
        pass  # no cache: the next process parses again
    return trust


def _ignore(*_args: Any, **_kwargs: Any) -> None:
    """Load nothing: the policy decides what the context trusts."""


def install(policy: str) -> None:
    """Make ``ssl``'s default factories and urllib3's return one context, trusting ``policy``'s."""
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)  # CERT_REQUIRED, host names checked
    for source in _trust(policy):
        if source == "system":
            context.load_verify_locations(capath=ssl.get_default_verify_paths().openssl_capath)
        else:
            context.load_verify_locations(cafile=source)
    context.load_verify_locations = context.load_default_certs = _ignore  # type: ignore[method-assign]
    _state["context"] = context

    def default(purpose: Any = ssl.Purpose.SERVER_AUTH, **kwargs: Any) -> ssl.SSLContext:
        if purpose != ssl.Purpose.SERVER_AUTH:
            return _ORIGINAL(purpose, **kwargs)
        return context

    ssl.create_default_context = default
    ssl._create_default_https_context = default
    try:
        import urllib3.connection
        import urllib3.util.ssl_
    except ImportError:
        return
    original = urllib3.util.ssl_.create_urllib3_context

    def for_urllib3(*args: Any, cert_reqs: Any = None, **kwargs: Any) -> ssl.SSLContext:
        if cert_reqs not in (None, ssl.CERT_REQUIRED):  # verify=False: the code's own choice
            return original(*args, cert_reqs=cert_reqs, **kwargs)
        return context

    for module in (urllib3.util.ssl_, urllib3.util, urllib3.connection):
        module.create_urllib3_context = for_urllib3  # type: ignore[attr-defined]
