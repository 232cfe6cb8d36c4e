"""The module's interfaces: registry, scenario, table board (no hexes), counters with positions,
tables, combat preview, governing headings, facts and descriptions, plain JSON state."""

from __future__ import annotations

import json

import pytest

from service.rules.barcelona import SYSTEM
from service.rules.base import InvalidCommand, ScenarioError
from service.rules.registry import Registry
from tests.unit.rules.barcelona.conftest import NAT, REP, foot, table_state

HEADINGS = {
    "SEQUENCE OF PLAY",
    "MOVEMENT",
    "SHOOTING",
    "CLOSE COMBAT",
    "MORALE",
    "WEAPONS LIST",
    "AFVs",
    "Troop Type",
    "Attribute Costs",
    "GENERATING A COLUMN",
}


def test_registered_as_barcelona_with_a_placeholder_scenario():
    registry = Registry()
    registry.load_plugin("service.rules.barcelona")
    assert registry.get("barcelona") is SYSTEM and SYSTEM.document == "barcelona"
    [info] = SYSTEM.scenarios()
    assert (info.id, info.placeholder, info.sides) == (
        "skirmish",
        True,
        ("nationalist", "republican"),
    )
    with pytest.raises(ScenarioError):
        SYSTEM.initial_state("skirmish", {"forces": "draft"})


def test_board_is_a_table_in_inches_without_hexes():
    assert SYSTEM.drawing is not None and SYSTEM.scenario_checks is not None  # issue 18
    board = SYSTEM.drawing.board("skirmish")
    assert (board["kind"], board["width"], board["height"], board["units"]) == (
        "table",
        48,
        36,
        "inches",
    )
    assert "hexes" not in board and {a["id"] for a in board["areas"]} >= {"wood", "trench", "road"}


def test_counters_have_positions_and_figures():
    state = table_state(foot("n1", NAT, 30, 5, figures=3), foot("r1", REP, 30, 20))
    assert SYSTEM.drawing is not None
    [c, _] = SYSTEM.drawing.counters(state)
    assert (c["x"], c["y"], c["values"]["figures"]) == (30, 5, 3) and c["figures"] == [
        [29.0, 5.0],
        [30.0, 5.0],
        [31.0, 5.0],
    ]


def test_combat_preview_of_a_shot_and_of_an_afv_shot():
    assert SYSTEM.previews is not None
    preview = SYSTEM.previews.combat_preview(
        {
            "weapon": "Rifle",
            "distance": 8,
            "target": {"kind": "figures", "cover": True},
            "rolls": [5, 6],
        }
    )
    assert (
        preview["needed"] == 4
        and preview["modifier_total"] == -2
        and [r["hit"] for r in preview["results"]] == [False, True]
    )
    afv = SYSTEM.previews.combat_preview(
        {"weapon": "HMG", "distance": 10, "target": {"kind": "afv", "class": "A"}, "rolls": [6, 6]}
    )
    assert afv["ko"] == [12] and afv["results"][0]["ko"]
    with pytest.raises(InvalidCommand) as err:
        SYSTEM.previews.combat_preview({"weapon": "Ray gun", "distance": -1})
    assert set(err.value.details) == {"weapon", "distance"}
    with pytest.raises(InvalidCommand) as err:
        SYSTEM.previews.combat_preview({"weapon": "HMG", "distance": 1, "target": {"kind": "afv"}})
    assert set(err.value.details) == {"target.class"}
    with pytest.raises(InvalidCommand) as err:
        SYSTEM.previews.combat_preview({"weapon": "HMG", "distance": 1, "rolls": [7]})
    assert set(err.value.details) == {"rolls[0]"}


def test_every_event_type_is_governed_by_the_sheets_headings():
    for spec in SYSTEM.events:
        governing = SYSTEM.governing(spec.type)
        assert governing.sections and set(governing.sections) <= HEADINGS, spec.type
        assert spec.words is not None, spec.type


def test_event_facts_and_description_of_a_shot():
    state = table_state(foot("n1", NAT, 35, 13), foot("r1", REP, 35, 18), step="infantry")
    from tests.unit.rules.barcelona.conftest import play

    [event, *_] = play(
        state,
        NAT,
        {"type": "shoot", "unit": "n1", "weapon": "Rifle", "targets": [{"unit": "r1", "dice": 6}]},
        [6, 1, 1, 1, 1, 1],
    )
    before = table_state(foot("n1", NAT, 35, 13), foot("r1", REP, 35, 18), step="infantry")
    facts = SYSTEM.event_facts(event, before)
    assert {"Rifle", "target in cover", "Militia", "cover"} <= set(facts)
    assert SYSTEM.describe(event, before) == (
        "Militia company 1 fires its Rifle at Militia company 1: Militia company 1 loses 1 figure"
    )


def test_state_is_plain_json():
    state = SYSTEM.initial_state("skirmish", {})
    assert json.loads(json.dumps(state)) == state


def test_sequence_of_play_written_orders_are_worded_for_the_writer_the_other_side_and_the_reveal() -> (
    None
):
    """SEQUENCE OF PLAY: written orders stay hidden until revealed; the log words each stage by
    the units' printed names."""
    from service.rules.base import RulesEvent

    state = table_state(
        foot("u1", NAT, 10, 5, troop="Falangists"), foot("u2", NAT, 20, 5), phase="orders"
    )
    orders = {
        "u1": {"text": "hold the ridge", "move": False},
        "u2": {"text": "advance", "move": True},
    }
    written = RulesEvent("OrdersWritten", {"side": "nationalist", "orders": orders})
    assert SYSTEM.describe(written, state) == (
        "Nationalist wrote orders: Falangists company 1 “hold the ridge” (no move); "
        "Militia company 2 “advance”"
    )
    hidden = SYSTEM.event_view(written, state, REP)
    assert hidden.data == {"side": "nationalist", "units": 2, "hidden": True}
    assert (
        SYSTEM.describe(hidden, state)
        == "Nationalist wrote orders for 2 units (hidden until they are revealed)"
    )
    assert SYSTEM.event_view(written, state, NAT).data == written.data
    revealed = RulesEvent(
        "OrdersRevealed", {"turn": 1, "orders": {"nationalist": orders, "republican": {}}}
    )
    assert SYSTEM.describe(revealed, state).startswith(
        "Orders revealed: Nationalist: Falangists company 1 “hold the ridge”"
    )
    assert SYSTEM.describe(revealed, state).endswith("Republican: none")
    assert SYSTEM.reveals(revealed) and not SYSTEM.reveals(written)
    assert SYSTEM.hidden_information
