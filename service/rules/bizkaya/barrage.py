"""Artillery barrages (12) and air power (14): before the attacks of an impulse, one per hex, on a
hex adjacent to a friendly unit, losses chosen by the firing player, then morale checks."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from service.rules.base import Dice, RuleViolation, State
from service.rules.bizkaya import board, combat, tables
from service.rules.bizkaya.battle import attackers_for, entrenched
from service.rules.bizkaya.events import emit
from service.rules.bizkaya.losses import ordered, spread
from service.rules.declare import Emitter

Unit = dict[str, Any]


def artillery_for(state: State, side: str, hex_: str) -> list[Unit]:
    """Artillery that may fire at ``hex_`` now: in range, not yet fired this impulse, in supply
    (10), siege not moved this turn (12)."""
    grid = board.map_of(state).grid
    reach = tables.game()["artillery_range"]
    return [
        u
        for u in board.on_map(state, side)
        if u["kind"] == "artillery"
        and not u["fired"]
        and not u["oos"]
        and not (u["art"] == "siege" and u["moved"])
        and grid.distance(u["hex"], hex_) <= reach
    ]


def factors(
    state: State, units: list[Unit], hex_: str, air: int
) -> tuple[int, list[dict[str, Any]]]:
    """12: the firing factors; siege doubled against a city or fort of level 2 or more; 14: air
    modules of 3 bombardment factors."""
    doubled = board.level(state, hex_) >= tables.game()["siege_doubled_level"]
    parts = []
    for u in units:
        value = u["barrage"] * (2 if u["art"] == "siege" and doubled else 1)
        parts.append({"unit": u["id"], "factors": value, "doubled": value != u["barrage"]})
    total = sum(p["factors"] for p in parts) + air * tables.game()["air"]["factors"]
    return total, parts


def check(state: State, side: str, command: Mapping[str, Any]) -> dict[str, Any]:
    """Validate a barrage and return what it would meet (column, modifiers)."""
    hex_ = command["hex"]
    if state["phase"] not in ("operations", "reserve"):
        raise RuleViolation("12", "barrages are fired in the impulses", "type")
    if state["stage"] == "attack":
        raise RuleViolation(
            "13", "all barrages are solved before the attacks of the impulse", "type"
        )
    if hex_ in state["barraged"]:
        raise RuleViolation("12", f"{hex_} has already received a barrage this impulse", "hex")
    enemy = board.other(side)
    targets = board.stack(state, hex_, enemy)
    if not targets:
        raise RuleViolation("12", f"no enemy unit in {hex_}", "hex")
    grid = board.map_of(state).grid
    friends = [h for h in grid.neighbours(hex_) if board.stack(state, h, side)]
    if not friends:
        raise RuleViolation("12", f"{hex_} is not adjacent to a friendly unit", "hex")
    if state["phase"] == "reserve" and not any(u["moved"] for u in targets):
        raise RuleViolation(
            "12", "in the reserve impulse only stacks that moved this turn are barraged", "hex"
        )
    eligible = {u["id"] for u in artillery_for(state, side, hex_)}
    ids = list(command.get("artillery", []))
    for uid in ids:
        if uid not in eligible:
            raise RuleViolation("12", _why_not(state, side, state["units"][uid], hex_), "artillery")
    air = command.get("air", 0)
    if air:
        rule = tables.game()["air"]
        if side != rule["side"]:
            raise RuleViolation("14", "only the Nationalist player has air support", "air")
        if air > rule["modules"] - state["air_used"]:
            raise RuleViolation(
                "14", f"{rule['modules'] - state['air_used']} air modules left this turn", "air"
            )
    if not ids and not air:
        raise RuleViolation("12", "a barrage needs artillery or air modules", "artillery")
    total, parts = factors(state, [state["units"][i] for i in ids], hex_, air)
    column = tables.barrage_column(total)
    if column is None:
        raise RuleViolation(
            "12", f"{total} factors are below the Barrage Table's first column", "artillery"
        )
    mods = combat.barrage_modifiers(entrenched(state, hex_, friends), bool(air))
    return {
        "hex": hex_,
        "factors": total,
        "parts": parts,
        "column": column,
        "modifiers": mods,
        "modifier_total": sum(m["value"] for m in mods),
        "air": air,
        "artillery": ids,
    }


def _why_not(state: State, side: str, u: Unit, hex_: str) -> str:
    if u["side"] != side or u["status"] != "map" or u["kind"] != "artillery":
        return f"{u['name']} is not one of your artillery units on the map"
    if u["fired"]:
        return f"{u['name']} has already fired this impulse"
    if u["oos"]:
        return f"{u['name']} is out of supply and may not fire (10)"
    if u["art"] == "siege" and u["moved"]:
        return f"{u['name']} is siege artillery that moved this turn (12)"
    return f"{u['name']} is out of range of {hex_}"


def barrage(em: Emitter, side: str, command: Mapping[str, Any], dice: Dice) -> None:
    s = em.state
    plan = check(s, side, command)
    hex_ = plan["hex"]
    targets = board.stack(s, hex_, board.other(side))
    first = [u for u in targets if board.is_combat(u) and u["echelon"] == 1]
    second = [u for u in targets if board.is_combat(u) and u["echelon"] == 2]
    prefs = list(command.get("losses", []))
    strays = [uid for uid in prefs if uid not in {u["id"] for u in first + second}]
    if strays:  # 12: "The attacker chooses which units will suffer step losses" -- in the hex
        raise RuleViolation("12", f"{', '.join(strays)} is not in {hex_}", "losses")
    die = dice.roll(6, f"barrage on {hex_} (12)")
    lookup = tables.barrage_table().lookup(plan["column"], die.value, plan["modifier_total"])
    effect = tables.barrage_effect(lookup.result)
    losses, _short = spread([ordered(first, prefs), ordered(second, prefs)], effect["steps"])
    left = {u["id"]: u["steps"] for u in targets}
    for loss in losses:
        left[loss["unit"]] -= loss["steps"]
    checks = []
    if effect["check"]:
        for u in first:
            if left[u["id"]] > 0 and not u["demoralized"]:
                roll = dice.roll(6, f"morale check of {u['id']} after the barrage (12)")
                checks.append(
                    {
                        "unit": u["id"],
                        "die": roll.as_dict(),
                        "morale": u["morale"],
                        "passed": roll.value <= u["morale"],
                    }
                )
    alone = not any(board.is_combat(u) and left[u["id"]] > 0 for u in targets)
    eliminated = [u["id"] for u in targets if not board.is_combat(u)] if alone else []
    emit(
        em,
        "BarrageResolved",
        {
            "side": side,
            **plan,
            "die": die.as_dict(),
            "modified": lookup.modified,
            "result": lookup.result,
            "losses": losses,
            "morale_checks": checks,
            "eliminated": eliminated,
        },
    )


def unanswered(state: State, side: str) -> list[str]:
    """12, 13: barraged hexes still holding enemy units that an eligible unit could still attack
    this impulse (a barrage must be followed by an attack on its hex)."""
    return [
        h
        for h in state["barraged"]
        if h not in state["attacked_hexes"]
        and board.stack(state, h, board.other(side))
        and attackers_for(state, side, h)
    ]
