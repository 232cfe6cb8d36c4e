"""Placeholder markers: any value in a scenario file may be wrapped as

    {"placeholder": true, "value": <the value>, "note": "why it is a stand-in"}

to say a club must replace it (a counter strength the rulebook does not print, invented terrain).
:func:`unwrap` returns the data with every wrapper replaced by its value, and the places of the
placeholders (``units[3].values.attack``) with their notes.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

WRAPPER_KEYS = frozenset({"placeholder", "value", "note"})


@dataclass(frozen=True)
class Placeholder:
    place: str
    note: str

    def as_dict(self) -> dict[str, str]:
        return {"place": self.place, "note": self.note}


def is_wrapper(value: Any) -> bool:
    return (
        isinstance(value, dict)
        and "placeholder" in value
        and "value" in value
        and set(value) <= WRAPPER_KEYS
        and isinstance(value["placeholder"], bool)
    )


def join(place: str, key: str | int) -> str:
    if isinstance(key, int):
        return f"{place}[{key}]"
    return f"{place}.{key}" if place else key


def unwrap(data: Any, place: str = "") -> tuple[Any, list[Placeholder]]:
    found: list[Placeholder] = []

    def walk(value: Any, here: str) -> Any:
        if is_wrapper(value):
            if value["placeholder"]:
                found.append(Placeholder(here, str(value.get("note", "")) or "placeholder value"))
            return walk(value["value"], here)
        if isinstance(value, dict):
            return {key: walk(item, join(here, key)) for key, item in value.items()}
        if isinstance(value, list):
            return [walk(item, join(here, index)) for index, item in enumerate(value)]
        return value

    return walk(data, place), found


#: a placeholder's topic, in words, by the start of its place (the first that matches)
TOPICS: tuple[tuple[tuple[str, ...], str], ...] = (
    (("map.default_terrain", "map.terrain"), "Terrain"),
    (("map.hexsides",), "Hexsides (roads, rivers, rail)"),
    (("map.hex_features",), "Hex features (towns, coasts)"),
    (("map.places",), "Places"),
    (("map.orientation", "map.offset", "map.bounds", "map.coordinates"), "The hex grid"),
    (("map.entries", "map.supply_sources"), "Entry and supply hexes"),
    (("map.",), "The map"),
    (("units",), "Counter values"),
    (("reinforcements",), "Reinforcements"),
    (("turns",), "Game length"),
    (("tables", "data.tables"), "Tables"),
    (("data.",), "Scenario data"),
)
#: the distinct notes a topic shows (the rest are counted)
NOTES_SHOWN = 3


def topics(placeholders: Iterable[Placeholder]) -> list[dict[str, Any]]:
    """The placeholders grouped by what a player would call them, in the order of :data:`TOPICS`:
    ``[{"topic": "Terrain", "count": 1, "notes": ["every hex is clear until ..."]}, ...]`` with
    each topic's first few distinct notes."""
    found: dict[str, dict[str, Any]] = {}
    for placeholder in placeholders:
        topic = next(
            (words for starts, words in TOPICS if placeholder.place.startswith(starts)),
            "Other values",
        )
        entry = found.setdefault(topic, {"topic": topic, "count": 0, "notes": []})
        entry["count"] += 1
        if placeholder.note not in entry["notes"] and len(entry["notes"]) < NOTES_SHOWN:
            entry["notes"].append(placeholder.note)
    order = [words for _, words in TOPICS] + ["Other values"]
    return sorted(found.values(), key=lambda t: order.index(t["topic"]))
