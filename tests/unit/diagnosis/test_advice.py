"""report's advice: the fix of a record, with commands only for real host names."""

from __future__ import annotations

import pytest

from sslcustomize._diagnosis._advice import NO_COMMAND, fix_for, safe_target


@pytest.mark.parametrize(
    ("host", "port"),
    [
        ("nas.corp.example;touch${IFS}/tmp/x;#", 443),
        ("$(reboot)", None),
        ("nas.example", 0),
        ("nas.example", True),
        ("nas.example", "443"),
        (5, 443),
    ],
)
def test_a_forged_target_gets_no_command(host: object, port: object) -> None:
    """Attack: a host that is not a host name, or a port that is not one, gets no command."""
    assert not safe_target(host, port)
    fix = fix_for("unknown_issuer", {"host": host, "port": port})
    assert fix.text == NO_COMMAND
    assert fix.commands == []


def test_a_real_host_gets_check_and_trust_for_its_port() -> None:
    """Twin: a host name gets the exact commands, with its port and STARTTLS."""
    fix = fix_for("self_signed", {"host": "mail.example", "port": 587, "starttls": "smtp"})
    assert fix.commands == [
        "sslcustomize check --starttls smtp mail.example:587",
        "sslcustomize trust --starttls smtp mail.example:587",
    ]
    assert fix.to_json() == {"reason": "self_signed", "fix": fix.text, "commands": fix.commands}


def test_an_expired_exception_comes_first_with_its_renewal() -> None:
    """An exception that names exactly this server is renewed in its own layer."""
    record = {
        "host": "nas.example", "port": 8443, "expired_host": "nas.example:8443",
        "expired_origin": "/etc/sslcustomize/policy.toml:7", "expired_layer": "system",
    }  # fmt: skip
    fix = fix_for("self_signed", record)
    assert fix.text.startswith(
        "the exception for nas.example:8443 (/etc/sslcustomize/policy.toml:7)"
    )
    assert fix.commands[0] == "sslcustomize trust --days 90 --scope system nas.example:8443"
    assert "it keeps its reason" in fix.text


def test_a_wildcard_exception_is_not_renewed_by_a_narrower_one() -> None:
    """A pattern that names more than this server is changed where it is, not replaced."""
    record = {"host": "a.corp.example", "port": 443, "expired_host": "*.corp.example"}
    fix = fix_for("expired", record)
    assert "it names more than this server" in fix.text


def test_where_an_intermediate_was_seen_is_escaped() -> None:
    """The seen text comes from records: control characters are shown, not obeyed."""
    fix = fix_for("incomplete_chain", {"host": "h.example", "port": 443}, seen="by \x1b[2Jx")
    assert "\x1b" not in fix.text
    assert "\\x1b" in fix.text
