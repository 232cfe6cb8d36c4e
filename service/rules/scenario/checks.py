"""Cross-reference checks of scenario data that may be partly malformed (the schema reports the
shape): hexes on the map, sides, unit ids, entries, turns and option defaults."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from service.rules.kernel.grid import Bounds, HexGrid
from service.rules.scenario.model import OPTION_TYPES, OptionSpec

Problem = tuple[str, str]  # (place, message)


class Checker:
    """Cross-reference checks on data that may be partly malformed (the schema reports that)."""

    def __init__(self, data: dict[str, Any]) -> None:
        self.data = data
        self.problems: list[Problem] = []
        self.grid: HexGrid | None = None
        sides = data.get("sides")
        self.sides = [s for s in sides if isinstance(s, str)] if isinstance(sides, list) else []

    def add(self, place: str, message: str) -> None:
        self.problems.append((place, message))

    def hex(self, place: str, label: Any) -> bool:
        if self.grid is None or not isinstance(label, str):
            return False
        if not self.grid.in_bounds(label):
            self.add(place, f"unknown hex {label}")
            return False
        return True

    def side(self, place: str, side: Any, allow_any: bool = False) -> None:
        known = not self.sides or side in self.sides or (allow_any and side == "")
        if isinstance(side, str) and not known:
            self.add(place, f"unknown side {side!r} (sides: {', '.join(self.sides)})")

    def run(self) -> list[Problem]:
        self.check_sides()
        self.check_map()
        unit_ids = self.check_units()
        self.check_reinforcements(unit_ids)
        self.check_options()
        return self.problems

    def check_sides(self) -> None:
        seen: set[str] = set()
        for index, side in enumerate(self.sides):
            if side in seen:
                self.add(f"sides[{index}]", f"duplicate side {side!r}")
            seen.add(side)

    def check_map(self) -> None:
        m = self.data.get("map")
        if not isinstance(m, dict):
            return
        try:
            b = m["bounds"]
            self.grid = HexGrid(
                m["coordinates"],
                Bounds(b["min_col"], b["max_col"], b["min_row"], b["max_row"]),
                m["orientation"],
                m["offset"],
            )
            self.grid.labels()
        except (KeyError, TypeError, ValueError) as exc:
            if isinstance(exc, ValueError) and "empty bounds" in str(exc):
                self.add("map.bounds", "the bounds hold no hex")
            return  # the schema reports missing or mistyped parts
        types = m.get("terrain_types")
        known = set(types) if isinstance(types, list) else None
        if known is not None and m.get("default_terrain", "clear") not in known:
            self.add(
                "map.default_terrain", f"unknown terrain {m.get('default_terrain', 'clear')!r}"
            )
        for label, terrain in _items(m.get("terrain")):
            on_map = self.hex(f"map.terrain.{label}", label)
            if on_map and known is not None and isinstance(terrain, str) and terrain not in known:
                self.add(f"map.terrain.{label}", f"unknown terrain {terrain!r}")
        for label, _ in _items(m.get("hex_features")):
            self.hex(f"map.hex_features.{label}", label)
        seen_sides: dict[str, int] = {}
        for index, side in _indexed(m.get("hexsides")):
            hexes = side.get("hexes")
            if not (isinstance(hexes, list) and len(hexes) == 2):
                continue
            place = f"map.hexsides[{index}]"
            ok = [self.hex(f"{place}.hexes[{i}]", h) for i, h in enumerate(hexes)]
            if all(ok):
                if not self.grid.adjacent(hexes[0], hexes[1]):
                    self.add(f"{place}.hexes", f"{hexes[0]} and {hexes[1]} are not adjacent")
                else:
                    key = self.grid.hexside(hexes[0], hexes[1])
                    if key in seen_sides:
                        self.add(
                            place, f"hexside {key} already given at hexsides[{seen_sides[key]}]"
                        )
                    seen_sides[key] = index
        names: set[str] = set()
        for index, place_data in _indexed(m.get("places")):
            place = f"map.places[{index}]"
            self.hex(f"{place}.hex", place_data.get("hex"))
            name = place_data.get("name")
            if isinstance(name, str):
                if name in names:
                    self.add(f"{place}.name", f"duplicate place {name!r}")
                names.add(name)
        for side, hexes in _items(m.get("supply_sources")):
            self.side(f"map.supply_sources.{side}", side)
            for i, h in enumerate(_list(hexes)):
                self.hex(f"map.supply_sources.{side}[{i}]", h)
        entry_names: set[str] = set()
        for index, entry in _indexed(m.get("entries")):
            place = f"map.entries[{index}]"
            self.side(f"{place}.side", entry.get("side", ""), allow_any=True)
            for i, h in enumerate(_list(entry.get("hexes"))):
                self.hex(f"{place}.hexes[{i}]", h)
            name = entry.get("name")
            if isinstance(name, str):
                if name in entry_names:
                    self.add(f"{place}.name", f"duplicate entry {name!r}")
                entry_names.add(name)

    def check_units(self) -> dict[str, int]:
        ids: dict[str, int] = {}
        for index, unit in _indexed(self.data.get("units")):
            place = f"units[{index}]"
            uid = unit.get("id")
            if isinstance(uid, str):
                if uid in ids:
                    self.add(f"{place}.id", f"duplicate unit id {uid!r} (also units[{ids[uid]}])")
                else:
                    ids[uid] = index
            self.side(f"{place}.side", unit.get("side"))
            if unit.get("hex") is not None:
                self.hex(f"{place}.hex", unit.get("hex"))
        return ids

    def check_reinforcements(self, unit_ids: dict[str, int]) -> None:
        units = _list(self.data.get("units"))
        turns = self.data.get("turns")
        m = _dict(self.data.get("map"))
        entries = {
            e.get("name"): e
            for _, e in _indexed(m.get("entries"))
            if isinstance(e.get("name"), str)
        }
        arriving: dict[str, int] = {}
        for index, r in _indexed(self.data.get("reinforcements")):
            place = f"reinforcements[{index}]"
            uid = r.get("unit")
            if isinstance(uid, str):
                if uid not in unit_ids:
                    self.add(f"{place}.unit", f"unknown unit {uid!r}")
                else:
                    unit = units[unit_ids[uid]]
                    if isinstance(unit, dict) and unit.get("hex") is not None:
                        self.add(
                            f"{place}.unit", f"unit {uid!r} is already set up in {unit['hex']}"
                        )
                    if uid in arriving:
                        self.add(
                            f"{place}.unit",
                            f"unit {uid!r} already arrives at reinforcements[{arriving[uid]}]",
                        )
                    arriving[uid] = index
            turn = r.get("turn")
            if isinstance(turn, int) and isinstance(turns, int) and not 1 <= turn <= turns:
                self.add(f"{place}.turn", f"turn {turn} is not in 1..{turns}")
            has_entry, has_hex = "entry" in r, "hex" in r
            if has_entry == has_hex:
                self.add(place, "give exactly one of entry and hex")
            elif has_entry and isinstance(r["entry"], str):
                entry = entries.get(r["entry"])
                if entry is None:
                    self.add(f"{place}.entry", f"unknown entry {r['entry']!r}")
                elif isinstance(uid, str) and uid in unit_ids:
                    unit_side = units[unit_ids[uid]].get("side")
                    if entry.get("side") not in ("", None, unit_side):
                        self.add(
                            f"{place}.entry",
                            f"entry {r['entry']!r} belongs to {entry.get('side')!r}",
                        )
            elif has_hex:
                self.hex(f"{place}.hex", r["hex"])
        for uid, index in unit_ids.items():
            unit = units[index]
            if isinstance(unit, dict) and unit.get("hex") is None and uid not in arriving:
                self.add(
                    f"units[{index}]", f"unit {uid!r} is neither set up (hex) nor a reinforcement"
                )

    def check_options(self) -> None:
        for name, option in _items(self.data.get("options")):
            if not isinstance(option, dict) or "default" not in option:
                continue
            spec = option_spec(name, option)
            for reason in spec.problems(option["default"]) if spec else []:
                self.add(f"options.{name}.default", reason)


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _items(value: Any) -> list[tuple[Any, Any]]:
    return list(value.items()) if isinstance(value, dict) else []


def _indexed(value: Any) -> list[tuple[int, dict[str, Any]]]:
    if not isinstance(value, list):
        return []
    return [(i, item) for i, item in enumerate(value) if isinstance(item, dict)]


def option_spec(name: str, data: Mapping[str, Any]) -> OptionSpec | None:
    try:
        return OptionSpec(
            name,
            data["default"],
            data.get("description", ""),
            tuple(data["choices"]) if isinstance(data.get("choices"), list) else None,
            data.get("min") if isinstance(data.get("min"), int | float) else None,
            data.get("max") if isinstance(data.get("max"), int | float) else None,
            data.get("type") if data.get("type") in OPTION_TYPES else None,
        )
    except KeyError:
        return None
