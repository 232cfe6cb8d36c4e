"""Rule 12: the Set up table, the deployment allowance of the 37 and 68 Div, reinforcements and
removals by turn, the leader change, and rule 4A's reinforcement phase."""

from __future__ import annotations

import random

import pytest

from service.rules.base import DieRoll, RuleViolation
from service.rules.merida import SYSTEM, board, data, sequence
from tests.unit.rules.merida.conftest import play, regain_lines, types


@pytest.fixture
def state():
    return SYSTEM.initial_state("merida-1938", {})


def deployed(state):
    play(state, "republican", {"type": "deploy", "unit": "r-68-div-4", "hex": "AC10"})
    play(state, "republican", {"type": "deploy", "unit": "r-37-div-4", "hex": "Y7"})
    play(state, "republican", {"type": "end_phase"})
    return state


def at(state, turn, side, phase="combat"):
    """Jump to the end of a phase (tests of what comes next)."""
    state.update(turn=turn, side=side, phase=phase, must_attack=[], must_be_attacked=[])
    return state


ERRATA_NAMES = {"5/3 Cav": "3 Cav"}  # rule 13: one of the 3 Cav's two units is the 5/3 Cav


def test_12_every_set_up_unit_at_its_printed_hex(state):
    for side in ("nationalist", "republican"):
        for entry in data.load("setup")[side]:
            names = [u["name"].split(" #")[0] for u in board.units_at(state, entry["hex"], side)]
            here = {ERRATA_NAMES.get(name, name) for name in names}
            printed = {n.replace(" (2 units)", "").replace(" (1 unit)", "") for n in entry["units"]}
            assert here == printed, entry


def test_12_37_and_68_div_begin_overstacked_and_deploy_within_one_hex(state):
    assert state["phase"] == "deployment" and SYSTEM.active_sides(state) == ["republican"]
    with pytest.raises(RuleViolation) as err:
        play(state, "republican", {"type": "end_phase"})
    assert err.value.rule == "6"
    with pytest.raises(RuleViolation) as err:
        play(state, "republican", {"type": "deploy", "unit": "r-68-div-4", "hex": "AC12"})
    assert err.value.rule == "12"
    with pytest.raises(RuleViolation):
        play(state, "republican", {"type": "deploy", "unit": "r-1-25", "hex": "S17"})
    deployed(state)
    assert (state["turn"], state["side"], state["phase"]) == (1, "nationalist", "movement")


def test_4_nationalist_is_always_the_first_player(state):
    deployed(state)
    assert SYSTEM.phase(state)["side"] == "nationalist"


def test_12_units_stacked_with_a_leader_remain_with_it_on_turn_1(state):
    """Set up table note: units that begin the game stacked with a leader must remain with that
    leader for turn 1 -- so neither moves away from the other: a move that separates them is
    refused citing rule 12, and they move as one stack."""
    deployed(state)
    regain_lines(state, "nationalist")  # rule 10, not under test here
    for alone in (["n-19-div"], ["n-solans"]):
        with pytest.raises(RuleViolation) as err:
            play(state, "nationalist", {"type": "move", "units": alone, "path": ["O10", "O9"]})
        assert err.value.rule == "12" and err.value.field == "units"
        assert "Solans" in err.value.message and "19 Div" in err.value.message
    stack = ["n-19-div", "n-solans"]
    play(state, "nationalist", {"type": "move", "units": stack, "path": ["O10", "O9"]})
    assert {state["units"][u]["hex"] for u in stack} == {"O9"}
    play(state, "nationalist", {"type": "end_phase"})


def test_12_the_leader_and_its_units_are_offered_one_stack_move_on_turn_1(state):
    deployed(state)
    listed = SYSTEM.actions(state, "nationalist").of_type("move")
    moving = [t.fixed["units"] for t in listed]
    assert ["n-19-div", "n-solans"] in moving and ["n-24-div", "n-mugica"] in moving
    assert not {"n-19-div", "n-solans", "n-24-div", "n-mugica"} & {
        u for units in moving if len(units) == 1 for u in units
    }
    stack = {"units": ["n-19-div", "n-solans"], "mode": "tactical"}
    [tactical] = [t for t in listed if t.fixed == stack]
    assert tactical.label == "Move 19 Div and Solans (L) (tactical)"
    for command in tactical.commands()[:10]:  # each destination accepted for the whole stack
        events = SYSTEM.decide(state, "nationalist", command, None)
        assert events[0].data["units"] == stack["units"]


def test_12_from_turn_2_the_leader_and_its_units_move_apart(state):
    at(deployed(state), 1, "republican")
    play(state, "republican", {"type": "end_phase"})
    regain_lines(state, "nationalist")
    play(state, "nationalist", {"type": "move", "units": ["n-19-div"], "path": ["O10", "O9"]})
    assert state["units"]["n-solans"]["hex"] == "O10"
    assert ["n-solans"] in [
        t.fixed["units"] for t in SYSTEM.actions(state, "nationalist").of_type("move")
    ]


@pytest.mark.parametrize("seed", range(4))
def test_12_random_legal_play_of_turn_1_always_ends_the_phase(state, seed):
    """The defect: on turn 1 19 Div and Solans were offered a move each; moved apart, End phase was
    refused under rule 12 for ever and neither was listed again.  Random play of the listed
    commands now always reaches the end of the Nationalist movement phase."""
    rng = random.Random(seed)
    deployed(state)
    for _ in range(60):
        if state["phase"] != "movement" or state["side"] != "nationalist":
            break
        listed = SYSTEM.actions(state, "nationalist")
        assert listed.templates, listed.blocked  # a side that must act always can
        moves = [t for t in listed.templates if t.type != "end_phase"]
        ending = listed.of_type("end_phase")
        pick = ending[0] if ending and (not moves or rng.random() < 0.1) else rng.choice(moves)
        play(state, "nationalist", rng.choice(pick.commands()))
    assert (state["turn"], state["side"]) != (1, "nationalist") or state["phase"] != "movement"


class RandomDice:
    def __init__(self, rng: random.Random) -> None:
        self.rng, self.index = rng, 0

    def roll(self, sides: int = 6, purpose: str = "") -> DieRoll:
        self.index += 1
        return DieRoll(self.index, sides, self.rng.randint(1, sides), purpose)


def test_12_random_legal_play_of_the_whole_of_turn_1_reaches_turn_2(state):
    """Both players, every phase of turn 1, commands picked at random from the listed templates and
    sent as built (some_of choices whole): every one is accepted and turn 2 is reached."""
    rng = random.Random(7)
    dice = RandomDice(rng)
    deployed(state)
    for _ in range(150):
        if state["turn"] > 1:
            break
        side = SYSTEM.active_sides(state)[0]
        listed = SYSTEM.actions(state, side)
        assert listed.templates, listed.blocked
        others = [t for t in listed.templates if t.type != "end_phase"]
        ending = listed.of_type("end_phase")
        pick = ending[0] if ending and (not others or rng.random() < 0.3) else rng.choice(others)
        for event in SYSTEM.decide(state, side, rng.choice(pick.commands()), dice):
            SYSTEM.apply(state, event)
    assert state["turn"] == 2


def test_12_republican_reinforcements_enter_on_the_east_edge_m26_to_ao26(state):
    events = play(at(deployed(state), 3, "nationalist"), "nationalist", {"type": "end_phase"})
    due = next(e.data for e in events if e.type == "ReinforcementsDue")
    assert due == {"side": "republican", "units": ["r-66-brg", "r-81-brg"]}
    actions = {
        t.fixed["unit"]: t.choose["hex"].options
        for t in SYSTEM.actions(state, "republican").of_type("place_reinforcement")
    }
    assert actions["r-66-brg"][0] == "M26" and actions["r-66-brg"][-1] == "AO26"
    assert len(actions["r-66-brg"]) == 29
    assert [b.rule for b in SYSTEM.actions(state, "republican").blocked] == ["12"]
    with pytest.raises(RuleViolation) as err:
        play(state, "republican", {"type": "place_reinforcement", "unit": "r-66-brg", "hex": "L26"})
    assert err.value.rule == "12"
    with pytest.raises(RuleViolation) as err:
        play(state, "republican", {"type": "end_phase"})
    assert err.value.rule == "12"
    play(state, "republican", {"type": "place_reinforcement", "unit": "r-66-brg", "hex": "M26"})
    play(state, "republican", {"type": "place_reinforcement", "unit": "r-81-brg", "hex": "AO26"})
    play(state, "republican", {"type": "end_phase"})
    assert state["units"]["r-81-brg"]["hex"] == "AO26"


def test_12_nationalist_14_div_enters_at_j1_on_turn_5(state):
    at(deployed(state), 4, "republican")
    events = play(state, "republican", {"type": "end_phase"})
    assert {"side": "nationalist", "units": ["n-14-div"]} in [
        e.data for e in events if e.type == "ReinforcementsDue"
    ]
    with pytest.raises(RuleViolation):
        play(state, "nationalist", {"type": "place_reinforcement", "unit": "n-14-div", "hex": "J2"})
    play(state, "nationalist", {"type": "place_reinforcement", "unit": "n-14-div", "hex": "J1"})


def test_12_turn_3_removes_74_and_102_div(state):
    at(deployed(state), 2, "republican")
    events = play(state, "republican", {"type": "end_phase"})
    assert {"side": "nationalist", "units": ["n-74-div", "n-102-div"]} in [e.data for e in events]
    with pytest.raises(RuleViolation):
        play(state, "nationalist", {"type": "end_phase"})
    play(state, "nationalist", {"type": "remove", "unit": "n-74-div"})
    play(state, "nationalist", {"type": "remove", "unit": "n-102-div"})
    play(state, "nationalist", {"type": "end_phase"})
    assert state["units"]["n-74-div"]["status"] == "removed"


def test_12_an_eliminated_unit_due_for_removal_is_replaced_by_one_of_equal_or_greater_value(state):
    at(deployed(state), 2, "republican")
    state["units"]["n-74-div"].update(status="eliminated", hex=None)
    state["units"]["n-cen-cav"]["strength"] = 1
    play(state, "republican", {"type": "end_phase"})
    with pytest.raises(RuleViolation) as err:
        play(state, "nationalist", {"type": "remove", "unit": "n-74-div", "instead": "n-cen-cav"})
    assert "equal or greater" in err.value.message
    play(state, "nationalist", {"type": "remove", "unit": "n-74-div", "instead": "n-11-div"})
    assert state["units"]["n-11-div"]["status"] == "removed"


def test_12_turn_4_burillo_replaced_by_pradas_at_zarzacapilla(state):
    at(deployed(state), 4, "nationalist")
    events = play(state, "nationalist", {"type": "end_phase"})
    assert "LeaderReplaced" in types(events) and state["units"]["r-burillo"]["status"] == "removed"
    [listed] = [
        t
        for t in SYSTEM.actions(state, "republican").templates
        if t.fixed.get("unit") == "r-pradas"
    ]
    assert (listed.type, listed.choose["hex"].options) == ("place_reinforcement", ("AC20",))
    assert listed.label == "Place Pradas (L)" and listed.choose["hex"].labels == (
        "Zarzacapilla (AC20)",
    )


def test_12_turn_14_102_div_returns_at_aq1(state):
    deployed(state)
    state["units"]["n-102-div"].update(status="removed", hex=None)
    at(state, 13, "republican")
    events = play(state, "republican", {"type": "end_phase"})
    assert {"side": "nationalist", "unit": "n-102-div", "hex": "AQ1"} in [
        e.data for e in events if e.type == "UnitReturned"
    ]
    assert state["units"]["n-102-div"]["hex"] == "AQ1"


def test_12_71_div_removed_on_turn_11_or_kept_for_10_victory_points(state):
    deployed(state)
    state["units"]["r-71-div"].update(status="map", hex="M26")
    at(state, 11, "nationalist")
    play(state, "nationalist", {"type": "end_phase"})
    assert "r-71-div" in state["pending_removals"]
    play(state, "republican", {"type": "keep", "unit": "r-71-div"})
    assert (
        state["vp_adjustments"]["republican"] == -10
        and state["units"]["r-71-div"]["status"] == "map"
    )
    with pytest.raises(RuleViolation):
        play(state, "republican", {"type": "keep", "unit": "r-71-div"})


def test_4_turn_marker_advances_after_the_republican_player(state):
    at(deployed(state), 1, "republican")
    play(state, "republican", {"type": "end_phase"})
    assert (state["turn"], state["side"]) == (2, "nationalist")


def test_4_commands_are_refused_out_of_phase_and_out_of_turn(state):
    deployed(state)
    with pytest.raises(RuleViolation) as err:
        play(state, "republican", {"type": "end_phase"})
    assert err.value.rule == "4"
    with pytest.raises(RuleViolation) as err:
        play(state, "nationalist", {"type": "attack", "attackers": ["n-19-div"], "hex": "O11"})
    assert err.value.rule == "4"


def test_air_points_available_by_turn_in_the_game(state):
    deployed(state)
    assert sequence.available_air(state, "nationalist") == {"Fiat": 2}
    assert sequence.available_air(state, "republican") == {"Pol": 1, "Tup": 1}


def test_5_12_the_turn_7_armored_train_enters_on_the_shipped_rail_line_and_moves_along_it(state):
    """Reinforcements, Republicans: "Turn 7: Armored train, ..." entering "on the east map edge,
    from M26 to AO26"; rule 5: "Armored train movement: unlimited movement along the rail line".
    The text prints no map: the shipped scenario carries a labelled placeholder rail line reaching
    the east edge, so the train has an entry hex on the rail (before, all 29 entry hexes were
    refused and it never entered) and runs along the line."""
    events = play(at(deployed(state), 7, "nationalist"), "nationalist", {"type": "end_phase"})
    due = next(e.data for e in events if e.type == "ReinforcementsDue")
    assert "r-armored-train" in due["units"]
    offered = {
        t.fixed["unit"]: t.choose["hex"].options
        for t in SYSTEM.actions(state, "republican").of_type("place_reinforcement")
    }
    assert list(offered["r-armored-train"]) == ["AD26"]  # the entry hex on the placeholder rail
    play(
        state,
        "republican",
        {"type": "place_reinforcement", "unit": "r-armored-train", "hex": "AD26"},
    )
    for index, unit_id in enumerate(u for u in due["units"] if u != "r-armored-train"):
        hex_ = ["M26", "N26", "O26", "P26", "Q26", "R26", "S26"][index]
        play(state, "republican", {"type": "place_reinforcement", "unit": unit_id, "hex": hex_})
    play(state, "republican", {"type": "end_phase"})
    assert state["phase"] == "movement" and state["units"]["r-armored-train"]["hex"] == "AD26"
    line = ["AD26", "AD25", "AE24", "AD23", "AE22", "AE21", "AE20", "AE19", "AF18", "AE17", "AF16"]
    move = {"type": "move", "units": ["r-armored-train"], "path": line, "mode": "rail"}
    play(state, "republican", move)  # 10 hexes: unlimited along the rail
    assert state["units"]["r-armored-train"]["hex"] == "AF16"  # Almorchon
    with pytest.raises(RuleViolation) as err:  # off the line: refused
        off = {"type": "move", "units": ["r-tank-unit"], "path": ["M26", "M25"], "mode": "rail"}
        play(state, "republican", off)
    assert err.value.rule == "5"
