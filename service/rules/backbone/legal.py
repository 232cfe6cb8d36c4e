"""``legal_actions``: the command templates a side may send now.  Moves list a path to every hex
the unit may reach (15, 7.1, 9.2); attacks list each target hex with the units that may attack it
(16.1); both are judged on what the side can see (19.2)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from service.rules.backbone import combat_flow, fog
from service.rules.backbone import geography as geo
from service.rules.backbone.movement import destinations, obstacles
from service.rules.backbone.units import State, Unit, enemy, is_armor, is_hq, on_map
from service.rules.base import RuleViolation


def legal_actions(state: State, side: str) -> list[dict[str, Any]]:
    """Templates for ``side``, which the caller has checked is an active side."""
    step = state["step"]
    combat = state.get("combat")
    if combat:
        return _combat_stage(state, combat)
    fixed = _STEPS.get(step)
    if fixed is not None:
        return fixed(state, side)
    seen = visible(state, side)
    if step.endswith("_movement"):
        return [*moves(seen, side), {"type": "end_phase"}]
    return [*attacks(seen, side), {"type": "end_phase"}]


def visible(state: State, side: str) -> State:
    """The state as ``side`` sees it under limited intelligence (19.2), else the state itself:
    moves and attacks are listed from it, so the list never depends on a hidden enemy unit (a
    listed order may then be refused when ``decide`` meets that unit, as at the table)."""
    return fog.view(state, side) if state["options"].get("limited_intelligence") else state


def _combat_stage(state: State, combat: dict[str, Any]) -> list[dict[str, Any]]:
    stage = combat["stage"]
    if stage == "defence":
        return [{"type": "defend", "air": 0, "hq": None, "legion": False}]
    if stage == "baraka":
        return [{"type": "baraka", "reroll": True}, {"type": "baraka", "reroll": False}]
    if stage == "retreat":
        opts = combat_flow.retreat_options(state)
        found: list[dict[str, Any]] = [{"type": "retreat", "to": h} for h in opts["hexes"]]
        return found + [{"type": "retreat", "last_stand": True}]
    return [
        {"type": "advance", "units": [uid]}
        for uid in combat["attackers"]
        if state["units"][uid]["status"] == "map"
    ]


def _events(state: State, side: str) -> list[dict[str, Any]]:
    chits = [{"type": "play_event", "chit": c} for c in state["events"]["hands"][side]]
    return chits + [{"type": "pass"}]


def _amphibious(state: State, side: str) -> list[dict[str, Any]]:
    landing: list[dict[str, Any]] = [{"type": "land", "hex": None, "units": []}]
    return landing + ([{"type": "pass"}] if state["data"]["scenario_number"] == 2 else [])


_STEPS: dict[str, Callable[[State, str], list[dict[str, Any]]]] = {
    "deployment": lambda s, side: [{"type": "deploy", "positions": {}, "fortifications": []}],
    "allied_deployment": lambda s, side: [{"type": "deploy", "positions": {}}],
    "administrative": lambda s, side: [{"type": "begin_turn"}],
    "events": _events,
    "strait": lambda s, side: [
        {"type": "roll_strait", "air_point": False},
        {"type": "roll_strait", "air_point": True},
    ],
    "replacements": lambda s, side: [{"type": "replace", "steps": []}],
    "amphibious": _amphibious,
    "agreement": lambda s, side: [
        {"type": "vote_end", "end": True},
        {"type": "vote_end", "end": False},
    ],
}


def moves(state: State, side: str) -> list[dict[str, Any]]:
    """One ``move`` per unit that may still move, with ``paths: {hex: [start, ..., hex]}``: the
    cheapest path to each destination, found with the costs and stops ``decide`` checks, on the
    state as the side sees it."""
    found = []
    around = obstacles(state, side)  # the same for every unit of the side
    for u in sorted(on_map(state, side), key=lambda u: u["id"]):
        if u["id"] in state["moved"] or u.get("landed_turn") == state["turn"]:
            continue  # 15.1 once per phase; 14 not after landing
        paths = {h: list(r.path) for h, r in sorted(destinations(state, u, around).items())}
        if paths:
            found.append({"type": "move", "unit": u["id"], "paths": paths})
    return found


def attacks(seen: State, side: str) -> list[dict[str, Any]]:
    """One ``attack`` per target hex and group of units that may attack it together, with every
    eligible unit listed (the player may leave some out), on the state as the side sees it."""
    grid = geo.board(seen).grid
    own = [u for u in on_map(seen, side) if not is_hq(u)]
    found: list[dict[str, Any]] = []
    exploit = seen.get("exploit_target")
    if exploit:
        units = [
            u for u in own if u["id"] in seen["exploiters"] and grid.adjacent(u["hex"], exploit)
        ]
        found += _templates(seen, side, exploit, units, exploitation=True)
    targets = sorted({u["hex"] for u in on_map(seen, enemy(side))})
    for target in targets:
        if target in seen["attacked_hexes"]:
            continue  # 16.1: each hex once per turn
        units = [u for u in own if grid.adjacent(u["hex"], target) and _may_attack(seen, u, target)]
        found += _templates(seen, side, target, units, exploitation=False)
    return found


def _may_attack(state: State, u: Unit, target: str) -> bool:
    """What 16.1, 12.3, 14 and 16.3 say of a unit attacking an adjacent hex."""
    turn = state["turn"]
    if u["id"] in state["attacked_units"]:
        return False
    if u.get("landed_turn") == turn or u.get("dropped_turn") == turn:
        return False
    if u["side"] == "spanish" and u["formation"] in state["corps_attacked"]:
        return False
    mountain = geo.terrain(state, target) == "mountain"
    return not (is_armor(u) and mountain and not geo.road(state, u["hex"], target))


def _templates(
    state: State, side: str, target: str, units: list[Unit], *, exploitation: bool
) -> list[dict[str, Any]]:
    """The templates for one target: a group per kind of units that may not attack together
    (Rif units apart, 10.2; US and British apart, 16.1), each checked by the declaration itself."""
    if exploitation:
        units = [u for u in units if is_armor(u)]  # 16.7: only armor exploits
    rif = [u for u in units if u["type"] == "rif"]
    rest = [u for u in units if u["type"] != "rif"]
    nations = {u["nation"] for u in rest}
    groups = [rif]
    if {"us", "uk"} <= nations:
        groups += [[u for u in rest if u["nation"] != n] for n in ("uk", "us")]
    else:
        groups.append(rest)
    found = []
    for group in groups:
        ids = _accepted(state, side, target, group, exploitation)
        if ids:
            action: dict[str, Any] = {"type": "attack", "target": target, "units": ids}
            if exploitation:
                action["exploitation"] = True
            found.append(action)
    return found


def _accepted(
    state: State, side: str, target: str, group: list[Unit], exploitation: bool
) -> list[str]:
    """The group's ids if the declaration accepts it as is; else the group less its least
    efficient units (which may lower the efficiency used, 16.3) if that is accepted; else []."""
    for least in (1, 2, 3):
        ids = [u["id"] for u in group if u["efficiency"] >= least]
        if not ids:
            return []
        command = {"type": "attack", "target": target, "units": ids, "exploitation": exploitation}
        try:
            combat_flow.assess(state, combat_flow.declaration(state, side, command))
        except RuleViolation:
            continue
        return ids
    return []
