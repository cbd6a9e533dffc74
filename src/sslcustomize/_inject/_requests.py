"""Hook requests (and the copy pip vendors): ``verify=True`` means the policy, not certifi.

requests' ``HTTPAdapter.cert_verify`` sets the connection pool's ``ca_certs`` to certifi's
bundle for ``verify=True``, which urllib3 then loads at every connection and which ignores the
system store. After it runs, the hook clears that bundle, so that the connection gets the
policy's anchors (see :mod:`._urllib3`). A context that an adapter was given (``ssl_context``
in ``init_poolmanager``, as pip does) gets the policy's anchors loaded once where requests would
have loaded certifi's. A ``verify`` path that came from ``REQUESTS_CA_BUNDLE``/``CURL_CA_BUNDLE``
(or ``PIP_CERT`` in pip) is treated as ``verify=True``: the policy adds the variable's CAs for
these clients, or ignores them under a lock on ``trust``. Any other ``verify=PATH`` and
``verify=False`` are left as requests sets them: a path the code chose replaces the anchors,
``False`` is a code opt-out that the policy obeys or refuses.

requests 2.32.0 to 2.32.4 make one context at import (``_preloaded_ssl_context``, certifi's
bundle loaded into it) and hand it to every pool for ``verify=True``. Under the hook that
context is a policy context whose anchors are certifi's, not the policy's: a pool given it
gets, in its place, one context per runtime made the same way with the policy's anchors,
shared by requests' pools as requests shares its own (no context per pool, and the
runtime's warm engine serves its connections).
"""

from __future__ import annotations

import functools
import importlib
import ssl
import types
import weakref
from collections.abc import Callable

from sslcustomize._connection._contexts import PolicyContext, load_anchors
from sslcustomize._inject._patcher import Patcher
from sslcustomize._policy._model import EnvTrust
from sslcustomize._runtime._state import current_runtime
from sslcustomize._trust._environment import PIP_SETTING, entry_for_path

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


__all__ = ["patch"]

_given_policy_anchors: weakref.WeakSet[ssl.SSLContext] = weakref.WeakSet()


def _from_environment(name: str, verify: Any) -> bool:
    """Tell whether ``verify`` is a CA path from the environment or pip's ``cert`` setting.

    Such a path *adds* trust under the policy (see :mod:`.._trust._environment`): the decision for
    ``name`` already holds it when it is a variable the policy added, and under a lock on
    ``trust`` it is ignored. pip's own setting (``--cert``, ``pip.conf``) is not in the
    environment the policy read: it stays on the connection, where the urllib3 hook adds it
    to the policy's anchors, or, under the lock, is dropped here.
    """
    if not isinstance(verify, str):
        return False
    runtime = current_runtime()
    policy = runtime.policy
    decision = runtime.base_decision(name)
    entry = entry_for_path(policy.environment, verify, name)
    if entry is not None:
        runtime.notice_environment(decision.ignored_environment, decision, name)
        return True
    lock = policy.locked.get("trust")
    if not name.startswith("pip.") or lock is None:
        return False
    setting = EnvTrust(
        variable=PIP_SETTING, value=verify, clients=("pip",), state="ignored", why=str(lock)
    )
    runtime.notice_environment((setting,), decision, name)
    return True


def _policy_preloaded(adapters: types.ModuleType, name: str) -> ssl.SSLContext:
    """Return requests' preloaded context as it is under the policy: the policy's anchors.

    Made as requests makes its own (``create_urllib3_context()``, so a policy context named
    for ``name``), once per runtime and trust generation, and shared by requests' pools as
    requests shares the one it made at import.
    """
    runtime = current_runtime()

    def build() -> ssl.SSLContext:
        factory = getattr(adapters, "create_urllib3_context", None)
        if factory is None:  # the urllib3 requests drives: pip's own for pip's requests
            urllib3 = name.removesuffix("requests") + "urllib3"
            factory = importlib.import_module(urllib3 + ".util.ssl_").create_urllib3_context
        context: ssl.SSLContext = factory()
        load_anchors(context, runtime.base_decision(name))
        return context

    return runtime.shared(("requests preloaded", name), build)


def _cert_verify(
    name: str, original: Callable[..., None], adapters: types.ModuleType
) -> Callable[..., None]:
    @functools.wraps(original)
    def cert_verify(self: Any, conn: Any, url: str, verify: Any, cert: Any) -> None:
        original(self, conn, url, verify, cert)
        if not url.lower().startswith("https"):
            return
        if verify is not True and not _from_environment(name, verify):
            return
        conn.ca_certs = None
        conn.ca_cert_dir = None
        kwargs = getattr(conn, "conn_kw", {})
        context = kwargs.get("ssl_context")
        preloaded = getattr(adapters, "_preloaded_ssl_context", None)
        if context is not None and context is preloaded and isinstance(context, PolicyContext):
            # requests 2.32.0-2.32.4: its import-time context trusts certifi's bundle.
            kwargs["ssl_context"] = _policy_preloaded(adapters, name)
            return
        if (
            isinstance(context, ssl.SSLContext)
            and not isinstance(context, PolicyContext)
            and context not in _given_policy_anchors
        ):
            load_anchors(context, current_runtime().base_decision(name))
            _given_policy_anchors.add(context)

    return cert_verify


def _patch(patcher: Patcher, root: str) -> Callable[[types.ModuleType], None]:
    def patch(adapters: types.ModuleType) -> None:
        adapter = getattr(adapters, "HTTPAdapter", None)
        original = getattr(adapter, "cert_verify", None)
        if adapter is not None and original is not None:
            patcher.replace(adapter, "cert_verify", _cert_verify(root, original, adapters))

    return patch


def patch(patcher: Patcher, trigger: str, adapters: types.ModuleType) -> None:
    """Hook the requests whose ``adapters`` module (``trigger``) was imported."""
    _patch(patcher, trigger.removesuffix(".adapters"))(adapters)
