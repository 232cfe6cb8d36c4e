"""The administrative phase (8.2): weather (10.1), event chits (10.2), the Strait (11), supply (12),
reinforcements (13.1, 14, 9.1) -- each a function returning the events it decides."""

from __future__ import annotations

from typing import Any

from service.rules.backbone import geography as geo
from service.rules.backbone import supply
from service.rules.backbone.data_files import load
from service.rules.backbone.units import State, at, is_hq
from service.rules.base import Dice, RulesEvent, RuleViolation


def weather(state: State, dice: Dice) -> list[RulesEvent]:
    """10.1: good on 1-4, bad on 5-6; turn 1 is always good (3); +1 with the harsher winter (19.1)."""
    data = load("weather")
    if state["turn"] == 1:
        return [RulesEvent("WeatherDetermined", {"weather": "good", "rule": "3"})]
    die = dice.roll(6, "weather")
    drm = data["optional_harsher_winter"]["drm"] if state["options"].get("harsher_winter") else 0
    total = die.value + drm
    kind = "good" if total in data["good"] else "bad"
    return [
        RulesEvent(
            "WeatherDetermined", {"weather": kind, "die": die.as_dict(), "drm": drm, "total": total}
        )
    ]


def support_points(state: State, weather_kind: str) -> RulesEvent:
    """Air points (16.4, 18.2, Luftwaffe 10.2) and naval points (16.3) for the turn."""
    data = load("supports")
    scen = state["data"]
    air = dict(scen["air_points"])
    luftwaffe = "luftwaffe" in state["events"]["in_force"]
    if luftwaffe:
        air["spanish"] += scen["luftwaffe_bonus"]
    naval = data["naval"]["per_turn"]
    if weather_kind == "bad":
        air = dict(data["air"]["bad_weather"])
        if luftwaffe:
            air["spanish"] = data["air"]["events"]["luftwaffe"]["bad_weather"]
        naval = 0
    return RulesEvent("SupportPointsSet", {"air": air, "naval": naval, "weather": weather_kind})


def draw_chit(state: State, dice: Dice) -> list[RulesEvent]:
    """10.2: the Spanish draw on odd turns, the Allies on even turns (one chit: placeholder count)."""
    side = "spanish" if state["turn"] % 2 else "allied"
    cup = state["events"]["cups"][side]
    if not cup:
        return []
    chit, die = draw_one(cup, dice, "event chit")
    spec = chit_spec(chit)
    return [
        RulesEvent(
            "EventChitDrawn",
            {"side": side, "chit": chit, "die": die, "permanent": spec["timing"] == "permanent"},
        )
    ]


def draw_one(pool: list[str], dice: Dice, purpose: str) -> tuple[str, dict[str, Any] | None]:
    """A chit drawn at random from a non-empty ``pool`` (10.2) and the die that chose it; the last
    chit left is simply drawn, with no die (a die has at least two faces)."""
    if len(pool) == 1:
        return pool[0], None
    die = dice.roll(len(pool), purpose)
    return pool[die.value - 1], die.as_dict()


#: every event chit by id, whichever side's cup it came from (a chit may be stolen, 10.2)
CHITS: dict[str, dict[str, Any]] = {
    c["id"]: {**c, "owner": side} for side, chits in load("events")["chits"].items() for c in chits
}


def chit_spec(chit: str) -> dict[str, Any]:
    return CHITS[chit]


def strait_roll(state: State, dice: Dice, air_point: bool) -> list[RulesEvent]:
    """11: roll at or under the turn's number; -1 for Tangier and for Ceuta held by the Allies, -1
    for one air point, +1 in bad weather, -1 Naval Power, +1 in scenario 2; Sea lions cancel it."""
    if state["strait"]["open"]:
        if air_point:
            raise RuleViolation("11", "the Strait is already open", "air_point")
        return []
    if "sea_lions" in state["played_this_turn"]:
        return [RulesEvent("StraitRolled", {"cancelled_by": "sea_lions", "success": False})]
    data = load("strait")
    if air_point and state["air"]["allied"] < 1:
        raise RuleViolation("11", "no air point is left for the Strait roll", "air_point")
    mods: list[dict[str, Any]] = []
    for city in ("Tangier", "Ceuta"):
        if geo.controller(state, geo.city_hex(state, city)) == "allied":
            mods.append({"source": f"Allies hold {city}", "drm": -1, "rule": "11"})
    if air_point:
        mods.append({"source": "one air point", "drm": -1, "rule": "11"})
    if state["weather"] == "bad":
        mods.append({"source": "bad weather", "drm": 1, "rule": "11"})
    if "naval_power" in state["played_this_turn"]:
        mods.append({"source": "Naval Power Increase", "drm": -1, "rule": "10.2"})
    if state["data"]["strait_drm"]:
        mods.append({"source": "scenario 2", "drm": state["data"]["strait_drm"], "rule": "18.2"})
    die = dice.roll(6, "strait")
    total = die.value + sum(m["drm"] for m in mods)
    needed = data["success_at_or_below"][str(state["turn"])]
    return [
        RulesEvent(
            "StraitRolled",
            {
                "die": die.as_dict(),
                "modifiers": mods,
                "total": total,
                "needed": needed,
                "success": total <= needed,
                "air_point": air_point,
            },
        )
    ]


def supply_check(state: State) -> list[RulesEvent]:
    """12.2: checked in the administrative phase, kept for the turn; turn 1 all in supply (3)."""
    if state["turn"] == 1:
        return []
    return [
        RulesEvent("SupplyDetermined", supply.determine(state, side))
        for side in ("allied", "spanish")
    ]


def _free_hexes(state: State, around: str, side: str, steps: int) -> str:
    """``around`` if the units fit there (5), else the first adjacent land hex where they fit."""
    grid = geo.board(state).grid
    for hex_ in (around, *grid.neighbours(around)):
        if geo.impassable(state, hex_) or any(u["side"] != side for u in at(state, hex_)):
            continue
        present = sum(u["steps"] for u in at(state, hex_))
        if present + steps <= geo.stacking_limit(state, hex_):
            return hex_
    return around


def reinforcements(state: State) -> list[RulesEvent]:
    """13.1 German arrivals; 14 the British reserve at the beachhead the turn after landing, or at
    Taourirt on turn 4 after a failed landing; 9.1 HQs back two turns after their loss."""
    turn = state["turn"]
    arriving: list[dict[str, Any]] = []
    for r in state["reinforcements"]:
        if r["turn"] == turn and state["units"][r["unit"]]["status"] == "pending":
            u = state["units"][r["unit"]]
            if r["entry"] in ("fleet", "atlantic_fleet"):
                arriving.append({"unit": u["id"], "hex": None})
            else:
                arriving.append(
                    {
                        "unit": u["id"],
                        "hex": _free_hexes(state, r["hexes"][0], u["side"], u["steps"]),
                    }
                )
    landing = state["landing"]
    if landing.get("done") and state.get("beachhead") and not landing.get("failed"):
        for u in state["units"].values():
            if u["status"] == "afloat" and u["id"] in state["data"]["amphibious"]["reserve"]:
                arriving.append({"unit": u["id"], "hex": state["beachhead"]})
    if landing.get("failed") and turn == state["data"]["amphibious"]["failed_return_turn"]:
        base = geo.city_hex(state, state["data"]["amphibious"]["failed_return"])
        for u in state["units"].values():
            if u["status"] == "returning":
                arriving.append(
                    {"unit": u["id"], "hex": _free_hexes(state, base, "allied", u["steps"])}
                )
    for u in state["units"].values():
        if is_hq(u) and u["status"] == "eliminated" and u.get("eliminated_turn", 99) + 2 == turn:
            city = _hq_city(state, u)
            if city:
                arriving.append({"unit": u["id"], "hex": city})
    return [RulesEvent("ReinforcementsArrived", {"units": arriving})] if arriving else []


def _hq_city(state: State, hq: dict[str, Any]) -> str | None:
    placement = load("replacements")[hq["side"]]["placement"].get(hq["formation"], [])
    for name in placement:
        hex_ = geo.city_hex(state, name)
        if geo.controller(state, hex_) == hq["side"]:
            return hex_
    if hq["nation"] == "uk" and state.get("beachhead"):
        return str(state["beachhead"])
    return None
