"""Rule 5 strategic and rail moves in the legal actions: every destination with a path, as tactical
moves are listed, so a client offers them by clicking; every listed path is accepted by ``decide``."""

from __future__ import annotations

from service.rules.base import State, clone
from service.rules.merida import SYSTEM, board
from tests.support.dice import ScriptedDice
from tests.unit.rules.merida.conftest import board_state, play, unit

RAIL = [{"hexes": [f"B{c}", f"B{c + 1}"], "features": ["rail"]} for c in range(1, 10)]


def moves(state: State, side: str, uid: str) -> dict[str, dict[str, list[str]]]:
    """The listed destinations of a unit, by mode: {mode: {destination: path}}."""
    return {
        t.fixed["mode"]: {path[-1]: path for path in t.choose["path"].options}
        for t in SYSTEM.actions(state, side).of_type("move")
        if t.fixed["units"] == [uid] and "regain" not in t.label
    }


def every_listed_move_is_accepted(state: State, side: str) -> int:
    """Decide every listed move to every listed destination on a copy; returns how many."""
    checked = 0
    for listed in SYSTEM.actions(state, side).of_type("move"):
        assert set(listed.choose) == {"path"}  # units and mode are fixed, the path chosen
        labels = listed.choose["path"].labels
        for command, label in zip(listed.commands(), labels, strict=True):
            events = SYSTEM.decide(clone(state), side, command, ScriptedDice())
            assert board.hex_name(state, events[0].data["path"][-1]) == label
            checked += 1
    return checked


def test_5_strategic_moves_are_listed_with_the_doubled_allowance_and_a_path_each() -> None:
    """Rule 5: strategic movement doubles the allowance (infantry 6 -> 12)."""
    state = board_state([unit("n", "nationalist", "infantry", 3, "A1")])
    listed = moves(state, "nationalist", "n")
    assert "A10" not in listed["tactical"]  # 9 hexes: more than 6
    path = listed["strategic"]["A10"]
    assert path[0] == "A1" and path[-1] == "A10" and len(path) == 10
    play(state, "nationalist", {"type": "move", "units": ["n"], "mode": "strategic", "path": path})
    assert state["units"]["n"]["hex"] == "A10" and state["units"]["n"]["strategic"] is True


def test_5_strategic_destinations_never_enter_an_enemy_zoc_nor_begin_in_one() -> None:
    """Rule 5: strategic movers may not begin, move through or enter an enemy ZOC."""
    units = [
        unit("n", "nationalist", "infantry", 3, "E3"),
        unit("r", "republican", "infantry", 3, "E6"),
    ]
    state = board_state(units)
    zoc = set(board.map_of(state).grid.neighbours("E6"))
    strategic = moves(state, "nationalist", "n")["strategic"]
    assert strategic and not zoc & set(strategic)
    assert not any(zoc & set(path) for path in strategic.values())
    assert "E5" in moves(state, "nationalist", "n")["tactical"]  # a tactical move may enter it
    units[0]["hex"] = "E5"
    assert set(moves(board_state(units), "nationalist", "n")) == {"tactical"}


def test_5_rail_destinations_follow_the_rail_hexes_the_side_controls() -> None:
    """Rule 5: unlimited along the rail line, only through rail hexes the side controls
    (initially B1-B5 Nationalist, B6 on Republican)."""
    state = board_state([unit("n", "nationalist", "infantry", 3, "B1")], hexsides=RAIL)
    rail = moves(state, "nationalist", "n")["rail"]
    assert sorted(rail) == ["B2", "B3", "B4", "B5"]
    assert rail["B5"] == ["B1", "B2", "B3", "B4", "B5"]
    play(state, "nationalist", {"type": "move", "units": ["n"], "mode": "rail", "path": rail["B5"]})
    assert state["units"]["n"]["hex"] == "B5" and state["rail_used"] is True


def test_5_rail_one_brigade_a_turn_the_armored_train_does_not_count() -> None:
    """Rule 5: after one brigade moves by rail no other brigade is offered a rail move; the armored
    train still is, and moves only by rail."""
    units = [
        unit("r1", "republican", "infantry", 3, "B10"),
        unit("r2", "republican", "infantry", 3, "B9"),
        unit("t", "republican", "train", 2, "B8"),
    ]
    state = board_state(units, side="republican", hexsides=RAIL)
    assert "rail" in moves(state, "republican", "r2")
    path = moves(state, "republican", "r1")["rail"]["B7"]
    play(state, "republican", {"type": "move", "units": ["r1"], "mode": "rail", "path": path})
    assert set(moves(state, "republican", "r2")) == {"tactical", "strategic"}
    assert set(moves(state, "republican", "t")) == {"rail"}
    assert every_listed_move_is_accepted(state, "republican") > 0


def test_4b_out_of_supply_destinations_never_end_nearer_the_enemy() -> None:
    """Rule 4B: out-of-supply units may not move towards enemy units, in any mode."""
    state = board_state(
        [
            unit("n", "nationalist", "infantry", 3, "A3"),
            unit("r", "republican", "infantry", 3, "A9"),
        ]
    )
    state["units"]["n"]["out_of_supply"] = True
    for paths in moves(state, "nationalist", "n").values():
        assert "A2" in paths and "A4" not in paths
    assert every_listed_move_is_accepted(state, "nationalist") > 0


def test_8_units_committed_to_an_overrun_are_offered_no_move() -> None:
    """Rule 8 automatic victory: the declared attackers may not move after the declaration."""
    units = [
        unit("a", "nationalist", "infantry", 12, "E4"),
        unit("b", "nationalist", "infantry", 3, "A1"),
        unit("d", "republican", "infantry", 1, "E5"),
    ]
    state = board_state(units)
    play(state, "nationalist", {"type": "declare_overrun", "hex": "E5", "attackers": ["a"]})
    assert moves(state, "nationalist", "a") == {}
    assert set(moves(state, "nationalist", "b")) == {"tactical", "strategic"}


def test_5_every_listed_destination_in_every_mode_is_accepted_by_decide() -> None:
    units = [
        unit("n1", "nationalist", "infantry", 3, "B1"),
        unit("n2", "nationalist", "cavalry", 2, "D2"),
        unit("l", "nationalist", "leader", 1, "D2"),
        unit("r", "republican", "infantry", 3, "D7"),
    ]
    state = board_state(units, hexsides=RAIL, terrain={"C3": "mountain", "D4": "mountain"})
    assert every_listed_move_is_accepted(state, "nationalist") > 50
