"""Start sslcustomize at interpreter startup, when and only when a policy is configured.

``sslcustomize.pth`` imports this module from ``site`` for every interpreter of the
environment, so it obeys three rules:

* it imports only what ``site`` has already imported (``os``, ``sys``);
* it never raises: an error here would print a traceback at every Python start;
* with no policy configured it costs a few ``stat`` calls and nothing else.

With a policy configured it does not import :mod:`ssl` (that costs ~20 ms): it waits on
``sys.meta_path`` for the program's own ``import ssl`` and installs the hooks right after it.
The policy itself is read later still, when the first context is made.
"""

import os
import sys

# Not ``from typing import TYPE_CHECKING``: typing (and re) would cost ~10 ms at every start
# of every interpreter of the environment. Type checkers know this spelling too; annotations
# that name these types are strings, since this module has no ``from __future__`` import
# either (another module to load at each start).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from types import ModuleType

    Hook = Callable[[ModuleType], object]

__all__ = ["main"]

# The leaf's functions that tests and older callers still reach through this module (by
# attribute, see __getattr__); its constants (``SYSTEM_POLICY``, ``CLIENTS``...) are read, and
# patched, in the leaf alone: a copy here would be a second fact that patching misses.
_FROM_LEAF = (
    "PostImportHooks",
    "deactivate",
    "hooks",
    "layer_paths",
    "policy_configured",
    "user_config_dir",
)

LEAF = "sslcustomize._support._bootstrap"


def _load_leaf() -> "ModuleType":
    """Load the leaf the package shares with this module, without importing the package.

    It is read from the package installed beside this module (as :func:`_import_beside` does,
    and for the same reason: never a ``sslcustomize`` planted on ``sys.path``), under its own
    name, so that the package's ``import`` of it later finds this same module object. Where
    the package is not beside this module (an editable install), the normal import finds it.
    """
    loaded = sys.modules.get(LEAF)
    if loaded is not None:
        return loaded
    here = os.path.dirname(os.path.abspath(__file__))
    path = os.path.join(here, *LEAF.split(".")) + ".py"
    external = sys.modules["_frozen_importlib_external"]
    spec = external.spec_from_file_location(LEAF, path)
    if spec is None or not os.path.isfile(path):
        __import__(LEAF)
        return sys.modules[LEAF]
    module = sys.modules["_frozen_importlib"].module_from_spec(spec)
    sys.modules[LEAF] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        sys.modules.pop(LEAF, None)
        raise
    return module  # type: ignore[no-any-return]


_LEAF_ERROR: "Exception | None" = None
if TYPE_CHECKING:
    from sslcustomize._support import _bootstrap as _leaf
else:
    try:
        _leaf = _load_leaf()
    except Exception as exc:  # noqa: BLE001 - startup must never raise
        _leaf = None  # a broken install: main() says so and hooks nothing
        _LEAF_ERROR = exc


def __getattr__(name: str) -> object:
    """Give the leaf's functions named in ``_FROM_LEAF`` (one definition, read in one place)."""
    if name in _FROM_LEAF and _leaf is not None:
        return getattr(_leaf, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _activate(ssl: "ModuleType") -> None:
    """Put cheap stand-ins on ssl's factories; the package is imported on their first call.

    Importing sslcustomize costs tens of milliseconds; a program that imports ssl and never
    makes a context must not pay them. The first call of a stand-in (or the import of a
    client library) imports sslcustomize, which replaces the stand-ins with the real hooks and
    remembers the original factories for ``extract()``.
    """
    for name in _leaf.FACTORIES + tuple(name for name in _leaf.LEGACY if hasattr(ssl, name)):
        original = getattr(ssl, name)
        setattr(ssl, name, _stand_in(ssl, name, original))
    for library in _leaf.watched_modules():
        _leaf.hooks.register_activation(library, _finish)


def _stand_in(
    ssl: "ModuleType", name: str, original: "Callable[..., object]"
) -> "Callable[..., object]":
    def stand_in(*args: object, **kwargs: object) -> object:
        _finish(ssl)
        factory = getattr(ssl, name)
        if factory is stand_in:  # activation failed: Python's own factory, never weaker
            if name == "_create_stdlib_context":
                return _verifying_stdlib_context(ssl, original, *args, **kwargs)
            factory = original
        return factory(*args, **kwargs)

    stand_in.sslcustomize_original = original  # type: ignore[attr-defined]
    stand_in.__name__ = stand_in.__qualname__ = name
    return stand_in


def _verifying_stdlib_context(
    ssl: "ModuleType", original: "Callable[..., object]", *args: object, **kwargs: object
) -> object:
    """Make what smtplib & co. get verify, as ``ssl.create_default_context()`` would.

    Used only when the package cannot be loaded (a broken install): the policy is then
    unknown, but a client that asked for no particular verification must still get Python's
    own default verification, not the unverified context of gh-91826.
    """
    purpose = kwargs.get("purpose", ssl.Purpose.SERVER_AUTH)
    protocol = args[0] if args else kwargs.get("protocol")
    server = protocol == ssl.PROTOCOL_TLS_SERVER
    # check_hostname=True without cert_reqs: Python raises ValueError (gh-114905); so does this.
    refused = kwargs.get("check_hostname") and "cert_reqs" not in kwargs
    client = purpose == ssl.Purpose.SERVER_AUTH and not server
    if client and not refused and kwargs.get("cert_reqs") is None:
        kwargs["cert_reqs"] = ssl.CERT_REQUIRED
        kwargs.setdefault("check_hostname", True)
    return original(*args, **kwargs)


_failed = False


def _finish(_module: "ModuleType") -> None:
    global _failed  # noqa: PLW0603 - said once, not tried again
    if _failed:
        return
    try:
        _import_beside("sslcustomize")
        from sslcustomize import _inject  # noqa: PLC0415 - the point: only when needed

        _inject.inject_from_startup()
    except Exception as exc:  # noqa: BLE001 - never break the program's own call
        _failed = True
        sys.stderr.write(
            f"sslcustomize: cannot apply the policy: {exc!r}; "
            "verifying with Python's own defaults instead\n"
        )


def _import_beside(name: str) -> None:
    """Import ``name`` from this module's own directory, not from wherever ``sys.path`` says.

    The package is imported at the first context, when ``sys.path[0]`` may be the current
    directory (``-c``, ``-m``, the REPL): a ``sslcustomize`` planted there by another user must
    not run in place of the one installed beside this module (issue 22 #1). Where it is not
    beside it (an editable install), the normal import finds it.
    """
    if name in sys.modules:
        return
    external = sys.modules["_frozen_importlib_external"]
    spec = external.PathFinder.find_spec(name, [os.path.dirname(os.path.abspath(__file__))])
    if spec is None or spec.loader is None:
        return
    module = sys.modules["_frozen_importlib"].module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        sys.modules.pop(name, None)
        raise


def _fail_closed() -> None:
    """A broken install (no leaf): make smtplib & co. verify, as Python's default context does.

    Without the leaf nothing says whether a policy is configured, and the program's own
    ``import ssl`` cannot be awaited: an error means strict, so ssl is imported now (its
    cost is paid at each start until the install is repaired, as the message asks).
    """
    try:
        import ssl  # noqa: PLC0415 - only in a broken install

        original = ssl._create_stdlib_context  # type: ignore[attr-defined]  # noqa: SLF001

        def _create_stdlib_context(*args: object, **kwargs: object) -> object:
            return _verifying_stdlib_context(ssl, original, *args, **kwargs)

        ssl._create_stdlib_context = _create_stdlib_context  # type: ignore[attr-defined]  # noqa: SLF001
    except Exception as exc:  # noqa: BLE001 - startup must never raise
        sys.stderr.write(f"sslcustomize: cannot make smtplib & co. verify: {exc!r}\n")


def main() -> None:
    """Arrange for the hooks to be installed once the program imports :mod:`ssl`."""
    if _leaf is None or _LEAF_ERROR is not None:
        sys.stderr.write(
            f"sslcustomize: startup hook failed, policy not applied: {_LEAF_ERROR!r}; "
            "verifying with Python's own defaults instead\n"
        )
        _fail_closed()
        return
    try:
        if _leaf.policy_configured():
            _leaf.hooks.register_activation("ssl", _activate)
    except Exception as exc:  # noqa: BLE001 - startup must never raise
        sys.stderr.write(f"sslcustomize: startup hook failed, policy not applied: {exc!r}\n")


main()
