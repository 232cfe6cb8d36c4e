"""Small hand-built Backbone states for rule tests: a scenario state with its map and units replaced."""

from __future__ import annotations

from typing import Any

from service.rules.backbone import SYSTEM
from tests.support.rules_play import first, player

__all__ = ["REQUIRED_CITIES", "board", "counter", "first", "play", "state"]

_BASE = SYSTEM.initial_state("scenario-1", {})


def counter(
    uid: str,
    side: str,
    hex_: str | None,
    *,
    type_: str = "infantry",
    nation: str | None = None,
    formation: str | None = None,
    attack: int = 4,
    defense: int = 4,
    mp: int = 3,
    efficiency: int = 2,
    steps: int = 3,
    **extra: Any,
) -> dict[str, Any]:
    return {
        "id": uid,
        "name": uid,
        "side": side,
        "type": type_,
        "nation": nation or ("us" if side == "allied" else "es"),
        "formation": formation or ("WTF" if side == "allied" else "IX CE"),
        "attack": attack,
        "defense": defense,
        "support": 2 if side == "allied" else 1,
        "mp": mp,
        "efficiency": efficiency,
        "steps": steps,
        "max_steps": extra.pop("max_steps", steps),
        "hex": hex_,
        "seq": 0,
        "status": extra.pop("status", "map" if hex_ else "pending"),
        "supplied": extra.pop("supplied", True),
        **extra,
    }


def board(
    rows: int = 12,
    cols: int = 20,
    terrain: dict[str, str] | None = None,
    hexsides: list[tuple[str, str, list[str]]] | None = None,
    places: list[tuple[str, str, bool]] | None = None,
    features: dict[str, list[str]] | None = None,
    sources: dict[str, list[str]] | None = None,
) -> dict[str, Any]:
    """A map dict in the scenario format: labels row,column (see the map notes)."""
    return {
        "coordinates": "column,row",
        "orientation": "pointy",
        "offset": "odd",
        "bounds": {"min_col": 1, "max_col": rows, "min_row": 1, "max_row": cols},
        "default_terrain": "clear",
        "terrain": terrain or {},
        "hex_features": features or {},
        "hexsides": [{"hexes": [a, b], "features": f} for a, b, f in hexsides or []],
        "places": [
            {"name": n, "hex": h, "kind": "city", "values": {"protectorate": 1.0 if p else 0.0}}
            for n, h, p in places or []
        ],
        "supply_sources": sources or {},
        "entries": [],
    }


REQUIRED_CITIES = [
    ("Port-Lyautey", "12,1", False),
    ("Taourirt", "12,20", False),
    ("Ceuta", "1,20", True),
    ("Tangier", "1,19", True),
]


def state(
    units: list[dict[str, Any]],
    mapd: dict[str, Any] | None = None,
    step: str = "allied_movement",
    turn: int = 2,
    **extra: Any,
) -> dict[str, Any]:
    import copy

    st = copy.deepcopy(_BASE)
    st["map"] = mapd or board(places=REQUIRED_CITIES)
    st["units"] = {}
    for seq, u in enumerate(units, start=1):
        u["seq"] = seq
        st["units"][u["id"]] = u
    st["seq"] = len(units)
    st["step"] = step
    st["turn"] = turn
    st["air"] = {"allied": 6, "spanish": 1}
    st["naval"] = {"points": 2, "used_coasts": []}
    st["data"] = {**st["data"], "victory_road": [], "spanish_zone_max_row": 6}
    st.update(extra)
    return st


play = player(SYSTEM)
