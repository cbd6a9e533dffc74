"""Exceptions hidden by another: wholly (same host and port) or on one port."""

from __future__ import annotations

import datetime as dt

from sslcustomize._diagnosis._shadows import find_shadows
from sslcustomize._policy._hosts import parse_host_pattern
from sslcustomize._policy._model import HostException, Origin

TODAY = dt.date(2026, 12, 7)


def _exception(host: str, line: int, expires: dt.date | None = None) -> HostException:
    return HostException(
        host=parse_host_pattern(host), reason="r",
        expires_day=expires.toordinal() if expires else None,
        origin=Origin(layer="user", path="/p.toml", line=line),
    )  # fmt: skip


def test_a_later_exception_for_the_same_host_hides_the_earlier() -> None:
    """Same pattern, same port: the one added last wins everywhere, and the message says where."""
    first, second = _exception("nas.example", 3), _exception("nas.example", 9)
    (shadow,) = find_shadows([first, second], TODAY)
    assert (shadow.winner, shadow.loser, shadow.port) == (second, first, None)
    assert str(shadow) == (
        "the exception for nas.example (/p.toml:9) hides the one for nas.example (/p.toml:3) "
        "everywhere"
    )


def test_a_port_specific_exception_hides_a_portless_one_on_its_port() -> None:
    """Whichever came first, nas.example:8443 hides nas.example on port 8443 only."""
    portless, on_port = _exception("nas.example", 3), _exception("nas.example:8443", 5)
    for order in ([portless, on_port], [on_port, portless]):
        (shadow,) = find_shadows(order, TODAY)
        assert (shadow.winner, shadow.loser, shadow.port) == (on_port, portless, 8443)


def test_different_hosts_or_ports_hide_nothing() -> None:
    """Twin: other names, or two different ports, do not shadow each other."""
    exceptions = [
        _exception("nas.example", 1),
        _exception("san.example", 2),
        _exception("nas.example:8443", 3),
        _exception("nas.example:9443", 4),
    ]
    shadows = find_shadows(exceptions, TODAY)
    assert {(s.winner.origin.line, s.loser.origin.line) for s in shadows} == {(3, 1), (4, 1)}


def test_an_expired_exception_hides_nothing() -> None:
    """The lookup skips an expired exception, so it shadows no earlier one."""
    first = _exception("nas.example", 3)
    expired = _exception("nas.example", 9, expires=TODAY)
    assert find_shadows([first, expired], TODAY) == []
    assert len(find_shadows([first, expired], TODAY - dt.timedelta(days=1))) == 1
