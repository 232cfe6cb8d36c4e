"""Playing a rules module in a unit test: decide with scripted dice, check every die was used, apply.

play = player(SYSTEM)
events = play(state, "allied", {"type": "move", ...}, [4, 2])
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, Protocol

from service.rules.base import RulesEvent, RulesSystem, State
from tests.support.dice import ScriptedDice


class Play(Protocol):
    def __call__(
        self, state: State, side: str, command: dict[str, Any], dice: Iterable[int] = ()
    ) -> list[RulesEvent]: ...


def run_scripted(
    system: RulesSystem,
    state: State,
    decision: Callable[[ScriptedDice], list[RulesEvent]],
    dice: Iterable[int] = (),
) -> list[RulesEvent]:
    """Make ``decision`` with ``dice`` scripted (every one must be rolled) and apply its events to
    ``state``."""
    scripted = ScriptedDice(dice)
    events = decision(scripted)
    assert scripted.unused == [], f"unused dice {scripted.unused}"
    for event in events:
        system.apply(state, event)
    return events


def player(system: RulesSystem) -> Play:
    """``play(state, side, command, dice)``: the whole ``decide`` of ``system``, then ``apply``."""

    def play(
        state: State, side: str, command: dict[str, Any], dice: Iterable[int] = ()
    ) -> list[RulesEvent]:
        return run_scripted(system, state, lambda d: system.decide(state, side, command, d), dice)

    return play


def types(events: Iterable[RulesEvent]) -> list[str]:
    return [e.type for e in events]


def first(events: Iterable[RulesEvent], kind: str) -> dict[str, Any]:
    """The data of the first event of type ``kind``."""
    return next(e.data for e in events if e.type == kind)
