"""The version of the ``sslcustomize-lint`` distribution, read by hatch when it is built."""

from __future__ import annotations

__all__ = ["__version__"]

__version__ = "0.4.0.dev0"
