"""Rules 4 (the whole sequence of play), 5 (air units move freely), 6 (stacking limits) and 8 (the
attacker orders the combats): the rules the other test files do not cite."""

from __future__ import annotations

import pytest

from service.rules.base import RuleViolation
from service.rules.merida import SYSTEM, sequence
from tests.unit.rules.merida.conftest import board_state, play, unit

PHASES_A_TO_G = [
    "reinforcements",
    "supply",
    "movement",
    "command",
    "air_attack",
    "air_defense",
    "combat",
]


def test_4_sequence_of_play_phases_a_to_g_nationalist_then_republican_then_the_marker():
    """Rule 4: the Nationalist player's phases A-G, then the same with the Republican player
    phasing (H), then the turn marker advances and the Nationalist player goes first again."""
    units = [
        unit("n", "nationalist", "infantry", 3, "E2"),
        unit("nl", "nationalist", "leader", 0, "E2"),
        unit("r", "republican", "infantry", 3, "E10"),
        unit("rl", "republican", "leader", 0, "E10"),
    ]
    state = board_state(units, phase="reinforcements", turn=2)
    seen = [(2, "nationalist", "reinforcements")]
    while (3, "nationalist", "reinforcements") not in seen:
        events = play(state, sequence.acting_side(state), {"type": "end_phase"})
        seen += [
            (e.data["turn"], e.data["side"], e.data["phase"])
            for e in events
            if e.type == "PhaseBegan"
        ]
    assert seen[:15] == [
        *[(2, "nationalist", p) for p in PHASES_A_TO_G],
        *[(2, "republican", p) for p in PHASES_A_TO_G],
        (3, "nationalist", "reinforcements"),
    ]


def test_4_air_defense_phase_f_is_the_non_phasing_players():
    """Rule 4 F: in the Republican player's turn the Nationalist player places defending air."""
    state = board_state(
        [
            unit("a", "nationalist", "infantry", 3, "E4"),
            unit("d", "republican", "infantry", 3, "E5"),
        ],
        phase="air_defense",
        side="republican",
    )
    assert SYSTEM.active_sides(state) == ["nationalist"]


def stacked(*kinds: str) -> list[dict]:
    return [unit(f"u{i}", "nationalist", k, 1, "E3") for i, k in enumerate(kinds)]


def test_6_three_ground_units_plus_two_artillery_a_hex():
    """Rule 6: at most 3 ground units of any type and 2 additional artillery units in a hex."""
    guns = [unit(g, "nationalist", "artillery", 1, "E4") for g in ("p", "q", "r")]
    state = board_state([*stacked("infantry", "armor", "infantry"), *guns])
    for gun in ("p", "q"):
        play(state, "nationalist", {"type": "move", "units": [gun], "path": ["E4", "E3"]})
    with pytest.raises(RuleViolation) as err:
        play(state, "nationalist", {"type": "move", "units": ["r"], "path": ["E4", "E3"]})
    assert err.value.rule == "6"
    state = board_state([*stacked("infantry", "artillery", "artillery"), *guns[:2]])
    play(state, "nationalist", {"type": "move", "units": ["p"], "path": ["E4", "E3"]})
    play(state, "nationalist", {"type": "move", "units": ["q"], "path": ["E4", "E3"]})
    infantry = unit("x", "nationalist", "infantry", 1, "E2")
    state = board_state(
        [*stacked("infantry", "artillery", "artillery", "artillery", "armor"), infantry]
    )
    with pytest.raises(RuleViolation) as err:
        play(state, "nationalist", {"type": "move", "units": ["x"], "path": ["E2", "E3"]})
    assert err.value.rule == "6"


def test_6_three_cavalry_count_as_one_infantry():
    """Rule 6: three cavalry units count as one infantry unit for stacking."""
    mover = unit("c", "nationalist", "cavalry", 1, "E4")
    state = board_state([*stacked("infantry", "infantry", "cavalry", "cavalry"), mover])
    play(state, "nationalist", {"type": "move", "units": ["c"], "path": ["E4", "E3"]})
    assert state["units"]["c"]["hex"] == "E3"  # 2 infantry + 3 cavalry = 3 units
    state = board_state([*stacked("infantry", "infantry", "cavalry", "cavalry", "cavalry"), mover])
    with pytest.raises(RuleViolation) as err:
        play(state, "nationalist", {"type": "move", "units": ["c"], "path": ["E4", "E3"]})
    assert err.value.rule == "6"


def test_6_leaders_do_not_count_for_stacking():
    """Rule 6 counts ground units: a leader joins a full stack."""
    state = board_state(
        [*stacked("infantry", "infantry", "infantry"), unit("l", "nationalist", "leader", 1, "E4")]
    )
    play(state, "nationalist", {"type": "move", "units": ["l"], "path": ["E4", "E3"]})
    assert state["units"]["l"]["hex"] == "E3"


def test_8_the_attacker_decides_the_order_in_which_combats_are_resolved():
    """Rule 8: either combat may be resolved first."""
    units = [
        unit("a", "nationalist", "infantry", 3, "C4"),
        unit("b", "nationalist", "infantry", 3, "H4"),
        unit("d", "republican", "infantry", 3, "C5"),
        unit("e", "republican", "infantry", 3, "H5"),
    ]
    for first, second in ((("b", "H5"), ("a", "C5")), (("a", "C5"), ("b", "H5"))):
        state = board_state(units, phase="combat")
        for attacker, hex_ in (first, second):
            play(
                state, "nationalist", {"type": "attack", "attackers": [attacker], "hex": hex_}, [2]
            )
        assert [state["units"][u]["attacked"] for u in ("a", "b")] == [True, True]


def test_5_air_units_move_freely_and_ignore_enemy_units_and_zocs():
    """Rule 5 (and rule 2: no range or stacking limits): air points go to a combat hex that lies
    behind a wall of enemy units and their ZOCs."""
    units = [
        unit("a", "nationalist", "infantry", 6, "E8"),
        unit("d", "republican", "infantry", 3, "E9"),
        *[unit(f"w{r}", "republican", "infantry", 3, f"{r}3") for r in "ABCDEFGHIJ"],
    ]
    state = board_state(units, phase="air_attack")
    play(state, "nationalist", {"type": "allocate_air", "hex": "E9", "air": ["Fiat", "Fiat"]})
    assert state["air_allocations"][-1]["hex"] == "E9"
