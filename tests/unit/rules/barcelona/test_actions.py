"""The one action vocabulary: in every phase a player acts in, what ``actions`` offers is sent as
is and accepted by ``decide`` (each ``one_of`` option on its own), labels use printed names, and a
side that must act always has a template.  A whole game played from the templates replays to the
same state and words every event for people."""

from __future__ import annotations

import copy
import random
import re
from collections.abc import Callable

import pytest

from service.rules.barcelona import SYSTEM
from service.rules.base import DieRoll, InvalidCommand, RulesEvent, State
from tests.unit.rules.barcelona.conftest import NAT, REP, foot, table_state, team, vehicle


class SeededDice:
    def __init__(self, seed: int) -> None:
        self._random = random.Random(seed)
        self.index = 0

    def roll(self, sides: int = 6, purpose: str = "") -> DieRoll:
        self.index += 1
        return DieRoll(self.index - 1, sides, self._random.randint(1, sides), purpose)


def columns() -> State:
    return SYSTEM.initial_state("skirmish", {})


def points() -> State:
    return SYSTEM.initial_state("skirmish", {"forces": "points", "points": 300})


def deployment() -> State:
    state = table_state(
        foot("n1", NAT, 30, 5, figures=16), team("n2", NAT, "HMG", 10, 5), phase="deployment"
    )
    for uid in ("n1", "n2"):
        state["units"][uid]["status"] = "unplaced"
    return state


def orders() -> State:
    return table_state(foot("n1", NAT, 30, 5), foot("r1", REP, 30, 31), phase="orders")


def movement() -> State:
    return table_state(
        foot("n1", NAT, 30, 5), vehicle("n3", NAT, "Lorry", 24, 3), foot("r1", REP, 30, 31)
    )


def moving() -> State:
    state = table_state(foot("n1", NAT, 9, 11), foot("r1", REP, 30, 20))
    state["moving"] = "n1"
    state["units"]["n1"]["rolled"] = {"distance": 7, "going": "good", "actions": {}}
    return state


def shooting() -> State:
    return table_state(
        foot("n1", NAT, 30, 5, lmg=1),
        team("n2", NAT, "HMG", 20, 5),
        foot("r1", REP, 30, 12, figures=2),
        foot("r2", REP, 36, 14),
        step="infantry",
    )


STATES: list[Callable[[], State]] = [
    columns,
    points,
    deployment,
    orders,
    movement,
    moving,
    shooting,
]


@pytest.mark.parametrize("make", STATES)
def test_every_template_built_command_is_accepted(make: Callable[[], State]) -> None:
    state = make()
    for side in SYSTEM.active_sides(state):
        actions = SYSTEM.actions(state, side)
        assert actions, f"{side} must act and has no template"
        for template in actions.templates:
            for command in template.commands():
                before = copy.deepcopy(state)
                try:
                    SYSTEM.decide(state, side, command, SeededDice(1))
                except InvalidCommand as exc:  # pragma: no cover - the failure message
                    pytest.fail(f"{template.label}: {command} is malformed: {exc.details}")
                assert state == before, f"decide mutated the state for {command}"


def test_the_sides_not_acting_have_no_template() -> None:
    state = movement()
    assert SYSTEM.active_sides(state) == [NAT]
    assert not SYSTEM.actions(state, REP)


def test_labels_name_units_by_their_printed_names() -> None:
    labels = [t.label for t in SYSTEM.actions(movement(), NAT).templates]
    assert labels == [
        "Roll to move Militia company 1",
        "Militia company 1 holds",
        "Roll to move Lorry 3",
        "Lorry 3 holds",
        "End movement",
    ]
    [shot, *_] = SYSTEM.actions(shooting(), NAT).of_type("shoot")
    assert shot.label == "Militia company 1 fires its Rifle"
    assert shot.choose["targets"].labels[0] == 'Militia company 1 (7.02", 5 d6)'


def test_movement_a_rolled_move_offers_legal_destinations_and_blocks_the_end() -> None:
    """MOVEMENT: the measured move is within the rolled 7"; the wood (bad going) is not entered."""
    state = moving()
    actions = SYSTEM.actions(state, NAT)
    [move] = actions.of_type("move")
    choice = move.choose["path"]
    assert choice.options[0] == [] and choice.labels[0] == "Stay put"
    assert len(choice.options) > 3
    assert [(b.type, b.rule) for b in actions.blocked] == [("end_movement", "MOVEMENT")]
    assert move.kinds == {"facing": "number", "path": "choice", "unit": "unit"}


def test_deployment_spots_stand_in_the_zone_and_the_end_waits_for_every_unit() -> None:
    state = deployment()
    actions = SYSTEM.actions(state, NAT)
    assert actions.types() == ["deploy", "reserve", "deploy", "reserve"]
    assert [b.type for b in actions.blocked] == ["end_deployment"]
    first = actions.of_type("deploy")[0]
    assert first.fixed["ranks"] == 4 and first.fixed["y"] == 5.0  # 16 figures, the zone's front


def _play_from_templates(seed: int) -> tuple[State, list[tuple[State, RulesEvent]]]:
    state = SYSTEM.initial_state("skirmish", {"turns": 2})
    dice, log, rng = SeededDice(seed), [], random.Random(seed)
    for _ in range(2000):
        sides = SYSTEM.active_sides(state)
        if not sides:
            break
        side = sides[0]
        templates = SYSTEM.actions(state, side).templates
        assert templates, f"{side} must act in {SYSTEM.phase(state)}"
        template = templates[0] if rng.random() < 0.7 else rng.choice(templates)
        command = rng.choice(template.commands())
        for event in SYSTEM.decide(state, side, command, dice):
            log.append((copy.deepcopy(state), event))
            SYSTEM.apply(state, event)
    return state, log


@pytest.mark.parametrize("seed", [1, 7])
def test_a_game_played_from_the_templates_ends_replays_and_is_worded(seed: int) -> None:
    final, log = _play_from_templates(seed)
    assert SYSTEM.result(final) is not None
    replayed = SYSTEM.initial_state("skirmish", {"turns": 2})
    for _, event in log:
        SYSTEM.apply(replayed, RulesEvent(**copy.deepcopy(event.as_dict())))
    assert replayed == final
    ids = re.compile(r"\b(nat|rep)\d+\b")
    for before, event in log:
        assert event.type in SYSTEM.events
        words = SYSTEM.describe(event, before)
        assert "{" not in words and "[" not in words and not ids.search(words), words
