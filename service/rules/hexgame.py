"""What the hex games (Merida, Backbone, Bizkaya) share over the core contract.

A hex game keeps its scenario's map in ``state["map"]`` and its units in ``state["units"]`` (each
with ``side``, ``hex``, ``name``, ``type``), has one acting side at a time and ends with
``state["result"]``.  :class:`HexRulesSystem` fills the core hooks those facts answer, references
for the declared commands (a unit of the game, a hex of its map), printed names (a hex by the place
standing on it), and the drawing of board and counters; a game adds its scenarios, phases, actions,
declarations and tables.
"""

from __future__ import annotations

import json
from abc import abstractmethod
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from service.rules.base import Names, RulesEvent, RulesSystem, ScenarioInfo, State
from service.rules.kernel.layout import board_json
from service.rules.kernel.mapdata import MapData, cached_map
from service.rules.luck import RollValue
from service.rules.scenario import (
    Scenario,
    check_file,
    documents,
    load_scenario,
    load_scenario_file,
)
from service.rules.scenario.placeholders import unwrap


def map_of(state: State) -> MapData:
    """The state's map (the rules never change it), built once per map (see ``cached_map``)."""
    return cached_map(state["map"])


class HexRefs:
    """Command references in a hex game: a unit of ``state["units"]``, a hex of the map."""

    def unit(self, state: State, unit_id: str) -> bool:
        return unit_id in state["units"]

    def hex(self, state: State, hex_id: str) -> bool:
        return map_of(state).grid.in_bounds(hex_id)


class HexNames(Names):
    """Units by printed name; hexes by the place standing there (``Merida (J7)``)."""

    def hex(self, hex_id: str) -> str:
        places = map_of(self.state).places_at(hex_id) if "map" in self.state else []
        return f"{places[0].shown} ({hex_id})" if places else str(hex_id)


def counters(state: State) -> list[dict[str, Any]]:
    """The pieces to draw from a (viewed) state: ``state["units"]`` entries that stand on a hex,
    their numeric fields (not flags) as values."""
    skip = {"steps", "max_steps"}
    return [
        {
            "id": uid,
            "side": unit.get("side"),
            "hex": unit["hex"],
            "type": unit.get("type", ""),
            "name": unit.get("name", uid),
            "values": {k: v for k, v in unit.items() if type(v) in (int, float) and k not in skip},
            "steps": unit.get("steps"),
            "max_steps": unit.get("max_steps"),
        }
        for uid, unit in (state.get("units") or {}).items()
        if unit.get("hex")
    ]


class HexDrawing:
    """The drawing capability of a hex game: its scenario's board, counters, its tables."""

    def __init__(
        self,
        scenario_map: Callable[[str], MapData],
        tables: Callable[[], dict[str, Any]],
        pieces: Callable[[State], list[dict[str, Any]]] = counters,
    ) -> None:
        self._map = scenario_map
        self._tables = tables
        self._pieces = pieces

    def board(self, scenario: str) -> dict[str, Any]:
        return board_json(self._map(scenario))

    def counters(self, state: State) -> list[dict[str, Any]]:
        return self._pieces(state)

    def tables(self) -> dict[str, Any]:
        return self._tables()


UnitCheck = Callable[[int, dict[str, Any]], list[dict[str, str]]]
#: a game's check of a whole loaded scenario: what its data makes impossible under the rules
#: (a reinforcement that can never enter, a unit that can never be supplied), each problem
#: ``{"level": "error", "place", "message"}`` with the rule named in the message
ScenarioCheck = Callable[[Scenario], list[dict[str, str]]]


class HexScenarioChecks:
    """The scenario format's problems and placeholders (one code path: ``scenario.check_file``),
    plus a game's own check of each unit entry and, once the file loads without an error, of the
    whole scenario against its rules."""

    def __init__(
        self, unit_check: UnitCheck | None = None, scenario_check: ScenarioCheck | None = None
    ) -> None:
        self._unit_check = unit_check
        self._scenario_check = scenario_check

    def check_scenario_file(self, path: str) -> list[dict[str, str]]:
        report = check_file(path)
        if self._unit_check is not None:
            report.extend(self._unit_problems(path))
        if self._scenario_check is not None and not any(r["level"] == "error" for r in report):
            report.extend(self._scenario_check(load_scenario_file(path)))
        return report

    def _unit_problems(self, path: str) -> list[dict[str, str]]:
        assert self._unit_check is not None
        try:
            raw, _ = unwrap(json.loads(Path(path).read_text(encoding="utf-8")))
            units = [dict(unit) for unit in raw["units"]]
        except (OSError, ValueError, TypeError, KeyError, AttributeError):
            return []  # the format's own checks report a file that is not a scenario
        found: list[dict[str, str]] = []
        for index, unit in enumerate(units):
            found.extend(self._unit_check(index, unit))
        return found


class HexCustomScenarios:
    """Games from a club's scenario document in the scenario format: loaded (every problem raises
    ScenarioError) and built into the state before the first command by the game's own ``build``
    (the same one its shipped scenarios go through)."""

    def __init__(
        self,
        system: str,
        build: Callable[[Scenario, Mapping[str, Any]], State],
        declared: Mapping[str, Mapping[str, Any]] | None = None,
        as_drawn: Callable[[dict[str, Any]], dict[str, Any]] | None = None,
    ) -> None:
        """``as_drawn``: how this game turns a drawn map to its printed one (Backbone's labels
        are printed row,column); None: drawn as it is."""
        self._system = system
        self._build = build
        self._declared = dict(declared or {})  # the rules module's own options (declared_options)
        self._as_drawn = as_drawn

    def default_options_from(self, document: Mapping[str, Any]) -> dict[str, Any]:
        return dict(load_scenario(dict(document), self._system, self._declared).default_options())

    def initial_state_from(self, document: Mapping[str, Any], options: Mapping[str, Any]) -> State:
        scenario = load_scenario(dict(document), self._system, self._declared)
        return self._build(scenario, scenario.options_with(options))

    # -- the document in a hex game's terms (service.rules.scenario.documents)
    def blank_document(self, spec: Mapping[str, Any]) -> dict[str, Any]:
        return documents.blank(self._system, spec)

    def drawn(self, document: Mapping[str, Any]) -> dict[str, Any]:
        drawn = documents.board(document)
        return self._as_drawn(drawn) if self._as_drawn is not None else drawn

    def changes(self, old: Mapping[str, Any], new: Mapping[str, Any]) -> list[str]:
        return documents.changed(old, new)

    def place_of(self, field: str, document: Mapping[str, Any]) -> str:
        return documents.place_of(field, document)


class HexReview:
    """The review's measures of a hex game (capability ``review``, issue 31): no roll valued
    unless a game says (``roll_values``), losses counted on the units."""

    def roll_values(self, event: RulesEvent, state_before: State) -> list[RollValue]:
        return []

    def tally(self, state: State) -> dict[str, dict[str, float]]:
        """Each side's losses so far, counted on its units: steps lost (``max_steps - steps``, all
        of them for an eliminated unit) where units have steps, else units eliminated."""
        out: dict[str, dict[str, float]] = {}
        for unit in (state.get("units") or {}).values():
            lost = out.setdefault(str(unit.get("side")), {"losses": 0.0})
            gone = unit.get("status") == "eliminated"
            if "max_steps" in unit and "steps" in unit:
                lost["losses"] += unit["max_steps"] if gone else unit["max_steps"] - unit["steps"]
            elif gone:
                lost["losses"] += 1
        return out


class HexRulesSystem(RulesSystem):
    """A hex game: one acting side at a time, units on a map, ``state["result"]`` at the end."""

    @abstractmethod
    def acting_side(self, state: State) -> str | None:
        """The side that acts now, or ``None`` when the game is over."""

    @abstractmethod
    def scenario_ids(self) -> list[str]: ...

    @abstractmethod
    def load_scenario(self, scenario: str) -> Any:
        """The loaded scenario: ``.info()``, ``.default_options()``, ``.map`` (a MapData)."""

    def scenarios(self) -> list[ScenarioInfo]:
        return [self.load_scenario(s).info() for s in self.scenario_ids()]

    def default_options(self, scenario: str) -> dict[str, Any]:
        return dict(self.load_scenario(scenario).default_options())

    def active_sides(self, state: State) -> list[str]:
        side = self.acting_side(state)
        return [side] if side else []

    def result(self, state: State) -> dict[str, Any] | None:
        result: dict[str, Any] | None = state.get("result")
        return result

    def names(self, state: State | None) -> Names:
        return HexNames(state)

    def scenario_map(self, scenario: str) -> MapData:
        mapdata: MapData = self.load_scenario(scenario).map
        return mapdata
