"""The Bizkaya rules system (see docs/rules/bizkaya.md): the contract over this package."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from service.rules.base import (
    Dice,
    Governing,
    InvalidCommand,
    RulesEvent,
    RulesSystem,
    RuleViolation,
    ScenarioInfo,
    State,
)
from service.rules.bizkaya import barrage, battle, board, combat, commands, knowledge, setup, tables
from service.rules.bizkaya.apply import apply_event
from service.rules.bizkaya.legal import legal_actions
from service.rules.bizkaya.sequence import acting_side
from service.rules.kernel.layout import board_json
from service.rules.scenario import check_file
from service.rules.scenario.placeholders import unwrap


class BizkayaRules(RulesSystem):
    name = "bizkaya"
    title = "Bizkaya - The Spring 1937 Nationalist Offensive"
    document = "bizkaya"

    def scenarios(self) -> list[ScenarioInfo]:
        return [setup.load(s).info() for s in setup.scenario_ids()]

    def default_options(self, scenario: str) -> dict[str, Any]:
        return setup.load(scenario).default_options()

    def initial_state(self, scenario: str, options: Mapping[str, Any]) -> State:
        return setup.build_state(setup.load(scenario), dict(options))

    def sides(self, state: State) -> list[str]:
        return list(board.SIDES)

    def active_sides(self, state: State) -> list[str]:
        side = acting_side(state)
        return [side] if side else []

    def phase(self, state: State) -> dict[str, Any]:
        combat_state = state.get("combat")
        return {
            "turn": state["turn"],
            "turn_name": tables.game()["turn_names"][min(state["turn"], 12) - 1],
            "phase": state["phase"],
            "impulse": state["impulse"],
            "stage": combat_state["stage"] if combat_state else state["stage"],
            "side": state["side"],
            "acting": acting_side(state),
            "weather": state["weather"],
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

    def reveals(self, event: RulesEvent) -> bool:
        """Bizkaya has no hidden units or chits: every counter is in view, so no event reveals
        anything (dice are the core's own concern for takebacks)."""
        return False

    def governing(self, event_type: str) -> Governing:
        return knowledge.governing(event_type)

    def event_facts(self, event: RulesEvent, state_before: State) -> list[str]:
        return knowledge.event_facts(event, state_before)

    def describe(self, event: RulesEvent) -> str:
        return knowledge.describe(event)

    def board(self, scenario: str) -> dict[str, Any]:
        return board_json(setup.load(scenario).map)

    def tables(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for name in ("crt", "intensity", "barrage", "weather"):
            data = tables.table(name)
            out[name] = {
                "columns": list(data["columns"]),
                "rows": [{"roll": r["roll"], "results": list(r["results"])} for r in data["rows"]],
                "placeholder": any(
                    p.place.startswith(f"tables/{name}.json") for p in tables.placeholders()
                ),
            }
        out["crt_results"] = {k: v["text"] for k, v in tables.table("crt")["results"].items()}
        out["barrage_results"] = {
            k: v["text"] for k, v in tables.table("barrage")["results"].items()
        }
        out["terrain"] = tables.terrain()
        out["game"] = tables.game()
        out["placeholders"] = [p.as_dict() for p in tables.placeholders()]
        return out

    def combat_preview(self, situation: Mapping[str, Any]) -> dict[str, Any]:
        """An attack situation (see :mod:`combat`) or ``{"kind": "barrage", "factors", ...}``."""
        if isinstance(situation, Mapping) and situation.get("kind") == "barrage":
            return combat.assess_barrage(situation)
        return combat.assess(situation)

    def preview(self, state: State, side: str, command: Mapping[str, Any]) -> dict[str, Any]:
        """An attack's ratio, leaders and modifiers, or a barrage's column and modifiers, on the
        board as it is (no dice)."""
        kind = command.get("type") if isinstance(command, Mapping) else None
        if kind not in ("attack", "barrage"):
            raise InvalidCommand(
                "only attacks and barrages are previewed", {"type": ["attack or barrage"]}
            )
        commands.check_shape(state, command)
        if kind == "barrage":
            return barrage.check(state, side, command)
        hex_ = command["hex"]
        units = [state["units"][u] for u in command["units"]]
        eligible = {u["id"] for u in battle.attackers_for(state, side, hex_)}
        for u in units:
            if u["id"] not in eligible:
                raise RuleViolation("13", battle._why_not(state, side, u, hex_), "units")
        if not board.first_echelon(state, hex_):
            raise RuleViolation("13", f"no enemy combat unit in the first echelon of {hex_}", "hex")
        leaders = (
            {k: v for k, v in command.get("leaders", {}).items()}
            if isinstance(command.get("leaders"), Mapping)
            else {}
        )
        out = combat.assess(battle.situation(state, side, hex_, units, leaders))
        out["cost"] = board.attack_cost(state, hex_)
        out["entrenched"] = battle.entrenched(state, hex_, sorted({u["hex"] for u in units}))
        out["bilbao_roll"] = side == "nationalist" and hex_ in state["special"]["bilbao_roll_hexes"]
        return out

    def check_scenario_file(self, path: str) -> list[dict[str, str]]:
        """The scenario format's problems and placeholders, this game's unit values, and the
        module's tables: their placeholders and any disagreement with the worked examples."""
        report = check_file(path)
        try:
            raw, _ = unwrap(json.loads(Path(path).read_text(encoding="utf-8")))
        except (OSError, ValueError):
            return report
        units = raw.get("units") if isinstance(raw, dict) else None
        for index, unit in enumerate(units if isinstance(units, list) else []):
            if not isinstance(unit, dict):
                continue
            kind = unit.get("type")
            if kind not in setup.UNIT_TYPES:
                report.append(
                    {
                        "level": "error",
                        "place": f"units[{index}].type",
                        "message": f"must be one of {', '.join(setup.UNIT_TYPES)}",
                    }
                )
                continue
            needed = ("attack", "defence", "morale") if kind in setup.COMBAT_TYPES else ("barrage",)
            for name in needed:
                value = (unit.get("values") or {}).get(name)
                if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
                    report.append(
                        {
                            "level": "error",
                            "place": f"units[{index}].values.{name}",
                            "message": "a number >= 0 is required",
                        }
                    )
        report += [
            {"level": "warning", "place": p.place, "message": f"placeholder: {p.note}"}
            for p in tables.placeholders()
        ]
        report += tables.example_problems()
        return report
