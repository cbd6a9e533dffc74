"""Where each key of a policy file is: the line a message names."""

from __future__ import annotations

from sslcustomize._policy._lines import locate_keys


def test_keys_tables_and_array_tables_get_their_lines() -> None:
    """Top-level keys, [report] keys and each [[exception]]'s keys are placed."""
    text = (
        "version = 1\n"
        "[report]\n"
        "sink = 'jsonl'\n"
        "[[exception]]\n"
        "host = 'a'\n"
        "[[exception]]\n"
        "host = 'b'\n"
        "pin = ['x']\n"
    )
    lines = locate_keys(text)
    assert lines[("version",)] == 1
    assert lines[("report",)] == 2
    assert lines[("report", "sink")] == 3
    assert lines[("exception", 0, "host")] == 5
    assert lines[("exception", 1, "host")] == 7
    assert lines[("exception", 1, "pin")] == 8


def test_quoted_and_dotted_keys_are_split_and_unescaped() -> None:
    """[context."urllib3.util"] is one key part; an escaped quote inside it is decoded."""
    text = '[context."urllib3.util"]\nmode = "report"\n[context."a\\"b"]\ntrust.x = 1\n'
    lines = locate_keys(text)
    assert lines[("context", "urllib3.util", "mode")] == 2
    assert lines[("context", 'a"b', "trust", "x")] == 4


def test_lines_inside_a_multiline_string_are_not_keys() -> None:
    """A key = value line inside a multi-line string is text, not a key."""
    text = 'reason = """\nmode = "report"\n"""\nmode = "enforce"\n'
    assert locate_keys(text)[("mode",)] == 4


def test_only_newline_ends_a_line() -> None:
    """A U+2028 inside a value does not shift the lines that follow (TOML ends at \\n only)."""
    text = 'reason = "a\u2028b"\nmode = "report"\n'
    assert locate_keys(text)[("mode",)] == 2
