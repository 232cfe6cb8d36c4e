"""A minimal rules system for the storage benchmarks: every command moves a unit along a path and
rolls one die, so events carry a realistic payload (a path, a cost, a roll) while the rules cost
next to nothing -- the figures measure the core, not a game."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from service.rules.actions import Actions, one_of
from service.rules.base import Dice, RulesEvent, RulesSystem, ScenarioInfo, State
from service.rules.declare import Commands, Events, Path, Unit


class TallyRefs:
    def unit(self, state: State, unit_id: str) -> bool:
        return unit_id in state["units"]

    def hex(self, state: State, hex_id: str) -> bool:
        return True


COMMANDS = Commands("bench-tally", refs=TallyRefs())
EVENTS = Events("bench-tally")


@COMMANDS.command("advance", unit=Unit(), path=Path())
def advance(state: State, side: str, command: Mapping[str, Any], dice: Dice) -> list[RulesEvent]:
    path = list(command["path"])
    roll = dice.roll(6, "tally")
    data = {
        "unit": command["unit"],
        "path": path,
        "cost": len(path),
        "roll": roll.value,
        "roll_index": roll.index,
    }
    return [RulesEvent("UnitMoved", data)]


@EVENTS.event(
    "UnitMoved",
    sections=("1",),
    words=lambda d, names: f"{names.unit(d['unit'])} moves {names.path(d['path'])}",
)
def _moved(state: State, data: dict[str, Any]) -> None:
    unit = state["units"][data["unit"]]
    unit["hex"] = data["path"][-1]
    unit["moves"] += 1
    state["rolled"] += data["roll"]


class Tally(RulesSystem):
    name = "bench-tally"
    title = "Benchmark tally"
    commands = COMMANDS
    events = EVENTS

    def scenarios(self) -> list[ScenarioInfo]:
        return [ScenarioInfo("race", self.name, "Race", ("a", "b"))]

    def initial_state(self, scenario: str, options: Mapping[str, Any]) -> State:
        return {"units": {f"u{i}": {"hex": "A1", "moves": 0} for i in range(20)}, "rolled": 0}

    def active_sides(self, state: State) -> list[str]:
        return ["a", "b"]

    def actions(self, state: State, side: str) -> Actions:
        return Actions(
            [
                COMMANDS.template(
                    "advance",
                    f"Advance {u}",
                    fixed={"unit": u},
                    choose={"path": one_of([["A1", "A2"]], ["A2"])},
                )
                for u in state["units"]
            ]
        )

    def result(self, state: State) -> dict[str, Any] | None:
        return None


SYSTEM = Tally()
