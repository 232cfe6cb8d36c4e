"""Supply (12): sources per side, lines blocked by enemy units, enemy ZOC (negated by a friendly unit,
7.2) and impassable hexes, of any length."""

from __future__ import annotations

from typing import Any

from service.rules.backbone import geography as geo
from service.rules.backbone.units import State, Unit, enemy, occupied, on_map, tags
from service.rules.kernel.supply import standard_line, supplied_hexes


def sources(state: State, side: str, nation: str | None = None) -> list[str]:
    """Valid sources (12.1): Port-Lyautey for all Allied units, Taourirt once the Strait is Allied,
    the beachhead for British units; Ceuta and Melilla for the Spanish and Germans -- while held."""
    board = geo.board(state)
    found = [h for h in board.supply_sources.get(side, ()) if geo.controller(state, h) == side]
    if side == "allied":
        taourirt = geo.city_hex(state, "Taourirt")
        if state["strait"]["open"] and geo.controller(state, taourirt) == "allied":
            found.append(taourirt)
        if nation == "uk" and state.get("beachhead"):
            found.append(state["beachhead"])
    return found


def reach(state: State, side: str, from_hexes: list[str]) -> dict[str, int]:
    """Every hex a supply line from ``from_hexes`` reaches (12.1, 7.2)."""
    line = standard_line(
        enemy_units=occupied(state, enemy(side)),
        enemy_zoc=geo.enemy_zoc(state, side),
        friendly_units=occupied(state, side),
        extra=lambda _frm, to: not geo.impassable(state, to),
    )
    return supplied_hexes(geo.board(state).grid, from_hexes, line)


def determine(state: State, side: str) -> dict[str, Any]:
    """Which units of a side are in supply, and which British units reach Port-Lyautey (12.3)."""
    general = reach(state, side, sources(state, side))
    british = reach(state, side, sources(state, side, "uk")) if side == "allied" else general
    port = geo.board(state).supply_sources.get("allied", ())
    to_port = reach(state, side, list(port)) if side == "allied" else {}
    out: list[str] = []
    linked: list[str] = []
    for u in on_map(state, side):
        if "always_supplied" in tags(u) or _landed_this_turn(state, u):
            continue
        traced = british if u["nation"] == "uk" else general
        if u["hex"] not in traced:
            out.append(u["id"])
        if u["nation"] == "uk" and u["hex"] in to_port:
            linked.append(u["id"])
    return {"side": side, "out_of_supply": sorted(out), "linked_to_port_lyautey": sorted(linked)}


def _landed_this_turn(state: State, u: Unit) -> bool:
    """Units landing (14) or dropping are in supply on the turn they do so."""
    return state["turn"] in (u.get("landed_turn"), u.get("dropped_turn"))
