"""Backbone's rules events, each declared on its pure application (no validation, no dice) with its
sentence in printed names, its facts for the knowledge base, the sections and topics that govern it,
what each side may see of it (:mod:`.fog`) and whether it reveals hidden information."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from service.rules.backbone.data_files import load
from service.rules.backbone.decisions import arrival_placed
from service.rules.backbone.declared import EVENTS
from service.rules.backbone.fog import (
    HIDDEN,
    chit_drawn_visible,
    replacements_chosen_visible,
    units_visible,
)
from service.rules.backbone.units import State, eliminate, place
from service.rules.declare import Names

Data = dict[str, Any]
Apply = Callable[[State, Data], None]
SIDE_NAMES = {"allied": "the Allies", "spanish": "the Spanish", None: "nobody"}


def event(type_: str, *, units: bool = False, placed: bool = False, **declared: Any):  # type: ignore[no-untyped-def]
    """Declare an event; ``units``: it names units, which limited intelligence may hide (19.2)."""
    if units or placed:
        declared["visible"] = units_visible(type_, placed=placed)
    return EVENTS.event(type_, **declared)


def chit_name(chit: str) -> str:
    for chits in load("events")["chits"].values():
        for spec in chits:
            if spec["id"] == chit:
                return str(spec["name"])
    return "an event chit"


def side_name(side: str | None) -> str:
    return SIDE_NAMES.get(side, str(side))


def _unit_words(ids: list[str], state: State) -> list[str]:
    units = state.get("units", {})
    return [w for uid in ids if uid in units for w in (units[uid]["type"], units[uid]["nation"])]


def _lose_step(state: State, uid: str) -> None:
    u = state["units"][uid]
    u["steps"] -= 1
    if u["steps"] <= 0:
        eliminate(state, u)


# -- movement and deployment ---------------------------------------------------------------------
def _moved_words(d: Data, n: Names) -> str:
    if d.get("hidden"):
        return "A hidden unit moves"
    words = f"{n.unit(d['unit'])} moves {n.path(d['path'])} ({d['cost']:g} of {d['mp']} MP)"
    if d.get("stopped"):  # 19.2 with 7.1: a zone of control it could not see stopped it
        words += f", stopped in {n.hex(d['stopped']['hex'])} by an enemy zone of control (7.1)"
    return words


def _moved_facts(d: Data, before: State) -> list[str]:
    words = _unit_words([d["unit"]], before)
    if d.get("ignored_zoc"):
        words.append("ignore first ZOC")
    if d.get("zoc_to_zoc"):
        words.append("ZOC to ZOC")
    if d.get("stopped"):
        words.append("stopped by an unseen zone of control")
    return sorted(set(words))


@event(
    "UnitMoved",
    units=True,
    sections=("15", "15.1", "15.2", "7.1", "9.2", "5"),
    topics=("movement", "zone of control", "terrain"),
    words=_moved_words,
    facts=_moved_facts,
)
def _moved(state: State, d: Data) -> None:
    u = state["units"][d["unit"]]
    place(state, u, d["path"][-1])
    state["control"][d["path"][-1]] = u["side"]
    state["moved"].append(u["id"])


@event(
    "UnitsDeployed",
    placed=True,
    sections=("8.1", "18.1", "18.2", "5"),
    topics=("deployment",),
    words=lambda d, n: (
        f"{side_name(d['side']).capitalize()} deploy "
        + (
            ", ".join(f"{n.unit(u)} in {n.hex(h)}" for u, h in d["positions"].items())
            or "as set up"
        )
    ),
)
def _deployed(state: State, d: Data) -> None:
    for uid, hex_ in d["positions"].items():
        state["units"][uid]["hex"] = hex_


@event(
    "StepChanged",
    sections=("8.2",),
    topics=("sequence of play",),
    words=lambda d, n: f"Turn {d['turn']}: {d['step'].replace('_', ' ')}",
)
def _step(state: State, d: Data) -> None:
    state["step"] = d["step"]
    state["moved"] = []
    state["exploiters"] = []
    state["exploit_target"] = None
    state.pop("exploit_targets", None)


@event(
    "TurnBegan",
    sections=("8.2", "3"),
    topics=("sequence of play",),
    words=lambda d, n: f"Turn {d['turn']} begins",
)
def _turn(state: State, d: Data) -> None:
    state["turn"] = d["turn"]
    state["attacked_units"] = []
    state["attacked_hexes"] = []
    state["corps_attacked"] = []
    state["hq_used"] = {}
    state["naval"]["used_coasts"] = []
    state["played_this_turn"] = []
    state["initiative"] = "allied"
    state["replacements"] = {}
    state["end_votes"] = {}


# -- combat (16) ----------------------------------------------------------------------------------
def _declared_words(d: Data, n: Names) -> str:
    c = d["combat"]
    how = "lands against" if c.get("amphibious") else "attacks"
    return f"{n.units(c['attackers'])} {how} {n.units(c['defenders'])} in {n.hex(c['target'])}"


def _declared_facts(d: Data, before: State) -> list[str]:
    c = d["combat"]
    words = _unit_words(c["attackers"] + c["defenders"], before)
    words += [w for w in ("amphibious", "exploitation") if c.get(w)]
    return sorted(set(words))


@event(
    "CombatDeclared",
    units=True,
    reveals=True,  # 19.2 the defending stack; 16.1 once announced it must be fought
    sections=("16.1", "16.2", "16.3", "16.4", "9.1", "9.2", "12.3", "14"),
    topics=("combat", "supports"),
    words=_declared_words,
    facts=_declared_facts,
)
def _declared(state: State, d: Data) -> None:
    c = dict(d["combat"])
    side = c["attacker_side"]
    sup = c["supports"]
    state["air"][side] -= sup["air"]
    if not c["amphibious"]:
        state["naval"]["points"] -= sup["naval"]
    if sup["naval"] and d.get("coast"):
        state["naval"]["used_coasts"].append(d["coast"])
    if c["amphibious"]:
        state["naval"]["used_coasts"].append("mediterranean")
    if sup.get("hq"):
        state["hq_used"].setdefault(sup["hq"], []).append("attack")
    if not c["exploitation"]:
        _attacked(state, c)
    state["exploiters"] = []
    state["exploit_target"] = None
    state.pop("exploit_targets", None)
    c["stage"] = "defence"
    state["combat"] = c


def _attacked(state: State, c: Data) -> None:
    state["attacked_units"].extend(c["attackers"])
    state["attacked_hexes"].append(c["target"])
    if c["attacker_side"] != "spanish":
        return
    for uid in c["attackers"]:
        corps = state["units"][uid]["formation"]
        if corps not in state["corps_attacked"]:
            state["corps_attacked"].append(corps)


def _supports_words(sup: Data, n: Names) -> str:
    parts = [f"{sup[k]} {k}" for k in ("air", "naval") if sup.get(k)]
    if sup.get("hq"):
        parts.append(f"{n.unit(sup['hq'])} in support")
    if sup.get("legion"):
        parts.append("the Legion")
    return ", ".join(parts) or "no support"


@event(
    "DefenceDeclared",
    units=True,
    sections=("16.3", "16.4", "9.1", "9.2"),
    topics=("combat", "supports"),
    words=lambda d, n: (
        f"{side_name(d['side']).capitalize()} defend with " + _supports_words(d["supports"], n)
    ),
)
def _defence(state: State, d: Data) -> None:
    sup = d["supports"]
    side = d["side"]
    state["air"][side] -= sup["air"]
    state["naval"]["points"] -= sup["naval"]
    if sup.get("hq"):
        state["hq_used"].setdefault(sup["hq"], []).append("defence")
    state["combat"]["defence"] = sup
    state["combat"]["picks"] = d["picks"]


@event(
    "CombatRolled",
    sections=("10.2", "16.2"),
    topics=("Baraka", "combat"),
    words=lambda d, n: (
        f"The combat die reads {d['die']['value']} ({d['result']}): the Spanish may call on Baraka"
    ),
)
def _rolled(state: State, d: Data) -> None:
    state["combat"]["stage"] = "baraka"
    state["combat"]["first_die"] = d["die"]


@event(
    "BarakaUsed",
    sections=("10.2",),
    topics=("Baraka",),
    words=lambda d, n: (
        f"Baraka: the die of {d['ignored']['value']} is rolled again: {d['die']['value']}"
    ),
)
def _baraka(state: State, d: Data) -> None:
    state["baraka_turn"] = state["turn"]


def _resolved_words(d: Data, n: Names) -> str:
    below = (
        " (below 1:2 on the whole stack, fought on 1:2: 19.2)"
        if d["odds"].get("below_table")
        else ""
    )
    return (
        f"Combat in {n.hex(d['target'])}: {d['odds']['base_ratio']} -> {d['odds']['column']}"
        f"{below}, die {d['die']['value']}{d['net_drm']:+d} = {d['modified_roll']}: "
        f"{d['result']['text']}"
    )


def _resolved_facts(d: Data, before: State) -> list[str]:
    words = [d["result"]["text"], d["odds"]["column"]]
    combat = before.get("combat") or {}
    fighting = [*combat.get("attackers", []), *combat.get("defenders", [])]
    if any((before["units"].get(uid) or {}).get("type") == "legion" for uid in fighting):
        words.append("the Legion fought")  # 9.2 / 16.6: who takes the first loss
    if d["odds"].get("below_table"):
        words.append("below 1:2 on the whole stack (19.2)")
    return sorted(set(words + (["retreat"] if d["result"]["retreat"] else [])))


@event(
    "CombatResolved",
    units=True,
    sections=("16.2", "16.3", "16.6", "6"),
    topics=("combat results table", "losses", "efficiency"),
    words=_resolved_words,
    facts=_resolved_facts,
)
def _resolved(state: State, d: Data) -> None:
    for loss in d["losses"]["attacker"] + d["losses"]["defender"]:
        _lose_step(state, loss["unit"])
    state["combat"]["result"] = d["result"]["text"]


@event(
    "RetreatRequired",
    units=True,
    sections=("16.7",),
    topics=("retreat",),
    words=lambda d, n: f"{n.units(d['units'])} must retreat from {n.hex(d['from'])}",
)
def _retreat_required(state: State, d: Data) -> None:
    state["combat"]["stage"] = "retreat"
    state["combat"]["retreating"] = d["units"]


@event(
    "LastStandRolled",
    units=True,
    sections=("16.5",),
    topics=("last stand defense",),
    words=lambda d, n: (
        f"Last stand in {n.hex(d['hex'])}: die {d['die']['value']} against "
        f"{d['needed']}, " + ("the hex is held" if d["success"] else "it fails")
    ),
    facts=lambda d, before: ["last stand " + ("success" if d["success"] else "failed")],
)
def _last_stand(state: State, d: Data) -> None:
    if d["success"]:
        _lose_step(state, d["loss"])
    else:
        state["combat"]["last_stand_failed"] = True
        state["combat"]["stage"] = "retreat"  # back from a Baraka stage, if there was one
        state["combat"].pop("baraka_for", None)


@event(
    "LastStandDieRolled",
    sections=("16.5", "10.2"),
    topics=("last stand defense", "Baraka"),
    words=lambda d, n: (
        f"The last stand die in {n.hex(d['hex'])} reads {d['die']['value']} against "
        f"{d['needed']}: the Spanish may call on Baraka"
    ),
)
def _last_stand_die(state: State, d: Data) -> None:
    """10.2 (option ``baraka_dice: any_combat_die``): the last stand waits for Baraka."""
    combat = state["combat"]
    combat["stage"] = "baraka"
    combat["first_die"] = d["die"]
    combat["baraka_for"] = "last stand"
    combat["last_stand_loss"] = d["loss"]


def _retreated_words(d: Data, n: Names) -> str:
    to = n.hex(d["to"]) if d["to"] else "elimination"
    return f"{n.units(d['units'])} retreat from {n.hex(d['from'])} to {to}"


@event(
    "UnitsRetreated",
    units=True,
    sections=("16.7", "7.2"),
    topics=("retreat", "zone of control"),
    words=_retreated_words,
)
def _retreated(state: State, d: Data) -> None:
    for uid in d["extra_losses"]:
        if state["units"][uid]["status"] == "map":
            _lose_step(state, uid)
    for uid in d["units"]:
        u = state["units"][uid]
        if uid in d["eliminated"] or d["to"] is None:
            if u["status"] == "map":
                eliminate(state, u)
            continue
        place(state, u, d["to"])
        u["retreated_turn"] = state["turn"]
        u["retreated_into"] = d["to"]
    combat = state["combat"]
    combat["retreating"] = [uid for uid in combat["retreating"] if uid not in d["units"]]
    if d["to"] is not None:
        if combat.get("retreated_to") is None:
            combat["retreated_to"] = d["to"]
        hexes = combat.setdefault("retreated_hexes", [])
        if d["to"] not in hexes:
            hexes.append(d["to"])


@event(
    "AdvanceRequired",
    sections=("16.7",),
    topics=("advance after combat",),
    words=lambda d, n: f"{n.hex(d['hex'])} is empty: the attackers advance",
)
def _advance_required(state: State, d: Data) -> None:
    state["combat"]["stage"] = "advance"


@event(
    "UnitsAdvanced",
    units=True,
    sections=("16.7", "9.1"),
    topics=("advance after combat", "exploitation"),
    words=lambda d, n: f"{n.units(d['units'])} advance into {n.hex(d['to'])}",
)
def _advanced(state: State, d: Data) -> None:
    for uid in d["units"]:
        place(state, state["units"][uid], d["to"])
    state["control"][d["to"]] = state["units"][d["units"][0]]["side"]
    retreated_to = state["combat"].get("retreated_to")
    state["pending_exploit"] = {"units": d["exploiters"], "target": retreated_to}
    if len(state["combat"].get("retreated_hexes") or []) > 1:  # 16.7: the stack split
        state["pending_exploit"]["targets"] = list(state["combat"]["retreated_hexes"])


@event(
    "CombatEnded",
    sections=("16.1",),
    topics=("combat",),
    words=lambda d, n: f"The combat in {n.hex(d['target'])} is over",
)
def _ended(state: State, d: Data) -> None:
    pending = state.pop("pending_exploit", None)
    state["combat"] = None
    if pending and pending["units"] and pending["target"]:
        state["exploiters"] = pending["units"]
        state["exploit_target"] = pending["target"]
        if pending.get("targets"):
            state["exploit_targets"] = pending["targets"]


# -- the landing (14) -------------------------------------------------------------------------------
@event(
    "LandingSucceeded",
    units=True,
    sections=("14", "18.2"),
    topics=("amphibious invasion", "beachhead"),
    words=lambda d, n: f"{n.units(d['units'])} land in {n.hex(d['hex'])}",
)
def _landed(state: State, d: Data) -> None:
    for uid in d["units"]:
        u = state["units"][uid]
        if u["status"] == "afloat" and u["steps"] > 0:
            place(state, u, d["hex"])
            u["landed_turn"] = state["turn"]
    state["control"][d["hex"]] = "allied"
    state["beachhead"] = d["hex"]
    state["landing"]["done"] = True


@event(
    "LandingFailed",
    units=True,
    sections=("14",),
    topics=("amphibious invasion",),
    words=lambda d, n: (
        f"The landing in {n.hex(d['hex'])} fails: the fleet takes {n.units(d['units'])} back"
    ),
)
def _landing_failed(state: State, d: Data) -> None:
    for u in state["units"].values():
        if u["status"] == "afloat":
            u["status"] = "returning"
    state["landing"]["done"] = True
    state["landing"]["failed"] = True


# -- the administrative phase (10-13) -------------------------------------------------------------
@event(
    "WeatherDetermined",
    sections=("10.1", "3", "19.1"),
    topics=("weather",),
    words=lambda d, n: f"The weather is {d['weather']}",
    facts=lambda d, before: [f"{d['weather']} weather"],
)
def _weather(state: State, d: Data) -> None:
    state["weather"] = d["weather"]


@event(
    "SupportPointsSet",
    sections=("16.4", "10.1", "16.3", "18.2"),
    topics=("air points", "naval support"),
    words=lambda d, n: (
        f"Air points: Allies {d['air']['allied']}, Spanish {d['air']['spanish']}; "
        f"naval points {d['naval']}"
    ),
)
def _supports_set(state: State, d: Data) -> None:
    state["air"] = dict(d["air"])
    state["naval"]["points"] = d["naval"]


def _strait_words(d: Data, n: Names) -> str:
    if d.get("cancelled_by"):
        return "Sea lions in the Strait: the Strait roll is cancelled"
    return "The Strait is forced open" if d["success"] else "The Strait stays closed"


@event(
    "StraitRolled",
    sections=("11", "10.2", "18.2"),
    topics=("Strait of Gibraltar",),
    words=_strait_words,
)
def _strait(state: State, d: Data) -> None:
    if d.get("air_point"):
        state["air"]["allied"] -= 1
    if d["success"]:
        state["strait"] = {"open": True, "turn": state["turn"]}


@event(
    "SupplyDetermined",
    units=True,
    sections=("12.1", "12.2", "7.2"),
    topics=("supply",),
    words=lambda d, n: (
        f"Supply of {side_name(d['side'])}: "
        + (
            f"{n.units(d['out_of_supply'])} out of supply"
            if d["out_of_supply"]
            else "all in supply"
        )
    ),
)
def _supply(state: State, d: Data) -> None:
    out = set(d["out_of_supply"])
    for u in state["units"].values():
        if u["side"] == d["side"]:
            u["supplied"] = u["id"] not in out
    if d["side"] == "allied":
        state["supply_links"] = list(d["linked_to_port_lyautey"])


def _arrived_words(d: Data, n: Names) -> str:
    parts = [
        (f"{n.unit(i['unit'])} in {n.hex(i['hex'])}" if i["hex"] else f"{n.unit(i['unit'])} afloat")
        + (" (the only place with room, taken automatically)" if i.get("only_choice") else "")
        for i in d["units"]
    ]
    return "Reinforcements arrive: " + (", ".join(parts) or "none you can see")


@event(
    "ReinforcementsArrived",
    units=True,
    sections=("13.1", "14", "9.1"),
    topics=("reinforcements",),
    words=_arrived_words,
)
def _arrived(state: State, d: Data) -> None:
    if state.get("pending"):
        arrival_placed(state, [i["unit"] for i in d["units"]] + list(d.get("deferred", [])))
    for item in d["units"]:
        u = state["units"][item["unit"]]
        if item["hex"] is None:
            u["status"] = "afloat"
            continue
        place(state, u, item["hex"])
        u["supplied"] = True
        if "steps" in item:
            u["steps"] = item["steps"]  # 9.1: a recovered HQ comes back whole


# -- events (10.2) --------------------------------------------------------------------------------
def _drawn_words(d: Data, n: Names) -> str:
    who = side_name(d["side"]).capitalize()
    if d["chit"] == HIDDEN:
        return f"{who} draw an event chit"
    return f"{who} draw {chit_name(d['chit'])}"


@event(
    "EventChitDrawn",
    reveals=True,  # 10.2: the drawing side sees its chit
    sections=("10.2",),
    topics=("events",),
    words=_drawn_words,
    facts=lambda d, before: [str(d.get("chit"))],
    visible=chit_drawn_visible,
)
def _chit_drawn(state: State, d: Data) -> None:
    ev = state["events"]
    ev["cups"][d["side"]].remove(d["chit"])
    ev["hands"][d["side"]].append(d["chit"])
    if d.get("permanent"):
        ev["in_force"].append(d["chit"])


def _stolen(state: State, side: str, chit: str) -> None:
    ev = state["events"]
    other = "allied" if side == "spanish" else "spanish"
    where = "hands" if chit in ev["hands"][other] else "cups"
    ev[where][other].remove(chit)
    ev["hands"][side].append(chit)


def _placed_rif(state: State, items: list[Data]) -> None:
    for item in items:
        spec = next(r for r in state["data"]["rif_units"] if r["id"] == item["unit"])
        rif = {
            **spec,
            "side": "allied",
            "type": "rif",
            "nation": "rif",
            "formation": "Rif",
            "support": 0,
            "max_steps": spec["steps"],
            "supplied": True,
            "seq": 0,
        }
        state["units"][spec["id"]] = rif
        place(state, rif, item["hex"])


def _withdrawn(state: State, ids: list[str]) -> None:
    for uid in ids:
        state["units"][uid].update(status="withdrawn", hex=None)


def _step_losses(state: State, ids: list[str]) -> None:
    for uid in ids:
        _lose_step(state, uid)


_EFFECTS: dict[str, Callable[[State, str, Any], None]] = {
    "air": lambda s, side, v: s["air"].__setitem__("allied", v),
    "naval": lambda s, side, v: s["naval"].__setitem__("points", v),
    "initiative": lambda s, side, v: s.__setitem__("initiative", v),
    "stolen": lambda s, side, v: _stolen(s, side, v) if v else None,
    "step_losses": lambda s, side, v: _step_losses(s, v),
    "withdrawn": lambda s, side, v: _withdrawn(s, v),
    "placed": lambda s, side, v: _placed_rif(s, v),
}


@event(
    "EventChitPlayed",
    units=True,
    reveals=True,  # 10.2: a played chit is shown
    sections=("10.2",),
    topics=("events",),
    words=lambda d, n: f"{side_name(d['side']).capitalize()} play {chit_name(d['chit'])}",
    facts=lambda d, before: [str(d.get("chit"))],
)
def _chit_played(state: State, d: Data) -> None:
    ev = state["events"]
    side = d["side"]
    if d["chit"] in ev["hands"][side]:
        ev["hands"][side].remove(d["chit"])
    ev["played"].append(d["chit"])
    state["played_this_turn"].append(d["chit"])
    for key, value in d.get("effects", {}).items():
        _EFFECTS[key](state, side, value)


# -- replacements and fortifications (13.2, 13.3) ---------------------------------------------------
@event(
    "FortificationsBuilt",
    sections=("13.3",),
    topics=("fortifications",),
    words=lambda d, n: "Fortifications built in " + ", ".join(n.hex(h) for h in d["hexes"]),
)
def _fortified(state: State, d: Data) -> None:
    for hex_ in d["hexes"]:
        state["fortifications"][hex_] = state["fortifications"].get(hex_, 0) + 1


@event(
    "ReplacementsChosen",
    sections=("13.2",),
    topics=("replacements",),
    words=lambda d, n: f"{side_name(d['side']).capitalize()} choose their replacements",
    visible=replacements_chosen_visible,
)
def _replacements_chosen(state: State, d: Data) -> None:
    state["replacements"][d["side"]] = d["steps"]


@event(
    "ReplacementsPlaced",
    units=True,
    reveals=True,  # 13.2: the opponent's replacements are shown once both have chosen
    sections=("13.2",),
    topics=("replacements",),
    words=lambda d, n: (
        f"{side_name(d['side']).capitalize()} replace a step of "
        + n.units([s["unit"] for s in d["steps"]])
    ),
)
def _replacements_placed(state: State, d: Data) -> None:
    for item in d["steps"]:
        u = state["units"][item["unit"]]
        if u["status"] == "eliminated":
            u["steps"] = 1
            place(state, u, item["hex"])
            u["supplied"] = True
        else:
            u["steps"] += 1


# -- the end (17) and the paratroopers (18.1) --------------------------------------------------------
@event(
    "EndOfGameVoted",
    sections=("17",),
    topics=("victory",),
    words=lambda d, n: (
        f"{side_name(d['side']).capitalize()} vote to "
        + ("end the game" if d["end"] else "play on")
    ),
)
def _vote(state: State, d: Data) -> None:
    state["end_votes"][d["side"]] = d["end"]


@event(
    "ParatroopersDropped",
    units=True,
    sections=("18.1", "9.2"),
    topics=("paratrooper assault",),
    words=lambda d, n: (
        "Paratroopers jump: "
        + ", ".join(
            f"{n.unit(i['unit'])} on {n.hex(i['hex'])}" + (" (lost)" if i["lost"] else "")
            for i in d["drops"]
        )
    ),
)
def _dropped(state: State, d: Data) -> None:
    for item in d["drops"]:
        u = state["units"][item["unit"]]
        state["air"]["allied"] -= 1
        u["dropped_turn"] = state["turn"]
        if item["lost"]:
            u.update(status="lost", hex=None, steps=0)
            continue
        place(state, u, item["hex"])
        u["supplied"] = True


@event(
    "GameEnded",
    sections=("17",),
    topics=("victory",),
    words=lambda d, n: (
        f"Game over: {d['result']['level']} victory of {side_name(d['result']['winner'])}"
    ),
)
def _game_ended(state: State, d: Data) -> None:
    state["result"] = d["result"]
    state["step"] = "over"
