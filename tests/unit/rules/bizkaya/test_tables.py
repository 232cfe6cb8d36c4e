"""The tables the rulebook names but does not print: placeholders that agree with its examples."""

from __future__ import annotations

from pathlib import Path

import pytest

from service.rules.base import InvalidCommand
from service.rules.bizkaya import tables
from tests.unit.rules.bizkaya.conftest import CHECKS, DRAWING, PREVIEWS

SCENARIO = Path("service/rules/bizkaya/scenarios/bizkaya-1937.json")


def test_13_example_20_against_3_rounds_down_to_6_to_1() -> None:
    assert tables.odds(20, 3).label == "6:1"
    assert tables.odds(7, 2).label == "3:1"  # 3.5 rounds down (13)


def test_13_example_dice_10_plus_3_in_forest_is_12_on_6_to_1_dr2_and_intensity_1_and_2() -> None:
    """13: 6:1 against a forest hex, attacking leader morale 5, defender 2, both dice 5."""
    situation = {
        "attacker_side": "nationalist",
        "attackers": [{"id": f"g{i}", "attack": 6, "morale": 3} for i in range(3)]
        + [{"id": "lacar", "attack": 2, "morale": 5}],
        "defenders": [{"id": "16-vasca", "defence": 3, "morale": 2}],
        "terrain": "forest",
        "dice": {"nationalist": 5, "republican": 5},
    }
    out = PREVIEWS.combat_preview(situation)
    assert (out["attack"], out["defence"], out["column"]) == (20, 3, "6:1")
    assert out["attacker_leader"] == "lacar"
    assert [(m["value"], m["rule"]) for m in out["modifiers"]] == [(3, "13"), (-1, "TEC")]
    assert (out["dice_total"], out["modified"], out["result"]) == (10, 12, "DR2")
    assert out["defender_losses"] == 1  # the Nationalist's 5 against morale 2
    assert out["attacker_losses"] == 2  # the Republican's 5 against morale 5


def test_12_example_14_factors_column_12_a_5_modified_to_4_is_one_step_and_a_check() -> None:
    out = PREVIEWS.combat_preview({"kind": "barrage", "factors": 14, "entrenched": True, "roll": 5})
    assert out["column"] == "12" and out["modified"] == 4 and out["result"] == "1"
    assert out["effect"]["steps"] == 1 and out["effect"]["check"] is True


def test_3_example_rainy_and_a_2_worsens_to_winter() -> None:
    assert tables.table("weather")["before_first_turn"] == "rainy"
    assert tables.next_weather("rainy", 2) == ("E", "winter")
    assert tables.next_weather("winter", 6)[1] == "rainy"  # improving goes one step (3)


def test_12_barrage_column_is_the_closest_not_higher() -> None:
    assert tables.barrage_column(14) == "12"
    assert tables.barrage_column(12) == "12"
    assert tables.barrage_column(0.5) is None


def test_tables_are_data_and_flag_their_placeholders() -> None:
    data = DRAWING.tables()
    assert data["crt"]["columns"][-1] == "6:1" and data["crt"]["placeholder"] is True
    assert {"crt", "intensity", "barrage", "weather", "terrain", "game"} <= set(data)
    places = {p["place"] for p in data["placeholders"]}
    assert "tables/crt.json.rows" in places and "tables/terrain.json.movement" in places


def test_check_scenario_file_reports_table_placeholders_and_no_error() -> None:
    report = CHECKS.check_scenario_file(str(SCENARIO))
    assert [r for r in report if r["level"] == "error"] == []
    warnings = {r["place"] for r in report if r["level"] == "warning"}
    assert {
        "tables/crt.json.rows",
        "tables/intensity.json.rows",
        "tables/barrage.json.rows",
        "tables/weather.json.rows",
    } <= warnings
    assert "map.terrain" in warnings


def test_a_replacement_table_that_contradicts_an_example_is_an_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    real = tables.table

    def wrong(name: str):  # type: ignore[no-untyped-def]
        data = real(name)
        if name == "weather":
            return {
                **data,
                "rows": [{"roll": r, "results": ["NC", "NC", "NC"]} for r in range(1, 7)],
            }
        return data

    monkeypatch.setattr(tables, "table", wrong)
    tables.weather_table.cache_clear()
    try:
        problems = tables.example_problems()
    finally:
        monkeypatch.undo()
        tables.weather_table.cache_clear()
    assert [p["place"] for p in problems] == ["tables/weather.json"]


def test_combat_preview_rejects_a_bad_situation() -> None:
    with pytest.raises(InvalidCommand) as info:
        PREVIEWS.combat_preview({"attackers": [], "defenders": [{"defence": 1, "morale": 2}]})
    assert "attackers" in info.value.details


def test_2_sequence_of_play_in_the_rulebook_s_words_with_the_phases_the_game_reports() -> None:
    """2: weather, the administrative segment, supply, the operations and reserve impulses, the
    final segment; every sentence is the rulebook's, every phase the game reports is on a row."""
    corpus = Path("faq/corpus/bizkaya-fall-of-the-north.txt").read_text(encoding="utf-8")
    start = corpus.index("2. Sequence of Play\n")
    rule = " ".join(corpus[start : corpus.index("Final Segment. Check", start) + 200].split())
    data = DRAWING.tables()["sequence"]
    assert data["rule"] == "2" and data["note"] in rule
    for step in data["steps"]:
        for sentence in step["text"].split(". "):
            assert sentence.rstrip(".") in rule, sentence
    phases = [p for s in data["steps"] for p in s["phases"]]
    assert phases == ["weather", "admin", "supply", "operations", "reserve"]
