"""Combat odds, column shifts, die modifiers and caps (3, 9.1, 9.2, 10.2, 12.3, 16.1-16.4)."""

from __future__ import annotations

from typing import Any

import pytest

from service.rules.backbone.combat import CombatError, base_ratio, evaluate


def unit(uid: str, factor: int, eff: int = 2, steps: int = 2, **extra: Any) -> dict[str, Any]:
    return {
        "id": uid,
        "attack": factor,
        "defense": factor,
        "efficiency": eff,
        "steps": steps,
        **extra,
    }


def situation(**extra: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "attacker_side": "allied",
        "terrain": "clear",
        "attackers": [unit("a", 6, nation="us")],
        "defenders": [unit("d", 2, nation="es")],
    }
    base.update(extra)
    return base


def shifts(result: dict[str, Any]) -> dict[str, int]:
    return {s["source"]: s["columns"] for s in result["column_shifts"]}


def test_16_2_ratio_rounded_down_17_to_5_is_3_to_1() -> None:
    assert base_ratio(17, 5) == (3, "3:1")
    assert base_ratio(5, 9) == (0, "1:2")
    assert base_ratio(3, 10)[0] < 0


def test_16_1_ratios_above_6_to_1_use_6_to_1() -> None:
    result = evaluate(situation(attackers=[unit("a", 20, nation="us")]))
    assert result["column"] == "6:1" and result["column_capped"]


def test_16_1_final_ratio_below_1_to_2_cannot_attack() -> None:
    with pytest.raises(CombatError) as err:
        evaluate(situation(attackers=[unit("a", 1, nation="us")], defenders=[unit("d", 6)]))
    assert err.value.rule == "16.1"
    # 3 vs 5 is 1:2; a city shifts it below 1:2
    with pytest.raises(CombatError):
        evaluate(situation(attackers=[unit("a", 3)], defenders=[unit("d", 5)], city=True))


def test_3_halved_factor_is_at_least_1() -> None:
    result = evaluate(situation(attackers=[unit("a", 1, across_river=True, nation="us")]))
    assert result["attack"]["total"] == 1


def test_16_3_river_halves_by_stack_and_12_2_out_of_supply_halves() -> None:
    result = evaluate(
        situation(
            attackers=[
                unit("a", 5, **{"from": "x"}, across_river=True),
                unit("b", 4, **{"from": "x"}, across_river=True),
            ],
            defenders=[unit("d", 3, out_of_supply=True)],
        )
    )
    assert result["attack"]["total"] == 4  # (5 + 4) / 2 rounded down
    assert result["defense"]["total"] == 1


@pytest.mark.parametrize(("hexes", "columns"), [(3, 0), (4, 1), (5, 2), (6, 3)])
def test_16_3_envelopment_shifts(hexes: int, columns: int) -> None:
    result = evaluate(situation(attack_hexes=hexes))
    assert shifts(result).get(f"envelopment from {hexes} hexes", 0) == columns


@pytest.mark.parametrize(
    ("terrain", "city", "columns", "drm"),
    [
        ("clear", False, 0, 0),
        ("broken", False, 0, -1),
        ("clear", True, -1, 0),
        ("half_mountain", False, -1, 0),
        ("mountain", False, -2, 0),
    ],
)
def test_16_3_terrain_effects(terrain: str, city: bool, columns: int, drm: int) -> None:
    result = evaluate(situation(terrain=terrain, city=city, roll=3))
    assert sum(shifts(result).values()) == columns
    assert result["caps"]["defender"]["applied"] == drm


def test_16_3_mountain_attack_by_armor_only_along_a_road() -> None:
    armor = unit("t", 8, tags=["armor"])
    with pytest.raises(CombatError) as err:
        evaluate(situation(terrain="mountain", attackers=[armor]))
    assert err.value.rule == "16.3"
    assert evaluate(situation(terrain="mountain", attackers=[{**armor, "via_road": True}]))


def test_16_3_efficiency_difference_one_column_per_point() -> None:
    result = evaluate(situation(attackers=[unit("a", 6, eff=3)], defenders=[unit("d", 2, eff=1)]))
    assert shifts(result)["efficiency difference"] == 2
    assert result["column"] == "5:1"


def test_16_3_efficiency_example_most_steps_and_tie_choice() -> None:
    """16.3 example: 4 steps eff 2 + 3 steps eff 3 use 2; 2 eff 1 + 2 eff 2 may choose."""
    attackers = [unit("a2", 4, eff=2, steps=4), unit("a3", 4, eff=3, steps=3)]
    defenders = [unit("d1", 2, eff=1, steps=2), unit("d2", 2, eff=2, steps=2)]
    one = evaluate(situation(attackers=attackers, defenders=defenders, defender={"efficiency": 1}))
    two = evaluate(situation(attackers=attackers, defenders=defenders, defender={"efficiency": 2}))
    assert one["efficiency"]["attacker"]["used"] == 2
    assert one["efficiency"]["defender"]["tied"] == [1, 2]
    assert shifts(one)["efficiency difference"] == 1
    assert "efficiency difference" not in shifts(two)
    with pytest.raises(CombatError):
        evaluate(situation(attackers=attackers, defenders=defenders, attacker={"efficiency": 3}))


def test_16_3_note_fjr_counted_as_efficiency_2_or_3() -> None:
    """16.3 note example: 4 eff 1, 2 eff 2, 3 eff 3 (FJR): the FJR as 2 makes 5 steps of eff 2."""
    fjr = unit("fjr", 5, eff=3, steps=3, efficiency_options=[3, 2], nation="de")
    stack = [unit("e1", 2, eff=1, steps=4), unit("e2", 2, eff=2, steps=2), fjr]
    as3 = evaluate(situation(defenders=stack, attackers=[unit("a", 30)]))
    assert as3["efficiency"]["defender"]["used"] == 1
    stack[2] = {**fjr, "efficiency_as": 2}
    as2 = evaluate(situation(defenders=stack, attackers=[unit("a", 30)]))
    assert as2["efficiency"]["defender"]["used"] == 2


def test_16_3_attacker_drm_capped_at_6_and_defender_at_3() -> None:
    result = evaluate(
        situation(
            terrain="broken",
            fortifications=3,
            coast="atlantic",
            attackers=[unit("a", 6, tags=["engineer"], nation="us")],
            city=True,
            attacker={"hq": True, "air": 3, "naval": 1},
            defender={"air": 1},
            roll=1,
        )
    )
    assert result["caps"]["attacker"] == {"raw": 7, "applied": 6, "cap": 6, "rule": "16.3"}
    assert result["caps"]["defender"]["raw"] == -5
    assert result["caps"]["defender"]["applied"] == -3
    assert result["net_drm"] == 3 and result["modified_roll"] == 4


def test_16_4_at_most_3_air_points_per_side_and_combat() -> None:
    with pytest.raises(CombatError) as err:
        evaluate(situation(attacker={"air": 4}))
    assert err.value.field == "attacker.air"


def test_16_3_naval_support_by_coast() -> None:
    with pytest.raises(CombatError):
        evaluate(situation(attacker={"naval": 1}))  # not a coastal hex
    with pytest.raises(CombatError):
        evaluate(situation(coast="strait", attacker={"naval": 1}))  # Strait not Allied
    with pytest.raises(CombatError):
        evaluate(situation(coast="atlantic", attacker={"naval": 2}))
    ok = evaluate(situation(coast="atlantic", strait_controlled=True, attacker={"naval": 2}))
    assert ok["caps"]["attacker"]["applied"] == 2
    spanish = situation(attacker_side="spanish", coast="atlantic", attacker={"naval": 1})
    with pytest.raises(CombatError):
        evaluate(spanish)


def test_9_1_hq_support_is_2_allied_and_1_spanish() -> None:
    allied = evaluate(situation(attacker={"hq": True}, defender={"hq": True}))
    assert allied["net_drm"] == 2 - 1
    spanish = evaluate(situation(attacker_side="spanish", attacker={"hq": True}))
    assert spanish["net_drm"] == 1


def test_9_2_legion_drm_and_first_loss() -> None:
    defenders = [unit("ri", 2, eff=1), unit("leg", 2, eff=2, tags=["legion"])]
    result = evaluate(situation(defenders=defenders, defender={"legion": True, "efficiency": 1}))
    assert result["net_drm"] == -1
    assert result["first_loss"]["defender"] == ["leg"]
    with pytest.raises(CombatError):
        evaluate(situation(defender={"legion": True}))  # no Legion unit present


def test_9_2_engineers_plus_1_against_city_or_fortification_and_first_loss() -> None:
    attackers = [unit("inf", 6, eff=2, steps=4), unit("eng", 2, eff=2, tags=["engineer"])]
    clear = evaluate(situation(attackers=attackers))
    assert clear["net_drm"] == 0
    fort = evaluate(situation(attackers=attackers, fortifications=1))
    assert fort["die_modifiers"]["attacker"][0]["rule"] == "9.2"
    assert fort["first_loss"]["attacker"] == ["eng"]


def test_10_2_dissensions_penalise_mixed_spanish_german_stacks() -> None:
    mixed = [unit("es", 2, nation="es"), unit("de", 2, nation="de")]
    result = evaluate(situation(defenders=mixed, dissensions=True))
    assert result["die_modifiers"]["defender"] == [
        {"source": "Dissensions in the Axis", "drm": 1, "rule": "10.2"}
    ]
    assert evaluate(situation(defenders=mixed))["net_drm"] == 0


def test_12_3_limited_offensive_supply_one_column() -> None:
    result = evaluate(situation(limited_offensive_supply=True))
    assert shifts(result)["limited offensive supply"] == -1


def test_16_1_us_and_british_cannot_attack_together() -> None:
    with pytest.raises(CombatError) as err:
        evaluate(situation(attackers=[unit("a", 3, nation="us"), unit("b", 3, nation="uk")]))
    assert err.value.rule == "16.1"


def test_4_hq_defence_counts_only_alone() -> None:
    hq = unit("hq", 2, tags=["hq"])
    assert evaluate(situation(defenders=[hq]))["defense"]["total"] == 2
    together = evaluate(situation(defenders=[hq, unit("d", 3)]))
    assert together["defense"]["total"] == 3


def test_16_7_retreated_units_add_no_defence_except_against_exploitation() -> None:
    defenders = [unit("d", 3), unit("r", 2, retreated=True)]
    assert evaluate(situation(defenders=defenders))["defense"]["total"] == 3
    armor = [unit("t", 6, tags=["armor"])]
    result = evaluate(situation(defenders=defenders, attackers=armor, exploitation=True))
    assert result["defense"]["total"] == 5
    with pytest.raises(CombatError):
        evaluate(situation(exploitation=True))  # only armor exploits
    with pytest.raises(CombatError):
        evaluate(situation(attackers=armor, exploitation=True, attacker={"air": 1}))


@pytest.mark.parametrize("support", [{"air": 1}, {"naval": 1}, {"hq": True}])
def test_16_7_an_exploitation_attack_receives_no_support(support: dict[str, Any]) -> None:
    """16.7: the armored units exploiting attack without any air, naval or HQ support."""
    armor = unit("tk", 6, nation="us", tags=["armor"])
    evaluate(situation(attackers=[armor], exploitation=True, coast="atlantic"))
    with pytest.raises(CombatError) as err:
        evaluate(
            situation(attackers=[armor], exploitation=True, coast="atlantic", attacker=support)
        )
    assert err.value.rule == "16.7" and err.value.field == "attacker"


def test_16_attackers_with_no_attack_strength_cannot_attack() -> None:
    """A combat needs attack strength to compute odds (16.1-16.2); a situation whose attackers
    have none is refused, never a division by zero (found by the previews' property fuzz)."""
    with pytest.raises(CombatError) as err:
        evaluate(situation(attackers=[unit("a", 0, nation="us")]))
    assert (err.value.rule, err.value.field) == ("16", "attackers")
