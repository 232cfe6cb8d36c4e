"""Force building (Troop Type, Attribute Costs, GENERATING A COLUMN) and the SEQUENCE OF PLAY's
written orders, their transmission and late arrivals."""

from __future__ import annotations

import pytest

from service.rules.barcelona import SYSTEM, forces, orders
from service.rules.base import InvalidCommand, RulesEvent, RuleViolation
from tests.unit.rules.barcelona.conftest import NAT, REP, foot, play, run, table_state, types


def test_generating_a_column_row_6_with_mg_and_field_gun_and_tow():
    """GENERATING A COLUMN: die 6 = 3 OF 16; MG on 2-6; specials on 5,6, then 6 = Field Gun (& tow)."""
    state = SYSTEM.initial_state("skirmish", {})
    [event] = run(
        forces.generate_column,
        state,
        NAT,
        {"type": "generate_column", "troop_type": "Falangists"},
        [6, 2, 5, 6],
    )
    kinds = [
        (u["kind"], u["figures"], u["weapons"][0] if u["weapons"] else None)
        for u in event.data["units"]
    ]
    assert kinds == [("foot", 16, "Rifle")] * 3 + [
        ("team", 3, "HMG"),
        ("team", 3, "Field Gun"),
        ("vehicle", 1, None),
    ]
    assert (
        event.data["special"] == "Field Gun (& tow)"
        and event.data["units"][-1]["vehicle"] == "Lorry"
    )
    assert [u["morale"] for u in event.data["units"][:3]] == [3, 3, 3]


def test_generating_a_column_row_1_without_mg_or_specials():
    """GENERATING A COLUMN: die 1 = 2 OF 12, MG only on 5,6, no specials on any die."""
    state = SYSTEM.initial_state("skirmish", {})
    [event] = run(
        forces.generate_column,
        state,
        REP,
        {"type": "generate_column", "troop_type": "Militia"},
        [1, 4, 6],
    )
    assert [u["figures"] for u in event.data["units"]] == [12, 12] and not event.data["mg"]


def test_generating_a_column_tank_special_uses_the_scenario_or_chosen_tank():
    """GENERATING A COLUMN Specials: 4 = Tank (the AFVs table type named by the command)."""
    state = SYSTEM.initial_state("skirmish", {})
    cmd = {"type": "generate_column", "troop_type": "Militia", "tank": "BT5"}
    [event] = run(forces.generate_column, state, REP, cmd, [3, 1, 6, 4])
    tank = event.data["units"][-1]
    assert (tank["vehicle"], tank["class"], tank["points"]) == ("BT5", "A", 100)
    with pytest.raises(InvalidCommand) as err:  # an armoured car is not a tank
        play(state, REP, {"type": "generate_column", "troop_type": "Militia", "tank": "FAI A/C"})
    assert "tank" in err.value.details


def test_troop_type_points_and_attribute_costs():
    """Troop Type points per figure; Attribute Costs: Stubborn +2, Cav +2, No bombs -1, Lmg 12."""
    assert forces.figures_unit("a", NAT, "Moors", 0, 10)["points"] == 110
    assert forces.figures_unit("a", NAT, "Carlists", 1, 10)["points"] == 60
    u = forces.figures_unit(
        "a", NAT, "Militia", 0, 10, extra=["stubborn", "cavalry"], bombs=False, lmg=1
    )
    assert u["points"] == 10 * (4 + 2 + 2 - 1) + 12 and u["kind"] == "cavalry"
    assert (
        forces.team_unit("t", NAT, "HMG", "Militia", 0, crew=4)["points"] == 32
    )  # MG 8 times crew
    assert (
        forces.team_unit("t", NAT, "Field Gun", "Militia", 0, crew=4)["points"] == 24
    )  # Gun 6 times crew
    assert (
        forces.vehicle_unit("v", NAT, "FAI A/C")["points"] == 60
        and forces.aircraft_unit("p", NAT)["points"] == 150
    )


def test_buying_within_the_points_only():
    """Attribute Costs: a force bought with the scenario's points refuses what it cannot afford."""
    state = SYSTEM.initial_state("skirmish", {"forces": "points", "points": 120})
    play(
        state, NAT, {"type": "buy", "unit": {"kind": "foot", "troop_type": "Moors", "figures": 10}}
    )
    assert state["budget"][NAT] == 10
    with pytest.raises(RuleViolation) as err:
        play(state, NAT, {"type": "buy", "unit": {"kind": "vehicle", "vehicle": "T26"}})
    assert err.value.rule == "Attribute Costs"
    with pytest.raises(RuleViolation):
        play(state, NAT, {"type": "generate_column", "troop_type": "Moors"})


def test_written_orders_are_hidden_from_the_other_side_until_revealed():
    """SEQUENCE OF PLAY: write orders; the other side sees neither the order nor its content."""
    state = table_state(foot("n1", NAT, 10, 5), foot("r1", REP, 10, 31), phase="orders")
    [event] = play(
        state,
        NAT,
        {"type": "write_orders", "orders": {"n1": {"text": "take the farm", "move": True}}},
    )
    assert SYSTEM.event_view(event, state, REP).data == {"side": NAT, "units": 1, "hidden": True}
    assert SYSTEM.event_view(event, state, NAT).data["orders"]["n1"]["text"] == "take the farm"
    assert SYSTEM.view(state, REP)["written"][NAT] == {"hidden": 1}
    assert SYSTEM.view(state, None)["written"][NAT] == {"hidden": 1}
    assert not SYSTEM.reveals(event)


def test_transmission_roll_then_late_arrivals_then_movement():
    """SEQUENCE OF PLAY: write and dice for transmission of orders; dice for late arrivals."""
    state = table_state(
        foot("n1", NAT, 10, 5), foot("r1", REP, 10, 31), foot("r2", REP, 0, 0), phase="orders"
    )
    state["units"]["r2"]["status"] = "reserve"
    play(state, NAT, {"type": "write_orders", "orders": {"n1": {"text": "hold", "move": False}}})
    events = play(
        state, REP, {"type": "write_orders", "orders": {"r1": {"text": "advance"}}}, [2, 3, 4]
    )
    assert types(events) == [
        "OrdersWritten",
        "TransmissionRolled",
        "LateArrivalsRolled",
        "PhaseBegan",
    ]
    results = {r["unit"]: r["arrived"] for r in events[1].data["results"]}
    assert results == {"n1": True, "r1": False}  # Militia tactical 2: 2 arrives, 3 does not
    assert state["units"]["r2"]["status"] == "table" and (
        state["units"]["r2"]["x"],
        state["units"]["r2"]["y"],
    ) == (24, 35.5)
    assert (
        state["phase"] == "movement" and state["mover"] == REP
    )  # n1's order is to hold: nothing to move
    assert SYSTEM.view(state, REP)["orders"][NAT]["n1"] == {"hidden": True, "turn": 1}
    with pytest.raises(RuleViolation):
        play(state, NAT, {"type": "roll_move", "unit": "n1"})


def test_orders_revealed_at_the_end_of_the_turn_end_a_takeback():
    event = RulesEvent("OrdersRevealed", {"turn": 1, "orders": {}})
    assert SYSTEM.reveals(event)


def test_late_arrival_fails_below_the_number():
    state = table_state(foot("r2", REP, 0, 0))
    state["units"]["r2"]["status"] = "reserve"
    from tests.support.dice import ScriptedDice

    event = orders.late_arrivals(state, ScriptedDice([3]))
    assert event is not None and event.data["results"][0]["arrived"] is False


@pytest.mark.parametrize(
    ("side", "troop_type", "camp"),
    [
        (REP, "Falangists", "Nationalist"),
        (REP, "Moors", "Nationalist"),
        (NAT, "Militia", "Republican"),
        (NAT, "International Bde.", "Republican"),
    ],
)
def test_troop_type_the_names_say_which_side_fields_them(side, troop_type, camp):
    """Troop Type table: the sheet prints no side, but its names say who fields them -- Falangists
    and Moors fought for the Nationalists, Militia and the International Brigades for the Republic.
    A side may not raise a column of, or buy, the other side's troops; the actions offer each side
    only its own (and the types that served both: Assaltos, Garda Civil, Regulares)."""
    state = SYSTEM.initial_state("skirmish", {})
    with pytest.raises(RuleViolation) as err:
        play(state, side, {"type": "generate_column", "troop_type": troop_type})
    assert err.value.rule == "Troop Type" and err.value.field == "troop_type"
    assert f"{troop_type} fight for the {camp} side" in err.value.message
    [template] = SYSTEM.actions(state, side).of_type("generate_column")
    offered = template.choose["troop_type"].options
    assert troop_type not in offered and {"Assaltos", "Garda Civil", "Regulares"} <= set(offered)
    bought = SYSTEM.initial_state("skirmish", {"forces": "points", "points": 500})
    unit = {"kind": "foot", "troop_type": troop_type, "figures": 10}
    with pytest.raises(RuleViolation) as err:
        play(bought, side, {"type": "buy", "unit": unit})
    assert err.value.rule == "Troop Type" and err.value.field == "unit.troop_type"
    other = NAT if side == REP else REP
    play(state, other, {"type": "generate_column", "troop_type": troop_type}, [1, 1, 1])
    assert {u["troop_type"] for u in state["units"].values()} == {troop_type}
