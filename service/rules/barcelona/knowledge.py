"""What governs each event (the sheet's headings), its facts in words, and the event in words."""

from __future__ import annotations

from typing import Any

from service.rules.barcelona import table as tb
from service.rules.base import Governing, RulesEvent, State

SEQ = "SEQUENCE OF PLAY"
GOVERNING: dict[str, Governing] = {
    "ColumnGenerated": Governing(
        ("GENERATING A COLUMN", "Troop Type", "AFVs"), ("force building", "column")
    ),
    "UnitBought": Governing(
        ("Attribute Costs", "Troop Type", "AFVs"), ("force building", "points")
    ),
    "MusterEnded": Governing(("Attribute Costs",), ("force building",)),
    "PhaseBegan": Governing((SEQ,), ("sequence of play",)),
    "UnitDeployed": Governing((SEQ,), ("deployment",)),
    "UnitReserved": Governing((SEQ,), ("late arrivals",)),
    "DeploymentEnded": Governing((SEQ,), ("deployment",)),
    "TurnBegan": Governing((SEQ,), ("sequence of play",)),
    "OrdersWritten": Governing((SEQ,), ("orders",)),
    "TransmissionRolled": Governing((SEQ, "Troop Type"), ("orders", "transmission")),
    "LateArrivalsRolled": Governing((SEQ,), ("late arrivals",)),
    "MovementRolled": Governing(("MOVEMENT", "AFVs"), ("movement",)),
    "UnitMoved": Governing(("MOVEMENT", "MORALE"), ("movement", "contact")),
    "UnitHeld": Governing((SEQ, "MOVEMENT"), ("movement",)),
    "MovementEnded": Governing((SEQ,), ("movement",)),
    "StepBegan": Governing((SEQ, "SHOOTING"), ("shooting",)),
    "ShotResolved": Governing(("SHOOTING", "WEAPONS LIST", "AFVs"), ("shooting", "artillery")),
    "StepEnded": Governing((SEQ, "SHOOTING"), ("shooting",)),
    "CloseCombatResolved": Governing(
        ("CLOSE COMBAT", "SHOOTING", "MORALE"), ("close combat", "melee")
    ),
    "MoraleTested": Governing(("MORALE", "Troop Type"), ("morale",)),
    "Rallied": Governing((SEQ, "MORALE"), ("morale", "rally")),
    "TurnEnded": Governing((SEQ,), ("sequence of play",)),
    "OrdersRevealed": Governing((SEQ,), ("orders",)),
    "GameEnded": Governing((SEQ,), ("victory",)),
}


def governing(event_type: str) -> Governing:
    return GOVERNING.get(event_type, Governing())


def _unit_words(state: State, uid: str) -> list[str]:
    u = state["units"].get(uid)
    if u is None:
        return []
    words = [u["kind"], *(u["attributes"])]
    if u.get("troop_type"):
        words.append(u["troop_type"])
    if u.get("vehicle"):
        words += [u["vehicle"], f"class {u['class']}" if u.get("class") else "soft vehicle"]
    if u.get("x") is not None and u["status"] == "table":
        words += sorted(tb.effects_at(state, tb.where(u))) or ["open"]
    return words


def event_facts(event: RulesEvent, state: State) -> list[str]:
    d: dict[str, Any] = event.data
    facts: list[str] = []
    if event.type == "ShotResolved":
        facts += [d["weapon"], *(_unit_words(state, d["unit"]))]
        for t in d["targets"]:
            facts += _unit_words(state, t["target"])
            facts += [m["modifier"] for m in t.get("modifiers", [])]
            if t.get("mode", "").startswith("afv"):
                facts.append("firing at AFV")
        if d.get("collateral"):
            facts.append("artillery template")
    elif event.type in ("MovementRolled", "UnitMoved"):
        facts += [f"{d['going']} going", *(_unit_words(state, d["unit"]))]
        facts += [f"{k} vehicle" for k in d.get("actions", {})]
        if d.get("contacts"):
            facts.append("moved into contact")
    elif event.type == "CloseCombatResolved":
        facts += [
            "close combat",
            *(_unit_words(state, d["attacker"])),
            *(_unit_words(state, d["defender"])),
        ]
        for mods in d.get("modifiers", {}).values():
            facts += [m["modifier"] for m in mods]
    elif event.type == "MoraleTested":
        facts += [
            "morale test",
            *(t["cause"] for t in d["tests"]),
            *(_unit_words(state, d["unit"])),
        ]
        if d.get("effect"):
            facts.append(d["effect"])
    elif event.type == "ColumnGenerated":
        facts += [d["troop_type"], d["companies"], d.get("special") or "no specials"]
    elif event.type in ("TransmissionRolled", "OrdersWritten", "OrdersRevealed"):
        facts.append("written orders")
    return [f for f in facts if f]


def describe(event: RulesEvent) -> str:
    d: dict[str, Any] = event.data
    text = {
        "ColumnGenerated": lambda: (
            f"{d['side']} column of {d['troop_type']}: {d['companies']}"
            + (", MG" if d["mg"] else "")
            + (f", {d['special']}" if d["special"] else "")
        ),
        "UnitBought": lambda: f"{d['side']} buys {d['unit']['name']} for {d['points']} points",
        "PhaseBegan": lambda: f"{d['phase'].replace('_', ' ')} phase",
        "TurnBegan": lambda: f"Turn {d['turn']}",
        "UnitDeployed": lambda: f"{d['unit']} deploys at ({d['x']}, {d['y']})",
        "OrdersWritten": lambda: (
            f"{d['side']} wrote orders for {d['units']} unit{'' if d['units'] == 1 else 's'} "
            "(hidden until they are revealed)"
            if d.get("hidden")
            else f"{d['side']} wrote orders: {_order_words(d['orders'])}"
        ),
        "OrdersRevealed": lambda: (
            "Orders revealed: "
            + " · ".join(f"{side}: {_order_words(orders)}" for side, orders in d["orders"].items())
        ),
        "TransmissionRolled": lambda: (
            "orders transmitted: "
            + ", ".join(f"{r['unit']} {'yes' if r['arrived'] else 'no'}" for r in d["results"])
        ),
        "MovementRolled": lambda: (
            f'{d["unit"]} rolls {d["dice_expr"]} ({d["going"]} going): {d["distance"]:g}"'
        ),
        "UnitMoved": lambda: (
            f'{d["unit"]} moves {d["length"]:g}" of {d["distance"]:g}"'
            + (f", contacts {', '.join(d['contacts'])}" if d["contacts"] else "")
        ),
        "ShotResolved": lambda: (
            f"{d['unit']} fires {d['weapon']}: "
            + ", ".join(f"{k} -{v}" for k, v in d["casualties"].items())
            + (f" KO {', '.join(d['ko'])}" if d["ko"] else "")
            + ("" if d["casualties"] or d["ko"] else "no effect")
        ),
        "CloseCombatResolved": lambda: (
            f"close combat {d['attacker']} v {d['defender']}: "
            + ", ".join(f"{k} -{v}" for k, v in d.get("casualties", {}).items())
        ),
        "MoraleTested": lambda: (
            f"{d['unit']} morale: {d['failures']} failure(s)"
            + (" - removed" if d["removed"] else "")
        ),
        "GameEnded": lambda: f"game over: {d['winner'] or 'draw'} ({d['level']})",
    }.get(event.type)
    return text() if text else f"{event.type} {d}"


def _order_words(orders: dict[str, dict[str, Any]]) -> str:
    """Written orders in words: ``u1 “hold the ridge” (no move)``."""
    words = [
        f"{uid} “{o['text']}”" + ("" if o.get("move", True) else " (no move)")
        for uid, o in orders.items()
    ]
    return "; ".join(words) or "none"
