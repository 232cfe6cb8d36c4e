"""The module's interfaces: registry, scenario, table board (no hexes), counters with positions,
tables, combat preview, governing headings, facts and descriptions, plain JSON state."""

from __future__ import annotations

import json

import pytest

from service.rules.barcelona import SYSTEM, events, knowledge
from service.rules.base import InvalidCommand, ScenarioError
from service.rules.registry import build_registry
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
    assert build_registry().get("barcelona") is SYSTEM and SYSTEM.document == "barcelona"
    [info] = SYSTEM.scenarios()
    assert (info.id, info.placeholder, info.sides) == (
        "skirmish",
        True,
        ("nationalist", "republican"),
    )
    with pytest.raises(ScenarioError):
        SYSTEM.initial_state("skirmish", {"forces": "draft"})


def test_board_is_a_table_in_inches_without_hexes():
    board = SYSTEM.board("skirmish")
    assert (board["kind"], board["width"], board["height"], board["units"]) == (
        "table",
        48,
        36,
        "inches",
    )
    assert "hexes" not in board and {a["id"] for a in board["areas"]} >= {"wood", "trench", "road"}


def test_counters_have_positions_and_figures():
    state = table_state(foot("n1", NAT, 30, 5, figures=3), foot("r1", REP, 30, 20))
    [c, _] = SYSTEM.counters(state)
    assert (c["x"], c["y"], c["values"]["figures"]) == (30, 5, 3) and c["figures"] == [
        [29.0, 5.0],
        [30.0, 5.0],
        [31.0, 5.0],
    ]


def test_combat_preview_of_a_shot_and_of_an_afv_shot():
    preview = SYSTEM.combat_preview(
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
    afv = SYSTEM.combat_preview(
        {"weapon": "HMG", "distance": 10, "target": {"kind": "afv", "class": "A"}, "rolls": [6, 6]}
    )
    assert afv["ko"] == [12] and afv["results"][0]["ko"]
    with pytest.raises(InvalidCommand) as err:
        SYSTEM.combat_preview({"weapon": "Ray gun", "distance": -1, "target": {"kind": "afv"}})
    assert set(err.value.details) == {"weapon", "distance", "target.class"}


def test_every_event_type_is_governed_by_the_sheets_headings():
    assert set(knowledge.GOVERNING) == set(events.HANDLERS)
    for event_type in events.HANDLERS:
        governing = SYSTEM.governing(event_type)
        assert governing.sections and set(governing.sections) <= HEADINGS, event_type


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
    assert SYSTEM.describe(event) == "n1 fires Rifle: r1 -1"


def test_state_is_plain_json():
    state = SYSTEM.initial_state("skirmish", {})
    assert json.loads(json.dumps(state)) == state


def test_sequence_of_play_written_orders_are_worded_for_the_writer_the_other_side_and_the_reveal() -> (
    None
):
    """SEQUENCE OF PLAY: written orders stay hidden until revealed; the log words each stage."""
    from service.rules.barcelona import SYSTEM
    from service.rules.base import RulesEvent

    orders = {
        "u1": {"text": "hold the ridge", "move": False},
        "u2": {"text": "advance", "move": True},
    }
    written = RulesEvent("OrdersWritten", {"side": "nationalist", "orders": orders})
    assert (
        SYSTEM.describe(written)
        == "nationalist wrote orders: u1 “hold the ridge” (no move); u2 “advance”"
    )
    hidden = RulesEvent("OrdersWritten", {"side": "nationalist", "units": 2, "hidden": True})
    assert (
        SYSTEM.describe(hidden)
        == "nationalist wrote orders for 2 units (hidden until they are revealed)"
    )
    revealed = RulesEvent(
        "OrdersRevealed", {"turn": 1, "orders": {"nationalist": orders, "republican": {}}}
    )
    assert SYSTEM.describe(revealed).startswith("Orders revealed: nationalist: u1 “hold the ridge”")
    assert SYSTEM.describe(revealed).endswith("republican: none")
