"""The plan of one connection: which engine connects, what is judged, when a certificate goes."""

from __future__ import annotations

import datetime as dt
import ssl

import pytest

from sslcustomize._decision._decide import Decision, decide
from sslcustomize._decision._engine import EngineSpec, Settings, settings_of
from sslcustomize._decision._plan import Plan, make_plan
from sslcustomize._policy._load import merge_layers
from sslcustomize._trust._checked_policy import parse_policy

TODAY = dt.date(2026, 12, 3)
PIN = "sha256/" + "B" * 43 + "="
LEAF = b"0\x82leaf"
CERT_CHAIN = ("load_cert_chain", ("/client.pem",))
#: What a context Python itself verifies records as report mode's floor.
PYTHON_RECIPE = (("load_default_certs", ()),)


def _decision(text: str, host: str = "nas.corp.example") -> Decision:
    policy = merge_layers([parse_policy(text, path="/etc/p.toml", layer="user")])
    return decide(policy, host=host, port=443, context="myapp", today=TODAY)


def _settings(
    *, client_certificate: bool = False, python: bool = True, **changes: object
) -> Settings:
    context = ssl.create_default_context()
    for name, value in changes.items():
        setattr(context, name, value)
    recipe = (CERT_CHAIN,) if client_certificate else ()
    return settings_of(context, recipe, PYTHON_RECIPE if python else None)


def _plan(decision: Decision, settings: Settings, leaves: tuple[bytes, ...] = ()) -> Plan:
    return make_plan(
        decision, settings, name="myapp", host="nas.corp.example", port=443, leaves=leaves
    )


PINNED = f"""\
mode = "{{mode}}"
[[exception]]
host = "nas.corp.example"
pin = ["{PIN}"]
reason = "appliance"
"""


def test_enforce_without_exception_verifies_on_the_callers_own_context() -> None:
    """The common case: no engine, judged again after the handshake with this reading."""
    plan = _plan(_decision('mode = "enforce"\n'), _settings())
    assert plan.engine is None
    assert plan.judge is True
    assert plan.weakened == ()


def test_a_client_certificate_goes_out_only_from_a_private_verifying_engine() -> None:
    """Enforce with a client certificate: an engine that verifies in the handshake, not judged."""
    plan = _plan(_decision('mode = "enforce"\n'), _settings(client_certificate=True))
    assert plan.engine == plan.verify
    assert plan.engine is not None
    assert plan.engine.verify
    assert plan.judge is False


def test_an_obeyed_weakening_is_an_opt_out() -> None:
    """check_hostname off where the policy obeys opt-outs: the caller's context, recorded."""
    plan = _plan(_decision('mode = "enforce"\n'), _settings(check_hostname=False))
    assert (plan.engine, plan.judge, plan.opt_out) == (None, True, True)
    assert plan.weakened == ("check_hostname",)


def test_a_refused_weakening_verifies_with_the_check_restored() -> None:
    """allow_code_opt_out = false: the engine verifies the host name the caller turned off."""
    decision = _decision('mode = "enforce"\nallow_code_opt_out = false\n')
    plan = _plan(decision, _settings(check_hostname=False))
    assert plan.opt_out is False
    assert plan.engine is not None
    assert plan.engine.check_hostname


def test_enforce_pinned_first_connection_withholds_the_client_certificate() -> None:
    """A pin not yet seen: deferred (judged after the handshake), the certificate withheld."""
    plan = _plan(_decision(PINNED.format(mode="enforce")), _settings(client_certificate=True))
    assert plan.engine is not None
    assert (plan.engine.verify, plan.engine.withhold_client_certificate) == (False, True)
    assert plan.judge is True


def test_enforce_pinned_leaf_seen_verifies_natively_against_exactly_it() -> None:
    """The pinned leaf learned: the handshake trusts exactly it, and sends the certificate."""
    settings = _settings(client_certificate=True)
    plan = _plan(_decision(PINNED.format(mode="enforce")), settings, leaves=(LEAF,))
    assert plan.engine is not None
    assert (plan.engine.verify, plan.engine.leaves, plan.engine.python) == (True, (LEAF,), False)
    assert plan.engine.withhold_client_certificate is False
    assert plan.judge is False


@pytest.mark.parametrize("leaves", [(), (LEAF,)])
def test_report_pinned_with_a_client_certificate_verifies_python_s_floor_in_the_handshake(
    leaves: tuple[bytes, ...],
) -> None:
    """Report mode never withholds what Python would send: the floor verifies, then sends.

    With the pinned leaf known it is trusted besides the floor's anchors (issue 32 #8).
    """
    settings = _settings(client_certificate=True)
    plan = _plan(_decision(PINNED.format(mode="report")), settings, leaves=leaves)
    engine = plan.engine
    assert engine is not None
    assert (engine.verify, engine.python, engine.leaves) == (True, True, leaves)
    assert engine.withhold_client_certificate is False
    assert plan.judge is True  # a pin mismatch on a chain Python accepts is still reported
    assert plan.floor is not None
    assert plan.floor.leaves == ()


def test_report_pinned_without_a_client_certificate_is_judged_after_the_handshake() -> None:
    """Nothing to withhold: deferred, the floor applied to the chain after the handshake."""
    plan = _plan(_decision(PINNED.format(mode="report")), _settings())
    assert plan.engine == EngineSpec(verify=False, minimum_version=plan.verify.minimum_version)
    assert plan.floor is not None


def test_report_for_a_client_python_does_not_verify_has_no_floor() -> None:
    """smtplib's kind of context (gh-91826): report mode lets it through, as Python did."""
    settings = _settings(client_certificate=True, python=False)
    plan = _plan(_decision(PINNED.format(mode="report")), settings)
    assert plan.floor is None
    assert plan.engine is not None
    assert (plan.engine.verify, plan.engine.withhold_client_certificate) == (False, False)


def test_a_lowered_minimum_below_the_policy_s_floor_is_a_weakening() -> None:
    """minimum_tls = 1.3 and a context at TLS 1.2: named, and refused where opt-outs are."""
    decision = _decision('mode = "enforce"\nminimum_tls = "1.3"\nallow_code_opt_out = false\n')
    plan = _plan(decision, _settings())
    assert plan.weakened == ("minimum_version",)
    assert plan.engine is not None
    assert plan.engine.minimum_version == ssl.TLSVersion.TLSv1_3
