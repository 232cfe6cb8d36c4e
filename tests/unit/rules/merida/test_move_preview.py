"""The preview of a move (issue 16): its cost hex by hex (TEC) and what it would trigger
automatically (rules 6, 7, 8 and 10), judged by the decision's own code, nothing changed; and the
attack preview's word on results that wait for a side's decision (rule 8, issue 19)."""

from __future__ import annotations

import copy

import pytest

from service.rules.base import Previews, RuleViolation, State
from service.rules.merida import SYSTEM
from tests.unit.rules.merida.conftest import board_state, play, types, unit


def _previews() -> Previews:
    assert SYSTEM.previews is not None
    return SYSTEM.previews


PREVIEWS = _previews()


def move(units: list[str], path: list[str]) -> dict:
    return {"type": "move", "units": units, "path": path}


def rules_of(preview: dict) -> list[str]:
    return [c["rule"] for c in preview["consequences"]]


def texts(preview: dict) -> str:
    return " | ".join(c["text"] for c in preview["consequences"])


def leader_and(*others: dict, **kw: object) -> State:
    return board_state([unit("l", "nationalist", "leader", 0, "A1"), *others], **kw)  # type: ignore[arg-type]


def test_tec_costs_hex_by_hex_as_the_decision_records_them_and_nothing_changes() -> None:
    """TEC: mountain 2 MP for infantry, a road hexside ½ MP, clear 1 MP; rule 5: infantry 6 MP
    (movement table)."""
    state = leader_and(
        unit("u", "nationalist", "infantry", 3, "C2"),
        terrain={"C4": "mountain"},
        hexsides=[{"hexes": ["C2", "C3"], "features": ["road"]}],
    )
    before = copy.deepcopy(state)
    command = move(["u"], ["C2", "C3", "C4", "C5"])
    preview = PREVIEWS.preview(state, "nationalist", command)
    assert state == before
    [entry] = preview["costs"]
    assert [(s["hex"], s["terrain"], s["cost"]) for s in entry["steps"]] == [
        ("C3", "clear", 0.5),
        ("C4", "mountain", 2.0),
        ("C5", "clear", 1.0),
    ]
    assert entry["steps"][0]["hexside"] == ["road"] and entry["rule"] == "TEC"
    assert "3½ of 6 MP" in entry["text"] and "C4 mountain 2" in entry["text"]
    [moved] = play(state, "nationalist", command)
    assert moved.data["costs"]["u"] == entry["cost"] == 3.5
    assert preview["consequences"] == []


def test_7_and_8_ending_in_an_enemy_zoc_stops_the_move_and_obliges_an_attack() -> None:
    state = leader_and(
        unit("u", "nationalist", "infantry", 3, "C2"),
        unit("r", "republican", "infantry", 3, "C5"),
    )
    preview = PREVIEWS.preview(state, "nationalist", move(["u"], ["C2", "C3", "C4"]))
    assert rules_of(preview) == ["7", "8"]
    assert "u enters the ZOC of r at C4 and must stop there" in texts(preview)
    assert "must attack in the combat phase" in texts(preview)


def test_10_a_move_out_of_command_into_an_enemy_zoc_warns_of_the_retreat_that_follows() -> None:
    """Rules 4D and 10: more than 7 hexes from the leader and in an enemy ZOC at the command phase,
    the unit may not attack and retreats 2 hexes; the preview says so, and it happens."""
    state = leader_and(
        unit("u", "nationalist", "infantry", 3, "E6"),
        unit("r", "republican", "infantry", 3, "E10"),
    )
    command = move(["u"], ["E6", "E7", "E8", "E9"])
    preview = PREVIEWS.preview(state, "nationalist", command)
    assert "10" in rules_of(preview) and "8" not in rules_of(preview)  # out of command: no attack
    assert "out of command in an enemy ZOC" in texts(preview)
    assert "must retreat 2 hexes" in texts(preview)
    play(state, "nationalist", command)
    events = play(state, "nationalist", {"type": "end_phase"})
    assert "UnitsRetreated" in types(events)
    assert state["units"]["u"]["hex"] != "E9"


def test_10_moving_the_leader_away_leaves_other_units_out_of_command() -> None:
    state = board_state(
        [
            unit("l", "nationalist", "leader", 0, "E4"),
            unit("u", "nationalist", "infantry", 3, "E10"),
        ]
    )
    assert (
        PREVIEWS.preview(state, "nationalist", move(["l"], ["E4", "E5"]))["consequences"] == []
    )  # E10 is 5 hexes from E5
    preview = PREVIEWS.preview(state, "nationalist", move(["l"], ["E4", "E3", "E2"]))
    assert rules_of(preview) == ["10"]
    assert texts(preview).startswith("u would be out of command at the command phase")


def test_10_a_unit_out_of_command_that_moves_back_into_command_is_told_so() -> None:
    state = leader_and(unit("u", "nationalist", "infantry", 3, "B10"))
    state["units"]["u"]["out_of_command"] = True  # 3 MP: half its 6 (rule 5)
    preview = PREVIEWS.preview(state, "nationalist", move(["u"], ["B10", "B9", "B8"]))
    assert "back in command" in texts(preview) and rules_of(preview) == ["10"]


def test_6_a_move_that_fills_a_stack_says_no_other_ground_unit_may_join() -> None:
    state = leader_and(
        unit("a", "nationalist", "infantry", 3, "C3"),
        unit("b", "nationalist", "infantry", 3, "C3"),
        unit("u", "nationalist", "infantry", 3, "C2"),
    )
    preview = PREVIEWS.preview(state, "nationalist", move(["u"], ["C2", "C3"]))
    assert rules_of(preview) == ["6"] and "is then full" in texts(preview)


def test_an_illegal_move_is_refused_as_the_decision_refuses_it() -> None:
    """Rule 6: never into an enemy hex; the preview raises the decision's RuleViolation."""
    state = leader_and(
        unit("u", "nationalist", "infantry", 3, "C2"),
        unit("r", "republican", "infantry", 3, "C3"),
    )
    with pytest.raises(RuleViolation) as err:
        PREVIEWS.preview(state, "nationalist", move(["u"], ["C2", "C3"]))
    assert err.value.rule == "6"


def test_8_attack_preview_names_the_results_that_wait_for_the_defenders_choice() -> None:
    """Rule 8 with issue 19: when players decide, a result that forces losses or retreats waits for
    the owner's choice; with automatic decisions nothing waits."""
    units = [
        unit("a", "nationalist", "infantry", 6, "E4"),
        unit("d", "republican", "infantry", 2, "E5"),
        unit("e", "republican", "infantry", 2, "E5"),
    ]
    command = {"type": "attack", "attackers": ["a"], "hex": "E5"}
    players = board_state(units, phase="combat", decisions="players")
    preview = PREVIEWS.preview(players, "nationalist", command)
    defender = [c for c in preview["consequences"] if "the defender chooses" in c["text"]]
    assert defender and defender[0]["rule"] == "8" and "DR" in defender[0]["text"]
    automatic = board_state(units, phase="combat", decisions="automatic")
    assert PREVIEWS.preview(automatic, "nationalist", command)["consequences"] == []
