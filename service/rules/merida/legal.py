"""``legal_actions``: the command templates a side may send now (moves summarised per unit with
the hexes it may reach and a path to each)."""

from __future__ import annotations

from typing import Any

from service.rules.base import State
from service.rules.merida import battle, board, combat, moves, reinforce, sequence


def legal_actions(state: State, side: str) -> list[dict[str, Any]]:
    if sequence.acting_side(state) != side:
        return []
    phase = state["phase"]
    builder = {
        "deployment": _deployment,
        "reinforcements": _reinforcements,
        "movement": _movement,
        "air_attack": _air,
        "air_defense": _air,
        "combat": _combat,
    }[phase]
    return [*builder(state, side), {"type": "end_phase"}]


def _deployment(state: State, side: str) -> list[dict[str, Any]]:
    grid = board.map_of(state).grid
    within = state["deployment"]["within"]
    return [
        {"type": "deploy", "unit": unit_id, "hexes": sorted(grid.within(origin, within))}
        for unit_id, origin in sorted(state["deployment"]["units"].items())
    ]


def _reinforcements(state: State, side: str) -> list[dict[str, Any]]:
    actions: list[dict[str, Any]] = []
    for unit in reinforce.pending_units(state, side):
        hexes = reinforce.legal_placements(state, unit)
        if hexes:
            actions.append({"type": "place_reinforcement", "unit": unit["id"], "hexes": hexes})
    for unit_id in state["pending_removals"]:
        due = state["units"][unit_id]
        if due["side"] != side:
            continue
        if due["status"] == "map":
            actions.append({"type": "remove", "unit": unit_id})
        else:
            actions.append(
                {
                    "type": "remove",
                    "unit": unit_id,
                    "instead": reinforce.substitutes(state, unit_id),
                }
            )
        entry = reinforce.removal_entry(state, unit_id)
        if "may_keep_for_vp" in entry:
            actions.append({"type": "keep", "unit": unit_id, "vp_cost": entry["may_keep_for_vp"]})
    leaders = [u["id"] for u in board.on_map(state, side) if u["type"] == "leader"]
    for (_kind, _formation), ids in sorted(reinforce.reorganizable(state, side).items()):
        actions.append(
            {"type": "reorganize", "units": ids[:3], "return": ids[0], "leaders": leaders}
        )
    return actions


def _movement(state: State, side: str) -> list[dict[str, Any]]:
    actions: list[dict[str, Any]] = []
    committed = {a for o in state["overruns"] for a in o["attackers"]}  # rule 8: they stay
    for unit in sorted(board.on_map(state, side), key=lambda u: u["id"]):
        if unit["moved"] or unit["id"] in committed:
            continue
        for mode in ("rail",) if unit["type"] == "train" else moves.MODES:
            paths = moves.destinations(state, unit, mode)
            if not paths:
                continue
            action = {"type": "move", "units": [unit["id"]], "mode": mode, "paths": paths}
            regain = moves.regain_hexes(state, unit, paths) if mode == "tactical" else None
            if regain is not None:  # rule 10: this unit must move to one of these hexes
                action["must_regain"] = {"line": regain[0], "hexes": regain[1]}
            actions.append(action)
    for hex_ in _enemy_hexes_adjacent(state, side):
        attackers = _eligible_around(state, side, hex_)
        if attackers and not any(o["hex"] == hex_ for o in state["overruns"]):
            assessment = combat.assess(
                battle.situation(state, [state["units"][a] for a in attackers], hex_)
            )
            if assessment["column"] == "6-1":
                actions.append({"type": "declare_overrun", "hex": hex_, "attackers": attackers})
    return actions


def _enemy_hexes_adjacent(state: State, side: str) -> list[str]:
    grid = board.map_of(state).grid
    enemy = board.occupied(state, board.other(side))
    return sorted(
        {n for u in board.on_map(state, side) for n in grid.neighbours(u["hex"]) if n in enemy}
    )


def _eligible_around(state: State, side: str, hex_: str) -> list[str]:
    grid = board.map_of(state).grid
    found = [
        u["id"]
        for n in grid.neighbours(hex_)
        for u in board.units_at(state, n, side)
        if battle.eligible_attacker(state, u) is None
    ]
    kinds = {state["units"][i]["type"] for i in found}
    return sorted(found) if kinds - {"armor", "leader"} else []


def _air(state: State, side: str) -> list[dict[str, Any]]:
    available = sequence.available_air(state, side)
    if not available:
        return []
    return [
        {"type": "allocate_air", "hex": h, "air_available": available}
        for h in sequence.attackable_hexes(state)
    ]


def _combat(state: State, side: str) -> list[dict[str, Any]]:
    actions: list[dict[str, Any]] = []
    if state["advance"]:
        actions.append(
            {
                "type": "advance",
                "units": state["advance"]["units"],
                "path": [state["advance"]["hex"]],
                "extra_mp": state["advance"]["extra_mp"],
            }
        )
    for hex_ in sequence.attackable_hexes(state):
        attackers = _eligible_around(state, side, hex_)
        if attackers:
            actions.append({"type": "attack", "hex": hex_, "attackers": attackers})
    return actions
