"""Hypothesis strategies for the fuzz suite: any JSON value, and mutations of a valid body (a value
of the wrong type or shape anywhere in it, a field dropped or added)."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

#: JSON's safe integers: the input gate refuses larger ones (tests/e2e/test_input_gate.py)
SAFE = 2**53 - 1

scalars = (
    st.none()
    | st.booleans()
    | st.integers(-SAFE, SAFE)
    | st.sampled_from([0, 1, -1, 2**31, 10**12, 0.5, -0.0, 1e308, -1e308, 1e-300])
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=12)
    | st.sampled_from(["", "x" * 300, "1", "true", "null", "A1", "0101"])
)

json_values = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=10,
)


def places(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every place in a JSON value: keys of objects and indexes of lists, depth first."""
    found = [path]
    if isinstance(value, dict):
        for key, item in value.items():
            found += places(item, (*path, key))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            found += places(item, (*path, i))
    return found


def replaced(value: Any, path: tuple[Any, ...], new: Any) -> Any:
    if not path:
        return new
    head, rest = path[0], path[1:]
    if isinstance(value, dict):
        return {**value, head: replaced(value[head], rest, new)}
    out = list(value)
    out[head] = replaced(out[head], rest, new)
    return out


def dropped(value: Any, path: tuple[Any, ...]) -> Any:
    if len(path) == 1:
        if isinstance(value, dict):
            return {k: v for k, v in value.items() if k != path[0]}
        return [v for i, v in enumerate(value) if i != path[0]]
    head = path[0]
    if isinstance(value, dict):
        return {**value, head: dropped(value[head], path[1:])}
    out = list(value)
    out[head] = dropped(out[head], path[1:])
    return out


@st.composite
def mutated(draw: st.DrawFn, valid: Any, keep: tuple[Any, ...] = ()) -> Any:
    """``valid`` with one to three mutations: a place's value replaced by any JSON value (a wrong
    type or shape), a place dropped, or an unknown field added.  Places in ``keep`` (paths from the
    root) are never touched, so a command keeps its ``type`` and reaches its declaration."""
    value = valid
    for _ in range(draw(st.integers(1, 3))):
        spots = [p for p in places(value) if p and p not in keep]
        action = draw(st.sampled_from(["replace", "replace", "drop", "add"]))
        if action == "add" or not spots:
            spots = [p for p in places(value) if isinstance(_at(value, p), dict)]
            if not spots:
                continue
            spot = draw(st.sampled_from(spots))
            key = draw(st.text(min_size=1, max_size=8))
            value = replaced(value, spot, {**_at(value, spot), key: draw(json_values)})
        elif action == "drop":
            value = dropped(value, draw(st.sampled_from(spots)))
        else:
            value = replaced(value, draw(st.sampled_from(spots)), draw(json_values))
    return value


def _at(value: Any, path: tuple[Any, ...]) -> Any:
    for step in path:
        value = value[step]
    return value
