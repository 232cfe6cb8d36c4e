"""Fog of war in refusals (issue 33), at the rules level: a side under limited intelligence is
never told, by a refusal or its absence, what it may not see.  Random Backbone games; at each
command, states that differ from the game only in what the side may not see are asked the same
commands and must answer alike.  (The read paths' side of the property, over HTTP:
tests/e2e/test_fog_property.py.)

Seeded: a failure names its seed; ``FOG_SEED=K`` replays a run from seed K.
"""

from __future__ import annotations

import json
import os
import random
from functools import partial
from typing import Any

import pytest

from tests.support.fog import games

pytestmark = pytest.mark.slow(
    "random Backbone games under limited intelligence, every command compared on three twins of each state"
)

SEED = int(os.environ.get("FOG_SEED", "1400"))

#: Backbone with limited intelligence at the rules level: games, commands per game, twins per check
REFUSAL_BUDGET = (1, 120, 3)


def _outcome(rules: Any, state: Any, side: str, command: Any) -> tuple[Any, ...]:
    """What ``side`` is told of ``command`` on ``state``: accepted, or the refusal's rule, text and
    field (what a 422 says)."""
    from service.fuzz.checks import copy_json
    from service.fuzz.player import SeededDice
    from service.rules.base import InvalidCommand, RuleViolation

    try:
        rules.decide(copy_json(state), side, command, SeededDice(random.Random(0)))
    except RuleViolation as exc:
        return ("refused", exc.rule, exc.message, exc.field)
    except InvalidCommand as exc:
        return ("invalid", exc.message, json.dumps(exc.details, sort_keys=True, default=str))
    return ("accepted",)


def _twins(state: Any, side: str, rng: random.Random) -> list[Any]:
    """States that differ from ``state`` only in what ``side`` may not see -- the units under the
    top of each enemy stack: their numbers changed, their types changed, or some of them gone --
    kept only when ``side``'s view of them is the view of ``state``."""
    from service.fuzz.checks import copy_json
    from service.rules.backbone import fog

    hidden = sorted(fog.hidden_units(state, side))
    if not hidden:
        return []
    seen = fog.view(state, side)
    made = []
    numbers = copy_json(state)
    for uid in hidden:
        u = numbers["units"][uid]
        u.update(
            attack=rng.randint(0, 14),
            defense=rng.randint(1, 14),
            efficiency=rng.randint(1, 3),
            steps=rng.randint(1, max(1, u["max_steps"])),
        )
    made.append(numbers)
    kinds = copy_json(state)
    for uid in hidden:
        kinds["units"][uid]["type"] = rng.choice(["infantry", "armor", "legion", "engineer"])
    made.append(kinds)
    fewer = copy_json(state)
    for uid in hidden[1:]:
        del fewer["units"][uid]
        for key in ("moved", "attacked_units", "supply_links", "exploiters"):
            fewer[key] = [x for x in fewer[key] if x != uid]
        fewer["hq_used"].pop(uid, None)
    made.append(fewer)
    return [t for t in made if fog.view(t, side) == seen]


def _probes(rules: Any, state: Any, side: str, rng: random.Random) -> list[Any]:
    """Commands to try: a sample of the listed ones, and attacks on every enemy hex next to the
    side's units, each unit alone and all of them (listed or not)."""
    from service.rules.backbone import geography as geo
    from service.rules.backbone.units import on_map

    listed = [c for t in rules.actions(state, side).templates for c in t.commands()]
    probes = rng.sample(listed, min(len(listed), 15))
    if state.get("combat") is None and state["step"].endswith("_combat"):
        grid = geo.board(state).grid
        own = [u for u in on_map(state, side) if u["type"] != "hq"]
        for target in sorted({u["hex"] for u in on_map(state) if u["side"] != side}):
            near = [u["id"] for u in own if grid.adjacent(u["hex"], target)]
            for units in [[uid] for uid in near] + ([near] if len(near) > 1 else []):
                probes.append({"type": "attack", "target": target, "units": units})
    return probes


def test_no_refusal_depends_on_what_the_reader_may_not_see() -> None:
    """19.2 with 16.1: a side under limited intelligence is never told, by a refusal or its
    absence, what it may not see.  Random Backbone games; at each command, states that differ
    only in the units under the top of the enemy stacks (numbers, types, some removed -- the same
    view for the side) must answer every command alike: accepted in all, or refused in all with
    the same rule, text and field."""
    from service.fuzz.checks import copy_json
    from service.fuzz.player import RandomPlayer, SeededDice
    from service.rules.backbone import SYSTEM
    from service.rules.base import RuleViolation

    played, commands, _ = REFUSAL_BUDGET
    compared = hidden_states = 0
    for seed in range(SEED, SEED + games(played)):
        rng = random.Random(seed)
        state = SYSTEM.initial_state("scenario-1", {"limited_intelligence": True})
        player, dice = RandomPlayer(rng), SeededDice(rng)
        for step in range(commands):
            active = SYSTEM.active_sides(state)
            if not active:
                break
            for side in active:
                twins = _twins(state, side, rng)
                if not twins:
                    continue
                hidden_states += 1
                for command in _probes(SYSTEM, state, side, rng):
                    told = _outcome(SYSTEM, state, side, command)
                    for twin in twins:
                        compared += 1
                        other = _outcome(SYSTEM, twin, side, command)
                        assert other == told, (
                            f"FOG_SEED={seed} command {step}: {side} sending {command} is told "
                            f"{told} on the game and {other} on a game differing only in what it "
                            "may not see"
                        )
            move = player.next(active, partial(SYSTEM.actions, state))
            if move is None:
                break
            try:  # a some_of pick may be refused (the fuzzer's player does not know the limits)
                events = SYSTEM.decide(copy_json(state), move.side, move.command, dice)
            except RuleViolation:
                continue
            for event in events:
                state = SYSTEM.apply(state, event)
    print(f"fog refusals: {hidden_states} states with hidden units, {compared} answers compared")
    assert hidden_states > 0 and compared > 0
