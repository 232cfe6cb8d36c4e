"""The Back to Barcelona rules system (see docs/rules/barcelona.md)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from service.rules.barcelona import commands, data, fog, knowledge, legal, sequence, setup, shooting
from service.rules.barcelona import table as tb
from service.rules.barcelona.events import apply_event
from service.rules.barcelona.preview import situation_preview
from service.rules.base import Dice, Governing, RulesEvent, RulesSystem, ScenarioInfo, State


class BarcelonaRules(RulesSystem):
    name = "barcelona"
    title = "Back to Barcelona - Spanish Civil War miniatures"
    document = "barcelona"

    def scenarios(self) -> list[ScenarioInfo]:
        return [setup.info(s) for s in data.scenario_ids()]

    def default_options(self, scenario: str) -> dict[str, Any]:
        return setup.default_options(scenario)

    def initial_state(self, scenario: str, options: Mapping[str, Any]) -> State:
        return setup.initial_state(scenario, options)

    def sides(self, state: State) -> list[str]:
        return list(state["sides"])

    def active_sides(self, state: State) -> list[str]:
        return sequence.acting(state)

    def phase(self, state: State) -> dict[str, Any]:
        return {
            "turn": state["turn"],
            "phase": state["phase"],
            "step": state["step"],
            "side": state["mover"] if state["phase"] in ("deployment", "movement") else None,
            "acting": sequence.acting(state),
        }

    def legal_actions(self, state: State, side: str) -> list[dict[str, Any]]:
        return legal.legal_actions(state, side)

    def decide(
        self, state: State, side: str, command: Mapping[str, Any], dice: Dice
    ) -> list[RulesEvent]:
        return commands.decide(state, side, command, dice)

    def apply(self, state: State, event: RulesEvent) -> State:
        return apply_event(state, event)

    def result(self, state: State) -> dict[str, Any] | None:
        return state["result"]  # type: ignore[no-any-return]

    def view(self, state: State, side: str | None) -> State:
        return fog.view(state, side)

    def event_view(self, event: RulesEvent, state_before: State, side: str | None) -> RulesEvent:
        return fog.event_view(event, side)

    def reveals(self, event: RulesEvent) -> bool:
        return fog.reveals(event)

    def governing(self, event_type: str) -> Governing:
        return knowledge.governing(event_type)

    def event_facts(self, event: RulesEvent, state_before: State) -> list[str]:
        return knowledge.event_facts(event, state_before)

    def describe(self, event: RulesEvent) -> str:
        return knowledge.describe(event)

    def board(self, scenario: str) -> dict[str, Any]:
        raw = setup.load(scenario)
        return {
            "kind": "table",
            "units": "inches",
            "width": raw["table"]["width"],
            "height": raw["table"]["height"],
            "areas": [dict(a) for a in raw["areas"]],
            "deployment": dict(raw["deployment"]),
            "entries": dict(raw["entries"]),
            "placeholder": raw["placeholder"],
        }

    def counters(self, state: State) -> list[dict[str, Any]]:
        out = []
        for u in sorted(tb.on_table(state), key=lambda x: x["id"]):
            out.append(
                {
                    "id": u["id"],
                    "side": u["side"],
                    "x": u["x"],
                    "y": u["y"],
                    "facing": u["facing"],
                    "type": u["kind"],
                    "name": u["name"],
                    "values": {
                        "figures": u["figures"],
                        "morale": u["morale"],
                        "failures": u["failures"],
                    },
                    "figures": [[round(x, 2), round(y, 2)] for x, y in tb.figures_of(u)],
                    "steps": u["figures"],
                    "max_steps": None,
                }
            )
        return out

    def tables(self) -> dict[str, Any]:
        return {
            "weapons": data.load("weapons"),
            "afvs": data.load("afvs"),
            "movement": data.load("movement"),
            "troop_types": data.load("troops")["troop_types"],
            "attribute_costs": data.load("troops")["attribute_costs"],
            "column": data.load("column"),
            "morale": data.load("morale"),
            "shooting_order": list(shooting.STEPS),
            "placeholders": data.load("house"),
        }

    def preview(self, state: State, side: str, command: Mapping[str, Any]) -> dict[str, Any]:
        return shooting.preview(state, side, command)

    def combat_preview(self, situation: Mapping[str, Any]) -> dict[str, Any]:
        return situation_preview(situation)
