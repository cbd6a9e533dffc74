"""Install and remove the hooks: ``inject()`` and ``extract()`` undo each other exactly."""

from __future__ import annotations

import os
import types
from collections.abc import Callable

from sslcustomize._inject import _stdlib
from sslcustomize._inject._patcher import Patcher, on_import
from sslcustomize._support import _bootstrap
from sslcustomize._support._bootstrap import CLIENTS
from sslcustomize._support._locks import fork_safe_lock

TYPE_CHECKING = False
if TYPE_CHECKING:
    from sslcustomize._policy._model import Policy

__all__ = [
    "CLIENTS",
    "extract",
    "inject",
    "inject_from_startup",
    "is_injected",
    "replaced_attributes",
]

# Held only while hooks are installed or removed: never while a policy is read, announced or
# recorded (warnings and sinks may run the program's own handlers, which may make a context).
# Not the runtime's lock (_runtime._state): installing a hook runs the hooks of libraries
# already imported, and those may make a context, which takes that lock. Whether code pinned
# the policy lives with the runtime, in one update with it (set_policy, unpin).
_lock = fork_safe_lock()
_patcher = Patcher()


def inject(policy: Policy | str | os.PathLike[str] | None = None) -> None:
    """Make every TLS client in this process verify under the policy.

    Args:
        policy: A policy file to use instead of the venv, user and process layers (the system
            layer stays, with its locks); or a ``Policy`` (under a system lock, only one
            loaded with that system layer); ``None`` uses the layers (system, venv, user,
            ``SSLCUSTOMIZE_POLICY``).

    Raises:
        PolicyError: ``policy`` is a ``Policy`` made without the system layer that locks keys:
            code cannot lift the administrator's locks.

    Calling it again only changes the policy; the hooks are installed once. Without a
    policy it reads nothing: the policy, its runtime and their modules load with the first
    context that needs them (``_connection._contexts``), not here.

    .. warning::
        Under a system layer's ``lock``, what code does through this API is bounded by it:
        a policy file is merged above the system layer (locked keys keep the system's value,
        with a :class:`~sslcustomize.PolicyWarning`), and :func:`extract` is an opt-out like
        ``verify=False``: recorded, or refused where ``allow_code_opt_out = false``.
    """
    if policy is not None:
        from sslcustomize._policy._model import Policy  # noqa: PLC0415 - not on a first context
        from sslcustomize._runtime._state import announce, set_policy  # noqa: PLC0415 - the same
        from sslcustomize._trust._checked_policy import load_policy  # noqa: PLC0415 - the same

        if not isinstance(policy, Policy):
            policy = load_policy([*_system_layer(), ("process", os.fspath(policy), True)])
            announce(policy)
        else:
            _check_bounded(policy)
        set_policy(policy, pinned=True)
    with _lock:
        if not _patcher:
            _stdlib.inject(_patcher)
            # The client registry (declared in the startup module, which watches the same
            # modules): each trigger's hook module patches it once it is imported.
            for client in CLIENTS:
                for trigger in client.triggers:
                    on_import(_patcher, trigger, _library_hook(_patcher, trigger, client.hook))


def _system_layer() -> list[tuple[str, str, bool]]:
    """Return the system layer's ``(layer, path, required)``, as the startup hook reads it."""
    from sslcustomize._policy._load import policy_files  # noqa: PLC0415 - not on a first context

    return [entry for entry in policy_files() if entry[0] == "system"]


def _check_bounded(policy: Policy) -> None:
    """Refuse a ``Policy`` value that drops the system layer's locks.

    Raises:
        PolicyError: The system layer locks keys and ``policy`` does not carry those locks.
    """
    from sslcustomize._trust._checked_policy import load_policy  # noqa: PLC0415 - not on a first context

    system = load_policy(_system_layer())
    if system.locked and dict(policy.locked) != dict(system.locked):
        from sslcustomize.exceptions import PolicyError  # noqa: PLC0415 - loaded with an error, not by a first context

        raise PolicyError(
            "the system policy locks "
            + ", ".join(sorted(system.locked))
            + ": inject() takes a policy file (merged above the system layer) or a Policy "
            "loaded with the system layer, never one that drops its locks",
            path=next(iter(system.locked.values())).path,
        )


def _library_hook(patcher: Patcher, trigger: str, hooks: str) -> Callable[[types.ModuleType], None]:
    """Return what runs when ``trigger`` is imported: the hook module ``hooks`` patches it."""

    def hook(module: types.ModuleType) -> None:
        import importlib  # noqa: PLC0415 - only once a client library is imported

        try:
            importlib.import_module(f"{__name__}.{hooks}").patch(patcher, trigger, module)
        except Exception as error:  # noqa: BLE001 - any failure: that library fails closed
            from sslcustomize._inject import _unhooked  # noqa: PLC0415 - ~0.9 ms, once a hook fails

            _unhooked.unhooked(patcher, trigger, module, error)

    return hook


def inject_from_startup() -> None:
    """Install the hooks from the ``.pth`` startup hook (the policy is read on first use)."""
    inject()


def extract() -> None:
    """Remove every hook :func:`inject` installed and restore what was there before.

    Under a system layer's ``lock`` it is a code opt-out (the process leaves the policy):
    warned about with :class:`~sslcustomize.LegacyContextWarning` and recorded; where the
    policy says ``allow_code_opt_out = false`` it is refused, and the hooks stay (a policy
    that :func:`inject` pinned still gives way to the configured layers).
    """
    from sslcustomize._runtime._state import unpin  # noqa: PLC0415 - not on a first context

    refused = _opt_out_of_a_lock() if _patcher else False
    with _lock:
        if not refused:
            _patcher.undo()
            _stdlib.remove_stand_ins()
            _bootstrap.deactivate()
    unpin()


def _opt_out_of_a_lock() -> bool:
    """Warn about and record ``extract()`` under a system lock; tell whether it is refused."""
    from sslcustomize._runtime._state import current_runtime  # noqa: PLC0415 - not on a first context

    runtime = current_runtime()
    policy = runtime.policy
    if not policy.locked:
        return False
    from sslcustomize._connection._contexts import caller_module  # noqa: PLC0415 - only under a lock

    name = caller_module()
    refused = not policy.allow_code_opt_out.value
    origin = policy.allow_code_opt_out.origin or "allow_code_opt_out"
    if refused:
        message = (
            f"{name} called sslcustomize.extract(); the policy ({origin}) refuses code "
            "opt-outs, so the hooks stay"
        )
    else:
        message = (
            f"{name} called sslcustomize.extract(): its TLS connections leave the policy "
            f"that the system layer locks ({', '.join(sorted(policy.locked))})"
        )
    from sslcustomize._report._records import warn_safely  # noqa: PLC0415 - only under a lock
    from sslcustomize.exceptions import LegacyContextWarning  # noqa: PLC0415 - the same

    warn_safely(message, LegacyContextWarning, stacklevel=4)
    runtime.recorder.record_api_opt_out("extract", name=name, refused=refused)
    return refused


def is_injected() -> bool:
    """Tell whether the hooks are installed."""
    return bool(_patcher)


def replaced_attributes() -> list[tuple[object, str, object]]:
    """Return ``(object, attribute, original value)`` for each attribute now replaced."""
    return _patcher.replaced()
