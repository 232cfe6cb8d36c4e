"""The board as the rules see it: the state's map, units and stacks, echelons, terrain costs,
stacking (4), zones of control (5) and supply lines (10)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from fractions import Fraction
from typing import Any

from service.rules.base import State
from service.rules.bizkaya import tables
from service.rules.kernel.mapdata import MapData, cached_map
from service.rules.kernel.supply import standard_line, supplied_hexes
from service.rules.kernel.zoc import zoc_hexes

SIDES = ("nationalist", "republican")
Unit = dict[str, Any]


def other(side: str) -> str:
    return SIDES[1] if side == SIDES[0] else SIDES[0]


def map_of(state: State) -> MapData:
    """The state's map (the rules never change it), built once (see kernel ``cached_map``)."""
    return cached_map(state["map"])


# -- units and stacks -------------------------------------------------------------------------
def on_map(state: State, side: str | None = None) -> list[Unit]:
    return [
        u
        for u in state["units"].values()
        if u["status"] == "map" and (side is None or u["side"] == side)
    ]


def stack(state: State, hex_: str, side: str | None = None) -> list[Unit]:
    return [u for u in on_map(state, side) if u["hex"] == hex_]


def is_combat(unit: Unit) -> bool:
    return unit["kind"] == "combat"


def first_echelon(state: State, hex_: str) -> list[Unit]:
    """4: the units that attack and defend: combat units of the first echelon."""
    return [u for u in stack(state, hex_) if is_combat(u) and u["echelon"] == 1]


def occupied_by(state: State, side: str) -> set[str]:
    return {u["hex"] for u in on_map(state, side)}


def side_at(state: State, hex_: str) -> str | None:
    units = stack(state, hex_)
    return units[0]["side"] if units else None


def factor(unit: Unit, name: str) -> Fraction:
    """A combat factor as the counter shows it now: reduced counters (placeholder rule of the
    game table) and halved out of supply (10)."""
    value = Fraction(unit[name])
    if unit["steps"] < unit["max_steps"]:
        value = Fraction(-((-unit[name] * unit["steps"]) // unit["max_steps"]))
    return value / 2 if unit["oos"] else value


def capacity(state: State, unit: Unit) -> int:
    """13: the side's movement capacity (6), halved out of supply (10)."""
    mp = int(tables.game()["movement_capacity"][unit["side"]])
    return mp // 2 if unit["oos"] else mp


# -- terrain ----------------------------------------------------------------------------------
def terrain(state: State, hex_: str) -> str:
    return map_of(state).terrain(hex_)


def is_city(state: State, hex_: str) -> bool:
    return "city" in map_of(state).hex_features(hex_)


def level(state: State, hex_: str, kinds: Iterable[str] = ("city", "major_city", "fort")) -> int:
    wanted = set(kinds)
    levels = [
        int(p.values.get("level", 0)) for p in map_of(state).places_at(hex_) if p.kind in wanted
    ]
    return max(levels, default=0)


def fortified(state: State, hex_: str) -> bool:
    return any(p.kind == "fort" for p in map_of(state).places_at(hex_))


def playable(state: State, hex_: str) -> bool:
    return tables.terrain()["movement"].get(terrain(state, hex_)) is not None


def weather_factor(state: State) -> int:
    """3: rainy and winter weather double terrain costs."""
    return int(tables.table("weather")["cost_multiplier"][state["weather"]])


def hex_cost(state: State, hex_: str) -> int | None:
    """The terrain cost of entering a hex (a major city replaces its terrain; a city adds)."""
    tec = tables.terrain()
    cost = tec["movement"].get(terrain(state, hex_))
    if cost is None:
        return None
    if is_city(state, hex_) and terrain(state, hex_) != "major_city":
        cost += tec["city_extra"]
    return int(cost)


def attack_cost(state: State, hex_: str) -> int | None:
    """13: attacking a hex costs the MP of entering it, never at the road rate (1)."""
    cost = hex_cost(state, hex_)
    return None if cost is None else cost * weather_factor(state)


def step_cost(state: State, side: str) -> Callable[[str, str], float | None]:
    """1, 3, 5, 13: the cost of one step of a move: terrain or road, a major river hexside, enemy
    ZoC; doubled in rainy and winter weather; enemy units and impassable hexsides prohibit."""
    mapdata = map_of(state)
    tec = tables.terrain()
    enemy = occupied_by(state, other(side))
    zoc = zoc_of(state, other(side))
    blocked = set(tec["impassable_hexsides"])
    times = weather_factor(state)

    def cost(frm: str, to: str) -> float | None:
        features = mapdata.hexside_features(frm, to)
        if to in enemy or features & blocked:
            return None
        base = hex_cost(state, to)
        if base is None:
            return None
        if "road" in features:
            base = tec["road"]
        if "major_river" in features:
            base += tec["major_river_extra"]
        return base * times + (tec["enemy_zoc_extra"] if to in zoc else 0)

    return cost


# -- stacking (4) -----------------------------------------------------------------------------
def limits(state: State, hex_: str) -> dict[str, int]:
    rules = tables.game()["stacking"]
    return dict(rules["mountain" if terrain(state, hex_) == "mountain" else "normal"])


def stacking_problems(state: State, hex_: str, units: Iterable[Unit]) -> list[str]:
    """4: 10 steps in the first echelon, 5 combat + 5 support steps in the second (mountain 5,
    3 + 2); artillery only in the second.  Leaders do not count (8)."""
    first = second = support = 0
    for u in units:
        if not is_combat(u):
            support += u["steps"]
        elif u["echelon"] == 1:
            first += u["steps"]
        else:
            second += u["steps"]
    allowed = limits(state, hex_)
    problems = []
    if first > allowed["first"]:
        problems.append(f"{first} steps in the first echelon of {hex_} (limit {allowed['first']})")
    if second > allowed["second_combat"]:
        problems.append(
            f"{second} combat steps in the second echelon of {hex_} (limit {allowed['second_combat']})"
        )
    if support > allowed["second_support"]:
        problems.append(
            f"{support} support steps in the second echelon of {hex_} (limit {allowed['second_support']})"
        )
    return problems


def overstacked(state: State, side: str) -> list[str]:
    return sorted(
        h for h in occupied_by(state, side) if stacking_problems(state, h, stack(state, h))
    )


# -- zones of control (5) ---------------------------------------------------------------------
def zoc_of(state: State, side: str) -> set[str]:
    """5: the hexes adjacent to ``side``'s units with the ZoC symbol and its artillery, unless out
    of supply; never into mountain, city or major city hexes nor across mountain hexsides.  (Every
    combat unit's ZoC in its own hex is the hex itself, which no enemy may enter anyway.)"""
    mapdata = map_of(state)
    tec = tables.terrain()
    into = set(tec["zoc_blocked_into"])
    across = set(tec["zoc_blocked_across"])

    def projects(frm: str, to: str) -> bool:
        if mapdata.terrain(to) in into or is_city(state, to):
            return False
        return not (mapdata.hexside_features(frm, to) & across)

    units = [(u["hex"], u) for u in on_map(state, side)]
    return zoc_hexes(
        mapdata.grid,
        units,
        lambda u: not u["oos"] and (u["zoc"] or u["kind"] == "artillery"),
        projects,
    )


# -- supply (10) ------------------------------------------------------------------------------
def supplied(state: State, side: str) -> set[str]:
    """10, 15: hexes that trace a line free of enemy units and of enemy ZoC (unless a friendly unit
    is there) to the side's supply source (Bilbao, Vitoria)."""
    mapdata = map_of(state)
    enemy = occupied_by(state, other(side))
    line = standard_line(
        enemy,
        zoc_of(state, other(side)) | enemy,
        occupied_by(state, side),
        lambda frm, to: (
            playable(state, to)
            and not (
                mapdata.hexside_features(frm, to) & set(tables.terrain()["impassable_hexsides"])
            )
        ),
    )
    sources = [h for h in mapdata.supply_sources.get(side, ()) if h not in enemy]
    return set(supplied_hexes(mapdata.grid, sources, line))


def adjacent_to_enemy(state: State, hex_: str, side: str) -> bool:
    enemy = occupied_by(state, other(side))
    return any(n in enemy for n in map_of(state).grid.neighbours(hex_))
