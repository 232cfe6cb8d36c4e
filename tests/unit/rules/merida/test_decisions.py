"""Issue 19: the players decide what rules 8 and 10 leave to them -- which unit absorbs a loss,
the retreat path, displacing instead of overstacking, the out-of-command retreat towards the
leader.  Each choice: the preferred and a non-preferred legal answer are accepted, an illegal one is
refused citing the rule; a choice with one legal answer is taken automatically and says so.

Rule 8 (faq/corpus/closing-the-merida-pocket.txt): "Stacking limits apply during retreats; the
retreating player may displace units instead of overstacking."  Rule 10: "If found to be in an enemy
ZOC during the combat phase, they are immediately retreated 2 hexes, so as to move them closer to
their leader if possible."
"""

from __future__ import annotations

import pytest

from service.rules.base import RuleViolation, clone
from service.rules.merida import SYSTEM, board
from tests.unit.rules.merida.conftest import board_state, play, types, unit

SIDE, ENEMY = "nationalist", "republican"


def combat(extra=(), defenders=None, **kw):
    """A 24-strength attacker in E4 against ``defenders`` in E5 (6-1 against 4 points)."""
    units = [
        unit("a", SIDE, "infantry", 24, "E4"),
        *(
            defenders
            or [
                unit("weak", ENEMY, "infantry", 1, "E5"),
                unit("strong", ENEMY, "infantry", 3, "E5"),
            ]
        ),
        *extra,
    ]
    return board_state(units, phase="combat", decisions="players", **kw)


def attack(state, roll):
    return play(state, SIDE, {"type": "attack", "attackers": ["a"], "hex": "E5"}, [roll])


def listed(state, side, type_):
    return SYSTEM.actions(state, side).of_type(type_)


def refusal(state, side, command):
    with pytest.raises(RuleViolation) as err:
        SYSTEM.decide(clone(state), side, command, None)
    return err.value


# -- rule 8: which unit absorbs the loss ------------------------------------------------------------


def test_8_the_game_waits_for_the_defender_to_choose_the_loss():
    """6-1, roll 2: D1 -- the Republican player chooses which unit is lost."""
    state = combat()
    events = attack(state, 2)
    assert events[0].type == "CombatResolved" and events[0].data["result"] == "D1"
    assert events[0].data["eliminated"] == [] and len(events) == 1
    assert SYSTEM.active_sides(state) == [ENEMY]
    assert SYSTEM.actions(state, SIDE).templates == []
    [loss] = listed(state, ENEMY, "choose_loss")
    assert loss.choose["units"].options == (["weak"], ["strong"])  # the fixed preference first
    assert loss.choose["units"].labels == ("weak", "strong")
    assert "defending" in loss.label and "rule 8" in loss.label
    assert SYSTEM.actions(state, ENEMY).types() == ["choose_loss"]  # nothing else meanwhile


@pytest.mark.parametrize("chosen", ["weak", "strong"])
def test_8_both_the_weakest_and_another_unit_may_absorb_the_loss(chosen):
    state = combat()
    attack(state, 2)
    events = play(state, ENEMY, {"type": "choose_loss", "units": [chosen]})
    taken = events[0]
    assert taken.type == "DecisionTaken" and taken.data["how"] == "chosen"
    assert taken.data["eliminated"] == [chosen] and state["units"][chosen]["status"] == "eliminated"
    assert "chosen by the Republican player, rule 8" in SYSTEM.describe(taken, state)
    survivor = "strong" if chosen == "weak" else "weak"
    assert state["pending"][0]["kind"] == "retreat" and board.acting_side(state) == ENEMY
    [retreat] = [t for t in listed(state, ENEMY, "choose_retreat") if "path" in t.choose]
    assert retreat.label == f"Choose the retreat of {survivor} (rule 8)"


def test_8_an_illegal_loss_is_refused_citing_the_rule():
    state = combat()
    attack(state, 2)
    assert refusal(state, ENEMY, {"type": "choose_loss", "units": ["a"]}).rule == "8"
    too_many = refusal(state, ENEMY, {"type": "choose_loss", "units": ["weak", "strong"]})
    assert too_many.rule == "8" and "takes 1 unit" in too_many.message
    waiting = refusal(state, SIDE, {"type": "end_phase"})
    assert waiting.rule == "8" and "waits for the republican player" in waiting.message
    first = refusal(state, ENEMY, {"type": "choose_retreat", "path": ["E5", "E6"]})
    assert first.rule == "8" and "choose_loss" in first.message


def test_2_a_leader_is_not_lost_in_place_of_a_unit():
    """Rule 2: leaders are eliminated with their stack; the loss falls on a combat unit."""
    defenders = [
        unit("weak", ENEMY, "infantry", 1, "E5"),
        unit("strong", ENEMY, "infantry", 2, "E5"),
        unit("ld", ENEMY, "leader", 1, "E5"),
    ]
    state = combat(defenders=defenders)
    attack(state, 2)
    err = refusal(state, ENEMY, {"type": "choose_loss", "units": ["ld"]})
    assert err.rule == "2" and "leader" in err.message


def test_8_a_loss_with_one_legal_answer_is_taken_automatically_and_says_so():
    state = combat(defenders=[unit("only", ENEMY, "infantry", 4, "E5")])
    events = attack(state, 2)
    taken = next(e for e in events if e.type == "DecisionTaken")
    assert taken.data["kind"] == "loss" and taken.data["how"] == "only"
    assert "the only legal choice, taken automatically" in SYSTEM.describe(taken, state)
    assert state["pending"] == [] and state["advance"]["hex"] == "E5"


# -- rule 8: which retreat path ----------------------------------------------------------------------


def _retreat_paths(state):
    [template] = [t for t in listed(state, ENEMY, "choose_retreat") if "path" in t.choose]
    return list(template.choose["path"].options)


def test_8_the_defender_chooses_the_retreat_path_second_one_and_the_attacker_may_advance():
    state = combat()
    events = attack(state, 1)  # 6-1, roll 1: DR
    assert events[0].data["result"] == "DR" and state["pending"][0]["kind"] == "retreat"
    paths = _retreat_paths(state)
    assert len(paths) >= 2
    grid = board.map_of(state).grid
    assert all(len(p) == 2 and p[0] == "E5" and not grid.adjacent(p[1], "E4") for p in paths)
    events = play(state, ENEMY, {"type": "choose_retreat", "path": paths[1]})
    assert events[0].data["path"] == paths[1] and events[0].data["how"] == "chosen"
    assert {state["units"][u]["hex"] for u in ("weak", "strong")} == {paths[1][-1]}
    assert state["pending"] == [] and board.acting_side(state) == SIDE
    assert state["advance"] == {"hex": "E5", "units": ["a"], "extra_mp": 0}
    assert listed(state, SIDE, "advance")


def test_8_the_first_listed_retreat_is_accepted_too():
    state = combat()
    attack(state, 1)
    first = _retreat_paths(state)[0]
    play(state, ENEMY, {"type": "choose_retreat", "path": first})
    assert state["units"]["weak"]["hex"] == first[-1]


def test_8_an_illegal_retreat_is_refused_citing_the_rule():
    """Rule 8: never into an enemy ZOC; one hex; a retreat starts where the stack stands."""
    state = combat()
    attack(state, 1)
    grid = board.map_of(state).grid
    into_zoc = next(h for h in grid.neighbours("E5") if h != "E4" and grid.adjacent(h, "E4"))
    err = refusal(state, ENEMY, {"type": "choose_retreat", "path": ["E5", into_zoc]})
    assert err.rule == "8" and "ZOC" in err.message and err.field == "path"
    far = _retreat_paths(state)[0][-1]
    beyond = next(h for h in grid.neighbours(far) if grid.distance(h, "E5") == 2)
    err = refusal(state, ENEMY, {"type": "choose_retreat", "path": ["E5", far, beyond]})
    assert err.rule == "8" and "1 hex" in err.message
    err = refusal(state, ENEMY, {"type": "choose_retreat", "path": ["E4", "E3"]})
    assert err.rule == "8" and "starts at" in err.message


def test_8_retreats_of_a_stack_with_one_way_out_are_automatic():
    extra = [unit(f"z{i}", SIDE, "infantry", 1, h) for i, h in enumerate(["D6", "F6"])]
    state = combat(extra=extra, defenders=[unit("d", ENEMY, "infantry", 4, "E5")])
    events = attack(state, 1)
    retreat = next(e for e in events if e.type == "DecisionTaken")
    assert retreat.data["kind"] == "retreat" and retreat.data["how"] == "only"
    assert state["pending"] == []


# -- rule 8: displacing instead of overstacking ------------------------------------------------------


def _displacement_case():
    """Every hex the stack may retreat to but E6 is in a Nationalist ZOC; E6 holds three units."""
    full = [unit(f"f{i}", ENEMY, "infantry", 1, "E6") for i in range(3)]
    extra = [unit("z", SIDE, "infantry", 1, "G6"), *full]  # G6 blocks F5 and F6
    state = combat(extra=extra, defenders=[unit("d", ENEMY, "infantry", 4, "E5")])
    attack(state, 1)
    return state


def test_8_the_retreating_player_chooses_where_displaced_units_go():
    state = _displacement_case()
    [template] = listed(state, ENEMY, "choose_retreat")
    assert template.fixed == {"path": ["E5", "E6"]} and "displacing" in template.label
    options = list(template.choose["displace"].options)
    assert len(options) >= 2 and all(o[0] == "E6" for o in options)
    for choice in (options[0], options[-1]):  # the preferred and another legal one
        trial = clone(state)
        events = play(
            trial, ENEMY, {"type": "choose_retreat", "path": ["E5", "E6"], "displace": choice}
        )
        assert events[0].data["displaced"]["path"] == choice
        assert {trial["units"][f"f{i}"]["hex"] for i in range(3)} == {choice[-1]}
        assert trial["units"]["d"]["hex"] == "E6"


def test_8_overstacking_without_displacing_and_a_bad_displacement_are_refused():
    state = _displacement_case()
    err = refusal(state, ENEMY, {"type": "choose_retreat", "path": ["E5", "E6"]})
    assert err.rule == "6" and "displace" in err.message
    grid = board.map_of(state).grid
    bad = next(h for h in grid.neighbours("E6") if grid.adjacent(h, "G6") or h == "E5")
    err = refusal(
        state, ENEMY, {"type": "choose_retreat", "path": ["E5", "E6"], "displace": ["E6", bad]}
    )
    assert err.rule == "8" and err.field == "displace"


# -- rule 10: the out-of-command retreat towards the leader ----------------------------------------


def _out_of_command():
    units = [
        unit("l", SIDE, "leader", 0, "A1"),
        unit("u", SIDE, "infantry", 3, "E9"),
        unit("r", ENEMY, "infantry", 3, "E10"),
    ]
    state = board_state(units, decisions="players")
    events = play(state, SIDE, {"type": "end_phase"})
    return state, events


def test_10_the_owner_chooses_among_the_retreats_that_bring_the_units_closer_to_their_leader():
    state, events = _out_of_command()
    assert types(events)[-1] == "RetreatsDue" and state["phase"] == "command"
    assert SYSTEM.active_sides(state) == [SIDE]
    [template] = listed(state, SIDE, "choose_retreat")
    paths = list(template.choose["path"].options)
    grid = board.map_of(state).grid
    assert len(paths) >= 2 and "rule 10" in template.label
    assert all(
        len(p) == 3 and grid.distance(p[-1], "A1") < grid.distance("E9", "A1") for p in paths
    )
    events = play(state, SIDE, {"type": "choose_retreat", "path": paths[-1]})
    assert events[0].type == "DecisionTaken" and events[0].data["rule"] == "10"
    assert state["units"]["u"]["hex"] == paths[-1][-1]
    assert state["phase"] != "command" and "PhaseBegan" in types(events)  # the game runs on


def test_10_a_retreat_away_from_the_leader_is_refused_citing_rule_10():
    state, _ = _out_of_command()
    grid = board.map_of(state).grid
    start_distance = grid.distance("E9", "A1")
    away = None
    for mid in grid.neighbours("E9"):
        for end in grid.neighbours(mid):
            if (
                end != "E9"
                and not grid.adjacent(end, "E10")
                and not grid.adjacent(mid, "E10")
                and mid != "E10"
                and grid.distance(end, "A1") >= start_distance
            ):
                away = ["E9", mid, end]
    assert away is not None
    err = refusal(state, SIDE, {"type": "choose_retreat", "path": away})
    assert err.rule == "10" and "closer to their leader" in err.message


# -- the option, replay ------------------------------------------------------------------------------


def test_the_automatic_option_keeps_the_fixed_preference():
    state = board_state(
        [
            unit("a", SIDE, "infantry", 24, "E4"),
            unit("weak", ENEMY, "infantry", 1, "E5"),
            unit("strong", ENEMY, "infantry", 3, "E5"),
        ],
        phase="combat",
        decisions="automatic",
    )
    events = attack(state, 2)
    assert types(events) == ["CombatResolved"] and events[0].data["eliminated"] == ["weak"]
    assert state["pending"] == [] and board.acting_side(state) == SIDE


def test_replay_of_the_recorded_decisions_is_pure():
    """The decisions are recorded facts: applying the recorded events to the starting state gives
    the same state, with no judgement and no dice."""
    state = combat()
    start = clone(state)
    recorded = attack(state, 2)
    recorded += play(state, ENEMY, {"type": "choose_loss", "units": ["strong"]})
    recorded += play(state, ENEMY, {"type": "choose_retreat", "path": _retreat_paths(state)[1]})
    for event in recorded:
        SYSTEM.apply(start, event)
    assert start == state


def test_8_the_attacker_chooses_its_own_losses_first_then_the_defender():
    """EX (rule 8, CRT): both sides lose 1 unit; the attacker's loss is the phasing player's
    choice, then the defender's loss and retreat are the other player's."""
    units = [
        unit("a1", SIDE, "infantry", 2, "E4"),
        unit("a2", SIDE, "infantry", 2, "E4"),
        unit("weak", ENEMY, "infantry", 1, "E5"),
        unit("strong", ENEMY, "infantry", 3, "E5"),
    ]
    state = board_state(units, phase="combat", decisions="players")
    events = play(state, SIDE, {"type": "attack", "attackers": ["a1", "a2"], "hex": "E5"}, [4])
    assert events[0].data["result"] == "EX"  # 4 vs 4: 1-1, roll 4
    assert SYSTEM.active_sides(state) == [SIDE]
    [loss] = listed(state, SIDE, "choose_loss")
    assert "attacking" in loss.label and loss.choose["units"].options == (["a1"], ["a2"])
    assert refusal(state, SIDE, {"type": "choose_loss", "units": ["weak"]}).rule == "8"
    play(state, SIDE, {"type": "choose_loss", "units": ["a2"]})
    assert state["units"]["a2"]["status"] == "eliminated" and SYSTEM.active_sides(state) == [ENEMY]
    play(state, ENEMY, {"type": "choose_loss", "units": ["strong"]})
    play(state, ENEMY, listed(state, ENEMY, "choose_retreat")[0].command())
    assert state["units"]["weak"]["hex"] != "E5" and state["advance"]["units"] == ["a1"]
