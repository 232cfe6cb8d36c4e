"""Artillery barrages (12) and air power (14)."""

from __future__ import annotations

import pytest

from service.rules.base import RuleViolation
from service.rules.bizkaya import barrage
from tests.unit.rules.bizkaya.conftest import board_state, event, play, ready, types, unit


def setup_barrage(**kw):  # type: ignore[no-untyped-def]
    units = [
        unit("n1", "nationalist", "0304", attack=6),
        unit("g1", "nationalist", "0304", kind="artillery-heavy", barrage=10, steps=1),
        unit("g2", "nationalist", "0204", kind="artillery-light", barrage=4, steps=1),
        unit("r1", "republican", "0404", morale=3),
        unit("r2", "republican", "0404", morale=2, steps=1, kind="battalion"),
        unit("r3", "republican", "0404", morale=2, steps=1, kind="battalion"),
    ]
    state = ready(board_state(units, **kw), "nationalist")
    state["units"]["r3"]["echelon"] = 2
    return state


def test_12_worked_example_two_groups_14_factors_on_an_entrenched_hex() -> None:
    state = setup_barrage()
    state["trenches"]["0404"] = {"side": "republican", "status": "complete", "unit": None}
    events = play(
        state,
        "nationalist",
        {"type": "barrage", "hex": "0404", "artillery": ["g1", "g2"], "losses": ["r2"]},
        dice=[5, 4],
    )
    b = event(events, "BarrageResolved")
    assert (b["factors"], b["column"], b["die"]["value"], b["modified"], b["result"]) == (
        14,
        "12",
        5,
        4,
        "1",
    )
    assert b["losses"] == [{"unit": "r2", "steps": 1}]  # the firing player chose the step (12)
    assert [c["unit"] for c in b["morale_checks"]] == ["r1"]  # the survivors of the first echelon
    assert b["morale_checks"][0]["passed"] is False and state["units"]["r1"]["demoralized"]
    assert state["units"]["r3"]["steps"] == 1  # 4: the second echelon is immune
    assert state["stage"] == "barrage" and state["barraged"] == ["0404"]


def test_12_one_barrage_per_hex_per_impulse_and_each_artillery_fires_once() -> None:
    state = setup_barrage()
    play(state, "nationalist", {"type": "barrage", "hex": "0404", "artillery": ["g1"]}, dice=[1])
    with pytest.raises(RuleViolation) as info:
        play(state, "nationalist", {"type": "barrage", "hex": "0404", "artillery": ["g2"]})
    assert "already received a barrage" in info.value.message


def test_12_the_target_is_adjacent_to_a_friendly_unit() -> None:
    state = setup_barrage()
    state["units"]["n1"]["hex"] = "0104"
    state["units"]["g1"]["hex"] = "0104"
    with pytest.raises(RuleViolation) as info:
        play(state, "nationalist", {"type": "barrage", "hex": "0404", "artillery": ["g2"]})
    assert "adjacent to a friendly unit" in info.value.message


def test_12_a_barrage_must_be_followed_by_an_attack_on_its_hex() -> None:
    state = setup_barrage()
    play(
        state,
        "nationalist",
        {"type": "barrage", "hex": "0404", "artillery": ["g1", "g2"]},
        dice=[1, 6, 6],
    )
    with pytest.raises(RuleViolation) as info:
        play(state, "nationalist", {"type": "end_impulse"})
    assert info.value.rule == "12"
    play(state, "nationalist", {"type": "attack", "hex": "0404", "units": ["n1"]})
    assert state["stage"] == "attack" and state["attacked_hexes"] == ["0404"]
    with pytest.raises(RuleViolation) as info:  # 13: barrages come before the attacks
        barrage.check(state, "nationalist", {"hex": "0504", "artillery": ["g2"]})
    assert info.value.rule == "13"


def test_12_siege_artillery_doubled_against_level_2_cities_and_idle_after_moving() -> None:
    places = [{"name": "city", "hex": "0404", "kind": "city", "values": {"level": 2}}]
    state = setup_barrage(places=places)
    state["units"]["g1"]["art"] = "siege"
    events = play(
        state,
        "nationalist",
        {"type": "barrage", "hex": "0404", "artillery": ["g1"]},
        dice=[1, 6, 6],
    )
    assert event(events, "BarrageResolved")["factors"] == 20
    state = setup_barrage()
    state["units"]["g1"].update(art="siege", moved=True)
    with pytest.raises(RuleViolation) as info:
        play(state, "nationalist", {"type": "barrage", "hex": "0404", "artillery": ["g1"]})
    assert "moved this turn" in info.value.message


def test_10_artillery_out_of_supply_may_not_fire() -> None:
    state = setup_barrage()
    state["units"]["g1"]["oos"] = True
    with pytest.raises(RuleViolation) as info:
        play(state, "nationalist", {"type": "barrage", "hex": "0404", "artillery": ["g1"]})
    assert info.value.rule == "12" and "out of supply" in info.value.message


def test_14_air_modules_of_three_factors_plus_one_only_nationalist_eight_a_turn() -> None:
    state = setup_barrage()
    events = play(
        state,
        "nationalist",
        {"type": "barrage", "hex": "0404", "artillery": ["g2"], "air": 2},
        dice=[1, 6, 6],
    )
    b = event(events, "BarrageResolved")
    assert b["factors"] == 10 and b["column"] == "10" and b["modified"] == 2
    assert ("combined barrage with air units", 1) in [
        (m["cause"], m["value"]) for m in b["modifiers"]
    ]
    state["air_used"] = 8
    state["barraged"] = []
    with pytest.raises(RuleViolation) as info:
        play(state, "nationalist", {"type": "barrage", "hex": "0404", "artillery": [], "air": 1})
    assert info.value.rule == "14"


def test_4_support_units_alone_are_eliminated_when_bombarded() -> None:
    units = [
        unit("n1", "nationalist", "0304"),
        unit("g1", "nationalist", "0304", kind="artillery-heavy", barrage=10, steps=1),
    ]
    units.append(unit("ra", "republican", "0404", kind="artillery-light", barrage=1, steps=1))
    state = ready(board_state(units), "nationalist")
    events = play(
        state, "nationalist", {"type": "barrage", "hex": "0404", "artillery": ["g1"]}, dice=[1]
    )
    assert event(events, "BarrageResolved")["eliminated"] == ["ra"]
    assert state["units"]["ra"]["status"] == "eliminated"


def test_12_in_the_reserve_impulse_only_stacks_that_moved_this_turn() -> None:
    state = setup_barrage()
    state["phase"] = "reserve"
    state["side"] = "republican"  # the Nationalist is the non-active player
    with pytest.raises(RuleViolation) as info:
        play(state, "nationalist", {"type": "barrage", "hex": "0404", "artillery": ["g1"]})
    assert "moved this turn" in info.value.message
    state["units"]["r1"]["moved"] = True
    events = play(
        state, "nationalist", {"type": "barrage", "hex": "0404", "artillery": ["g1"]}, dice=[1]
    )
    assert types(events) == ["BarrageResolved"]
