"""Placeholder markers: any value in a scenario file may be wrapped as

    {"placeholder": true, "value": <the value>, "note": "why it is a stand-in"}

to say a club must replace it (a counter strength the rulebook does not print, invented terrain).
:func:`unwrap` returns the data with every wrapper replaced by its value, and the places of the
placeholders (``units[3].values.attack``) with their notes.
"""

from __future__ import annotations

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
