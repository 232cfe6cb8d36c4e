"""A club's Back to Barcelona scenario as a document: a table in inches with terrain pieces,
deployment zones, entry points and objectives (docs/scenario-library.md).  How it is drawn, its
facts and changes in words (``piece Farm shape: 10×8 in at (4, 14) → ...``) and where a checked
field is (``zone republican``, ``piece Farm``) -- the part of ``CustomScenarios`` the club
scenario library reads, so it keeps versions, permissions and edits only."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from service.rules.base import ScenarioError
from service.rules.scenario.words import (
    Facts,
    added_or_changed,
    changes,
    d,
    dicts,
    field_facts,
    field_place,
    item_at,
    lst,
    plain_doc,
    point,
    word,
)

#: the document's parts that are the table (the rest are fields: title, sides, turns ...)
TABLE = ("areas", "deployment", "entries", "objectives")
RANK = ("field", "piece", "zone", "entry point", "objective")


def blank(spec: Mapping[str, Any]) -> dict[str, Any]:
    """A table has no blank hex map: a club starts from the system's table and edits it."""
    raise ScenarioError(
        "a Back to Barcelona scenario is a table in inches, not a hex map",
        {"blank": ['start from its table (base "skirmish") and edit the pieces and zones']},
    )


def board(document: Mapping[str, Any]) -> dict[str, Any]:
    """The table as data for drawing: its shapes as the document gives them."""
    raw = plain_doc(document)
    table = d(raw.get("table"))
    if "width" not in table or "height" not in table:
        raise ScenarioError(
            "the table has no size; it cannot be drawn", {"table": ["give width and height"]}
        )
    return {
        "kind": "table",
        "units": "inches",
        "width": table["width"],
        "height": table["height"],
        "areas": lst(raw.get("areas")),
        "deployment": d(raw.get("deployment")),
        "entries": d(raw.get("entries")),
        "objectives": lst(raw.get("objectives")),
        "placeholder": raw.get("placeholder", False),
    }


def shape(area: Mapping[str, Any]) -> str | None:
    """A piece's or zone's shape in inches: ``10×8 in at (4, 14)`` or ``polygon (32, 16) ...``."""
    rect, polygon = lst(area.get("rect")), lst(area.get("polygon"))
    if len(rect) == 4:
        x, y, w, h = (word(v) for v in rect)
        return f"{w}×{h} in at ({x}, {y})"
    if polygon:
        return "polygon " + " ".join(str(point(p)) for p in polygon)
    return None


def facts(document: Mapping[str, Any]) -> Facts:
    """Every fact of a table keyed by what it is about, not by list index."""
    doc = plain_doc(document)
    found = field_facts(doc, TABLE)
    for area in dicts(doc.get("areas")):
        name = str(area.get("name") or area.get("id"))
        found[("piece", name, "shape")] = shape(area)
        found[("piece", name, "effects")] = list(lst(area.get("effects")))
    for side, zone in d(doc.get("deployment")).items():
        found[("zone", str(side))] = shape(d(zone))
    for side, at in d(doc.get("entries")).items():
        found[("entry point", str(side))] = point(at)
    for objective in dicts(doc.get("objectives")):
        name = str(objective.get("name"))
        found[("objective", name, "at")] = point(objective.get("point"))
        for key, value in d(objective.get("values")).items():
            found[("objective", name, key)] = value
    return found


def changed(old: Mapping[str, Any], new: Mapping[str, Any]) -> list[str]:
    """The facts that differ between two tables, one sentence each."""
    before, after = facts(old), facts(new)

    def say(key: tuple[str, ...], a: Any, b: Any) -> str | None:
        kind = key[0]
        if kind in ("piece", "objective"):
            anchor = "shape" if kind == "piece" else "at"
            return added_or_changed(key, anchor, a, b, before, after)
        if kind in ("zone", "entry point"):
            return f"{key[1]} {kind}: {word(a)} → {word(b)}"
        return None

    return changes(before, after, say, RANK)


def place_of(field: str, document: Mapping[str, Any]) -> str:
    """Where a check's field is: ``zone <side>``, ``entry point <side>``, ``piece <name>``,
    ``objective <name>``, else ``field <path>``."""
    match = re.match(r"^(deployment|entries)\.([^.\[]+)", field)
    if match:
        return f"{'zone' if match.group(1) == 'deployment' else 'entry point'} {match.group(2)}"
    match = re.match(r"^(areas|objectives)\[(\d+)\]", field)
    if match:
        item = item_at(document, match.group(1), int(match.group(2)))
        if match.group(1) == "areas" and (item.get("name") or item.get("id")):
            return f"piece {item.get('name') or item.get('id')}"
        if match.group(1) == "objectives" and item.get("name"):
            return f"objective {item['name']}"
    return field_place(field)


class TableDocuments:
    """The document part of Barcelona's ``CustomScenarios`` (see :mod:`service.rules.base`)."""

    def blank_document(self, spec: Mapping[str, Any]) -> dict[str, Any]:
        return blank(spec)

    def drawn(self, document: Mapping[str, Any]) -> dict[str, Any]:
        return board(document)

    def changes(self, old: Mapping[str, Any], new: Mapping[str, Any]) -> list[str]:
        return changed(old, new)

    def place_of(self, field: str, document: Mapping[str, Any]) -> str:
        return place_of(field, document)
