"""Governing rules, facts and descriptions of events; tables; scenario files and placeholders (18)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from service.rules.backbone import SYSTEM
from service.rules.backbone.setup import scenario_path
from service.rules.base import InvalidCommand, RulesEvent, ScenarioError
from service.rules.registry import build_registry
from tests.unit.rules.backbone.fixtures import play


def test_registry_ships_backbone() -> None:
    system = build_registry().get("backbone")
    assert system is SYSTEM and system.document == "backbone"


def test_18_two_scenarios_marked_as_placeholder() -> None:
    infos = SYSTEM.scenarios()
    assert [i.id for i in infos] == ["scenario-1", "scenario-2"]
    assert all(i.placeholder and i.sides == ("allied", "spanish") for i in infos)


def test_18_unknown_scenario_and_option() -> None:
    with pytest.raises(ScenarioError):
        SYSTEM.initial_state("scenario-3", {})
    with pytest.raises(ScenarioError) as err:
        SYSTEM.initial_state("scenario-1", {"fog": True})
    assert "options.fog" in err.value.problems


def test_18_2_scenario_2_deploys_the_whole_kampfgruppe_from_the_start() -> None:
    """18.2: "in addition to the units referred to in scenario 1, the 754th RI / 334th DI, and the
    1st Panzer Battalion ... The entire KG is deployed from the beginning of the game, located in
    the area of responsibility of the IX Spanish CE and under its command." So the 5th FJR and
    756th GJR (scenario 1's turn 2 and 3 reinforcements, 18.1) are on the map at the start, and
    the Spanish deployment with them where the file sets them is accepted (18.1's IX CE area)."""
    one = SYSTEM.initial_state("scenario-1", {})
    two = SYSTEM.initial_state("scenario-2", {})
    assert set(two["units"]) - set(one["units"]) == {"de-754ri", "de-pz"}
    kampfgruppe = ("de-5fjr", "de-756gjr", "de-754ri", "de-pz")
    for uid in kampfgruppe:
        unit = two["units"][uid]
        assert unit["status"] == "map" and unit["formation"] == "IX CE", uid
    assert not [r for r in two["reinforcements"] if r["unit"] in kampfgruppe]
    assert [r["unit"] for r in one["reinforcements"] if r["unit"].startswith("de-")] == [
        "de-5fjr",
        "de-756gjr",
    ]  # 18.1: in scenario 1 they still arrive on turns 2 and 3
    play(two, "spanish", {"type": "deploy"})
    assert two["step"] == "allied_deployment"


def test_check_scenario_file_reports_placeholders_and_backbone_problems(tmp_path: Path) -> None:
    report = SYSTEM.scenario_checks.check_scenario_file(str(scenario_path("scenario-1")))
    assert not [r for r in report if r["level"] == "error"]
    places = {r["place"] for r in report if r["level"] == "warning"}
    assert "map.terrain" in places and "units[1].values.mp" in places
    assert "units[1].values.attack" not in places  # the 58th RI's factors come from the example
    data = json.loads(scenario_path("scenario-1").read_text())
    data["data"]["units"].pop("es-58ri")
    data["units"][1]["hex"] = {"placeholder": True, "value": "3,1", "note": "x"}
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(data))
    errors = [
        r for r in SYSTEM.scenario_checks.check_scenario_file(str(bad)) if r["level"] == "error"
    ]
    assert {e["place"] for e in errors} == {"units[1]", "units[1].hex"}


def test_governing_cites_rule_sections() -> None:
    assert "16.6" in SYSTEM.governing("CombatResolved").sections
    assert "16.5" in SYSTEM.governing("LastStandRolled").sections
    assert SYSTEM.governing("Nothing").sections == ()


def test_every_event_type_applied_is_governed_by_a_rule_section() -> None:
    assert SYSTEM.events.types()
    for event_type in SYSTEM.events.types():
        assert SYSTEM.governing(event_type).sections, event_type


def test_describe_and_facts() -> None:
    st = SYSTEM.initial_state("scenario-1", {})
    moved = RulesEvent(
        "UnitMoved",
        {
            "unit": "us-7ri",
            "path": ["11,3", "10,3"],
            "cost": 1.0,
            "mp": 3,
            "ignored_zoc": [],
            "zoc_to_zoc": False,
        },
    )
    name = st["units"]["us-7ri"]["name"]
    assert SYSTEM.describe(moved, st) == f"{name} moves from 11,3 to 10,3 (1 of 3 MP)"
    assert SYSTEM.event_facts(moved, st) == ["infantry", "us"]


def test_tables_served() -> None:
    tables = SYSTEM.drawing.tables()
    assert {"crt", "terrain", "weather", "strait", "supports", "events", "replacements"} <= set(
        tables
    )
    assert tables["terrain"]["terrain"]["mountain"]["stacking"] == 8


def test_combat_preview_invalid_situations() -> None:
    with pytest.raises(InvalidCommand) as err:
        SYSTEM.previews.combat_preview({"attacker_side": "french"})
    assert "attacker_side" in err.value.details
    with pytest.raises(InvalidCommand) as err:
        SYSTEM.previews.combat_preview(
            {"attacker_side": "allied", "attackers": [], "defenders": []}
        )
    assert "attackers" in err.value.details


def test_8_2_sequence_of_play_is_the_rulebook_s_with_the_steps_the_game_reports() -> None:
    """8.2: the administrative phase's segments, then the Allied and Spanish sub-phases, in the
    rulebook's words; every step the turn goes through (``sequence.turn_steps``) is on one row."""
    from service.rules.backbone import sequence

    corpus = Path(__file__).parents[4] / "faq" / "corpus" / "operation-backbone.txt"
    text = corpus.read_text(encoding="utf-8")
    start = text.index("8.2. Game sequence")
    rule = text[start : text.index("9. Headquarters", start)]
    table = SYSTEM.drawing.tables()["sequence"]
    assert table["rule"] == "8.2" and table["note"].split(". ")[0].lower() in rule.lower()
    for step in table["steps"]:
        assert step["text"] in rule, step["name"]
    listed = [p for s in table["steps"] for p in s["phases"]]
    assert len(listed) == len(set(listed))
    for info in SYSTEM.scenarios():
        st = SYSTEM.initial_state(info.id, SYSTEM.default_options(info.id))
        for turn in (1, 2):
            st["turn"] = turn
            assert set(sequence.turn_steps(st)) <= set(listed), info.id
