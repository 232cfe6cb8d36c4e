"""A map's data: terrain per hex, hex features, hexside features, named places, supply sources and
entry hexes, on a :class:`HexGrid`.

The JSON form (``to_dict`` / ``from_dict``) is the ``map`` object of the scenario format
(docs/scenario-format.md).  ``from_dict`` trusts its input's shape (the scenario loader validates it
first) but still refuses labels outside the grid and hexsides between hexes that are not adjacent.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from service.rules.kernel.grid import HexGrid, hexside_key


@dataclass(frozen=True)
class Place:
    """A named place (town, objective, bridge ...) at one hex, with free-form numeric values.

    ``name`` is the place's key (unique on a map); ``label`` is what a player reads where it differs
    (two tables of a rulebook naming one town at two hexes: both read "Guarena", the keys differ),
    and ``note`` says why, beside the label."""

    name: str
    hex: str
    kind: str = ""
    values: Mapping[str, float] = field(default_factory=dict)
    label: str = ""
    note: str = ""

    @property
    def shown(self) -> str:
        """The place's name as a player reads it."""
        return self.label or self.name

    def to_dict(self) -> dict[str, Any]:
        out = {"name": self.name, "hex": self.hex, "kind": self.kind, "values": dict(self.values)}
        out.update({k: v for k, v in (("label", self.label), ("note", self.note)) if v})
        return out


@dataclass(frozen=True)
class Entry:
    """A named group of entry hexes, for a side (``""``: any side), where reinforcements arrive."""

    name: str
    hexes: tuple[str, ...]
    side: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "side": self.side, "hexes": list(self.hexes)}


class MapData:
    def __init__(
        self,
        grid: HexGrid,
        *,
        default_terrain: str = "clear",
        terrain: Mapping[str, str] | None = None,
        hex_features: Mapping[str, Iterable[str]] | None = None,
        hexsides: Mapping[tuple[str, str], Iterable[str]] | None = None,
        places: Iterable[Place] = (),
        supply_sources: Mapping[str, Iterable[str]] | None = None,
        entries: Iterable[Entry] = (),
    ) -> None:
        self.grid = grid
        self.default_terrain = default_terrain
        self._terrain = {self._hex(h): t for h, t in (terrain or {}).items()}
        self._hex_features = {
            self._hex(h): frozenset(f) for h, f in (hex_features or {}).items() if f
        }
        self._hexsides: dict[str, frozenset[str]] = {}
        for (a, b), features in (hexsides or {}).items():
            a, b = self._hex(a), self._hex(b)
            key = grid.hexside(a, b)
            self._hexsides[key] = self._hexsides.get(key, frozenset()) | frozenset(features)
        self.places: dict[str, Place] = {}
        for place in places:
            if place.name in self.places:
                raise ValueError(f"duplicate place {place.name!r}")
            self._hex(place.hex)
            self.places[place.name] = place
        self.supply_sources = {
            side: tuple(self._hex(h) for h in hexes)
            for side, hexes in (supply_sources or {}).items()
        }
        self.entries: dict[str, Entry] = {}
        for entry in entries:
            if entry.name in self.entries:
                raise ValueError(f"duplicate entry {entry.name!r}")
            for h in entry.hexes:
                self._hex(h)
            self.entries[entry.name] = entry

    def _hex(self, label: str) -> str:
        if not self.grid.in_bounds(label):
            raise ValueError(f"unknown hex {label}")
        return label

    # -- queries --------------------------------------------------------------------------------
    def terrain(self, label: str) -> str:
        return self._terrain.get(label, self.default_terrain)

    def hex_features(self, label: str) -> frozenset[str]:
        return self._hex_features.get(label, frozenset())

    def hexside_features(self, a: str, b: str) -> frozenset[str]:
        """Features of the hexside between ``a`` and ``b`` (empty if none or not adjacent)."""
        return self._hexsides.get(hexside_key(a, b), frozenset())

    def has_hexside(self, a: str, b: str, feature: str) -> bool:
        return feature in self._hexsides.get(hexside_key(a, b), ())

    def hexsides_with(self, feature: str) -> list[tuple[str, str]]:
        found = []
        for key, features in sorted(self._hexsides.items()):
            if feature in features:
                a, b = key.split("/", 1)
                found.append((a, b))
        return found

    def places_at(self, label: str) -> list[Place]:
        return [place for place in self.places.values() if place.hex == label]

    def places_of_kind(self, kind: str) -> list[Place]:
        return [place for place in self.places.values() if place.kind == kind]

    def entry_hexes(self, name: str) -> tuple[str, ...]:
        return self.entries[name].hexes

    # -- JSON -----------------------------------------------------------------------------------
    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> MapData:
        grid = HexGrid.from_dict(dict(data))
        return cls(
            grid,
            default_terrain=data.get("default_terrain", "clear"),
            terrain=data.get("terrain", {}),
            hex_features=data.get("hex_features", {}),
            hexsides={
                (side["hexes"][0], side["hexes"][1]): side["features"]
                for side in data.get("hexsides", [])
            },
            places=[
                Place(
                    p["name"],
                    p["hex"],
                    p.get("kind", ""),
                    dict(p.get("values", {})),
                    p.get("label", ""),
                    p.get("note", ""),
                )
                for p in data.get("places", [])
            ],
            supply_sources=data.get("supply_sources", {}),
            entries=[
                Entry(e["name"], tuple(e["hexes"]), e.get("side", ""))
                for e in data.get("entries", [])
            ],
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            **self.grid.to_dict(),
            "default_terrain": self.default_terrain,
            "terrain": dict(sorted(self._terrain.items())),
            "hex_features": {h: sorted(f) for h, f in sorted(self._hex_features.items())},
            "hexsides": [
                {"hexes": key.split("/", 1), "features": sorted(features)}
                for key, features in sorted(self._hexsides.items())
            ],
            "places": [place.to_dict() for place in self.places.values()],
            "supply_sources": {side: list(h) for side, h in self.supply_sources.items()},
            "entries": [entry.to_dict() for entry in self.entries.values()],
        }


_CACHED: dict[int, tuple[Any, MapData]] = {}


@lru_cache(maxsize=16)
def _from_json(text: str) -> MapData:
    return MapData.from_dict(json.loads(text))


def cached_map(data: Mapping[str, Any]) -> MapData:
    """The MapData of a map dict that rules never change (a state's embedded map), built once per
    dict object and once per distinct content, so rules can ask for it on every call."""
    key = id(data)
    known = _CACHED.get(key)
    if known is not None and known[0] is data:
        return known[1]
    if len(_CACHED) > 64:
        _CACHED.clear()
    mapdata = _from_json(json.dumps(data, sort_keys=True))
    _CACHED[key] = (data, mapdata)
    return mapdata
