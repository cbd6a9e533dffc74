"""Exceptions that another exception hides, for ``trust``, ``explain`` and ``doctor`` to warn.

For the same host pattern the lookup prefers a port-specific exception, then the one added
last (see :class:`.._policy._hosts.HostIndex`). So an exception is dead when a later one has
the same pattern and port, and partly hidden (on one port) when another names the same host with a
port and it has none.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass

from sslcustomize._policy._model import HostException

__all__ = ["Shadow", "find_shadows"]


@dataclass(frozen=True, slots=True, kw_only=True)
class Shadow:
    """One exception hiding another, wholly or on one port."""

    winner: HostException
    loser: HostException
    port: int | None  # the port on which the loser is hidden; None: on every port

    def __str__(self) -> str:
        """Say which entry hides which, with their file and line."""
        where = f"on port {self.port}" if self.port is not None else "everywhere"
        return (
            f"the exception for {self.winner.host} ({self.winner.origin}) hides the one for "
            f"{self.loser.host} ({self.loser.origin}) {where}"
        )


def find_shadows(exceptions: Sequence[HostException], today: dt.date | None = None) -> list[Shadow]:
    """Return every pair where one exception hides another, in the policy's merge order.

    An expired exception hides nothing (the lookup skips it).
    """
    today = today or dt.date.today()
    # Only exceptions for the same name or address can hide each other: compare within those.
    same_host: dict[tuple[str, str], list[tuple[int, HostException]]] = {}
    for index, exception in enumerate(exceptions):
        key = (exception.host.kind, exception.host.value)
        same_host.setdefault(key, []).append((index, exception))
    shadows = []
    for index, loser in enumerate(exceptions):
        group = same_host[(loser.host.kind, loser.host.value)]
        for other, winner in group:
            if other <= index or winner.expired(today):
                continue
            if winner.host.port == loser.host.port:
                shadows.append(Shadow(winner=winner, loser=loser, port=loser.host.port))
            elif loser.host.port is None:
                shadows.append(Shadow(winner=winner, loser=loser, port=winner.host.port))
        for other, earlier in group:
            # A port-specific entry wins over a port-less one even when it came first.
            if other >= index or earlier.expired(today):
                continue
            if earlier.host.port is not None and loser.host.port is None:
                shadows.append(Shadow(winner=earlier, loser=loser, port=earlier.host.port))
    return shadows
