"""SEQUENCE OF PLAY: written orders (hidden from the other side until revealed at the end of the
turn) and the dice for their transmission; the dice for late arrivals."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from service.rules.barcelona import data
from service.rules.barcelona import table as tb
from service.rules.base import Dice, InvalidCommand, RulesEvent, RuleViolation, State

RULE = "SEQUENCE OF PLAY"


def write(state: State, side: str, command: Mapping[str, Any], dice: Dice) -> list[RulesEvent]:
    """Orders for some of ``side``'s units (``{unit: {"text", "move"}}``), written once a turn."""
    if state["done"].get(side):
        raise RuleViolation(RULE, "your orders for this turn are written")
    clean: dict[str, dict[str, Any]] = {}
    for uid, order in command["orders"].items():
        u = state["units"].get(uid)
        if u is None or u["side"] != side or u["status"] in ("removed", "unplaced"):
            raise InvalidCommand("unknown unit", {f"orders.{uid}": ["not one of your units"]})
        clean[uid] = {"text": order["text"], "move": order.get("move", True)}
    return [RulesEvent("OrdersWritten", {"side": side, "orders": clean})]


def transmission(state: State, dice: Dice) -> RulesEvent:
    """Placeholder target (house.json ``transmission``): a d6 at most the unit's Tactical rating."""
    results = []
    for side in state["sides"]:
        for uid in sorted(state["written"][side]):
            u = tb.unit(state, uid)
            target = u["tactical"] or data.house("default_tactical")
            die = dice.roll(6, f"transmission {uid}").as_dict()
            results.append(
                {
                    "unit": uid,
                    "side": side,
                    "die": die,
                    "target": target,
                    "arrived": die["value"] <= target,
                }
            )
    return RulesEvent(
        "TransmissionRolled", {"turn": state["turn"], "results": results, "placeholder": True}
    )


def late_arrivals(state: State, dice: Dice) -> RulesEvent | None:
    """Placeholder number (house.json ``late_arrival``): units held back arrive at their side's
    entry point on a d6 of 4 or more."""
    held = sorted(u["id"] for u in state["units"].values() if u["status"] == "reserve")
    if not held:
        return None
    need = data.house("late_arrival")
    results = []
    count: dict[str, int] = {}
    for uid in held:
        u = tb.unit(state, uid)
        die = dice.roll(6, f"late arrival {uid}").as_dict()
        arrived = die["value"] >= need
        line: dict[str, Any] = {
            "unit": uid,
            "side": u["side"],
            "die": die,
            "needed": need,
            "arrived": arrived,
        }
        if arrived:
            x, y = state["entries"][u["side"]]
            k = count.get(u["side"], 0)
            count[u["side"]] = k + 1
            shift = (k + 1) // 2 * 4 * (1 if k % 2 else -1)
            x = min(max(0.0, x + shift), state["table"]["width"])
            facing = 90.0 if y < state["table"]["height"] / 2 else 270.0
            line.update(x=x, y=y, facing=facing)
        results.append(line)
    return RulesEvent(
        "LateArrivalsRolled", {"turn": state["turn"], "results": results, "placeholder": True}
    )
