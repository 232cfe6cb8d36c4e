"""The Closing the Merida Pocket rules system (see docs/rules/merida.md)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from service.rules.base import Dice, Governing, RulesEvent, RulesSystem, ScenarioInfo, State
from service.rules.kernel.layout import board_json
from service.rules.merida import board, combat, commands, data, knowledge, setup
from service.rules.merida.events import apply_event
from service.rules.merida.legal import legal_actions
from service.rules.merida.preview import preview_attack
from service.rules.merida.sequence import acting_side, enter_first_turn
from service.rules.scenario import check_file
from service.rules.scenario.placeholders import unwrap


class MeridaRules(RulesSystem):
    name = "merida"
    title = "Closing the Merida Pocket - Extremadura, 1938"
    document = "merida"

    def scenarios(self) -> list[ScenarioInfo]:
        return [setup.load(path.stem).info() for path in sorted(setup.SCENARIO_DIR.glob("*.json"))]

    def default_options(self, scenario: str) -> dict[str, Any]:
        return setup.load(scenario).default_options()

    def initial_state(self, scenario: str, options: Mapping[str, Any]) -> State:
        return enter_first_turn(setup.build_state(setup.load(scenario), options))

    def sides(self, state: State) -> list[str]:
        return list(board.SIDES)

    def active_sides(self, state: State) -> list[str]:
        side = acting_side(state)
        return [side] if side else []

    def phase(self, state: State) -> dict[str, Any]:
        return {
            "turn": state["turn"],
            "phase": state["phase"],
            "side": state["side"],
            "acting": acting_side(state),
        }

    def legal_actions(self, state: State, side: str) -> list[dict[str, Any]]:
        return legal_actions(state, side)

    def decide(
        self, state: State, side: str, command: Mapping[str, Any], dice: Dice
    ) -> list[RulesEvent]:
        return commands.decide(state, side, command, dice)

    def apply(self, state: State, event: RulesEvent) -> State:
        return apply_event(state, event)

    def result(self, state: State) -> dict[str, Any] | None:
        return state["result"]

    def governing(self, event_type: str) -> Governing:
        return knowledge.governing(event_type)

    def event_facts(self, event: RulesEvent, state_before: State) -> list[str]:
        return knowledge.event_facts(event, state_before)

    def describe(self, event: RulesEvent) -> str:
        return knowledge.describe(event)

    def board(self, scenario: str) -> dict[str, Any]:
        return board_json(setup.load(scenario).map)

    def tables(self) -> dict[str, Any]:
        crt = data.load("crt")
        return {
            "crt": {
                "columns": list(crt["columns"]),
                "rows": [{"roll": r["roll"], "results": list(r["results"])} for r in crt["rows"]],
            },
            "crt_results": {k: v["text"] for k, v in crt["results"].items()},
            "tec": data.load("tec")["terrain"],
            "movement": data.load("movement")["allowances"],
            "victory_points": data.load("victory")["points"],
            "victory_levels": data.load("victory")["levels"],
            "air": data.load("air")["availability"],
        }

    def preview(self, state: State, side: str, command: Mapping[str, Any]) -> dict[str, Any]:
        """An attack's strengths, odds column and die modifiers with their rules (rule 8)."""
        return preview_attack(state, side, command)

    def combat_preview(self, situation: Mapping[str, Any]) -> dict[str, Any]:
        return combat.assess(situation)

    def check_scenario_file(self, path: str) -> list[dict[str, str]]:
        """The scenario format's problems and placeholders, plus this game's own: unit types it
        knows and a combat strength (leaders: the value they add) for every unit."""
        report = check_file(path)
        try:
            raw, _ = unwrap(json.loads(Path(path).read_text(encoding="utf-8")))
        except (OSError, ValueError):
            return report
        units = raw.get("units") if isinstance(raw, dict) else None
        for index, unit in enumerate(units if isinstance(units, list) else []):
            if not isinstance(unit, dict):
                continue
            if unit.get("type") not in combat.UNIT_TYPES:
                report.append(
                    {
                        "level": "error",
                        "place": f"units[{index}].type",
                        "message": f"must be one of {', '.join(combat.UNIT_TYPES)}",
                    }
                )
            strength = (unit.get("values") or {}).get("strength")
            if isinstance(strength, bool) or not isinstance(strength, int | float) or strength < 0:
                report.append(
                    {
                        "level": "error",
                        "place": f"units[{index}].values.strength",
                        "message": "a combat strength >= 0 is required",
                    }
                )
        return report
