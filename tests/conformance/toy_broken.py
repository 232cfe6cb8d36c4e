"""The Duel (tests/fixtures/duel) broken on purpose, one way per system, to show each check of the
proof catches its case.

A plug-in: ``register(registry)`` adds every variant (``duel-mutates``, ``duel-leaks`` ...)."""

from __future__ import annotations

from typing import Any

from service.fuzz.probes import register_probe
from service.rules.actions import Actions
from service.rules.base import Dice, RulesEvent, RuleViolation, State
from service.rules.registry import Registry
from tests.fixtures.duel import PROBE, Duel


class Mutates(Duel):
    """decide changes the state it is given."""

    name = "duel-mutates"

    def decide(self, state: State, side: str, command: Any, dice: Dice) -> list[RulesEvent]:
        state.setdefault("seen_commands", 0)
        state["seen_commands"] += 1
        return super().decide(state, side, command, dice)


class Undeclared(Duel):
    """decide emits an event type that no declaration knows."""

    name = "duel-undeclared"

    def decide(self, state: State, side: str, command: Any, dice: Dice) -> list[RulesEvent]:
        return [*super().decide(state, side, command, dice), RulesEvent("Shouted", {"side": side})]

    def apply(self, state: State, event: RulesEvent) -> State:
        return state if event.type == "Shouted" else super().apply(state, event)


class Leaks(Duel):
    """view shows the other side's card."""

    name = "duel-leaks"

    def view(self, state: State, side: str | None) -> State:
        return state


class Refuses(Duel):
    """actions offer steps the rules then refuse (``one_of`` options that are not legal)."""

    name = "duel-refuses"

    def decide(self, state: State, side: str, command: Any, dice: Dice) -> list[RulesEvent]:
        if command.get("type") == "step":
            raise RuleViolation("2", "no one steps today")
        return super().decide(state, side, command, dice)


class Stuck(Duel):
    """the side to act is offered nothing in round 2."""

    name = "duel-stuck"

    def actions(self, state: State, side: str) -> Actions:
        return Actions() if state["round"] == 2 else super().actions(state, side)


class Drifts(Duel):
    """apply reads something the event does not carry: replay differs from live play."""

    name = "duel-drifts"
    calls = 0

    def apply(self, state: State, event: RulesEvent) -> State:
        Drifts.calls += 1
        state = super().apply(state, event)
        if event.type == "TurnEnded":
            state["tally"] = Drifts.calls
        return state


VARIANTS = (Mutates, Undeclared, Leaks, Refuses, Stuck, Drifts)


def register(registry: Registry) -> None:
    for variant in VARIANTS:
        registry.register(variant())
        register_probe(variant.name, PROBE)
