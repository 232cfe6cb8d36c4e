"""The printed tables of Closing the Merida Pocket, encoded as JSON in ``data/`` and read once."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

DATA_DIR = Path(__file__).parent / "data"


@cache
def load(name: str) -> Any:
    """One data file (``crt``, ``tec``, ``movement``, ``victory``, ``setup``, ``reinforcements``,
    ``air``); treat the value as read-only."""
    with (DATA_DIR / f"{name}.json").open(encoding="utf-8") as handle:
        return json.load(handle)


def crt_columns() -> list[str]:
    return list(load("crt")["columns"])


def crt_result(column: str, roll: int) -> str:
    """The CRT cell for a column and a roll already clamped to 0-7."""
    table = load("crt")
    return str(table["rows"][roll]["results"][table["columns"].index(column)])


def crt_effect(result: str) -> dict[str, Any]:
    return dict(load("crt")["results"][result])


def allowance(unit_type: str) -> int:
    movement = load("movement")
    return int(movement["allowances"].get(unit_type, movement["derived"].get(unit_type, 0)))


def air_points(side: str, turn: int) -> dict[str, int]:
    """Air points of each type the Air Point availability table gives ``side`` on ``turn``."""
    for row in load("air")["availability"][side]:
        first, last = row["turns"]
        if first <= turn and (last is None or turn <= last):
            return dict(row["points"])
    return {}


def air_counters(side: str) -> dict[str, int]:
    """How many counters of each air type a side owns: the most the table ever gives at once."""
    counters: dict[str, int] = {}
    for row in load("air")["availability"][side]:
        for kind, number in row["points"].items():
            counters[kind] = max(counters.get(kind, 0), number)
    return counters


def republican_air_variant(turn: int) -> bool:
    """Rule 8: the Republican loss roll on turns 1-3 and 13 and after."""
    for first, last in load("air")["loss_roll"]["republican_variant"]["turns"]:
        if first <= turn and (last is None or turn <= last):
            return True
    return False


def victory_level(points: int) -> dict[str, Any]:
    for row in load("victory")["levels"]:
        if points >= row["min"] and (row["max"] is None or points <= row["max"]):
            return dict(row)
    return dict(load("victory")["levels"][-1])


def tables() -> dict[str, Any]:
    """The printed tables as data for clients: the CRT and its results, the TEC, the movement,
    victory and air tables, and the sequence of play (rule 4: each step with its phase id as
    ``phase`` reports it, ``automatic`` when the server runs it)."""
    crt = load("crt")
    return {
        "crt": {
            "columns": list(crt["columns"]),
            "rows": [{"roll": r["roll"], "results": list(r["results"])} for r in crt["rows"]],
        },
        "crt_results": {k: v["text"] for k, v in crt["results"].items()},
        "tec": load("tec")["terrain"],
        "movement": load("movement")["allowances"],
        "victory_points": load("victory")["points"],
        "victory_levels": load("victory")["levels"],
        "air": load("air")["availability"],
        "sequence": load("sequence"),
    }
