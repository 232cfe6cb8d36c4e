"""Issue 47, item 1: the advance after combat enters its first hex (the vacated one) under the same
terrain and unit-type bans as every other hex it enters."""

from __future__ import annotations

import pytest

from service.rules.base import RuleViolation
from service.rules.merida import SYSTEM
from tests.unit.rules.merida.conftest import board_state, play, unit

RIVER = [{"hexes": ["E4", "E5"], "features": ["river"]}]


def _won(att_kind: str, **board) -> dict:
    """``a`` (``att_kind``, 18) in E4 beats ``d`` (3) in E5: 6-1, a roll of 5 is D3, E5 vacated."""
    state = board_state(
        [
            unit("a", "nationalist", att_kind, 18, "E4"),
            unit("d", "republican", "infantry", 3, "E5"),
        ],
        phase="combat",
        **board,
    )
    play(state, "nationalist", {"type": "attack", "attackers": ["a"], "hex": "E5"}, [5])
    assert state["advance"]["hex"] == "E5" and state["advance"]["units"] == ["a"]
    return state


def _refused(state: dict, rule: str) -> RuleViolation:
    assert SYSTEM.actions(state, "nationalist").of_type("advance") == []
    blocked = [b for b in SYSTEM.actions(state, "nationalist").blocked if b.type == "advance"]
    assert [b.rule for b in blocked] == [rule]
    with pytest.raises(RuleViolation) as err:
        play(state, "nationalist", {"type": "advance", "units": ["a"], "path": ["E5"]})
    assert err.value.rule == rule and err.value.field == "path"
    assert state["units"]["a"]["hex"] == "E4"
    return err.value


@pytest.mark.parametrize("place", ["town", "city"])
def test_2_a_guerrilla_never_advances_into_a_town_or_city(place):
    """Rule 2: guerrillas "may never enter towns or cities" -- nor by an advance after combat,
    whose first hex rule 8 lets them enter at no cost and ignoring ZOCs, not against the terrain."""
    state = _won("guerrilla", hex_features={"E5": [place]})
    err = _refused(state, "2")
    assert "may never enter towns or cities" in err.message


@pytest.mark.parametrize("kind", ["artillery", "armor"])
def test_tec_artillery_and_armour_never_advance_across_a_river(kind):
    """Terrain Effects Chart: river "prohibited for Art and Arm except along road" -- the advance
    into the vacated hex crosses the same hexside the attack was made across."""
    extra = [unit("i", "nationalist", "infantry", 1, "E4")] if kind == "armor" else []
    state = board_state(
        [
            unit("a", "nationalist", kind, 18, "E4"),
            *extra,
            unit("d", "republican", "infantry", 3, "E5"),
        ],
        phase="combat",
        hexsides=RIVER,
    )
    attackers = ["a", *[u["id"] for u in extra]]
    play(state, "nationalist", {"type": "attack", "attackers": attackers, "hex": "E5"}, [6])
    assert state["advance"] is not None and "a" in state["advance"]["units"]
    listed = SYSTEM.actions(state, "nationalist").of_type("advance")
    assert all("a" not in t.choose["units"].options for t in listed)
    with pytest.raises(RuleViolation) as err:
        play(state, "nationalist", {"type": "advance", "units": ["a"], "path": ["E5"]})
    assert err.value.rule == "TEC" and "prohibited for artillery and armor" in err.value.message
    if extra:  # the infantry beside it still advances: only the armour is barred
        play(state, "nationalist", {"type": "advance", "units": ["i"], "path": ["E5"]})
        assert state["units"]["i"]["hex"] == "E5" and state["units"]["a"]["hex"] == "E4"


def test_tec_a_road_across_the_river_lets_artillery_advance():
    """TEC: "except along road" -- the bridge lets the artillery follow up."""
    bridge = [{"hexes": ["E4", "E5"], "features": ["river", "road"]}]
    state = _won("artillery", hexsides=bridge)
    [listed] = SYSTEM.actions(state, "nationalist").of_type("advance")
    assert ["E5"] in listed.choose["path"].options
    play(state, "nationalist", {"type": "advance", "units": ["a"], "path": ["E5"]})
    assert state["units"]["a"]["hex"] == "E5"
