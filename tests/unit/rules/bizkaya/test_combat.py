"""Combat inside movement (13): the worked example on the board, leaders, losses, retreats and
holds, euphoria (6), leaders (8), advance after combat."""

from __future__ import annotations

import pytest

from service.rules.base import RuleViolation
from tests.unit.rules.bizkaya.conftest import board_state, event, play, ready, types, unit


def example(**terrain_over: str):  # type: ignore[no-untyped-def]
    """13's example: 20 CFs (three 6-6/3 groups and a 2-2/5 tercio) against a 3-3/2 brigade in a
    forest hex."""
    units = [unit(f"g{i}", "nationalist", "0304", attack=6, defence=6, morale=3) for i in (1, 2, 3)]
    units.append(
        unit(
            "lacar", "nationalist", "0304", kind="battalion", attack=2, defence=2, morale=5, steps=1
        )
    )
    units.append(unit("v16", "republican", "0404", attack=3, defence=3, morale=2))
    state = board_state(units, terrain={"0404": "forest", **terrain_over})
    return ready(state, "nationalist")


def attack_all(state):  # type: ignore[no-untyped-def]
    return play(
        state,
        "nationalist",
        {"type": "attack", "hex": "0404", "units": ["g1", "g2", "g3", "lacar"]},
    )


def test_13_worked_example_on_the_board_number_for_number() -> None:
    state = example()
    declared = attack_all(state)
    assert event(declared, "AttackDeclared")["cost"] == 3  # a forest hex: 3 MP (13 example)
    assert state["units"]["g1"]["mp"] == 3
    assert types(declared) == ["AttackDeclared"]  # four may lead: the Nationalist chooses first
    events = play(state, "nationalist", {"type": "choose_leader", "unit": "lacar"}, dice=[5, 5])
    chosen = [e.data for e in events if e.type == "LeaderChosen"]
    assert chosen[-1] == {"side": "republican", "unit": "v16", "losses": [], "auto": True}
    result = event(events, "CombatResolved")
    assert (result["attack"], result["defence"], result["column"]) == (20, 3, "6:1")
    assert (result["dice_total"], result["modified"], result["result"]) == (10, 12, "DR2")
    assert (result["defender_losses"], result["attacker_losses"]) == (1, 2)
    # 13: the first step loss on the leading unit, then spread
    assert result["losses"] == [
        {"unit": "lacar", "steps": 1},
        {"unit": "g1", "steps": 1},
        {"unit": "v16", "steps": 1},
    ]
    assert state["units"]["lacar"]["status"] == "eliminated" and state["units"]["v16"]["steps"] == 2
    due = event(events, "RetreatDue")
    assert due["side"] == "republican" and due["drm"] == 2 and due["may_hold"] is True


def test_13_hold_is_a_morale_check_with_the_results_figure_and_failing_demoralizes() -> None:
    state = example()
    attack_all(state)
    play(state, "nationalist", {"type": "choose_leader", "unit": "lacar"}, dice=[5, 5])
    events = play(state, "republican", {"type": "hold"}, dice=[1])
    check = event(events, "HoldChecked")["checks"][0]
    assert check["drm"] == 2 and check["passed"] is False  # 1 + 2 > morale 2
    assert state["units"]["v16"]["demoralized"] is True
    with pytest.raises(RuleViolation):  # 13: demoralized units may not attempt to hold again
        play(state, "republican", {"type": "hold"}, dice=[1])
    events = play(
        state,
        "republican",
        {"type": "retreat", "moves": [{"units": ["v16"], "path": ["0404", "0504"]}]},
    )
    assert state["units"]["v16"]["hex"] == "0504"
    assert types(events)[-1] == "AdvanceOffered"
    play(state, "nationalist", {"type": "advance", "units": ["g1", "g2"]})
    assert state["units"]["g1"]["hex"] == "0404" and state["units"]["g3"]["hex"] == "0304"
    assert state["combat"] is None and state["control"]["0404"] == "nationalist"


def test_13_a_passed_hold_keeps_the_hex() -> None:
    state = example()
    state["units"]["v16"]["morale"] = 5
    attack_all(state)
    play(state, "nationalist", {"type": "choose_leader", "unit": "g1"}, dice=[5, 5])
    events = play(state, "republican", {"type": "hold"}, dice=[3])  # 3 + drm <= 5
    assert event(events, "HoldChecked")["stay"] == ["v16"]
    assert types(events)[-1] == "CombatEnded" and state["units"]["v16"]["hex"] == "0404"


def test_13_entrenched_defenders_hold_without_the_results_figure() -> None:
    state = example()
    state["trenches"]["0404"] = {"side": "republican", "status": "complete", "unit": None}
    attack_all(state)
    events = play(state, "nationalist", {"type": "choose_leader", "unit": "lacar"}, dice=[6, 6])
    assert event(events, "RetreatDue")["drm"] == 0


def test_13_a_fortified_hex_ignores_the_retreat() -> None:
    state = example()
    state["map"]["places"].append(
        {"name": "fort", "hex": "0404", "kind": "fort", "values": {"level": 2}}
    )
    attack_all(state)
    events = play(state, "nationalist", {"type": "choose_leader", "unit": "lacar"}, dice=[5, 5])
    assert event(events, "CombatResolved")["retreat_ignored"] == "fortified hex (13)"
    assert types(events)[-1] == "CombatEnded"


def test_13_attacking_costs_the_terrain_of_the_hex_and_the_impulse_limit_applies() -> None:
    state = example(**{"0404": "clear"})
    state["impulse"] = 3  # 13: no more than 2 MP in the third impulse
    events = attack_all(state)
    assert event(events, "AttackDeclared")["cost"] == 2 and state["units"]["g1"]["mp"] == 4
    state = example()
    state["impulse"] = 3
    with pytest.raises(RuleViolation) as info:
        attack_all(state)  # a forest costs 3
    assert info.value.rule == "13"


def test_13_a_hex_is_attacked_once_per_impulse_and_a_unit_fights_once() -> None:
    state = example(**{"0404": "clear"})
    state["units"]["v16"].update(morale=6, steps=9, max_steps=9)
    events = play(
        state, "nationalist", {"type": "attack", "hex": "0404", "units": ["g1"]}, dice=[6, 6]
    )
    assert event(events, "CombatResolved")["result"] == "DR"
    play(state, "republican", {"type": "hold"}, dice=[1])
    assert state["combat"] is None and state["units"]["g1"]["fought"]
    with pytest.raises(RuleViolation) as info:
        play(state, "nationalist", {"type": "attack", "hex": "0404", "units": ["g2"]})
    assert "already been attacked" in info.value.message


def test_4_only_the_first_echelon_attacks() -> None:
    state = example()
    state["units"]["g3"]["echelon"] = 2
    with pytest.raises(RuleViolation) as info:
        play(state, "nationalist", {"type": "attack", "hex": "0404", "units": ["g3"]})
    assert "first echelon" in info.value.message


def test_6_demoralized_units_cannot_attack_and_give_the_attacker_plus_one() -> None:
    state = example()
    state["units"]["g1"]["demoralized"] = True
    with pytest.raises(RuleViolation) as info:
        play(state, "nationalist", {"type": "attack", "hex": "0404", "units": ["g1"]})
    assert "demoralized" in info.value.message
    state = example()
    state["units"]["v16"]["demoralized"] = True
    attack_all(state)
    events = play(state, "nationalist", {"type": "choose_leader", "unit": "lacar"}, dice=[1, 1])
    causes = [
        (m["cause"], m["value"], m["rule"]) for m in event(events, "CombatResolved")["modifiers"]
    ]
    assert ("demoralized defender", 1, "6") in causes


def test_6_a_demoralized_unit_cannot_lead_while_another_can() -> None:
    state = example()
    state["units"]["lacar"]["demoralized"] = False
    state["units"]["v16"]["demoralized"] = True
    state["units"]["v17"] = {
        **state["units"]["v16"],
        "id": "v17",
        "name": "v17",
        "demoralized": False,
    }
    attack_all(state)
    play(state, "nationalist", {"type": "choose_leader", "unit": "g1"}, dice=[1, 1])
    assert state["combat"] is None or state["combat"]["leaders"]["republican"] == "v17"


def test_13_losses_spread_before_any_second_step_and_demoralized_last() -> None:
    from service.rules.bizkaya.losses import ordered, spread

    units = [
        {"id": "a", "steps": 3, "demoralized": True},
        {"id": "b", "steps": 3, "demoralized": False},
        {"id": "c", "steps": 1, "demoralized": False},
    ]
    order = ordered(units, first="b")
    assert [u["id"] for u in order] == ["b", "c", "a"]
    taken, short = spread([order], 5)
    assert (
        taken == [{"unit": "b", "steps": 2}, {"unit": "c", "steps": 1}, {"unit": "a", "steps": 2}]
        and short == 0
    )


def test_4_second_echelon_loses_steps_only_when_the_first_cannot_absorb_them() -> None:
    state = example()
    state["units"]["v16"]["steps"] = 1
    state["units"]["r2"] = {
        **state["units"]["v16"],
        "id": "r2",
        "name": "r2",
        "steps": 3,
        "echelon": 2,
    }
    state["units"]["v17"] = {
        **state["units"]["v16"],
        "id": "v17",
        "name": "v17",
        "steps": 3,
        "echelon": 1,
    }
    state["units"]["v16"]["morale"] = 6  # the Nationalist's 6 against morale 6: 3 steps
    attack_all(state)
    play(state, "nationalist", {"type": "choose_leader", "unit": "lacar"})
    events = play(state, "republican", {"type": "choose_leader", "unit": "v16"}, dice=[6, 1])
    # the two first-echelon units have 4 steps: the second echelon is untouched
    losses = {
        x["unit"]: x["steps"]
        for x in event(events, "CombatResolved")["losses"]
        if x["unit"] in ("v16", "v17", "r2")
    }
    assert losses == {"v16": 1, "v17": 2}


def test_6_a_shaded_result_makes_the_attacking_stack_euphoric_and_doubles_the_morale_difference() -> (
    None
):
    state = example(**{"0404": "clear"})
    attack_all(state)
    events = play(state, "nationalist", {"type": "choose_leader", "unit": "lacar"}, dice=[6, 6])
    result = event(events, "CombatResolved")
    assert result["result"] == "DR3" and result["shaded"] is True  # 12 + 3 on 6:1
    assert state["units"]["g2"]["euphoric"] is True
    # 6: the euphoric stack's next combat doubles the morale difference
    from service.rules.bizkaya import battle

    state["combat"] = None
    state["units"]["v16"].update(hex="0404", status="map", steps=3)
    units = [state["units"][u] for u in ("g2", "g3")]
    situation = battle.situation(state, "nationalist", "0404", units, {"nationalist": "g2"})
    assert situation["attacker_euphoric"] is True


def test_6_euphoria_is_lost_when_units_leave_the_stack() -> None:
    state = example()
    for uid in ("g1", "g2", "g3", "lacar"):
        state["units"][uid]["euphoric"] = True
    play(state, "nationalist", {"type": "move", "units": ["g1"], "path": ["0304", "0303"]})
    assert not any(state["units"][u]["euphoric"] for u in ("g1", "g2", "g3", "lacar"))


def test_6_euphoria_is_lost_on_an_attackers_retreat() -> None:
    state = example()
    for uid in ("g1", "g2", "g3", "lacar"):
        state["units"][uid]["euphoric"] = True
    state["units"]["v16"]["defence"] = 30
    attack_all(state)
    events = play(state, "nationalist", {"type": "choose_leader", "unit": "lacar"}, dice=[1, 1])
    assert event(events, "CombatResolved")["result"].startswith("AR")
    assert not state["units"]["g2"]["euphoric"]
    assert event(events, "RetreatDue")["side"] == "nationalist"


def test_8_a_leader_adds_one_and_is_never_eliminated() -> None:
    state = example()
    state["leaders"]["alonso-vega"]["unit"] = "lacar"
    attack_all(state)
    events = play(state, "nationalist", {"type": "choose_leader", "unit": "lacar"}, dice=[5, 5])
    mods = [(m["value"], m["rule"]) for m in event(events, "CombatResolved")["modifiers"]]
    assert (1, "8") in mods
    assert state["units"]["lacar"]["status"] == "eliminated"
    assert state["leaders"]["alonso-vega"]["unit"] == "g1"  # it stays with the stack


def test_5_retreating_through_enemy_zoc_demoralizes_or_costs_a_step() -> None:
    state = example()
    state["units"]["mg"] = {
        **state["units"]["g3"],
        "id": "mg",
        "name": "mg",
        "hex": "0603",
        "zoc": True,
        "steps": 1,
    }
    attack_all(state)
    play(state, "nationalist", {"type": "choose_leader", "unit": "lacar"}, dice=[5, 5])
    play(state, "republican", {"type": "hold"}, dice=[6])
    assert state["units"]["v16"]["demoralized"]
    events = play(
        state,
        "republican",
        {"type": "retreat", "moves": [{"units": ["v16"], "path": ["0404", "0503"]}]},
    )
    move = event(events, "UnitsRetreated")["moves"][0]
    assert move["zoc"] == ["0503"] and move["losses"] == [{"unit": "v16", "steps": 1}]


def test_5_a_stack_retreating_through_zoc_is_demoralized_and_loses_a_random_step() -> None:
    state = example()
    state["units"]["v17"] = {**state["units"]["v16"], "id": "v17", "name": "v17"}
    state["units"]["mg"] = {
        **state["units"]["g3"],
        "id": "mg",
        "name": "mg",
        "hex": "0603",
        "zoc": True,
        "steps": 1,
    }
    state["units"]["v16"]["morale"] = 1
    attack_all(state)
    play(state, "nationalist", {"type": "choose_leader", "unit": "lacar"})
    play(state, "republican", {"type": "choose_leader", "unit": "v16"}, dice=[5, 5])
    events = play(
        state,
        "republican",
        {"type": "retreat", "moves": [{"units": ["v16", "v17"], "path": ["0404", "0503"]}]},
        dice=[2],
    )
    move = event(events, "UnitsRetreated")["moves"][0]
    assert sorted(move["demoralized"]) == ["v16", "v17"] and move["losses"] == [
        {"unit": "v17", "steps": 1}
    ]


def _stack_through_zoc(state: dict) -> dict:
    """The stack of v16 and v17 retreats from 0404 through the enemy ZoC in 0503 (5)."""
    state["units"]["v17"] = {**state["units"]["v16"], "id": "v17", "name": "v17"}
    state["units"]["mg"] = {
        **state["units"]["g3"],
        "id": "mg",
        "name": "mg",
        "hex": "0603",
        "zoc": True,
        "steps": 1,
    }
    state["units"]["v16"]["morale"] = 1
    attack_all(state)
    play(state, "nationalist", {"type": "choose_leader", "unit": "lacar"})
    play(state, "republican", {"type": "choose_leader", "unit": "v16"}, dice=[5, 5])
    return state


def test_5_option_one_step_per_unit_the_other_reading_costs_every_unit_a_step() -> None:
    """5: "If it is a stack of units, eliminate 1 step (choose it at random) for ALL units." The
    engine's reading is one random step in all (above); a club may play one step for each unit
    (option zoc_retreat_loss, knowledge-base entry bizkaya:conflict-zoc-retreat-stack): no die."""
    state = _stack_through_zoc(example())
    state["options"] = {**state.get("options", {}), "zoc_retreat_loss": "one_step_per_unit"}
    steps = {u: state["units"][u]["steps"] for u in ("v16", "v17")}
    events = play(
        state,
        "republican",
        {"type": "retreat", "moves": [{"units": ["v16", "v17"], "path": ["0404", "0503"]}]},
    )
    move = event(events, "UnitsRetreated")["moves"][0]
    assert move["losses"] == [{"unit": "v16", "steps": 1}, {"unit": "v17", "steps": 1}]
    assert "die" not in move
    assert {u: state["units"][u]["steps"] for u in steps} == {u: n - 1 for u, n in steps.items()}


def test_5_the_zoc_reading_is_a_scenario_option_and_a_conflict_entry() -> None:
    from service.rules.base import ScenarioError
    from service.rules.bizkaya import SYSTEM
    from service.rules.bizkaya.rulebook import RULEBOOK

    assert SYSTEM.default_options("bizkaya-1937")["zoc_retreat_loss"] == "one_step_per_stack"
    st = SYSTEM.initial_state("bizkaya-1937", {"zoc_retreat_loss": "one_step_per_unit"})
    assert st["options"]["zoc_retreat_loss"] == "one_step_per_unit"
    with pytest.raises(ScenarioError) as bad:
        SYSTEM.initial_state("bizkaya-1937", {"zoc_retreat_loss": "two"})
    assert "options.zoc_retreat_loss" in bad.value.problems
    conflicts = {c.key: c for c in RULEBOOK.conflicts}
    assert conflicts["zoc-retreat-stack"].option == "zoc_retreat_loss"
    assert "choose it at random) for ALL units" in conflicts["zoc-retreat-stack"].readings[0].quote
    assert "forest" in conflicts["forest-combat-example"].engine_reading


def test_13_retreats_go_towards_the_rearguard_and_4_continue_only_when_overstacked() -> None:
    state = example()
    state["units"]["v16"]["morale"] = 1
    state["units"]["full"] = {
        **state["units"]["v16"],
        "id": "full",
        "name": "full",
        "hex": "0503",
        "steps": 9,
    }
    state["units"]["full"]["max_steps"] = 9
    attack_all(state)
    play(state, "nationalist", {"type": "choose_leader", "unit": "lacar"}, dice=[5, 5])
    with pytest.raises(RuleViolation):  # towards the attacker
        play(
            state,
            "republican",
            {"type": "retreat", "moves": [{"units": ["v16"], "path": ["0404", "0303"]}]},
        )
    with pytest.raises(RuleViolation):  # 0503 would be overstacked (9 + 2 steps)
        play(
            state,
            "republican",
            {"type": "retreat", "moves": [{"units": ["v16"], "path": ["0404", "0503"]}]},
        )
    with pytest.raises(RuleViolation):  # 0504 is free: no further
        play(
            state,
            "republican",
            {"type": "retreat", "moves": [{"units": ["v16"], "path": ["0404", "0504", "0604"]}]},
        )
    play(
        state,
        "republican",
        {"type": "retreat", "moves": [{"units": ["v16"], "path": ["0404", "0503", "0603"]}]},
    )
    assert state["units"]["v16"]["hex"] == "0603"


def test_13_a_unit_that_cannot_retreat_is_eliminated() -> None:
    state = example()
    for i, hex_ in enumerate(("0504", "0503", "0403")):
        state["units"][f"n{i}"] = {
            **state["units"]["g3"],
            "id": f"n{i}",
            "name": f"n{i}",
            "hex": hex_,
        }
    attack_all(state)
    play(state, "nationalist", {"type": "choose_leader", "unit": "lacar"}, dice=[5, 5])
    events = play(state, "republican", {"type": "retreat", "moves": []})
    assert event(events, "UnitsRetreated")["eliminated"] == ["v16"]


def test_13_only_light_artillery_advances_with_the_attackers() -> None:
    state = example()
    state["units"]["light"] = {
        **state["units"]["g3"],
        "id": "light",
        "kind": "artillery",
        "art": "light",
        "echelon": 2,
        "steps": 1,
    }
    state["units"]["heavy"] = {**state["units"]["light"], "id": "heavy", "art": "heavy"}
    state["units"]["lacar"]["hex"] = "0303"
    attack_all(state)
    play(state, "nationalist", {"type": "choose_leader", "unit": "lacar"}, dice=[5, 5])
    play(
        state,
        "republican",
        {"type": "retreat", "moves": [{"units": ["v16"], "path": ["0404", "0504"]}]},
    )
    offered = state["combat"]["advance"]["units"]
    assert "light" in offered and "heavy" not in offered
    with pytest.raises(RuleViolation):
        play(state, "nationalist", {"type": "advance", "units": ["heavy"]})
    play(state, "nationalist", {"type": "advance", "units": ["g2", "light"]})
    assert state["units"]["light"]["hex"] == "0404"


def test_1_no_combat_across_the_portugalete_ferry_hexside() -> None:
    state = example()
    state["map"]["hexsides"].append(
        {"hexes": ["0304", "0404"], "features": ["major_river", "no_combat"]}
    )
    with pytest.raises(RuleViolation) as info:
        attack_all(state)
    assert "no combat across" in info.value.message


@pytest.mark.parametrize(("die", "retreats"), [(1, True), (5, True), (6, False)])
def test_15_bilbao_roll_when_the_nationalist_attacks_1404_or_1503(die: int, retreats: bool) -> None:
    units = [
        unit("n1", "nationalist", "0304", attack=6),
        unit("n2", "nationalist", "0304", attack=6),
    ]
    units.append(unit("r1", "republican", "0404"))
    state = ready(
        board_state(units, data={"bilbao_roll_hexes": ["0404"], "bilbao": "0404"}), "nationalist"
    )
    events = play(
        state, "nationalist", {"type": "attack", "hex": "0404", "units": ["n1", "n2"]}, dice=[die]
    )
    assert event(events, "BilbaoRolled")["retreat"] is retreats
    if retreats:
        due = event(events, "RetreatDue")
        assert due["may_hold"] is False and due["side"] == "republican"
        assert "CombatResolved" not in types(events)
    else:
        assert state["combat"]["stage"] == "leaders"


def test_13_leaders_are_chosen_nationalist_first_also_when_the_republican_attacks() -> None:
    units = [unit("r1", "republican", "0304", morale=3), unit("r2", "republican", "0304", morale=2)]
    units += [
        unit("n1", "nationalist", "0404", morale=4),
        unit("n2", "nationalist", "0404", morale=5),
    ]
    state = ready(board_state(units), "republican")
    play(state, "republican", {"type": "attack", "hex": "0404", "units": ["r1", "r2"]})
    from service.rules.bizkaya import SYSTEM

    assert SYSTEM.active_sides(state) == ["nationalist"]  # the defender, being Nationalist, first
    play(state, "nationalist", {"type": "choose_leader", "unit": "n2"})
    assert SYSTEM.active_sides(state) == ["republican"]
    events = play(state, "republican", {"type": "choose_leader", "unit": "r1"}, dice=[3, 3])
    assert event(events, "CombatResolved")["leaders"] == {"attacker": "r1", "defender": "n2"}


def test_15_the_iron_belt_hexsides_are_trench_hexsides() -> None:
    from service.rules.bizkaya.battle import entrenched

    state = example()
    state["map"]["hexsides"].append({"hexes": ["0304", "0404"], "features": ["iron_belt"]})
    assert entrenched(state, "0404", ["0304"]) is True
    assert entrenched(state, "0404", ["0304", "0303"]) is False  # not every attack crosses it
    attack_all(state)
    events = play(state, "nationalist", {"type": "choose_leader", "unit": "lacar"}, dice=[5, 5])
    assert event(events, "RetreatDue")["drm"] == 0


def test_1_no_combat_and_so_no_advance_across_an_impassable_hexside() -> None:
    """1, Geographical Peculiarities: "Hexes 1502 Guecho and 1603 Portugalete are separated by the
    *Ria* of Bilbao, and therefore are impassable. But the so-called "suspension bridge" of Las
    Arenas connected both sides. Effects: treat the hexside 1502-1603 as Major River for movement.
    Combat remains forbiden, though." -- combat "remains" forbidden: an impassable hexside forbids
    it, so a unit across one neither attacks nor (13) advances into the hex."""
    state = example()
    state["map"]["hexsides"].append({"hexes": ["0304", "0404"], "features": ["impassable"]})
    with pytest.raises(RuleViolation) as info:
        attack_all(state)
    assert "no combat across" in info.value.message
    from service.rules.bizkaya import SYSTEM

    assert not SYSTEM.actions(state, "nationalist").of_type("attack")
    # a unit on the other side of a passable hexside still attacks, alone; the units across the
    # impassable hexside cannot join it, and so cannot advance
    state["units"]["g1"]["hex"] = "0303"
    with pytest.raises(RuleViolation):
        play(state, "nationalist", {"type": "attack", "hex": "0404", "units": ["g1", "g2"]})
    events = play(
        state, "nationalist", {"type": "attack", "hex": "0404", "units": ["g1"]}, dice=[5, 5]
    )
    assert event(events, "AttackDeclared")["from"] == ["0303"]


def test_13_attackers_that_hold_after_an_ar_advance_into_an_emptied_hex() -> None:
    """13, Advance after Combat: "After solving combat and applying any step losses and retreats,
    the attackers can occupy (without paying any movement costs) the defending hex but only if it
    empty of enemy units." -- whatever the result: attackers that hold on an AR (To avoid retreat,
    all units must pass a morale check) may occupy a hex their intensity losses emptied."""
    units = [
        unit("n1", "nationalist", "0304", attack=2, morale=6, steps=3),
        unit("r1", "republican", "0404", defence=4, morale=3, steps=1),
    ]
    state = ready(board_state(units), "nationalist")
    events = play(
        state, "nationalist", {"type": "attack", "hex": "0404", "units": ["n1"]}, dice=[6, 1]
    )
    result = event(events, "CombatResolved")
    assert result["column"] == "1:2" and result["result"].startswith("AR")
    assert state["units"]["r1"]["status"] == "eliminated"
    assert event(events, "RetreatDue")["side"] == "nationalist"
    events = play(state, "nationalist", {"type": "hold"}, dice=[1])
    assert event(events, "HoldChecked")["stay"] == ["n1"]
    assert "AdvanceOffered" in types(events)
    play(state, "nationalist", {"type": "advance", "units": ["n1"]})
    assert state["units"]["n1"]["hex"] == "0404"
