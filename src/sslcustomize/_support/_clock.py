"""The clock a runtime reads: one object, passed down from ``Runtime(policy, clock=...)``.

Every time the runtime reads (when its trust sources are due for a check, the minute its
verdict memos are keyed by, the day exceptions expire on) comes from its clock, so a test
moves time by passing a clock rather than by patching a module.
"""

from __future__ import annotations

import time

TYPE_CHECKING = False
if TYPE_CHECKING:
    import datetime
    from collections.abc import Callable

__all__ = ["SYSTEM_CLOCK", "Clock"]


class Clock:
    """Monotonic seconds (for intervals) and wall-clock seconds (for dates and timestamps)."""

    __slots__ = ("monotonic", "time")

    def __init__(
        self,
        *,
        monotonic: Callable[[], float] = time.monotonic,
        time: Callable[[], float] = time.time,
    ) -> None:
        """Read intervals from ``monotonic`` and dates from ``time`` (the system's: defaults)."""
        self.monotonic = monotonic
        self.time = time

    def today(self) -> datetime.date:
        """Return the local date now (``datetime.date.today()`` read from this clock)."""
        import datetime  # noqa: PLC0415 - the first connection to an excepted host's, not the hook's

        return datetime.date.fromtimestamp(self.time())


#: The system's clock: what a runtime reads unless it is given another.
SYSTEM_CLOCK = Clock()
