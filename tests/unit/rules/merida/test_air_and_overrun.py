"""Rule 8 air points (allocation phases E/F, loss rolls, availability) and automatic victory."""

from __future__ import annotations

import pytest

from service.rules.base import RuleViolation
from service.rules.merida import sequence
from tests.unit.rules.merida.conftest import board_state, play, types, unit


def air_state(turn=2, side="nationalist", **kw):
    units = [
        unit("a", "nationalist", "infantry", 6, "E4"),
        unit("d", "republican", "infantry", 3, "E5"),
    ]
    return board_state(units, phase="air_attack", turn=turn, side=side, **kw)


def to_combat(state, air_nat=("Fiat",), air_rep=("Pol",)):
    if air_nat:
        play(state, "nationalist", {"type": "allocate_air", "hex": "E5", "air": list(air_nat)})
    play(state, "nationalist", {"type": "end_phase"})
    assert state["phase"] == "air_defense"
    if air_rep:
        play(state, "republican", {"type": "allocate_air", "hex": "E5", "air": list(air_rep)})
    play(state, "republican", {"type": "end_phase"})
    assert state["phase"] == "combat"


def test_4ef_attacker_places_air_then_defender():
    """Rule 4 E/F: the phasing player places attacking air, then the non-phasing player defending air."""
    state = air_state()
    assert sequence.acting_side(state) == "nationalist"
    with pytest.raises(RuleViolation):
        play(state, "republican", {"type": "allocate_air", "hex": "E5", "air": ["Pol"]})
    to_combat(state)
    assert [a["role"] for a in state["air_allocations"]] == ["attack", "defense"]


def test_8_air_points_add_one_each_after_their_loss_rolls():
    state = air_state()
    to_combat(state, air_nat=("Fiat", "Fiat"), air_rep=())
    record = play(
        state, "nationalist", {"type": "attack", "attackers": ["a"], "hex": "E5"}, [1, 3]
    )[0].data
    assert record["attack_strength"] == 8 and record["column"] == "2-1"


def test_8_air_roll_of_6_then_4_to_6_shoots_the_point_down_for_good():
    state = air_state()
    to_combat(state, air_nat=("Fiat", "Fiat"), air_rep=())
    record = play(
        state, "nationalist", {"type": "attack", "attackers": ["a"], "hex": "E5"}, [6, 5, 3]
    )[0].data
    assert record["air_losses"] == [{"side": "nationalist", "type": "Fiat", "outcome": "shot_down"}]
    assert record["attack_strength"] == 7
    state["turn"] = 3
    state["air"]["nationalist"]["used"] = {}
    assert sequence.available_air(state, "nationalist") == {"Fiat": 1}


def test_8_air_roll_of_6_then_1_to_3_aborts_but_available_next_turn():
    state = air_state()
    to_combat(state, air_nat=("Fiat",), air_rep=())
    record = play(
        state, "nationalist", {"type": "attack", "attackers": ["a"], "hex": "E5"}, [6, 2, 3]
    )[0].data
    assert record["air_losses"][0]["outcome"] == "aborted" and record["attack_strength"] == 6
    assert sequence.available_air(state, "nationalist") == {"Fiat": 1}  # the other one, this turn
    state["air"]["nationalist"]["used"] = {}
    assert sequence.available_air(state, "nationalist") == {"Fiat": 2}


@pytest.mark.parametrize(
    ("turn", "roll", "outcome"),
    [(2, 5, "aborted"), (2, 6, "shot_down"), (13, 5, "aborted"), (5, 5, None)],
)
def test_8_republican_air_loss_roll_on_turns_1_to_3_and_13_on(turn, roll, outcome):
    """Rule 8: the Republican on turns 1-3 and 13+ loses the point on a first roll of 5 (abort) or 6
    (shot down); on other turns a 5 is no loss."""
    state = air_state(turn=turn)
    to_combat(state, air_nat=(), air_rep=("Pol",))
    dice = [roll, 3] if outcome or roll != 6 else [roll, 1, 3]
    record = play(state, "nationalist", {"type": "attack", "attackers": ["a"], "hex": "E5"}, dice)[
        0
    ].data
    losses = record["air_losses"]
    assert (losses[0]["outcome"] if losses else None) == outcome


def test_8_air_only_up_to_availability_and_once_a_turn():
    state = air_state(turn=5)  # Nationalists have no air on turns 4-12
    assert sequence.available_air(state, "nationalist") == {}
    state = air_state(turn=2)
    with pytest.raises(RuleViolation) as err:
        play(
            state,
            "nationalist",
            {"type": "allocate_air", "hex": "E5", "air": ["Fiat", "Fiat", "Fiat"]},
        )
    assert err.value.rule == "8"


def test_8_air_placed_only_on_combat_hexes():
    state = air_state()
    with pytest.raises(RuleViolation):
        play(state, "nationalist", {"type": "allocate_air", "hex": "A1", "air": ["Fiat"]})


def overrun_state():
    units = [
        unit("a", "nationalist", "infantry", 18, "E4"),
        unit("m", "nationalist", "cavalry", 1, "E1"),
        unit("d", "republican", "infantry", 3, "E5"),
        unit("nl", "nationalist", "leader", 0, "D2"),
    ]
    return board_state(units, phase="movement")


def test_8_automatic_victory_at_6_to_1_ignores_the_stack_and_its_zoc():
    """Rule 8: at 6-1 or better during movement the defending stack and its ZOC are ignored for the
    rest of the movement phase; the combat is still rolled."""
    state = overrun_state()
    play(state, "nationalist", {"type": "declare_overrun", "hex": "E5", "attackers": ["a"]})
    play(
        state,
        "nationalist",
        {"type": "move", "units": ["m"], "path": ["E1", "E2", "E3", "F3", "F4", "F5", "F6"]},
    )
    assert state["units"]["m"]["hex"] == "F6"  # through E5's ZOC (F4, F5, F6) without stopping
    while state["phase"] != "combat":
        play(state, sequence.acting_side(state), {"type": "end_phase"})
    record = play(state, "nationalist", {"type": "attack", "attackers": ["a"], "hex": "E5"}, [4])[
        0
    ].data
    assert record["column"] == "6-1" and record["result"] == "D2"


def test_8_overrun_needs_6_to_1():
    state = overrun_state()
    state["units"]["a"]["strength"] = 17
    with pytest.raises(RuleViolation) as err:
        play(state, "nationalist", {"type": "declare_overrun", "hex": "E5", "attackers": ["a"]})
    assert err.value.rule == "8" and "6-1" in err.value.message


def test_8_overrun_attackers_are_committed():
    state = overrun_state()
    play(state, "nationalist", {"type": "declare_overrun", "hex": "E5", "attackers": ["a"]})
    with pytest.raises(RuleViolation):
        play(state, "nationalist", {"type": "move", "units": ["a"], "path": ["E4", "E3"]})


def test_4_air_allocation_phase_skipped_when_the_side_has_no_air():
    units = [
        unit("a", "nationalist", "infantry", 6, "E4"),
        unit("d", "republican", "infantry", 3, "E5"),
        unit("nl", "nationalist", "leader", 0, "E3"),
    ]
    state = board_state(units, phase="movement", turn=5)
    events = play(state, "nationalist", {"type": "end_phase"})
    phases = [e.data["phase"] for e in events if e.type == "PhaseBegan"]
    assert phases == ["command", "air_attack", "air_defense"]  # no Nationalist air on turn 5
    assert sequence.acting_side(state) == "republican" and "CommandChecked" in types(events)
    play(state, "republican", {"type": "end_phase"})
    assert state["phase"] == "combat" and sequence.acting_side(state) == "nationalist"
