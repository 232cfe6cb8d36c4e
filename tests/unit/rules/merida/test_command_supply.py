"""Rule 10 command and supply lines, and rule 4's supply (B) and command (D) phases."""

from __future__ import annotations

import re

import pytest

from service.rules.base import RuleViolation
from service.rules.merida import SYSTEM, board
from tests.unit.rules.merida.conftest import board_state, play, types, unit

SURROUND = [
    unit("x1", "republican", "infantry", 3, "D5"),
    unit("x2", "republican", "infantry", 3, "F5"),
]


def test_10_command_line_up_to_seven_hexes_to_a_leader():
    units = [
        unit("l", "nationalist", "leader", 0, "A1"),
        unit("near", "nationalist", "infantry", 3, "A8"),
        unit("far", "nationalist", "infantry", 3, "A9"),
    ]
    state = board_state(units)
    _, out_command = board.status_of(state, "nationalist")
    assert out_command == ["far"]


def test_10_command_and_supply_lines_blocked_by_enemy_units_and_zocs():
    """Rule 10: lines must be free of enemy units and ZOCs (every hex around E5 is blocked)."""
    units = [
        unit("l", "nationalist", "leader", 0, "E2"),
        unit("u", "nationalist", "infantry", 3, "E5"),
        *SURROUND,
    ]
    state = board_state(units)
    assert board.status_of(state, "nationalist") == (["u"], ["u"])
    state = board_state(units[:2])
    assert board.status_of(state, "nationalist") == ([], [])


def test_10_command_line_through_any_terrain():
    units = [
        unit("l", "nationalist", "leader", 0, "A1"),
        unit("u", "nationalist", "infantry", 3, "A8"),
    ]
    state = board_state(units, terrain={f"A{c}": "mountain" for c in range(2, 8)})
    assert board.status_of(state, "nationalist") == ([], [])


def test_10_supply_to_the_sides_map_edge():
    """Rule 10: Republicans trace to the east edge, Nationalists to the west edge (any length)."""
    units = [
        unit("n", "nationalist", "infantry", 3, "E11"),
        unit("r", "republican", "infantry", 3, "E2"),
    ]
    state = board_state(units, data={})
    assert board.status_of(state, "nationalist")[0] == []
    units = [*units, unit("b1", "republican", "infantry", 3, "E9")]
    state = board_state(units)
    supplied = board.supplied_hexes(state, "nationalist")
    assert "E1" in supplied and "E12" in supplied  # around the blocking unit


def test_2_guerrillas_need_no_lines_of_command_or_communication():
    units = [
        unit("g", "republican", "guerrilla", 1, "E5"),
        *[dict(u, side="nationalist") for u in SURROUND],
    ]
    state = board_state(units, side="republican")
    assert board.status_of(state, "republican") == ([], [])


def test_4b_supply_phase_checks_the_phasing_sides_units():
    units = [
        unit("l", "nationalist", "leader", 0, "E2"),
        unit("u", "nationalist", "infantry", 3, "E5"),
        *SURROUND,
    ]
    state = board_state(units, phase="combat", side="republican", turn=2)
    state.update(must_attack=[], must_be_attacked=[])  # not under test here
    events = play(state, "republican", {"type": "end_phase"})
    checked = [e.data for e in events if e.type == "StatusChecked"]
    assert checked == [{"side": "nationalist", "out_of_supply": ["u"], "out_of_command": ["u"]}]
    assert state["units"]["u"]["out_of_supply"] and (state["turn"], state["phase"]) == (
        3,
        "movement",
    )


def test_10_out_of_supply_units_attack_at_half_strength():
    units = [
        unit("l", "nationalist", "leader", 0, "E2"),
        unit("u", "nationalist", "infantry", 6, "E5"),
        *SURROUND,
    ]
    state = board_state(units, phase="combat")
    state["units"]["u"]["out_of_supply"] = True
    record = play(state, "nationalist", {"type": "attack", "attackers": ["u"], "hex": "D5"}, [3])[
        0
    ].data
    assert record["attack_strength"] == 3 and record["column"] == "1-1"


def test_10_out_of_command_units_in_an_enemy_zoc_retreat_two_hexes_in_the_command_phase():
    """Rules 4D and 10: units not in command in an enemy ZOC retreat 2 hexes towards their leader."""
    units = [
        unit("l", "nationalist", "leader", 0, "A1"),
        unit("u", "nationalist", "infantry", 3, "E9"),
        unit("r", "republican", "infantry", 3, "E10"),
    ]
    state = board_state(units)
    events = play(state, "nationalist", {"type": "end_phase"})
    assert "UnitsRetreated" in types(events)
    retreat = next(e.data for e in events if e.type == "UnitsRetreated")
    assert retreat["rule"] == "10" and len(retreat["retreats"][0]["path"]) == 3
    grid = board.map_of(state).grid
    assert grid.distance(state["units"]["u"]["hex"], "A1") < grid.distance("E9", "A1")


def test_10_out_of_command_retreat_through_enemy_zoc_eliminates():
    units = [
        unit("l", "nationalist", "leader", 0, "A1"),
        unit("u", "nationalist", "infantry", 3, "E5"),
    ]
    units += [dict(u) for u in SURROUND] + [
        unit("x3", "republican", "infantry", 3, "E7"),
        unit("x4", "republican", "infantry", 3, "E3"),
    ]
    state = board_state(units)
    events = play(state, "nationalist", {"type": "end_phase"})
    retreat = next(e.data for e in events if e.type == "UnitsRetreated")
    assert retreat["eliminated"] == ["u"] and state["units"]["u"]["status"] == "eliminated"


def test_10_scenario_supply_sources_west_edge_and_highway_a12_east_edge():
    """Rule 10: Nationalists trace to the west edge or hex A12; Republicans to the east edge."""
    from service.rules.merida import SYSTEM

    state = SYSTEM.initial_state("merida-1938", {})
    sources = board.map_of(state).supply_sources
    assert "A12" in sources["nationalist"] and {"J1", "AQ1", "V1"} <= set(sources["nationalist"])
    assert {"M26", "AO26", "A26", "AQ26"} <= set(sources["republican"])
    assert all(h.endswith("26") for h in sources["republican"])


def test_10_units_out_of_command_must_move_to_regain_their_line():
    """Rule 10: units that begin a turn out of command must move so as to regain the line."""
    units = [
        unit("l", "nationalist", "leader", 0, "A1"),
        unit("u", "nationalist", "infantry", 3, "A10"),
    ]
    state = board_state(units)
    state["units"]["u"]["out_of_command"] = True
    with pytest.raises(RuleViolation) as err:
        play(state, "nationalist", {"type": "end_phase"})
    assert err.value.rule == "10" and "command" in err.value.message
    listed = SYSTEM.actions(state, "nationalist")
    [blocked] = [b for b in listed.blocked if b.type == "end_phase"]
    assert blocked.rule == "10" and "must move to regain" in blocked.reason
    [must] = [t for t in listed.of_type("move") if "regain" in t.label]
    assert must.fixed == {"units": ["u"], "mode": "tactical"}
    assert "line of command" in must.label
    ends = [path[-1] for path in must.choose["path"].options]
    assert "A8" in ends and "A10" not in ends
    assert "A1" not in ends  # out of command, 3 MP (halved, rule 5) do not reach the leader
    play(state, "nationalist", {"type": "move", "units": ["u"], "path": ["A10", "A9", "A8"]})
    play(state, "nationalist", {"type": "end_phase"})


def test_10_no_obligation_to_move_once_the_line_is_open_again():
    """Rule 10: the obligation is to regain the line; a unit whose line is open now need not move."""
    units = [
        unit("l", "nationalist", "leader", 0, "E4"),
        unit("u", "nationalist", "infantry", 3, "E5"),
        unit("x", "republican", "infantry", 3, "A6"),
    ]
    state = board_state(units)
    state["units"]["u"]["out_of_supply"] = True
    assert board.status_of(state, "nationalist")[0] == []  # its line is open: nothing to regain
    play(state, "nationalist", {"type": "end_phase"})


def test_10_no_obligation_when_the_line_cannot_be_regained():
    units = [unit("u", "nationalist", "infantry", 3, "A10")]  # no leader at all
    state = board_state(units)
    state["units"]["u"]["out_of_command"] = True
    play(state, "nationalist", {"type": "end_phase"})


def test_10_the_obligation_says_as_many_hexes_as_the_move_that_meets_it_offers():
    """Rule 10 ("units out of command must move so as to regain the line"): the reason a phase
    may not end names how many hexes regain the line -- as many as the move that meets the
    obligation offers -- and only such hexes (issue 51, finding 11: it listed 5 where the move
    offered 9, and a move to a hex it left out was accepted as regaining the line)."""
    units = [
        unit("l", "nationalist", "leader", 0, "A1"),
        unit("u", "nationalist", "infantry", 3, "A10"),
    ]
    state = board_state(units)
    state["units"]["u"]["out_of_command"] = True
    listed = SYSTEM.actions(state, "nationalist")
    [blocked] = [b for b in listed.blocked if b.type == "end_phase"]
    [must] = [t for t in listed.of_type("move") if "regain" in t.label]
    ends = {path[-1] for path in must.choose["path"].options}
    assert len(ends) > 1
    words = re.search(
        r"it can reach any of (\d+) hexes(?::|, among them) ([^)]*)\)", blocked.reason
    )
    assert words, blocked.reason
    assert int(words.group(1)) == len(ends)
    named = re.split(r", | or ", words.group(2))
    assert named and set(named) <= ends
