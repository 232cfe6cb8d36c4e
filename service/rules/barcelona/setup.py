"""Scenarios: the table, its areas, deployment zones and entry points, and the initial state."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from service.rules.barcelona import data, forces
from service.rules.barcelona import geometry as geo
from service.rules.base import InvalidCommand, ScenarioError, ScenarioInfo, State
from service.rules.scenario.model import describe_options

EFFECTS = ("cover", "trench", "fortification", "defences", "bad_going", "road")


def load(scenario_id: str) -> dict[str, Any]:
    raw = data.scenario(scenario_id)
    if raw is None:
        raise ScenarioError(f"no scenario {scenario_id!r}", {"scenario": ["unknown scenario"]})
    return raw  # type: ignore[no-any-return]


def info(scenario_id: str) -> ScenarioInfo:
    raw = load(scenario_id)
    return ScenarioInfo(
        raw["id"],
        "barcelona",
        raw["title"],
        tuple(raw["sides"]),
        raw["description"],
        raw["placeholder"],
        tuple(describe_options(raw["options"])),
        ({"topic": "The table", "count": 1, "notes": [raw["description"]]},)
        if raw["placeholder"]
        else (),
    )


def default_options(scenario_id: str) -> dict[str, Any]:
    return {k: v["default"] for k, v in load(scenario_id)["options"].items()}


def check_areas(areas: list[dict[str, Any]], width: float, height: float) -> dict[str, list[str]]:
    problems: dict[str, list[str]] = {}
    for i, area in enumerate(areas):
        bad = [e for e in area.get("effects", []) if e not in EFFECTS]
        if bad:
            problems[f"areas[{i}].effects"] = [f"unknown effect {e}" for e in bad]
        if ("rect" in area) == ("polygon" in area):
            problems[f"areas[{i}]"] = ["give a rect [x, y, w, h] or a polygon [[x, y], ...]"]
            continue
        for point in geo.polygon(area):
            if not geo.on_table(point, width, height):
                problems.setdefault(f"areas[{i}]", []).append(f"{list(point)} is off the table")
    return problems


def initial_state(scenario_id: str, options: Mapping[str, Any]) -> State:
    return state_from(load(scenario_id), options)


def state_from(raw: Mapping[str, Any], options: Mapping[str, Any]) -> State:
    """The state before the first command from a scenario's data (a shipped file or a club's own
    scenario, docs/scenario-library.md)."""
    scenario_id = raw["id"]
    merged = {**{k: v["default"] for k, v in raw["options"].items()}, **dict(options)}
    problems: dict[str, list[str]] = {}
    for key, value in merged.items():
        spec = raw["options"].get(key)
        if spec is None:
            problems[key] = ["unknown option"]
        elif "choices" in spec and value not in spec["choices"]:
            problems[key] = [f"one of {spec['choices']}"]
        elif "choices" not in spec and (
            isinstance(value, bool) or not isinstance(value, int) or value < 1
        ):
            problems[key] = ["a positive integer"]
    width, height = raw["table"]["width"], raw["table"]["height"]
    problems.update(check_areas(raw["areas"], width, height))
    if problems:
        raise ScenarioError("invalid scenario or options", problems)
    sides = list(raw["sides"])
    attacker = merged["attacker"]
    defender = sides[1] if attacker == sides[0] else sides[0]
    camps = {s: forces.camp_of({"camps": raw.get("camps") or {}}, s) for s in sides}
    units: dict[str, Any] = {}
    for i, spec in enumerate(raw.get("units", [])):
        u = _scenario_unit(spec, i, camps)
        units[u["id"]] = u
    return {
        "system": "barcelona",
        "scenario": scenario_id,
        "options": merged,
        "sides": [attacker, defender],
        "attacker": attacker,
        "defender": defender,
        "table": {"width": width, "height": height, "units": "inches"},
        "areas": [dict(a) for a in raw["areas"]],
        "deployment": {s: dict(z) for s, z in raw["deployment"].items()},
        "entries": {s: list(p) for s, p in raw["entries"].items()},
        "camps": camps,  # whose troop types each side fields (Troop Type table's names)
        "vehicles": {s: dict(v) for s, v in raw["vehicles"].items()},
        "turn": 0,
        "last_turn": merged["turns"],
        "phase": "muster",
        "step": None,
        "mover": defender,
        "moving": None,
        "done": {s: False for s in sides},
        "budget": {s: merged["points"] if merged["forces"] == "points" else 0 for s in sides},
        "next_id": {s: 1 for s in sides},
        "units": units,
        "orders": {s: {} for s in sides},
        "written": {s: {} for s in sides},
        "revealed": [],
        "result": None,
    }


def _scenario_unit(
    spec: Mapping[str, Any], index: int, camps: Mapping[str, str | None]
) -> dict[str, Any]:
    """A unit a scenario places (``{"id", "side", "kind", ...}`` as for the ``buy`` command), of a
    troop type its side fields (Troop Type table)."""
    if spec.get("kind") not in forces.NEEDS:
        raise ScenarioError(
            "unknown unit kind",
            {f"units[{index}].kind": ["foot, cavalry, team, vehicle or aircraft"]},
        )
    try:
        unit = forces.bought_unit(str(spec["id"]), str(spec["side"]), spec)
    except InvalidCommand as exc:
        where = {f"units[{index}]{k.removeprefix('unit')}": v for k, v in exc.details.items()}
        raise ScenarioError(exc.message, where) from None
    if unit["troop_type"] is not None:
        problem = forces.fielding_problem(unit["troop_type"], camps.get(unit["side"]))
        if problem is not None:
            raise ScenarioError(problem, {f"units[{index}].troop_type": [problem]})
    return unit
