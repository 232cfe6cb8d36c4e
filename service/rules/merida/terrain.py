"""The Terrain Effects Chart as movement costs, and the terrain a unit may never enter."""

from __future__ import annotations

from typing import Any

from service.rules.base import State
from service.rules.merida.board import map_of, town_or_city

MOUNTAIN_COST = {
    "leader": 1,
    "infantry": 2,
    "cavalry": 2,
    "guerrilla": 2,
    "artillery": 3,
    "armor": 3,
}
ROAD_COST = 0.5
RIVER_COST = 2
NO_RIVER_TYPES = ("artillery", "armor")


def prohibited(state: State, unit: dict[str, Any], frm: str, to: str) -> str | None:
    """Why ``unit`` may never pass from ``frm`` into ``to`` (the rule), else None: artillery and
    armor cross rivers only along a road (TEC); guerrillas never enter towns or cities (rule 2)."""
    mapdata = map_of(state)
    features = mapdata.hexside_features(frm, to)
    if "river" in features and "road" not in features and unit["type"] in NO_RIVER_TYPES:
        return "TEC"
    if unit["type"] == "guerrilla" and town_or_city(state, to):
        return "2"
    return None


def step_cost(state: State, unit: dict[str, Any], frm: str, to: str) -> float | None:
    """The movement points to enter ``to`` from ``frm`` (TEC), ``None`` when prohibited."""
    if prohibited(state, unit, frm, to):
        return None
    mapdata = map_of(state)
    features = mapdata.hexside_features(frm, to)
    if "road" in features:
        return ROAD_COST
    cost = float(MOUNTAIN_COST.get(unit["type"], 1)) if mapdata.terrain(to) == "mountain" else 1.0
    if "river" in features:
        cost = max(cost, RIVER_COST)
    return cost
