"""The package's version: one value, the one its distribution is built with."""

from __future__ import annotations

import sys
from pathlib import Path

import sslcustomize
from sslcustomize._support._version import __version__

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - 3.10
    import tomli as tomllib

PYPROJECT = Path(__file__).parents[3] / "pyproject.toml"


def test_the_leaf_version_is_the_distributions_and_the_packages() -> None:
    """``pyproject.toml``'s version, re-exported lazily as ``sslcustomize.__version__``."""
    project = tomllib.loads(PYPROJECT.read_text(encoding="utf-8"))["project"]
    assert __version__ == project["version"]
    assert sslcustomize.__version__ == __version__
