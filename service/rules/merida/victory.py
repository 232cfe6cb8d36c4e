"""Rule 11: victory points for the places held at the end, and the Victory Level chart."""

from __future__ import annotations

from typing import Any

from service.rules.base import State
from service.rules.merida import board, data


def holder(state: State, hex_: str, status: dict[str, tuple[set[str], set[str]]]) -> str | None:
    """The side controlling a place: occupying it with a unit in command AND in supply."""
    for unit in board.units_at(state, hex_):
        if not board.is_combat(unit):
            continue
        out_supply, out_command = status[unit["side"]]
        if unit["id"] not in out_supply and unit["id"] not in out_command:
            return str(unit["side"])
    return None


def final_result(state: State) -> dict[str, Any]:
    status = {}
    for side in board.SIDES:
        out_supply, out_command = board.status_of(state, side)
        status[side] = (set(out_supply), set(out_command))
    points = {side: 0 for side in board.SIDES}
    places = []
    for row in data.load("victory")["points"]:
        held_by = holder(state, row["hex"], status)
        if held_by is not None:
            points[held_by] += row[held_by]
        places.append(
            {
                "name": row["name"],
                "hex": row["hex"],
                "held_by": held_by,
                "points": row[held_by] if held_by else 0,
            }
        )
    for side, adjustment in state["vp_adjustments"].items():
        points[side] += adjustment
    nat, rep = points["nationalist"], points["republican"]
    if nat == rep:
        return {
            "winner": None,
            "outcome": "draw",
            "level": "Draw",
            "points": points,
            "places": places,
            "rule": "11",
        }
    leader = "nationalist" if nat > rep else "republican"
    level = data.victory_level(points[leader])
    winner = {"win": leader, "loss": board.other(leader), "draw": None}[level["outcome"]]
    return {
        "winner": winner,
        "outcome": "draw" if winner is None else "win",
        "level": level["level"],
        "level_of": leader,
        "points": points,
        "places": places,
        "rule": "11",
    }
