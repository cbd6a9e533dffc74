"""The pure decision function: contexts by longest prefix, exceptions by specificity."""

from __future__ import annotations

import datetime as dt
import ssl
import sys
from collections.abc import Callable

import pytest

from sslcustomize._decision._decide import decide
from sslcustomize._decision._engine import python_defaults, settings_of, weakened_flags
from sslcustomize._decision._plan import weakenings
from sslcustomize._policy._load import merge_layers
from sslcustomize._policy._model import Policy
from sslcustomize._trust._checked_policy import parse_policy

TODAY = dt.date(2026, 12, 3)
PIN = "sha256/" + "B" * 43 + "="


def _policy(text: str) -> Policy:
    return merge_layers([parse_policy(text, path="/etc/p.toml", layer="user")])


POLICY = _policy(f"""\
mode = "enforce"
[context."myapp"]
mode = "report"
[context."myapp.billing"]
mode = "enforce"
minimum_tls = "1.3"
allow_code_opt_out = false
[[exception]]
host = "nas.corp.example"
pin = ["{PIN}"]
check_hostname = false
reason = "appliance"
[[exception]]
host = "old.corp.example"
mode = "report"
expires = 2026-12-03
reason = "migration"
[[exception]]
host = "*.corp.example"
mode = "report"
reason = "lab"
""")


def test_default_rule_without_context_or_host() -> None:
    """No context rule and no host: the global settings under the rule 'default'."""
    decision = decide(POLICY, context="smtplib")
    assert (decision.mode, decision.rule, decision.minimum_tls) == ("enforce", "default", "1.2")
    assert decision.pins == ()
    assert decision.check_hostname is True


@pytest.mark.parametrize(
    ("name", "rule", "mode"),
    [
        ("myapp", "context myapp", "report"),
        ("myapp.mail.smtp", "context myapp", "report"),
        ("myapp.billing", "context myapp.billing", "enforce"),
        ("myapp.billing.stripe", "context myapp.billing", "enforce"),
        ("myappx", "default", "enforce"),
    ],
)
def test_context_rule_by_longest_dotted_prefix(name: str, rule: str, mode: str) -> None:
    """[context."x"] matches x and names below it, never a name that merely starts with x."""
    decision = decide(POLICY, context=name)
    assert (decision.rule, decision.mode) == (rule, mode)


def test_context_rule_settings_apply() -> None:
    """A context's minimum_tls and allow_code_opt_out override the global ones."""
    decision = decide(POLICY, context="myapp.billing")
    assert decision.minimum_tls == "1.3"
    assert decision.allow_code_opt_out is False
    assert decision.origin is not None
    assert decision.origin.line == 4


def test_exception_applies_to_its_host_only() -> None:
    """The pin exception applies to its host; another host gets the default."""
    decision = decide(POLICY, host="NAS.corp.example.", port=443, today=TODAY)
    assert decision.rule == "exception nas.corp.example"
    assert decision.pins == (PIN,)
    assert decision.check_hostname is False
    other = decide(POLICY, host="nas.other.example", port=443, today=TODAY)
    assert other.rule == "default"
    assert other.pins == ()


def test_expired_exception_no_longer_applies() -> None:
    """On its expiry date an exception stops; a wildcard that still applies is used instead."""
    before = decide(POLICY, host="old.corp.example", port=443, today=TODAY - dt.timedelta(1))
    assert before.rule == "exception old.corp.example"
    on = decide(POLICY, host="old.corp.example", port=443, today=TODAY)
    assert on.rule == "exception *.corp.example"


def test_exception_mode_keeps_context_settings() -> None:
    """An exception's mode overrides; the context's other settings stay."""
    decision = decide(
        POLICY, host="git.corp.example", port=443, context="myapp.billing", today=TODAY
    )
    assert decision.mode == "report"
    assert decision.minimum_tls == "1.3"


def test_host_needs_today() -> None:
    """Deciding for a host without a date is a programming error, not a silent default."""
    with pytest.raises(TypeError, match="today"):
        decide(POLICY, host="nas.corp.example")


def test_unencodable_host_gets_the_default() -> None:
    """A host name that cannot be normalised matches no exception."""
    decision = decide(POLICY, host="\u00ad" * 70 + ".corp.example", today=TODAY)
    assert decision.rule == "default"


def test_fallback_flag_carries_through() -> None:
    """Decisions made under the strict fallback say so."""
    from sslcustomize._policy._load import fallback_policy
    from sslcustomize.exceptions import PolicyError

    policy = fallback_policy([PolicyError("bad", path="/x")], [])
    assert decide(policy, context="smtplib").fallback is True


# --- Weakenings: compared with Python's default, not looked up in a list of bad flags --------


_DEFAULT = ssl.create_default_context().verify_flags


@pytest.mark.parametrize(
    ("change", "weaker"),
    [
        (lambda f: f, False),
        (lambda f: f | ssl.VERIFY_CRL_CHECK_CHAIN, False),  # more checks
        (lambda f: f | 0x100000, False),  # NO_ALT_CHAINS: a narrower search
        (lambda f: f & ~ssl.VERIFY_X509_TRUSTED_FIRST, False),  # only the search order
        (lambda f: f | 0x200000, True),  # NO_CHECK_TIME
        (lambda f: f | ssl.VERIFY_ALLOW_PROXY_CERTS, True),
        (lambda f: f | 0x10, True),  # IGNORE_CRITICAL
        (lambda f: f | 0x1, True),  # a bit with no known meaning: fail closed
        (lambda f: f | ssl.VERIFY_X509_PARTIAL_CHAIN, sys.version_info < (3, 13)),
        (lambda f: f & ~ssl.VERIFY_X509_PARTIAL_CHAIN, False),  # stricter on 3.13, no-op before
        (lambda f: f & ~ssl.VERIFY_X509_STRICT, sys.version_info >= (3, 13)),
    ],
)
def test_weakened_flags_compare_with_pythons_default(
    change: Callable[[int], int], weaker: bool
) -> None:
    """A flag added or a default removed is a weakening unless it can never accept more."""
    assert any(weakened_flags(int(change(_DEFAULT)))) is weaker


def test_a_lowered_security_level_is_a_weakening() -> None:
    """set_ciphers("...:@SECLEVEL=0") is named; a raised level is not."""
    low, high = ssl.create_default_context(), ssl.create_default_context()
    low.set_ciphers("DEFAULT:@SECLEVEL=0")
    high.set_ciphers("DEFAULT:@SECLEVEL=3")
    assert "security_level" in weakenings(settings_of(low, ()), "example.test")
    assert weakenings(settings_of(high, ()), "example.test") == ()
    assert ssl.create_default_context().security_level == python_defaults()[1]
