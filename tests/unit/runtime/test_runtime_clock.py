"""A runtime reads the time from the clock it is given: exceptions expire on its day."""

from __future__ import annotations

import datetime

from _fixtures import WritePolicy
from sslcustomize._runtime._runtime import Runtime
from sslcustomize._support._clock import Clock
from sslcustomize._trust._checked_policy import load_policy

EXCEPTION = """\
version = 1
[[exception]]
host = "nas.example.internal"
pin = ["sha256/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="]
reason = "a pinned appliance"
expires = 2030-06-01
"""


def _on(day: datetime.date) -> Clock:
    """Return a clock whose wall time is noon of ``day`` (local time)."""
    noon = datetime.datetime.combine(day, datetime.time(12)).timestamp()
    return Clock(time=lambda: noon)


def test_an_exception_past_its_date_on_the_runtimes_clock_no_longer_applies(
    write_policy: WritePolicy,
) -> None:
    """The day after expiry by the runtime's clock, the host gets the default rule."""
    policy = load_policy([("process", str(write_policy(EXCEPTION)), True)])
    runtime = Runtime(policy, clock=_on(datetime.date(2030, 6, 2)))
    decision = runtime.decision("smtplib", "nas.example.internal", None)
    assert decision.exception is None
    assert decision.expired is not None


def test_an_exception_before_its_date_on_the_runtimes_clock_applies(
    write_policy: WritePolicy,
) -> None:
    """Twin: the day before expiry by the same kind of clock, the exception is the rule."""
    policy = load_policy([("process", str(write_policy(EXCEPTION)), True)])
    runtime = Runtime(policy, clock=_on(datetime.date(2030, 5, 31)))
    decision = runtime.decision("smtplib", "nas.example.internal", None)
    assert decision.exception is not None
    assert runtime.clock.today() == datetime.date(2030, 5, 31)
