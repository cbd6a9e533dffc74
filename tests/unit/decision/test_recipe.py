"""The recipe of a policy context: which calls replace, which add, what cannot be carried."""

from __future__ import annotations

import os
import ssl
from pathlib import Path

from sslcustomize._decision._recipe import (
    ADDITIVE_STEPS,
    COPIED_PROPERTIES,
    REPLACING_STEPS,
    UNCARRIED,
    UNCOPIED_MEMBERS,
    Keywords,
    Step,
    add_step,
    carried_properties,
    generic_step,
    normalize,
    recorded_methods,
    unclassified_members,
)


def test_a_replacing_call_replaces_the_earlier_one_of_its_kind() -> None:
    """A second set_ciphers leaves one step, the latest; other steps keep their order."""
    recipe: tuple[Step, ...] = ()
    recipe = add_step(recipe, ("set_ciphers", ("HIGH",)))
    recipe = add_step(recipe, ("load_verify_locations", ("a.pem", None, None)))
    recipe = add_step(recipe, ("set_ciphers", ("ECDHE",)))
    assert recipe == (("load_verify_locations", ("a.pem", None, None)), ("set_ciphers", ("ECDHE",)))


def test_an_additive_call_is_kept_once_and_a_different_one_is_added() -> None:
    """Loading the same CA twice records it once; another CA adds a second step."""
    first: Step = ("load_verify_locations", ("a.pem", None, None))
    second: Step = ("load_verify_locations", ("b.pem", None, None))
    recipe = add_step(add_step((), first), first)
    assert recipe == (first,)
    assert add_step(recipe, second) == (first, second)


def test_an_unclassified_call_moves_to_the_end_when_repeated() -> None:
    """A newer Python's setter is replayed in call order: a repeated call moves last."""
    new: Step = ("set_future_thing", (1,))
    other: Step = ("set_ciphers", ("HIGH",))
    recipe = add_step(add_step(add_step((), new), other), new)
    assert recipe == (other, new)


def test_normalize_makes_lists_bytes_and_paths_hashable() -> None:
    """Lists become tuples, bytearray and memoryview bytes, path-likes strings."""
    value = normalize([bytearray(b"h2"), memoryview(b"x"), Path("/ca.pem"), [1, 2]])
    assert value == (b"h2", b"x", os.fspath(Path("/ca.pem")), (1, 2))
    hash(value)


def test_normalize_keeps_a_named_tuple_as_it_is() -> None:
    """ssl.Purpose is a named tuple the ssl methods compare by identity: it is not rebuilt."""
    assert normalize(ssl.Purpose.SERVER_AUTH) is ssl.Purpose.SERVER_AUTH


def test_generic_step_keeps_keywords_sorted_as_the_last_value() -> None:
    """Keyword arguments become one Keywords value, in name order, whatever the call order."""
    step = generic_step("load_cert_chain", ("c.pem",), {"password": "p", "keyfile": "k.pem"})
    assert step == ("load_cert_chain", ("c.pem", (("keyfile", "k.pem"), ("password", "p"))))
    assert isinstance(step[1][-1], Keywords)
    assert generic_step("set_ciphers", ("HIGH",), {}) == ("set_ciphers", ("HIGH",))


def test_generic_step_marks_unhashable_arguments_uncarried() -> None:
    """A callback object that cannot be hashed makes the step uncarried, by method name."""
    assert generic_step("set_thing", ({"a": 1},), {}) == (UNCARRIED, ("set_thing",))


def test_this_pythons_context_is_fully_classified() -> None:
    """Every public member of this Python's SSLContext is classified, so nothing is lost."""
    assert unclassified_members(ssl.SSLContext) == {}
    assert carried_properties(ssl.SSLContext) == ()
    recorded = recorded_methods(ssl.SSLContext)
    assert "load_verify_locations" in recorded
    assert set(recorded) <= set(REPLACING_STEPS) | set(ADDITIVE_STEPS)
    assert not set(COPIED_PROPERTIES) & set(recorded)


def test_a_newer_pythons_members_are_recorded_or_carried() -> None:
    """Attack: a setter and a property a future SSLContext adds are not silently dropped."""

    class Future(ssl.SSLContext):
        def set_future_groups(self, groups: str) -> None:
            """Stand for a setter a newer Python adds."""

        @property
        def future_level(self) -> int:
            """Stand for a property a newer Python adds."""
            return 0

        @future_level.setter
        def future_level(self, value: int) -> None:
            pass

    assert set(unclassified_members(Future)) == {"set_future_groups", "future_level"}
    assert recorded_methods(Future)[-1] == "set_future_groups"
    assert carried_properties(Future) == ("future_level",)


def test_uncopied_members_say_why() -> None:
    """Every member left out of engines carries its reason."""
    assert all(UNCOPIED_MEMBERS.values())
    assert {"wrap_socket", "sni_callback"} <= set(UNCOPIED_MEMBERS)
