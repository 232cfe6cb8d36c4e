"""The Bizkaya rules system (see docs/rules/bizkaya.md): the contract over this package -- the core
hooks it needs and its declared capabilities (drawing, previews, scenario checks)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from service.rules.actions import Actions
from service.rules.base import InvalidCommand, RuleViolation, State
from service.rules.bizkaya import barrage, battle, board, combat, legal, setup, tables
from service.rules.bizkaya import luck as bizkaya_luck
from service.rules.bizkaya.commands import COMMANDS
from service.rules.bizkaya.events import EVENTS
from service.rules.bizkaya.rulebook import OPTIONS, RULEBOOK
from service.rules.bizkaya.sequence import acting_side
from service.rules.hexgame import (
    HexCustomScenarios,
    HexDrawing,
    HexRulesSystem,
    HexScenarioChecks,
)
from service.rules.scenario import Scenario

TABLES = ("crt", "intensity", "barrage", "weather")


def all_tables() -> dict[str, Any]:
    """The game's tables as data, each with whether it is a placeholder."""
    out: dict[str, Any] = {}
    for name in TABLES:
        data = tables.table(name)
        out[name] = {
            "columns": list(data["columns"]),
            "rows": [{"roll": r["roll"], "results": list(r["results"])} for r in data["rows"]],
            "placeholder": any(
                p.place.startswith(f"tables/{name}.json") for p in tables.placeholders()
            ),
        }
    out["crt_results"] = {k: v["text"] for k, v in tables.table("crt")["results"].items()}
    out["barrage_results"] = {k: v["text"] for k, v in tables.table("barrage")["results"].items()}
    out["terrain"] = tables.terrain()
    out["game"] = tables.game()
    out["placeholders"] = [p.as_dict() for p in tables.placeholders()]
    out["sequence"] = tables.table("sequence")  # 2: the steps, with the phase ids ``phase`` reports
    return out


class BizkayaPreviews:
    commands = frozenset({"attack", "barrage"})

    """What an attack or a barrage would meet, before it is sent (no dice)."""

    def combat_preview(self, situation: Mapping[str, Any]) -> dict[str, Any]:
        """An attack situation (see :mod:`combat`) or ``{"kind": "barrage", "factors", ...}``."""
        if not isinstance(situation, Mapping):
            raise InvalidCommand(
                "the situation must be an object", {"situation": ["not an object"]}
            )
        if situation.get("kind") == "barrage":
            return combat.assess_barrage(situation)
        return combat.assess(situation)

    def preview(self, state: State, side: str, command: Mapping[str, Any]) -> dict[str, Any]:
        """An attack's ratio, leaders and modifiers, or a barrage's column and modifiers, on the
        board as it is."""
        spec, loaded = COMMANDS.parse(state, command)
        if spec.type == "barrage":
            return barrage.check(state, side, loaded)
        if spec.type != "attack":
            raise InvalidCommand(
                "only attacks and barrages are previewed", {"type": ["attack or barrage"]}
            )
        hex_ = loaded["hex"]
        units = [state["units"][u] for u in loaded["units"]]
        eligible = {u["id"] for u in battle.attackers_for(state, side, hex_)}
        for u in units:
            if u["id"] not in eligible:
                raise RuleViolation("13", battle._why_not(state, side, u, hex_), "units")
        if not board.first_echelon(state, hex_):
            raise RuleViolation("13", f"no enemy combat unit in the first echelon of {hex_}", "hex")
        out = combat.evaluate(battle.situation(state, side, hex_, units, {}))
        out["cost"] = board.attack_cost(state, hex_)
        out["entrenched"] = battle.entrenched(state, hex_, sorted({u["hex"] for u in units}))
        out["bilbao_roll"] = side == "nationalist" and hex_ in state["special"]["bilbao_roll_hexes"]
        return out


def unit_values(index: int, unit: dict[str, Any]) -> list[dict[str, str]]:
    """17: a unit's type, and the values its type needs (numbers >= 0)."""
    kind = unit.get("type")
    if kind not in setup.UNIT_TYPES:
        message = f"must be one of {', '.join(setup.UNIT_TYPES)}"
        return [{"level": "error", "place": f"units[{index}].type", "message": message}]
    needed = ("attack", "defence", "morale") if kind in setup.COMBAT_TYPES else ("barrage",)
    values = unit.get("values") or {}
    return [
        {
            "level": "error",
            "place": f"units[{index}].values.{name}",
            "message": "a number >= 0 is required",
        }
        for name in needed
        if type(values.get(name)) not in (int, float) or values[name] < 0
    ]


class BizkayaScenarioChecks(HexScenarioChecks):
    """The shared checks, plus the module's tables: their placeholders and any disagreement with
    the rulebook's worked examples."""

    def check_scenario_file(self, path: str) -> list[dict[str, str]]:
        report = super().check_scenario_file(path)
        report += [
            {"level": "warning", "place": p.place, "message": f"placeholder: {p.note}"}
            for p in tables.placeholders()
        ]
        return report + tables.example_problems()


class BizkayaRules(HexRulesSystem):
    name = "bizkaya"
    title = "Bizkaya - The Spring 1937 Nationalist Offensive"
    document = "bizkaya"

    commands = COMMANDS
    events = EVENTS
    hidden_information = False  # every counter is in view: no event reveals anything
    previews = BizkayaPreviews()
    review = bizkaya_luck.BizkayaReview()  # luck of each combat die, steps lost (issue 31)
    scenario_checks = BizkayaScenarioChecks(unit_values)
    custom_scenarios = HexCustomScenarios(  # a club's own scenario (docs/scenario-library.md)
        "bizkaya", lambda scen, options: setup.build_state(scen, dict(options)), OPTIONS
    )
    rulebook = RULEBOOK
    declared_options = OPTIONS  # readings clubs differ on (rulebook.py's conflicts)

    def __init__(self) -> None:
        self.drawing = HexDrawing(self.scenario_map, all_tables)

    def scenario_ids(self) -> list[str]:
        return setup.scenario_ids()

    def load_scenario(self, scenario: str) -> Scenario:
        return setup.load(scenario)

    def acting_side(self, state: State) -> str | None:
        return acting_side(state)

    def initial_state(self, scenario: str, options: Mapping[str, Any]) -> State:
        return setup.build_state(setup.load(scenario), dict(options))

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

    def actions(self, state: State, side: str) -> Actions:
        return legal.actions(state, side)
