"""Helpers of the rules contract: look-ahead copies and plain event sentences."""

from __future__ import annotations

from service.rules.base import clone


def test_clone_copies_the_state_but_shares_the_static_map() -> None:
    state = {"map": {"terrain": {"A1": "clear"}}, "units": {"u": {"hex": "A1"}}}
    copy = clone(state)
    copy["units"]["u"]["hex"] = "A2"
    assert state["units"]["u"]["hex"] == "A1"  # a real copy
    assert copy["map"] is state["map"]  # shared: the rules never change it


def test_an_event_without_a_sentence_of_its_own_is_worded_plainly() -> None:
    from service.rules.base import RulesEvent, plain_sentence

    event = RulesEvent(
        "DeploymentEnded", {"side": "nationalist", "units": ["a", "b"], "late": False, "x": 2.0}
    )
    assert (
        plain_sentence(event) == "Deployment ended (side: nationalist, units: a, b, late: no, x: 2)"
    )
    assert plain_sentence(RulesEvent("TurnBegan", {})) == "Turn began"
