"""The module's interfaces: registry, scenarios, combat preview, knowledge base, scenario check."""

from __future__ import annotations

import json

import pytest

from service.rules.base import InvalidCommand, RulesEvent
from service.rules.merida import SYSTEM
from service.rules.registry import build_registry
from tests.unit.rules.merida.conftest import board_state, play, unit

SITUATION = {
    "attackers": [{"type": "infantry", "strength": 6}, {"type": "armor", "strength": 2}],
    "defenders": [{"type": "infantry", "strength": 2, "strategic_moved": True}],
    "terrain": "clear",
    "settlement": "town",
    "across_river": False,
    "roll": 3,
}


def test_registered_as_merida():
    registry = build_registry()
    assert registry.get("merida") is SYSTEM
    assert (SYSTEM.name, SYSTEM.document) == ("merida", "merida")


def test_shipped_scenario_is_flagged_placeholder():
    [info] = SYSTEM.scenarios()
    assert (info.id, info.system, info.placeholder) == ("merida-1938", "merida", True)
    assert SYSTEM.default_options("merida-1938") == {
        "strategic_modifier": 2,
        "zoc_to_zoc": "same_unit",
        "decisions": "players",
        "leader_zoc": "none",
        "command_check": "B_and_D",
        "river_cost": "total",
        "combat_once_per": "player_turn",  # the rules module's own options (rulebook.OPTIONS)
        "armored_train": "unlimited",
    }


def test_8_combat_preview_odds_modifiers_with_rules_and_result():
    """Rule 8 and TEC: 8 vs 2 is 4-1; armor +1 (8), strategic +2 (8), town -1 (TEC); 3 + 2 = 5: D1."""
    preview = SYSTEM.previews.combat_preview(SITUATION)
    assert preview["column"] == "4-1"
    assert [(m["value"], m["rule"]) for m in preview["modifiers"]] == [
        (1, "8"),
        (2, "8"),
        (-1, "TEC"),
    ]
    assert (preview["modified_roll"], preview["result"]) == (5, "D1")


def test_combat_preview_without_a_roll_gives_no_result():
    preview = SYSTEM.previews.combat_preview({**SITUATION, "roll": None})
    assert "result" not in preview and preview["modifier_total"] == 2


def test_combat_preview_modified_roll_clamped_to_the_table():
    preview = SYSTEM.previews.combat_preview({**SITUATION, "settlement": None, "roll": 6})
    assert preview["modified_roll"] == 7


def test_combat_preview_refuses_bad_situations_with_field_reasons():
    with pytest.raises(InvalidCommand) as err:
        SYSTEM.previews.combat_preview(
            {
                "attackers": [{"type": "ship", "strength": -1}],
                "defenders": [],
                "roll": 9,
                "terrain": "sea",
            }
        )
    assert set(err.value.details) >= {
        "attackers[0].type",
        "attackers[0].strength",
        "defenders",
        "roll",
        "terrain",
    }
    with pytest.raises(InvalidCommand) as err:
        SYSTEM.previews.combat_preview(
            {
                "attackers": [{"type": "armor", "strength": 2}],
                "defenders": [{"type": "infantry", "strength": 1}],
            }
        )
    assert "rule 2" in err.value.details["attackers"][0]


def test_malformed_commands_raise_invalid_command():
    state = board_state([unit("a", "nationalist", "infantry", 3, "A1")])
    with pytest.raises(InvalidCommand) as err:
        SYSTEM.decide(
            state, "nationalist", {"type": "move", "units": ["zz"], "path": ["A1", "Q99"]}, None
        )
    assert set(err.value.details) == {"units", "path"}
    with pytest.raises(InvalidCommand):
        SYSTEM.decide(state, "nationalist", {"type": "fly"}, None)


def test_every_emitted_event_type_is_governed_and_described():
    for spec in SYSTEM.events:
        governing = SYSTEM.governing(spec.type)
        assert governing.sections and governing.topics, spec.type
        assert spec.words is not None, spec.type


def test_capabilities_are_declared():
    """No hidden information; drawing, previews and scenario checks offered."""
    assert SYSTEM.hidden_information is False
    assert SYSTEM.drawing is not None and SYSTEM.previews is not None
    assert SYSTEM.scenario_checks is not None
    assert set(SYSTEM.drawing.tables()) >= {"crt", "tec", "movement", "victory_levels", "air"}
    assert SYSTEM.drawing.board("merida-1938")


def test_event_facts_and_description_of_a_combat():
    units = [
        unit("a", "nationalist", "infantry", 6, "E4"),
        unit("d", "republican", "infantry", 3, "E5"),
    ]
    state = board_state(
        units,
        phase="combat",
        hex_features={"E5": ["town"]},
        hexsides=[{"hexes": ["E4", "E5"], "features": ["river"]}],
    )
    before = json.loads(json.dumps(state))
    [event] = play(state, "nationalist", {"type": "attack", "attackers": ["a"], "hex": "E5"}, [6])
    facts = SYSTEM.event_facts(event, before)
    assert {
        "town",
        "attacker infantry",
        "defender infantry",
        "across river",
        f"result {event.data['result']}",
    } <= set(facts)
    assert SYSTEM.governing("CombatResolved").sections[0] == "8"
    words = SYSTEM.describe(event, before)
    assert "attacks E5" in words and "roll 6" in words


def test_describe_every_kind_of_event_in_words():
    assert (
        SYSTEM.describe(
            RulesEvent("PhaseBegan", {"turn": 3, "side": "republican", "phase": "air_defense"})
        )
        == "Turn 3: Republican air defense phase"
    )


def test_events_in_printed_names_and_place_names():
    """Sentences name units by their printed names and hexes by the place standing there."""
    state = SYSTEM.initial_state("merida-1938", {})
    moved = RulesEvent(
        "UnitsMoved",
        {
            "side": "nationalist",
            "units": ["n-19-div"],
            "path": ["O10", "O9", "J7"],
            "mode": "tactical",
        },
    )
    assert SYSTEM.describe(moved, state) == "19 Div moves from Zorita (O10) to Trujilo (J7)"
    combat = RulesEvent(
        "CombatResolved",
        {
            "side": "nationalist",
            "hex": "S16",
            "attackers": ["n-19-div", "n-solans"],
            "defenders": ["r-1-25"],
            "column": "3-1",
            "die": {"index": 1, "sides": 6, "value": 4, "purpose": "combat"},
            "modified_roll": 5,
            "result": "A2",
            "eliminated": ["r-1-25"],
            "retreats": [],
        },
    )
    assert SYSTEM.describe(combat, state) == (
        "19 Div and Solans (L) attack Casas de Don Pedro (S16) at 3-1: roll 4 (modified 5): A2; "
        "1/25 eliminated"
    )
    for spec in SYSTEM.events:
        assert spec.words is not None


def test_check_scenario_file_reports_placeholders_and_errors(tmp_path):
    from service.rules.merida.setup import scenario_path

    report = SYSTEM.scenario_checks.check_scenario_file(str(scenario_path("merida-1938")))
    places = {r["place"] for r in report if r["level"] == "warning"}
    assert {"turns", "map.default_terrain", "units[1].values.strength"} <= places
    assert not [r for r in report if r["level"] == "error"]
    raw = json.loads(scenario_path("merida-1938").read_text())
    raw["units"][1]["hex"] = "ZZ99"
    raw["units"][2]["type"] = "ship"
    del raw["units"][3]["values"]["strength"]
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(raw))
    errors = {
        r["place"]
        for r in SYSTEM.scenario_checks.check_scenario_file(str(bad))
        if r["level"] == "error"
    }
    assert errors == {"units[1].hex", "units[2].type", "units[3].values.strength"}


def test_json_state_only_plain_values():
    state = SYSTEM.initial_state("merida-1938", {})
    assert json.loads(json.dumps(state)) == state
