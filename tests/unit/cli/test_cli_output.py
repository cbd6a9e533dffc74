"""The command line's JSON text: ``json.dumps(indent=2, default=str)``, byte for byte, faster."""

from __future__ import annotations

import datetime as dt
import enum
import json
import math
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sslcustomize._cli import _output
from sslcustomize._cli._output import JSON_VERSION, json_text, print_json


def _reference(document: dict[Any, Any]) -> str:
    return json.dumps({"version": JSON_VERSION, **document}, indent=2, default=str) + "\n"


class _Number(enum.IntEnum):
    THREE = 3


class _Text(str):
    __slots__ = ()


_SCALARS = st.one_of(
    st.none(), st.booleans(), st.integers(), st.floats(allow_nan=True), st.text(max_size=8)
)
_VALUES = st.recursive(
    _SCALARS,
    lambda inner: st.one_of(
        st.lists(inner, max_size=5),
        st.lists(inner, max_size=5).map(tuple),
        st.dictionaries(st.text(max_size=5), inner, max_size=5),
    ),
    max_leaves=30,
)


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(st.text(max_size=5), _VALUES, max_size=6))
def test_any_document_is_written_as_json_dumps_writes_it(document: dict[str, Any]) -> None:
    """Random nesting of every JSON type: the same text as the standard library's encoder."""
    assert json_text(document) == _reference(document)


def test_the_odd_values_are_written_as_json_dumps_writes_them() -> None:
    """Keys that are numbers, booleans or None, NaN and infinities, subclasses, other objects."""
    document: dict[Any, Any] = {
        "a": [1, "x", None, True, False, 1.5, math.nan, math.inf, -math.inf, [], {}, ()],
        7: 2, None: 3, True: 4, False: 5, 2.5: [_Number.THREE], -math.inf: _Text("t"),
        "day": dt.date(2026, 12, 1), "texts": ["\u00e9\n\"", "<", _Text("s")],
        "deep": {"x": [[{"y": [1, ["z"]]}]]},
    }  # fmt: skip
    assert json_text(document) == _reference(document)


def test_print_json_writes_the_same_text_in_pieces(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Flushed every few pieces, the text printed is still json_text's."""
    monkeypatch.setattr(_output, "_PIECES", 3)
    document = {
        "hosts": [{"host": f"h{n}", "machines": [f"m{m}" for m in range(n)]} for n in range(9)]
    }
    print_json(document)
    assert capsys.readouterr().out == _reference(document)


def test_what_json_refuses_is_refused() -> None:
    """The twin of the identity: a circular list and a tuple key raise as json.dumps does."""
    looped: list[Any] = [1]
    looped.append(looped)
    cases: list[tuple[dict[Any, Any], type[Exception]]] = [
        ({"l": looped}, ValueError),
        ({(1,): 1}, TypeError),
    ]
    for bad, error in cases:
        with pytest.raises(error):
            _reference(bad)
        with pytest.raises(error):
            json_text(bad)
