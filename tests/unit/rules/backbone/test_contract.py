"""Backbone on the rules contract: every template-built command is well formed and each single
choice is legal on its own; a malformed command of each type names its field; defects pinned (10.2
stolen chits, 16.7 advance with no attacker left, 14/10.2/11 listed but not sendable) and the 19.2
deployment leak."""

from __future__ import annotations

import copy
import json
import random
from typing import Any

import pytest

from service.rules.backbone import SYSTEM
from service.rules.base import DieRoll, InvalidCommand, RulesEvent, RuleViolation
from tests.unit.rules.backbone.fixtures import REQUIRED_CITIES, board, counter, play, state

pytestmark = pytest.mark.slow(
    "template-built commands checked through random play of Backbone's scenarios and option sets"
)


class RandomDice:
    def __init__(self, seed: int) -> None:
        self._random = random.Random(seed)
        self.index = 0

    def roll(self, sides: int = 6, purpose: str = "") -> DieRoll:
        self.index += 1
        return DieRoll(self.index, sides, self._random.randint(1, sides), purpose)


def sendable(st: dict[str, Any], side: str) -> list[dict[str, Any]]:
    """Decide every command each template makes (one per ``one_of`` option): none is malformed,
    and a template with a single choice (no ``some_of``) is legal as listed.  The commands the
    rules accepted."""
    accepted = []
    for template in SYSTEM.actions(st, side).templates:
        single = not any(c.many for c in template.choose.values())
        for command in template.commands()[:40]:
            try:
                SYSTEM.decide(st, side, command, RandomDice(1))
            except InvalidCommand as exc:
                message = f"{template.label}: {command} is malformed: {exc.details}"
                raise AssertionError(message) from exc
            except RuleViolation as exc:
                assert not single, f"{template.label}: {command} listed but refused: {exc}"
                continue
            accepted.append(command)
    return accepted


@pytest.mark.parametrize(
    ("scenario", "options", "seed"),
    [
        ("scenario-1", {}, 1),
        ("scenario-1", {"paratrooper_assault": True, "limited_intelligence": True}, 2),
        ("scenario-2", {}, 3),
    ],
)
def test_8_2_every_template_built_command_is_well_formed_through_play(
    scenario: str, options: dict[str, Any], seed: int
) -> None:
    """A game played from the listed templates alone: every template-built command is never an
    InvalidCommand, a side that must act always has a template, and the game goes on."""
    st = SYSTEM.initial_state(scenario, options)
    pick = random.Random(seed)
    for _ in range(60):
        sides = SYSTEM.active_sides(st)
        if not sides:
            break
        side = sides[0]
        assert SYSTEM.actions(st, side), f"{side} must act at {SYSTEM.phase(st)} with no template"
        accepted = sendable(st, side)
        assert accepted, f"nothing listed for {side} at {SYSTEM.phase(st)} is accepted"
        moves = [c for c in accepted if c["type"] not in ("end_phase",)]
        command = pick.choice(moves if moves and pick.random() < 0.7 else accepted)
        for event in SYSTEM.decide(st, side, command, RandomDice(pick.randint(1, 10**6))):
            SYSTEM.apply(st, event)
    assert st["turn"] >= 2


def test_10_2_permanent_chits_and_tunisia_are_listed_as_the_rules_allow() -> None:
    st = SYSTEM.initial_state("scenario-1", {})
    st["step"], st["turn"] = "events", 2
    st["events"]["hands"]["allied"] = ["tunisia", "oss", "rif_rebellion"]
    st["events"]["hands"]["spanish"] = []
    listed = SYSTEM.actions(st, "allied")
    assert {t.fixed["chit"] for t in listed.of_type("play_event")} == {
        "tunisia",
        "oss",
        "rif_rebellion",
    }
    assert not listed.of_type("pass")
    [blocked] = [b for b in listed.blocked if b.type == "pass"]
    assert blocked.rule == "10.2"
    sendable(st, "allied")


def test_10_2_a_permanent_chit_in_hand_is_blocked_not_listed() -> None:
    st = SYSTEM.initial_state("scenario-1", {})
    st["step"], st["turn"] = "events", 3
    st["events"]["hands"]["spanish"] = ["baraka"]
    listed = SYSTEM.actions(st, "spanish")
    assert not listed.of_type("play_event")
    assert [b.rule for b in listed.blocked if b.type == "play_event"] == ["10.2"]


def test_10_2_a_stolen_chit_is_listed_and_played_by_the_thief() -> None:
    """Ultra steals a Spanish chit: the Allies may play it on their turn (it was a 500)."""
    st = SYSTEM.initial_state("scenario-1", {})
    st["step"], st["turn"] = "events", 2
    st["events"]["hands"]["allied"] = ["ultra"]
    st["events"]["cups"]["spanish"] = ["sea_lions"]
    play(st, "allied", {"type": "play_event", "chit": "ultra"})  # one chit to steal: no die
    assert st["events"]["hands"]["allied"] == ["sea_lions"]
    [template] = SYSTEM.actions(st, "allied").of_type("play_event")
    assert template.label == "Play Sea lions in the Strait"
    play(st, "allied", template.command())
    assert "sea_lions" in st["events"]["played"]


def test_11_no_air_point_is_offered_once_the_strait_is_open() -> None:
    st = SYSTEM.initial_state("scenario-1", {})
    st["step"], st["turn"] = "strait", 3
    st["strait"] = {"open": True, "turn": 2}
    [template] = SYSTEM.actions(st, "allied").of_type("roll_strait")
    assert "air_point" not in template.choose
    sendable(st, "allied")


def test_14_the_landing_lists_its_units_and_hexes() -> None:
    """The listed land had neither hex nor units (a 400); now each hex is a legal landing."""
    st = SYSTEM.initial_state("scenario-1", {})
    play(st, "spanish", {"type": "deploy"})
    play(st, "allied", {"type": "deploy"})
    play(st, "allied", {"type": "begin_turn"}, [1])
    play(st, "spanish", {"type": "pass"})
    play(st, "allied", {"type": "roll_strait"}, [6])
    lands = SYSTEM.actions(st, "allied").of_type("land")  # one per group that fits (5)
    assert lands and all(land.fixed["units"] and land.choose["hex"].options for land in lands)
    assert all("4,7" not in land.choose["hex"].options for land in lands)  # Tetouan, a city (14)
    assert sendable(st, "allied")


def duel(attack: int, defence: int, attacker_steps: int, defender_steps: int) -> dict[str, Any]:
    units = [
        counter("a", "allied", "6,5", attack=attack, steps=attacker_steps),
        counter("d", "spanish", "5,5", defense=defence, steps=defender_steps),
    ]
    return state(units, board(places=REQUIRED_CITIES), step="allied_combat")


def test_16_7_a_combat_where_both_sides_are_eliminated_ends_without_an_advance() -> None:
    """2:1 on 6 is 1/1R: the defending hex is emptied and the only attacker eliminated too; there
    is nobody to advance, so the combat ends (it stalled in the advance stage)."""
    st = duel(8, 4, 1, 1)
    play(st, "allied", {"type": "attack", "target": "5,5", "units": ["a"]})
    events = play(st, "spanish", {"type": "defend"}, [6])
    assert "AdvanceRequired" not in [e.type for e in events]
    assert st["combat"] is None
    assert [t.type for t in SYSTEM.actions(st, "allied").templates] == ["end_phase"]


def test_16_7_a_retreat_after_the_attackers_fell_ends_the_combat() -> None:
    st = duel(8, 4, 1, 2)
    play(st, "allied", {"type": "attack", "target": "5,5", "units": ["a"]})
    play(st, "spanish", {"type": "defend"}, [6])  # 1/1R: the attacker is eliminated
    assert st["combat"]["stage"] == "retreat"
    [retreat] = [t for t in SYSTEM.actions(st, "spanish").of_type("retreat") if t.choose]
    events = play(st, "spanish", retreat.command())
    assert "AdvanceRequired" not in [e.type for e in events] and st["combat"] is None


def fogged_deployment() -> tuple[dict[str, Any], str, str]:
    """Limited intelligence: the Spanish move a unit under the top of a stack at deployment."""
    st = SYSTEM.initial_state("scenario-1", {"limited_intelligence": True})
    stacks: dict[str, list[dict[str, Any]]] = {}
    for u in st["units"].values():
        if u["side"] == "spanish" and u["status"] == "map":
            stacks.setdefault(u["hex"], []).append(u)
    hex_, units = next((h, us) for h, us in sorted(stacks.items()) if len(us) >= 2)
    top = max(units, key=lambda u: u["seq"])
    under = next(u for u in units if u is not top)
    return st, under["id"], hex_


def test_19_2_a_spanish_deployment_does_not_show_a_hidden_unit_to_the_allies() -> None:
    st, hidden, hex_ = fogged_deployment()
    event = RulesEvent("UnitsDeployed", {"side": "spanish", "positions": {hidden: hex_}})
    before = copy.deepcopy(st)
    seen = SYSTEM.event_view(event, before, "allied")
    assert hidden not in json.dumps(seen.data)
    assert hidden not in SYSTEM.describe(seen, before)
    assert SYSTEM.event_view(event, before, "spanish").data["positions"] == {hidden: hex_}
    assert hidden not in json.dumps(SYSTEM.event_view(event, before, None).data)


CASES = [
    ("deployment", "spanish", {"type": "deploy", "positions": ["x"]}, "positions"),
    ("administrative", "allied", {"type": "begin_turn", "now": True}, "now"),
    ("events", "allied", {"type": "play_event"}, "chit"),
    ("events", "allied", {"type": "play_event", "chit": "tunisia"}, "units"),
    ("events", "allied", {"type": "play_event", "chit": "oss"}, "gfri"),
    ("events", "allied", {"type": "pass", "chit": "ultra"}, "chit"),
    ("strait", "allied", {"type": "roll_strait", "air_point": "yes"}, "air_point"),
    ("replacements", "allied", {"type": "replace", "fortify": 3}, "fortify"),
    ("strait", "spanish", {"type": "place_arrival", "unit": "de-5fjr", "hex": 7}, "hex"),
    ("amphibious", "allied", {"type": "land", "hex": "99,99", "units": ["uk-21tk"]}, "hex"),
    ("amphibious", "allied", {"type": "land", "hex": "4,8", "units": []}, "units"),
    ("agreement", "allied", {"type": "vote_end"}, "end"),
    ("allied_movement", "allied", {"type": "move", "unit": "us-7ri", "path": "10,3"}, "path"),
    ("allied_movement", "allied", {"type": "drop", "drops": [{"unit": 7}]}, "drops[0].unit"),
    ("allied_movement", "allied", {"type": "end_phase", "force": True}, "force"),
    ("allied_combat", "allied", {"type": "attack", "units": ["us-7ri"]}, "target"),
    ("allied_combat", "allied", {"type": "attack", "target": "8,2", "units": "x"}, "units"),
    ("allied_combat", "allied", {"type": "attack", "target": "8,2", "air": -1}, "air"),
    ("allied_combat", "allied", {"type": "defend", "hq": 3}, "hq"),
    ("allied_combat", "allied", {"type": "baraka", "reroll": "yes"}, "reroll"),
    ("allied_combat", "allied", {"type": "retreat", "to": 5}, "to"),
    ("allied_combat", "allied", {"type": "advance", "units": ["nobody"]}, "units"),
]


@pytest.mark.parametrize(("step", "side", "command", "field"), CASES)
def test_8_2_a_malformed_command_of_each_type_names_its_field(
    step: str, side: str, command: dict[str, Any], field: str
) -> None:
    st = SYSTEM.initial_state("scenario-1", {"paratrooper_assault": True})
    st["step"], st["turn"] = step, 2
    with pytest.raises(InvalidCommand) as err:
        SYSTEM.decide(st, side, command, RandomDice(1))
    assert field in err.value.details, err.value.details


def test_every_declared_command_type_has_a_malformed_case() -> None:
    assert {c[2]["type"] for c in CASES} == set(SYSTEM.commands.types())
