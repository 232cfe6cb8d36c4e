"""``legal_actions``: command templates a side may send now, with suggestions for clients."""

from __future__ import annotations

import math
from typing import Any

from service.rules.barcelona import data, forces, movement, sequence, shooting
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
        return [
            {"type": "buy", "budget": state["budget"][side], "catalogue": catalogue()},
            {"type": "end_muster"},
        ]
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


#: the ``unit`` fields of a ``buy`` command for each kind (the catalogue says what each may be)
BUY_FIELDS = {
    "foot": ["troop_type", "grade", "figures", "attributes", "bombs", "lmg"],
    "cavalry": ["troop_type", "grade", "figures", "attributes", "bombs", "lmg"],
    "team": ["weapon", "troop_type", "grade", "crew"],
    "vehicle": ["vehicle"],
    "aircraft": [],
}


def catalogue() -> dict[str, Any]:
    """What a ``buy`` may describe and what it costs (Troop Type table, Attribute Costs, AFVs
    table), for a client to build its form; the command is ``{"type": "buy", "unit": {"kind",
    ...the kind's fields}}``.  Figures pay their troop type's points per figure plus each bought
    attribute (cavalry is bought as the ``cavalry`` kind), less one without bombs; each LMG is
    paid apart; a team pays per crew figure; a vehicle and an aeroplane pay a flat price.
    Placeholder prices keep their ``placeholder`` flag and note."""
    troops = data.load("troops")
    costs = troops["attribute_costs"]
    afvs = data.load("afvs")
    crew = troops["placeholders"]["crew"]
    flat = {"tank": costs["tank"], "armoured_car": costs["armoured_car"]}
    vehicles = {
        name: {
            "points": flat[spec["kind"]],
            "kind": spec["kind"],
            "class": spec["class"],
            "armament": spec["armament"],
            **_marker(spec),
        }
        for name, spec in afvs["vehicles"].items()
    }
    lorry = costs["lorry"]
    for name in afvs["soft_vehicles"]:
        vehicles[name] = {"points": lorry["points"], "kind": "soft", **_marker(lorry)}
    return {
        "rule": "Attribute Costs",
        "kinds": BUY_FIELDS,
        "troop_types": {
            name: {
                "attributes": list(t["attributes"]),
                "grades": [
                    {
                        "grade": i,
                        "morale": g["morale"],
                        "tactical": g["tactical"],
                        "points": g["points"],
                    }
                    for i, g in enumerate(t["grades"])
                ],
            }
            for name, t in troops["troop_types"].items()
        },
        "attributes": {a: costs["per_figure"][a] for a in forces.ATTRIBUTES if a != "cavalry"},
        "per_figure": {
            "cavalry": costs["per_figure"]["cavalry"],
            "no_bombs": costs["per_figure"]["no_bombs"],
        },
        "lmg": costs["lmg"],
        "teams": {
            w: {"per_crew": costs["teams"][w]["per_crew"], **_marker(costs["teams"][w])}
            for w in forces.TEAM_WEAPONS
        },
        "crew": {"default": crew["value"], **_marker(crew)},
        "vehicles": vehicles,
        "aircraft": {"points": costs["aeroplane"]},
        "sides": _marker(troops["placeholders"]["side_of_troop_types"]),
    }


def _marker(spec: dict[str, Any]) -> dict[str, Any]:
    """A placeholder flag and note carried over from the data."""
    return {"placeholder": True, "note": spec["note"]} if spec.get("placeholder") else {}
