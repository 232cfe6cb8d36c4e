"""Rule 8 combat on the board, with rule 2 (tanks, leaders) and the TEC's combat effects."""

from __future__ import annotations

import pytest

from service.rules.base import RuleViolation
from tests.unit.rules.merida.conftest import board_state, play, unit


def attack(state, attackers, hex_, dice, side="nationalist"):
    return play(state, side, {"type": "attack", "attackers": attackers, "hex": hex_}, dice)[0].data


def duel(att=3, dfn=3, att_kind="infantry", dfn_kind="infantry", extra=(), **kw):
    units = [
        unit("a", "nationalist", att_kind, att, "E4"),
        unit("d", "republican", dfn_kind, dfn, "E5"),
        *extra,
    ]
    return board_state(units, phase="combat", **kw)


@pytest.mark.parametrize(
    ("att", "dfn", "column"),
    [
        (5, 3, "1-1"),
        (3, 5, "1-2"),
        (11, 4, "2-1"),
        (5, 11, "1-3"),
        (1, 5, "1-4"),
        (40, 3, "6-1"),
        (6, 1, "6-1"),
    ],
)
def test_8_odds_rounded_down_in_the_defenders_favour(att, dfn, column):
    """Rule 8: always round down in favour of the defender; worse than 1-4 is 1-4, better than 6-1
    is 6-1 (CRT notes)."""
    state = duel(att, dfn)
    assert attack(state, ["a"], "E5", [3])["column"] == column


def test_8_crt_lookup_with_the_die():
    """Rule 8: find the column, roll one die: 1-1 with a 4 is EX."""
    state = duel(3, 3)
    record = attack(state, ["a"], "E5", [4])
    assert (record["column"], record["die"]["value"], record["result"]) == ("1-1", 4, "EX")
    assert set(record["eliminated"]) == {"a", "d"}


def test_8_dr_defender_retreats_one_hex_and_attacker_may_advance():
    state = duel(6, 3)  # 2-1, roll 4: DR
    record = attack(state, ["a"], "E5", [4])
    assert record["result"] == "DR"
    assert len(record["retreats"][0]["path"]) == 2 and state["units"]["d"]["hex"] != "E5"
    assert record["advance"] == {"hex": "E5", "units": ["a"], "extra_mp": 0}
    play(state, "nationalist", {"type": "advance", "units": ["a"], "path": ["E5"]})
    assert state["units"]["a"]["hex"] == "E5"


def test_8_ar_attackers_retreat_one_hex():
    state = duel(3, 3)  # 1-1 roll 2: AR
    record = attack(state, ["a"], "E5", [2])
    assert record["result"] == "AR" and state["units"]["a"]["hex"] != "E4"
    assert record["advance"] is None


def test_8_a2_attackers_lose_two_units():
    units = [
        unit("a1", "nationalist", "infantry", 1, "E4"),
        unit("a2", "nationalist", "infantry", 2, "E4"),
        unit("a3", "nationalist", "infantry", 3, "E4"),
        unit("d", "republican", "infantry", 12, "E5"),
    ]
    state = board_state(units, phase="combat")
    record = attack(state, ["a1", "a2", "a3"], "E5", [1])  # 1-2, roll 1: A1? column 1-2 roll 1 = A1
    assert record["column"] == "1-2" and record["result"] == "A1"
    assert record["eliminated"] == ["a1"]


def test_8_worked_example_unfilled_results_become_extra_movement_points():
    """Rule 8 example: a loss of 3 with one defending unit present leaves 2 unfilled results, which
    turn into 4 extra movement points for the advance."""
    state = duel(18, 3)  # 6-1, roll 5: D3
    record = attack(state, ["a"], "E5", [5])
    assert record["result"] == "D3" and record["unfilled"] == 2
    assert record["advance"]["extra_mp"] == 4
    play(
        state,
        "nationalist",
        {"type": "advance", "units": ["a"], "path": ["E5", "E6", "E7", "E8", "E9"]},
    )
    assert state["units"]["a"]["hex"] == "E9"


def test_8_advance_limited_to_the_extra_points_and_first_hex_vacated():
    state = duel(18, 3)
    attack(state, ["a"], "E5", [5])
    with pytest.raises(RuleViolation) as err:
        play(
            state,
            "nationalist",
            {"type": "advance", "units": ["a"], "path": ["E5", "E6", "E7", "E8", "E9", "E10"]},
        )
    assert err.value.rule == "8"
    with pytest.raises(RuleViolation) as err:
        play(state, "nationalist", {"type": "advance", "units": ["a"], "path": ["E3"]})
    assert "vacated" in err.value.message


def test_8_advancing_units_ignore_enemy_zocs():
    extra = [unit("z", "republican", "infantry", 3, "E8")]
    state = duel(18, 3, extra=extra)
    attack(state, ["a"], "E5", [5])
    play(
        state, "nationalist", {"type": "advance", "units": ["a"], "path": ["E5", "E6", "E7"]}
    )  # E6, E7: z's ZOC
    assert state["units"]["a"]["hex"] == "E7"


def test_8_retreat_into_enemy_zoc_eliminates():
    """Rule 8: units may not retreat into or through an enemy ZOC; eliminated instead."""
    extra = [
        unit(f"z{i}", "nationalist", "infantry", 1, h) for i, h in enumerate(["D6", "F6", "E7"])
    ]
    state = duel(6, 3, extra=extra)  # every hex around E5 is next to a Nationalist unit
    record = attack(state, ["a"], "E5", [4])
    assert record["result"] == "DR" and record["eliminated"] == ["d"]


def test_8_retreat_into_prohibited_terrain_eliminates():
    sides = [{"hexes": ["E5", h], "features": ["river"]} for h in ["D5", "E6", "F4", "F5", "F6"]]
    units = [
        unit("a", "nationalist", "infantry", 6, "E4"),
        unit("d", "republican", "artillery", 3, "E5"),
    ]
    state = board_state(units, phase="combat", hexsides=sides)
    record = attack(state, ["a"], "E5", [4])
    assert record["result"] == "DR" and record["eliminated"] == ["d"]


def test_8_retreat_displaces_rather_than_overstacking():
    """Rule 8: stacking limits apply in retreats; the retreating player may displace units."""
    full = [unit(f"f{i}", "republican", "infantry", 1, "E6") for i in range(3)]
    extra = [unit("z", "nationalist", "infantry", 1, "G6"), *full]  # G6 blocks F5 and F6
    state = duel(6, 3, extra=extra)
    record = attack(state, ["a"], "E5", [4])
    assert record["result"] == "DR"
    assert "d" not in record["eliminated"] and record["displaced"]


def test_tec_town_attacker_minus_one_and_defenders_ignore_retreats():
    state = duel(6, 3, hex_features={"E5": ["town"]})  # 2-1, roll 5-1 = 4: DR
    record = attack(state, ["a"], "E5", [5])
    assert {"cause": "defender in a town", "value": -1, "rule": "TEC"} in record["modifiers"]
    assert record["modified_roll"] == 4 and record["result"] == "DR"
    assert state["units"]["d"]["hex"] == "E5" and record["retreats"] == []


@pytest.mark.parametrize(
    ("kw", "column"),
    [({"terrain": {"E5": "mountain"}}, "1-1"), ({"hex_features": {"E5": ["city"]}}, "1-1")],
)
def test_tec_city_and_mountain_double_the_defender(kw, column):
    state = duel(6, 3, **kw)
    assert attack(state, ["a"], "E5", [3])["column"] == column


def test_tec_river_doubles_only_when_attacked_exclusively_across_it():
    river = [{"hexes": ["E4", "E5"], "features": ["river"]}]
    state = duel(6, 3, hexsides=river)
    assert attack(state, ["a"], "E5", [3])["column"] == "1-1"
    extra = [unit("b", "nationalist", "infantry", 1, "D5")]
    state = duel(6, 3, hexsides=river, extra=extra)
    assert attack(state, ["a", "b"], "E5", [3])["column"] == "2-1"


def test_8_armor_modifier_one_effect_per_side():
    """Rule 8: +1 for attacking armor, -1 for defending armor; several tanks add nothing more (rule 2)."""
    extra = [
        unit("t1", "nationalist", "armor", 1, "E4"),
        unit("t2", "nationalist", "armor", 1, "E4"),
    ]
    state = duel(4, 3, extra=extra)  # 6 vs 3: 2-1
    record = attack(state, ["a", "t1", "t2"], "E5", [3])
    assert [m["value"] for m in record["modifiers"]] == [1] and record["modified_roll"] == 4
    state = duel(6, 3, extra=[unit("dt", "republican", "armor", 0, "E5")])
    record = attack(state, ["a"], "E5", [3])
    assert [m["value"] for m in record["modifiers"]] == [-1]


def test_2_tanks_may_not_attack_by_themselves():
    state = duel(6, 3, att_kind="armor")
    with pytest.raises(RuleViolation) as err:
        attack(state, ["a"], "E5", [])
    assert err.value.rule == "2"


def test_2_tanks_alone_when_attacked_are_eliminated():
    state = duel(3, 9, dfn_kind="armor")
    record = attack(state, ["a"], "E5", [])
    assert record["result"] == "tanks alone" and record["eliminated"] == ["d"]


def test_2_leaders_add_to_attack_and_defence_and_die_with_their_stack():
    extra = [
        unit("la", "nationalist", "leader", 3, "E4"),
        unit("ld", "republican", "leader", 1, "E5"),
    ]
    state = duel(6, 2, extra=extra)  # 9 vs 3: 3-1
    record = attack(state, ["a", "la"], "E5", [7 - 1])  # 3-1 roll 6: D1
    assert record["column"] == "3-1" and record["result"] == "D1"
    assert set(record["eliminated"]) == {"d", "ld"}


@pytest.mark.parametrize(("option", "roll", "result"), [(2, 3, "DR"), (-2, 3, "AR")])
def test_8_strategic_movement_modifier_and_its_rule_5_option(option, roll, result):
    """Rule 8: +2 if the defender moved strategically in the previous phase (the default); the
    scenario option reads rule 5 literally (the attacker subtracts 2)."""
    state = duel(6, 3, options={"strategic_modifier": option})  # 2-1
    state["units"]["d"]["strategic"] = True
    record = attack(state, ["a"], "E5", [roll])
    assert record["modified_roll"] == roll + option and record["result"] == result
    assert record["modifiers"][0]["rule"] == ("8" if option == 2 else "5")


def test_10_out_of_supply_halves_combat_strength():
    state = duel(6, 3)
    state["units"]["a"]["out_of_supply"] = True
    assert attack(state, ["a"], "E5", [3])["column"] == "1-1"


def test_8_each_unit_attacks_and_is_attacked_once_per_turn():
    extra = [
        unit("d2", "republican", "infantry", 3, "D5"),
        unit("b", "nationalist", "infantry", 6, "F4"),
    ]
    state = duel(6, 3, extra=extra, hex_features={"E5": ["town"], "D5": ["town"]})
    attack(state, ["a"], "E5", [5])  # 2-1, 5-1 = 4: DR, ignored in the town
    with pytest.raises(RuleViolation) as err:
        attack(state, ["a"], "D5", [])
    assert err.value.rule == "8"
    with pytest.raises(RuleViolation) as err:
        attack(state, ["b"], "E5", [])
    assert err.value.rule == "8" and "already" in err.value.message


def test_4d_units_out_of_command_may_not_attack():
    state = duel(6, 3)
    state["units"]["a"]["out_of_command"] = True
    with pytest.raises(RuleViolation) as err:
        attack(state, ["a"], "E5", [])
    assert err.value.rule == "4"


def test_5_strategic_movers_may_not_attack():
    state = duel(6, 3)
    state["units"]["a"]["strategic"] = True
    with pytest.raises(RuleViolation) as err:
        attack(state, ["a"], "E5", [])
    assert err.value.rule == "5"


def test_8_attackers_may_split_across_hexes_and_are_not_forced_together():
    extra = [
        unit("a2", "nationalist", "infantry", 3, "E4"),
        unit("d2", "republican", "infantry", 3, "D4"),
    ]
    state = duel(3, 3, extra=extra, hex_features={"E5": ["town"], "D4": ["town"]})
    attack(state, ["a"], "E5", [4])
    attack(state, ["a2"], "D4", [4])
    assert state["units"]["a"]["attacked"] and state["units"]["a2"]["attacked"]


def test_8_units_in_an_enemy_zoc_must_attack():
    state = duel(3, 3)
    with pytest.raises(RuleViolation) as err:
        play(state, "nationalist", {"type": "end_phase"})
    assert err.value.rule == "8" and "must attack" in err.value.message


def test_8_all_units_exerting_a_zoc_must_be_attacked():
    extra = [
        unit("d2", "republican", "infantry", 3, "D5"),
        unit("b", "nationalist", "infantry", 3, "F4"),
    ]
    state = duel(9, 3, extra=extra, hex_features={"E5": ["town"], "D5": ["town"]})
    attack(state, ["a", "b"], "E5", [5])  # both used on E5; d2 still exerts a ZOC on a
    play(state, "nationalist", {"type": "end_phase"})  # no one left who could attack d2
    extra.append(unit("c", "nationalist", "infantry", 3, "C5"))  # c could still attack d2
    state = duel(9, 3, extra=extra, hex_features={"E5": ["town"], "D5": ["town"]})
    attack(state, ["a", "b"], "E5", [5])
    with pytest.raises(RuleViolation) as err:
        play(state, "nationalist", {"type": "end_phase"})
    assert err.value.rule == "8" and "must" in err.value.message


def test_8_defenders_defend_as_a_stack():
    extra = [unit("d2", "republican", "infantry", 3, "E5")]
    state = duel(12, 3, extra=extra)  # 12 vs 6: 2-1
    record = attack(state, ["a"], "E5", [3])
    assert record["defenders"] == ["d", "d2"] and record["column"] == "2-1"
