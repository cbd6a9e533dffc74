"""The state a policy context carries: its runtime, name, decision and recipe."""

from __future__ import annotations

import ssl

import pytest

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


ANCHOR_A = ("load_verify_locations", (None, "/anchors/a", None))
ANCHOR_B = ("load_verify_locations", ("/anchors/b.pem", None, None))


def test_deferred_anchors_are_recorded_as_the_policys_at_once() -> None:
    """Deferred: in the recipe and the policy's steps (engines load them), not yet in the store."""
    state = _state()
    state.defer_anchors((ANCHOR_A, ANCHOR_B))
    assert state.recipe == (ANCHOR_A, ANCHOR_B)
    assert state.policy_steps == {ANCHOR_A, ANCHOR_B}
    assert state.deferred == (ANCHOR_A, ANCHOR_B)


def test_an_anchor_the_caller_loaded_itself_is_not_deferred_again() -> None:
    """A step already recorded (so already in the store) is neither deferred nor the policy's."""
    state = _state()
    state.record(ANCHOR_A)
    state.defer_anchors((ANCHOR_A, ANCHOR_B))
    assert state.deferred == (ANCHOR_B,)
    assert state.policy_steps == {ANCHOR_B}


def test_an_anchor_code_loaded_before_a_pending_context_was_settled_is_the_policys() -> None:
    """Settled late, a step code recorded first is the policy's, as if the anchors came first.

    Report mode's floor (Python's defaults beside the policy's anchors) depends on it: the
    same as on a context whose anchors were recorded when it was made (the twin above).
    """
    state = _state()
    state.record(ANCHOR_A)
    state.defer_anchors((ANCHOR_A, ANCHOR_B), late=True)
    assert state.deferred == (ANCHOR_B,)
    assert state.policy_steps == {ANCHOR_A, ANCHOR_B}
    made_first = _state()
    made_first.defer_anchors((ANCHOR_A, ANCHOR_B))
    made_first.record(ANCHOR_A)
    assert made_first.policy_steps == state.policy_steps
    assert made_first.python_recipe() is not None
    assert state.python_recipe() is not None
    assert set(state.python_recipe() or ()) == set(made_first.python_recipe() or ())


def test_deferred_anchors_are_loaded_once() -> None:
    """load_deferred registers each step once; a second call finds nothing to do."""
    state = _state()
    state.defer_anchors((ANCHOR_A, ANCHOR_B))
    loaded: list[object] = []
    state.load_deferred(loaded.append)
    state.load_deferred(loaded.append)
    assert loaded == [ANCHOR_A, ANCHOR_B]
    assert state.deferred == ()
    assert state.recipe == (ANCHOR_A, ANCHOR_B)


def test_a_step_that_fails_to_load_stays_deferred() -> None:
    """A failing step raises and stays deferred with those after it: the store never gains it."""
    state = _state()
    state.defer_anchors((ANCHOR_A, ANCHOR_B))
    loaded: list[object] = []

    def load(step: object) -> None:
        if step == ANCHOR_B:
            raise OSError("gone")
        loaded.append(step)

    with pytest.raises(OSError, match="gone"):
        state.load_deferred(load)
    assert loaded == [ANCHOR_A]
    assert state.deferred == (ANCHOR_B,)


def test_the_floor_is_one_tuple_while_the_recipe_stays() -> None:
    """python_recipe() gives the same tuple until the recipe changes (an engine key's identity)."""
    state = _state()
    state.defer_anchors((ANCHOR_A,))
    first = state.python_recipe()
    assert first is state.python_recipe()
    state.record(("set_ciphers", ("HIGH",)))
    second = state.python_recipe()
    assert second is not first
    assert second is not None
    assert ("set_ciphers", ("HIGH",)) in second


def test_the_last_connection_is_remembered_for_its_key_only() -> None:
    """remembered() returns the last settings, plan and engine for an equal key only."""
    state = _state()
    assert state.remembered(("key", 1)) is None
    settings, plan, engine = object(), object(), ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    state.remember(("key", 1), settings, plan, engine)  # type: ignore[arg-type]
    assert state.remembered(("key", 1)) == (settings, plan, engine)
    assert state.remembered(("key", 2)) is None
