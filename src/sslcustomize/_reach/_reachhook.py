"""Load sslcustomize from its private runtime directory in an interpreter that lacks it.

``sslcustomize enable --scope system`` copies the package and the startup module into a
private runtime directory, and writes a ``sitecustomize.py`` into each interpreter's
standard-library directory made of this file's source and a call of :func:`start`. Every
virtual environment made from that interpreter has the same standard-library directory on
``sys.path``, so it runs the hook too.

The rules are the startup hook's (``_sslcustomize_startup``): only what ``site`` already
imported (``sys`` and the frozen import machinery), never raise, cost nothing much when no
policy is configured. And one more: never change what the environment imports.

* ``sys.path`` is left alone. A finder is appended to the *end* of ``sys.meta_path``: it is
  asked only for names no other finder found, so an environment's own ``sslcustomize`` (or
  ``tomli``) always wins, and names the environment could import before are unchanged.
* If the environment's own ``sslcustomize.pth`` already ran (``_sslcustomize_startup`` is
  imported), it owns the process and this hook does nothing: exactly one copy runs.
* The ``sitecustomize`` this hook displaced (Debian ships one) or, when there was none, the
  next ``sitecustomize`` on ``sys.path`` (a venv's own) runs after it, in its namespace.
"""

import sys

# Not ``typing``: see the startup module (its cost at every start of every interpreter).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from importlib.machinery import ModuleSpec
    from types import ModuleType

#: Names the private runtime may provide when the environment has none of its own.
PROVIDED = ("_sslcustomize_startup", "sslcustomize", "tomli")


class PrivateRuntime:
    """A ``sys.meta_path`` finder, last in line, that finds sslcustomize in its own directory."""

    def __init__(self, directory: str) -> None:
        """Serve the packages and modules of ``directory``."""
        self.directory = directory

    def find_spec(
        self,
        fullname: str,
        path: "Sequence[str] | None" = None,
        target: "ModuleType | None" = None,
    ) -> "ModuleSpec | None":
        """Find ``fullname`` in the runtime directory if it is one of :data:`PROVIDED`."""
        top = fullname.partition(".")[0]
        if top not in PROVIDED:
            return None
        if top == "tomli" and sys.version_info >= (3, 11):
            return None
        if "." in fullname:
            return None  # submodules: the package's own __path__ finds them
        external = sys.modules["_frozen_importlib_external"]
        return external.PathFinder.find_spec(fullname, [self.directory])  # type: ignore[no-any-return]


def installed(finder_type_name: str = "PrivateRuntime") -> bool:
    """Tell whether a private-runtime finder is already on ``sys.meta_path``."""
    return any(type(f).__name__ == finder_type_name for f in sys.meta_path)


def start(
    runtime: str,
    namespace: "dict[str, object]",
    displaced: str,
    stdlib: str,
    configured: "Callable[[], bool] | None" = None,
) -> None:
    """Arrange for the policy hooks, then run the ``sitecustomize`` this one stands in for.

    Args:
        runtime: The private runtime directory (holds ``sslcustomize`` and the startup module).
        namespace: The globals of the ``sitecustomize`` module being executed.
        displaced: The ``sitecustomize`` file that was here before (``""`` if none).
        stdlib: The standard-library directory the hook was written into.
        configured: Tells whether a policy is configured (the startup module's own check,
            copied into the hook); ``False`` means the startup module is not imported at all.
    """
    try:
        wanted = configured is None or configured()
        if wanted and "_sslcustomize_startup" not in sys.modules and not installed():
            sys.meta_path.append(PrivateRuntime(runtime))
            # Imports the environment's own startup module if it has one (PathFinder comes
            # first), else the private one; its main() checks for a policy with stat calls.
            __import__("_sslcustomize_startup")
    except Exception as exc:  # noqa: BLE001 - startup must never raise
        sys.stderr.write(f"sslcustomize: system hook failed, policy not applied: {exc!r}\n")
    try:
        chain(namespace, displaced, stdlib)
    except Exception as exc:  # noqa: BLE001 - as site itself does for sitecustomize
        sys.stderr.write(f"Error in sitecustomize (run by sslcustomize); {exc!r}\n")


def chain(namespace: "dict[str, object]", displaced: str, stdlib: str) -> None:
    """Run the ``sitecustomize`` that would have run without the hook, in ``namespace``."""
    if displaced:
        with open(displaced, "rb") as file:
            code = compile(file.read(), displaced, "exec")
        exec(code, namespace)  # noqa: S102 - the administrator's own sitecustomize, as site runs it
        return
    external = sys.modules["_frozen_importlib_external"]
    later = [entry for entry in sys.path[_after(stdlib) :] if entry]
    spec = external.PathFinder.find_spec("sitecustomize", later)
    if spec is None or spec.loader is None or spec.origin == namespace.get("__file__"):
        return
    code = spec.loader.get_code("sitecustomize")
    if code is not None:
        namespace["__file__"] = spec.origin
        exec(code, namespace)  # noqa: S102 - the environment's own sitecustomize, as site runs it


def _after(stdlib: str) -> int:
    """Return the index just after ``stdlib`` on ``sys.path`` (0 if it is not there)."""
    for index, entry in enumerate(sys.path):
        if entry == stdlib:
            return index + 1
    return 0
