"""Cross-reference checks of a scenario: hexes on the map, sides, unit ids, entries and turns.

They run on what the schema (:mod:`service.rules.scenario.schema`) loaded -- all of it, or when
some parts are malformed the part that loaded -- so every value has its declared type, a missing
part is absent, and a list item that did not load is ``None`` in its place.  The schema reports
the shape; these checks report every other problem, each with its place.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from service.rules.kernel.grid import Bounds, HexGrid

Problem = tuple[str, str]  # (place, message)
Data = Mapping[str, Any]

#: the parts of a map that place its grid
GRID_KEYS = ("coordinates", "orientation", "offset", "bounds")


def objects(items: Iterable[Data | None]) -> list[tuple[int, Data]]:
    """The objects of a loaded list with their indexes (an item that did not load is empty)."""
    return [(index, item or {}) for index, item in enumerate(items)]


class Checker:
    """Cross-reference checks on loaded scenario data (see the module's docstring)."""

    def __init__(self, data: Data) -> None:
        self.data = data
        self.map: Data = data.get("map") or {}
        self.problems: list[Problem] = []
        self.sides: list[str] = [s for s in data.get("sides", ()) if s is not None]
        self.grid = self._grid()

    def add(self, place: str, message: str) -> None:
        self.problems.append((place, message))

    def _grid(self) -> HexGrid | None:
        if not all(self.map.get(key) for key in GRID_KEYS) or len(self.map["bounds"]) < 4:
            return None  # the schema reports what is missing
        m = self.map
        try:
            grid = HexGrid(m["coordinates"], Bounds(**m["bounds"]), m["orientation"], m["offset"])
            grid.labels()
        except ValueError as exc:
            if str(exc).startswith("empty bounds"):
                self.add("map.bounds", "the bounds hold no hex")
            else:  # a hex in bounds has no label (row 0 of letter-number coordinates)
                self.add(
                    "map.bounds", f"the bounds leave the {m['coordinates']} coordinates: {exc}"
                )
            return None
        return grid

    # -- places of things --------------------------------------------------------------------------
    def hex(self, place: str, label: str | None) -> bool:
        """Whether ``label`` is a hex of the map; reports it when the map is known and it is not."""
        if self.grid is None or label is None:
            return False
        if not self.grid.in_bounds(label):
            self.add(place, f"unknown hex {label}")
            return False
        return True

    def hexes(self, place: str, labels: Iterable[str | None]) -> None:
        for index, label in enumerate(labels):
            self.hex(f"{place}[{index}]", label)

    def side(self, place: str, side: str | None, allow_any: bool = False) -> None:
        known = not self.sides or side in self.sides or (allow_any and side == "")
        if side is not None and not known:
            self.add(place, f"unknown side {side!r} (sides: {', '.join(self.sides)})")

    def unique(self, items: list[tuple[int, Data]], key: str, what: str, place: str) -> None:
        """Report each item whose ``key`` an earlier one already has."""
        seen: dict[Any, int] = {}
        for index, item in items:
            value = item.get(key)
            if value is not None and value in seen:
                self.add(f"{place}[{index}].{key}", f"duplicate {what} {value!r}")
            seen.setdefault(value, index)

    # -- the checks ----------------------------------------------------------------------------------
    def run(self) -> list[Problem]:
        self.check_sides()
        self.check_terrain()
        self.check_hexsides()
        self.check_places()
        self.check_entries()
        unit_ids = self.check_units()
        Reinforcements(self, unit_ids).check()
        return self.problems

    def check_sides(self) -> None:
        for index, side in enumerate(self.data.get("sides", ())):
            if side is not None and side in self.data["sides"][:index]:
                self.add(f"sides[{index}]", f"duplicate side {side!r}")

    def check_terrain(self) -> None:
        known = self.map.get("terrain_types")
        default = self.map.get("default_terrain")
        if known is not None and default is not None and default not in known:
            self.add("map.default_terrain", f"unknown terrain {default!r}")
        for label, terrain in self.map.get("terrain", {}).items():
            on_map = self.hex(f"map.terrain.{label}", label)
            if on_map and known is not None and terrain not in known:
                self.add(f"map.terrain.{label}", f"unknown terrain {terrain!r}")
        for label in self.map.get("hex_features", {}):
            self.hex(f"map.hex_features.{label}", label)

    def check_hexsides(self) -> None:
        seen: dict[str, int] = {}
        for index, hexside in objects(self.map.get("hexsides", ())):
            place = f"map.hexsides[{index}]"
            pair = hexside.get("hexes") or []
            if len(pair) != 2 or not all(
                self.hex(f"{place}.hexes[{i}]", h) for i, h in enumerate(pair)
            ):
                continue
            assert self.grid is not None  # known hexes: the grid is known
            if not self.grid.adjacent(pair[0], pair[1]):
                self.add(f"{place}.hexes", f"{pair[0]} and {pair[1]} are not adjacent")
                continue
            key = self.grid.hexside(pair[0], pair[1])
            if key in seen:
                self.add(place, f"hexside {key} already given at hexsides[{seen[key]}]")
            seen.setdefault(key, index)

    def check_places(self) -> None:
        places = objects(self.map.get("places", ()))
        for index, place in places:
            self.hex(f"map.places[{index}].hex", place.get("hex"))
        self.unique(places, "name", "place", "map.places")
        for side, hexes in self.map.get("supply_sources", {}).items():
            self.side(f"map.supply_sources.{side}", side)
            self.hexes(f"map.supply_sources.{side}", hexes)

    def check_entries(self) -> None:
        entries = objects(self.map.get("entries", ()))
        for index, entry in entries:
            self.side(f"map.entries[{index}].side", entry.get("side"), allow_any=True)
            self.hexes(f"map.entries[{index}].hexes", entry.get("hexes", ()))
        self.unique(entries, "name", "entry", "map.entries")

    def check_units(self) -> dict[str, int]:
        """The units' ids, each with the index of its first unit."""
        ids: dict[str, int] = {}
        for index, unit in objects(self.data.get("units", ())):
            place = f"units[{index}]"
            uid = unit.get("id")
            if uid in ids:
                self.add(f"{place}.id", f"duplicate unit id {uid!r} (also units[{ids[uid]}])")
            elif uid is not None:
                ids[uid] = index
            self.side(f"{place}.side", unit.get("side"))
            self.hex(f"{place}.hex", unit.get("hex"))
        return ids


class Reinforcements:
    """Each reinforcement names a unit not set up, arriving once, in the game's turns, by an entry
    of its side or a hex of the map; each unit is set up or arrives."""

    def __init__(self, checker: Checker, unit_ids: dict[str, int]) -> None:
        self.checker = checker
        self.units = objects(checker.data.get("units", ()))
        self.unit_ids = unit_ids
        self.entries = {
            e["name"]: e for _, e in objects(checker.map.get("entries", ())) if e.get("name")
        }
        self.arriving: dict[str, int] = {}

    def check(self) -> None:
        turns = self.checker.data.get("turns")
        for index, item in objects(self.checker.data.get("reinforcements", ())):
            place = f"reinforcements[{index}]"
            unit = self.unit(place, index, item.get("unit"))
            turn = item.get("turn")
            if turn is not None and turns is not None and not 1 <= turn <= turns:
                self.checker.add(f"{place}.turn", f"turn {turn} is not in 1..{turns}")
            if "entry" in item and "hex" not in item:
                self.entry(place, item["entry"], unit)
            elif "hex" in item and "entry" not in item:
                self.checker.hex(f"{place}.hex", item["hex"])
        self.unplaced()

    def unit(self, place: str, index: int, uid: str | None) -> Data | None:
        """The unit a reinforcement brings, checked; ``None`` when it is not known."""
        if uid is None:
            return None
        if uid not in self.unit_ids:
            self.checker.add(f"{place}.unit", f"unknown unit {uid!r}")
            return None
        unit = self.units[self.unit_ids[uid]][1]
        if unit.get("hex") is not None:
            self.checker.add(f"{place}.unit", f"unit {uid!r} is already set up in {unit['hex']}")
        if uid in self.arriving:
            where = f"reinforcements[{self.arriving[uid]}]"
            self.checker.add(f"{place}.unit", f"unit {uid!r} already arrives at {where}")
        self.arriving.setdefault(uid, index)
        return unit

    def entry(self, place: str, name: str, unit: Data | None) -> None:
        entry = self.entries.get(name)
        if entry is None:
            self.checker.add(f"{place}.entry", f"unknown entry {name!r}")
        elif unit is not None and entry.get("side") not in ("", None, unit.get("side")):
            self.checker.add(f"{place}.entry", f"entry {name!r} belongs to {entry.get('side')!r}")

    def unplaced(self) -> None:
        for uid, index in self.unit_ids.items():
            if self.units[index][1].get("hex") is None and uid not in self.arriving:
                self.checker.add(
                    f"units[{index}]", f"unit {uid!r} is neither set up (hex) nor a reinforcement"
                )
