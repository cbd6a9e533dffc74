"""A host name matched after the handshake: ``check_hostname = False`` moved the check."""

from __future__ import annotations

import pytest
from _lint_source import findings_of

_LATE_NAME_CHECK = """\
import ssl

class Client:
    def context(self):
        ctx = ssl.create_default_context()
        ctx.check_hostname = False
        return ctx

    def connect(self, sock, host):
        conn = self.context().wrap_socket(sock, server_hostname=host)
        {after}
        return conn
"""

LATE_NAME_CHECKS = [
    # the class matches the host name after the handshake, in another method: silent
    pytest.param(
        _LATE_NAME_CHECK.format(after="ssl.match_hostname(conn.getpeercert(), host)"),
        set(),
        id="class",
    ),
    # a module function that calls the file's own matcher: silent
    pytest.param(
        "import ssl\ndef _check(conn, host):\n    ssl.match_hostname(conn.getpeercert(), host)\n"
        "def connect(sock, host):\n    ctx = ssl.create_default_context()\n"
        "    ctx.check_hostname = False\n"
        "    conn = ctx.wrap_socket(sock, server_hostname=host)\n    _check(conn, host)\n",
        set(),
        id="helper",
    ),
    # twins: no match anywhere in the class; a matcher that this function never calls
    pytest.param(_LATE_NAME_CHECK.format(after="pass"), {("SSC202", 6)}, id="class-unchecked"),
    pytest.param(
        "import ssl\ndef _check(conn, host):\n    ssl.match_hostname(conn.getpeercert(), host)\n"
        "def connect(sock, host):\n    ctx = ssl.create_default_context()\n"
        "    ctx.check_hostname = False\n"
        "    return ctx.wrap_socket(sock, server_hostname=host)\n",
        {("SSC202", 6)},
        id="helper-unused",
    ),
]


@pytest.mark.parametrize(("source", "expected"), LATE_NAME_CHECKS)
def test_late_name_check_is_not_an_opt_out(source: str, expected: set[tuple[str, int]]) -> None:
    """``check_hostname = False`` where the class or function matches the name itself later."""
    assert findings_of(source, "late.py") == expected


_PIN_IN_CLASS = """\
import hashlib
import ssl

class PinnedClient:
    def __init__(self, pin):
        self.pin = pin
        self.ctx = ssl.create_default_context()
        self.ctx.check_hostname = False
        self.ctx.verify_mode = ssl.CERT_NONE

    def connect(self, sock, host):
        conn = self.ctx.wrap_socket(sock, server_hostname=host)
        digest = hashlib.sha256(conn.getpeercert(binary_form=True)).hexdigest()
        {check}
        return conn
"""

PINS_IN_CLASSES = [
    # the pin compared in another method of the class: silent
    pytest.param(
        _PIN_IN_CLASS.format(check="if digest != self.pin:\n            raise ssl.SSLError(host)"),
        set(),
        id="class",
    ),
    # twin: the digest only logged
    pytest.param(
        _PIN_IN_CLASS.format(check="print(digest)"),
        {("SSC202", 8), ("SSC201", 9)},
        id="class-unchecked",
    ),
]


@pytest.mark.parametrize(("source", "expected"), PINS_IN_CLASSES)
def test_pin_checked_in_another_method(source: str, expected: set[tuple[str, int]]) -> None:
    """Verification off in a class that compares the peer's digest after the handshake."""
    assert findings_of(source, "pinned.py") == expected


_SWALLOWED = """\
    try:
        ssl.match_hostname(conn.getpeercert(), host)
    except {caught}:
        {then}
"""


@pytest.mark.parametrize(
    ("caught", "then", "expected"),
    [
        # Python 3.12 removed ssl.match_hostname: a fallback that returns checks nothing
        ("AttributeError", "return None", {("SSC202", 4)}),
        ("(ValueError, ssl.CertificateError)", "pass", {("SSC202", 4)}),
        # twin: a handler that raises still fails the connection
        ("ssl.CertificateError", "raise", set()),
    ],
)
def test_late_name_check_that_swallows_its_failure_is_no_check(
    caught: str, then: str, expected: set[tuple[str, int]]
) -> None:
    """A late match whose failure a handler swallows does not excuse ``check_hostname``."""
    source = (
        "import ssl\ndef connect(sock, host):\n    ctx = ssl.create_default_context()\n"
        "    ctx.check_hostname = False\n    conn = ctx.wrap_socket(sock, server_hostname=host)\n"
        + _SWALLOWED.format(caught=caught, then=then)
        + "    return conn\n"
    )
    assert findings_of(source, "late.py") == expected
