"""The Terrain Effects Chart as movement costs, and the terrain a unit may never enter."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from service.rules.base import State
from service.rules.kernel.mapdata import MapData
from service.rules.merida.board import map_of

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
SETTLEMENTS = frozenset(("town", "city"))


def prohibited(state: State, unit: dict[str, Any], frm: str, to: str) -> str | None:
    """Why ``unit`` may never pass from ``frm`` into ``to`` (the rule), else None: artillery and
    armor cross rivers only along a road (TEC); guerrillas never enter towns or cities (rule 2)."""
    return judge(map_of(state), unit["type"], frm, to, river_added(state))[0]


def step_cost(state: State, unit: dict[str, Any], frm: str, to: str) -> float | None:
    """The movement points to enter ``to`` from ``frm`` (TEC), ``None`` when prohibited."""
    return judge(map_of(state), unit["type"], frm, to, river_added(state))[1]


def river_added(state: State) -> bool:
    """Scenario option ``river_cost = "added"``: a river hexside costs 2 MP more than the terrain
    entered, instead of 2 MP in total (conflict entry ``merida:conflict-river-crossing-cost``)."""
    return bool(state["options"].get("river_cost", "total") == "added")


@lru_cache(maxsize=1 << 16)
def judge(
    mapdata: MapData, kind: str, frm: str, to: str, added: bool = False
) -> tuple[str | None, float | None]:
    """Both at once for a unit type: ``(rule prohibiting the step, None)`` or ``(None, cost)``.
    The map never changes, so each step is judged once per type, not once per unit, mode and
    legal-actions call."""
    features = mapdata.hexside_features(frm, to)
    if "river" in features and "road" not in features and kind in NO_RIVER_TYPES:
        return "TEC", None
    if kind == "guerrilla" and mapdata.hex_features(to) & SETTLEMENTS:
        return "2", None
    if "road" in features:
        return None, ROAD_COST
    cost = float(MOUNTAIN_COST.get(kind, 1)) if mapdata.terrain(to) == "mountain" else 1.0
    if "river" in features:
        cost = cost + RIVER_COST if added else max(cost, RIVER_COST)
    return None, cost
