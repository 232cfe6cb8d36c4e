"""``clone``: look-ahead copies of a state share the static map."""

from __future__ import annotations

from service.rules.base import clone


def test_clone_copies_the_state_but_shares_the_static_map() -> None:
    state = {"map": {"terrain": {"A1": "clear"}}, "units": {"u": {"hex": "A1"}}}
    copy = clone(state)
    copy["units"]["u"]["hex"] = "A2"
    assert state["units"]["u"]["hex"] == "A1"  # a real copy
    assert copy["map"] is state["map"]  # shared: the rules never change it
