"""The tables the rulebook names but does not print (CRT, intensity, barrage, weather, terrain) and
the game's own numbers, read from ``data/tables/*.json``.

Every file may wrap a value as ``{"placeholder": true, "value": ..., "note": ...}`` (the scenario
format's marker, docs/scenario-format.md): the value is used, and :func:`placeholders` lists it so
that ``arbiter scenarios check`` reports it.  :func:`example_problems` checks the tables against the
rulebook's worked examples, so a club's replacement tables are checked too.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

from service.rules.kernel.odds import Odds, OddsColumns
from service.rules.kernel.tables import Lookup, ResultTable
from service.rules.scenario.placeholders import Placeholder, unwrap

TABLE_DIR = Path(__file__).parent / "data" / "tables"
NAMES = ("crt", "intensity", "barrage", "weather", "terrain", "game")


@cache
def _load(name: str) -> tuple[Any, tuple[Placeholder, ...]]:
    raw = json.loads((TABLE_DIR / f"{name}.json").read_text(encoding="utf-8"))
    value, found = unwrap(raw, f"tables/{name}.json")
    return value, tuple(found)


def table(name: str) -> Any:
    """One data file with its placeholder wrappers replaced by their values (read-only)."""
    return _load(name)[0]


def placeholders() -> list[Placeholder]:
    return [p for name in NAMES for p in _load(name)[1]]


def game() -> dict[str, Any]:
    return table("game")


def terrain() -> dict[str, Any]:
    return table("terrain")


@cache
def crt() -> ResultTable:
    data = table("crt")
    return ResultTable("crt", data["columns"], {r["roll"]: r["results"] for r in data["rows"]})


def odds(attack: float, defence: float) -> Odds:
    """13: the ratio rounded down (20:3 is 6:1); below the first column as the table file says."""
    below = "first" if table("crt")["below_first_column"] == "first" else "none"
    return OddsColumns(table("crt")["columns"]).odds(attack, defence, below_min=below)


def crt_lookup(column: str, total: int, modifier: int) -> tuple[Lookup, str, bool]:
    """The CRT cell for two dice totalling ``total`` plus ``modifier``: (lookup, code, shaded)."""
    lookup = crt().lookup(column, total, modifier)
    cell = lookup.result
    return lookup, cell.rstrip("*"), cell.endswith("*")


def crt_effect(code: str) -> dict[str, Any]:
    return dict(table("crt")["results"][code])


@cache
def intensity_table() -> ResultTable:
    data = table("intensity")
    return ResultTable(
        "intensity", data["columns"], {r["roll"]: r["results"] for r in data["rows"]}
    )


def intensity(die: int, morale: int) -> int:
    """13: the steps lost by the side whose leader has ``morale``, against the other side's die."""
    column = str(min(max(morale, 1), 6))
    return int(intensity_table().lookup(column, die).result)


@cache
def barrage_table() -> ResultTable:
    data = table("barrage")
    return ResultTable("barrage", data["columns"], {r["roll"]: r["results"] for r in data["rows"]})


def barrage_column(factors: float) -> str | None:
    """12: the column closest to the factors firing but not higher; None below the first."""
    found = None
    for column in table("barrage")["columns"]:
        if float(column) <= factors:
            found = column
    return found


def barrage_effect(code: str) -> dict[str, Any]:
    return dict(table("barrage")["results"][code])


@cache
def weather_table() -> ResultTable:
    data = table("weather")
    return ResultTable("weather", data["columns"], {r["roll"]: r["results"] for r in data["rows"]})


def next_weather(previous: str, die: int) -> tuple[str, str]:
    """3: (M / E / NC, the new weather) from the previous weather and the die."""
    code = weather_table().lookup(previous, die).result
    data = table("weather")
    if code == "M":
        return code, data["improving"][previous]
    if code == "E":
        return code, data["worsening"][previous]
    return code, previous


def example_problems() -> list[dict[str, str]]:
    """The rulebook's worked examples against the tables in use: an error for each disagreement."""
    problems: list[dict[str, str]] = []

    def expect(place: str, what: str, got: Any, want: Any) -> None:
        if got != want:
            problems.append(
                {
                    "level": "error",
                    "place": place,
                    "message": f"{what}: the table gives {got}, the rulebook's example {want}",
                }
            )

    ratio = odds(20, 3)
    expect("tables/crt.json", "13 example: 20 against 3", ratio.label, "6:1")
    forest = terrain()["combat_modifier"]["forest"]
    expect(
        "tables/terrain.json", "13 example: dice 10, +3 morale, forest: final", 10 + 3 + forest, 12
    )
    if ratio.label is not None:
        expect("tables/crt.json", "13 example: 12 on 6:1", crt_lookup(ratio.label, 12, 0)[1], "DR2")
    expect("tables/intensity.json", "13 example: a 5 against morale 2", intensity(5, 2), 1)
    expect("tables/intensity.json", "13 example: a 5 against morale 5", intensity(5, 5), 2)
    column = barrage_column(14)
    expect("tables/barrage.json", "12 example: 14 factors", column, "12")
    if column is not None:
        modifier = table("barrage")["modifiers"]["entrenched"]["value"]
        code = barrage_table().lookup(column, 5, modifier).result
        expect("tables/barrage.json", "12 example: a 5 modified to 4 on column 12", code, "1")
    expect(
        "tables/weather.json", "3 example: Rainy and a 2", next_weather("rainy", 2), ("E", "winter")
    )
    return problems
