"""Helpers for the Bizkaya rule tests: small four-digit boards in the scenario format."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from service.rules.base import State
from service.rules.bizkaya import SYSTEM
from service.rules.bizkaya.setup import state_from_raw
from tests.support.rules_play import first, player, types


def unit(
    uid: str,
    side: str,
    hex_: str | None,
    *,
    kind: str = "brigade",
    attack: int = 4,
    defence: int = 4,
    morale: int = 3,
    steps: int = 3,
    zoc: int = 0,
    barrage: int = 0,
) -> dict[str, Any]:
    values: dict[str, float] = (
        {"barrage": barrage}
        if kind.startswith("artillery")
        else {"attack": attack, "defence": defence, "morale": morale, "zoc": zoc}
    )
    return {
        "id": uid,
        "side": side,
        "type": kind,
        "name": uid,
        "steps": steps,
        "values": values,
        "hex": hex_,
    }


def board_state(
    units: Iterable[dict[str, Any]],
    *,
    terrain: dict[str, str] | None = None,
    hexsides: list[dict[str, Any]] | None = None,
    places: list[dict[str, Any]] | None = None,
    hex_features: dict[str, list[str]] | None = None,
    reinforcements: list[dict[str, Any]] | None = None,
    data: dict[str, Any] | None = None,
) -> State:
    """An 8x8 four-digit board (0101-0808); Nationalist supply at 0104, Republican at 0804."""
    raw = {
        "format": "arbiter-scenario/1",
        "id": "test",
        "system": "bizkaya",
        "title": "test",
        "sides": ["nationalist", "republican"],
        "turns": 12,
        "map": {
            "coordinates": "four-digit",
            "orientation": "flat",
            "offset": "odd",
            "bounds": {"min_col": 1, "max_col": 8, "min_row": 1, "max_row": 8},
            "terrain": terrain or {},
            "hex_features": hex_features or {},
            "hexsides": hexsides or [],
            "places": places or [],
            "supply_sources": {"nationalist": ["0104"], "republican": ["0804"]},
        },
        "units": list(units),
        "reinforcements": reinforcements or [],
        "data": {
            "leaders": [
                {"id": "garcia-valino", "name": "Garcia Valino", "side": "nationalist"},
                {"id": "alonso-vega", "name": "Alonso Vega", "side": "nationalist"},
            ],
            **(data or {}),
        },
    }
    state = state_from_raw(raw)
    state["trenches"] = {}
    return state


def ready(
    state: State, side: str, phase: str = "operations", impulse: int = 1, weather: str = "warm"
) -> State:
    """Put the game in ``side``'s phase with full movement points (13)."""
    state.update(
        phase=phase, side=side, impulse=impulse, weather=weather, stage="move", acted=False
    )
    for u in state["units"].values():
        u["mp"] = 6
    return state


play = player(SYSTEM)
event = first
assert SYSTEM.previews and SYSTEM.drawing and SYSTEM.scenario_checks
PREVIEWS, DRAWING, CHECKS = SYSTEM.previews, SYSTEM.drawing, SYSTEM.scenario_checks

__all__ = [
    "CHECKS",
    "DRAWING",
    "PREVIEWS",
    "board_state",
    "event",
    "play",
    "ready",
    "types",
    "unit",
]
