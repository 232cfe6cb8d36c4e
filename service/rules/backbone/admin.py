"""The administrative phase (8.2): weather (10.1), event chits (10.2), the Strait (11), supply (12),
reinforcements (13.1, 14, 9.1) -- each a function returning the events it decides."""

from __future__ import annotations

from typing import Any

from service.rules.backbone import decisions, supply
from service.rules.backbone import geography as geo
from service.rules.backbone.data_files import load
from service.rules.backbone.movement import PutRight, Room
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


def _around(state: State, hex_: str) -> list[str]:
    """``hex_`` and then its neighbours: where an arrival "in X or adjacent" may be placed."""
    return [hex_, *geo.board(state).grid.neighbours(hex_)]


def reinforcements(state: State, before: list[RulesEvent] | None = None) -> list[RulesEvent]:
    """13.1 German arrivals; 14 the British reserve at the beachhead the turn after landing, or at
    Taourirt on turn 4 after a failed landing; 9.1 HQs back two turns after their loss.  Each is
    placed where it fits (5, see :class:`movement.Room`); one with no room waits and comes in a
    later reinforcement segment.  The reserve may make the beachhead's stack go over the limit as
    long as moving out of it can put it right (5, 14: it lands and moves on).  Where the German
    units arrive (18.1) and the city a lost HQ comes back to (9.1) are the owner's choice
    (:mod:`.decisions`); ``before`` are the events of this administrative phase already decided
    (the Strait roll, 11).  While a choice is awaited the segment does not end."""
    turn = state["turn"]
    room = Room(state)
    arriving: list[dict[str, Any]] = []
    chosen = decisions.Arrivals(state, room)
    spanish_strait = decisions.strait_spanish(state, before)

    def arrive(u: dict[str, Any], hexes: list[str], **extra: Any) -> None:
        steps = extra.get("steps", u["steps"])
        hex_ = room.take(u, hexes, steps)
        if hex_:
            arriving.append({"unit": u["id"], "hex": hex_, **extra})

    for r in state["reinforcements"]:
        u = state["units"][r["unit"]]
        if r["turn"] > turn or u["status"] != "pending":
            continue
        if r["entry"] in ("fleet", "atlantic_fleet"):
            arriving.append({"unit": u["id"], "hex": None})
        elif r["entry"] == decisions.GERMAN_ENTRY:
            chosen.german(u, r["hexes"][0], spanish_strait)
        else:
            arrive(u, _around(state, r["hexes"][0]))
    arriving += chosen.placed
    arriving += _reserve(state, room)
    if state["landing"].get("failed") and turn >= state["data"]["amphibious"]["failed_return_turn"]:
        base = geo.city_hex(state, state["data"]["amphibious"]["failed_return"])
        for u in state["units"].values():
            if u["status"] == "returning":
                arrive(u, _around(state, base))
    for u in state["units"].values():
        if is_hq(u) and u["status"] == "eliminated" and u.get("eliminated_turn", 99) + 2 <= turn:
            before_hq = len(chosen.placed)
            chosen.hq(u, _hq_cities(state, u))
            arriving += chosen.placed[before_hq:]
    events = [RulesEvent("ReinforcementsArrived", {"units": arriving})] if arriving else []
    return events + chosen.awaited()


def _reserve(state: State, room: Room) -> list[dict[str, Any]]:
    """14: the reserve afloat lands at the beachhead the turn after a landing; a unit that would
    leave the beachhead over the limit with no moves to put it right stays afloat for now (5)."""
    landing, beachhead = state["landing"], state.get("beachhead")
    if not (landing.get("done") and beachhead and not landing.get("failed")):
        return []
    arriving = []
    for u in state["units"].values():
        if u["status"] != "afloat" or u["id"] not in state["data"]["amphibious"]["reserve"]:
            continue
        if room.take(u, [beachhead], u["steps"]):
            arriving.append({"unit": u["id"], "hex": beachhead})
            continue
        if any(v["side"] != u["side"] for v in at(state, beachhead)):
            continue
        room.add(u, beachhead, u["steps"])
        if PutRight(room.arrived(), u["side"]).possible():
            arriving.append({"unit": u["id"], "hex": beachhead})
        else:
            room.added[beachhead].pop()
    return arriving


def _hq_cities(state: State, hq: dict[str, Any]) -> list[str]:
    """9.1: the cities of the HQ's formation the side still holds (the British also the
    beachhead), in the order of the replacement table."""
    placement = load("replacements")[hq["side"]]["placement"].get(hq["formation"], [])
    found = [
        geo.city_hex(state, name)
        for name in placement
        if geo.controller(state, geo.city_hex(state, name)) == hq["side"]
    ]
    if hq["nation"] == "uk" and state.get("beachhead"):
        found.append(str(state["beachhead"]))
    return found
