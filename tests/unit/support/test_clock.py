"""The clock a runtime reads: what it is given, or the system's."""

from __future__ import annotations

import datetime
import time

from sslcustomize._support._clock import SYSTEM_CLOCK, Clock


def test_a_given_clock_is_what_is_read() -> None:
    """Intervals and dates come from the functions given, not from the system."""
    clock = Clock(monotonic=lambda: 5.0, time=lambda: 86400.0 * 365)
    assert clock.monotonic() == 5.0
    assert clock.today() == datetime.date.fromtimestamp(86400.0 * 365)
    assert clock.today() != datetime.date.today()


def test_the_system_clock_reads_the_system() -> None:
    """Twin: the default clock's today and seconds are the system's."""
    before = time.time()
    assert before <= SYSTEM_CLOCK.time() <= time.time()
    assert SYSTEM_CLOCK.today() in {
        datetime.date.fromtimestamp(before),
        datetime.date.today(),
    }
