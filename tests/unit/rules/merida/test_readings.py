"""Issue 19: readings settled in the open.  Each is a conflict entry of Merida's rulebook (the text,
the reading applied and why) with a scenario option giving the other reading; both readings are
played here.

Rule 7: "The six hexes adjacent to a unit are called its zone of control (ZOC)."  Rule 4: "D.
Command. The phasing player checks his command structure and line of communication."  Terrain
Effects Chart, River: "2 mp for all others".
"""

from __future__ import annotations

import pytest

from service.rules.base import RulesEvent, RuleViolation, ScenarioError
from service.rules.merida import SYSTEM, board, sequence, terrain
from service.rules.merida.rulebook import OPTIONS, RULEBOOK
from tests.unit.rules.merida.conftest import board_state, play, unit

SIDE, ENEMY = "nationalist", "republican"


def _conflict(key):
    return next(c for c in RULEBOOK.conflicts if c.key == key)


@pytest.mark.parametrize(
    ("key", "option"),
    [
        ("leader-zoc", "leader_zoc"),
        ("command-check-phase", "command_check"),
        ("river-crossing-cost", "river_cost"),
        ("combat-once-per-turn", "combat_once_per"),
    ],
)
def test_each_reading_is_a_conflict_entry_quoting_the_rulebook_with_its_option(key, option):
    conflict = _conflict(key)
    with open("faq/corpus/closing-the-merida-pocket.txt", encoding="utf-8") as handle:
        text = handle.read()
    assert conflict.readings and all(r.quote in text for r in conflict.readings)
    assert conflict.option is not None and option in conflict.option
    assert option in SYSTEM.default_options("merida-1938")


# -- rule 7: leaders' ZOC ----------------------------------------------------------------------------


def _past_a_leader(**options):
    units = [
        unit("l", SIDE, "leader", 0, "E1"),
        unit("u", SIDE, "infantry", 3, "E3"),
        unit("rl", ENEMY, "leader", 1, "E6"),  # a Republican leader alone
        unit("rx", ENEMY, "infantry", 3, "A12"),
    ]
    return board_state(units, options=options)


def test_7_by_default_a_leader_alone_exerts_no_zoc():
    state = _past_a_leader()
    assert "E5" not in board.zoc_sources(state, ENEMY)
    play(state, SIDE, {"type": "move", "units": ["u"], "path": ["E3", "E4", "E5", "D5"]})
    assert state["units"]["u"]["hex"] == "D5"


def test_7_with_leader_zoc_exerted_units_stop_next_to_a_leader():
    state = _past_a_leader(leader_zoc="exerted")
    assert "E6" in board.zoc_sources(state, ENEMY)["E5"]
    with pytest.raises(RuleViolation) as err:
        play(state, SIDE, {"type": "move", "units": ["u"], "path": ["E3", "E4", "E5", "D5"]})
    assert err.value.rule == "7"
    paths = [
        p
        for t in SYSTEM.actions(state, SIDE).of_type("move")
        if t.fixed["units"] == ["u"] and t.fixed["mode"] == "tactical"
        for p in t.choose["path"].options
    ]
    assert paths and not any("E5" in p[1:-1] for p in paths)  # the listing agrees


# -- rule 4: the command check in phase B and D ---------------------------------------------------


def _to_movement(**options):
    units = [
        unit("l", SIDE, "leader", 0, "A1"),
        unit("u", SIDE, "infantry", 3, "J10"),  # more than 7 hexes from its leader
        unit("r", ENEMY, "infantry", 3, "A12"),
    ]
    state = board_state(units, phase="reinforcements", options=options)
    state["pending_removals"] = []
    return state, play(state, SIDE, {"type": "end_phase"})


def test_4_by_default_command_is_checked_in_phase_b_too():
    state, events = _to_movement()
    checked = next(e.data for e in events if e.type == "StatusChecked")
    assert checked["out_of_command"] == ["u"] and state["units"]["u"]["out_of_command"]
    assert state["phase"] == "movement"


def test_4_with_command_check_d_only_movement_uses_the_last_phase_d_check():
    state, events = _to_movement(command_check="D_only")
    checked = next(e.data for e in events if e.type == "StatusChecked")
    assert checked["out_of_command"] == [] and not state["units"]["u"]["out_of_command"]
    events = play(state, SIDE, {"type": "end_phase"})  # phase D checks command
    command = next(e.data for e in events if e.type == "CommandChecked")
    assert command["out_of_command"] == ["u"]


# -- the Terrain Effects Chart: river crossings --------------------------------------------------------


def _river(**options):
    units = [unit("l", SIDE, "leader", 0, "E3"), unit("u", SIDE, "infantry", 3, "E4")]
    units.append(unit("r", ENEMY, "infantry", 3, "A12"))
    sides = [{"hexes": ["E4", "E5"], "features": ["river"]}]
    return board_state(
        units,
        hexsides=sides,
        terrain={"E5": "mountain"} if options.pop("mountain", False) else {},
        options=options,
    )


@pytest.mark.parametrize(
    ("options", "cost"),
    [
        ({}, 2.0),  # 2 MP in total
        ({"river_cost": "added"}, 3.0),  # clear 1 + 2
        ({"mountain": True}, 2.0),  # the mountain's 2 for infantry, not more
        ({"mountain": True, "river_cost": "added"}, 4.0),
    ],
)
def test_tec_river_crossing_cost_in_total_or_added(options, cost):
    state = _river(**options)
    assert terrain.step_cost(state, state["units"]["u"], "E4", "E5") == cost
    moved = play(state, SIDE, {"type": "move", "units": ["u"], "path": ["E4", "E5"]})[0]
    assert moved.data["costs"] == {"u": cost}


def test_tec_river_added_cost_limits_the_listed_moves():
    """Infantry has 6 MP: across the river into a mountain and on costs 4 + 2 with the option."""
    total = _river(mountain=True)
    added = _river(mountain=True, river_cost="added")

    def ends(state):
        return {
            p[-1]
            for t in SYSTEM.actions(state, SIDE).of_type("move")
            if t.fixed["units"] == ["u"] and t.fixed["mode"] == "tactical"
            for p in t.choose["path"].options
            if "E5" in p
        }

    assert ends(added) < ends(total)


# -- rule 8: "once per turn" -- each player's turn, or the game turn --------------------------------


def _after_the_nationalist_battle(**options):
    """The Nationalist "a" (E4) attacks the Republican "d" (E5, a town: the retreat is ignored);
    then the Republican player's turn comes and reaches its combat phase, "d" still next to "a"
    and "r" (D4) beside "a" too."""
    units = [
        unit("a", SIDE, "infantry", 6, "E4"),
        unit("d", ENEMY, "infantry", 3, "E5"),
        unit("r", ENEMY, "infantry", 3, "D4"),
        unit("far", ENEMY, "infantry", 3, "A12"),
    ]
    state = board_state(units, phase="combat", hex_features={"E5": ["town"]}, options=options)
    del state["units"]["r"]  # only "a" and "d" fight in the Nationalist turn
    play(state, SIDE, {"type": "attack", "attackers": ["a"], "hex": "E5"}, [5])
    state["units"]["r"] = board_state(units)["units"]["r"]
    assert state["units"]["a"]["attacked"] and state["units"]["d"]["defended"]
    _begin(state, 2, ENEMY)
    return state


def _begin(state, turn, side):
    """The player's turn begins (phase A, its marks cleared) and reaches its combat phase."""
    SYSTEM.apply(
        state, RulesEvent("PhaseBegan", {"turn": turn, "side": side, "phase": "reinforcements"})
    )
    state.update(phase="combat")
    state.update(sequence.combat_obligations(state))


def _listed_attacks(state, side):
    return sorted(
        (
            t.fixed.get("hex"),
            tuple(t.choose["attackers"].options) if "attackers" in t.choose else (),
        )
        for t in SYSTEM.actions(state, side).of_type("attack")
    )


def test_8_by_default_once_per_turn_is_each_players_turn():
    """Rule 8: "Each unit may only attack or be attacked once per turn" -- each player's turn:
    "d", attacked in the Nationalist turn, attacks "a" in its own (rule 8: "All units in an enemy
    ZOC must attack"), and "a", which attacked, may be attacked."""
    state = _after_the_nationalist_battle()
    assert state["must_attack"] == ["d", "r"] and state["must_be_attacked"] == ["a"]
    with pytest.raises(RuleViolation) as refused:  # rule 8: they must attack first
        play(state, ENEMY, {"type": "end_phase"})
    assert refused.value.rule == "8"
    play(state, ENEMY, {"type": "attack", "attackers": ["d", "r"], "hex": "E4"}, [3])
    assert state["units"]["d"]["attacked"] and state["units"]["a"]["defended"]


def test_8_option_game_turn_a_unit_fights_once_in_the_whole_game_turn():
    """Rule 8: "Each unit may only attack or be attacked once per turn" with rule 4's turn ("The
    above phases are repeated with the nonphasing player ... The turn is then over, and the marker
    is advanced"), the game option ``combat_once_per: game_turn``: "d", attacked in the Nationalist
    turn, may not attack; "a", which attacked, may not be attacked; neither must, so the phase ends;
    the marks go when the next game turn begins."""
    state = _after_the_nationalist_battle(combat_once_per="game_turn")
    assert state["must_attack"] == ["r"] and state["must_be_attacked"] == []
    assert _listed_attacks(state, ENEMY) == []
    with pytest.raises(RuleViolation) as refused:
        play(state, ENEMY, {"type": "attack", "attackers": ["d"], "hex": "E4"})
    assert refused.value.rule == "8" and refused.value.field == "attackers"
    assert refused.value.message == "d may not attack: it has already been attacked this turn"
    with pytest.raises(RuleViolation) as refused:
        play(state, ENEMY, {"type": "attack", "attackers": ["r"], "hex": "E4"})
    assert (refused.value.rule, refused.value.field) == ("8", "hex")
    assert "a in E4 has already attacked this turn" in refused.value.message
    events = play(state, ENEMY, {"type": "end_phase"})  # no obligation left: "a" is out of reach
    began = [e.data for e in events if e.type == "PhaseBegan"][0]
    assert (began["turn"], began["side"]) == (3, SIDE)  # the next game turn: the marks are gone
    assert not state["units"]["a"]["attacked"] and not state["units"]["d"]["defended"]
    state["units"]["a"]["out_of_command"] = False  # no leader on this board (rule 10)
    state.update(phase="combat")
    play(state, SIDE, {"type": "attack", "attackers": ["a"], "hex": "E5"}, [5])


def test_8_the_once_per_turn_option_is_declared_by_the_system_and_checked():
    """The game's own option: offered for the shipped scenario (and any club's), rule 8's
    player-turn reading by default and not written into a new game's state; a bad value is
    refused naming ``options.combat_once_per``."""
    assert SYSTEM.default_options("merida-1938")["combat_once_per"] == "player_turn"
    assert "combat_once_per" in OPTIONS
    assert "combat_once_per" not in SYSTEM.initial_state("merida-1938", {})["options"]
    chosen = SYSTEM.initial_state("merida-1938", {"combat_once_per": "game_turn"})
    assert chosen["options"]["combat_once_per"] == "game_turn"
    with pytest.raises(ScenarioError) as bad:
        SYSTEM.initial_state("merida-1938", {"combat_once_per": "phase"})
    assert "options.combat_once_per" in bad.value.problems
    assert _conflict("combat-once-per-turn").engine_reading.startswith(
        "each player's turn by default"
    )
