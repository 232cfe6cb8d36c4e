"""A minimal rules system for the storage benchmarks: every command moves a unit along a path and
rolls one die, so events carry a realistic payload (a path, a cost, a roll) while the rules cost
next to nothing -- the figures measure the core, not a game."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from service.rules.base import Dice, InvalidCommand, RulesEvent, RulesSystem, ScenarioInfo, State


class Tally(RulesSystem):
    name = "bench-tally"
    title = "Benchmark tally"

    def scenarios(self) -> list[ScenarioInfo]:
        return [ScenarioInfo("race", self.name, "Race", ("a", "b"))]

    def initial_state(self, scenario: str, options: Mapping[str, Any]) -> State:
        return {"units": {f"u{i}": {"hex": "A1", "moves": 0} for i in range(20)}, "rolled": 0}

    def sides(self, state: State) -> list[str]:
        return ["a", "b"]

    def active_sides(self, state: State) -> list[str]:
        return ["a", "b"]

    def legal_actions(self, state: State, side: str) -> list[dict[str, Any]]:
        return [{"type": "advance", "unit": u, "path": ["A1", "A2"]} for u in state["units"]]

    def decide(
        self, state: State, side: str, command: Mapping[str, Any], dice: Dice
    ) -> list[RulesEvent]:
        unit = command.get("unit")
        if unit not in state["units"]:
            raise InvalidCommand("unknown unit", {"unit": ["unknown unit"]})
        path = list(command.get("path") or [])
        roll = dice.roll(6, "tally")
        return [
            RulesEvent(
                "UnitMoved",
                {
                    "unit": unit,
                    "path": path,
                    "cost": len(path),
                    "roll": roll.value,
                    "roll_index": roll.index,
                },
            )
        ]

    def apply(self, state: State, event: RulesEvent) -> State:
        unit = state["units"][event.data["unit"]]
        unit["hex"] = event.data["path"][-1] if event.data["path"] else unit["hex"]
        unit["moves"] += 1
        state["rolled"] += event.data["roll"]
        return state

    def result(self, state: State) -> dict[str, Any] | None:
        return None


SYSTEM = Tally()
