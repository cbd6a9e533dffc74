"""The state a policy context carries: its runtime, name, decision and recipe."""

from __future__ import annotations

import ssl

from sslcustomize._connection._contextstate import ContextState
from sslcustomize._policy._model import Policy
from sslcustomize._runtime._runtime import Runtime


def _state() -> ContextState:
    runtime = Runtime(Policy())
    return ContextState(runtime=runtime, name="smtplib", decision=runtime.base_decision("smtplib"))


def test_a_new_state_has_an_empty_recipe_and_python_would_verify() -> None:
    """Made: name and decision set, nothing recorded, not frozen."""
    state = _state()
    assert state.name == "smtplib"
    assert state.decision.mode == "enforce"
    assert state.recipe == ()
    assert not state.frozen
    assert state.python_recipe() == ()


def test_recorded_steps_follow_the_recipe_rules() -> None:
    """A second set_ciphers replaces the first: the recipe is add_step's."""
    state = _state()
    state.record(("set_ciphers", ("HIGH",)))
    state.record(("load_verify_locations", ("/a.pem", None, None)))
    state.record(("set_ciphers", ("ECDHE",)))
    assert state.recipe == (
        ("load_verify_locations", ("/a.pem", None, None)),
        ("set_ciphers", ("ECDHE",)),
    )


def test_report_modes_floor_adds_pythons_default_anchors_beside_the_policys() -> None:
    """Where the policy's anchors stood in for Python's, the floor loads both."""
    state = _state()
    before = state.recipe
    state.record(("load_verify_locations", (None, "/policy/hashed", None)))
    state.add_policy_steps(before)
    floor = state.python_recipe()
    assert floor is not None
    assert ("load_verify_locations", (None, "/policy/hashed", None)) in floor
    assert floor[-1] == ("load_default_certs", (ssl.Purpose.SERVER_AUTH,))


def test_no_floor_where_python_would_not_verify() -> None:
    """smtplib's context (gh-91826): Python verifies nothing, so report mode has no floor."""
    state = _state()
    state.python_verifies = False
    assert state.python_recipe() is None
