"""The commands a side may send now, as templates (moves list each stack's reachable hexes)."""

from __future__ import annotations

from typing import Any

from service.rules.base import RuleViolation, State
from service.rules.bizkaya import barrage, battle, board, moves, sequence


def legal_actions(state: State, side: str) -> list[dict[str, Any]]:
    if side != sequence.acting_side(state):
        return []
    combat = state.get("combat")
    if combat:
        return _combat(state, side)
    phase = state["phase"]
    if phase == "weather":
        return [{"type": "roll_weather"}]
    if phase == "admin":
        return _admin(state, side)
    if phase == "supply":
        return [
            {"type": "entrench", "unit": u["id"]}
            for u in board.on_map(state, side)
            if u["type"] == "brigade"
            and (state["trenches"].get(u["hex"]) or {}).get("side") != side
        ] + [{"type": "end_supply"}]
    return _impulse(state, side)


def _admin(state: State, side: str) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    if side == "nationalist":  # 8: one template per leader and unit, sent as it is
        units = sorted(u["id"] for u in board.on_map(state, side))
        out += [
            {"type": "place_leader", "leader": lid, "unit": uid}
            for lid, leader in state["leaders"].items()
            if leader["unit"] is None
            for uid in units
        ]
    for hex_ in board.overstacked(state, side):
        out.append(
            {"type": "eliminate", "units": [u["id"] for u in board.stack(state, hex_)], "hex": hex_}
        )
    candidates = [
        u["id"]
        for u in board.on_map(state, side)
        if board.is_combat(u)
        and not u["reserve"]
        and not (u["echelon"] == 1 and board.adjacent_to_enemy(state, u["hex"], side))
    ]
    if candidates:
        out.append({"type": "reserve", "units": candidates})
    return out + [{"type": "end_admin"}]


def _impulse(state: State, side: str) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    enemy = board.other(side)
    if state["phase"] == "reserve" and state["stage"] == "move":
        waiting = [u["id"] for u in board.on_map(state, side) if u["reserve"]]
        if waiting:
            out.append({"type": "activate", "units": waiting})
    if state["stage"] == "move":
        stacks: dict[str, list[dict[str, Any]]] = {}
        for u in board.on_map(state, side):
            if moves.may_act(state, u) and moves.available_mp(state, u) > 0:
                stacks.setdefault(u["hex"], []).append(u)
        cost = board.step_cost(state, side)
        for _hex, units in sorted(stacks.items()):
            paths = moves.destinations(state, units, cost)
            if paths:
                out.append({"type": "move", "units": [u["id"] for u in units], "paths": paths})
    targets = sorted(board.occupied_by(state, enemy))
    if state["stage"] != "attack":
        for hex_ in targets:
            if hex_ in state["barraged"]:
                continue
            try:
                plan = barrage.check(
                    state,
                    side,
                    {
                        "hex": hex_,
                        "artillery": [u["id"] for u in barrage.artillery_for(state, side, hex_)],
                    },
                )
            except RuleViolation:  # a hex that cannot be barraged is simply not listed
                continue
            out.append({"type": "barrage", "hex": hex_, "artillery": plan["artillery"], "air": 0})
    for hex_ in targets:
        if hex_ in state["attacked_hexes"]:
            continue
        units = battle.attackers_for(state, side, hex_)
        if units:
            out.append({"type": "attack", "hex": hex_, "units": [u["id"] for u in units]})
    if state["phase"] == "operations" and not state["acted"]:
        out.append({"type": "stop_operations"})
    return out + [{"type": "end_impulse"}]


def _combat(state: State, side: str) -> list[dict[str, Any]]:
    c = state["combat"]
    if c["stage"] == "leaders":
        return [{"type": "choose_leader", "unit": u["id"]} for u in battle.candidates(state, side)]
    if c["stage"] == "retreat":
        r = c["retreat"]
        out: list[dict[str, Any]] = [{"type": "hold"}] if r["may_hold"] else []
        moves_: list[dict[str, Any]] = []
        for _hex, group in sorted(battle.retreat_groups(state).items()):
            paths = battle.legal_paths(state, side, group, r["away_from"], {})
            if paths:
                moves_.append({"units": [u["id"] for u in group], "path": paths[0], "paths": paths})
        return out + [{"type": "retreat", "moves": moves_}]
    return [
        {"type": "advance", "units": list(c["advance"]["units"])},
        {"type": "advance", "units": []},
    ]
