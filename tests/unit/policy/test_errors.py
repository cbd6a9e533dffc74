"""Every error of a policy file, not just the first, each with its line and key."""

from __future__ import annotations

import textwrap

from sslcustomize._policy._errors import every_error
from sslcustomize._policy._model import TrustSource


def _no_check(source: TrustSource) -> None:
    """Accept every trust source (this layer parses; the trust layer checks)."""


def _errors(text: str, layer: str = "user") -> list[tuple[int | None, str | None]]:
    found = every_error(textwrap.dedent(text), path="p.toml", layer=layer, check_source=_no_check)
    return [(error.line, error.key) for error in found]


def test_a_valid_file_has_no_errors() -> None:
    """Twin: a correct file gives an empty list."""
    assert _errors("version = 1\nmode = 'report'\n") == []


def test_every_bad_key_is_named() -> None:
    """Three errors on three lines are all found (in the loader's order: unknown keys first)."""
    text = """\
        version = 1
        mode = "loud"
        minimum_tls = "1.0"
        colour = "blue"
        """
    assert sorted(_errors(text)) == [(2, "mode"), (3, "minimum_tls"), (4, "colour")]


def test_errors_inside_one_exception_table_are_all_found() -> None:
    """A bad pin and a bad mode of the same [[exception]] are two errors."""
    text = """\
        [[exception]]
        host = "nas.example"
        pin = ["sha256/short"]
        mode = "off"
        reason = "r"
        """
    found = _errors(text)
    assert [line for line, _ in found] == [3, 4]
    assert all(key is not None and key.startswith("exception") for _, key in found)


def test_a_lock_outside_the_system_layer_is_an_error() -> None:
    """lock is the system layer's alone: the same line is fine there."""
    assert [key for _, key in _errors("lock = ['mode']\n", layer="user")] == ["lock"]
    assert _errors("lock = ['mode']\n", layer="system") == []


def test_a_syntax_error_stops_the_search() -> None:
    """Invalid TOML is one error: nothing after it can be placed."""
    found = every_error("mode = \nfoo = 1\n", path="p", layer="user", check_source=_no_check)
    assert len(found) == 1
    assert found[0].problem.startswith("not valid TOML")
