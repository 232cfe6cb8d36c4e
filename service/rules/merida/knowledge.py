"""What governs each event, its facts in words, and the event in words (the knowledge base)."""

from __future__ import annotations

from typing import Any

from service.rules.base import Governing, RulesEvent, State
from service.rules.merida import board

GOVERNING: dict[str, Governing] = {
    "PhaseBegan": Governing(("4",), ("sequence of play",)),
    "ReinforcementsDue": Governing(("4", "12"), ("reinforcements",)),
    "RemovalsDue": Governing(("12",), ("reinforcements", "removal")),
    "ReinforcementPlaced": Governing(("4", "12", "6"), ("reinforcements", "stacking")),
    "UnitDeployed": Governing(("12", "6"), ("set up", "stacking")),
    "UnitRemoved": Governing(("12",), ("reinforcements", "removal")),
    "UnitKept": Governing(("12", "11"), ("reinforcements", "victory points")),
    "UnitReturned": Governing(("12",), ("reinforcements",)),
    "LeaderReplaced": Governing(("12", "2"), ("reinforcements", "leaders")),
    "UnitReorganized": Governing(("9", "6", "7"), ("reorganization", "leaders", "stacking")),
    "StatusChecked": Governing(("4", "10"), ("supply", "command")),
    "CommandChecked": Governing(("4", "10"), ("command",)),
    "UnitsMoved": Governing(
        ("5", "6", "7", "10", "TEC"), ("movement", "zone of control", "terrain", "stacking")
    ),
    "OverrunDeclared": Governing(("8",), ("automatic victory", "overrun", "combat")),
    "UnitsRetreated": Governing(("10", "8", "7"), ("command", "retreat", "zone of control")),
    "AirAllocated": Governing(("4", "8", "2"), ("air units",)),
    "CombatResolved": Governing(
        ("8", "2", "TEC", "10"), ("combat", "retreat", "air units", "terrain")
    ),
    "UnitsAdvanced": Governing(("8",), ("advance after combat",)),
    "GameEnded": Governing(("11",), ("victory conditions", "victory points")),
}


def governing(event_type: str) -> Governing:
    return GOVERNING.get(event_type, Governing())


def _names(state: State, ids: list[str]) -> list[str]:
    return [state["units"][i]["name"] for i in ids if i in state["units"]]


def _types(state: State, ids: list[str]) -> list[str]:
    return sorted({state["units"][i]["type"] for i in ids if i in state["units"]})


def _terrain_words(state: State, hex_: str) -> list[str]:
    mapdata = board.map_of(state)
    words = [mapdata.terrain(hex_)]
    words += sorted(mapdata.hex_features(hex_))
    return words


def event_facts(event: RulesEvent, state: State) -> list[str]:
    data: dict[str, Any] = event.data
    facts: list[str] = []
    if event.type == "UnitsMoved":
        facts += [f"{data['mode']} movement", *(_types(state, data["units"]))]
        zoc = board.zoc_sources(state, board.other(data["side"]))
        if any(h in zoc for h in data["path"][1:]):
            facts.append("entered enemy zone of control")
        for hex_ in data["path"][1:]:
            facts += _terrain_words(state, hex_)
        mapdata = board.map_of(state)
        for frm, to in zip(data["path"], data["path"][1:], strict=False):
            facts += sorted(mapdata.hexside_features(frm, to))
    elif event.type == "CombatResolved":
        facts += [f"result {data['result']}", *(_terrain_words(state, data["hex"]))]
        facts += [f"attacker {t}" for t in _types(state, data["attackers"])]
        facts += [f"defender {t}" for t in _types(state, data["defenders"])]
        if data.get("column"):
            facts.append(f"odds {data['column']}")
        facts += [m["cause"] for m in data.get("modifiers", [])]
        facts += [e["cause"] for e in data.get("strength_effects", [])]
        if any("river" in e["cause"] for e in data.get("strength_effects", [])):
            facts.append("across river")
        if data.get("air_rolls"):
            facts.append("air units")
        if data["eliminated"]:
            facts.append("units eliminated")
        if data["retreats"]:
            facts.append("retreat")
        if data.get("advance"):
            facts.append("advance after combat")
    elif event.type == "UnitsRetreated":
        facts += ["out of command", "retreat 2 hexes", "enemy zone of control"]
    elif event.type == "OverrunDeclared":
        facts += ["automatic victory", "overrun", f"odds {data['column']}"]
    elif event.type == "AirAllocated":
        facts += [f"air {data['role']}", *data["air"]]
    elif event.type == "GameEnded":
        facts += [data["level"], "victory points"]
    return [f for f in facts if f]


def describe(event: RulesEvent) -> str:
    d: dict[str, Any] = event.data
    text = {
        "PhaseBegan": lambda: f"Turn {d['turn']}: {d['side']} {d['phase']} phase",
        "ReinforcementsDue": lambda: f"{d['side']} reinforcements due: {', '.join(d['units'])}",
        "RemovalsDue": lambda: f"{d['side']} units due for removal: {', '.join(d['units'])}",
        "ReinforcementPlaced": lambda: f"{d['unit']} enters at {d['hex']}",
        "UnitDeployed": lambda: f"{d['unit']} deploys to {d['hex']}",
        "UnitRemoved": lambda: (
            f"{d['unit']} removed from the map"
            + (f" in place of {d['due']}" if d["unit"] != d["due"] else "")
        ),
        "UnitKept": lambda: f"{d['unit']} stays on the map for {d['vp_cost']} victory points",
        "UnitReturned": lambda: f"{d['unit']} returns at {d['hex']}",
        "LeaderReplaced": lambda: f"leader {d['removed']} replaced by {d['placed']} at {d['hex']}",
        "UnitReorganized": lambda: (
            f"{d['unit']} reorganized with {d['leader']} at {d['hex']}; {', '.join(d['gone'])} gone for good"
        ),
        "StatusChecked": lambda: (
            f"{d['side']} supply check: out of supply {d['out_of_supply'] or 'none'}, out of command {d['out_of_command'] or 'none'}"
        ),
        "CommandChecked": lambda: (
            f"{d['side']} command check: out of command {d['out_of_command'] or 'none'}"
        ),
        "UnitsMoved": lambda: f"{', '.join(d['units'])} move ({d['mode']}) {'-'.join(d['path'])}",
        "OverrunDeclared": lambda: (
            f"{', '.join(d['attackers'])} overrun {d['hex']} at {d['column']}"
        ),
        "UnitsRetreated": lambda: (
            f"out of command: {d['retreats'] or ''} eliminated {d['eliminated'] or 'none'}"
        ),
        "AirAllocated": lambda: (
            f"{d['side']} air {', '.join(d['air'])} to {d['hex']} ({d['role']})"
        ),
        "CombatResolved": lambda: (
            f"{', '.join(d['attackers'])} attack {d['hex']}"
            + (
                f" at {d['column']}, roll {d['die']['value']} (modified {d['modified_roll']})"
                if "die" in d
                else ""
            )
            + f": {d['result']}; eliminated {', '.join(d['eliminated']) or 'none'}"
        ),
        "UnitsAdvanced": lambda: f"{', '.join(d['units'])} advance {'-'.join(d['path'])}",
        "GameEnded": lambda: f"game over: {d['points']}, {d['level']}",
    }.get(event.type)
    return text() if text else f"{event.type} {d}"
