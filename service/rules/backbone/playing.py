"""Commands of the administrative phase, events (10.2), replacements and fortifications (13), the
landing (14), the paratroopers (18.1) and the end by agreement (17), each declared with its fields
and phases (:mod:`.declared`): a handler reads its fields as typed and checks only rules."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from service.rules.backbone import admin, combat_flow, sequence
from service.rules.backbone import geography as geo
from service.rules.backbone.data_files import load
from service.rules.backbone.declared import COMMANDS, Positions, non_empty, unit_at_hex
from service.rules.backbone.movement import Room, stacking_violations
from service.rules.backbone.units import (
    State,
    Unit,
    at,
    is_armor,
    on_map,
    tags,
    unit,
)
from service.rules.base import Dice, InvalidCommand, RulesEvent, RuleViolation
from service.rules.declare import Count, Flag, Hex, Nested, Text, Texts, Units
from service.rules.declare import Unit as UnitField

Command = Mapping[str, Any]


def fortifiable(state: State, hex_: str, deployment: bool) -> None:
    if not geo.board(state).grid.in_bounds(hex_) or geo.impassable(state, hex_):
        raise RuleViolation("13.3", f"{hex_} is not a land hex", "hexes")
    if deployment and not geo.spanish_territory(state, hex_):
        raise RuleViolation("13.3", f"{hex_} is not in Spanish territory", "hexes")
    if geo.controller(state, hex_) != "spanish" or any(
        u["side"] == "allied" for u in at(state, hex_)
    ):
        raise RuleViolation("13.3", f"{hex_} is not controlled by the Spanish player", "hexes")


@COMMANDS.command(
    "deploy",
    phases=("deployment", "allied_deployment"),
    positions=Positions(),
    fortifications=Texts(required=False),
    doc="8.1, 18: set up (the scenario's set-up is the default); the Spanish fortify (13.3)",
)
def deploy(state: State, side: str, command: Command, dice: Dice) -> list[RulesEvent]:
    """8.1 / 18: the Spanish deploy first (and place 5 fortifications, 13.3), then the Allies; the
    scenario's set-up is the default, ``positions`` moves units within the rules' areas."""
    moved = dict(command.get("positions") or {})
    for uid in moved:
        u = unit(state, uid)
        if u is None or u["side"] != side or u["status"] != "map":
            raise InvalidCommand(
                "unknown unit", {f"positions.{uid}": ["not one of your units on the map"]}
            )
    trial = {uid: {**u, "hex": moved.get(uid, u["hex"])} for uid, u in state["units"].items()}
    look = {**state, "units": trial}
    for u in on_map(look, side):
        _deployment_area(look, u)
    problems = stacking_violations(look, side)
    if problems:
        where = ", ".join(f"{p['hex']} ({p['limit']})" for p in problems)
        raise RuleViolation("5", f"deployment over the stacking limits: {where}", "positions")
    events = [RulesEvent("UnitsDeployed", {"side": side, "positions": moved})] if moved else []
    if side == "allied":
        return events + [RulesEvent("StepChanged", {"step": "administrative", "turn": 1})]
    _garrisons(look)
    events += _fortifications(state, list(command.get("fortifications") or []))
    return events + [RulesEvent("StepChanged", {"step": "allied_deployment", "turn": 1})]


def _fortifications(state: State, hexes: list[str]) -> list[RulesEvent]:
    allowed = state["data"]["fortifications_at_deployment"]
    if len(hexes) > allowed:
        raise RuleViolation(
            "13.3", f"at most {allowed} fortifications at deployment", "fortifications"
        )
    for hex_ in hexes:
        fortifiable(state, hex_, deployment=True)
    return [RulesEvent("FortificationsBuilt", {"hexes": hexes, "rule": "13.3"})] if hexes else []


def _deployment_area(state: State, u: Unit) -> None:
    """18.1: IX CE (and the Germans) west of and in column 13, X CE east of and in column 14,
    Mehalas anywhere in the Protectorate; WTF up to column 12 and CTF from column 13, south of the
    border; 18.2: American units in or next to a city they hold."""
    hex_ = u["hex"]
    if not geo.board(state).grid.in_bounds(hex_) or geo.impassable(state, hex_):
        raise RuleViolation("18.1", f"{u['name']}: {hex_} is not a land hex", "positions")
    ok = _spanish_area(state, u, hex_) if u["side"] == "spanish" else _allied_area(state, u, hex_)
    if not ok:
        raise RuleViolation(
            "18.1" if state["data"]["scenario_number"] == 1 else "18.2",
            f"{u['name']} may not deploy in {hex_}",
            "positions",
        )


def _spanish_area(state: State, u: Unit, hex_: str) -> bool:
    col = geo.column(hex_)
    return geo.spanish_territory(state, hex_) and (
        "mehalas" in tags(u)
        or (u["formation"] == "IX CE" and col <= 13)
        or (u["formation"] == "X CE" and col >= 14)
    )


def _allied_area(state: State, u: Unit, hex_: str) -> bool:
    col = geo.column(hex_)
    ok = not geo.spanish_territory(state, hex_) and (
        (u["formation"] == "WTF" and col <= 12) or (u["formation"] == "CTF" and col >= 13)
    )
    if not ok or state["data"]["scenario_number"] != 2 or u["nation"] != "us":
        return ok
    grid = geo.board(state).grid
    cities = [
        p.hex
        for p in geo.board(state).places_of_kind("city")
        if not geo.spanish_territory(state, p.hex)
    ]
    return any(grid.distance(hex_, c) <= 1 for c in cities)


def _garrisons(state: State) -> None:
    """18.1: Ceuta, Tangier, Tetouan, Villa Sanjurjo and Melilla start with a combat unit (no HQ)."""
    for name in state["data"]["garrisons"]:
        hex_ = geo.city_hex(state, name)
        if not any(u["side"] == "spanish" and u["type"] != "hq" for u in at(state, hex_)):
            raise RuleViolation("18.1", f"{name} needs a combat unit as garrison", "positions")


@COMMANDS.command("begin_turn", phases=("administrative",), doc="10: weather, supports, the chit")
def begin_turn(state: State, side: str, command: Command, dice: Dice) -> list[RulesEvent]:
    """Meteorology and events segment (10): weather, air and naval points, the chit draw."""
    events = admin.weather(state, dice)
    kind = events[0].data["weather"]
    events.append(admin.support_points(state, kind))
    events += admin.draw_chit(state, dice)
    return events + [RulesEvent("StepChanged", {"step": "events", "turn": state["turn"]})]


@COMMANDS.command(
    "pass", phases=("events", "amphibious"), doc="10.2: play no chit; 18.2: do not land this turn"
)
def pass_(state: State, side: str, command: Command, dice: Dice) -> list[RulesEvent]:
    if state["step"] == "amphibious":
        if state["data"]["scenario_number"] == 1:
            raise RuleViolation("14", "the landing of turn 1 is mandatory", "type")
        return sequence.next_step(state, "amphibious")
    if "tunisia" in state["events"]["hands"][side]:
        raise RuleViolation("10.2", "the German offensive in Tunisia is played at once", "type")
    return [RulesEvent("StepChanged", {"step": "strait", "turn": state["turn"]})]


@COMMANDS.command(
    "roll_strait",
    phases=("strait",),
    air_point=Flag(required=False),
    doc="11: the Strait roll (an air point for -1), then supply (12.2) and reinforcements (13.1)",
)
def roll_strait(state: State, side: str, command: Command, dice: Dice) -> list[RulesEvent]:
    """Strait (11), supply (12.2) and reinforcements (13.1) segments."""
    events = admin.strait_roll(state, dice, bool(command.get("air_point")))
    events += admin.supply_check(state)
    events += admin.reinforcements(state, events)
    if any(e.type == "ArrivalAwaited" for e in events):
        return events  # 18.1: the segment ends once the Spanish player has placed the Germans
    return events + sequence.next_step(state, "strait")


# -- events (10.2) ----------------------------------------------------------------------------------
#: the field each chit's effect needs (the Rif hexes, the battalions sent to Tunisia, the GFRI)
CHIT_FIELDS = {"rif_rebellion": "hexes", "tunisia": "units", "oss": "gfri"}


def refusal(state: State, side: str, chit: str) -> str | None:
    """Why ``side`` may not play ``chit`` now (10.2), or None."""
    spec = admin.chit_spec(chit)
    if chit not in state["events"]["hands"][side]:
        return f"{spec['name']} is not in your hand"
    if spec["timing"] == "permanent":
        return f"{spec['name']} is in force from its draw"
    first_turn = state["turn"] == 1 and state["data"]["scenario_number"] == 1
    if spec.get("not_turn_1_of_scenario") == "1" and first_turn:
        return f"{spec['name']} drawn in turn 1 of scenario 1 must be saved"
    if spec.get("not_in_bad_weather") and state["weather"] == "bad":
        return f"{spec['name']} cannot be played in bad weather"
    return None


@COMMANDS.command(
    "play_event",
    phases=("events",),
    chit=Text(),
    hexes=Texts(required=False),
    units=Units(required=False),
    gfri=UnitField(required=False),
    doc="10.2: play an event chit (Rif hexes, Tunisia battalions, the OSS's GFRI as the chit needs)",
)
def play_event(state: State, side: str, command: Command, dice: Dice) -> list[RulesEvent]:
    chit = command["chit"]
    needed = CHIT_FIELDS.get(chit)
    if needed and command.get(needed) is None:
        raise InvalidCommand(f"{chit} needs {needed}", {needed: [f"required to play {chit}"]})
    reason = refusal(state, side, chit) if chit in admin.CHITS else "not an event chit"
    if reason:
        raise RuleViolation("10.2", reason, "chit")
    effects, rolls = _EFFECTS.get(chit, _no_effect)(state, side, command, dice)
    data = {"side": side, "chit": chit, "effects": effects, "dice": rolls}
    return [RulesEvent("EventChitPlayed", data)]


Effects = tuple[dict[str, Any], list[dict[str, Any]]]


def _no_effect(state: State, side: str, command: Command, dice: Dice) -> Effects:
    return {}, []


def _sea_lions(state: State, side: str, command: Command, dice: Dice) -> Effects:
    return ({"naval": 0} if state["strait"]["open"] else {}), []


def _steal(state: State, side: str, command: Command, dice: Dice) -> Effects:
    """Ultra and Nest of spies: a chit at random among the other side's cup and hand ("those
    pending to come out or those that he already has ready for use but has not used yet") -- not a
    permanent chit already in force (in use "for the rest of the game")."""
    other = "spanish" if side == "allied" else "allied"
    in_force = set(state["events"]["in_force"])
    hand = [c for c in state["events"]["hands"][other] if c not in in_force]
    pool = state["events"]["cups"][other] + hand
    if not pool:
        return {}, []
    stolen, die = admin.draw_one(pool, dice, "stolen chit")
    return {"stolen": stolen}, [die] if die else []


def _oss(state: State, side: str, command: Command, dice: Dice) -> Effects:
    """OSS buys wills: each Mehalas unit loses a step on 4-6, one GFRI chosen by the Allies on 5-6."""
    gfri = state["units"][command["gfri"]]
    if "gfri" not in tags(gfri) or gfri["status"] != "map":
        raise RuleViolation("10.2", "choose one GFRI unit on the map", "gfri")
    loss_on = admin.chit_spec("oss")["loss_on"]
    losses, rolls = [], []
    for u in [u for u in on_map(state, "spanish") if "mehalas" in tags(u)] + [gfri]:
        die = dice.roll(6, f"OSS {u['name']}")
        rolls.append(die.as_dict())
        if die.value in loss_on["mehalas" if "mehalas" in tags(u) else "gfri"]:
            losses.append(u["id"])
    return {"step_losses": losses}, rolls


def rif_hexes(state: State) -> list[str]:
    """Where Rif units may be placed (10.2): mountain or half mountain hexes the Spanish control,
    even in their ZOC, with no unit in them."""
    return [
        h
        for h in geo.board(state).grid.labels()
        if geo.terrain(state, h) in ("mountain", "half_mountain")
        and geo.controller(state, h) == "spanish"
        and not at(state, h)
    ]


def _rif(state: State, side: str, command: Command, dice: Dice) -> Effects:
    """Rebellion in the Rif: 2 Rif units in mountain or half mountain hexes the Spanish control,
    even in their ZOC, but not with Spanish units."""
    hexes = list(command["hexes"])
    specs = state["data"]["rif_units"]
    if len(hexes) != len(specs) or len(set(hexes)) != len(hexes):
        raise RuleViolation("10.2", f"place {len(specs)} Rif units in different hexes", "hexes")
    allowed = set(rif_hexes(state))
    for hex_ in hexes:
        if hex_ not in allowed:
            raise RuleViolation(
                "10.2", f"{hex_} is not an empty Spanish-controlled mountain hex", "hexes"
            )
    placed = [{"unit": spec["id"], "hex": h} for spec, h in zip(specs, hexes, strict=True)]
    return {"placed": placed}, []


def tunisia_battalions(state: State) -> list[Unit]:
    """The battalions that may go to Tunisia (10.2): Allied armor, tank destroyer, commando,
    ranger or paratrooper battalions "from among those units on the map (or ready for use in the
    case of paratroopers), and are in supply" -- not a unit still afloat (14)."""
    return [
        u
        for u in state["units"].values()
        if u["side"] == "allied"
        and u.get("battalion")
        and (u["status"] == "map" or (u["status"] == "ready" and u["type"] == "paratroop"))
        and u.get("supplied", True)
    ]


def _tunisia(state: State, side: str, command: Command, dice: Dice) -> Effects:
    """German offensive in Tunisia: two battalions in supply leave the game (all the eligible ones
    if fewer); no Allied replacements this turn."""
    ids = list(command["units"])
    eligible = {u["id"] for u in tunisia_battalions(state)}
    if len(ids) != min(2, len(eligible)):
        raise RuleViolation("10.2", "name two battalions to send to Tunisia", "units")
    for uid in ids:
        if uid not in eligible:
            name = state["units"][uid]["name"]
            raise RuleViolation("10.2", f"{name} is not an Allied battalion in supply", "units")
    return {"withdrawn": ids}, []


_EFFECTS = {
    "tactical_air": lambda s, side, c, d: ({"air": 4 if s["weather"] == "bad" else 12}, []),
    "naval_power": lambda s, side, c, d: (
        {"naval": load("supports")["naval"]["events"]["naval_power"]},
        [],
    ),
    "sea_lions": _sea_lions,
    "spanish_initiative": lambda s, side, c, d: ({"initiative": "spanish"}, []),
    "ultra": _steal,
    "nest_of_spies": _steal,
    "oss": _oss,
    "rif_rebellion": _rif,
    "tunisia": _tunisia,
}


# -- replacements and fortifications (13.2, 13.3) ----------------------------------------------------
def replacement_cost(state: State, side: str, u: Unit) -> int:
    """What a step of ``u`` costs (13.2), or a RuleViolation saying why it receives none."""
    data = load("replacements")
    if u["side"] != side or u["status"] not in ("map", "eliminated") or u["type"] in ("hq", "rif"):
        raise RuleViolation("13.2", f"{u['name']} cannot receive replacements", "steps")
    if u["status"] == "map" and u["steps"] >= u["max_steps"]:
        raise RuleViolation("13.2", f"{u['name']} has no lost step", "steps")
    if u["status"] == "map" and not u.get("supplied", True):
        raise RuleViolation("13.2", f"{u['name']} is out of supply", "steps")
    if side == "spanish":
        if (
            u["nation"] in data["spanish"]["excluded_nations"]
            or u["type"] in data["spanish"]["excluded_types"]
        ):
            raise RuleViolation("13.2", "Mehalas and German units receive no replacements", "steps")
        return 0
    if u["efficiency"] >= data["allied"]["no_efficiency"]:
        raise RuleViolation("13.2", "efficiency 3 units cannot recover steps", "steps")
    if not is_armor(u) and u["efficiency"] != data["allied"]["infantry_efficiency"]:
        raise RuleViolation(
            "13.2",
            f"{u['name']}: the Allied points buy an infantry step of efficiency "
            f"{data['allied']['infantry_efficiency']} (or an armoured step)",
            "steps",
        )
    if u["nation"] == "uk" and not (state["strait"]["open"] or u["id"] in state["supply_links"]):
        raise RuleViolation(
            "13.2", "British replacements need the Strait or a line to Port-Lyautey", "steps"
        )
    return (
        data["allied"]["armor_step_cost"] if is_armor(u) else data["allied"]["infantry_step_cost"]
    )


def _spanish_allowance(state: State) -> list[int]:
    """13.2 with the errata: 1 step of efficiency 1 and 1 of efficiency 2; without the Strait and
    with 4 cities lost no efficiency 2 step, with 6 lost no step at all."""
    cities = geo.protectorate_cities(state)
    lost = sum(1 for c in cities if geo.controller(state, geo.city_hex(state, c)) == "allied")
    allowance = [1, 2]
    if state["strait"]["open"] and lost >= 4:
        allowance.remove(2)
    if state["strait"]["open"] and lost >= 6:
        allowance.remove(1)
    return allowance


def allied_points(state: State) -> int:
    """13.2: 2 Allied replacement points a turn, none after the offensive in Tunisia (10.2)."""
    return 0 if "tunisia" in state["played_this_turn"] else load("replacements")["allied"]["points"]


@COMMANDS.command(
    "replace",
    phases=("replacements",),
    steps=Nested(unit_at_hex(), many=True, required=False),
    fortify=Hex(required=False, allow_none=True),
    doc="13.2: steps to replace ({unit, hex}: the hex where an eliminated unit is rebuilt); "
    "13.3: the Spanish fortify a hex on even turns",
)
def replace(state: State, side: str, command: Command, dice: Dice) -> list[RulesEvent]:
    """Hidden until both sides have chosen (13.2); the Spanish may also fortify on even turns."""
    chosen = _chosen_steps(state, side, list(command.get("steps") or []))
    events = [RulesEvent("ReplacementsChosen", {"side": side, "steps": chosen})]
    fort = command.get("fortify")
    if fort is not None:
        if side != "spanish" or state["turn"] % 2:
            raise RuleViolation(
                "13.3", "only the Spanish player fortifies, on even turns", "fortify"
            )
        fortifiable(state, fort, deployment=False)
        events.append(RulesEvent("FortificationsBuilt", {"hexes": [fort], "rule": "13.3"}))
    if len(state["replacements"]) == 1:
        other = next(iter(state["replacements"]))
        steps = state["replacements"][other]
        events.append(RulesEvent("ReplacementsPlaced", {"side": other, "steps": steps}))
        events.append(RulesEvent("ReplacementsPlaced", {"side": side, "steps": chosen}))
        events += sequence.next_step(state, "replacements")
    return events


def _chosen_steps(state: State, side: str, steps: list[dict[str, Any]]) -> list[dict[str, Any]]:
    points = allied_points(state)
    allowance = _spanish_allowance(state)
    chosen: list[dict[str, Any]] = []
    room = Room(state)
    for item in steps:
        u = unit(state, item["unit"])
        if u is None:
            raise InvalidCommand("each step names a unit", {"steps": ["unknown unit"]})
        cost = replacement_cost(state, side, u)
        if side == "spanish" and u["efficiency"] not in allowance:
            raise RuleViolation(
                "13.2", f"no efficiency {u['efficiency']} replacement step is left", "steps"
            )
        if side == "spanish":
            allowance.remove(u["efficiency"])
        points -= cost
        if points < 0:
            raise RuleViolation("13.2", "the Allies have 2 replacement points a turn", "steps")
        hex_ = item.get("hex") if u["status"] == "eliminated" else None
        if u["status"] == "eliminated" and hex_ not in rebuild_hexes(state, u):
            options = ", ".join(sorted(rebuild_hexes(state, u))) or "none"
            raise RuleViolation(
                "13.2", f"a rebuilt {u['name']} returns to one of: {options}", "steps"
            )
        where = hex_ or u["hex"]
        if not room.take(u, [where], 1):
            limit = geo.stacking_limit(state, where)
            raise RuleViolation(
                "5", f"a step of {u['name']} would put more than {limit} steps in {where}", "steps"
            )
        chosen.append({"unit": u["id"], "hex": hex_})
    return chosen


def rebuild_hexes(state: State, u: Unit) -> set[str]:
    """13.2: rebuilt units return with or next to their HQ, not in an un-negated enemy ZOC; only
    when the HQ is not present ("Also in the event that the CG / HQ has been eliminated and is not
    present on that turn"), in their corps' cities (Spanish) or their TF's cities (Allied)."""
    options: set[str] = set()
    grid = geo.board(state).grid
    hqs = [
        h
        for h in on_map(state, u["side"])
        if h["type"] == "hq" and h["formation"] == u["formation"]
    ]
    zoc = geo.enemy_zoc(state, u["side"])
    friends = {x["hex"] for x in on_map(state, u["side"])}
    for hq in hqs:
        for h in (hq["hex"], *grid.neighbours(hq["hex"])):
            if not geo.impassable(state, h) and (h not in zoc or h in friends):
                options.add(h)
    if not hqs:
        placement = load("replacements")[u["side"]]["placement"].get(u["formation"], [])
        for name in placement:
            if geo.controller(state, geo.city_hex(state, name)) == u["side"]:
                options.add(geo.city_hex(state, name))
        if u["nation"] == "uk" and state.get("beachhead") and state["strait"]["open"]:
            options.add(state["beachhead"])  # 14: replacements at the beachhead need the Strait
    room = Room(state)  # never among enemy units (15.1), nor over the limit (5)
    return {h for h in options if room.fits(u, h, 1)}


# -- the landing (14, 18.2) ---------------------------------------------------------------------------
def landing_hex_refusal(state: State, hex_: str) -> str | None:
    """Why the landing may not be made on ``hex_`` (14, 18.2), or None."""
    spec = state["data"]["amphibious"]
    if geo.city_at(state, hex_):
        return "landings are on coastal hexes, never cities"
    mediterranean = geo.feature(state, hex_, "landing")
    if spec["coast"] == "mediterranean":
        return None if mediterranean else f"{hex_} is not a Mediterranean landing hex"
    strait_ok = state["strait"]["open"] and state["strait"]["turn"] < state["turn"]
    if hex_ in spec.get("atlantic_hexes", []) or (mediterranean and strait_ok):
        return None
    return "land on 2,3, 4,2 or 6,2 (Mediterranean only the turn after the Strait opens)"


def assault_units(state: State) -> list[str]:
    """The units afloat that may land (14): the 4th Division's brigades and the Commandos."""
    spec = state["data"]["amphibious"]["assault_units"]
    return [
        uid
        for uid in [*spec["brigades"], *spec["also"]]
        if uid in state["units"] and state["units"][uid]["status"] == "afloat"
    ]


def landing_fits(state: State, hex_: str, ids: list[str]) -> bool:
    """Whether units landing unopposed fit in ``hex_`` (5): they cannot move that turn (14), so
    the stack they make is the stack counted at the end of the movement phase."""
    steps = sum(state["units"][uid]["steps"] for uid in ids)
    present = sum(u["steps"] for u in at(state, hex_) if u["side"] == "allied")
    return present + steps <= geo.stacking_limit(state, hex_)


@COMMANDS.command(
    "land",
    phases=("amphibious",),
    hex=Hex(),
    units=non_empty(Units()),
    air=Count(required=False),
    hq=UnitField(required=False, allow_none=True),
    legion=Flag(required=False),
    efficiency=Count(required=False, allow_none=True, minimum=1, maximum=3),
    own_losses=Units(required=False),
    enemy_losses=Units(required=False),
    doc="14: 2 brigades of the 4th Division and the Commandos land on a coastal hex",
)
def land(state: State, side: str, command: Command, dice: Dice) -> list[RulesEvent]:
    """14: 2 brigades of the 4th Division and the Commandos land on a coastal (light blue) hex, not a
    city; against defenders the attack is halved with +2 fleet support; unopposed they just land."""
    hex_, ids = command["hex"], list(command["units"])
    reason = landing_hex_refusal(state, hex_)
    if reason:
        rule = "14" if state["data"]["amphibious"]["coast"] == "mediterranean" else "18.2"
        raise RuleViolation("14" if geo.city_at(state, hex_) else rule, reason, "hex")
    spec = state["data"]["amphibious"]["assault_units"]
    brigades = [uid for uid in ids if uid in spec["brigades"]]
    if (
        not set(ids) <= set(spec["brigades"]) | set(spec["also"])
        or len(brigades) > spec["max_brigades"]
    ):
        raise RuleViolation(
            "14", "at most 2 brigades of the 4th Division and the Commandos land", "units"
        )
    for uid in ids:
        if state["units"][uid]["status"] != "afloat":
            raise RuleViolation("14", f"{state['units'][uid]['name']} is not afloat", "units")
    if any(u["side"] == "spanish" for u in at(state, hex_)):
        return combat_flow.declare(state, "allied", {**command, "target": hex_}, amphibious=True)
    if not landing_fits(state, hex_, ids):
        limit = geo.stacking_limit(state, hex_)
        raise RuleViolation(
            "5",
            f"more than {limit} steps would land in {hex_}, and they cannot move on (14)",
            "units",
        )
    events = [RulesEvent("LandingSucceeded", {"hex": hex_, "units": ids, "unopposed": True})]
    return events + sequence.next_step(state, "amphibious")


# -- the paratroopers (18.1) ---------------------------------------------------------------------------
def drop_refusal(state: State) -> str | None:
    """Why no paratrooper may jump now (18.1), or None."""
    if not state["options"].get("paratrooper_assault"):
        return "the paratrooper assault option is not in play"
    if state["moved"]:
        return "drops come at the beginning of the movement phase"
    if state["weather"] == "bad":
        return "no jumps in bad weather"
    return None


def drops_left(state: State) -> int:
    """At most two battalions jump a turn (18.1), each for an air point."""
    done = sum(1 for u in state["units"].values() if u.get("dropped_turn") == state["turn"])
    return max(0, min(2 - done, state["air"]["allied"]))


def drop_zone(state: State, hex_: str) -> bool:
    kind = geo.terrain(state, hex_)
    return kind in ("clear", "broken") and not geo.city_at(state, hex_) and not at(state, hex_)


@COMMANDS.command(
    "drop",
    phases=("movement",),
    drops=non_empty(Nested(unit_at_hex(), many=True)),
    doc="18.1 optional: British paratrooper battalions jump ({unit, hex}, at most two a turn)",
)
def drop(state: State, side: str, command: Command, dice: Dice) -> list[RulesEvent]:
    """18.1 optional, British paratrooper assault: at the start of the Allied movement phase, at most
    two battalions a turn, each costing an air point, on clear or broken hexes (no city), never in bad
    weather; each rolls against its dispersion (+1 broken, +1 enemy ZOC) and is lost at or under it."""
    reason = drop_refusal(state)
    if reason:
        raise RuleViolation("18.1", reason, "type")
    drops = list(command["drops"])
    done = sum(1 for u in state["units"].values() if u.get("dropped_turn") == state["turn"])
    if done + len(drops) > 2:
        raise RuleViolation("18.1", "at most two battalions jump per turn", "drops")
    if len(drops) > state["air"]["allied"]:
        raise RuleViolation("18.1", "each battalion costs an air point", "drops")
    zoc = geo.enemy_zoc(state, "allied")
    return [
        RulesEvent("ParatroopersDropped", {"drops": [_jump(state, d, zoc, dice) for d in drops]})
    ]


def _jump(state: State, item: Mapping[str, Any], zoc: set[str], dice: Dice) -> dict[str, Any]:
    u = unit(state, item["unit"])
    hex_ = item.get("hex")
    if u is None or u["type"] != "paratroop" or u["status"] != "ready":
        raise RuleViolation("18.1", "only ready paratrooper battalions jump", "drops")
    if hex_ is None or not geo.board(state).grid.in_bounds(hex_):
        raise InvalidCommand("a drop needs a hex", {"drops": ["hex"]})
    if not drop_zone(state, hex_):
        raise RuleViolation("18.1", f"{hex_} is not an empty clear or broken hex", "drops")
    dispersion = int(geo.terrain(state, hex_) == "broken") + int(hex_ in zoc)
    die = dice.roll(6, f"dispersion {u['name']}")
    return {
        "unit": u["id"],
        "hex": hex_,
        "dispersion": dispersion,
        "die": die.as_dict(),
        "lost": die.value <= dispersion,
    }


# -- the end by agreement (17) -------------------------------------------------------------------------
@COMMANDS.command(
    "vote_end", phases=("agreement",), end=Flag(), doc="17: agree (or not) to end the game now"
)
def vote_end(state: State, side: str, command: Command, dice: Dice) -> list[RulesEvent]:
    """17: with a victory condition met at the end of a turn the players may agree to end."""
    end = bool(command["end"])
    events = [RulesEvent("EndOfGameVoted", {"side": side, "end": end})]
    votes = {**state["end_votes"], side: end}
    if len(votes) < 2:
        return events
    if not all(votes.values()):
        return events + sequence.new_turn(state)
    result = {**sequence.victory(state), "by_agreement": True}
    return events + [RulesEvent("GameEnded", {"result": result, "turn": state["turn"]})]
