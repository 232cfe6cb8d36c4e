"""Scenarios (18): loading the scenario files into the initial state."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from service.rules.backbone.data_files import DATA_DIR, load
from service.rules.backbone.rulebook import OPTIONS
from service.rules.base import ScenarioError, ScenarioInfo
from service.rules.scenario import Scenario, load_scenario_file

SCENARIO_DIR = DATA_DIR / "scenarios"
SCENARIOS = ("scenario-1", "scenario-2")


def scenario(scenario_id: str) -> Scenario:
    if scenario_id not in SCENARIOS:
        raise ScenarioError(
            f"unknown scenario {scenario_id!r}", {"scenario": [f"one of {list(SCENARIOS)}"]}
        )
    return load_scenario_file(scenario_path(scenario_id), "backbone", OPTIONS)


def infos() -> list[ScenarioInfo]:
    return [scenario(s).info() for s in SCENARIOS]


def initial_state(scenario_id: str, options: Mapping[str, Any]) -> dict[str, Any]:
    """The state before deployment's first command (8.1, 18)."""
    scen = scenario(scenario_id)
    return build_state(scen, scen.options_with(options))


def build_state(scen: Scenario, opts: Mapping[str, Any]) -> dict[str, Any]:
    """The state before deployment's first command (8.1, 18) of a loaded scenario: a shipped one,
    or a club's own in the scenario format (``custom_scenarios``), with its options in full."""
    extra = scen.data["units"]
    units: dict[str, dict[str, Any]] = {}
    for seq, spec in enumerate(scen.units.values(), start=1):
        values = spec.values
        units[spec.id] = {
            "id": spec.id,
            "name": spec.name,
            "side": spec.side,
            "type": spec.type,
            "nation": extra[spec.id]["nation"],
            "formation": extra[spec.id]["formation"],
            "attack": int(values.get("attack", 0)),
            "defense": int(values.get("defense", 0)),
            "support": int(values.get("support", 0)),
            "mp": int(values.get("mp", 0)),
            "efficiency": int(values.get("efficiency", 1)),
            "steps": spec.steps,
            # a unit that starts reduced (the Larache example's 2nd Ter Leg) has its full strength
            # in data.units.<id>.full_steps
            "max_steps": int(extra[spec.id].get("full_steps", spec.steps)),
            "hex": spec.hex,
            "seq": seq,
            "status": "map" if spec.hex else "pending",
            "supplied": True,
            "battalion": bool(extra[spec.id].get("battalion")),
        }
    for r in scen.reinforcements:
        if r.turn == 1 and r.entry == "fleet":
            units[r.unit]["status"] = "afloat"  # 18.1: the British I CE starts afloat
    if opts.get("paratrooper_assault"):
        # 18.1 optional: the 1st Parachute Brigade fights as three battalions, ready in Algeria
        units["uk-1parabde"]["status"] = "unused"
        for spec in scen.data.get("para_battalions", []):
            units[spec["id"]] = {
                **spec,
                "side": "allied",
                "type": "paratroop",
                "nation": "uk",
                "formation": "I CE",
                "support": 0,
                "max_steps": spec["steps"],
                "hex": None,
                "seq": 0,
                "status": "ready",
                "supplied": True,
                "battalion": True,
            }
    chits = load("events")["chits"]
    data = dict(scen.data)
    data.pop("units")
    return {
        "scenario": scen.id,
        "options": dict(opts),
        "map": scen.map.to_dict(),
        "data": data,
        "turn": 1,
        "step": "deployment",
        "seq": len(units),
        "units": units,
        "reinforcements": [
            {"turn": r.turn, "unit": r.unit, "hexes": list(r.hexes), "entry": r.entry}
            for r in scen.reinforcements
            if not (r.turn == 1 and r.entry == "fleet")
        ],
        "weather": "good",
        "strait": {"open": False, "turn": None},
        "air": dict(data["air_points"]),
        "naval": {"points": 0, "used_coasts": []},
        "control": {},
        "fortifications": {},
        "beachhead": None,
        "landing": {"done": False, "failed": False},
        "events": {
            "cups": {side: [c["id"] for c in chits[side]] for side in ("allied", "spanish")},
            "hands": {"allied": [], "spanish": []},
            "in_force": [],
            "played": [],
        },
        "combat": None,
        "attacked_units": [],
        "attacked_hexes": [],
        "corps_attacked": [],
        "hq_used": {},
        "moved": [],
        "exploiters": [],
        "exploit_target": None,
        "supply_links": [],
        "played_this_turn": [],
        "initiative": "allied",
        "replacements": {},
        "end_votes": {},
        "result": None,
    }


def scenario_path(scenario_id: str) -> Path:
    return SCENARIO_DIR / f"{scenario_id}.json"
