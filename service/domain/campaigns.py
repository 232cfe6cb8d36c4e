"""Campaigns: an ordered set of scenarios (or off-line games) with a scoring table that turns each
result's victory level into campaign points, notes the organiser carries from one step to the next,
and standings per side and per player."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any
from uuid import uuid4

from eventsourcing.domain import Aggregate

from service.domain.errors import Conflict, Invalid, Unprocessable

PENDING, STARTED, SCORED = "pending", "started", "scored"
#: the scoring table's entries for a draw (each side) and for any win it does not name
DRAW, VICTORY = "draw", "victory"


def check_definition(
    name: str, sides: Sequence[str], steps: Sequence[Mapping[str, Any]], scoring: Mapping[str, Any]
) -> None:
    problems: dict[str, list[str]] = {}
    if not 1 <= len(name.strip()) <= 80:
        problems["name"] = ["1 to 80 characters"]
    if len(sides) < 2 or len(set(sides)) != len(sides):
        problems["sides"] = ["two or more different side names"]
    if not steps:
        problems["steps"] = ["at least one step"]
    for i, step in enumerate(steps):
        if not str(step.get("title", "")).strip():
            problems[f"steps.{i}.title"] = ["a title"]
        if bool(step.get("system")) != bool(step.get("scenario")):
            problems[f"steps.{i}.scenario"] = ["give both system and scenario, or neither"]
    if not scoring:
        problems["scoring"] = ["at least one victory level"]
    for level, points in scoring.items():
        if not isinstance(points, int) or isinstance(points, bool) or not 0 <= points <= 1000:
            problems[f"scoring.{level}"] = ["an integer 0..1000"]
    if problems:
        raise Invalid("invalid campaign", problems)


class Campaign(Aggregate):
    class Created(Aggregate.Created):
        club_id: str
        name: str
        sides: list[str]
        steps: list[dict[str, Any]]
        scoring: dict[str, int]
        organiser: str

        def apply(self, aggregate: Any) -> None:
            aggregate.club_id = self.club_id
            aggregate.name = self.name
            aggregate.sides = list(self.sides)
            aggregate.scoring = dict(self.scoring)
            aggregate.organiser = self.organiser
            aggregate.steps = [
                {
                    "title": s["title"],
                    "system": s.get("system"),
                    "scenario": s.get("scenario"),
                    "status": PENDING,
                    "game_id": None,
                    "sides": {},
                    "result": None,
                    "notes": [],
                }
                for s in self.steps
            ]

    class StepStarted(Aggregate.Event):
        step: int
        game_id: str
        sides: dict[str, str]

        def apply(self, aggregate: Any) -> None:
            step = aggregate.steps[self.step]
            step.update(status=STARTED, game_id=self.game_id, sides=dict(self.sides))

    class StepScored(Aggregate.Event):
        step: int
        sides: dict[str, str]
        winner: str | None
        level: str
        points: dict[str, int]
        source: str

        def apply(self, aggregate: Any) -> None:
            step = aggregate.steps[self.step]
            step["status"] = SCORED
            step["sides"] = dict(self.sides)
            step["result"] = {
                "winner": self.winner,
                "level": self.level,
                "points": dict(self.points),
                "source": self.source,
            }

    class NoteAdded(Aggregate.Event):
        step: int
        text: str
        by: str

        def apply(self, aggregate: Any) -> None:
            aggregate.steps[self.step]["notes"].append(self.text)

    club_id: str
    name: str
    sides: list[str]
    scoring: dict[str, int]
    organiser: str
    steps: list[dict[str, Any]]

    def __init__(self) -> None:  # attributes are set by Created.apply
        pass

    @classmethod
    def create(
        cls,
        *,
        club_id: str,
        name: str,
        sides: Sequence[str],
        steps: Sequence[Mapping[str, Any]],
        scoring: Mapping[str, int],
        organiser: str,
    ) -> Campaign:
        check_definition(name, sides, steps, scoring)
        return cls._create(
            cls.Created,
            id=uuid4(),
            club_id=club_id,
            name=" ".join(name.split()),
            sides=list(sides),
            steps=[
                {"title": s["title"], "system": s.get("system"), "scenario": s.get("scenario")}
                for s in steps
            ],
            scoring=dict(scoring),
            organiser=organiser,
        )

    # -- commands -----------------------------------------------------------------------------------
    def _step(self, index: int) -> dict[str, Any]:
        if not 0 <= index < len(self.steps):
            raise Unprocessable("no such step", {"step": [f"0..{len(self.steps) - 1}"]})
        return self.steps[index]

    def next_step(self) -> int | None:
        return next((i for i, s in enumerate(self.steps) if s["status"] != SCORED), None)

    def _check_turn(self, index: int) -> dict[str, Any]:
        step = self._step(index)
        if step["status"] == SCORED:
            raise Conflict("the step is already scored", {"step": ["scored"]})
        if index != self.next_step():
            raise Conflict(
                "steps are played in order", {"step": [f"step {self.next_step()} comes first"]}
            )
        return step

    def _check_sides(self, sides: Mapping[str, str]) -> None:
        if set(sides) != set(self.sides):
            raise Unprocessable(
                "every campaign side needs a player",
                {"sides": [f"exactly {', '.join(self.sides)}"]},
            )

    def check_start(self, index: int, sides: Mapping[str, str]) -> dict[str, Any]:
        """The step, if its game may start now with these sides (raises otherwise)."""
        step = self._check_turn(index)
        if step["status"] == STARTED:
            raise Conflict("the step's game has started", {"step": [f"game {step['game_id']}"]})
        if not step["scenario"]:
            raise Unprocessable("an off-line step has no game to start", {"step": ["off-line"]})
        self._check_sides(sides)
        return step

    def start_step(self, index: int, game_id: str, sides: Mapping[str, str]) -> None:
        self.check_start(index, sides)
        self.trigger_event(self.StepStarted, step=index, game_id=game_id, sides=dict(sides))

    def points_for(self, winner: str | None, level: str) -> dict[str, int]:
        """Campaign points per side: ``draw`` for each side, or the winner's level; a win at a
        level the table does not name (a rules module's own, a resignation, a loss on time)
        scores as ``victory``."""
        if winner is None:
            return dict.fromkeys(self.sides, int(self.scoring.get(DRAW, 0)))
        points = dict.fromkeys(self.sides, 0)
        points[winner] = int(self.scoring.get(level, self.scoring.get(VICTORY, 0)))
        return points

    def score_step(
        self,
        index: int,
        *,
        sides: Mapping[str, str],
        winner: str | None,
        level: str,
        source: str,
    ) -> None:
        step = self._check_turn(index)
        if source != "game" and step["status"] == STARTED:
            raise Conflict(
                "the step's game is played online; its end scores it", {"step": ["online game"]}
            )
        self._check_sides(sides)
        if winner is not None and winner not in self.sides:
            raise Unprocessable(f"no side {winner!r}", {"winner": [", ".join(self.sides)]})
        if source != "game" and level not in self.scoring and winner is not None:
            raise Unprocessable(
                f"no victory level {level!r} in the scoring table",
                {"level": [f"one of {', '.join(self.scoring)}"]},
            )
        self.trigger_event(
            self.StepScored,
            step=index,
            sides=dict(sides),
            winner=winner,
            level=level,
            points=self.points_for(winner, level),
            source=source,
        )

    def add_note(self, index: int, text: str, by: str) -> None:
        self._step(index)
        if not 1 <= len(text.strip()) <= 2000:
            raise Invalid("a note is 1 to 2000 characters", {"text": ["1 to 2000 characters"]})
        self.trigger_event(self.NoteAdded, step=index, text=text.strip(), by=by)

    # -- standings ----------------------------------------------------------------------------------
    def standings(self) -> dict[str, Any]:
        sides = {side: 0 for side in self.sides}
        players: dict[str, dict[str, Any]] = {}
        for step in self.steps:
            result = step["result"]
            if result is None:
                continue
            for side, user in step["sides"].items():
                points = result["points"].get(side, 0)
                sides[side] += points
                row = players.setdefault(user, {"user": user, "points": 0, "steps": 0, "wins": 0})
                row["points"] += points
                row["steps"] += 1
                row["wins"] += int(result["winner"] == side)
        ranked = sorted(players.values(), key=lambda r: (-r["points"], -r["wins"], r["user"]))
        return {"sides": sides, "players": ranked}
