"""The administrative phase: weather (10.1, 3, 19.1), air and naval points (16.4), the Strait (11),
supply (12), reinforcements (13.1) and HQ recovery (9.1)."""

from __future__ import annotations

import pytest

from service.rules.backbone import SYSTEM, admin
from service.rules.backbone import geography as geo
from service.rules.backbone.supply import determine
from tests.support.dice import ScriptedDice
from tests.unit.rules.backbone.fixtures import REQUIRED_CITIES, board, counter, first, play, state


def scenario_state(scenario: str = "scenario-1", **options: object) -> dict:
    st = SYSTEM.initial_state(scenario, options)
    play(st, "spanish", {"type": "deploy", "fortifications": []})
    play(st, "allied", {"type": "deploy"})
    return st


def test_3_turn_1_weather_is_good_without_a_roll() -> None:
    st = scenario_state()
    events = play(st, "allied", {"type": "begin_turn"}, [1])  # the only die is the chit draw
    assert first(events, "WeatherDetermined") == {"weather": "good", "rule": "3"}


@pytest.mark.parametrize(("die", "weather"), [(1, "good"), (4, "good"), (5, "bad"), (6, "bad")])
def test_10_1_weather_table(die: int, weather: str) -> None:
    st = scenario_state()
    st["turn"] = 2
    assert admin.weather(st, ScriptedDice([die]))[0].data["weather"] == weather


def test_19_1_harsher_winter_adds_1() -> None:
    st = scenario_state(harsher_winter=True)
    st["turn"] = 2
    assert admin.weather(st, ScriptedDice([4]))[0].data["weather"] == "bad"


def test_16_4_air_points_6_and_1_and_bad_weather_2_and_0_no_naval() -> None:
    st = scenario_state()
    assert admin.support_points(st, "good").data == {
        "air": {"allied": 6, "spanish": 1},
        "naval": 2,
        "weather": "good",
    }
    assert admin.support_points(st, "bad").data == {
        "air": {"allied": 2, "spanish": 0},
        "naval": 0,
        "weather": "bad",
    }


def test_18_2_scenario_2_spanish_air_2_and_luftwaffe_adds_1() -> None:
    st = scenario_state("scenario-2")
    assert admin.support_points(st, "good").data["air"]["spanish"] == 2
    st["events"]["in_force"].append("luftwaffe")
    assert admin.support_points(st, "good").data["air"]["spanish"] == 3
    assert admin.support_points(st, "bad").data["air"]["spanish"] == 1


def test_10_2_luftwaffe_adds_2_in_scenario_1() -> None:
    st = scenario_state()
    st["events"]["in_force"].append("luftwaffe")
    assert admin.support_points(st, "good").data["air"]["spanish"] == 3


@pytest.mark.parametrize(
    ("turn", "needed"),
    [(1, 1), (2, 2), (3, 3), (4, 3), (5, 4), (6, 4), (7, 5), (8, 5), (9, 6), (10, 6)],
)
def test_11_strait_table(turn: int, needed: int) -> None:
    st = scenario_state()
    st["turn"] = turn
    rolled = admin.strait_roll(st, ScriptedDice([needed]), False)[0].data
    assert rolled["needed"] == needed and rolled["success"]
    assert (
        not admin.strait_roll(st, ScriptedDice([min(6, needed + 1)]), False)[0].data["success"]
        or needed == 6
    )


def test_11_strait_modifiers_tangier_ceuta_air_point_bad_weather() -> None:
    st = scenario_state()
    st["turn"] = 3
    st["control"]["1,4"] = "allied"  # Tangier
    st["control"]["1,7"] = "allied"  # Ceuta
    st["weather"] = "bad"
    rolled = admin.strait_roll(st, ScriptedDice([5]), True)[0].data
    assert [m["drm"] for m in rolled["modifiers"]] == [-1, -1, -1, 1]
    assert rolled["total"] == 3 and rolled["success"]


def test_18_2_scenario_2_strait_plus_1() -> None:
    st = scenario_state("scenario-2")
    rolled = admin.strait_roll(st, ScriptedDice([1]), False)[0].data
    assert rolled["total"] == 2 and not rolled["success"]


def test_11_strait_open_for_the_rest_of_the_game() -> None:
    st = scenario_state()
    play(st, "allied", {"type": "begin_turn"}, [1])
    play(st, "spanish", {"type": "pass"})
    play(st, "allied", {"type": "roll_strait", "air_point": True}, [2])  # 2 - 1 <= 1
    assert st["strait"] == {"open": True, "turn": 1}
    assert st["air"]["allied"] == 5
    assert admin.strait_roll(st, ScriptedDice([]), False) == []


def test_10_2_sea_lions_cancel_the_strait_roll() -> None:
    st = scenario_state()
    st["played_this_turn"].append("sea_lions")
    assert admin.strait_roll(st, ScriptedDice([]), False)[0].data == {
        "cancelled_by": "sea_lions",
        "success": False,
    }


def supply_state(**kw) -> dict:
    mapd = board(
        places=REQUIRED_CITIES,
        sources={"allied": ["12,1"], "spanish": ["1,20"]},
        terrain={"6,10": "sea"},
    )
    return state(
        [
            counter("us", "allied", "10,3"),
            counter("cut", "allied", "3,10"),
            counter("es1", "spanish", "5,9"),
            counter("es2", "spanish", "5,11"),
            counter("es3", "spanish", "4,12"),
            counter("es4", "spanish", "3,8"),
            counter("es5", "spanish", "2,10"),
            counter("es6", "spanish", "4,8"),
        ],
        mapd,
        **kw,
    )


def test_12_1_supply_line_of_any_length_blocked_by_enemy_units_and_zoc() -> None:
    st = supply_state()
    out = determine(st, "allied")["out_of_supply"]
    assert out == ["cut"]
    assert determine(st, "spanish")["out_of_supply"] == []


def test_12_1_taourirt_a_source_only_once_the_strait_is_allied() -> None:
    from service.rules.backbone.supply import sources

    st = supply_state()
    assert sources(st, "allied") == ["12,1"]
    st["strait"] = {"open": True, "turn": 2}
    assert sources(st, "allied") == ["12,1", "12,20"]
    st["beachhead"] = "3,3"
    assert "3,3" in sources(st, "allied", "uk") and "3,3" not in sources(st, "allied")


def test_12_2_out_of_supply_is_kept_for_the_turn_and_halves_factors() -> None:
    from service.rules.backbone.units import combat_view

    st = supply_state(turn=2)
    events = admin.supply_check(st)
    for event in events:
        SYSTEM.apply(st, event)
    assert not st["units"]["cut"]["supplied"]
    assert combat_view(st["units"]["cut"])["out_of_supply"]


def test_3_turn_1_everyone_is_in_supply() -> None:
    st = supply_state(turn=1)
    assert admin.supply_check(st) == []


def test_13_1_german_paratroopers_turn_2_and_mountain_troops_turn_3() -> None:
    """With the automatic preference (option ``decisions: automatic``): Tetouan or next to it;
    the players' choice of 18.1 is in test_decisions.py."""
    st = scenario_state()
    st["options"]["decisions"] = "automatic"
    st["turn"] = 2
    events = admin.reinforcements(st)
    arrived = events[0].data["units"]
    assert [a["unit"] for a in arrived] == ["de-5fjr"]
    assert arrived[0]["hex"] in ("4,7", *geo.board(st).grid.neighbours("4,7"))
    for event in events:
        SYSTEM.apply(st, event)
    st["turn"] = 3
    assert [a["unit"] for a in admin.reinforcements(st)[0].data["units"]] == ["de-756gjr"]


def test_9_1_eliminated_hq_returns_two_turns_later_in_a_city() -> None:
    """With the automatic preference; the player's choice of city is in test_decisions.py."""
    st = scenario_state(decisions="automatic")
    hq = st["units"]["es-hq-ix"]
    hq.update(status="eliminated", hex=None, eliminated_turn=3)
    st["turn"] = 5
    arrived = admin.reinforcements(st)[0].data["units"]
    # Tetouan, first city of the IX CE; back with its step
    assert {"unit": "es-hq-ix", "hex": "4,7", "steps": 1} in arrived
