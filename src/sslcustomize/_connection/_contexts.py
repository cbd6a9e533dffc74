"""Build ``SSLContext`` objects under the policy, and the named-context registry.

Contexts are instances of :class:`PolicyContext`, a subclass of Python's own
:class:`ssl.SSLContext` (:mod:`.._support._sslclass`, whatever the name ``ssl.SSLContext``
holds) whose sockets turn a failed verification into :class:`~sslcustomize.CertificateRejected`.
``ssl.SSLContext`` itself is never rebound (rebinding it is what causes RecursionError
reports against truststore: truststore#121, #143, #214).

The connection path (:mod:`._connect` and the verdict modules under it) is imported by
the first handshake, not by the first context: making a context stays cheap. So are the
policy, the trust layer and the runtime, where the first-context entry knows the minimum TLS
version (``_support._firstcontext``): the first context of such a process is made without
them, *pending*, and put under the runtime by :func:`context_state` when a connection or a
read of its store first needs it (see :func:`_settle`).
"""

from __future__ import annotations

import functools
import os
import ssl
import sys
import types
import warnings
from collections.abc import Callable, Iterator, MutableMapping

from sslcustomize._connection._contextstate import ContextState
from sslcustomize._decision._recipe import generic_step, normalize, recorded_methods
from sslcustomize._support._firstcontext import longest_prefix, minimum_tls
from sslcustomize._support._locks import fork_safe_lock
from sslcustomize._support._originals import ORIGINAL_CREATE_DEFAULT_CONTEXT
from sslcustomize._support._sslclass import PYTHON_SSLCONTEXT, StdlibContext

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, TypeVar, cast

    from sslcustomize._decision._decide import Decision
    from sslcustomize._decision._recipe import Step
    from sslcustomize._runtime._runtime import Runtime
    from sslcustomize._trust._anchors import Anchors, TrustCache
    from sslcustomize.exceptions import TrustError
else:
    from sslcustomize._support._notyping import TypeVar, cast


__all__ = [
    "ContextFactory",
    "NamedContexts",
    "PolicyContext",
    "build_context",
    "caller_module",
    "context_for",
    "context_state",
    "create_default_context",
    "create_legacy_context",
    "instance_class",
    "load_anchors",
    "load_deferred_anchors",
    "named_contexts",
    "own_state",
    "policy_context",
    "start_state",
]

ContextFactory = Callable[[], ssl.SSLContext]

_TLS_VERSIONS = {"1.2": ssl.TLSVersion.TLSv1_2, "1.3": ssl.TLSVersion.TLSv1_3}


# --- The context -------------------------------------------------------------------------------


_MISSING = object()


# The recorded methods' parameters and defaults, to keep each call in one positional form.
_PARAMETERS: dict[str, tuple[tuple[str, ...], tuple[Any, ...]]] = {
    "load_cert_chain": (("certfile", "keyfile", "password"), (None, None)),
    "set_ciphers": (("cipherlist",), ()),
    "set_alpn_protocols": (("alpn_protocols",), ()),
    "set_npn_protocols": (("npn_protocols",), ()),
    "set_ecdh_curve": (("name",), ()),
    "load_verify_locations": (("cafile", "capath", "cadata"), (None, None, None)),
    "load_default_certs": (("purpose",), (ssl.Purpose.SERVER_AUTH,)),
    "set_default_verify_paths": ((), ()),
    "load_dh_params": (("path",), ()),
}


def _positional(name: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[Any, ...]:
    names, defaults = _PARAMETERS[name]
    values = list(args) + [_MISSING] * (len(names) - len(args))
    for index, parameter in enumerate(names):
        if parameter in kwargs:
            values[index] = kwargs[parameter]
    first_default = len(names) - len(defaults)
    for index in range(first_default, len(names)):
        if values[index] is _MISSING:
            values[index] = defaults[index - first_default]
    return tuple(values)


_DEFAULT_PATH_STEPS = ("load_default_certs", "set_default_verify_paths")
_DEFAULT_PATH_VARIABLES = ("SSL_CERT_FILE", "SSL_CERT_DIR")


def _ignores_default_path_variables(runtime: Runtime) -> bool:
    """Tell whether the policy ignores SSL_CERT_FILE or SSL_CERT_DIR (a lock)."""
    return any(
        entry.variable in _DEFAULT_PATH_VARIABLES and entry.state == "ignored"
        for entry in runtime.policy.environment
    )


def _load_default_paths_without_variables(context: PolicyContext) -> None:
    """Load OpenSSL's compiled-in default paths, as recorded ``load_verify_locations`` calls.

    Recorded as such, a copy of the context (an engine, a verifier) loads the same: replaying
    ``load_default_certs`` there would read the variables again.
    """
    from sslcustomize._trust._anchors import default_verify_locations  # noqa: PLC0415 - a rare call, not on a first context

    file, directory = default_verify_locations()
    if file or directory:
        context.load_verify_locations(file, directory)


def _recorded(name: str) -> Callable[..., Any]:
    """Wrap Python's ``SSLContext.<name>`` so that the call is kept in the context's recipe."""
    method = getattr(PYTHON_SSLCONTEXT, name)

    @functools.wraps(method)
    def recorded(self: PolicyContext, *args: Any, **kwargs: Any) -> Any:
        if name not in _PARAMETERS:  # a newer Python's setter: kept as called
            step = generic_step(name, args, kwargs)
        else:
            try:
                step = (name, normalize(_positional(name, args, kwargs)))
            except (IndexError, KeyError):  # arguments ssl itself will refuse, with its message
                return method(self, *args, **kwargs)
        state = own_state(self)
        if state.frozen:
            self._refuse_change(name, step in state.recipe)
            return None
        if name in _DEFAULT_PATH_STEPS and _ignores_default_path_variables(
            context_state(self).runtime
        ):
            # OpenSSL would read SSL_CERT_FILE/SSL_CERT_DIR here, which the policy ignores.
            _load_default_paths_without_variables(self)
            return None
        result = method(self, *args, **kwargs)
        state.record(step)
        return result

    return recorded


# The one attribute sslcustomize keeps on a context: read and set only in this module.
_STATE = "_sslcustomize_state"


def context_state(context: PolicyContext) -> ContextState:
    """Return what sslcustomize keeps on ``context`` (see :mod:`._contextstate`), settled.

    :func:`build_context` gives every context it makes its state. A context made directly
    (``PolicyContext(protocol)``) gets one when first changed or used: under the policy in
    effect then, as ``build_context`` without a runtime. A pending state (a first context
    made without the runtime) is settled here first (:func:`_settle`): whoever gets the state
    from this function gets its runtime and decision.
    """
    state = own_state(context)
    if state.pending:
        _settle(context, state)
    return state


def own_state(context: PolicyContext) -> ContextState:
    """Return the state on ``context`` as it is, pending or not (for its setters).

    ``setdefault`` keeps it one state when two threads get there at once.
    """
    names = vars(context)
    state: ContextState | None = names.get(_STATE)
    if state is None:
        from sslcustomize._runtime._state import current_runtime  # noqa: PLC0415 - not by a first context

        runtime = current_runtime()
        made = ContextState(runtime=runtime, name="__main__", decision=runtime.base_decision(None))
        state = names.setdefault(_STATE, made)
    return state


# Held while a pending state is settled: its anchors deferred and its minimum version checked
# before any thread sees it settled. Never while the policy is read or announced.
_settling = fork_safe_lock()


def _settle(context: PolicyContext, state: ContextState) -> None:
    """Put a context made without the runtime under it, as :func:`start_state` would have.

    The runtime is the one the policy files give (:func:`.._runtime._state.first_runtime`),
    the decision the real one for the context's name; its anchors are deferred on it now, and
    where the minimum TLS version it was made with was not the decision's (no entry, or one
    older than the policy) and code set none since, the decision's is set as
    :func:`start_state` would have. Each import and read here that fails propagates: the
    connection or read that needed the state fails, and the state stays pending (its store is
    still empty: it trusts nothing).
    """
    from sslcustomize._runtime._state import first_runtime  # noqa: PLC0415 - the first connection's

    runtime = first_runtime()  # may announce the policy: outside the lock
    decision = runtime.base_decision(state.asked)
    with _settling:
        if not state.pending:
            return
        state.settle(runtime, decision)
        guessed = state.hint != decision.minimum_tls and context.protocol in _VERSIONED
        if guessed and not state.minimum_set:
            # What start_state would have set; a version code set itself stays, as it would
            # have replaced that one (the connection path judges it against the decision).
            wanted = max(state.python_minimum, _TLS_VERSIONS[decision.minimum_tls])
            StdlibContext.__setattr__(context, "minimum_version", ssl.TLSVersion(wanted))
        if state.wants_anchors:
            load_anchors(context, decision)
        state.pending = False


class PolicyContext(StdlibContext):
    """A client context made under the policy.

    It behaves as the :class:`ssl.SSLContext` it is; callers may set ALPN, ciphers, versions,
    client certificates and ``check_hostname`` on it as on any other. Its connections are
    planned and judged under the policy it was made under (see :mod:`._connect`); what
    the caller turns off is a code opt-out, recorded or refused as the policy says.
    """

    def _wrap_socket(
        self,
        sock: Any,
        server_side: bool,  # noqa: FBT001 - the signature of _ssl._SSLContext._wrap_socket
        server_hostname: Any = None,
        **kwargs: Any,
    ) -> Any:
        if server_side:
            load_deferred_anchors(self)  # a client's certificate is verified with this store
            return super()._wrap_socket(sock, server_side, server_hostname, **kwargs)  # type: ignore[misc]
        from sslcustomize._connection._connect import connect  # noqa: PLC0415 - first handshake
        from sslcustomize._connection._target import socket_target  # noqa: PLC0415 - first handshake

        state = context_state(self)
        target = socket_target(sock, server_hostname)
        return connect(
            self, state, (sock,), server_hostname, target.port, target=target,
            prepare=load_deferred_anchors, **kwargs,
        )  # fmt: skip

    def _wrap_bio(
        self,
        incoming: Any,
        outgoing: Any,
        server_side: bool,  # noqa: FBT001 - the signature of _ssl._SSLContext._wrap_bio
        server_hostname: Any = None,
        **kwargs: Any,
    ) -> Any:
        if server_side:
            load_deferred_anchors(self)  # a client's certificate is verified with this store
            wrap = super()._wrap_bio  # type: ignore[misc]
            return wrap(incoming, outgoing, server_side, server_hostname, **kwargs)
        from sslcustomize._connection._connect import connect  # noqa: PLC0415 - first handshake
        from sslcustomize._connection._target import transport_target  # noqa: PLC0415 - first handshake

        arguments = (incoming, outgoing)
        target = transport_target(server_hostname)
        state = context_state(self)
        return connect(
            self, state, arguments, server_hostname, target.port, target=target,
            prepare=load_deferred_anchors, **kwargs,
        )  # fmt: skip

    def get_ca_certs(self, binary_form: bool = False) -> Any:  # noqa: FBT001, FBT002 - ssl's signature
        """Return the CA certificates of the store, the policy's deferred anchors registered."""
        load_deferred_anchors(self)
        return super().get_ca_certs(binary_form)

    def cert_store_stats(self) -> Any:
        """Return the store's statistics, the policy's deferred anchors registered."""
        load_deferred_anchors(self)
        return super().cert_store_stats()

    def freeze(self) -> None:
        """Refuse every later change: the context is about to be shared between callers.

        Setting anything to the value it already has stays allowed (a library that sets the
        same on each connection keeps working); any other change raises
        :class:`~sslcustomize.exceptions.SharedContextError`.
        """
        own_state(self).frozen = True

    def _refuse_change(self, what: str, unchanged: bool) -> None:  # noqa: FBT001
        if not unchanged:
            from sslcustomize.exceptions import SharedContextError  # noqa: PLC0415 - loaded with an error, not by a first context

            raise SharedContextError(
                f"cannot change {what} of the context sslcustomize shares between "
                f"{own_state(self).name} connections: the change would reach every other "
                "caller. Make a context of your own (ssl.create_default_context()) and pass it"
            )

    def __setattr__(self, name: str, value: Any) -> None:
        """Set an attribute; on a shared context only to the value it already has."""
        state = own_state(self)
        if state.frozen:
            self._refuse_change(name, getattr(self, name, _MISSING) == value)
            return
        if name == "minimum_version" and state.pending:
            with _settling:  # code's own version: settling must not replace it (see _settle)
                super().__setattr__(name, value)
                state.minimum_set = True
            return
        super().__setattr__(name, value)


# Every setter of ssl's own class, including those of a newer Python that nobody has
# classified yet (see _engine.recorded_methods): engines are built from what is recorded.
for _name in recorded_methods(PYTHON_SSLCONTEXT):
    setattr(PolicyContext, _name, _recorded(_name))


# --- Factories ---------------------------------------------------------------------------------


def _say_once(message: str) -> None:
    from sslcustomize._support._once import first_time  # noqa: PLC0415 - only when one is to be said

    if first_time("context", message):
        sys.stderr.write(f"sslcustomize: {message}\n")


_VERSIONED = (ssl.PROTOCOL_TLS_CLIENT, ssl.PROTOCOL_TLS)


def _apply_defaults(context: ssl.SSLContext, minimum_tls: str, *, client: bool = True) -> None:
    """Apply what ``ssl.create_default_context()`` applies on this Python, except the trust.

    ``client=False``: the context may serve either side (``PROTOCOL_TLS`` made by a library's
    class, which sets verification itself): its verification is left as Python made it.
    """
    if client and context.protocol != ssl.PROTOCOL_TLS_CLIENT:
        # A protocol the code asked for explicitly: verify as PROTOCOL_TLS_CLIENT would.
        context.verify_mode = ssl.CERT_REQUIRED
        context.check_hostname = True
    if sys.version_info >= (3, 13):  # pragma: no cover - version-specific
        # 3.13's defaults: see "Changed in version 3.13" of ssl.create_default_context.
        context.verify_flags |= ssl.VERIFY_X509_PARTIAL_CHAIN | ssl.VERIFY_X509_STRICT
    if context.protocol in _VERSIONED:
        context.minimum_version = max(context.minimum_version, _TLS_VERSIONS[minimum_tls])
    keylog = os.environ.get("SSLKEYLOGFILE")
    if keylog and not sys.flags.ignore_environment:
        context.keylog_filename = keylog


def _trust_error() -> type[TrustError]:
    """Return :class:`~sslcustomize.TrustError`, imported when an ``except`` first meets one.

    An ``except`` clause evaluates its classes only when an exception reaches it: so the
    exceptions module loads with the first error, not with the first context.
    """
    from sslcustomize.exceptions import TrustError  # noqa: PLC0415 - loaded with an error, not by a first context

    return TrustError


def _policy_anchors(trust: TrustCache, decision: Decision) -> Anchors:
    """Return the decision's anchors; a source that fails the trust check gives the system store.

    The one fallback of both ways :func:`load_anchors` gives anchors. A source that passed the
    check and breaks before its anchors are loaded is not replaced here: loading it fails,
    and the connection with it (see :func:`load_anchors`).

    Raises:
        TrustError: Not even the system store can be used.
    """
    from sslcustomize._policy._model import SYSTEM_TRUST  # noqa: PLC0415 - loaded by the runtime already

    try:
        return trust.anchors_for(decision.trust_now(os.environ))
    except _trust_error() as error:
        if decision.trust == SYSTEM_TRUST:
            raise
        _say_once(f"cannot use the policy's trust sources ({error}); using the system store")
        return trust.anchors_for(SYSTEM_TRUST)


def load_anchors(context: ssl.SSLContext, decision: Decision) -> None:
    """Give ``context`` the decision's anchors (the system store's if a source fails its check).

    A policy context gets them deferred (:meth:`ContextState.defer_anchors`): recorded, so
    that its connections' engines trust them, and registered in its own store only when that
    store is read or connected on (:func:`load_deferred_anchors`). A context per connection
    (urllib3's) that connects on the runtime's engine then never registers them (0.13 ms a
    context on OpenSSL 3.0). Any other context gets them at once.

    Both ways fail alike, and closed: a source that fails the trust check gives the system
    store (said once); one that passed it and cannot be loaded when first used (changed or
    deleted since, within the check's interval) is never replaced by another, and nothing
    connects with it: the deferred anchors' first connection is refused, and here loading
    raises :class:`~sslcustomize.TrustError`.

    Raises:
        TrustError: Not even the system store can be used, or (anchors loaded at once) a
            source cannot be loaded any more; the context may then hold part of the anchors.
    """
    state = own_state(context) if isinstance(context, PolicyContext) else None
    # The anchors of the context's own runtime (the effective one for a library's context).
    if state is None:
        from sslcustomize._runtime._state import current_runtime  # noqa: PLC0415 - loaded by the runtime already

        trust = current_runtime().trust
    else:
        trust = state.runtime.trust
    anchors = _policy_anchors(trust, decision)
    if state is not None and not state.frozen:
        state.defer_anchors(_anchor_steps(anchors), late=state.pending)
        return
    before = state.recipe if state is not None else ()
    try:
        anchors.load_into(context)
    except (ssl.SSLError, OSError) as error:
        raise _trust_error()(
            f"a trust source of the policy cannot be loaded any more ({error}); it was usable "
            "when checked, and nothing is trusted in its place"
        ) from error
    if state is not None:
        state.add_policy_steps(before)


def _anchor_steps(anchors: Anchors) -> tuple[Step, ...]:
    """Return the recipe steps of ``anchors``, as ``Anchors.load_into`` would record them."""
    name = "load_verify_locations"
    directories = tuple((name, (None, path, None)) for path in anchors.directories)
    return directories + tuple((name, (path, None, None)) for path in anchors.files)


def _load_step(context: ssl.SSLContext, step: Step) -> None:
    """Register one deferred anchor step in ``context``'s own store (never recorded again)."""
    PYTHON_SSLCONTEXT.load_verify_locations(context, *step[1])


def load_deferred_anchors(context: ssl.SSLContext) -> None:
    """Register the policy's deferred anchors in ``context``'s own store, if it has any.

    Called before anything reads the store (``get_ca_certs``, ``cert_store_stats``) or a
    connection is made on the context itself (not on an engine): a server side, a connection
    that no engine could carry, a connection moved onto the context (``SSLSocket.context``).

    Raises:
        ssl.SSLError: A trust source cannot be loaded any more (the store stays without it).
        OSError: Likewise.
    """
    if isinstance(context, PolicyContext):
        state = vars(context).get(_STATE)
        if state is not None and state.pending:
            state = context_state(context)  # its anchors are deferred when it is settled
        if state is not None and state.deferred:
            state.load_deferred(lambda step: _load_step(context, step))


def policy_context(
    name: str | None,
    *,
    runtime: Runtime | None = None,
    cafile: str | None = None,
    capath: str | None = None,
    cadata: str | bytes | None = None,
) -> PolicyContext:
    """Build a fresh client context for the context ``name`` under the effective policy.

    Args:
        name: The context name (usually the requesting module).
        runtime: The policy to build under (default: the effective one).
        cafile: Trust exactly these anchors instead of the policy's, as code asked.
        capath: Likewise, a hashed directory.
        cadata: Likewise, PEM text or DER bytes.

    Returns:
        A new context; each call returns a new one, so callers may change it freely.

    Raises:
        TrustError: Not even the system trust store can be found.
    """
    return build_context(
        PolicyContext, name, runtime=runtime, cafile=cafile, capath=capath, cadata=cadata
    )


AnyPolicyContext = TypeVar("AnyPolicyContext", bound="PolicyContext")

# (kind, substitute) -> kind with the substitute mixed in, built once (see _instance_class).
_with_substitute: dict[tuple[type[Any], type[Any]], type[Any]] = {}


def instance_class(kind: type[AnyPolicyContext]) -> type[AnyPolicyContext]:
    """Return the class to instantiate for ``kind``: itself, or itself over a substitute.

    Some tools rebind ``ssl.SSLContext`` to a subclass of Python's class, and libraries
    imported after that check ``isinstance(context, ssl.SSLContext)`` against it (aiohttp's
    ``ssl=`` argument). A policy context is then also an instance of the substitute, in one
    of two ways, decided by what the substitute is for:

    * gevent's class (``gevent.monkey.patch_ssl()``) moves bytes cooperatively and leaves
      verification to OpenSSL: it is mixed in *with its behaviour* (its cooperative
      ``SSLSocket``); ``kind`` stays first in the MRO, so ``_wrap_socket``/``_wrap_bio`` are
      still the policy's.
    * Any other substitute (truststore's ``inject_into_ssl()``, which pip-system-certs
      calls) is mixed in *for its identity only*: every attribute it defines is shadowed by
      what ``kind`` has for that name. Such a class is a verifier of its own that forwards
      to an inner context; under the policy the policy is the verifier (truststore's own
      contexts are governed through their inner context, see ``_inject._truststore``), so
      nothing of it may run on a policy context.
    """
    current = ssl.SSLContext
    if current in kind.__mro__ or not isinstance(current, type):
        return kind
    if not issubclass(current, PYTHON_SSLCONTEXT):
        return kind  # not a subclass of Python's class: it cannot be mixed in
    mixed = _with_substitute.get((kind, current))
    if mixed is None:
        gevent_ssl = sys.modules.get("gevent.ssl")
        if gevent_ssl is not None and current is getattr(gevent_ssl, "SSLContext", None):
            namespace = {}
        else:
            namespace = _identity_only(kind, current)
        namespace.update(__module__=kind.__module__, __qualname__=kind.__qualname__)
        mixed = _with_substitute[kind, current] = type(kind.__name__, (kind, current), namespace)
    return cast("type[AnyPolicyContext]", mixed)


class _Hidden:
    """Hide an attribute that a substitute class added and Python's class does not have."""

    def __init__(self, name: str) -> None:
        self._name = name

    def __get__(self, instance: object, owner: object = None) -> Any:
        raise AttributeError(self._name)


def _no_init(self: object, *args: object, **kwargs: object) -> None:
    """Python's ``SSLContext`` does all in ``__new__``; a substitute's ``__init__`` must not run."""


_OWN_NAMES = frozenset({"__module__", "__qualname__", "__doc__", "__dict__", "__weakref__"})


def _identity_only(kind: type[Any], substitute: type[Any]) -> dict[str, Any]:
    """Shadow every attribute ``substitute`` adds with what ``kind`` has for that name."""
    namespace: dict[str, Any] = {}
    for cls in substitute.__mro__:
        if cls in kind.__mro__:
            continue
        for name in vars(cls):
            if name in _OWN_NAMES or name in namespace:
                continue
            owner = next((c for c in kind.__mro__ if name in vars(c)), None)
            if name == "__init__" and owner in (None, object):
                namespace[name] = _no_init
            elif owner is None:
                namespace[name] = _Hidden(name)
            else:
                namespace[name] = vars(owner)[name]
    return namespace


def build_context(
    kind: type[AnyPolicyContext],
    name: str | None,
    *,
    runtime: Runtime | None = None,
    protocol: int = ssl.PROTOCOL_TLS_CLIENT,
    anchors: bool = True,
    cafile: str | None = None,
    capath: str | None = None,
    cadata: str | bytes | None = None,
) -> AnyPolicyContext:
    """Build a context of class ``kind`` for ``name``: the one recipe for every policy context.

    Args:
        kind: :class:`PolicyContext` or a subclass.
        name: The context name.
        runtime: The policy to build under (default: the effective one).
        protocol: The protocol the code asked for.
        anchors: Load the policy's anchors (``False``: the caller loads its own).
        cafile: Trust exactly these anchors instead of the policy's.
        capath: Likewise, a hashed directory.
        cadata: Likewise, PEM text or DER bytes.
    """
    context = instance_class(kind)(protocol)
    if runtime is None:
        hint = _early_minimum(name)
        if hint is not None:  # the first contexts of a process: without the runtime
            own = bool(cafile or capath or cadata)
            state = ContextState(
                runtime=None, name=name or "__main__", decision=None, asked=name,
                anchors=anchors and not own, hint=hint,
            )  # fmt: skip
            state.python_minimum = int(context.minimum_version)
            vars(context)[_STATE] = state
            _apply_defaults(context, hint)
            state.minimum_set = False  # set by the defaults just now, not by code
            _follow_a_reloaded_ssl(context)
            if own:
                context.load_verify_locations(cafile, capath, cadata)
            return context
        from sslcustomize._runtime._state import current_runtime  # noqa: PLC0415 - after the first contexts

        runtime = current_runtime()
    decision = start_state(context, runtime, name)
    if cafile or capath or cadata:
        context.load_verify_locations(cafile, capath, cadata)
    elif anchors:
        load_anchors(context, decision)
    return context


_STATE_MODULE = "sslcustomize._runtime._state"


def _early_minimum(name: str | None) -> str | None:
    """Return the minimum TLS version for ``name`` while the process has no runtime, if known.

    Once the runtime's module is loaded (a context was connected on, code set a policy) every
    context is made the full way: ``None``. Before, the first-context entry may know it
    (:func:`.._support._firstcontext.minimum_tls`, which marks the process first; the module
    is looked for again after it, so that a policy set meanwhile keeps these contexts'
    runtime). Where it does not (the first process after the policy changed), the context is
    made the full way too: a policy read then that has errors is said at once.
    """
    if _STATE_MODULE in sys.modules:
        return None
    hint = minimum_tls(name)
    return None if _STATE_MODULE in sys.modules else hint


def start_state(
    context: PolicyContext, runtime: Runtime, name: str | None, *, client: bool = True
) -> Decision:
    """Put a new context under ``runtime`` as context ``name``, with the policy's defaults.

    What every policy context gets when it is made, by :func:`build_context` or by a
    library's own code through a hooked class (see ``_inject._urllib3``). ``client=False``
    for a class code may also make server contexts with: its verification stays Python's
    (see :func:`_apply_defaults`); a server side never comes to the policy.

    Returns:
        The decision for ``name`` without a host (its trust, its minimum TLS version).
    """
    decision = runtime.base_decision(name)
    state = ContextState(runtime=runtime, name=name or "__main__", decision=decision)
    vars(context)[_STATE] = state
    _apply_defaults(context, decision.minimum_tls, client=client)
    _follow_a_reloaded_ssl(context)
    return decision


_PYTHON_SOCKET_CLASSES = (PYTHON_SSLCONTEXT.sslsocket_class, PYTHON_SSLCONTEXT.sslobject_class)


def _follow_a_reloaded_ssl(context: ssl.SSLContext) -> None:
    """Wrap with the socket classes of the ``ssl`` module loaded now, where it was loaded again.

    ``importlib.reload(ssl)`` runs ssl's body again in the same namespace: its
    ``SSLSocket._create`` then names the new class, and a socket of the class a policy context
    inherited from the first body fails (``super(type, obj)``). A context made after the
    reload takes the new classes (a substitute's own classes, gevent's, are left alone).
    """
    module = sys.modules.get("ssl")
    current = (getattr(module, "SSLSocket", None), getattr(module, "SSLObject", None))
    if current[0] is None or current == _PYTHON_SOCKET_CLASSES:
        return
    if context.sslsocket_class is _PYTHON_SOCKET_CLASSES[0]:
        context.sslsocket_class = current[0]
    if context.sslobject_class is _PYTHON_SOCKET_CLASSES[1] and current[1] is not None:
        context.sslobject_class = current[1]


_SKIPPED = ("ssl", "sslcustomize", "_sslcustomize_startup")


def caller_module(depth: int = 2) -> str:
    """Return the module name of the first caller outside ``ssl`` and sslcustomize."""
    frame: types.FrameType | None = sys._getframe(depth)  # noqa: SLF001 - cheapest way
    while frame is not None:
        name = str(frame.f_globals.get("__name__", ""))
        if name not in _SKIPPED and not name.startswith("sslcustomize."):
            return name or "__main__"
        frame = frame.f_back
    return "__main__"


class NamedContexts(MutableMapping[str, ContextFactory]):
    """Context factories by name: ``named_contexts["myapp.billing"] = factory``.

    Looking up a name finds the factory registered under its longest dotted prefix; a name
    with none gets the policy's factory for that name (as a ``defaultdict`` would, without
    storing it). ``in``, ``len`` and iteration see only registered names.
    """

    def __init__(self) -> None:
        """Create an empty registry."""
        self._factories: dict[str, ContextFactory] = {}

    def __getitem__(self, name: str) -> ContextFactory:
        """Return the factory for ``name`` (registered by prefix, else the policy's)."""
        found = self.registered(name)
        if found is not None:
            return found
        return lambda: policy_context(name)

    def registered(self, name: str) -> ContextFactory | None:
        """Return the factory registered for the longest dotted prefix of ``name``, if any."""
        return longest_prefix(self._factories, name)

    def __setitem__(self, name: str, factory: ContextFactory) -> None:
        """Register ``factory`` for ``name`` and every dotted name below it."""
        if not callable(cast("object", factory)):
            raise TypeError(f"a context factory must be callable, not {factory!r}")
        self._factories[name] = factory

    def __delitem__(self, name: str) -> None:
        """Unregister ``name``."""
        del self._factories[name]

    def __iter__(self) -> Iterator[str]:
        """Iterate over registered names."""
        return iter(self._factories)

    def __len__(self) -> int:
        """Return how many names are registered."""
        return len(self._factories)

    def __repr__(self) -> str:
        """Show the registered names."""
        return f"NamedContexts({sorted(self._factories)!r})"


named_contexts = NamedContexts()


def context_for(name: str) -> ssl.SSLContext:
    """Return a new client context for the named context ``name``.

    Args:
        name: A dotted name such as ``smtplib`` or ``myapp.billing``.

    Returns:
        What the factory registered in :data:`named_contexts` for the longest prefix of
        ``name`` returns, or else a context under the policy's ``[context."..."]`` rule.
    """
    factory = named_contexts.registered(name)
    return factory() if factory is not None else policy_context(name)


def create_default_context(
    purpose: ssl.Purpose = ssl.Purpose.SERVER_AUTH,
    *,
    cafile: str | None = None,
    capath: str | None = None,
    cadata: str | bytes | None = None,
) -> ssl.SSLContext:
    """Return a client context for the calling module under the policy.

    A drop-in for :func:`ssl.create_default_context`, which it replaces once injected. The
    context is named after the calling module; ``cafile``/``capath``/``cadata`` replace the
    trust anchors, as they do for :mod:`ssl`. Server-side contexts (``Purpose.CLIENT_AUTH``)
    are built by :mod:`ssl` unchanged.

    Returns:
        A new context.
    """
    if purpose != ssl.Purpose.SERVER_AUTH:
        return ORIGINAL_CREATE_DEFAULT_CONTEXT(  # type: ignore[no-any-return]
            purpose, cafile=cafile, capath=capath, cadata=cadata
        )
    name = caller_module()
    if not (cafile or capath or cadata):
        factory = named_contexts.registered(name)
        if factory is not None:
            return factory()
    return policy_context(name, cafile=cafile, capath=capath, cadata=cadata)


def create_legacy_context(
    *, certfile: str | None = None, keyfile: str | None = None
) -> ssl.SSLContext:
    """Return a client context that does not verify, as an explicit, visible opt-out.

    The greppable replacement for ``verify=False`` and ``ssl._create_unverified_context()``.
    It warns with :class:`~sslcustomize.LegacyContextWarning`. Where the policy sets
    ``allow_code_opt_out = false`` for the calling module, its connections verify anyway.

    .. warning::
        A context that does not verify accepts any certificate: anyone on the network path
        can read and change the traffic. Prefer a scoped policy exception
        (``sslcustomize trust HOST``).

    Returns:
        A new context.
    """
    from sslcustomize.exceptions import LegacyContextWarning  # noqa: PLC0415 - a legacy context only

    name = caller_module()
    context = policy_context(name)
    state = context_state(context)
    decision = state.decision
    if not decision.allow_code_opt_out:
        warnings.warn(
            f"{name} asked for a legacy (unverified) context; the policy "
            f"({decision.origin or 'allow_code_opt_out'}) refuses code opt-outs, so it verifies",
            LegacyContextWarning,
            stacklevel=2,
        )
    else:
        warnings.warn(
            f"{name} uses a legacy context that does not verify certificates",
            LegacyContextWarning,
            stacklevel=2,
        )
    state.python_verifies = False  # the code opts out
    # verify_mode after check_hostname: ssl requires this order.
    context.check_hostname = False  # sslcustomize: allow(legacy context: warned, reported)
    context.verify_mode = ssl.CERT_NONE  # sslcustomize: allow(legacy context: warned, reported)
    if certfile or keyfile:
        context.load_cert_chain(certfile, keyfile)  # type: ignore[arg-type]
    return context
