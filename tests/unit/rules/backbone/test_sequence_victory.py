"""Sequence of play (8.2), events (10.2), replacements and fortifications (13.2, 13.3), victory and
the end by agreement (17), and both scenarios played through ten turns (18)."""

from __future__ import annotations

import pytest

from service.rules.backbone import SYSTEM, playing, sequence
from service.rules.backbone import geography as geo
from service.rules.base import RuleViolation
from tests.unit.rules.backbone.fixtures import play


def started(scenario: str = "scenario-1", **options: object) -> dict:
    st = SYSTEM.initial_state(scenario, options)
    play(st, "spanish", {"type": "deploy", "fortifications": ["4,7", "4,7", "1,7", "1,4", "8,2"]})
    play(st, "allied", {"type": "deploy"})
    return st


def test_13_3_five_fortifications_at_deployment_cumulative_in_a_hex() -> None:
    st = started()
    assert st["fortifications"] == {"4,7": 2, "1,7": 1, "1,4": 1, "8,2": 1}
    st2 = SYSTEM.initial_state("scenario-1", {})
    with pytest.raises(RuleViolation) as err:
        play(st2, "spanish", {"type": "deploy", "fortifications": ["4,7"] * 6})
    assert err.value.rule == "13.3"
    with pytest.raises(RuleViolation):
        play(
            st2, "spanish", {"type": "deploy", "fortifications": ["14,2"]}
        )  # Port-Lyautey: not Spanish


def test_8_2_turn_1_sequence_of_scenario_1() -> None:
    st = started()
    assert sequence.turn_steps(st) == [
        "administrative",
        "events",
        "strait",
        "amphibious",
        "allied_movement",
        "allied_combat",
        "spanish_movement",
        "spanish_combat",
    ]
    st["turn"] = 2
    assert sequence.turn_steps(st) == [
        "administrative",
        "events",
        "strait",
        "replacements",
        "allied_movement",
        "allied_combat",
        "spanish_movement",
        "spanish_combat",
    ]


def test_8_2_only_the_active_side_acts() -> None:
    st = started()
    with pytest.raises(RuleViolation) as err:
        play(st, "spanish", {"type": "begin_turn"})
    assert err.value.rule == "8.2"


def test_10_2_spanish_draw_on_odd_turns_hidden_from_the_allies() -> None:
    st = started()
    events = play(st, "allied", {"type": "begin_turn"}, [2])
    drawn = next(e for e in events if e.type == "EventChitDrawn")
    assert drawn.data["side"] == "spanish" and drawn.data["chit"] == "luftwaffe"
    assert "luftwaffe" in st["events"]["in_force"]  # in force from the moment it comes out
    assert SYSTEM.active_sides(st) == ["spanish"]


def test_10_2_spanish_initiative_spanish_go_first_but_not_turn_1_of_scenario_1() -> None:
    st = started()
    play(st, "allied", {"type": "begin_turn"}, [6])
    assert st["events"]["hands"]["spanish"] == ["spanish_initiative"]
    with pytest.raises(RuleViolation):
        play(st, "spanish", {"type": "play_event", "chit": "spanish_initiative"})
    st["turn"] = 3
    play(st, "spanish", {"type": "play_event", "chit": "spanish_initiative"})
    assert st["initiative"] == "spanish"
    assert sequence.turn_steps(st)[4:6] == ["spanish_movement", "spanish_combat"]


def test_10_2_tactical_air_and_naval_power() -> None:
    st = started()
    st["turn"], st["step"] = 2, "events"
    st["events"]["hands"]["allied"] = ["tactical_air", "naval_power"]
    play(st, "allied", {"type": "play_event", "chit": "tactical_air"})
    assert st["air"]["allied"] == 12
    play(st, "allied", {"type": "play_event", "chit": "naval_power"})
    assert st["naval"]["points"] == 3 and "naval_power" in st["played_this_turn"]


def test_10_2_ultra_steals_a_random_spanish_chit() -> None:
    st = started()
    st["turn"], st["step"] = 2, "events"
    st["events"]["hands"]["allied"] = ["ultra"]
    play(st, "allied", {"type": "play_event", "chit": "ultra"}, [1])
    assert (
        "baraka" in st["events"]["hands"]["allied"]
        and "baraka" not in st["events"]["cups"]["spanish"]
    )


def test_10_2_nest_of_spies_steals_a_random_allied_chit_pending_or_in_hand() -> None:
    """10.2 Nest of spies: the Spanish player randomly steals a chit from the Allies, either those
    pending to appear or those already in hand but not used."""
    st = started()
    st["turn"], st["step"] = 3, "events"
    st["events"]["hands"]["spanish"] = ["nest_of_spies"]
    st["events"]["hands"]["allied"] = ["oss"]
    pool = st["events"]["cups"]["allied"] + ["oss"]
    [played] = play(st, "spanish", {"type": "play_event", "chit": "nest_of_spies"}, [len(pool)])
    assert played.data["dice"][0]["sides"] == len(pool)
    assert played.data["effects"] == {"stolen": "oss"}
    assert st["events"]["hands"] == {"allied": [], "spanish": ["oss"]}
    assert "nest_of_spies" in st["events"]["played"]


def test_10_2_the_last_chit_in_the_cup_is_drawn_without_a_die() -> None:
    """10.2: each side draws a marker from its opaque container; with a single marker left there is
    nothing to choose, so it is drawn without a roll (a die has at least two faces).  Found by the
    fuzzer: ``begin_turn`` crashed rolling a one-sided die (seed 1, scenario 2)."""
    st = started()
    st["events"]["cups"]["spanish"] = ["baraka"]
    events = play(st, "allied", {"type": "begin_turn"}, [])  # turn 1: no weather roll (3)
    drawn = next(e for e in events if e.type == "EventChitDrawn")
    assert drawn.data["chit"] == "baraka" and drawn.data["die"] is None
    assert st["events"]["cups"]["spanish"] == [] and st["events"]["hands"]["spanish"] == ["baraka"]


def test_10_2_ultra_steals_the_only_spanish_chit_without_a_die() -> None:
    """10.2 Ultra: the Allies randomly steal a chit, pending or in hand; a pool of one is no draw."""
    st = started()
    st["turn"], st["step"] = 2, "events"
    st["events"]["hands"]["allied"] = ["ultra"]
    st["events"]["cups"]["spanish"], st["events"]["hands"]["spanish"] = [], ["baraka"]
    [played] = play(st, "allied", {"type": "play_event", "chit": "ultra"}, [])
    assert played.data["effects"] == {"stolen": "baraka"} and played.data["dice"] == []
    assert st["events"]["hands"] == {"allied": ["baraka"], "spanish": []}


def test_10_2_oss_mehalas_lose_on_4_to_6_gfri_on_5_or_6() -> None:
    st = started()
    st["turn"], st["step"] = 2, "events"
    st["events"]["hands"]["allied"] = ["oss"]
    mehalas = [u for u in st["units"].values() if u["type"] == "mehalas"]
    dice = [4] * len(mehalas) + [4]
    events = play(st, "allied", {"type": "play_event", "chit": "oss", "gfri": "es-gfri3"}, dice)
    assert sorted(events[0].data["effects"]["step_losses"]) == sorted(u["id"] for u in mehalas)


def test_13_2_replacements_hidden_until_both_are_placed() -> None:
    st = started()
    st["turn"], st["step"] = 2, "replacements"
    st["units"]["us-7ri"]["steps"] = 2
    st["units"]["es-58ri"]["steps"] = 1
    play(st, "allied", {"type": "replace", "steps": [{"unit": "us-7ri"}]})
    assert st["units"]["us-7ri"]["steps"] == 2  # not yet in play
    view = SYSTEM.view(st, "spanish")
    assert view["replacements"]["allied"] == "hidden"
    play(st, "spanish", {"type": "replace", "steps": [{"unit": "es-58ri"}], "fortify": "9,4"})
    assert st["units"]["us-7ri"]["steps"] == 3 and st["units"]["es-58ri"]["steps"] == 2
    assert st["fortifications"]["9,4"] == 1
    assert st["step"] == "allied_movement"


def test_13_2_replacement_limits() -> None:
    st = started()
    st["turn"], st["step"] = 3, "replacements"
    st["units"]["us-ccb2ad"]["steps"] = 2
    st["units"]["us-7ri"]["steps"] = 1
    with pytest.raises(RuleViolation):  # an armor step costs 2 points, an infantry step 1
        play(
            st, "allied", {"type": "replace", "steps": [{"unit": "us-ccb2ad"}, {"unit": "us-7ri"}]}
        )
    st["units"]["us-rangers"]["steps"] = 1
    with pytest.raises(RuleViolation):  # efficiency 3
        play(st, "allied", {"type": "replace", "steps": [{"unit": "us-rangers"}]})
    st["units"]["es-mehala-1"]["steps"] = 1
    with pytest.raises(RuleViolation):  # Mehalas
        play(st, "spanish", {"type": "replace", "steps": [{"unit": "es-mehala-1"}]})
    with pytest.raises(RuleViolation):  # fortifications only on even turns
        play(st, "spanish", {"type": "replace", "steps": [], "fortify": "9,4"})


def test_13_2_a_rebuilt_unit_returns_next_to_its_hq_but_never_among_enemy_units() -> None:
    """13.2: units rebuilt return to their HQ's hex or next to it, not in an enemy ZOC that no
    friendly unit negates; a hex held by enemy units is no place for them (15.1)."""
    st = started()
    st["turn"], st["step"] = 2, "replacements"
    hq = st["units"]["us-hq-wtf"]
    grid = geo.board(st).grid
    enemy_hex = next(h for h in grid.neighbours(hq["hex"]) if not geo.impassable(st, h))
    st["units"]["es-58ri"].update(hex=enemy_hex)
    st["units"]["us-7ri"].update(status="eliminated", hex=None)
    options = playing.rebuild_hexes(st, st["units"]["us-7ri"])
    assert hq["hex"] in options and enemy_hex not in options
    with pytest.raises(RuleViolation) as err:
        play(st, "allied", {"type": "replace", "steps": [{"unit": "us-7ri", "hex": enemy_hex}]})
    assert err.value.rule == "13.2"


def test_17_victory_levels() -> None:
    st = started()
    assert sequence.victory(st)["winner"] == "spanish"
    cities = {
        "Tangier": "1,4",
        "Ceuta": "1,7",
        "Tetouan": "4,7",
        "Asilah": "5,2",
        "Larache": "8,2",
        "Alcazarquivir": "9,4",
        "Chauen": "6,9",
        "Villa Sanjurjo": "3,16",
        "Melilla": "4,24",
    }
    for hex_ in cities.values():
        st["control"][hex_] = "allied"
    for u in st["units"].values():
        if u["side"] == "spanish":
            u["status"] = "eliminated"
    assert sequence.victory(st)["level"] == "strategic"
    st["control"]["4,24"] = "spanish"
    assert sequence.victory(st)["level"] == "tactical"
    st["control"]["1,7"] = "spanish"
    st["control"]["4,24"] = "allied"
    assert sequence.victory(st)["level"] == "spanish"  # Ceuta is mandatory


def test_17_road_must_be_free_of_enemy_zoc() -> None:
    st = started()
    for hex_ in ("1,4", "1,7", "4,7", "5,2", "8,2", "9,4", "6,9", "3,16", "4,24"):
        st["control"][hex_] = "allied"
    for u in st["units"].values():
        if u["side"] == "spanish":
            u["status"] = "eliminated"
    st["units"]["es-58ri"].update(status="map", hex="12,20", steps=2)  # next to the road
    outcome = sequence.victory(st)
    assert outcome["winner"] == "spanish" and outcome["road_blocked_at"]


def play_turn(st: dict, scenario: int) -> None:
    """Pass a whole turn with the cheapest legal commands (and land the British when due)."""
    play(st, "allied", {"type": "begin_turn"}, [1, 1] if st["turn"] > 1 else [1])
    drawer = SYSTEM.active_sides(st)[0]
    if "tunisia" in st["events"]["hands"][drawer]:
        battalions = {"type": "play_event", "chit": "tunisia", "units": ["us-70tk", "us-601td"]}
        play(st, drawer, battalions)
    play(st, drawer, {"type": "pass"})
    play(st, "allied", {"type": "roll_strait"}, [6] if not st["strait"]["open"] else [])
    while st["step"] not in ("administrative", "agreement", "over"):
        side = SYSTEM.active_sides(st)[0]
        if st.get("pending"):  # 18.1: the German units arrive where the Spanish player chooses
            unit = st["pending"]["units"][0]["unit"]
            play(st, "spanish", {"type": "place_arrival", "unit": unit, "hex": "4,7"})
        elif st["step"] == "replacements":
            play(st, side, {"type": "replace", "steps": []})
        elif st["step"] == "amphibious":
            hex_ = "4,22" if scenario == 1 else "4,2"  # clear: the reserve fits when it arrives (5)
            play(st, "allied", {"type": "land", "hex": hex_, "units": ["uk-21tk", "uk-commando"]})
        else:
            play(st, side, {"type": "end_phase"})


@pytest.mark.parametrize("scenario", ["scenario-1", "scenario-2"])
def test_18_both_scenarios_play_ten_turns_to_a_spanish_victory(scenario: str) -> None:
    st = started(scenario)
    number = st["data"]["scenario_number"]
    for _ in range(10):
        play_turn(st, number)
    assert st["turn"] == 10 and st["step"] == "over"
    assert SYSTEM.result(st)["winner"] == "spanish"
    assert SYSTEM.active_sides(st) == []
    assert st["beachhead"] == ("4,22" if number == 1 else "4,2")
    assert st["units"]["uk-10inf"]["hex"] == st["beachhead"]  # the reserve came ashore


def test_18_2_scenario_2_lands_on_the_atlantic_from_turn_2_only() -> None:
    st = started("scenario-2")
    play_turn(st, 2)  # turn 1: no landing step
    assert st["beachhead"] is None and st["turn"] == 2
    play(st, "allied", {"type": "begin_turn"}, [1, 1])
    play(st, "allied", {"type": "pass"})
    play(st, "allied", {"type": "roll_strait"}, [6])
    play(st, "allied", {"type": "replace", "steps": []})
    play(st, "spanish", {"type": "replace", "steps": []})
    assert st["step"] == "amphibious"
    with pytest.raises(RuleViolation) as err:
        play(
            st, "allied", {"type": "land", "hex": "4,8", "units": ["uk-21tk"]}
        )  # the Mediterranean
    assert err.value.rule == "18.2"


def test_17_early_end_by_agreement() -> None:
    st = started()
    st["step"] = "agreement"
    play(st, "allied", {"type": "vote_end", "end": True})
    assert SYSTEM.active_sides(st) == ["spanish"]
    play(st, "spanish", {"type": "vote_end", "end": True})
    assert st["result"]["by_agreement"]


def test_10_2_rebellion_in_the_rif_places_two_allied_rif_units() -> None:
    st = started()
    st["turn"], st["step"] = 2, "events"
    st["events"]["hands"]["allied"] = ["rif_rebellion"]
    with pytest.raises(RuleViolation):
        play(
            st, "allied", {"type": "play_event", "chit": "rif_rebellion", "hexes": ["5,2", "6,12"]}
        )
    play(st, "allied", {"type": "play_event", "chit": "rif_rebellion", "hexes": ["6,12", "6,13"]})
    rif = st["units"]["rif-1"]
    assert (rif["side"], rif["hex"], rif["steps"]) == ("allied", "6,12", 2)
    from service.rules.backbone import geography as geo

    assert not set(geo.board(st).grid.neighbours("6,12")) & geo.zoc_of(st, "allied")  # no ZOC


def test_10_2_german_offensive_in_tunisia_withdraws_two_battalions_at_once() -> None:
    st = started()
    st["turn"], st["step"] = 2, "events"
    st["events"]["hands"]["allied"] = ["tunisia"]
    with pytest.raises(RuleViolation):
        play(st, "allied", {"type": "pass"})  # it is played at once
    with pytest.raises(RuleViolation):
        play(
            st, "allied", {"type": "play_event", "chit": "tunisia", "units": ["us-7ri", "us-70tk"]}
        )
    play(st, "allied", {"type": "play_event", "chit": "tunisia", "units": ["us-70tk", "us-601td"]})
    assert st["units"]["us-70tk"]["status"] == "withdrawn"
    st["step"] = "replacements"
    st["units"]["us-7ri"]["steps"] = 1
    with pytest.raises(RuleViolation):  # no Allied replacements that turn
        play(st, "allied", {"type": "replace", "steps": [{"unit": "us-7ri"}]})


def test_18_1_deployment_areas_garrisons_and_stacking() -> None:
    st = SYSTEM.initial_state("scenario-1", {})
    with pytest.raises(RuleViolation) as err:  # X CE west of column 14
        play(st, "spanish", {"type": "deploy", "positions": {"es-ri-52a": "6,10"}})
    assert err.value.rule == "18.1"
    with pytest.raises(RuleViolation) as err:  # Ceuta without its garrison
        play(st, "spanish", {"type": "deploy", "positions": {"es-ri-ceuta": "2,8"}})
    assert "Ceuta" in err.value.message
    play(
        st, "spanish", {"type": "deploy", "positions": {"es-mehala-1": "7,20"}}
    )  # Mehalas anywhere
    assert st["units"]["es-mehala-1"]["hex"] == "7,20" and st["step"] == "allied_deployment"
    with pytest.raises(RuleViolation):  # the CTF starts from column 13
        play(st, "allied", {"type": "deploy", "positions": {"us-16ri": "11,12"}})
    play(st, "allied", {"type": "deploy", "positions": {"us-16ri": "12,14"}})
    assert st["step"] == "administrative"


def test_18_2_american_units_deploy_in_or_next_to_their_cities() -> None:
    st = SYSTEM.initial_state("scenario-2", {})
    play(st, "spanish", {"type": "deploy"})
    with pytest.raises(RuleViolation) as err:
        play(st, "allied", {"type": "deploy", "positions": {"us-7ri": "11,3"}})
    assert err.value.rule == "18.2"
    play(st, "allied", {"type": "deploy"})


def test_13_2_allied_points_buy_infantry_steps_of_efficiency_2_only() -> None:
    """13.2: "*Allies:* receive 2 replacement points, with which they can: a) Recover or bring from
    the eliminated steps quota an infantry step of efficiency 2 for each point. b) Recover or bring
    from the eliminated ones a step of armored units for the 2 points. Efficiency 3 units cannot
    recall steps." -- an Allied infantry step is one of efficiency 2: efficiency 1 infantry has no
    line that lets it recall a step (armour, any efficiency but 3, still may)."""
    st = started()
    st["turn"], st["step"] = 2, "replacements"
    st["units"]["us-7ri"].update(steps=2, efficiency=1)
    with pytest.raises(RuleViolation) as err:
        play(st, "allied", {"type": "replace", "steps": [{"unit": "us-7ri"}]})
    assert err.value.rule == "13.2" and "efficiency 2" in err.value.message
    listed = [
        step["unit"]
        for t in SYSTEM.actions(st, "allied").of_type("replace")
        for c in t.commands()
        for step in c.get("steps") or []
    ]
    assert "us-7ri" not in listed
    st["units"]["us-ccb2ad"].update(steps=2, efficiency=1)  # b) armour: no efficiency named
    play(st, "allied", {"type": "replace", "steps": [{"unit": "us-ccb2ad"}]})
    assert st["replacements"]["allied"] == [{"unit": "us-ccb2ad", "hex": None}]


def test_13_2_the_cities_take_rebuilt_units_only_when_their_hq_is_not_present() -> None:
    """13.2: "Units rebuilt after being destroyed, return to the same hex as their CG / HQ, or
    adjacent to it, provided they are not in an enemy ZOC not negated by the presence of a friendly
    unit. Also in the event that the CG / HQ has been eliminated and is not present on that turn.
    [...] The Allied player will place them in Port-Lyautey, Meknes or Fez for the Western TF" --
    the cities are the place when the HQ is eliminated and not present; with the HQ on the map
    the unit returns to it."""
    st = started()
    st["turn"], st["step"] = 2, "replacements"
    hq = st["units"]["us-hq-wtf"]
    u = st["units"]["us-7ri"]
    assert u["formation"] == hq["formation"] == "WTF"
    grid = geo.board(st).grid
    far = [
        geo.city_hex(st, name)
        for name in ("Port-Lyautey", "Meknes", "Fez")
        if grid.distance(geo.city_hex(st, name), hq["hex"]) > 1
    ]
    assert far, "a Western TF city away from the HQ"
    u.update(status="eliminated", hex=None)
    with_hq = playing.rebuild_hexes(st, u)
    assert hq["hex"] in with_hq and not set(far) & with_hq
    with pytest.raises(RuleViolation) as err:
        play(st, "allied", {"type": "replace", "steps": [{"unit": "us-7ri", "hex": far[0]}]})
    assert err.value.rule == "13.2"
    hq.update(status="eliminated", hex=None)
    assert set(far) <= playing.rebuild_hexes(st, u)


def test_10_2_ultra_never_steals_a_chit_already_in_force() -> None:
    """10.2 Ultra: "The Allied player randomly steals a chit from the Spanish player, either those
    pending to come out or those that he already has ready for use but has not used yet." The
    Luftwaffe arrives is in use "from when it comes out of the pot and for the rest of the game
    turns": once drawn it is in force, not a chit "not used yet", so it is not in the draw."""
    st = started()
    st["turn"], st["step"] = 2, "events"
    st["events"]["hands"]["allied"] = ["ultra"]
    st["events"]["cups"]["spanish"] = ["sea_lions"]
    st["events"]["hands"]["spanish"] = ["luftwaffe"]
    st["events"]["in_force"] = ["luftwaffe"]
    [played] = play(st, "allied", {"type": "play_event", "chit": "ultra"}, [])
    assert played.data["effects"] == {"stolen": "sea_lions"} and played.data["dice"] == []
    assert st["events"]["in_force"] == ["luftwaffe"]
    assert st["events"]["hands"]["spanish"] == ["luftwaffe"]
