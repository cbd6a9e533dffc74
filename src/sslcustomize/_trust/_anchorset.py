"""The anchors a context loads: a value both :mod:`._anchors` and :mod:`._bundles` make.

Its own module so that neither of them imports the other for it (the ``acyclic_siblings``
contract of ``.importlinter``): :mod:`._anchors` loads :mod:`._bundles` for a bundle, and
:mod:`._bundles` returns these.
"""

from __future__ import annotations

import ssl

from sslcustomize._support._frozen import dataclass

__all__ = ["Anchors"]


@dataclass(frozen=True, slots=True, kw_only=True)
class Anchors:
    """What to load into a context: bundles (loaded eagerly) and hashed directories."""

    files: tuple[str, ...] = ()
    directories: tuple[str, ...] = ()

    def load_into(self, context: ssl.SSLContext) -> None:
        """Load these anchors into ``context``."""
        for directory in self.directories:
            context.load_verify_locations(capath=directory)
        for file in self.files:
            context.load_verify_locations(cafile=file)

    def __add__(self, other: Anchors) -> Anchors:
        """Return the union, keeping order and dropping repeats."""
        return Anchors(
            files=tuple(dict.fromkeys(self.files + other.files)),
            directories=tuple(dict.fromkeys(self.directories + other.directories)),
        )
