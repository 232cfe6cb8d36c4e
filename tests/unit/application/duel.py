"""Duel: a tiny made-up rules system for the unit tests of the Game aggregate and the application
services, so they stand on the rules contract alone (docs/rules/contract.md), not on a real game.

Its rulebook, invented for these tests:

1. The sides take turns; only the side whose turn it is acts (``pass`` ends the turn).
2. A gunman steps 1 to 3 paces at a time, and never beyond pace 6.
3. A gunman shoots only from pace 1 or farther; a d6 of 5 or 6 hits.
4. A side may reveal its secret card (hidden information: it cannot be taken back).
5. A side that concedes loses; three hits win the duel.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from service.domain.systems import GamePorts
from service.rules.actions import Actions, one_of
from service.rules.base import (
    RulesEvent,
    RulesSystem,
    RuleViolation,
    ScenarioError,
    ScenarioInfo,
    State,
)
from service.rules.declare import Commands, CommandSpec, Count, Events

SIDES = ("red", "blue")


def other(side: str) -> str:
    return "blue" if side == "red" else "red"


def whose_turn(state: State, side: str, spec: CommandSpec) -> None:
    if side != state["turn"]:
        raise RuleViolation("1", f"it is {state['turn']}'s turn")


COMMANDS = Commands("duel", guard=whose_turn)
EVENTS = Events("duel")


@COMMANDS.command("step", distance=Count(minimum=1, maximum=3))
def step(state: State, side: str, command: Mapping[str, Any], dice: Any) -> list[RulesEvent]:
    to = state["pace"][side] + command["distance"]
    if to > 6:
        raise RuleViolation("2", "never beyond pace 6", "distance")
    return [RulesEvent("Stepped", {"side": side, "to": to})]


@COMMANDS.command("shoot")
def shoot(state: State, side: str, command: Mapping[str, Any], dice: Any) -> list[RulesEvent]:
    if state["pace"][side] < 1:
        raise RuleViolation("3", "too far to shoot: step forward first")
    die = dice.roll(6, "shot")
    return [RulesEvent("Shot", {"side": side, "die": die.index, "roll": die.value})]


@COMMANDS.command("reveal")
def reveal(state: State, side: str, command: Mapping[str, Any], dice: Any) -> list[RulesEvent]:
    return [RulesEvent("Revealed", {"side": side, "card": state["secret"][side]})]


@COMMANDS.command("pass")
def pass_(state: State, side: str, command: Mapping[str, Any], dice: Any) -> list[RulesEvent]:
    return [RulesEvent("Passed", {"side": side})]


@COMMANDS.command("concede")
def concede(state: State, side: str, command: Mapping[str, Any], dice: Any) -> list[RulesEvent]:
    return [RulesEvent("Conceded", {"side": side})]


@EVENTS.event("Stepped", sections=("2",), words=lambda d, n: f"{d['side']} steps to pace {d['to']}")
def _stepped(state: State, data: dict[str, Any]) -> None:
    state["pace"][data["side"]] = data["to"]


@EVENTS.event("Shot", sections=("3",))
def _shot(state: State, data: dict[str, Any]) -> None:
    if data["roll"] >= 5:
        state["hits"][data["side"]] += 1


@EVENTS.event("Revealed", sections=("4",), reveals=True)
def _revealed(state: State, data: dict[str, Any]) -> None:
    state["shown"].append(data["side"])


@EVENTS.event("Passed", sections=("1",))
def _passed(state: State, data: dict[str, Any]) -> None:
    state["turn"] = other(data["side"])


@EVENTS.event("Conceded", sections=("5",))
def _conceded(state: State, data: dict[str, Any]) -> None:
    state["winner"] = other(data["side"])


class Duel(RulesSystem):
    name = "duel"
    title = "Duel at dawn"
    commands = COMMANDS
    events = EVENTS

    def scenarios(self) -> list[ScenarioInfo]:
        return [ScenarioInfo("dawn", "duel", "Duel at dawn", SIDES)]

    def default_options(self, scenario: str) -> dict[str, Any]:
        return {"first": "red"}

    def initial_state(self, scenario: str, options: Mapping[str, Any]) -> State:
        if options.get("first") not in SIDES:
            raise ScenarioError("who shoots first?", {"first": ["red or blue"]})
        return {
            "turn": options["first"],
            "pace": {"red": 0, "blue": 0},
            "hits": {"red": 0, "blue": 0},
            "secret": {"red": "ace", "blue": "king"},
            "shown": [],
            "winner": None,
        }

    def active_sides(self, state: State) -> list[str]:
        return [] if self.result(state) else [state["turn"]]

    def actions(self, state: State, side: str) -> Actions:
        actions = Actions()
        actions.add(COMMANDS.template("step", "Step", choose={"distance": one_of([1, 2, 3])}))
        actions.add(COMMANDS.template("pass", "Pass"))
        return actions

    def result(self, state: State) -> dict[str, Any] | None:
        winner = state["winner"] or next((s for s in SIDES if state["hits"][s] >= 3), None)
        return {"winner": winner, "outcome": "win", "level": "duel"} if winner else None


DUEL = Duel()
SEAL_KEY = b"duel-seal-key"


def duel_ports(seal_key: bytes | None = SEAL_KEY) -> GamePorts:
    """The ports of a world with one rules system, the duel."""
    return GamePorts.of({"duel": DUEL}.__getitem__, RulesEvent, seal_key)
