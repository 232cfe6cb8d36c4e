"""The listed actions in the one vocabulary (docs/rules/contract.md): every command built from a
listed template is accepted by ``decide`` -- never malformed, and for templates whose choices are
all ``one_of``, never refused -- in the states of every kind of phase; End phase is a template only
when ``decide`` would accept it, else blocked with the reason and the rule."""

from __future__ import annotations

import pytest

from service.rules.base import RuleViolation
from service.rules.merida import SYSTEM
from tests.unit.rules.merida.conftest import accepted_commands, board_state, play, unit


@pytest.fixture
def scenario():
    return SYSTEM.initial_state("merida-1938", {})


def deployed(state):
    play(state, "republican", {"type": "deploy", "unit": "r-68-div-4", "hex": "AC10"})
    play(state, "republican", {"type": "deploy", "unit": "r-37-div-4", "hex": "Y7"})
    play(state, "republican", {"type": "end_phase"})
    return state


def end_phase_listed_iff_accepted(state, side):
    """End phase: a template exactly when decide accepts it; blocked with the same rule if not."""
    listed = SYSTEM.actions(state, side)
    assert listed.templates, "a side that must act always has a template"
    try:
        SYSTEM.decide(state, side, {"type": "end_phase"}, None)
    except RuleViolation as err:
        [blocked] = [b for b in listed.blocked if b.type == "end_phase"]
        assert (blocked.rule, blocked.reason) == (err.rule, err.message)
        assert not listed.of_type("end_phase")
    else:
        assert listed.of_type("end_phase")


def test_12_deployment_every_listed_hex_is_accepted(scenario):
    """Set up table note: the 37 and 68 Div deploy within one hex of their listed hex."""
    assert accepted_commands(scenario, "republican") == {"deploy": 8 * 7}
    end_phase_listed_iff_accepted(scenario, "republican")
    [blocked] = SYSTEM.actions(scenario, "republican").blocked
    assert blocked.rule == "6" and "overstacked" in blocked.reason


def test_5_turn_1_movement_every_listed_command_is_accepted(scenario):
    deployed(scenario)
    decided = accepted_commands(scenario, "nationalist", per_template=8)
    assert decided["move"] > 100
    end_phase_listed_iff_accepted(scenario, "nationalist")


def test_12_reinforcements_and_removals_every_listed_command_is_accepted(scenario):
    deployed(scenario)
    scenario.update(turn=2, side="republican", phase="combat", must_attack=[], must_be_attacked=[])
    play(scenario, "republican", {"type": "end_phase"})  # turn 3: the Nationalist removals
    assert accepted_commands(scenario, "nationalist") == {"remove": 2}
    end_phase_listed_iff_accepted(scenario, "nationalist")
    scenario["units"]["n-74-div"].update(status="eliminated", hex=None)
    [instead] = SYSTEM.actions(scenario, "nationalist").of_type("remove")[:1]
    assert set(instead.choose) == {"instead"} and "74 Div" in instead.label
    play(scenario, "nationalist", instead.command())
    play(scenario, "nationalist", {"type": "remove", "unit": "n-102-div"})
    scenario.update(phase="combat", must_attack=[], must_be_attacked=[])
    play(scenario, "nationalist", {"type": "end_phase"})
    scenario.update(side="nationalist", phase="combat")
    play(scenario, "nationalist", {"type": "end_phase"})  # the Republican reinforcements
    assert scenario["side"] == "republican" and scenario["phase"] == "reinforcements"
    assert accepted_commands(scenario, "republican") == {"place_reinforcement": 2 * 29}
    end_phase_listed_iff_accepted(scenario, "republican")


def combat_state():
    return board_state(
        [
            unit("a", "nationalist", "infantry", 9, "E4"),
            unit("b", "nationalist", "infantry", 3, "D5"),
            unit("t", "nationalist", "armor", 2, "F4"),
            unit("d", "republican", "infantry", 1, "E5"),
            unit("e", "republican", "infantry", 2, "G4"),  # next to the tanks alone
        ],
        phase="combat",
    )


def test_8_combat_every_listed_attack_is_accepted():
    """Rule 8: the units next to an enemy stack attack it; rule 2: tanks never attack alone."""
    state = combat_state()
    listed = SYSTEM.actions(state, "nationalist")
    attacks = {t.fixed["hex"]: t for t in listed.of_type("attack")}
    assert set(attacks) == {"E5"}
    assert attacks["E5"].choose["attackers"].options == ("a", "b", "t")
    assert [(b.type, b.rule) for b in listed.blocked] == [("attack", "2"), ("end_phase", "8")]
    assert accepted_commands(state, "nationalist") == {"attack": 1}
    end_phase_listed_iff_accepted(state, "nationalist")


def test_8_the_advance_after_combat_is_listed_and_accepted():
    """Rule 8: 6-1, D3 on one defender: the vacated hex, and 4 extra movement points beyond."""
    state = board_state(
        [
            unit("a", "nationalist", "infantry", 18, "E4"),
            unit("d", "republican", "infantry", 3, "E5"),
        ],
        phase="combat",
    )
    play(state, "nationalist", {"type": "attack", "attackers": ["a"], "hex": "E5"}, [5])
    [advance] = SYSTEM.actions(state, "nationalist").of_type("advance")
    ends = [path[-1] for path in advance.choose["path"].options]
    assert ends[0] == "E5" and "E9" in ends and "E10" not in ends
    assert accepted_commands(state, "nationalist")["advance"] == len(ends)
    play(state, "nationalist", advance.command(path=advance.choose["path"].options[-1]))


def test_8_air_allocation_and_overrun_templates_are_accepted():
    state = combat_state()
    state.update(phase="air_attack")
    decided = accepted_commands(state, "nationalist")
    assert decided == {"allocate_air": 2, "end_phase": 1}
    [air] = SYSTEM.actions(state, "nationalist").of_type("allocate_air")[:1]
    assert air.choose["air"].options == ("Fiat", "Fiat")  # turn 2: two Fiat points
    state.update(phase="movement")
    overruns = SYSTEM.actions(state, "nationalist").of_type("declare_overrun")
    assert [t.fixed["hex"] for t in overruns] == ["E5"]
    assert accepted_commands(state, "nationalist", per_template=4)["declare_overrun"] == 1


def test_4_no_templates_for_the_side_not_acting(scenario):
    assert not SYSTEM.actions(scenario, "nationalist")
    assert SYSTEM.actions(scenario, "nationalist").blocked == []
