"""Choices the rulebook gives a player in combat, offered by the action list and judged by decide.

12: "The attacker chooses which units will suffer step losses" (a barrage); 13: "The first step
loss must be suffered by the leading unit. The other step losses are distributed as the owning
player sees fit".  The preferred choice (none named: the default order) and a non-preferred one
are accepted; a unit outside the hex or the combat is refused citing the rule."""

from __future__ import annotations

import pytest

from service.rules.base import RuleViolation
from service.rules.bizkaya import SYSTEM
from tests.support.dice import ScriptedDice
from tests.unit.rules.bizkaya.conftest import event, play
from tests.unit.rules.bizkaya.test_barrage import setup_barrage


def barrage_template(state: dict) -> dict:
    found = [
        t
        for t in SYSTEM.actions(state, "nationalist").as_dict()["actions"]
        if t["type"] == "barrage" and t["fixed"]["hex"] == "0404"
    ]
    assert found
    return found[0]


def test_12_the_barrage_offers_the_units_to_lose_the_steps() -> None:
    template = barrage_template(setup_barrage())
    assert template["choose"]["losses"]["some_of"] == ["r1", "r2"]  # the first echelon
    assert template["choose"]["losses"]["min"] == 0


@pytest.mark.parametrize(("pick", "loser"), [([], "r1"), (["r2"], "r2")], ids=["preferred", "r2"])
def test_12_the_firing_player_chooses_the_barrage_loss(pick: list[str], loser: str) -> None:
    state = setup_barrage()
    command = {"type": "barrage", "hex": "0404", "artillery": ["g1", "g2"], "losses": pick}
    events = play(state, "nationalist", command, dice=[6, 6])
    losses = event(events, "BarrageResolved")["losses"]
    assert losses and losses[0]["unit"] == loser


def test_12_a_barrage_loss_outside_the_hex_is_refused_citing_the_rule() -> None:
    command = {"type": "barrage", "hex": "0404", "artillery": ["g1"], "losses": ["n1"]}
    with pytest.raises(RuleViolation) as refused:
        SYSTEM.decide(setup_barrage(), "nationalist", command, ScriptedDice([]))
    assert refused.value.rule == "12" and refused.value.field == "losses"


def test_13_a_combat_loss_pick_outside_the_combat_is_refused_citing_the_rule() -> None:
    from tests.unit.rules.bizkaya.test_combat import attack_all, example

    state = example()
    attack_all(state)
    with pytest.raises(RuleViolation) as refused:
        SYSTEM.decide(
            state,
            "nationalist",
            {"type": "choose_leader", "unit": "lacar", "losses": ["v16"]},
            ScriptedDice([]),
        )
    assert refused.value.rule == "13" and refused.value.field == "losses"
