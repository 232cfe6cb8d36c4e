"""The ``buy`` template of the ``points`` option: its catalogue (Troop Type table, Attribute Costs,
AFVs table) says what may be bought at what price, and what it offers ``decide`` accepts at that
price."""

from __future__ import annotations

from typing import Any

import pytest

from service.rules.barcelona import SYSTEM
from tests.unit.rules.barcelona.conftest import NAT, play


def buy_action(points: int = 2000) -> tuple[dict[str, Any], dict[str, Any]]:
    """The state of a points muster, and what a client builds its form from: the side's budget
    and the catalogue (one of the drawing capability's tables)."""
    state = SYSTEM.initial_state("skirmish", {"forces": "points", "points": points})
    assert SYSTEM.drawing is not None
    return state, {
        "budget": state["budget"][NAT],
        "catalogue": SYSTEM.drawing.tables()["catalogue"],
    }


def bought(state: dict[str, Any], unit: dict[str, Any]) -> int:
    [event] = play(state, NAT, {"type": "buy", "unit": unit})
    assert event.type == "UnitBought"
    return int(event.data["points"])


def test_attribute_costs_the_catalogue_gives_the_printed_prices() -> None:
    _, action = buy_action()
    cat = action["catalogue"]
    assert action["budget"] == 2000 and cat["rule"] == "Attribute Costs"
    assert cat["troop_types"]["Carlists"]["grades"] == [  # printed 3/4 morale for 5/6 points
        {"grade": 0, "morale": 3, "tactical": 2, "points": 5},
        {"grade": 1, "morale": 4, "tactical": 2, "points": 6},
    ]
    assert cat["troop_types"]["Foreign Legion"]["attributes"] == ["stubborn", "skilled"]
    assert cat["attributes"] == {"skilled": 1, "stubborn": 2, "ferocious": 3}
    assert cat["per_figure"] == {"cavalry": 2, "no_bombs": -1}
    assert cat["lmg"] == 12 and cat["aircraft"] == {"points": 150}
    assert cat["teams"]["HMG"] == {"per_crew": 8}  # "MG 8 times crew"
    assert cat["teams"]["Mortar"]["placeholder"] is True  # no price printed
    assert cat["crew"]["default"] == 3 and cat["crew"]["placeholder"] is True
    assert cat["vehicles"]["T26"]["points"] == 100 and cat["vehicles"]["FAI A/C"]["points"] == 60
    assert set(cat["kinds"]) == {"foot", "cavalry", "team", "vehicle", "aircraft"}


def test_attribute_costs_figures_priced_from_the_catalogue_are_accepted_at_that_price() -> None:
    state, action = buy_action()
    cat = action["catalogue"]
    carlists = cat["troop_types"]["Carlists"]["grades"][1]["points"]
    unit = {
        "kind": "foot",
        "troop_type": "Carlists",
        "grade": 1,
        "figures": 10,
        "attributes": ["ferocious"],
        "bombs": False,
        "lmg": 1,
    }
    assert set(unit) - {"kind"} == set(cat["kinds"]["foot"])
    price = (carlists + cat["attributes"]["ferocious"] + cat["per_figure"]["no_bombs"]) * 10
    assert bought(state, unit) == price + cat["lmg"] == 92
    falangists = cat["troop_types"]["Falangists"]["grades"][0]["points"]
    horse = {"kind": "cavalry", "troop_type": "Falangists", "figures": 5}
    assert bought(state, horse) == (falangists + cat["per_figure"]["cavalry"]) * 5


@pytest.mark.parametrize("kind", ["team", "vehicle"])
def test_attribute_costs_every_team_and_vehicle_offered_is_accepted_at_its_price(
    kind: str,
) -> None:
    state, action = buy_action(points=100_000)
    cat = action["catalogue"]
    if kind == "team":
        for weapon, price in cat["teams"].items():
            unit = {"kind": "team", "weapon": weapon, "troop_type": "Falangists"}
            assert bought(state, unit) == price["per_crew"] * cat["crew"]["default"]
    else:
        for name, spec in cat["vehicles"].items():
            assert bought(state, {"kind": "vehicle", "vehicle": name}) == spec["points"]
    assert bought(state, {"kind": "aircraft"}) == cat["aircraft"]["points"]


def test_attribute_costs_the_buy_template_offers_what_the_budget_affords() -> None:
    state, _ = buy_action(points=60)
    actions = SYSTEM.actions(state, NAT)
    [buy] = actions.of_type("buy")
    assert buy.label == "Buy a unit (60 points left)"
    offers = buy.choose["unit"]
    assert "A company of 10 Falangists (50 points)" in offers.labels
    assert "A company of 10 Militia (40 points)" not in offers.labels  # Republican troops
    assert "FAI A/C (60 points)" in offers.labels and "T26 (100 points)" not in offers.labels
    assert [(b.type, b.rule) for b in actions.blocked] == [("end_muster", "Attribute Costs")]
    for command, label in zip(buy.commands(), offers.labels, strict=True):
        fresh, _ = buy_action(points=60)
        assert f"({bought(fresh, command['unit'])} points)" in label
