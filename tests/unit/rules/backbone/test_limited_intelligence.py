"""19.2 with 16.1: under limited intelligence an attack is judged on what the attacker sees and,
once declared, carried out -- never refused for what the units under the top of the stack add
(knowledge-base entry ``backbone:conflict-hidden-odds``).

19.2: "When a combat has been declared, (which must be carried out obligatorily), all the pieces
of the stack can be observed to determine the ratio between attacker and defender."  16.1: "once
announced, they must be done" and "with final ratios lower than 1: 2 it is not possible to launch
an attack".  The CRT's columns run from 1:2 to 6:1."""

from __future__ import annotations

from typing import Any

import pytest

from service.rules.backbone import SYSTEM
from service.rules.backbone.crt import lookup
from service.rules.backbone.rulebook import RULEBOOK
from service.rules.base import RuleViolation
from tests.support.dice import ScriptedDice
from tests.unit.rules.backbone.fixtures import REQUIRED_CITIES, board, counter, first, play, state

ATTACK = {"type": "attack", "units": ["uk-commando"], "target": "4,24"}


def melilla(limited: bool) -> dict[str, Any]:
    """The British Commandos (3 attack, efficiency 3) next to Melilla (4,24), held by a Spanish
    stack whose top unit (placed last, all the Allies see under 19.2) defends with 1 and whose
    hidden unit under it with 12: 3 to 1 on what is seen, 3 to 13 -- below 1:2 -- on the whole."""
    units = [
        counter("uk-commando", "allied", "4,23", type_="commando", nation="uk", attack=3,
                efficiency=3, steps=1),
        counter("es-under", "spanish", "4,24", defense=12, efficiency=1),
        counter("es-top", "spanish", "4,24", defense=1, efficiency=1),
    ]  # fmt: skip
    mapd = board(cols=26, places=[("Melilla", "4,24", True), *REQUIRED_CITIES])
    st = state(units, mapd, step="allied_combat")
    st["options"] = {**st["options"], "limited_intelligence": limited}
    return st


def test_19_2_a_listed_attack_on_a_hidden_stack_is_declared_not_refused() -> None:
    """The attack the server lists is the one it accepts: the Commandos' attack on Melilla is
    listed on what the Allies see (3:1) and declared, which shows the whole stack (19.2); before,
    it was refused with 16.1, telling the Allies the hidden strength without committing them."""
    st = melilla(limited=True)
    listed = [t.command() for t in SYSTEM.actions(st, "allied").of_type("attack")]
    # each template's first pick of a support is "none" (16.3: supports are the player's choice)
    assert {**ATTACK, "air": 0} in [{k: c[k] for k in (*ATTACK, "air")} for c in listed]
    declared = first(play(st, "allied", ATTACK), "CombatDeclared")
    assert sorted(declared["combat"]["defenders"]) == ["es-top", "es-under"]
    assert declared["combat"]["limited_intelligence"] is True
    assert st["combat"]["stage"] == "defence"


@pytest.mark.parametrize("roll", [1, 4, 6])
def test_19_2_below_1_to_2_on_the_whole_stack_the_combat_is_fought_on_the_1_to_2_column(
    roll: int,
) -> None:
    """16.1 "once announced, they must be done": 3 against 13 is below 1:2; the combat is fought on
    the CRT's first column, 1:2 (as above 6:1 it is fought on 6:1), its result the table's."""
    st = melilla(limited=True)
    play(st, "allied", ATTACK)
    events = play(st, "spanish", {"type": "defend"}, [roll])
    resolved = first(events, "CombatResolved")
    assert resolved["odds"]["base_ratio"] == "1:5" and resolved["odds"]["column"] == "1:2"
    below = resolved["odds"]["below_table"]
    assert below["rule"] == "19.2" and below["final_column_index"] < 0
    assert resolved["result"]["text"] == lookup("1:2", resolved["modified_roll"])
    words = SYSTEM.describe(next(e for e in events if e.type == "CombatResolved"), st)
    assert "1:5 -> 1:2 (below 1:2 on the whole stack, fought on 1:2: 19.2)" in words


def test_16_1_with_every_unit_seen_an_attack_below_1_to_2_is_still_refused() -> None:
    """Without limited intelligence the Allies see the whole stack before declaring: 16.1 "with
    final ratios lower than 1: 2 it is not possible to launch an attack" refuses it, and the list
    does not offer it."""
    st = melilla(limited=False)
    listed = [t.fixed["target"] for t in SYSTEM.actions(st, "allied").of_type("attack")]
    assert ATTACK["target"] not in listed
    with pytest.raises(RuleViolation) as refused:
        SYSTEM.decide(st, "allied", ATTACK, ScriptedDice())
    assert refused.value.rule == "16.1" and refused.value.field == "attackers"


def test_19_2_what_the_attacker_sees_below_1_to_2_is_refused_without_a_word_of_the_hidden() -> None:
    """On what the Allies see the attack is already below 1:2 (the top unit defends with 12): 16.1
    refuses it, the same refusal whatever is under it."""
    refusals = []
    for hidden in (1, 30):
        st = melilla(limited=True)
        st["units"]["es-top"]["defense"] = 12
        st["units"]["es-under"]["defense"] = hidden
        with pytest.raises(RuleViolation) as refused:
            SYSTEM.decide(st, "allied", ATTACK, ScriptedDice())
        refusals.append((refused.value.rule, refused.value.message, refused.value.field))
    assert refusals[0] == refusals[1] and refusals[0][0] == "16.1"


def test_19_2_the_reading_is_a_declared_conflict_entry() -> None:
    conflict = {c.key: c for c in RULEBOOK.conflicts}["hidden-odds"]
    assert conflict.engine_reading.startswith("the combat is fought on the 1:2 column")
    assert {r.rule for r in conflict.readings} == {"19.2", "16.1"}
    assert conflict.option is None  # why no option: the entry says
    assert "offered as no option" in conflict.engine_reading
