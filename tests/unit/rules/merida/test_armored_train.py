"""Issue 47, item 2: rule 5, "Armored train movement: unlimited movement along the rail line" -- the
train's own line, not rail movement's "Otherwise, the same rules given above for strategic
movement apply" (by default; the game option ``armored_train: "strategic"`` is the other reading,
conflict entry ``merida:conflict-armored-train``)."""

from __future__ import annotations

import pytest

from service.rules.base import RuleViolation
from service.rules.merida import SYSTEM, sequence
from tests.unit.rules.merida.conftest import board_state, play, unit

RAIL = [{"hexes": [f"B{c}", f"B{c + 1}"], "features": ["rail"]} for c in range(1, 10)]
OWN_LINE = {}  # the default reading
STRATEGIC = {"armored_train": "strategic"}


def _state(train_hex: str, enemy_hex: str, options: dict) -> dict:
    """The Republican train on the B rail line and one Nationalist infantry (strength 1), whose ZOC
    on the edge row A is its row neighbours and one hex of row B (A4: A3, A5 and B4)."""
    return board_state(
        [
            unit("t", "republican", "train", 2, train_hex),
            unit("n", "nationalist", "infantry", 1, enemy_hex),
        ],
        side="republican",
        hexsides=RAIL,
        options=options,
    )


def _move(state: dict, path: list[str]) -> None:
    play(state, "republican", {"type": "move", "units": ["t"], "path": path, "mode": "rail"})


def _listed_ends(state: dict) -> set[str]:
    return {
        path[-1]
        for t in SYSTEM.actions(state, "republican").of_type("move")
        if t.fixed["units"] == ["t"]
        for path in t.choose["path"].options
    }


def _combat(state: dict, side: str) -> None:
    state.update(side=side, phase="combat")
    state.update(sequence.combat_obligations(state))


def test_5_the_armored_train_moves_unlimited_and_stops_on_entering_an_enemy_zoc():
    """Rule 5: "Armored train movement: unlimited movement along the rail line" and "must stop
    when they enter a ZOC of an enemy unit" -- not strategic movement's "may not ... enter an enemy
    ZOC"."""
    state = _state("B10", "A4", OWN_LINE)
    assert "B4" in _listed_ends(state) and "B3" not in _listed_ends(state)
    with pytest.raises(RuleViolation) as err:
        _move(state, [f"B{c}" for c in range(10, 2, -1)])  # on through B4 to B3
    assert err.value.rule == "7"
    _move(state, [f"B{c}" for c in range(10, 3, -1)])
    assert state["units"]["t"]["hex"] == "B4" and state["units"]["t"]["strategic"] is False


def test_5_read_as_rail_movement_the_train_never_enters_an_enemy_zoc():
    """The other reading: rail movement's "Otherwise, the same rules given above for strategic
    movement apply" -- strategic movers "may not begin, move through, or enter an enemy ZOC"."""
    state = _state("B10", "A4", STRATEGIC)
    assert "B4" not in _listed_ends(state) and "B5" in _listed_ends(state)
    with pytest.raises(RuleViolation) as err:
        _move(state, [f"B{c}" for c in range(10, 3, -1)])
    assert err.value.rule == "5" and "strategic movement may not enter" in err.value.message
    _move(state, [f"B{c}" for c in range(10, 4, -1)])
    assert state["units"]["t"]["strategic"] is True


@pytest.mark.parametrize(("options", "leaves"), [(OWN_LINE, True), (STRATEGIC, False)])
def test_5_the_train_leaves_an_enemy_zoc_freely_only_on_its_own_line(options, leaves):
    """Rule 5: "Units may freely exit an enemy zone of control (ZOC) at the beginning of their
    movement"; strategic movers "may not begin ... [in] an enemy ZOC"."""
    state = _state("B4", "A4", options)
    assert ("B10" in _listed_ends(state)) is leaves
    if leaves:
        _move(state, [f"B{c}" for c in range(4, 11)])
        assert state["units"]["t"]["hex"] == "B10"
    else:
        with pytest.raises(RuleViolation) as err:
            _move(state, [f"B{c}" for c in range(4, 11)])
        assert err.value.rule == "5" and "may not begin in an enemy ZOC" in err.value.message


@pytest.mark.parametrize(("options", "attacks"), [(OWN_LINE, True), (STRATEGIC, False)])
def test_5_the_train_may_attack_after_its_move_only_on_its_own_line(options, attacks):
    """Strategic movers "may not attack" (rule 5); the train's own line sets no such bar."""
    state = _state("B10", "A4", options)
    # own line: on into the ZOC of A4 at B4; strategic: to B5, outside it, and the enemy steps
    # up beside the train (A5) in its own turn
    _move(state, [f"B{c}" for c in range(10, 3 if attacks else 4, -1)])
    if not attacks:
        state["units"]["n"]["hex"] = "A5"
    target = state["units"]["n"]["hex"]
    _combat(state, "republican")
    listed = SYSTEM.actions(state, "republican").of_type("attack")
    assert bool(listed) is attacks
    command = {"type": "attack", "attackers": ["t"], "hex": target}
    if attacks:
        record = play(state, "republican", command, [4])[0].data  # 2-1, roll 4: DR
        assert record["column"] == "2-1" and record["result"] == "DR"
    else:
        with pytest.raises(RuleViolation) as err:
            play(state, "republican", command, [4])
        assert err.value.rule == "5" and "moved strategically" in err.value.message


@pytest.mark.parametrize(("options", "modified"), [(OWN_LINE, False), (STRATEGIC, True)])
def test_8_the_strategic_movement_modifier_against_the_train_only_when_read_as_rail(
    options, modified
):
    """Rule 8: "+2 if defender moved by strategic movement in previous phase" -- the train's own
    line is not strategic movement."""
    state = _state("B10", "A1", options)
    _move(state, [f"B{c}" for c in range(10, 4, -1)])
    state["units"]["n"]["hex"] = "A5"  # the Nationalist comes up in the next player's turn
    _combat(state, "nationalist")
    command = {"type": "attack", "attackers": ["n"], "hex": "B5"}
    record = play(state, "nationalist", command, [1])[0].data
    causes = [m["cause"] for m in record["modifiers"]]
    assert ("defender moved by strategic movement in the previous phase" in causes) is modified
