"""A club scenario's counter list as CSV: exported one row per unit with a column per field and
per value, and imported back as the ordinary ``unit_*`` edits that make the draft's list the
file's (only what differs; a cell equal to its value keeps it, placeholder note and all).
See docs/scenario-library.md ("Counter list as CSV")."""

from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Mapping
from typing import Any

from service.domain.errors import Invalid
from service.domain.scenarios import inside, plain

FIXED_COLUMNS = ("id", "side", "type", "name", "steps", "hex", "notes")


def units_csv(document: Mapping[str, Any]) -> str:
    """The counter list: one row per unit, a column per field and per value (``attack`` ...)."""
    units = [u for u in plain(dict(document)).get("units") or [] if isinstance(u, dict)]
    values: list[str] = []
    for unit in units:
        for name in unit.get("values") or {}:
            if name not in values:
                values.append(name)
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow([*FIXED_COLUMNS, *values])
    for unit in units:
        row = [_cell(unit.get(c)) for c in FIXED_COLUMNS]
        row += [_cell((unit.get("values") or {}).get(name)) for name in values]
        writer.writerow(row)
    return out.getvalue()


def _cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    return json.dumps(value)


NUMBER = re.compile(r"^-?\d+(\.\d+)?([eE][-+]?\d+)?$")


def _value(cell: str) -> Any:
    """A cell as the value it stands for: a number when it reads as one, else the text (which the
    checks then report at its place when the field wants a number)."""
    return json.loads(cell) if NUMBER.match(cell.strip()) else cell


def csv_units(text: str) -> list[dict[str, Any]]:
    """The units of a counter-list CSV (see :func:`units_csv`); Invalid naming the row and column
    when it has no ``id`` column or a row is longer than the header."""
    rows = list(csv.reader(io.StringIO(text)))
    if not rows or "id" not in rows[0]:
        raise Invalid("not a counter list", {"csv": ["the first row names the columns, id first"]})
    header = [h.strip() for h in rows[0]]
    units = []
    for number, row in enumerate(rows[1:], start=2):
        if not any(cell.strip() for cell in row):
            continue
        if len(row) > len(header):
            raise Invalid("a row is too long", {f"csv.row {number}": ["more cells than columns"]})
        unit: dict[str, Any] = {"values": {}}
        for column, cell in zip(header, row, strict=False):
            if cell == "":
                continue
            if column in ("id", "side", "type", "name", "hex", "notes"):
                unit[column] = cell
            elif column == "steps":
                unit[column] = _value(cell)
            else:
                unit["values"][column] = _value(cell)
        units.append(unit)
    return units


def unit_changes(document: Mapping[str, Any], units: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The changes that make ``document``'s counter list ``units``: only what differs (a cell equal
    to its value keeps it, placeholder note and all)."""
    current = {
        str(plain(inside(u)).get("id")): plain(inside(u))
        for u in inside(document.get("units") or [])
        if isinstance(inside(u), dict)
    }
    changes: list[dict[str, Any]] = []
    seen = set()
    for unit in units:
        uid = str(unit.get("id"))
        seen.add(uid)
        old = current.get(uid)
        if old is None:
            changes.append({"kind": "unit_added", "unit": unit})
            continue
        for field in FIXED_COLUMNS[1:]:
            if old.get(field) != unit.get(field) and not (
                field == "steps" and unit.get(field) is None and old.get(field) == 1
            ):
                changes.append(
                    {"kind": "unit_edited", "unit": uid, "field": field, "value": unit.get(field)}
                )
        olds, news = old.get("values") or {}, unit.get("values") or {}
        for name in [*olds, *[n for n in news if n not in olds]]:
            if olds.get(name) != news.get(name):
                changes.append(
                    {
                        "kind": "unit_edited",
                        "unit": uid,
                        "field": f"values.{name}",
                        "value": news.get(name),
                    }
                )
    for uid in current:
        if uid not in seen:
            changes.append({"kind": "unit_removed", "unit": uid})
    return changes
