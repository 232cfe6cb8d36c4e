"""Who sends the next command: a random player driven by the action vocabulary (as Rally the Troops
fuzzes its modules), or a script (a golden game, an exported game replayed)."""

from __future__ import annotations

import copy
import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any, Protocol

from service.rules.actions import Actions, Choice, Template
from service.rules.base import DieRoll, RulesEvent, RulesSystem, RuleViolation, State


@dataclass(frozen=True)
class Move:
    """One command to send: its side, the command, and the template it was built from (``None``
    for a scripted one)."""

    side: str
    command: dict[str, Any]
    template: Template | None = None


ActionsOf = Callable[[str], Actions]


class Chooser(Protocol):
    def next(self, active: Sequence[str], actions_of: ActionsOf) -> Move | None:
        """The next move among the active sides, or ``None`` to stop."""
        ...


def pick(choice: Choice, rng: random.Random) -> Any:
    """A random pick of one choice: one option, or ``min`` to ``max`` of them in their order."""
    if not choice.many:
        return rng.choice(choice.options)
    top = min(choice.max, len(choice.options))
    count = rng.randint(min(choice.min, top), top)
    chosen = sorted(rng.sample(range(len(choice.options)), count))
    return [choice.options[i] for i in chosen]


class RandomPlayer:
    """Random legal play: a command type at random among those offered (so that ending a phase is
    as likely as any one move, and games end), a template of it, a pick per choice."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def next(self, active: Sequence[str], actions_of: ActionsOf) -> Move | None:
        if not active:
            return None
        side = self.rng.choice(list(active))
        actions = actions_of(side)
        if not actions.templates:
            return None
        kind = self.rng.choice(list(dict.fromkeys(actions.types())))
        template = self.rng.choice(actions.of_type(kind))
        picks = {name: pick(choice, self.rng) for name, choice in template.choose.items()}
        return Move(side, template.command(**picks), template)


class Script:
    """The recorded moves of a game, in order."""

    def __init__(self, moves: Sequence[Mapping[str, Any]]) -> None:
        self.moves = [Move(str(m["side"]), dict(m["command"])) for m in moves]
        self.position = 0

    def next(self, active: Sequence[str], actions_of: ActionsOf) -> Move | None:
        if self.position >= len(self.moves):
            return None
        move = self.moves[self.position]
        self.position += 1
        return move


class SeededDice:
    """Dice for play at the rules level (no store): drawn from a seeded generator, indexes in order."""

    def __init__(self, rng: random.Random, start: int = 0) -> None:
        self.rng = rng
        self.index = start

    def roll(self, sides: int = 6, purpose: str = "") -> DieRoll:
        die = DieRoll(self.index, sides, self.rng.randint(1, sides), purpose)
        self.index += 1
        return die


@dataclass
class Playthrough:
    """A game played at the rules level: its initial state, the state after each command, and each
    event with the state just before it."""

    system: RulesSystem
    scenario: str
    sides: list[str]
    initial: State
    states: list[State] = field(default_factory=list)
    events: list[tuple[RulesEvent, State]] = field(default_factory=list)

    @property
    def final(self) -> State:
        return self.states[-1] if self.states else self.initial


def play_rules(system: RulesSystem, seed: int, commands: int) -> Playthrough:
    """Seeded random legal play of ``system`` at the rules level, up to ``commands`` commands (a
    refused ``some_of`` pick is skipped): reachable states for the conformance suite."""
    rng = random.Random(f"rules:{system.name}:{seed}")
    info = rng.choice(sorted(system.scenarios(), key=lambda s: s.id))
    state = system.initial_state(info.id, system.default_options(info.id))
    play = Playthrough(system, info.id, list(info.sides), copy.deepcopy(state))
    player, dice = RandomPlayer(rng), SeededDice(rng)
    for _ in range(commands * 2):
        if len(play.states) >= commands or system.result(state) is not None:
            break
        move = player.next(system.active_sides(state), partial(system.actions, state))
        if move is None:
            break
        try:
            events = system.decide(state, move.side, move.command, dice)
        except RuleViolation:
            continue
        for event in events:
            play.events.append((event, copy.deepcopy(state)))
            state = system.apply(state, RulesEvent(event.type, copy.deepcopy(event.data)))
        play.states.append(copy.deepcopy(state))
    return play
