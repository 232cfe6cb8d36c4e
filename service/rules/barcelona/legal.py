"""``legal_actions``: command templates a side may send now, with suggestions for clients."""

from __future__ import annotations

import math
from typing import Any

from service.rules.barcelona import data, movement, sequence, shooting
from service.rules.barcelona import geometry as geo
from service.rules.barcelona import table as tb
from service.rules.base import State


def legal_actions(state: State, side: str) -> list[dict[str, Any]]:
    if side not in sequence.acting(state):
        return []
    phase = state["phase"]
    if phase == "muster":
        if state["options"]["forces"] == "column":
            return [
                {
                    "type": "generate_column",
                    "troop_types": sorted(data.load("troops")["troop_types"]),
                }
            ]
        return [{"type": "buy", "budget": state["budget"][side]}, {"type": "end_muster"}]
    if phase == "deployment":
        return _deployment(state, side)
    if phase == "orders":
        units = sorted(
            u["id"]
            for u in state["units"].values()
            if u["side"] == side and u["status"] in ("table", "reserve")
        )
        return [{"type": "write_orders", "units": units}]
    if phase == "movement":
        return _movement(state, side)
    if phase == "shooting":
        found: list[dict[str, Any]] = [
            {"type": "shoot", **option} for option in shooting.shooters(state, side, state["step"])
        ]
        return found + [{"type": "end_step"}]
    return []


def _deployment(state: State, side: str) -> list[dict[str, Any]]:
    waiting = sorted(
        u["id"] for u in state["units"].values() if u["side"] == side and u["status"] == "unplaced"
    )
    if not waiting:
        return [{"type": "end_deployment"}]
    zone = state["deployment"][side]
    x0, y0, w, h = zone.get("rect", (0, 0, 0, 0))
    facing = 90.0 if side == state["attacker"] else 270.0
    front = y0 + h - 1 if facing == 90.0 else y0 + 1
    taken = len(
        [u for u in state["units"].values() if u["side"] == side and u["status"] == "table"]
    )
    out = []
    for i, uid in enumerate(waiting):
        u = tb.unit(state, uid)
        ranks = 4 if u["figures"] > 8 else 1
        slot = (taken + i) * 6 + 3
        suggest = (
            {"x": float(x0 + slot % max(w, 1)), "y": float(front), "facing": facing, "ranks": ranks}
            if w
            else None
        )
        out.append({"type": "deploy", "unit": uid, "zone": zone, "suggest": suggest})
        out.append({"type": "reserve", "unit": uid})
    return out


def _movement(state: State, side: str) -> list[dict[str, Any]]:
    if state["moving"]:
        u = tb.unit(state, state["moving"])
        return [
            {
                "type": "move",
                "unit": u["id"],
                "max_length": u["rolled"]["distance"],
                "going": u["rolled"]["going"],
                "suggest": {
                    "path": movement.suggested_path(state, u),
                    "facing": _facing_to_enemy(state, u),
                },
            }
        ]
    out: list[dict[str, Any]] = []
    for u in movement.movable(state, side):
        going = "bad" if "bad_going" in tb.effects_at(state, tb.where(u)) else "good"
        out.append(
            {
                "type": "roll_move",
                "unit": u["id"],
                "goings": list(movement.GOINGS),
                "suggest": {"going": going},
            }
        )
        out.append({"type": "hold", "unit": u["id"]})
    return out + [{"type": "end_movement"}]


def _facing_to_enemy(state: State, u: tb.Unit) -> float:
    enemies = tb.on_table(state, tb.other(state, u["side"]))
    if not enemies:
        return float(u["facing"])
    target = min(enemies, key=lambda e: geo.dist(tb.where(u), tb.where(e)))
    return round(math.degrees(math.atan2(target["y"] - u["y"], target["x"] - u["x"])) % 360, 1)
