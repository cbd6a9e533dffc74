"""Said once per process: one registry for every notice, keyed by topic and key."""

from __future__ import annotations

from sslcustomize._support import _once
from sslcustomize._trust import _environment


def test_a_notice_is_given_the_first_time_only() -> None:
    """first_time() is true once per (topic, key), then false."""
    assert _once.first_time("test topic", "one") is True
    assert _once.first_time("test topic", "one") is False


def test_topics_and_keys_do_not_silence_each_other() -> None:
    """Twin: another key, or the same key under another topic, is still said once."""
    assert _once.first_time("test topic", "two") is True
    assert _once.first_time("other test topic", "two") is True
    assert _once.first_time("test topic", "three") is True


def test_ca_variable_notices_use_the_one_registry() -> None:
    """The CA variables' notices are marked in the shared registry, not a second one."""
    assert _environment.first_notice("SSLCUSTOMIZE_ONCE_TEST") is True
    assert _once.first_time("CA variable", "SSLCUSTOMIZE_ONCE_TEST") is False
