"""The what-if's differences say how a state field differs (issue 51, finding 7: "Combat:
differs", "Pending: differs"), a unit by its printed name, never an id."""

from __future__ import annotations

import copy

from service.application.what_if import differences
from service.rules.merida import SYSTEM


def _states() -> tuple[dict, dict, dict]:
    state = SYSTEM.initial_state("merida-1938", {})
    unit = next(u for u in state["units"].values() if u["side"] == "republican")
    recorded = copy.deepcopy(state)
    recorded["combat"] = {"column": "3-1", "result": "A2", "die": 5, "defender": [unit["id"]]}
    recorded["pending"] = None
    alternative = copy.deepcopy(recorded)
    alternative["combat"] = {"column": "6-1", "result": "D2", "die": 5, "defender": [unit["id"]]}
    alternative["pending"] = {"kind": "retreat", "unit": unit["id"]}
    return recorded, alternative, unit


def test_a_field_that_differs_says_each_part_that_differs_and_how() -> None:
    recorded, alternative, unit = _states()
    said = differences(SYSTEM, recorded, alternative)
    assert "Combat: column 6-1 instead of 3-1; result D2 instead of A2" in said
    [pending] = [d for d in said if d.startswith("Pending: ")]
    assert unit["name"] in pending and unit["id"] not in pending
    assert pending.endswith("instead of none")
    assert not any(d.endswith(": differs") for d in said)
