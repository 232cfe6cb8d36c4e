"""Scenarios and the initial state: the orders of battle of 17 in the shared scenario format."""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

from service.rules.base import ScenarioError, State
from service.rules.bizkaya import tables
from service.rules.bizkaya.rulebook import OPTIONS
from service.rules.scenario import Scenario, load_scenario, load_scenario_file

SCENARIO_DIR = Path(__file__).parent / "scenarios"
COMBAT_TYPES = ("brigade", "battalion", "company")
ARTILLERY_TYPES = {
    "artillery-light": "light",
    "artillery-heavy": "heavy",
    "artillery-siege": "siege",
}
UNIT_TYPES = COMBAT_TYPES + tuple(ARTILLERY_TYPES)


@cache
def load(scenario: str) -> Scenario:
    path = SCENARIO_DIR / f"{scenario}.json"
    if not path.is_file():
        raise ScenarioError(f"unknown scenario {scenario!r}", {"scenario": ["unknown"]})
    return load_scenario_file(path, "bizkaya", OPTIONS)


def scenario_ids() -> list[str]:
    return sorted(p.stem for p in SCENARIO_DIR.glob("*.json"))


def _unit(spec: Any) -> dict[str, Any]:
    values = spec.values
    combat = spec.type in COMBAT_TYPES
    return {
        "id": spec.id,
        "side": spec.side,
        "name": spec.name or spec.id,
        "type": spec.type,
        "kind": "combat" if combat else "artillery",
        "art": None if combat else ARTILLERY_TYPES[spec.type],
        "attack": int(values.get("attack", 0)),
        "defence": int(values.get("defence", 0)),
        "morale": int(values.get("morale", 0)),
        "zoc": bool(values.get("zoc", 0)),
        "barrage": int(values.get("barrage", 0)),
        "max_steps": spec.steps,
        "steps": spec.steps,
        "hex": spec.hex,
        "status": "map" if spec.hex else "pending",
        "echelon": 1 if combat else 2,
        "demoralized": False,
        "euphoric": False,
        "reserve": False,
        "activated": False,
        "oos": False,
        "oos_turns": 0,
        "mp": 0,
        "spent": 0,
        "moved": False,
        "fought": False,
        "fired": False,
    }


def build_state(scenario: Scenario, options: dict[str, Any] | None = None) -> State:
    """The state before the first weather roll of turn 1 (3)."""
    chosen = scenario.options_with(options or {})
    units = {uid: _unit(spec) for uid, spec in scenario.units.items()}
    bad = {
        f"units.{u}.type": [f"must be one of {', '.join(UNIT_TYPES)}"]
        for u, s in scenario.units.items()
        if s.type not in UNIT_TYPES
    }
    if bad:
        raise ScenarioError("unknown unit types", bad)
    data = dict(scenario.data)
    game = tables.game()
    trenches = {
        h: {"side": "republican", "status": "complete", "unit": None}
        for h in data.get("initial_trenches", [])
    }
    control = {u["hex"]: u["side"] for u in units.values() if u["hex"]}
    for side, hexes in scenario.map.supply_sources.items():
        for h in hexes:
            control.setdefault(h, side)
    return {
        "scenario": scenario.id,
        "options": chosen,
        "map": scenario.map.to_dict(),
        "turns": scenario.turns,
        "turn": 1,
        "weather": data.get("initial_weather", "rainy"),
        "phase": "weather",
        "side": "nationalist",
        "impulse": 0,
        "stage": "move",
        "acted": False,
        "units": units,
        "reinforcements": [
            {"turn": r.turn, "unit": r.unit, "hex": r.hexes[0]} for r in scenario.reinforcements
        ],
        "reorganizations": list(data.get("reorganizations", [])),
        "leaders": {
            leader["id"]: {"name": leader["name"], "unit": None}
            for leader in data.get("leaders", [])
        },
        "trenches": trenches,
        "control": control,
        "attacked_hexes": [],
        "barraged": [],
        "air_used": 0,
        "combat": None,
        "special": {
            "bilbao_roll_hexes": list(data.get("bilbao_roll_hexes", game["bilbao"]["hexes"])),
            "bilbao": data.get("bilbao", game["victory"]["bilbao"]),
            "santander_limit": list(
                data.get("santander_limit", game["victory"]["santander_limit"])
            ),
        },
        "last_victory_check": None,
        "bilbao_fell": None,
        "withdrawal_done": False,
        "result": None,
    }


def state_from_raw(raw: dict[str, Any]) -> State:
    """A state from a scenario given as parsed JSON (tests, custom boards)."""
    return build_state(load_scenario(raw, "bizkaya", OPTIONS))
