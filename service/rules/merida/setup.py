"""Rule 12: the state before the first command, built from a scenario of the documented format
(docs/scenario-format.md).  The shipped scenario is ``scenarios/merida-1938.json``."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from service.rules.base import ScenarioError, State
from service.rules.merida.combat import UNIT_TYPES
from service.rules.merida.rulebook import OPTIONS
from service.rules.scenario import Scenario, load_scenario_file

SCENARIO_DIR = Path(__file__).parent / "scenarios"


def scenario_path(scenario_id: str) -> Path:
    path = SCENARIO_DIR / f"{scenario_id}.json"
    if not path.is_file():
        known = scenario_ids()
        raise ScenarioError(f"unknown scenario {scenario_id!r}", {"scenario": [f"known: {known}"]})
    return path


def load(scenario_id: str) -> Scenario:
    return load_scenario_file(scenario_path(scenario_id), "merida", OPTIONS)


def scenario_ids() -> list[str]:
    return sorted(p.stem for p in SCENARIO_DIR.glob("*.json"))


def unit_check(index: int, unit: dict[str, Any]) -> list[dict[str, str]]:
    """This game's own check of a scenario's unit entry: a unit type it knows and a combat strength
    (leaders: the value they add) for every unit."""
    report = []
    if unit.get("type") not in UNIT_TYPES:
        report.append(
            {
                "level": "error",
                "place": f"units[{index}].type",
                "message": f"must be one of {', '.join(UNIT_TYPES)}",
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


def _unit(spec: Any, formations: Mapping[str, str]) -> dict[str, Any]:
    return {
        "id": spec.id,
        "name": spec.name or spec.id,
        "side": spec.side,
        "type": spec.type,
        "strength": spec.values.get("strength", 0),
        "formation": formations.get(spec.id, spec.id),
        "hex": spec.hex,
        "status": "map" if spec.hex is not None else "waiting",
        "out_of_supply": False,
        "out_of_command": False,
        "moved": False,
        "strategic": False,
        "attacked": False,
        "defended": False,
        "stay_with": None,
    }


def build_state(scenario: Scenario, options: Mapping[str, Any]) -> State:
    data = scenario.data
    units = {spec.id: _unit(spec, data.get("formations", {})) for spec in scenario.units.values()}
    for unit in units.values():  # note to the Set up table: stay with the leader on turn 1
        if unit["type"] == "leader" or unit["hex"] is None:
            continue
        for leader in units.values():
            if leader["type"] == "leader" and leader["hex"] == unit["hex"]:
                unit["stay_with"] = leader["id"]
    allowance = data.get("overstack_allowance", {})
    arrivals = [
        {"turn": r.turn, "unit": r.unit, "hexes": list(r.hexes)} for r in scenario.reinforcements
    ]
    return {
        "scenario": scenario.id,
        "options": scenario.options_with(options),
        "map": scenario.map.to_dict(),
        "last_turn": scenario.turns,
        "turn": 1,
        "side": "republican",
        "phase": "deployment",
        "units": units,
        "arrivals": arrivals,
        "removals": list(data.get("removals", [])),
        "returns": list(data.get("returns", [])),
        "leader_change": data.get("leader_change"),
        "deployment": {
            "units": {i: units[i]["hex"] for i in allowance.get("units", [])},
            "within": allowance.get("within", 1),
        },
        "initial_control": dict(data.get("initial_control", {})),
        "control": {},
        "pending_removals": [],
        "air": {side: {"shot_down": {}, "used": {}} for side in scenario.sides},
        "air_allocations": [],
        "rail_used": False,
        "overruns": [],
        "must_attack": [],
        "must_be_attacked": [],
        "advance": None,
        "pending": [],  # decisions the rules leave to a unit's owner (decisions.py, issue 19)
        "combat": None,
        "vp_adjustments": {side: 0 for side in scenario.sides},
        "result": None,
    }
