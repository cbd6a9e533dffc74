"""Hook pip: its truststore context becomes a policy context.

pip 24.2+ verifies with a ``truststore.SSLContext`` (the system store, plus certifi's bundle)
made by ``_create_truststore_ssl_context`` in ``pip._internal.cli.index_command`` (in
``req_command`` for older pips). truststore verifies with its own inner context, out of the
policy's reach, so under a policy pip gets a policy context named ``pip`` instead (the policy's
``trust`` says whether certifi is wanted). pip's vendored requests and urllib3 are hooked as
the real ones are (:mod:`._requests`, :mod:`._urllib3`); ``--cert PATH`` still adds PATH, as in
pip, and ``--trusted-host`` is a code opt-out for that host.
"""

from __future__ import annotations

import functools
import ssl
import types
from collections.abc import Callable

from sslcustomize._inject._patcher import Patcher
from sslcustomize._inject._shared import library_context

__all__ = ["patch"]

NAME = "pip"


def _patch(patcher: Patcher) -> Callable[[types.ModuleType], None]:
    def patch(module: types.ModuleType) -> None:
        original = getattr(module, "_create_truststore_ssl_context", None)
        if original is None:
            return

        @functools.wraps(original)
        def _create_truststore_ssl_context() -> ssl.SSLContext:
            return library_context(NAME)

        patcher.replace(module, "_create_truststore_ssl_context", _create_truststore_ssl_context)

    return patch


def patch(patcher: Patcher, trigger: str, module: types.ModuleType) -> None:
    """Hook pip's command module ``trigger``, just imported."""
    _patch(patcher)(module)
