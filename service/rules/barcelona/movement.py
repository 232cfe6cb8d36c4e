"""MOVEMENT: dice by troop type and going (good/bad), roads, the AFVs table's moves, towing,
a die lost to limber, unlimber, load or unload; alternate unit moves; a move is accepted only if
its measured length is within the rolled distance."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from service.rules.barcelona import data
from service.rules.barcelona import geometry as geo
from service.rules.barcelona import table as tb
from service.rules.base import Dice, RulesEvent, RuleViolation, State

RULE = "MOVEMENT"
GOINGS = ("good", "bad", "road")
GUNS = ("Field Gun", "Mtn/Inf/AFV Gun", "AT Gun")


def order_allows_move(state: State, u: tb.Unit) -> bool:
    order = state["orders"][u["side"]].get(u["id"])
    return order is None or bool(order.get("move", True))


def movable(state: State, side: str) -> list[tb.Unit]:
    return [
        u
        for u in sorted(tb.on_table(state, side), key=lambda x: x["id"])
        if not u["activated"] and order_allows_move(state, u)
    ]


def dice_for(u: tb.Unit, going: str, towing: bool) -> tuple[str, str]:
    """The printed entry for a unit's move: (where it is printed, the dice)."""
    cls = tb.movement_class(u)
    if cls == "Tanks":
        spec = data.vehicle(u["vehicle"]) or {}
        column = {"road": "road", "good": "cc", "bad": "bad"}[going]
        return f"AFVs: {u['vehicle']} {column}", str(spec[column])
    row = data.load("movement")["classes"][cls]
    if going == "road" and "road" in row:
        key = "road_towing" if towing else "road"
        return f"MOVEMENT: {cls} on road", str(row[key])
    key = "bad" if going == "bad" else "good"
    return f"MOVEMENT: {cls} {key}", str(row[key])


def _carry(state: State, u: tb.Unit, key: str, other: tb.Unit) -> None:
    """May ``u`` load (``key`` "load") or limber ("limber") ``other``?  Refuse citing MOVEMENT."""
    if u["kind"] != "vehicle" or other["side"] != u["side"] or other["status"] != "table":
        raise RuleViolation(RULE, f"{u['name']} cannot {key} {other['name']}", key)
    gun = other["kind"] == "team" and other["weapons"][0] in GUNS
    if key == "load":
        if not u["carries"] or u["carrying"] or other["kind"] not in ("foot", "team"):
            raise RuleViolation(RULE, f"{u['name']} cannot carry {other['name']}", key)
        if gun:
            raise RuleViolation(RULE, "guns are limbered and towed, not loaded", key)
    elif not u["tows"] or u["towing"] or not gun:
        raise RuleViolation(RULE, f"{u['name']} cannot tow {other['name']}", key)
    if other["activated"] or not tb.in_contact(u, other):
        raise RuleViolation(RULE, f"{other['name']} must be in contact and not yet moved", key)


def _actions(state: State, u: tb.Unit, command: Mapping[str, Any]) -> dict[str, Any]:
    """Limber, unlimber, load, unload: each loses a d6."""
    acts: dict[str, Any] = {}
    for key in ("load", "limber"):
        if command.get(key) is not None:
            _carry(state, u, key, tb.unit(state, command[key]))
            acts[key] = command[key]
    for key, held, what in (
        ("unload", "carrying", "carries nobody"),
        ("unlimber", "towing", "tows no gun"),
    ):
        if command.get(key):
            if not u.get(held):
                raise RuleViolation(RULE, f"{u['name']} {what}", key)
            acts[key] = u[held]
    return acts


def roll_move(state: State, side: str, command: Mapping[str, Any], dice: Dice) -> list[RulesEvent]:
    u = _own_unit(state, side, command)
    going = command.get("going", "good")
    if state["moving"]:
        raise RuleViolation(RULE, f"first finish the move of {_name(state, state['moving'])}")
    if u["activated"]:
        raise RuleViolation("SEQUENCE OF PLAY", f"{u['name']} has already moved this turn")
    if not order_allows_move(state, u):
        raise RuleViolation("SEQUENCE OF PLAY", f"{u['name']}'s written order is to hold")
    acts = _actions(state, u, command)
    towing = bool(u["towing"] or acts.get("limber")) and not acts.get("unlimber")
    printed, expr = dice_for(u, going, towing)
    count, modifier = data.dice_expr(expr)
    lost = min(count, len(acts))
    rolls = [dice.roll(6, f"movement {u['id']}").as_dict() for _ in range(count - lost)]
    distance = max(0, sum(r["value"] for r in rolls) + modifier) if rolls or modifier > 0 else 0
    return [
        RulesEvent(
            "MovementRolled",
            {
                "unit": u["id"],
                "side": side,
                "going": going,
                "printed": printed,
                "dice_expr": expr,
                "dice": rolls,
                "lost": lost,
                "modifier": modifier,
                "distance": distance,
                "actions": acts,
            },
        )
    ]


def _name(state: State, uid: str) -> str:
    return str(tb.unit(state, uid)["name"])


def _own_unit(state: State, side: str, command: Mapping[str, Any]) -> tb.Unit:
    u = tb.unit(state, command["unit"])
    if u["side"] != side:
        raise RuleViolation(RULE, f"{u['name']} is not your unit", "unit")
    if state["mover"] != side:
        raise RuleViolation(
            "SEQUENCE OF PLAY", "attacker moves unit / defender moves unit: not your move"
        )
    if u["status"] != "table":
        raise RuleViolation(
            RULE, f"{u['name']} is not on the table (carried, towed or gone)", "unit"
        )
    return u


def check_path(state: State, u: tb.Unit, path: list[list[float]], going: str) -> float:
    """The measured length of a path, refusing one that leaves the table or the declared going."""
    start = tb.where(u)
    width, height = state["table"]["width"], state["table"]["height"]
    for point in path:
        if not geo.on_table(point, width, height):
            raise RuleViolation(RULE, f'{point} is off the table ({width}" x {height}")', "path")
    if u["kind"] != "aircraft" and going != "bad":
        legs = list(zip([list(start), *path], path, strict=False))
        for area in state["areas"]:
            poly = geo.polygon(area)
            if "bad_going" in area["effects"] and any(
                geo.segment_enters(a, b, poly) for a, b in legs
            ):
                raise RuleViolation(
                    RULE, f"the move enters bad going ({area['name']}): roll for bad going", "path"
                )
        if going == "road":
            roads = [geo.polygon(a) for a in state["areas"] if "road" in a["effects"]]
            for a, b in legs:
                if not any(geo.segment_within(a, b, poly) for poly in roads):
                    raise RuleViolation(
                        RULE, "the move leaves the road: roll for good or bad going", "path"
                    )
    return geo.path_length(start, path)


def move(state: State, side: str, command: Mapping[str, Any], dice: Dice) -> list[RulesEvent]:
    u = _own_unit(state, side, command)
    path = [[float(x), float(y)] for x, y in command["path"]]
    if state["moving"] != u["id"] or not u["rolled"]:
        raise RuleViolation(RULE, f"roll the movement dice for {u['name']} first", "unit")
    facing = command.get("facing", u["facing"])
    rolled = u["rolled"]
    length = check_path(state, u, path, rolled["going"])
    if length > rolled["distance"] + 1e-6:
        raise RuleViolation(
            RULE, f'the move measures {length:.2f}" but {rolled["distance"]}" were rolled', "path"
        )
    before = tb.nearest_enemy_distance(state, u)
    end = path[-1] if path else [u["x"], u["y"]]
    after = tb.nearest_enemy_distance(state, u, end)
    advanced = after < before - 1e-9
    if advanced and u["failures"] >= 2:
        raise RuleViolation("MORALE", f"{u['name']} has two morale failures: no advance", "path")
    moved = {**u, "x": end[0], "y": end[1], "facing": float(facing)}
    was = set(tb.contacts(state, u))
    new = [] if u["kind"] == "aircraft" else [c for c in tb.contacts(state, moved) if c not in was]
    removed = [c for c in new if tb.unit(state, c)["failures"] >= 2]
    cavalry = [
        c
        for c in new
        if u["kind"] == "cavalry"
        and tb.is_foot(tb.unit(state, c))
        and tb.in_open(state, tb.unit(state, c))
    ]
    return [
        RulesEvent(
            "UnitMoved",
            {
                "unit": u["id"],
                "side": side,
                "path": path,
                "length": round(length, 3),
                "distance": rolled["distance"],
                "going": rolled["going"],
                "facing": float(facing),
                "advanced": advanced,
                "contacts": new,
                "removed": removed,
                "cavalry_contacts": cavalry,
                "actions": rolled["actions"],
            },
        )
    ]


def hold(state: State, side: str, command: Mapping[str, Any], dice: Dice) -> list[RulesEvent]:
    u = _own_unit(state, side, command)
    if state["moving"]:
        raise RuleViolation(
            RULE,
            f"first finish the move of {_name(state, state['moving'])} (an empty path stays put)",
        )
    if u["activated"]:
        raise RuleViolation("SEQUENCE OF PLAY", f"{u['name']} has already moved this turn")
    return [RulesEvent("UnitHeld", {"unit": u["id"], "side": side})]


def suggested_path(state: State, u: tb.Unit) -> list[list[float]]:
    """A legal straight move towards the nearest enemy, for clients and scripted players."""
    enemies = tb.on_table(state, tb.other(state, u["side"]))
    rolled = u["rolled"]
    if not enemies or not rolled or rolled["distance"] <= 0 or u["failures"] >= 2:
        return []
    target = min(enemies, key=lambda e: geo.dist(tb.where(u), tb.where(e)))
    here, there = tb.where(u), tb.where(target)
    d = geo.dist(here, there)
    step = min(float(rolled["distance"]), max(0.0, d - 0.5))
    if step <= 0:
        return []
    end = [
        round(here[0] + (there[0] - here[0]) * step / d, 2),
        round(here[1] + (there[1] - here[1]) * step / d, 2),
    ]
    try:
        check_path(state, u, [end], rolled["going"])
    except RuleViolation:
        return []
    if geo.path_length(here, [end]) > rolled["distance"]:
        return []
    return [end]
