"""The map as the rules see it: terrain, cities, roads and rivers, movement costs (15.2), zones of
control (7) and stacking limits (5), built on the kernel from the map stored in the state."""

from __future__ import annotations

from service.rules.backbone.data_files import load
from service.rules.backbone.units import State, Unit, enemy, is_armor, is_hq, on_map, tags
from service.rules.kernel.mapdata import MapData, cached_map
from service.rules.kernel.zoc import zoc_hexes


def board(state: State) -> MapData:
    """The kernel MapData of the state's map (the rules never change it): see ``cached_map``."""
    return cached_map(state["map"])


def column(label: str) -> int:
    """The printed map column of a hex: labels are row,column ("X, 13" is column 13)."""
    return int(label.split(",")[1])


def row(label: str) -> int:
    return int(label.split(",")[0])


def terrain(state: State, hex_: str) -> str:
    return board(state).terrain(hex_)


def city_at(state: State, hex_: str) -> str | None:
    for place in board(state).places_at(hex_):
        if place.kind == "city":
            return place.name
    return None


def city_hex(state: State, name: str) -> str:
    return board(state).places[name].hex


def protectorate_cities(state: State) -> list[str]:
    return [p.name for p in board(state).places_of_kind("city") if p.values.get("protectorate")]


def road(state: State, a: str, b: str) -> bool:
    return board(state).has_hexside(a, b, "road")


def river(state: State, a: str, b: str) -> bool:
    return board(state).has_hexside(a, b, "river")


def feature(state: State, hex_: str, name: str) -> bool:
    return name in board(state).hex_features(hex_)


def coast(state: State, hex_: str) -> str | None:
    """Which naval support reaches a hex (16.3): atlantic, mediterranean, strait, or None."""
    for name in ("atlantic", "mediterranean", "strait"):
        if feature(state, hex_, f"coast_{name}"):
            return name
    return None


def impassable(state: State, hex_: str) -> bool:
    return bool(load("terrain")["terrain"].get(terrain(state, hex_), {}).get("impassable"))


# -- zones of control (7) -----------------------------------------------------------------------
def projects_zoc(state: State, u: Unit, frm: str, to: str) -> bool:
    """Whether a unit's ZOC reaches from its hex into an adjacent one (7): never across a river or
    into an impassable (sea) hex; armor not into mountain, and from a mountain only along roads."""
    if river(state, frm, to) or impassable(state, to):
        return False
    if is_armor(u):
        on_road = road(state, frm, to)
        if terrain(state, to) == "mountain" and not on_road:
            return False
        if terrain(state, frm) == "mountain" and not on_road:
            return False
    return True


def zoc_of(state: State, side: str) -> set[str]:
    """The hexes in the ZOC of ``side``'s units (combat units and HQs; Rif units have none)."""
    found: set[str] = set()
    grid = board(state).grid
    for u in on_map(state, side):
        if "no_zoc" in tags(u):
            continue

        def projects(frm: str, to: str, u: Unit = u) -> bool:
            return projects_zoc(state, u, frm, to)

        found |= zoc_hexes(grid, [(u["hex"], u)], projects=projects)
    return found


def enemy_zoc(state: State, side: str) -> set[str]:
    return zoc_of(state, enemy(side))


# -- movement (15.2) ----------------------------------------------------------------------------
def fast_on_roads(u: Unit) -> bool:
    """HQs and units printed with 4 or 5 MP move along roads at 1/2 MP (15.2)."""
    return is_hq(u) or u["mp"] in load("terrain")["road"]["fast_mp"]


def step_cost(state: State, u: Unit, frm: str, to: str) -> float | None:
    """MP to move from ``frm`` into the adjacent ``to``, or None when prohibited (15.2)."""
    data = load("terrain")
    kind = terrain(state, to)
    if data["terrain"].get(kind, {}).get("impassable"):
        return None
    on_road = road(state, frm, to)
    if on_road:
        return data["road"]["fast_cost_half"] if fast_on_roads(u) else data["road"]["slow_cost"]
    if is_armor(u) and kind == "mountain":
        return None
    cost = float(data["terrain"][kind]["move_cost"])
    if river(state, frm, to):
        cost += data["river"]["crossing_cost"]
    return cost


def movement_allowance(state: State, u: Unit) -> int:
    """Printed MP; 4-5 MP units drop to 3 in bad weather (10.1) and are halved out of supply
    (12.2); always at least 1 (3)."""
    if u.get("dropped_turn") == state["turn"]:
        return 1  # 18.1 optional: paratroopers move 1 MP on the turn they drop
    mp = int(u["mp"])
    if mp in (4, 5):
        if state["weather"] == "bad":
            mp = 3
        if not u.get("supplied", True):
            mp //= 2
    return max(1, mp)


# -- stacking (5) -------------------------------------------------------------------------------
def stacking_limit(state: State, hex_: str) -> int:
    """16 steps in clear or broken, 10 in city or half mountain, 8 in mountain (5); a city takes the
    stricter of its limit and its terrain's."""
    data = load("terrain")
    limit = int(data["terrain"][terrain(state, hex_)].get("stacking", 0))
    if city_at(state, hex_):
        limit = min(limit, int(data["city"]["stacking"]))
    return limit


def spanish_territory(state: State, hex_: str) -> bool:
    return row(hex_) <= int(state["data"]["spanish_zone_max_row"])


def controller(state: State, hex_: str) -> str:
    """Who controls a hex: the last side to enter it, else whose territory it started in."""
    return state["control"].get(hex_) or ("spanish" if spanish_territory(state, hex_) else "allied")
