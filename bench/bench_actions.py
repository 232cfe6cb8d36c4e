"""Merida actions: milliseconds per ``actions(state, side)`` call in the movement phase, on turn 1
(every unit still to move) and in mid-game (turn 3, units spread out, some out of command), and the
size of the JSON the call returns.  Cold: nothing kept from an earlier listing; warm: the searches
kept while the enemy stands still (a player's next listing in the same phase).

The states come from a seeded walk of the action vocabulary (in the movement phase the walk moves
units before it ends the phase), so the figures are the same from run to run on one machine.
``python -m bench actions`` or ``python -m bench.bench_actions [repeats]``."""

from __future__ import annotations

import copy
import json
import random
import sys
import time
from typing import Any

from service.fuzz.player import SeededDice, pick
from service.rules.base import RulesEvent, RuleViolation, State
from service.rules.merida import SYSTEM, reach
from service.rules.registry import build_registry

SEED = 11
MID_TURN = 3
REPEATS = 5


def _next_state(state: State, rng: random.Random, dice: SeededDice) -> State:
    """One random legal command applied: ending a phase now and then, else any other template."""
    side = SYSTEM.active_sides(state)[0]
    actions = SYSTEM.actions(state, side)
    others = [t for t in actions.templates if t.type != "end_phase"]
    ends = actions.of_type("end_phase")
    template = rng.choice(ends if ends and (not others or rng.random() < 0.15) else others)
    return _played(SYSTEM, state, side, template, rng, dice)


def _played(
    rules: Any, state: State, side: str, template: Any, rng: random.Random, dice: Any
) -> State:
    """``template`` with a random pick per choice, decided and applied (``state`` if refused)."""
    command = template.command(**{k: pick(c, rng) for k, c in template.choose.items()})
    try:
        events = rules.decide(state, side, command, dice)
    except RuleViolation:
        return state
    for event in events:
        state = rules.apply(state, RulesEvent(event.type, event.data))
    return state


def states() -> dict[str, State]:
    """The first turn-1 movement state, and the third movement phase of turn ``MID_TURN``."""
    rng = random.Random(SEED)
    dice = SeededDice(rng)
    scenario = SYSTEM.scenario_ids()[0]
    state = SYSTEM.initial_state(scenario, SYSTEM.default_options(scenario))
    found: dict[str, State] = {}
    moves_in_phase = 0
    while len(found) < 2 and SYSTEM.result(state) is None:
        if state["phase"] == "movement":
            if state["turn"] == 1 and "turn 1" not in found:
                found["turn 1"] = copy.deepcopy(state)
            moves_in_phase += 1
            if state["turn"] == MID_TURN and moves_in_phase == 3:
                found[f"turn {MID_TURN}"] = copy.deepcopy(state)
        else:
            moves_in_phase = 0
        state = _next_state(state, rng, dice)
    return found


def measure(state: State, repeats: int, cold: bool) -> tuple[float, int, int]:
    """Best milliseconds per call over ``repeats`` (``cold``: nothing kept from an earlier call),
    the JSON size and the number of templates."""
    side = str(state["side"])
    best = float("inf")
    for _ in range(repeats):
        if cold:
            reach.forget()
        started = time.perf_counter()
        actions = SYSTEM.actions(state, side)
        best = min(best, time.perf_counter() - started)
    size = len(json.dumps(actions.as_dict(compact=True)))
    return best * 1000, size, len(actions.templates)


def main(repeats: int = REPEATS) -> None:
    for name, state in states().items():
        cold, size, templates = measure(state, repeats, cold=True)
        warm, _, _ = measure(state, repeats, cold=False)
        actions = SYSTEM.actions(state, str(state["side"]))
        listed = len(json.dumps(actions.as_dict()))
        write_list, write_tree = (_written(actions, compact) for compact in (False, True))
        print(
            f"merida {name} movement ({state['side']}): {cold:6.1f} ms per actions call cold, "
            f"{warm:6.1f} ms with the enemy unchanged since the last call; "
            f"{templates} templates, {size / 1024:.0f} KB of JSON with paths as trees "
            f"(?paths=tree; {listed / 1024:.0f} KB as lists, {listed / size:.1f}x); "
            f"written as JSON in {write_tree:.1f} ms (as lists {write_list:.1f} ms)"
        )
    every_system()


def _written(actions: Any, compact: bool, repeats: int = REPEATS) -> float:
    """Best milliseconds to turn ``actions`` into the JSON the API sends."""
    best = float("inf")
    for _ in range(repeats):
        started = time.perf_counter()
        json.dumps(actions.as_dict(compact=compact))
        best = min(best, time.perf_counter() - started)
    return best * 1000


def every_system(steps: int = 40) -> None:
    """Each system's largest action list over a seeded walk of ``steps`` commands from its first
    scenario: the JSON with paths as trees (the game page's) beside the lists (the default)."""
    for rules in build_registry():
        rng = random.Random(SEED)
        dice = SeededDice(rng)
        scenario = rules.scenarios()[0].id
        state = rules.initial_state(scenario, rules.default_options(scenario))
        largest = (0, 0, "")
        for _ in range(steps):
            if rules.result(state) is not None or not rules.active_sides(state):
                break
            side = rules.active_sides(state)[0]
            actions = rules.actions(state, side)
            tree = len(json.dumps(actions.as_dict(compact=True)))
            if tree > largest[0]:
                phase = rules.phase(state)
                where = f"turn {phase.get('turn')}, {phase.get('phase')}, {side}"
                largest = (tree, len(json.dumps(actions.as_dict())), where)
            state = _walk(rules, state, side, actions, rng, dice)
        tree, listed, phase = largest
        print(
            f"{rules.name}: largest action list in {steps} commands {tree / 1024:.0f} KB with "
            f"trees, {listed / 1024:.0f} KB as lists (at {phase})"
        )


def _walk(
    rules: Any, state: State, side: str, actions: Any, rng: random.Random, dice: Any
) -> State:
    """One random legal command of ``actions`` applied (or the state as it was, when refused)."""
    if not actions.templates:
        return state
    return _played(rules, state, side, rng.choice(actions.templates), rng, dice)


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else REPEATS)
