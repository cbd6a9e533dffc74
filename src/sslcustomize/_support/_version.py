"""The package's version, in a leaf that the linter and the command line can import alone.

``sslcustomize.__version__`` re-exports it; importing the package's ``__init__`` for it would
reach every runtime layer through its ``TYPE_CHECKING`` imports (``.importlinter``'s
lint-apart contract forbids that path, indirect imports included).
"""

__all__ = ["__version__"]

__version__ = "0.4.0.dev0"
