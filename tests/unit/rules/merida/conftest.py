"""Helpers for the Merida rule tests: small boards in the scenario format, built into states."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import pytest

from service.rules.actions import Template
from service.rules.base import DieRoll, RulesEvent, RuleViolation, State, clone
from service.rules.merida import SYSTEM, sequence, setup
from service.rules.scenario import load_scenario
from tests.support.dice import ScriptedDice

ROWS = "ABCDEFGHIJ"


def unit(uid: str, side: str, kind: str, strength: float, hex_: str | None, **extra: Any) -> dict:
    return {
        "id": uid,
        "side": side,
        "type": kind,
        "name": uid,
        "values": {"strength": strength},
        "hex": hex_,
        **extra,
    }


def board_state(
    units: Iterable[dict],
    *,
    phase: str = "movement",
    side: str = "nationalist",
    turn: int = 2,
    terrain: dict[str, str] | None = None,
    hex_features: dict[str, list[str]] | None = None,
    hexsides: list[dict] | None = None,
    reinforcements: list[dict] | None = None,
    data: dict | None = None,
    options: dict | None = None,
    turns: int = 5,
    decisions: str = "automatic",
) -> State:
    """A 12x10 board (rows A-J, columns 1-12); Nationalist supply on column 1, Republican on 12.

    ``decisions`` defaults to ``"automatic"`` here: the rule tests written before issue 19 check
    the fixed preference; the tests of the players' decisions pass ``decisions="players"``."""
    raw = {
        "format": "arbiter-scenario/1",
        "id": "test",
        "system": "merida",
        "title": "test",
        "sides": ["nationalist", "republican"],
        "turns": turns,
        "map": {
            "coordinates": "letter-number",
            "orientation": "flat",
            "offset": "odd",
            "bounds": {"min_col": 1, "max_col": 12, "min_row": 1, "max_row": 10},
            "terrain_types": ["clear", "mountain"],
            "terrain": terrain or {},
            "hex_features": hex_features or {},
            "hexsides": hexsides or [],
            "supply_sources": {
                "nationalist": [f"{r}1" for r in ROWS],
                "republican": [f"{r}12" for r in ROWS],
            },
            "entries": [
                {"name": "east", "side": "republican", "hexes": [f"{r}12" for r in "CDEFG"]}
            ],
        },
        "units": list(units),
        "reinforcements": reinforcements or [],
        "options": {
            "strategic_modifier": {"default": 2, "choices": [2, -2]},
            "zoc_to_zoc": {"default": "same_unit", "choices": ["same_unit", "any"]},
            "decisions": {"default": "players", "choices": ["players", "automatic"]},
            "leader_zoc": {"default": "none", "choices": ["none", "exerted"]},
            "command_check": {"default": "B_and_D", "choices": ["B_and_D", "D_only"]},
            "river_cost": {"default": "total", "choices": ["total", "added"]},
        },
        "data": {"initial_control": {"nationalist": [1, 5], "republican": [6, 12]}, **(data or {})},
    }
    state = setup.build_state(
        load_scenario(raw, "merida", setup.OPTIONS), {"decisions": decisions, **(options or {})}
    )
    state.update(turn=turn, side=side, phase=phase)
    state["deployment"]["units"] = {}
    if phase == "combat":
        state.update(sequence.combat_obligations(state))
    return state


def play(state: State, side: str, command: dict, dice: Iterable[int] = ()) -> list[RulesEvent]:
    """Decide and apply a command; every scripted die must be used."""
    scripted = ScriptedDice(dice)
    events = SYSTEM.decide(state, side, command, scripted)
    assert scripted.unused == [], f"unused dice {scripted.unused}"
    for event in events:
        SYSTEM.apply(state, event)
    return events


def types(events: Iterable[RulesEvent]) -> list[str]:
    return [e.type for e in events]


@pytest.fixture
def system():
    return SYSTEM


def regain_lines(state: State, side: str) -> int:
    """Rule 10: move every unit the server lists as having to regain its line, to the first hex it
    lists; returns how many moves were made."""
    made = 0
    while True:
        due = [t for t in SYSTEM.actions(state, side).of_type("move") if "regain" in t.label]
        if not due:
            return made
        play(state, side, due[0].command())
        made += 1


def template(state: State, side: str, type_: str, **fixed: Any) -> Template:
    """The one listed template of ``type_`` whose fixed fields include ``fixed``."""
    [found] = [
        t
        for t in SYSTEM.actions(state, side).of_type(type_)
        if all(t.fixed.get(k) == v for k, v in fixed.items())
    ]
    return found


def accepted_commands(state: State, side: str, per_template: int = 1000) -> dict[str, int]:
    """Every command built from every listed template (``Template.commands``, at most
    ``per_template`` of each, spread over its options) decided on a copy of ``state``: never an
    InvalidCommand; for templates of ``one_of`` fields only, never a RuleViolation either.
    Returns how many were decided, by command type."""
    decided: dict[str, int] = {}
    for listed in SYSTEM.actions(state, side).templates:
        only_one_of = not any(c.many for c in listed.choose.values())
        commands = listed.commands()
        step = max(1, len(commands) // per_template)
        for command in commands[::step]:
            try:
                SYSTEM.decide(clone(state), side, command, FreeDice())
            except RuleViolation:
                assert not only_one_of, (listed.label, command)
            decided[listed.type] = decided.get(listed.type, 0) + 1
    return decided


class FreeDice:
    """Dice for probing every command: always 3 (a probe checks legality, not results)."""

    def __init__(self) -> None:
        self.index = 0

    def roll(self, sides: int = 6, purpose: str = "") -> DieRoll:
        self.index += 1
        return DieRoll(self.index, sides, 3, purpose)
