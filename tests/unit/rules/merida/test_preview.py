"""The preview of an attack (rule 8, TEC, rules 2, 4, 5, 10): the same checks and assessment as the
decision, computed without rolling or changing the state."""

from __future__ import annotations

import copy

import pytest

from service.rules.base import InvalidCommand, RuleViolation, State, clone
from service.rules.merida import SYSTEM
from tests.support.dice import ScriptedDice
from tests.unit.rules.merida.conftest import board_state, play, unit


def attack(attackers: list[str], hex_: str = "E5") -> dict:
    return {"type": "attack", "attackers": attackers, "hex": hex_}


def resolved(state: State, command: dict, dice: list[int]) -> dict:
    """The CombatResolved record ``decide`` gives on a copy of the state."""
    return SYSTEM.decide(clone(state), "nationalist", command, ScriptedDice(dice))[0].data


def test_8_preview_gives_what_the_decision_records_and_changes_nothing() -> None:
    """Rule 8: armor +1 attacking, strategic mover +2 (rule 8 reading), town -1 (TEC); the defender
    in a town is not doubled. 6+2 against 2 is 4-1."""
    units = [
        unit("a", "nationalist", "infantry", 6, "E4"),
        unit("t", "nationalist", "armor", 2, "E4"),
        unit("d", "republican", "infantry", 2, "E5"),
    ]
    state = board_state(units, phase="combat", hex_features={"E5": ["town"]})
    state["units"]["d"]["strategic"] = True
    before = copy.deepcopy(state)
    preview = SYSTEM.previews.preview(state, "nationalist", attack(["a", "t"]))
    assert state == before
    assert (preview["attack"], preview["defence"], preview["column"]) == (8, 2, "4-1")
    assert preview["odds"]["column"] == "4-1" and preview["table"] == "crt"
    assert [(m["value"], m["rule"]) for m in preview["modifiers"]] == [
        (1, "8"),
        (2, "8"),
        (-1, "TEC"),
    ]
    assert preview["modifier_total"] == 2
    assert preview["defenders"] == ["d"] and preview["attackers"] == ["a", "t"]
    record = resolved(state, attack(["a", "t"]), [3])
    for key in ("attack_strength", "defense_strength", "column", "modifiers", "strength_effects"):
        assert preview[key] == record[key]


def test_tec_city_doubles_the_defender_and_10_out_of_supply_halves_with_their_rules() -> None:
    """TEC: a city doubles the defender; rule 10: out of supply halves combat strength."""
    units = [
        unit("a", "nationalist", "infantry", 6, "E4"),
        unit("d", "republican", "infantry", 4, "E5"),
    ]
    state = board_state(units, phase="combat", hex_features={"E5": ["city"]})
    state["units"]["a"]["out_of_supply"] = True
    preview = SYSTEM.previews.preview(state, "nationalist", attack(["a"]))
    assert (preview["attack"], preview["defence"], preview["column"]) == (3, 8, "1-3")
    assert [e["rule"] for e in preview["strength_effects"]] == ["10", "TEC"]
    assert preview["column"] == resolved(state, attack(["a"]), [3])["column"]


def test_8_better_than_6_1_is_6_1_and_the_preview_says_so() -> None:
    """Rule 8 CRT notes: odds better than 6-1 are resolved on 6-1."""
    units = [
        unit("a", "nationalist", "infantry", 40, "E4"),
        unit("d", "republican", "infantry", 3, "E5"),
    ]
    preview = SYSTEM.previews.preview(
        board_state(units, phase="combat"), "nationalist", attack(["a"])
    )
    assert preview["column"] == "6-1" and preview["odds"]["above_max"] is True


def air_combat_state() -> State:
    units = [
        unit("a", "nationalist", "infantry", 6, "E4"),
        unit("d", "republican", "infantry", 3, "E5"),
    ]
    state = board_state(units, phase="air_attack")
    play(state, "nationalist", {"type": "allocate_air", "hex": "E5", "air": ["Fiat", "Fiat"]})
    play(state, "nationalist", {"type": "end_phase"})
    play(state, "republican", {"type": "allocate_air", "hex": "E5", "air": ["Pol"]})
    play(state, "republican", {"type": "end_phase"})
    assert state["phase"] == "combat"
    return state


def test_8_air_points_counted_before_their_loss_rolls_with_every_outcome() -> None:
    """Rule 8: air units add 1 strength point each after each side's loss roll (at most one point
    lost a side): 6+2 against 3+1 is 2-1 if none is lost; the outcomes list the other columns."""
    state = air_combat_state()
    preview = SYSTEM.previews.preview(state, "nationalist", attack(["a"]))
    assert (preview["attack"], preview["defence"], preview["column"]) == (8, 4, "2-1")
    air = preview["air"]
    assert (air["attacker"], air["defender"], air["rule"]) == (2, 1, "8")
    columns = {(o["attacker_air"], o["defender_air"]): o["column"] for o in air["outcomes"]}
    assert columns == {(2, 1): "2-1", (2, 0): "2-1", (1, 1): "1-1", (1, 0): "2-1"}
    # no loss (1 and 1), then the nationalist loses one (6 then 5): the decision meets the outcomes
    assert resolved(state, attack(["a"]), [1, 1, 3])["column"] == columns[(2, 1)]
    lost = resolved(state, attack(["a"]), [6, 5, 1, 3])
    assert (lost["attack_strength"], lost["column"]) == (7, columns[(1, 1)])


def test_2_a_stack_of_only_tanks_attacked_is_eliminated_without_a_roll() -> None:
    units = [
        unit("a", "nationalist", "infantry", 3, "E4"),
        unit("d", "republican", "armor", 2, "E5"),
    ]
    state = board_state(units, phase="combat")
    preview = SYSTEM.previews.preview(state, "nationalist", attack(["a"]))
    assert preview["automatic"]["result"] == "tanks alone" and preview["automatic"]["rule"] == "2"
    assert resolved(state, attack(["a"]), [])["result"] == "tanks alone"


def refusal(state: State, command: dict, side: str = "nationalist") -> RuleViolation:
    with pytest.raises(RuleViolation) as err:
        SYSTEM.previews.preview(state, side, command)
    with pytest.raises(RuleViolation) as decided:
        SYSTEM.decide(clone(state), side, command, ScriptedDice([3]))
    assert (err.value.rule, err.value.message) == (decided.value.rule, decided.value.message)
    return err.value


def test_preview_refuses_what_the_decision_refuses_with_the_same_rule() -> None:
    """Rule 4 (phase and player), rule 2 (tanks alone), rule 8 (adjacent, once a turn), rule 5
    (strategic movers may not attack)."""
    units = [
        unit("a", "nationalist", "infantry", 6, "E4"),
        unit("t", "nationalist", "armor", 2, "E4"),
        unit("far", "nationalist", "infantry", 6, "A1"),
        unit("d", "republican", "infantry", 2, "E5"),
    ]
    assert refusal(board_state(units, phase="movement"), attack(["a"])).rule == "4"
    state = board_state(units, phase="combat")
    assert refusal(state, attack(["a"]), side="republican").rule == "4"
    assert refusal(state, attack(["t"])).rule == "2"
    assert refusal(state, attack(["far"])).rule == "8"
    state["units"]["a"]["strategic"] = True
    assert refusal(state, attack(["a"])).rule == "5"
    state = board_state(units, phase="combat")
    state["units"]["d"]["defended"] = True  # each stack is attacked once a turn
    err = refusal(state, attack(["a"]))
    assert err.rule == "8" and "already been attacked" in err.message


def test_preview_takes_attacks_only_and_refuses_malformed_ones() -> None:
    state = board_state(
        [
            unit("a", "nationalist", "infantry", 6, "E4"),
            unit("d", "republican", "infantry", 2, "E5"),
        ],
        phase="combat",
    )
    with pytest.raises(InvalidCommand) as err:
        SYSTEM.previews.preview(state, "nationalist", {"type": "end_phase"})
    assert "type" in err.value.details
    with pytest.raises(InvalidCommand) as err:
        SYSTEM.previews.preview(
            state, "nationalist", {"type": "attack", "attackers": ["nobody"], "hex": "E5"}
        )
    assert "attackers" in err.value.details
