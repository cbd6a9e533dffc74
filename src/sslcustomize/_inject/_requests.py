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
"""

from __future__ import annotations

import functools
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


def _cert_verify(name: str, original: Callable[..., None]) -> Callable[..., None]:
    @functools.wraps(original)
    def cert_verify(self: Any, conn: Any, url: str, verify: Any, cert: Any) -> None:
        original(self, conn, url, verify, cert)
        if not url.lower().startswith("https"):
            return
        if verify is not True and not _from_environment(name, verify):
            return
        conn.ca_certs = None
        conn.ca_cert_dir = None
        context = getattr(conn, "conn_kw", {}).get("ssl_context")
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
            patcher.replace(adapter, "cert_verify", _cert_verify(root, original))

    return patch


def patch(patcher: Patcher, trigger: str, adapters: types.ModuleType) -> None:
    """Hook the requests whose ``adapters`` module (``trigger``) was imported."""
    _patch(patcher, trigger.removesuffix(".adapters"))(adapters)
