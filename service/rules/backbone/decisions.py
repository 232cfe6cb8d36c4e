"""Decisions the rules leave to a player in the reinforcement segment: where the German units
arrive (18.1) and where a lost HQ comes back (9.1).

18.1: "If the Strait of Gibraltar is under Spanish control, the player can choose to have the German
units deploy in Ceuta, Tangier or Tetouan (or hex adjacent to this last city), while if it is not,
they will only be able to deploy in Tetouan or a hex adjacent to this city, when arriving by air."

9.1: "If a CG / HQ is destroyed, it is recovered 2 turns later in a city that the side controlled
at the start of the game at the player's choice [...]."

With the option ``decisions: "players"`` (the default) the reinforcement segment (13.1) waits for
the owner: ``state["pending"]`` holds the decision (each unit with the places it may take, a
recorded fact), :func:`declared.active_sides` names the deciding side, ``actions`` offers one
``place_arrival`` template per unit with its places, and ``decide`` refuses any other place citing
the rule.  A unit with one legal place only is placed at once and its event says so.  With
``decisions: "automatic"`` (quick games) the old preference applies: Tetouan, else the first hex
next to it with room; an HQ in the first city of its formation's list.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from service.rules.actions import Actions, one_of
from service.rules.backbone import geography as geo
from service.rules.backbone import sequence
from service.rules.backbone.declared import COMMANDS, EVENTS
from service.rules.backbone.movement import Room
from service.rules.backbone.units import State, Unit
from service.rules.base import Dice, RulesEvent, RuleViolation
from service.rules.declare import Hex, Names
from service.rules.declare import Unit as UnitField
from service.rules.hexgame import HexNames

Command = Mapping[str, Any]
#: the reinforcement entry of the German units (13.1, 18.1)
GERMAN_ENTRY = "tetouan"


def players_decide(state: State) -> bool:
    """Whether the players take the decisions the rules give them (else the automatic preference)."""
    return state["options"].get("decisions", "players") != "automatic"


def strait_spanish(state: State, events: list[RulesEvent] | None = None) -> bool:
    """11: the Strait is under Spanish control until the Allies' roll succeeds; ``events`` are the
    ones decided just before (this turn's roll, 8.2: the Strait segment precedes reinforcements)."""
    if state["strait"]["open"]:
        return False
    return not any(e.type == "StraitRolled" and e.data.get("success") for e in events or [])


def _cities(state: State) -> list[str]:
    """Ceuta and Tangier where the map has them."""
    places = geo.board(state).places
    return [places[c].hex for c in ("Ceuta", "Tangier") if c in places]


def german_places(state: State, spanish_strait: bool, tetouan: str) -> list[str]:
    """18.1: Tetouan (the units' entry hex) and the hexes next to it; with the Strait under Spanish
    control also Ceuta and Tangier first -- a city only while the Spanish control it."""
    places = [tetouan, *geo.board(state).grid.neighbours(tetouan)]
    if spanish_strait:
        cities = [c for c in _cities(state) if geo.controller(state, c) == "spanish"]
        places = cities + [h for h in places if h not in cities]
    return places


def legal_places(
    state: State, u: Unit, room: Room, spanish_strait: bool, tetouan: str
) -> list[str]:
    """The places of 18.1 where ``u`` fits now (5, 15.1: no enemy unit, within the limit)."""
    return [h for h in german_places(state, spanish_strait, tetouan) if room.fits(u, h, u["steps"])]


class Arrivals:
    """The units of one reinforcement segment whose place is the owner's choice: each is placed at
    once (the automatic preference, or its only legal place) or waits, with its legal places."""

    def __init__(self, state: State, room: Room) -> None:
        self.state = state
        self.room = room
        self.placed: list[dict[str, Any]] = []
        self.waiting: list[dict[str, Any]] = []

    def german(self, u: Unit, tetouan: str, spanish_strait: bool) -> None:
        """18.1 (13.1): the automatic preference is Tetouan, else the first hex next to it."""
        strait = spanish_strait and players_decide(self.state)
        places = legal_places(self.state, u, self.room, strait, tetouan)
        how = "Ceuta, Tangier or Tetouan" if strait else "Tetouan"
        self._place(u, places, u["steps"], {"rule": "18.1", "where": how})

    def hq(self, u: Unit, cities: list[str]) -> None:
        """9.1: a city the side controlled at the start; the automatic preference is the first of
        its formation's list.  It comes back with its steps."""
        steps = u["max_steps"]
        places = [h for h in cities if self.room.fits(u, h, steps)]
        self._place(u, places, steps, {"rule": "9.1", "where": "a city", "steps": steps})

    def _place(self, u: Unit, places: list[str], steps: int, facts: dict[str, Any]) -> None:
        if not places:
            return  # no room: it comes in a later reinforcement segment (5, 13.1)
        extra = {"steps": facts["steps"]} if "steps" in facts else {}
        if not players_decide(self.state) or len(places) == 1:
            self.room.add(u, places[0], steps)
            only = {"only_choice": True} if players_decide(self.state) else {}
            self.placed.append({"unit": u["id"], "hex": places[0], **extra, **only})
            return
        self.waiting.append({"unit": u["id"], "side": u["side"], "places": places, **facts})

    def awaited(self) -> list[RulesEvent]:
        if not self.waiting:
            return []
        return [RulesEvent("ArrivalAwaited", {"units": self.waiting})]


def _awaited_words(d: Mapping[str, Any], n: Names) -> str:
    parts = []
    for item in d["units"]:
        who = "The Spanish player" if item["side"] == "spanish" else "The Allied player"
        if item["rule"] == "18.1":
            parts.append(
                f"{who} chooses where {n.unit(item['unit'])} arrives: {item['where']} "
                "(or a hex next to Tetouan)"
            )
        else:
            parts.append(f"{who} chooses the city where {n.unit(item['unit'])} comes back")
    return "; ".join(parts)


@EVENTS.event(
    "ArrivalAwaited",
    sections=("18.1", "13.1", "9.1", "11"),
    topics=("reinforcements", "Strait of Gibraltar", "headquarters"),
    words=_awaited_words,
)
def _awaited(state: State, d: Mapping[str, Any]) -> None:
    state["pending"] = {
        "kind": "arrival",
        "side": d["units"][0]["side"],
        "rule": d["units"][0]["rule"],
        "units": [dict(i) for i in d["units"]],
    }


def arrival_placed(state: State, unit_ids: list[str]) -> None:
    """Called by ``ReinforcementsArrived``'s application: those units' decisions are taken (placed,
    or deferred for want of room); the next waiting unit's owner decides next."""
    pending = state.get("pending")
    if not pending:
        return
    pending["units"] = [i for i in pending["units"] if i["unit"] not in unit_ids]
    if not pending["units"]:
        state["pending"] = None
        return
    pending["side"], pending["rule"] = pending["units"][0]["side"], pending["units"][0]["rule"]


def _places_now(state: State, item: Mapping[str, Any]) -> list[str]:
    """The recorded places of a waiting unit where it still fits (others of the same segment may
    have been placed since)."""
    u = state["units"][item["unit"]]
    steps = item.get("steps", u["steps"])
    room = Room(state)
    return [h for h in item["places"] if room.fits(u, h, steps)]


@COMMANDS.command(
    "place_arrival",
    phases=("arrival",),
    unit=UnitField(),
    hex=Hex(),
    doc="18.1: where a German unit arrives (Ceuta, Tangier or Tetouan with the Strait Spanish); "
    "9.1: the city where a lost HQ comes back",
)
def place_arrival(state: State, side: str, command: Command, dice: Dice) -> list[RulesEvent]:
    """The owner places one waiting unit at one of its places (18.1, 9.1)."""
    pending = state["pending"]
    uid, hex_ = command["unit"], command["hex"]
    mine = {i["unit"]: i for i in pending["units"] if i["side"] == side}
    if uid not in mine:
        mine_names = ", ".join(state["units"][u]["name"] for u in mine)
        raise RuleViolation(pending["rule"], f"the unit to place is one of {mine_names}", "unit")
    item = mine[uid]
    u = state["units"][uid]
    legal = _places_now(state, item)
    if hex_ not in legal:
        names = HexNames(state)
        where = ", ".join(names.hex(h) for h in legal)
        if item["rule"] == "18.1":
            why = (
                "Ceuta, Tangier or Tetouan (or a hex next to Tetouan)"
                if item["where"] != "Tetouan"
                else "Tetouan or a hex next to it: the Strait is no longer under Spanish control"
            )
        else:
            why = "a city of its formation the side holds"
        raise RuleViolation(
            item["rule"], f"{u['name']} arrives in {why}, with room: one of {where}", "hex"
        )
    placed: dict[str, Any] = {"unit": uid, "hex": hex_}
    if "steps" in item:
        placed["steps"] = item["steps"]  # 9.1: a recovered HQ comes back whole
    room = Room(state)
    room.add(u, hex_, item.get("steps", u["steps"]))
    others = [i for i in pending["units"] if i["unit"] != uid]
    deferred = [i["unit"] for i in others if not _fits_any(state, room, i)]
    data: dict[str, Any] = {"units": [placed]}
    if deferred:
        data["deferred"] = deferred  # 5: no room left this segment; they come in a later one
    events = [RulesEvent("ReinforcementsArrived", data)]
    if len(others) == len(deferred):
        events += sequence.next_step(state, "strait")
    return events


def _fits_any(state: State, room: Room, item: Mapping[str, Any]) -> bool:
    u = state["units"][item["unit"]]
    return any(room.fits(u, h, item.get("steps", u["steps"])) for h in item["places"])


def arrival_actions(state: State, side: str, out: Actions) -> None:
    names = HexNames(state)
    for item in state["pending"]["units"]:
        if item["side"] != side:
            continue
        u = state["units"][item["unit"]]
        places = _places_now(state, item)
        label = f"Where {u['name']} arrives ({item['rule']})"
        choose = {"hex": one_of(places, [names.hex(h) for h in places])}
        out.add(COMMANDS.template("place_arrival", label, fixed={"unit": u["id"]}, choose=choose))
