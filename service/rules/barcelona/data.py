"""The sheet's tables, encoded as printed in ``data/*.json``, and the scenario files."""

from __future__ import annotations

import json
import re
from functools import cache
from pathlib import Path
from typing import Any

DATA_DIR = Path(__file__).parent / "data"
SCENARIO_DIR = Path(__file__).parent / "scenarios"
_DICE = re.compile(r"^(\d*)[dD]6([+-]\d+)?$")


@cache
def load(name: str) -> Any:
    """One data file (``weapons``, ``afvs``, ``movement``, ``troops``, ``column``, ``morale``,
    ``house``); treat the value as read-only."""
    with (DATA_DIR / f"{name}.json").open(encoding="utf-8") as handle:
        return json.load(handle)


@cache
def scenario(scenario_id: str) -> Any:
    path = SCENARIO_DIR / f"{scenario_id}.json"
    if not path.is_file():
        return None
    with path.open(encoding="utf-8") as handle:
        return json.load(handle)


def scenario_ids() -> list[str]:
    return sorted(p.stem for p in SCENARIO_DIR.glob("*.json"))


def dice_expr(printed: str) -> tuple[int, int]:
    """A printed movement entry as (number of d6, modifier): ``"2d6"`` (2, 0), ``"d6-2"`` (1, -2),
    ``"1D6+2"`` (1, 2), ``"0"`` (0, 0)."""
    if printed.strip() == "0":
        return 0, 0
    match = _DICE.match(printed.strip())
    if match is None:
        raise ValueError(f"not a dice expression: {printed!r}")
    return int(match.group(1) or 1), int(match.group(2) or 0)


def weapon(name: str) -> dict[str, Any]:
    return dict(load("weapons")["weapons"][name])


def house(name: str) -> Any:
    return load("house")[name]["value"]


def vehicle(name: str) -> dict[str, Any] | None:
    afvs = load("afvs")
    found = afvs["vehicles"].get(name) or afvs["soft_vehicles"].get(name)
    return dict(found) if found else None
