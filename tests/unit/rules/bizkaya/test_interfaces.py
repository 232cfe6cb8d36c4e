"""The contract's interfaces: registry, previews, board, knowledge, legal actions, replay."""

from __future__ import annotations

import pytest

from service.rules.base import InvalidCommand, RuleViolation
from service.rules.bizkaya import SYSTEM
from service.rules.registry import build_registry
from tests.support.dice import ScriptedDice
from tests.unit.rules.bizkaya.conftest import DRAWING, PREVIEWS, board_state, play, ready, unit
from tests.unit.rules.bizkaya.test_combat import example


def test_registered_as_bizkaya_with_its_document() -> None:
    system = build_registry().get("bizkaya")
    assert system.document == "bizkaya"
    info = system.scenarios()[0]
    assert (
        info.id == "bizkaya-1937"
        and info.placeholder is True
        and info.sides == ("nationalist", "republican")
    )


def test_13_preview_of_an_attack_on_the_board() -> None:
    state = example()
    preview = PREVIEWS.preview(
        state,
        "nationalist",
        {"type": "attack", "hex": "0404", "units": ["g1", "g2", "g3", "lacar"]},
    )
    assert (
        preview["column"] == "6:1"
        and preview["cost"] == 3
        and preview["attacker_leader"] == "lacar"
    )
    assert [(m["value"], m["rule"]) for m in preview["modifiers"]] == [(3, "13"), (-1, "TEC")]
    with pytest.raises(RuleViolation):
        PREVIEWS.preview(state, "nationalist", {"type": "attack", "hex": "0404", "units": ["v16"]})
    with pytest.raises(InvalidCommand):
        PREVIEWS.preview(state, "nationalist", {"type": "move"})


def test_12_preview_of_a_barrage() -> None:
    units = [
        unit("n1", "nationalist", "0304"),
        unit("g", "nationalist", "0304", kind="artillery-heavy", barrage=14, steps=1),
    ]
    units.append(unit("r1", "republican", "0404"))
    state = ready(board_state(units), "nationalist")
    state["trenches"]["0404"] = {"side": "republican", "status": "complete", "unit": None}
    preview = PREVIEWS.preview(
        state, "nationalist", {"type": "barrage", "hex": "0404", "artillery": ["g"]}
    )
    assert preview["column"] == "12" and preview["modifier_total"] == -1


def test_board_knowledge_and_descriptions() -> None:
    board = DRAWING.board("bizkaya-1937")
    assert board["coordinates"] == "four-digit" and any(h["hex"] == "1404" for h in board["hexes"])
    names = {p["name"] for p in board["places"]}
    assert {
        "Bilbao",
        "Baracaldo/Sestao",
        "Vitoria",
        "Guecho",
        "Portugalete",
        "Bermeo",
        "Orduna",
        "Guernica",
    } <= names
    state = example()
    events = play(
        state,
        "nationalist",
        {"type": "attack", "hex": "0404", "units": ["g1", "g2", "g3", "lacar"]},
    )
    before = example()
    events += play(state, "nationalist", {"type": "choose_leader", "unit": "lacar"}, dice=[5, 5])
    resolved = next(e for e in events if e.type == "CombatResolved")
    assert "13" in SYSTEM.governing("CombatResolved").sections
    assert "odds 6:1" in SYSTEM.event_facts(resolved, before) and "forest" in SYSTEM.event_facts(
        resolved, before
    )
    assert "DR2" in SYSTEM.describe(resolved, before)
    assert SYSTEM.reveals(resolved) is False  # nothing is hidden in Bizkaya
    for e in events:
        assert SYSTEM.governing(e.type).sections


def test_actions_list_moves_attacks_and_barrages_that_decide_accepts() -> None:
    units = [
        unit("n1", "nationalist", "0304"),
        unit("g", "nationalist", "0304", kind="artillery-heavy", barrage=14, steps=1),
    ]
    units.append(unit("r1", "republican", "0404"))
    state = ready(board_state(units), "nationalist")
    actions = SYSTEM.actions(state, "nationalist")
    assert {"move", "barrage", "attack", "end_impulse", "stop_operations"} <= set(actions.types())
    assert not SYSTEM.actions(state, "republican")
    move = actions.of_type("move")[0]
    path = move.choose["path"].options[0]
    play(state, "nationalist", move.command(path=path))
    assert state["units"]["n1"]["hex"] == path[-1]


def test_replay_of_recorded_events_rebuilds_the_state() -> None:
    state = example()
    start = example()
    events = play(
        state,
        "nationalist",
        {"type": "attack", "hex": "0404", "units": ["g1", "g2", "g3", "lacar"]},
    )
    events += play(state, "nationalist", {"type": "choose_leader", "unit": "lacar"}, dice=[5, 5])
    for e in events:
        SYSTEM.apply(start, e)
    assert start == state


def test_malformed_commands_name_the_field() -> None:
    state = example()
    with pytest.raises(InvalidCommand) as info:
        SYSTEM.decide(
            state,
            "nationalist",
            {"type": "attack", "hex": "9999", "units": ["nobody"]},
            ScriptedDice(),
        )
    assert {"hex", "units"} <= set(info.value.details)
