"""``service.api.gate.load``: what it refuses it names, place by place; a body with nothing to
refuse (no refused number, no ``\\u`` escape that could hold a lone surrogate) is not walked."""

from __future__ import annotations

from typing import Any

import pytest

from service.api import gate

REFUSED = {
    '{"a": NaN}': {"a": ["NaN is not allowed (numbers must be finite)"]},
    '{"a": [1, {"b": -Infinity}]}': {
        "a[1].b": ["-Infinity is not allowed (numbers must be finite)"]
    },
    '{"a": 1e999}': {"a": ["the number is out of range"]},
    '{"a": 9007199254740992}': {
        "a": [f"an integer must be within -{gate.MAX_INT}..{gate.MAX_INT}"]
    },
    '{"a": "\\ud800"}': {"a": ["not valid Unicode (a lone surrogate)"]},
    '{"\\udfff": 1}': {"\\udfff": ["the name is not valid Unicode (a lone surrogate)"]},
}


@pytest.mark.parametrize("text", list(REFUSED))
def test_each_refused_value_is_named_at_its_place(text: str) -> None:
    with pytest.raises(gate.BadJson) as refused:
        gate.load(text)
    assert refused.value.details == REFUSED[text]


def test_a_clean_body_is_parsed_without_a_walk(monkeypatch: pytest.MonkeyPatch) -> None:
    def walked(*_args: Any) -> Any:
        raise AssertionError("a clean body was walked")

    monkeypatch.setattr(gate, "problems", walked)
    text = '{"expected_version": 7, "command": {"type": "advance", "path": ["A1", "B2"], "n": 1.5}}'
    assert gate.load(text) == {
        "expected_version": 7,
        "command": {"type": "advance", "path": ["A1", "B2"], "n": 1.5},
    }


def test_an_escape_that_is_whole_unicode_passes_after_the_walk() -> None:
    assert gate.load('{"name": "caf\\u00e9 \\ud83d\\ude00"}') == {"name": "café 😀"}
