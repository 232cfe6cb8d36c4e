"""The hash chain's canonical JSON (``service.domain.chain.canonical_json``): every stored event's
hash is over it, so its bytes may never change.  It is made by the standard library's C encoder,
built once; these tests hold it to the documented form (``json.dumps`` with sorted keys, no
spaces, UTF-8 as is, and the chain's own ``default`` for ids, times and sets)."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any
from uuid import UUID

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from service.domain.chain import _default, canonical_json, event_hash

JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(),
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(), inner, max_size=5),
    max_leaves=25,
)


def documented(value: Any) -> str:
    return json.dumps(
        value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=_default
    )


@settings(max_examples=400, deadline=None)
@given(JSON)
def test_any_json_value_is_written_as_the_documented_form(value: Any) -> None:
    assert canonical_json(value) == documented(value)


def test_ids_times_sets_and_escapes() -> None:
    value = {
        "b": UUID("12345678-1234-5678-1234-567812345678"),
        "a": datetime(2026, 12, 6, 0, 0, tzinfo=UTC),
        "c": frozenset({3}),
        "d": 'é \u2028 "quoted" \\ \n',
        "e": [1.5, 1e300, -0.0, True, None],
    }
    assert canonical_json(value) == (
        '{"a":"2026-12-06T00:00:00+00:00","b":"12345678-1234-5678-1234-567812345678",'
        '"c":[3],"d":"é \u2028 \\"quoted\\" \\\\ \\n","e":[1.5,1e+300,-0.0,true,null]}'
    )
    assert canonical_json("plain") == '"plain"'


def test_a_value_json_cannot_hold_is_refused() -> None:
    with pytest.raises(TypeError, match="cannot hash a bytes"):
        canonical_json({"raw": b"\x00"})


def test_an_event_hash_is_the_one_an_older_store_holds() -> None:
    # a fixed event and the hash the earlier encoder (``JSONEncoder.encode``) gave it: the
    # bytes hashed may never change, or every stored log would stop verifying
    digest = event_hash(
        UUID("12345678-1234-5678-1234-567812345678"),
        3,
        "Game.Recorded",
        datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC),
        {"prev_hash": "0" * 64, "kind": "UnitMoved", "data": {"unit": "u1", "path": ["A1"]}},
    )
    assert digest == "875d33742b586fd12392117cd80656a8fd302e402be276463c57af705590ef9e"
