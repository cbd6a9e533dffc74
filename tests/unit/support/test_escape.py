"""Text from a certificate or a server, made safe to show."""

from __future__ import annotations

import pytest

from sslcustomize._support._escape import visible


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("\x1b[2J", "\\x1b[2J"),  # a terminal escape that clears the screen
        ("evil\u202etxt.exe", "evil\\u202etxt.exe"),  # right-to-left override
        ("a\u200db", "a\\u200db"),  # zero-width joiner
        ("line\u2028break", "line\\u2028break"),
        ("\x9b31m", "\\x9b31m"),  # C1 CSI
        ("tab\there", "tab\\x09here"),
        ("\U000e0001tag", "\\U000e0001tag"),  # a format character beyond the BMP
    ],
)
def test_non_printable_characters_are_escaped(text: str, shown: str) -> None:
    """Attack: control, format and separator characters come out as their escapes."""
    assert visible(text) == shown
    assert visible(text).isprintable()


def test_printable_text_is_unchanged_and_escaping_is_idempotent() -> None:
    """Twin: names in any script and spaces stay as they are; a second pass changes nothing."""
    for text in ("nas.corp.example", "Bücher café", "例え.テスト", "a b"):
        assert visible(text) is text
    once = visible("x\x00y")
    assert visible(once) == once
