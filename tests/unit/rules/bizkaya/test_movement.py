"""Movement in impulses (13), weather (3), terrain (1), stacking and echelons (4), ZoC (5)."""

from __future__ import annotations

import pytest

from service.rules.base import RuleViolation
from service.rules.bizkaya import board
from tests.unit.rules.bizkaya.conftest import board_state, event, play, ready, unit


def single(**kw):  # type: ignore[no-untyped-def]
    units = [unit("n1", "nationalist", "0104"), unit("r1", "republican", "0804")]
    return ready(board_state(units, **kw), "nationalist")


def test_13_a_unit_spends_at_most_6_4_2_mp_in_the_three_impulses() -> None:
    state = single()
    play(
        state,
        "nationalist",
        {"type": "move", "units": ["n1"], "path": ["0104", "0204", "0304", "0404"]},
    )
    assert state["units"]["n1"]["mp"] == 0  # 3 clear hexes at 2 MP
    state = single()
    state["impulse"] = 2
    with pytest.raises(RuleViolation) as info:
        play(
            state,
            "nationalist",
            {"type": "move", "units": ["n1"], "path": ["0104", "0204", "0304", "0404"]},
        )
    assert info.value.rule == "13" and "4 MP available" in info.value.message
    play(state, "nationalist", {"type": "move", "units": ["n1"], "path": ["0104", "0204", "0304"]})
    state["impulse"], state["units"]["n1"]["spent"] = 3, 0
    with pytest.raises(RuleViolation):  # 2 MP left this turn, but a third impulse allows 2
        play(
            state,
            "nationalist",
            {"type": "move", "units": ["n1"], "path": ["0304", "0404", "0504"]},
        )


def test_3_rainy_and_winter_weather_double_terrain_costs() -> None:
    state = single()
    state["weather"] = "rainy"
    events = play(state, "nationalist", {"type": "move", "units": ["n1"], "path": ["0104", "0204"]})
    assert event(events, "UnitsMoved")["cost"] == 4
    assert board.attack_cost(state, "0404") == 4


def test_1_roads_and_the_major_river_hexside_of_the_ferry() -> None:
    state = single(
        hexsides=[
            {"hexes": ["0104", "0204"], "features": ["road"]},
            {"hexes": ["0204", "0304"], "features": ["major_river", "no_combat"]},
        ]
    )
    events = play(
        state, "nationalist", {"type": "move", "units": ["n1"], "path": ["0104", "0204", "0304"]}
    )
    assert event(events, "UnitsMoved")["costs"] == [1, 4]  # road 1; clear 2 + major river 2


def test_13_a_stack_moves_at_its_slowest_and_joins_at_the_lowest_marker() -> None:
    units = [
        unit("a", "nationalist", "0104"),
        unit("b", "nationalist", "0104"),
        unit("c", "nationalist", "0304"),
        unit("r1", "republican", "0804"),
    ]
    state = ready(board_state(units), "nationalist")
    state["units"]["b"]["mp"] = 2
    with pytest.raises(RuleViolation):
        play(
            state,
            "nationalist",
            {"type": "move", "units": ["a", "b"], "path": ["0104", "0204", "0304"]},
        )
    play(state, "nationalist", {"type": "move", "units": ["a"], "path": ["0104", "0204", "0304"]})
    assert state["units"]["a"]["mp"] == 2 and state["units"]["c"]["mp"] == 2


def test_13_units_move_before_the_barrages() -> None:
    units = [
        unit("n1", "nationalist", "0304"),
        unit("art", "nationalist", "0304", kind="artillery-light", barrage=12, steps=1),
        unit("r1", "republican", "0404"),
        unit("n2", "nationalist", "0102"),
    ]
    state = ready(board_state(units), "nationalist")
    play(
        state, "nationalist", {"type": "barrage", "hex": "0404", "artillery": ["art"]}, dice=[1, 6]
    )
    with pytest.raises(RuleViolation) as info:
        play(state, "nationalist", {"type": "move", "units": ["n2"], "path": ["0102", "0202"]})
    assert "before the barrages" in info.value.message


def test_4_ten_steps_in_the_first_echelon_five_and_five_in_the_second_mountain_five_three_two() -> (
    None
):
    units = [unit(f"b{i}", "nationalist", "0204") for i in range(3)] + [
        unit("x", "nationalist", "0104"),
        unit("r1", "republican", "0804"),
    ]
    state = ready(board_state(units, terrain={"0304": "mountain"}), "nationalist")
    with pytest.raises(RuleViolation) as info:  # 9 + 3 steps
        play(state, "nationalist", {"type": "move", "units": ["x"], "path": ["0104", "0204"]})
    assert info.value.rule == "4"
    play(
        state,
        "nationalist",
        {"type": "move", "units": ["x"], "path": ["0104", "0204"], "echelon": 2},
    )
    assert state["units"]["x"]["echelon"] == 2
    assert board.limits(state, "0304") == {"first": 5, "second_combat": 3, "second_support": 2}
    assert board.stacking_problems(state, "0304", [state["units"]["b0"], state["units"]["b1"]])


def test_4_fewer_combat_units_in_the_second_echelon_or_all_move_up() -> None:
    state = single()
    play(state, "nationalist", {"type": "set_echelon", "units": ["n1"], "echelon": 2})
    assert state["units"]["n1"]["echelon"] == 1  # alone: it cannot stay in the second echelon


def test_4_artillery_stays_in_the_second_echelon() -> None:
    units = [
        unit("a", "nationalist", "0104", kind="artillery-heavy", barrage=6, steps=1),
        unit("n", "nationalist", "0104"),
        unit("r", "republican", "0804"),
    ]
    state = ready(board_state(units), "nationalist")
    with pytest.raises(RuleViolation):
        play(state, "nationalist", {"type": "set_echelon", "units": ["a"], "echelon": 1})
    assert state["units"]["a"]["echelon"] == 2


def test_5_zoc_of_zoc_units_and_artillery_not_into_mountain_or_city_nor_out_of_supply() -> None:
    units = [
        unit("plain", "republican", "0404"),
        unit("star", "republican", "0604", zoc=1),
        unit("art", "republican", "0207", kind="artillery-light", barrage=1, steps=1),
        unit("n", "nationalist", "0101"),
    ]
    state = board_state(
        units,
        terrain={"0704": "mountain"},
        hex_features={"0503": ["city"]},
        hexsides=[{"hexes": ["0604", "0605"], "features": ["mountain"]}],
    )
    zoc = board.zoc_of(state, "republican")
    assert {"0603", "0504"} <= zoc  # the ZoC symbol projects into adjacent hexes
    assert "0704" not in zoc and "0503" not in zoc and "0605" not in zoc
    assert "0206" in zoc  # artillery projects a ZoC
    assert not ({"0304", "0305"} & zoc)  # a unit without the symbol only in its own hex
    state["units"]["star"]["oos"] = True
    assert "0603" not in board.zoc_of(state, "republican")


def test_13_entering_enemy_zoc_costs_the_placeholder_extra() -> None:
    units = [unit("n1", "nationalist", "0204"), unit("star", "republican", "0404", zoc=1)]
    state = ready(board_state(units), "nationalist")
    events = play(state, "nationalist", {"type": "move", "units": ["n1"], "path": ["0204", "0304"]})
    assert event(events, "UnitsMoved")["cost"] == 3


def test_10_supply_is_blocked_by_enemy_zoc_unless_a_friendly_unit_is_there() -> None:
    units = [
        unit("n1", "nationalist", "0304"),
        unit("z1", "republican", "0205", zoc=1),
        unit("z2", "republican", "0203", zoc=1),
    ]
    state = board_state(units)
    assert "0304" not in board.supplied(state, "nationalist")
    state["units"]["n2"] = {**state["units"]["n1"], "id": "n2", "hex": "0204"}
    assert "0304" in board.supplied(state, "nationalist")
