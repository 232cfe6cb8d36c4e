"""Rule 5 movement and the Terrain Effects Chart's movement costs."""

from __future__ import annotations

import pytest

from service.rules.base import RuleViolation
from tests.unit.rules.merida.conftest import board_state, play, unit


def move(state, ids, path, mode="tactical", side="nationalist"):
    return play(state, side, {"type": "move", "units": ids, "path": path, "mode": mode})


def row(letter, first, last):
    step = 1 if last >= first else -1
    return [f"{letter}{c}" for c in range(first, last + step, step)]


def refused(state, ids, path, mode="tactical", side="nationalist"):
    with pytest.raises(RuleViolation) as err:
        move(state, ids, path, mode, side)
    return err.value


@pytest.mark.parametrize(
    ("kind", "mp"),
    [("artillery", 4), ("infantry", 6), ("cavalry", 8), ("leader", 10), ("armor", 10)],
)
def test_5_tactical_allowance_by_type(kind, mp):
    """Rule 5 / movement chart: a unit may spend its whole allowance, never more."""
    state = board_state([unit("n", "nationalist", kind, 3, "A1")])
    move(state, ["n"], row("A", 1, 1 + mp))
    assert state["units"]["n"]["hex"] == f"A{1 + mp}"
    state = board_state([unit("n", "nationalist", kind, 3, "A1")])
    assert refused(state, ["n"], row("A", 1, 2 + mp)).rule == "5"


def test_5_hexes_may_never_be_skipped():
    state = board_state([unit("n", "nationalist", "infantry", 3, "A1")])
    err = refused(state, ["n"], ["A1", "A3"])
    assert err.rule == "5" and "skipped" in err.message


def test_5_movement_points_never_accumulate_one_move_a_phase():
    """Rule 5: movement points are never accumulated; a unit that moved may not move again."""
    state = board_state([unit("n", "nationalist", "infantry", 3, "A1")])
    move(state, ["n"], row("A", 1, 3))
    assert refused(state, ["n"], row("A", 3, 5)).rule == "5"


def test_7_units_must_stop_on_entering_an_enemy_zoc():
    """Rules 5 and 7: entering an enemy ZOC ends the move."""
    state = board_state(
        [
            unit("n", "nationalist", "infantry", 3, "E1"),
            unit("r", "republican", "infantry", 3, "E5"),
        ]
    )
    err = refused(state, ["n"], row("E", 1, 6)[:4] + ["D4"])  # E4 is in r's ZOC
    assert err.rule == "7"
    move(state, ["n"], row("E", 1, 4))
    assert state["units"]["n"]["hex"] == "E4"


def test_5_units_may_freely_exit_an_enemy_zoc_at_the_start():
    state = board_state(
        [
            unit("n", "nationalist", "infantry", 3, "E4"),
            unit("r", "republican", "infantry", 3, "E5"),
        ]
    )
    move(state, ["n"], ["E4", "E3", "E2"])
    assert state["units"]["n"]["hex"] == "E2"


def test_5_no_move_from_one_zoc_to_another_of_the_same_enemy_unit():
    """Rule 5 (the default reading): E4 and D5 are both in the ZOC of the unit in E5."""
    state = board_state(
        [
            unit("n", "nationalist", "infantry", 3, "E4"),
            unit("r", "republican", "infantry", 3, "E5"),
        ]
    )
    err = refused(state, ["n"], ["E4", "D5"])
    assert err.rule == "5" and "same enemy unit" in err.message


def test_5_zoc_to_zoc_of_a_different_enemy_unit_allowed_by_default():
    """Rule 5: only the same enemy unit's ZOC is forbidden (E4 is in the ZOC of F4, D4 of C4)."""
    units = [
        unit("n", "nationalist", "infantry", 3, "E4"),
        unit("r1", "republican", "infantry", 3, "F4"),
        unit("r2", "republican", "infantry", 3, "C4"),
    ]
    state = board_state(units)
    move(state, ["n"], ["E4", "D4"])
    assert state["units"]["n"]["hex"] == "D4"


def test_7_zoc_to_zoc_option_forbids_any_zoc_to_zoc():
    """Rule 7 as a scenario option: units may never move directly from one ZOC to another."""
    units = [
        unit("n", "nationalist", "infantry", 3, "E4"),
        unit("r1", "republican", "infantry", 3, "F4"),
        unit("r2", "republican", "infantry", 3, "C4"),
    ]
    state = board_state(units, options={"zoc_to_zoc": "any"})
    assert refused(state, ["n"], ["E4", "D4"]).rule == "7"


def test_5_strategic_movement_doubles_the_allowance():
    state = board_state([unit("n", "nationalist", "infantry", 3, "A1")])
    move(state, ["n"], row("A", 1, 10), mode="strategic")  # 9 hexes: more than 6
    assert state["units"]["n"]["strategic"] is True
    state = board_state([unit("n", "nationalist", "artillery", 3, "A1")])
    assert refused(state, ["n"], row("A", 1, 10), mode="strategic").rule == "5"  # 9 > 8


def test_5_strategic_movement_may_not_begin_in_or_enter_an_enemy_zoc():
    units = [
        unit("n", "nationalist", "infantry", 3, "E4"),
        unit("r", "republican", "infantry", 3, "E6"),
    ]
    state = board_state(units)
    err = refused(state, ["n"], ["E4", "E5"], mode="strategic")
    assert err.rule == "5" and "ZOC" in err.message
    units[0]["hex"] = "E5"
    state = board_state(units)
    err = refused(state, ["n"], ["E5", "E4"], mode="strategic")
    assert err.rule == "5" and "begin" in err.message


def test_5_out_of_command_halves_movement_and_may_not_enter_enemy_zoc():
    state = board_state(
        [
            unit("n", "nationalist", "infantry", 3, "E1"),
            unit("r", "republican", "infantry", 3, "E6"),
        ]
    )
    state["units"]["n"]["out_of_command"] = True
    assert refused(state, ["n"], row("E", 1, 5)).rule in ("5", "10")  # 4 hexes > 3
    move(state, ["n"], row("E", 1, 4))
    state = board_state(
        [
            unit("n", "nationalist", "infantry", 3, "E3"),
            unit("r", "republican", "infantry", 3, "E6"),
        ]
    )
    state["units"]["n"]["out_of_command"] = True
    assert refused(state, ["n"], ["E3", "E4", "E5"]).rule == "10"


def test_10_out_of_supply_halves_movement():
    state = board_state([unit("n", "nationalist", "infantry", 3, "A5")])
    state["units"]["n"]["out_of_supply"] = True
    assert refused(state, ["n"], row("A", 5, 1)).rule == "5"  # 4 hexes > 3
    move(state, ["n"], row("A", 5, 2))


def test_4b_out_of_supply_units_may_not_move_towards_enemy_units():
    state = board_state(
        [
            unit("n", "nationalist", "infantry", 3, "A3"),
            unit("r", "republican", "infantry", 3, "A9"),
        ]
    )
    state["units"]["n"]["out_of_supply"] = True
    assert refused(state, ["n"], ["A3", "A4"]).rule == "4"
    move(state, ["n"], ["A3", "A2"])


def test_5_guerrillas_ignore_the_first_zoc_but_not_the_second():
    units = [
        unit("g", "republican", "guerrilla", 1, "E1"),
        unit("n1", "nationalist", "infantry", 3, "D3"),
        unit("n2", "nationalist", "infantry", 3, "E7"),
    ]
    state = board_state(units, side="republican")
    move(state, ["g"], row("E", 1, 6), side="republican")  # E2-E4: n1's ZOC, ignored; E6: n2's
    assert state["units"]["g"]["hex"] == "E6"
    state = board_state(units, side="republican")
    err = refused(state, ["g"], row("E", 1, 6) + ["F6"], side="republican")  # stops in n2's ZOC
    assert err.rule == "7"


def test_2_guerrillas_never_enter_towns_or_cities():
    for kind in ("town", "city"):
        state = board_state(
            [unit("g", "republican", "guerrilla", 1, "A1")],
            side="republican",
            hex_features={"A2": [kind]},
        )
        assert refused(state, ["g"], ["A1", "A2"], side="republican").rule == "2"


def test_tec_road_costs_half_a_point_along_the_road():
    sides = [{"hexes": [f"A{c}", f"A{c + 1}"], "features": ["road"]} for c in range(1, 10)]
    state = board_state([unit("n", "nationalist", "artillery", 3, "A1")], hexsides=sides)
    move(state, ["n"], row("A", 1, 9))  # 8 road hexes = 4 MP
    assert state["units"]["n"]["hex"] == "A9"


@pytest.mark.parametrize(
    ("kind", "hexes"),
    [("leader", 10), ("infantry", 3), ("cavalry", 4), ("artillery", 1), ("armor", 3)],
)
def test_tec_mountain_costs_by_type(kind, hexes):
    """TEC: mountain 1 MP for leaders, 2 for infantry and cavalry, 3 for artillery and armor."""
    terrain = {f"A{c}": "mountain" for c in range(2, 13)}
    state = board_state([unit("n", "nationalist", kind, 3, "A1")], terrain=terrain)
    move(state, ["n"], row("A", 1, 1 + hexes))
    state = board_state([unit("n", "nationalist", kind, 3, "A1")], terrain=terrain)
    if 1 + hexes < 12:
        with pytest.raises(RuleViolation):
            move(state, ["n"], row("A", 1, 2 + hexes))


def test_tec_river_prohibited_to_artillery_and_armor_except_along_road():
    river = [{"hexes": ["A1", "A2"], "features": ["river"]}]
    for kind in ("artillery", "armor"):
        state = board_state([unit("n", "nationalist", kind, 3, "A1")], hexsides=river)
        assert refused(state, ["n"], ["A1", "A2"]).rule == "TEC"
    bridge = [{"hexes": ["A1", "A2"], "features": ["river", "road"]}]
    state = board_state([unit("n", "nationalist", "artillery", 3, "A1")], hexsides=bridge)
    move(state, ["n"], ["A1", "A2"])


def test_tec_river_costs_two_for_others():
    river = [{"hexes": ["A1", "A2"], "features": ["river"]}]
    state = board_state([unit("n", "nationalist", "infantry", 3, "A1")], hexsides=river)
    events = move(state, ["n"], row("A", 1, 6))  # 2 + 4 = 6
    assert events[0].data["costs"]["n"] == 6
    state = board_state([unit("n", "nationalist", "infantry", 3, "A1")], hexsides=river)
    assert refused(state, ["n"], row("A", 1, 7)).rule == "5"


def test_tec_town_and_city_cost_the_other_terrain():
    state = board_state(
        [unit("n", "nationalist", "infantry", 3, "A1")],
        hex_features={"A2": ["town"]},
        terrain={"A3": "mountain"},
    )
    events = move(state, ["n"], ["A1", "A2", "A3"])
    assert events[0].data["costs"]["n"] == 3


RAIL = [{"hexes": [f"B{c}", f"B{c + 1}"], "features": ["rail"]} for c in range(1, 10)]


def test_5_rail_movement_is_unlimited_along_controlled_rail_hexes():
    state = board_state(
        [unit("n", "nationalist", "infantry", 3, "B1")],
        hexsides=RAIL,
        data={"initial_control": {"nationalist": [1, 10]}},
    )
    move(state, ["n"], row("B", 1, 10), mode="rail")
    assert state["units"]["n"]["hex"] == "B10" and state["units"]["n"]["strategic"] is True


def test_5_rail_movement_only_along_rail_hexes_the_side_controls():
    state = board_state(
        [unit("n", "nationalist", "infantry", 3, "B1")], hexsides=RAIL
    )  # B6+ Republican
    err = refused(state, ["n"], row("B", 1, 7), mode="rail")
    assert err.rule == "5" and "control" in err.message
    move(state, ["n"], row("B", 1, 5), mode="rail")


def test_5_rail_movement_one_brigade_per_turn_armored_train_does_not_count():
    units = [
        unit("r1", "republican", "infantry", 3, "B10"),
        unit("r2", "republican", "infantry", 3, "B9"),
        unit("t", "republican", "train", 2, "B8"),
    ]
    state = board_state(units, side="republican", hexsides=RAIL)
    move(state, ["r1"], ["B10", "B9", "B8", "B7"], mode="rail", side="republican")
    err = refused(state, ["r2"], ["B9", "B8", "B7", "B6"], mode="rail", side="republican")
    assert "one brigade" in err.message
    move(state, ["t"], ["B8", "B7", "B6"], mode="rail", side="republican")
    assert state["units"]["t"]["hex"] == "B6"


def test_5_armored_train_unlimited_along_the_rail_line_only():
    state = board_state(
        [unit("t", "republican", "train", 2, "B10")], side="republican", hexsides=RAIL
    )
    move(state, ["t"], row("B", 10, 1), mode="rail", side="republican")
    assert state["units"]["t"]["hex"] == "B1"
    assert refused(state, ["t"], ["B1", "C1"], mode="rail", side="republican").rule == "5"


def test_6_units_never_enter_a_hex_with_enemy_units():
    state = board_state(
        [
            unit("n", "nationalist", "infantry", 3, "A1"),
            unit("r", "republican", "infantry", 3, "A3"),
        ]
    )
    assert refused(state, ["n"], ["A1", "A2", "A3"]).rule in ("6", "7")
    state = board_state(
        [
            unit("n", "nationalist", "infantry", 3, "A2"),
            unit("r", "republican", "infantry", 3, "A3"),
        ]
    )
    assert refused(state, ["n"], ["A2", "A3"]).rule == "6"
