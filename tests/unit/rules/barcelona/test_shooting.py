"""SHOOTING, the WEAPONS LIST and the AFV rules, with scripted dice."""

from __future__ import annotations

import pytest

from service.rules.barcelona import SYSTEM, shooting
from service.rules.base import RuleViolation
from tests.unit.rules.barcelona.conftest import (
    NAT,
    REP,
    foot,
    placed,
    run,
    table_state,
    team,
    vehicle,
)


def shoot(state, unit, weapon, targets, dice, side=NAT):
    cmd = {"type": "shoot", "unit": unit, "weapon": weapon, "targets": targets}
    [event] = run(shooting.shoot, state, side, cmd, dice)
    return event.data


def test_shooting_one_rank_only_d6_per_figure_4_5_6_casualty():
    """SHOOTING: one rank only; d6 per figure; 4,5,6 causes a casualty."""
    state = table_state(foot("n1", NAT, 30, 5, ranks=2), foot("r1", REP, 30, 10), step="infantry")
    assert shooting.max_dice(state["units"]["n1"], "Rifle") == 3
    data = shoot(state, "n1", "Rifle", [{"unit": "r1", "dice": 3}], [4, 3, 6])
    assert data["casualties"] == {"r1": 2} and state["units"]["r1"]["figures"] == 4
    with pytest.raises(RuleViolation):
        shoot(state, "n1", "Bombs", [{"unit": "r1", "dice": 1}], [])  # rifles or bombs, not both


def test_shooting_target_over_half_range_minus_1():
    state = table_state(foot("n1", NAT, 30, 5), foot("r1", REP, 30, 13), step="infantry")
    data = shoot(state, "n1", "Rifle", [{"unit": "r1", "dice": 2}], [4, 5])
    assert [m["value"] for m in data["targets"][0]["modifiers"]] == [-1]
    assert data["casualties"] == {"r1": 1}


def test_shooting_target_in_cover_minus_1():
    """SHOOTING: -1 target in cover (the farm)."""
    state = table_state(foot("n1", NAT, 35, 13), foot("r1", REP, 35, 18), step="infantry")
    data = shoot(state, "n1", "Rifle", [{"unit": "r1", "dice": 2}], [4, 5])
    assert [m["modifier"] for m in data["targets"][0]["modifiers"]] == ["target in cover"]
    assert data["casualties"] == {"r1": 1}


def test_shooting_only_vehicles_aircraft_and_infantry_with_bombs_move_and_shoot():
    """SHOOTING: only vehicles, aircraft and infantry with bombs can move and shoot (-1 firer moved)."""
    state = table_state(
        foot("n1", NAT, 30, 5, moved=True),
        foot("n2", NAT, 20, 5, moved=True, bombs=False),
        team("n3", NAT, "HMG", 10, 5, moved=True),
        foot("r1", REP, 30, 10),
        step="infantry",
    )
    with pytest.raises(RuleViolation) as err:
        shoot(state, "n2", "Rifle", [{"unit": "r1", "dice": 1}], [])
    assert "move and shoot" in err.value.message
    data = shoot(state, "n1", "Rifle", [{"unit": "r1", "dice": 1}], [4])
    assert (
        data["targets"][0]["modifiers"][0]["modifier"] == "firer moved (not aircraft)"
        and not data["casualties"]
    )
    assert shooting.usable(state, state["units"]["n3"], "hmg") == []


def test_shooting_skilled_troops_stationary_in_open_and_moved_into_contact():
    state = table_state(
        foot("n1", NAT, 30, 5),
        foot("r1", REP, 30, 6, troop="Assaltos", contacted=["n1"], moved=True),
        step="infantry",
    )
    mods = shooting.assess(state, state["units"]["n1"], "Rifle", state["units"]["r1"])["modifiers"]
    assert [m["modifier"] for m in mods] == ["target moved into contact with firers"]
    state["units"]["r1"]["moved"] = False
    mods = shooting.assess(state, state["units"]["n1"], "Rifle", state["units"]["r1"])["modifiers"]
    assert "target skilled troops stationary in open" in [m["modifier"] for m in mods]


def test_mgs_hmg_up_to_6_dice_each_shot_on_a_different_target():
    """SHOOTING MGs: HMG may use up to 6 d6; WEAPONS LIST: each shot on different target."""
    state = table_state(
        team("n3", NAT, "HMG", 30, 5),
        foot("r1", REP, 28, 20, figures=2),
        foot("r2", REP, 36, 20),
        step="hmg",
    )
    with pytest.raises(RuleViolation):
        shoot(state, "n3", "HMG", [{"unit": "r1", "dice": 3}, {"unit": "r2", "dice": 3}], [])
    with pytest.raises(RuleViolation):
        shoot(state, "n3", "HMG", [{"unit": "r2", "dice": 7}], [])
    data = shoot(
        state,
        "n3",
        "HMG",
        [{"unit": "r1", "dice": 2}, {"unit": "r2", "dice": 4}],
        [6, 1, 5, 5, 2, 6],
    )
    assert data["casualties"] == {"r1": 1, "r2": 3}


def test_lmg_up_to_3_dice_and_fires_in_the_infantry_step():
    state = table_state(foot("n1", NAT, 30, 5, lmg=1), foot("r1", REP, 30, 20), step="infantry")
    assert shooting.max_dice(state["units"]["n1"], "LMG") == 3
    assert shooting.max_dice(state["units"]["n1"], "Rifle") == 5  # the gunner fires the LMG


def test_weapons_list_saving_throw_4_plus_for_an_hmg_team():
    """WEAPONS LIST: HMG saving throw 4+ (each casualty on the team is saved on 4-6)."""
    state = table_state(foot("n1", NAT, 30, 5), team("r3", REP, "HMG", 30, 10), step="infantry")
    data = shoot(state, "n1", "Rifle", [{"unit": "r3", "dice": 2}], [5, 6, 4, 3])
    assert data["targets"][0]["casualties"] == 1 and [
        s["value"] for s in data["targets"][0]["saves"]
    ] == [4, 3]


def test_artillery_template_figures_within_2_inches_test_ko_on_5_6():
    """SHOOTING Artillery: choose target figure; if hit, all figs within 2" test, KO on a 5,6."""
    state = table_state(
        team("n5", NAT, "Field Gun", 30, 2), foot("r1", REP, 30, 30, figures=5), step="artillery"
    )
    # r1 faces 270: figures at x 28..32; figure 2 is the centre (30, 30): figures 0,1,3,4 are within 2"
    data = shoot(
        state, "n5", "Field Gun", [{"unit": "r1", "dice": 1, "figure": 2}], [4, 5, 6, 4, 1]
    )
    assert data["collateral"][0]["figures"] == 4 and data["casualties"] == {"r1": 3}
    assert state["units"]["r1"]["sources"] == ["artillery"]


def test_star_mountain_gun_template_ko_on_6_only():
    state = table_state(
        team("n5", NAT, "Mtn/Inf/AFV Gun", 30, 2),
        foot("r1", REP, 30, 30, figures=3),
        step="artillery",
    )
    data = shoot(
        state, "n5", "Mtn/Inf/AFV Gun", [{"unit": "r1", "dice": 1, "figure": 1}], [6, 5, 6]
    )
    assert data["casualties"] == {"r1": 2}


def test_needs_a_turn_to_set_up_unless_starred():
    """WEAPONS LIST: * do not need a turn to setup to fire."""
    state = table_state(
        team("n5", NAT, "Field Gun", 30, 2, set_up=False),
        team("n6", NAT, "AT Gun", 20, 2, set_up=False),
        vehicle("r7", REP, "FAI A/C", 20, 20),
        step="artillery",
    )
    with pytest.raises(RuleViolation) as err:
        shoot(state, "n5", "Field Gun", [{"unit": "r7", "dice": 1}], [])
    assert "set up" in err.value.message
    assert shoot(state, "n6", "AT Gun", [{"unit": "r7", "dice": 1}], [5])["ko"] == [
        "r7"
    ]  # over half range


def test_at_gun_only_vs_vehicles():
    state = table_state(team("n6", NAT, "AT Gun", 30, 2), foot("r1", REP, 30, 20), step="artillery")
    with pytest.raises(RuleViolation):
        shoot(state, "n6", "AT Gun", [{"unit": "r1", "dice": 1}], [])


def test_afv_bombs_2d6_no_modifications_2_3_11_12_and_a_class_11_12():
    """AFV: firing at AFV with bombs: 2d6, 2,3,11,12 to KO (A class vehicle 11,12)."""
    state = table_state(
        foot("n1", NAT, 30, 5, figures=2), vehicle("r7", REP, "FAI A/C", 30, 6.5), step="infantry"
    )
    assert shoot(state, "n1", "Bombs", [{"unit": "r7", "dice": 1}], [1, 2])["ko"] == ["r7"]
    state = table_state(
        foot("n1", NAT, 30, 5, figures=2), vehicle("r7", REP, "T26", 30, 6.5), step="infantry"
    )
    data = shoot(state, "n1", "Bombs", [{"unit": "r7", "dice": 2}], [1, 2, 5, 6])
    assert data["ko"] == ["r7"] and [d["ko"] for d in data["targets"][0]["dice"]] == [False, True]


def test_afv_hmg_11_12_a_class_12_and_rifles_cannot_harm_it():
    """AFV: firing at AFV with HMG/VMG: 2d6, 11,12 to KO (A class vehicle 12)."""
    state = table_state(
        team("n3", NAT, "HMG", 30, 5),
        vehicle("r7", REP, "T26", 30, 20),
        foot("n1", NAT, 20, 15),
        step="hmg",
    )
    data = shoot(state, "n3", "HMG", [{"unit": "r7", "dice": 1}], [5, 6])
    assert not data["ko"] and data["targets"][0]["ko_numbers"] == [12]
    with pytest.raises(RuleViolation) as err:
        shooting._check(
            {**state, "step": "infantry"},
            NAT,
            {"unit": "n1", "weapon": "Rifle", "targets": [{"unit": "r7", "dice": 1}]},
        )
    assert err.value.rule == "AFVs"


def test_afv_pz_i_20mm_vmg_plus_1_vs_afv():
    state = table_state(
        vehicle("n8", NAT, "Pz. I (20mm)", 30, 5),
        vehicle("r7", REP, "FAI A/C", 30, 20),
        step="vehicles",
    )
    data = shoot(state, "n8", "Vehicle HMG", [{"unit": "r7", "dice": 1}], [4, 6])
    assert data["targets"][0]["dice"][0]["total"] == 11 and data["ko"] == ["r7"]


def test_afv_gun_d6_with_usual_modifications_no_collateral():
    """AFV: firing at AFV with artillery/AT/tank guns: d6 with usual modifications, no collateral."""
    state = table_state(
        vehicle("n9", NAT, "T26", 30, 5, moved=True),
        vehicle("r7", REP, "FAI A/C", 30, 20),
        foot("r1", REP, 31, 20),
        step="vehicles",
    )
    data = shoot(state, "n9", "Mtn/Inf/AFV Gun", [{"unit": "r7", "dice": 1}], [4])
    assert data["targets"][0]["modifier_total"] == -2 and not data["ko"] and not data["collateral"]
    with pytest.raises(RuleViolation) as err:  # only one weapon may fire each move
        shoot(state, "n9", "Vehicle HMG", [{"unit": "r1", "dice": 1}], [])
    assert "one weapon" in err.value.message


def test_afv_gun_range_vs_afvs_24():
    state = table_state(
        vehicle("n9", NAT, "T26", 30, 2), vehicle("r7", REP, "FAI A/C", 30, 30), step="vehicles"
    )
    assert shooting.assess(state, state["units"]["n9"], "Mtn/Inf/AFV Gun", state["units"]["r7"])[
        "refused"
    ].startswith("out of range")


def test_aircraft_5_6_in_open_6_in_cover_4_plus_soft_vehicles():
    """WEAPONS LIST Aircraft: 4+ for soft vehicles, 5,6 others in open, 6 in cover, trenches etc."""
    plane = placed(
        __import__("service.rules.barcelona.forces", fromlist=["x"]).aircraft_unit("n0", NAT),
        33,
        17,
    )
    state = table_state(
        plane,
        foot("r1", REP, 30, 19),
        foot("r2", REP, 35, 18),
        vehicle("r3", REP, "Lorry", 34, 15),
        step="aircraft",
    )
    data = shoot(
        state,
        "n0",
        "Aircraft",
        [{"unit": "r1", "dice": 2}, {"unit": "r2", "dice": 2}, {"unit": "r3", "dice": 1}],
        [5, 4, 5, 6, 4],
    )
    needed = [t["needed"] for t in data["targets"]]
    assert needed == [5, 6, 4] and data["casualties"] == {"r1": 1, "r2": 1} and data["ko"] == ["r3"]
    assert state["units"]["r1"]["sources"] == ["aircraft"]


def test_sequence_shooting_in_the_printed_order():
    """SEQUENCE OF PLAY: off table artillery; AA, aircraft; HMG; artillery; vehicles; infantry."""
    assert shooting.STEPS == (
        "off_table_artillery",
        "aa",
        "aircraft",
        "hmg",
        "artillery",
        "vehicles",
        "infantry",
    )
    state = table_state(team("n3", NAT, "HMG", 30, 5), foot("r1", REP, 30, 20), step="infantry")
    with pytest.raises(RuleViolation) as err:
        shoot(state, "n3", "HMG", [{"unit": "r1", "dice": 1}], [])
    assert err.value.rule == "SEQUENCE OF PLAY"


def test_preview_of_a_shot_lists_modifiers_without_rolling():
    state = table_state(foot("n1", NAT, 35, 13), foot("r1", REP, 35, 18), step="infantry")
    preview = SYSTEM.previews.preview(
        state, NAT, {"type": "shoot", "unit": "n1", "weapon": "Rifle", "targets": [{"unit": "r1"}]}
    )
    [line] = preview["targets"]
    assert (line["needed"], line["modifier_total"], line["refused"]) == (4, -1, None) and preview[
        "may_fire_now"
    ]
