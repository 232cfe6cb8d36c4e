"""What governs each event, its facts in words (for ruling search) and the event in words."""

from __future__ import annotations

from typing import Any

from service.rules.base import Governing, RulesEvent, State
from service.rules.bizkaya import board

GOVERNING: dict[str, Governing] = {
    "TurnBegan": Governing(("2", "15"), ("sequence of play", "game length")),
    "WeatherRolled": Governing(("3",), ("weather",)),
    "PhaseBegan": Governing(("2", "13"), ("sequence of play", "impulses")),
    "BrigadesWithdrawn": Governing(("15",), ("Bilbao", "withdrawal")),
    "ReinforcementsArrived": Governing(("7", "17", "4"), ("reinforcements", "orders of battle")),
    "RecoveryRolled": Governing(("6", "10"), ("morale", "demoralization", "recovery")),
    "LeaderPlaced": Governing(("8",), ("leaders",)),
    "EchelonChanged": Governing(("4",), ("stacking", "echelons")),
    "ReserveSet": Governing(("11",), ("reserves",)),
    "ReservesActivated": Governing(("11", "13"), ("reserves", "reserve impulse")),
    "UnitsEliminated": Governing(("4", "12"), ("stacking", "overstacking")),
    "SupplyChecked": Governing(("10", "9", "15"), ("supply", "trenches")),
    "TrenchBegun": Governing(("9",), ("trenches",)),
    "UnitsMoved": Governing(
        ("13", "3", "5", "4", "1"), ("movement", "movement points", "zones of control", "terrain")
    ),
    "BarrageResolved": Governing(
        ("12", "14", "6"), ("artillery", "barrage", "air power", "morale check")
    ),
    "AttackDeclared": Governing(("13", "4"), ("combat", "movement points")),
    "BilbaoRolled": Governing(("15",), ("Bilbao",)),
    "LeaderChosen": Governing(("13", "6"), ("combat", "leader unit", "morale")),
    "CombatResolved": Governing(
        ("13", "6", "8", "TEC"), ("combat", "intensity", "step losses", "euphoria")
    ),
    "RetreatDue": Governing(("13", "15"), ("retreat",)),
    "HoldChecked": Governing(("13", "6", "9"), ("retreat", "morale check", "trenches")),
    "UnitsRetreated": Governing(("13", "5", "4"), ("retreat", "zones of control", "overstacking")),
    "AdvanceOffered": Governing(("13", "12"), ("advance after combat",)),
    "UnitsAdvanced": Governing(("13", "12"), ("advance after combat",)),
    "CombatEnded": Governing(("13",), ("combat",)),
    "VictoryChecked": Governing(("16",), ("victory conditions",)),
    "GameEnded": Governing(("16", "15"), ("victory conditions",)),
}


def governing(event_type: str) -> Governing:
    return GOVERNING.get(event_type, Governing())


def _terrain(state: State, hex_: str) -> list[str]:
    words = [board.terrain(state, hex_)]
    if board.is_city(state, hex_):
        words.append("city")
    words += [p.name for p in board.map_of(state).places_at(hex_)]
    trench = state["trenches"].get(hex_)
    if trench:
        words.append("trench" if trench["status"] == "complete" else "trench marker")
    return words


def event_facts(event: RulesEvent, state: State) -> list[str]:
    d: dict[str, Any] = event.data
    facts: list[str] = []
    if event.type == "WeatherRolled":
        facts += [
            d["previous"],
            d["weather"],
            {"M": "improving", "E": "worsening", "NC": "no change"}[d["code"]],
        ]
    elif event.type == "UnitsMoved":
        facts += [
            f"{d['cost']} movement points",
            f"weather {state['weather']}",
            f"echelon {d['echelon']}",
        ]
        for hex_ in d["path"][1:]:
            facts += _terrain(state, hex_)
        mapdata = board.map_of(state)
        for a, b in zip(d["path"], d["path"][1:], strict=False):
            facts += sorted(mapdata.hexside_features(a, b))
        if any(h in board.zoc_of(state, board.other(d["side"])) for h in d["path"][1:]):
            facts.append("entered enemy zone of control")
    elif event.type == "BarrageResolved":
        facts += [f"column {d['column']}", f"result {d['result']}", *_terrain(state, d["hex"])]
        facts += [m["cause"] for m in d["modifiers"]]
        if d["air"]:
            facts.append("air modules")
        if any(not c["passed"] for c in d["morale_checks"]):
            facts.append("demoralized")
    elif event.type == "CombatResolved":
        facts += [f"odds {d['column']}", f"result {d['result']}", *_terrain(state, d["hex"])]
        facts += [m["cause"] for m in d["modifiers"]]
        if d["shaded"]:
            facts.append("euphoric")
        if d["eliminated"]:
            facts.append("support units eliminated")
        if d["retreat_ignored"]:
            facts.append("fortified")
    elif event.type in ("HoldChecked", "RecoveryRolled"):
        facts += ["morale check"]
    elif event.type == "UnitsRetreated":
        facts.append("retreat")
        if any(m["zoc"] for m in d["moves"]):
            facts.append("retreat through enemy zone of control")
        if d["eliminated"]:
            facts.append("no retreat possible")
    elif event.type in ("BilbaoRolled", "BrigadesWithdrawn"):
        facts.append("Bilbao")
    elif event.type == "GameEnded":
        facts += [d["level"], "victory"]
    return [f for f in facts if f]


def describe(event: RulesEvent) -> str:
    d: dict[str, Any] = event.data
    text = {
        "TurnBegan": lambda: f"turn {d['turn']} begins",
        "WeatherRolled": lambda: (
            f"weather roll {d['die']['value']} from {d['previous']}: {d['code']}, {d['weather']}"
        ),
        "PhaseBegan": lambda: (
            f"{d['side']} {d['phase']}" + (f" impulse {d['impulse']}" if d["impulse"] else "")
        ),
        "BrigadesWithdrawn": lambda: f"after Bilbao, withdrawn: {', '.join(d['units']) or 'none'}",
        "ReinforcementsArrived": lambda: (
            f"{d['side']} reinforcements: "
            + ", ".join(f"{i['unit']} at {i['hex']}" for i in d["units"])
        ),
        "RecoveryRolled": lambda: (
            "recovery: "
            + ", ".join(
                f"{c['unit']} {c['die']['value']} {'recovers' if c['passed'] else 'stays demoralized'}"
                for c in d["checks"]
            )
        ),
        "LeaderPlaced": lambda: f"{d['leader']} with {d['unit']} in {d['hex']}",
        "EchelonChanged": lambda: f"{', '.join(d['units'])} to echelon {d['echelon']}",
        "ReserveSet": lambda: f"in reserve: {', '.join(d['units'])}",
        "ReservesActivated": lambda: f"reserves activated: {', '.join(d['units'])}",
        "UnitsEliminated": lambda: f"eliminated ({d['reason']}): {', '.join(d['units'])}",
        "SupplyChecked": lambda: (
            f"{d['side']} supply: out of supply {', '.join(d['out_of_supply']) or 'none'}"
        ),
        "TrenchBegun": lambda: f"{d['unit']} begins a trench in {d['hex']}",
        "UnitsMoved": lambda: (
            f"{', '.join(d['units'])} move {'-'.join(d['path'])} ({d['cost']} MP)"
        ),
        "BarrageResolved": lambda: (
            f"barrage on {d['hex']}: {d['factors']} factors, column {d['column']}, roll {d['die']['value']} modified {d['modified']}: {d['result']}"
        ),
        "AttackDeclared": lambda: f"{', '.join(d['units'])} attack {d['hex']} ({d['cost']} MP)",
        "BilbaoRolled": lambda: (
            f"Bilbao roll {d['die']['value']}: "
            + ("the defenders retreat" if d["retreat"] else "they fight")
        ),
        "LeaderChosen": lambda: f"{d['side']} leader {d['unit']}",
        "CombatResolved": lambda: (
            f"{d['attack']}:{d['defence']} at {d['column']}, dice {d['dice_total']} modified {d['modified']}: {d['result']}"
            f"{' (euphoria)' if d['shaded'] else ''}; losses attacker {d['attacker_losses']}, defender {d['defender_losses']}"
        ),
        "RetreatDue": lambda: f"{d['side']} must retreat {', '.join(d['units'])} ({d['reason']})",
        "HoldChecked": lambda: (
            f"hold: stay {', '.join(d['stay']) or 'none'}, retreat {', '.join(d['retreat']) or 'none'}"
        ),
        "UnitsRetreated": lambda: (
            "; ".join(f"{', '.join(m['units'])} retreat {'-'.join(m['path'])}" for m in d["moves"])
            or "retreat"
        ),
        "AdvanceOffered": lambda: f"{', '.join(d['units'])} may advance into {d['hex']}",
        "UnitsAdvanced": lambda: f"{', '.join(d['units'])} advance into {d['hex']}",
        "CombatEnded": lambda: f"combat in {d['hex']} over",
        "VictoryChecked": lambda: (
            f"victory check, turn {d['turn']}: Bilbao {'taken' if d['bilbao_taken'] else 'held'}, limit {', '.join(d['limit_reached']) or 'not reached'}"
        ),
        "GameEnded": lambda: f"game over: {d['level']}",
    }.get(event.type)
    return text() if text else f"{event.type} {d}"
