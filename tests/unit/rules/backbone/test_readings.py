"""Readings of the Backbone rulebook that clubs differ on, each a declared conflict with a game
option (``service/rules/backbone/rulebook.py``): both readings played, each test citing the rule
and quoting its text."""

from __future__ import annotations

import copy

import pytest

from service.rules.backbone import SYSTEM
from service.rules.backbone.combat import evaluate
from service.rules.backbone.rulebook import OPTIONS, RULEBOOK
from service.rules.base import ScenarioError
from tests.support.dice import ScriptedDice
from tests.unit.rules.backbone.fixtures import first, play
from tests.unit.rules.backbone.test_larache_example import ATTACK, larache

# -- 9.2 against 16.6: the Legion's first loss (backbone:conflict-legion-first-loss) ---------------
#: the Spanish player defends Larache on efficiency 1 (the 58th RI's) without the Legion's -1, and
#: names the 58th RI for the first step lost
DEFENCE_WITHOUT_THE_LEGION = {"type": "defend", "efficiency": 1, "own_losses": ["es-58ri"]}


def _defend_larache(option: str | None) -> dict:
    st = larache()
    if option is not None:
        st["options"]["legion_first_loss"] = option
    play(st, "allied", ATTACK)
    return first(play(st, "spanish", DEFENCE_WITHOUT_THE_LEGION, [3]), "CombatResolved")


def test_16_6_by_default_the_legion_takes_the_first_loss_only_when_its_modifier_was_used() -> None:
    """16.6: "The first step of the casualties is for a unit that has used its special abilities,
    (engineers or legionnaires)." and "If units with special abilities have not been used, the
    first step of casualties go over to the unit whose efficiency has been used".  The Legion's
    -1 is not used and efficiency 1 is: the 58th RI (efficiency 1), the Spanish pick, loses it."""
    resolved = _defend_larache(None)
    assert resolved["die_modifiers"]["defender"] == []  # the Legion's -1 not used
    assert resolved["odds"]["efficiency"]["defender"]["used"] == 1
    assert resolved["losses"]["defender"][0] == {"unit": "es-58ri", "step": 1, "chosen_by": "owner"}
    assert _defend_larache("ability_used")["losses"] == resolved["losses"]


def test_9_2_option_always_the_legion_takes_the_first_loss_even_without_its_modifier() -> None:
    """9.2: "If casualties occur for the Spanish player, the legionary unit will necessarily assume
    the first casualty", and the Larache example: "the Legion unit will be the first to suffer a
    loss step, even if it did not use its special ability bonus".  With the game option
    ``legion_first_loss: always`` the Legion takes it, whatever the Spanish player picked."""
    resolved = _defend_larache("always")
    assert resolved["die_modifiers"]["defender"] == []
    assert resolved["losses"]["defender"][0] == {
        "unit": "es-2terleg",
        "step": 1,
        "chosen_by": "owner",
    }


def test_9_2_the_combat_preview_reads_the_legion_option_too() -> None:
    """9.2 / 16.6 in a situation sent to the combat preview: ``legion_first_loss`` names the
    reading; an unknown reading is refused naming the field."""
    from service.rules.backbone.combat import CombatError, parse_situation

    defenders = [
        {"id": "ri", "defense": 2, "efficiency": 1, "steps": 2},
        {"id": "leg", "defense": 2, "efficiency": 2, "steps": 2, "tags": ["legion"]},
    ]
    base = {
        "attacker_side": "allied",
        "attackers": [{"id": "a", "attack": 8, "efficiency": 2, "steps": 3}],
        "defenders": defenders,
        "defender": {"efficiency": 1},
    }
    assert evaluate(parse_situation(base))["first_loss"]["defender"] == ["ri"]
    always = parse_situation({**base, "legion_first_loss": "always"})
    assert evaluate(always)["first_loss"]["defender"] == ["leg"]
    with pytest.raises(CombatError) as bad:
        parse_situation({**base, "legion_first_loss": "sometimes"})
    assert bad.value.field == "legion_first_loss"


def test_9_2_the_legion_option_is_declared_by_the_system_defaulted_and_checked() -> None:
    """The option is the game's own (every scenario offers it), 16.6's reading by default; a bad
    value is refused naming ``options.legion_first_loss``; the default is not written into a new
    game's state (a game recorded before the option existed plays the same)."""
    for scenario in ("scenario-1", "scenario-2"):
        assert SYSTEM.default_options(scenario)["legion_first_loss"] == "ability_used"
        info = next(s for s in SYSTEM.scenarios() if s.id == scenario)
        offered = {o["name"]: o for o in info.options}["legion_first_loss"]
        assert offered["choices"] == ["ability_used", "always"]
    state = SYSTEM.initial_state("scenario-1", SYSTEM.default_options("scenario-1"))
    assert "legion_first_loss" not in state["options"]
    chosen = SYSTEM.initial_state("scenario-1", {"legion_first_loss": "always"})
    assert chosen["options"]["legion_first_loss"] == "always"
    with pytest.raises(ScenarioError) as bad:
        SYSTEM.initial_state("scenario-1", {"legion_first_loss": "never"})
    assert "options.legion_first_loss" in bad.value.problems
    conflict = {c.key: c for c in RULEBOOK.conflicts}["legion-first-loss"]
    assert conflict.option == "legion_first_loss" and conflict.option in OPTIONS
    assert conflict.engine_reading.startswith("16.6 by default")


def test_9_2_a_combat_the_legion_fought_records_it_for_the_rules_links() -> None:
    """The event's facts say the Legion fought, which links the conflict entry to it."""
    st = larache()
    play(st, "allied", ATTACK)
    before = copy.deepcopy(st)
    events = SYSTEM.decide(st, "spanish", DEFENCE_WITHOUT_THE_LEGION, ScriptedDice([3]))
    for event in events:
        if event.type == "CombatResolved":
            assert "the Legion fought" in SYSTEM.event_facts(event, before)
            return
        before = SYSTEM.apply(before, event)
    raise AssertionError("no CombatResolved")
