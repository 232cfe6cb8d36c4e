"""The rules contract, proven for every system of the registry (docs/rules/contract.md, "Proof").

In the style of eventsourcing's recorder test cases: :class:`RulesConformance` holds the tests, and
one subclass per system of the registry (the shipped games, the skirmish and duel fixtures of
``tests/fixtures``) runs them on reachable states produced by seeded random play (``play_rules``).  A system
that does not load gets a class whose one test fails with the reason.
"""

from __future__ import annotations

import itertools
import random
from typing import Any, ClassVar

import pytest

from service.fuzz import checks
from service.fuzz.player import Playthrough, RandomPlayer, SeededDice, pick, play_rules
from service.fuzz.runner import GameOutcome, GameRun, Harness, load_registry
from service.rules.actions import Template
from service.rules.base import RulesSystem, State

pytestmark = pytest.mark.slow("the rules contract checked over random play of every system")

PLUGINS = ("tests.fixtures.skirmish", "tests.fixtures.duel")
REGISTRY, BROKEN = load_registry(plugins=PLUGINS)
#: seeds of the playthroughs each system is checked on, and how long each is (commands)
SEEDS = (1, 2)
LENGTH = 40
#: at most this many commands of one template are sent when every option is tried
PER_TEMPLATE = 12


def _problems(found: Any) -> list[str]:
    return [p for p in found if p]


class RulesConformance:
    """The contract's invariants for one system (``system_name``)."""

    system_name: ClassVar[str] = ""
    _plays: ClassVar[dict[str, list[Playthrough]]] = {}

    @property
    def system(self) -> RulesSystem:
        return REGISTRY.get(self.system_name)

    @property
    def plays(self) -> list[Playthrough]:
        if self.system_name not in self._plays:
            self._plays[self.system_name] = [play_rules(self.system, s, LENGTH) for s in SEEDS]
        return self._plays[self.system_name]

    def states(self) -> list[State]:
        """A few reachable states of each playthrough: the start, some middle ones, the end."""
        out = []
        for play in self.plays:
            out.append(play.initial)
            out.extend(play.states[i] for i in (4, 15) if i < len(play.states))
            out.append(play.final)
        return out

    # -- decisions ------------------------------------------------------------------------------
    def test_decide_never_mutates_its_input(self) -> None:
        problems: list[str] = []
        for n, state in enumerate(self.states()):
            for side in self.system.active_sides(state):
                templates = self.system.actions(checks.copy_json(state), side).templates
                sides = self.plays[0].sides
                commands = [(side, t.command()) for t in templates[:8]]
                commands += list(checks.refused_variants(state, side, templates, sides))
                for who, command in commands:
                    found = checks.decide_pure(
                        self.system, state, who, command, SeededDice(random.Random(n))
                    )
                    problems += found[2]
        assert problems == []

    def test_template_commands_are_never_invalid(self) -> None:
        problems: list[str] = []
        rng = random.Random(7)
        for n, state in enumerate(self.states()):
            for side in self.system.active_sides(state):
                for template in self.system.actions(checks.copy_json(state), side).templates:
                    for command in _commands_of(template, rng):
                        dice = SeededDice(random.Random(n))
                        _, refusal, found = checks.decide_pure(
                            self.system, state, side, command, dice
                        )
                        problems += found
                        problems += _problems([checks.refusal_problem(template, command, refusal)])
        assert problems == []

    def test_a_side_that_must_act_has_a_template(self) -> None:
        problems = [
            p for state in self.states() for p in checks.must_act_problems(self.system, state)
        ]
        assert problems == []

    # -- replay ---------------------------------------------------------------------------------
    def test_replay_equals_live_play(self) -> None:
        for play in self.plays:
            replayed = checks.replay(self.system, play.initial, [e for e, _ in play.events])
            assert checks.replay_problem(play.final, replayed, f"({play.scenario})") is None

    def test_a_snapshot_equals_a_full_replay(self) -> None:
        harness = Harness(PLUGINS, snapshot_interval=3, systems=[self.system_name])
        try:
            outcome = GameOutcome(self.system_name, 11)
            run = GameRun(harness, outcome, RandomPlayer(random.Random(11)), LENGTH)
            run.start(sorted(s.id for s in self.system.scenarios())[0])
            run.play()
            assert [p for p in outcome.problems if "rebuilt" in p] == []
            for version in range(1, run.game.version + 1, 4):
                from_snapshot: Any = harness.from_snapshots.repository.get(
                    run.game.id, version=version
                )
                from_log: Any = harness.from_log.repository.get(run.game.id, version=version)
                where = checks.first_difference(from_log.state, from_snapshot.state)
                assert where is None, f"version {version}: {where}"
        finally:
            harness.close()

    # -- data -------------------------------------------------------------------------------------
    def test_state_and_events_are_json_only(self) -> None:
        problems = _problems(checks.json_problem(s, "a state") for s in self.states())
        for play in self.plays:
            problems += _problems(checks.json_problem(e.data, e.type) for e, _ in play.events)
        assert problems == []

    def test_every_emitted_event_is_declared_worded_and_governed(self) -> None:
        problems = [
            p
            for play in self.plays
            for event, before in play.events
            for p in checks.event_problems(self.system, event, before)
        ]
        assert sorted(set(problems)) == []

    def test_every_declared_event_has_words_and_sections(self) -> None:
        bare = [s.type for s in self.system.events if s.words is None or not s.sections]
        assert bare == []

    # -- hidden information -----------------------------------------------------------------------
    def test_views_never_show_what_the_rules_hide(self) -> None:
        """A system that declares hidden information shows no side what it hides; one that does not
        shows every side all of the state and of every event (the declaration is true)."""
        hidden = self.system.hidden_information
        problems: list[str] = []
        for play in self.plays:
            sides: list[str | None] = [*play.sides, None]
            for state in [play.initial, *play.states]:
                if hidden:
                    problems += checks.view_problems(self.system, state, sides)
                else:
                    problems += [
                        f"{side} is shown a redacted state"
                        for side in sides
                        if self.system.view(state, side) != state
                    ]
            for event, before in play.events:
                if hidden:
                    problems += checks.event_view_problems(self.system, event, before, sides)
                else:
                    problems += [
                        f"{side} is shown a redacted {event.type}"
                        for side in sides
                        if self.system.event_view(event, before, side) != event
                    ]
        assert sorted(set(problems)) == []


def _commands_of(template: Template, rng: random.Random) -> list[dict[str, Any]]:
    """Every option of a template (up to PER_TEMPLATE of them) and a few random picks."""
    every = list(itertools.islice(_every(template), PER_TEMPLATE))
    for _ in range(3):
        every.append(template.command(**{n: pick(c, rng) for n, c in template.choose.items()}))
    return every


def _every(template: Template) -> Any:
    """``Template.commands()`` without building them all first (a path choice may have hundreds)."""
    one = {n: c for n, c in template.choose.items() if not c.many}
    many = {n: list(c.options[: c.max]) for n, c in template.choose.items() if c.many}
    for values in itertools.product(*(c.options for c in one.values())):
        yield {
            "type": template.type,
            **template.fixed,
            **many,
            **dict(zip(one, values, strict=True)),
        }


def _failing(name: str, reason: str) -> type:
    def test_system_loads(self: Any) -> None:
        pytest.fail(f"{name} {reason}")

    return type(f"Test_{name}", (), {"test_system_loads": test_system_loads})


for _name in REGISTRY.names():
    globals()[f"Test_{_name}"] = type(
        f"Test_{_name}", (RulesConformance,), {"system_name": _name, "_plays": {}}
    )
for _name, _reason in BROKEN.items():
    globals()[f"Test_{_name.replace('.', '_')}"] = _failing(_name, _reason)
