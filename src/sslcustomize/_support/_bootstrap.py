"""What the start-up module and the package share: policy paths, the client registry, hooks.

A leaf: it imports only ``os`` and ``sys`` (what ``site`` has already imported), and nothing of
the package. ``_sslcustomize_startup`` loads this file by its path at every interpreter start,
without importing the package around it (that would cost every Python of the environment its
``__init__`` modules); the package imports it as ``sslcustomize._support._bootstrap``, the
same module object. The start-up module is thus the only caller at the top and this module the
only bottom both share: no import cycle runs through the start-up module (issue 34 #2).

Its rules are the start-up module's: standard library only (``os``, ``sys``), no
``from __future__`` import and no ``typing`` (each another module at every start), never
raising at import.
"""

import os
import sys

# Not ``from typing import TYPE_CHECKING``: typing (and re) would cost ~10 ms at every start
# of every interpreter of the environment. Annotations that name these types are strings.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from importlib.machinery import ModuleSpec
    from types import ModuleType

    Hook = Callable[[ModuleType], object]

__all__ = [
    "CLIENTS",
    "ENV_POLICY",
    "FACTORIES",
    "LEGACY",
    "SYSTEM_POLICY",
    "Client",
    "PostImportHooks",
    "deactivate",
    "hooks",
    "layer_paths",
    "policy_configured",
    "process_policy_paths",
    "user_config_dir",
    "watched_modules",
]

# --- sslcustomize system hook: begin ---------------------------------------------------------
# `enable --scope system` copies the lines up to the end mark into each interpreter's hook
# (sitecustomize.py), which then imports the start-up module only where a policy is configured: an
# interpreter without a policy does not even look for it. They need only os and sys.

ENV_POLICY = "SSLCUSTOMIZE_POLICY"
SYSTEM_POLICY = "/etc/sslcustomize/policy.toml"
_POLICY_NAME = ("sslcustomize", "policy.toml")


def user_config_dir() -> str:
    """Return the user configuration directory, as ``platformdirs.user_config_dir()`` does."""
    if sys.platform == "win32":  # pragma: no cover - Linux first, see SPEC
        return os.environ.get("LOCALAPPDATA") or os.path.expanduser("~\\AppData\\Local")
    if sys.platform == "darwin":  # pragma: no cover - Linux first, see SPEC
        return os.path.expanduser("~/Library/Application Support")
    configured = os.environ.get("XDG_CONFIG_HOME", "").strip()
    return configured or os.path.expanduser("~/.config")


def layer_paths() -> list[tuple[str, str]]:
    """Return ``(layer, path)`` for the system, venv and user layers, in merge order.

    Under ``python -I`` the user layer is left out, as Python leaves out the user's site
    directory: an isolated interpreter reads no per-user configuration.
    """
    paths = [("system", SYSTEM_POLICY)]
    if sys.prefix != sys.base_prefix:
        paths.append(("venv", os.path.join(sys.prefix, "etc", *_POLICY_NAME)))
    if not sys.flags.isolated:
        paths.append(("user", os.path.join(user_config_dir(), *_POLICY_NAME)))
    return paths


def process_policy_paths() -> list[str]:
    """Return the files named by ``SSLCUSTOMIZE_POLICY`` (``os.pathsep``-separated).

    Under ``python -E`` or ``-I`` the variable is ignored, as Python ignores its own
    ``PYTHON*`` variables then.
    """
    if sys.flags.ignore_environment or sys.flags.isolated:
        return []
    return [p for p in os.environ.get(ENV_POLICY, "").split(os.pathsep) if p]


def policy_configured() -> bool:
    """Tell whether any policy layer exists, with ``stat`` calls only.

    A dangling symlink, or a file in a directory this user may not search, is a policy that
    exists but cannot be read: that must mean fail closed, never "no policy" (issue 10 #7).
    """
    if process_policy_paths():
        return True
    for _, path in layer_paths():
        try:
            os.stat(path)
        except FileNotFoundError:
            if os.path.lexists(path):
                return True  # a dangling symlink
            continue
        except OSError:
            return True  # EACCES, ELOOP...: something is there that we may not read
        return True
    return False


# --- sslcustomize system hook: end -----------------------------------------------------------


class PostImportHooks:
    """A ``sys.meta_path`` finder that runs callbacks right after a module's body has run.

    It asks the finders behind it for the real spec and wraps only the loader's
    ``exec_module``; the module is otherwise imported exactly as without it. Callbacks run
    when the body has *finished*, whatever the order or timing of imports:

    * a module already imported: at once, if its body has finished;
    * a module whose body is still running (a context made while ``aiohttp.connector`` is
      still loading injects, and asks for a hook on that half-loaded module): when its
      body finishes, never before;
    * a module imported later, eagerly or lazily (PEP 810 lazy imports load the module
      through this same finder when the name is first used): when its body finishes;
    * a module imported again (removed from ``sys.modules``, or ``importlib.reload``):
      again, on the new body. Callbacks stay registered until :meth:`unregister`.
    """

    def __init__(self) -> None:
        """Create an empty registry; :meth:`register` adds hooks."""
        self._hooks: dict[str, list[Hook]] = {}
        self._busy: set[str] = set()
        # Half-loaded modules whose loader is not ours (their import began before we were
        # asked): their callbacks run at the first import after their body has finished.
        self._pending: dict[str, list[Hook]] = {}
        # The start-up module's callbacks that load the package: extract() forgets them.
        self._activation: list[Hook] = []

    def register(self, name: str, callback: "Hook") -> None:
        """Call ``callback(module)`` each time ``name``'s body has run (now if it has)."""
        self._hooks.setdefault(name, []).append(callback)
        if not _installed(self):
            sys.meta_path.insert(0, self)
        module = sys.modules.get(name)
        if module is None:
            return
        if not _initializing(module):
            _call(callback, module)
        elif not isinstance(getattr(module.__spec__, "loader", None), _HookedLoader):
            self._pending.setdefault(name, []).append(callback)

    def register_activation(self, name: str, callback: "Hook") -> None:
        """Register ``callback`` as :meth:`register` does, as one that loads the package."""
        self._activation.append(callback)
        self.register(name, callback)

    def unregister_activation(self) -> None:
        """Forget every callback given to :meth:`register_activation`."""
        while self._activation:
            self.unregister(self._activation.pop())

    def unregister(self, callback: "Hook") -> None:
        """Forget ``callback`` for every module it waits for."""
        for registry in (self._hooks, self._pending):
            for name in list(registry):
                registry[name] = [cb for cb in registry[name] if cb is not callback]
                if not registry[name]:
                    del registry[name]
        if not self._hooks and _installed(self):
            sys.meta_path.remove(self)

    def run(self, name: str, module: "ModuleType") -> None:
        """Run the callbacks of ``name`` on ``module``, whose body has just finished."""
        self._pending.pop(name, None)
        for callback in list(self._hooks.get(name, ())):
            _call(callback, module)
        self.run_pending()

    def run_pending(self) -> None:
        """Run the callbacks waiting for half-loaded modules whose bodies have finished."""
        for name in list(self._pending):
            module = sys.modules.get(name)
            if module is None or not _initializing(module):
                for callback in self._pending.pop(name, ()):
                    if module is not None:
                        _call(callback, module)

    def find_spec(
        self,
        fullname: str,
        path: "Sequence[str] | None" = None,
        target: "ModuleType | None" = None,
    ) -> "ModuleSpec | None":
        """Find ``fullname`` with the other finders and wrap its loader if it is watched."""
        if self._pending:
            self.run_pending()
        if fullname not in self._hooks or fullname in self._busy:
            return None
        self._busy.add(fullname)
        try:
            spec = _find_with_others(self, fullname, path, target)
        finally:
            self._busy.discard(fullname)
        if spec is None or not hasattr(spec.loader, "exec_module"):
            return spec
        spec.loader = _HookedLoader(spec.loader, self, fullname)  # type: ignore[assignment]
        return spec


def _initializing(module: "ModuleType") -> bool:
    """Tell whether ``module``'s body is still running (importlib's own flag)."""
    return bool(getattr(getattr(module, "__spec__", None), "_initializing", False))


class _HookedLoader:
    """Delegate to the real loader, then run the callbacks on the module it has filled."""

    def __init__(self, loader: object, hooks: PostImportHooks, name: str) -> None:
        self._loader = loader
        self._hooks = hooks
        self._name = name

    def create_module(self, spec: "ModuleSpec") -> "ModuleType | None":
        return self._loader.create_module(spec)  # type: ignore[attr-defined, no-any-return]

    def exec_module(self, module: "ModuleType") -> None:
        self._loader.exec_module(module)  # type: ignore[attr-defined]
        # Put the real loader back so that inspect and linecache see it (reload() finds the
        # module again, through us).
        module.__loader__ = self._loader  # type: ignore[assignment]
        if module.__spec__ is not None:
            module.__spec__.loader = self._loader  # type: ignore[assignment]
            # importlib clears this only after exec_module returns; the callbacks need the
            # module seen as finished (a callback may register another for it).
            module.__spec__._initializing = False  # type: ignore[attr-defined]  # noqa: SLF001
        self._hooks.run(self._name, module)

    def __getattr__(self, name: str) -> object:
        return getattr(self._loader, name)


def _installed(finder: object) -> bool:
    return any(f is finder for f in sys.meta_path)


def _find_with_others(
    me: object, fullname: str, path: "Sequence[str] | None", target: "ModuleType | None"
) -> "ModuleSpec | None":
    for finder in list(sys.meta_path):
        find_spec = getattr(finder, "find_spec", None)
        if finder is me or find_spec is None:
            continue
        spec = find_spec(fullname, path, target)
        if spec is not None:
            return spec  # type: ignore[no-any-return]
    return None


def _call(callback: "Hook", module: "ModuleType") -> None:
    try:
        callback(module)
    except Exception as exc:  # noqa: BLE001 - a hook must never break the import it follows
        sys.stderr.write(f"sslcustomize: a hook failed after importing a module: {exc!r}\n")


hooks = PostImportHooks()


# The ssl factories that sslcustomize replaces (see sslcustomize._inject._stdlib).
FACTORIES = (
    "create_default_context",
    "_create_default_https_context",
    "_create_stdlib_context",
    "_create_unverified_context",
)


class Client:
    """A TLS client that sslcustomize covers: one entry of :data:`CLIENTS`.

    Attributes:
        name: The name docs/clients.md and ``doctor`` show: the module of a standard-library
            client, the distribution (and top-level package) of a third-party one.
        stdlib: Whether it comes with Python.
        hook: The module of ``sslcustomize._inject`` whose hooks cover it.
        factory: The ``ssl`` factory it calls for a context when given none, if it calls one
            (``doctor`` compares its contexts with and without the policy).
        triggers: The modules whose import runs ``hook``'s ``patch(patcher, trigger, module)``,
            in the order the hooks are installed.
        activates: The modules whose import loads sslcustomize (besides ``triggers``), since
            they bind or build contexts at import.
    """

    __slots__ = ("activates", "factory", "hook", "name", "stdlib", "triggers")

    def __init__(
        self,
        name: str,
        *,
        stdlib: bool,
        hook: str,
        factory: "str | None" = None,
        triggers: "tuple[str, ...]" = (),
        activates: "tuple[str, ...]" = (),
    ) -> None:
        """Declare one client (keywords only, so that each entry reads as a record)."""
        self.name = name
        self.stdlib = stdlib
        self.hook = hook
        self.factory = factory
        self.triggers = triggers
        self.activates = activates

    def __repr__(self) -> str:
        """Show the entry by name."""
        return f"Client({self.name!r})"


_HTTPS = "_create_default_https_context"
#: Every client sslcustomize covers: the one registry that this hook (the modules it watches),
#: ``sslcustomize._inject`` (the hooks it installs), ``doctor`` (the clients it lists) and
#: tests/loopback/test_clients.py (docs/clients.md lists exactly these) read.
CLIENTS = (
    Client("http.client", stdlib=True, hook="_stdlib", factory=_HTTPS),
    Client("urllib.request", stdlib=True, hook="_stdlib", factory=_HTTPS),
    Client("xmlrpc.client", stdlib=True, hook="_stdlib", factory=_HTTPS),
    Client("smtplib", stdlib=True, hook="_stdlib", factory="_create_stdlib_context"),
    Client("imaplib", stdlib=True, hook="_stdlib", factory="_create_stdlib_context"),
    Client("poplib", stdlib=True, hook="_stdlib", factory="_create_stdlib_context"),
    Client("ftplib", stdlib=True, hook="_stdlib", factory="_create_stdlib_context"),
    Client("nntplib", stdlib=True, hook="_stdlib", factory="_create_stdlib_context"),
    Client("asyncio", stdlib=True, hook="_stdlib", factory="create_default_context"),
    Client(
        "urllib3",
        stdlib=False,
        hook="_urllib3",
        triggers=("urllib3.connection", "pip._vendor.urllib3.connection"),
        activates=("urllib3", "pip._vendor.urllib3"),
    ),
    Client(
        "requests",
        stdlib=False,
        hook="_requests",
        triggers=("requests.adapters", "pip._vendor.requests.adapters"),
        activates=("requests",),
    ),
    Client(
        "httpx",
        stdlib=False,
        hook="_httpx",
        triggers=("httpx._config", "httpx._transports.default", "httpx"),
    ),
    Client(
        "aiohttp",
        stdlib=False,
        hook="_aiohttp",
        triggers=("aiohttp.connector",),
        activates=("aiohttp",),
    ),
    # It calls ssl.create_default_context() per connection: the stdlib hooks cover it.
    Client(
        "websockets",
        stdlib=False,
        hook="_stdlib",
        factory="create_default_context",
        activates=("websockets",),
    ),
    Client(
        "pip",
        stdlib=False,
        hook="_pip",
        triggers=("pip._internal.cli.index_command", "pip._internal.cli.req_command"),
    ),
    Client(
        "truststore",
        stdlib=False,
        hook="_truststore",
        triggers=("truststore._api", "pip._vendor.truststore._api"),
        activates=("truststore", "pip._vendor.truststore"),
    ),
)


def watched_modules() -> "list[str]":
    """Return the modules whose import loads sslcustomize: each client's, once each.

    Watched from ssl's import on, so that a hook asked for while one of them is still loading
    runs when its body has finished.
    """
    names = [name for client in CLIENTS for name in (*client.activates, *client.triggers)]
    return list(dict.fromkeys(names))


# ssl.wrap_socket() (3.10 and 3.11; removed in 3.12) makes a plain SSLContext itself, with no
# factory a stand-in could catch: it gets a stand-in of its own where it exists.
LEGACY = ("wrap_socket",)


def deactivate() -> None:
    """Stop loading the package on library imports (``extract()`` calls it)."""
    hooks.unregister_activation()
