"""Commands of the administrative phase, events (10.2), replacements and fortifications (13), the
landing (14) and the end by agreement (17)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from service.rules.backbone import admin, combat_flow, sequence
from service.rules.backbone import geography as geo
from service.rules.backbone.data_files import load
from service.rules.backbone.movement import stacking_violations
from service.rules.backbone.units import State, Unit, at, is_armor, on_map, tags, unit
from service.rules.base import Dice, InvalidCommand, RulesEvent, RuleViolation


def _hexes(command: Mapping[str, Any], key: str) -> list[str]:
    value = command.get(key)
    if not isinstance(value, list) or not all(isinstance(h, str) for h in value):
        raise InvalidCommand(f"{key} must be a list of hexes", {key: ["a list of hex labels"]})
    return value


def _fortifiable(state: State, hex_: str, deployment: bool) -> None:
    if not geo.board(state).grid.in_bounds(hex_) or geo.impassable(state, hex_):
        raise RuleViolation("13.3", f"{hex_} is not a land hex", "hexes")
    if deployment and not geo.spanish_territory(state, hex_):
        raise RuleViolation("13.3", f"{hex_} is not in Spanish territory", "hexes")
    if geo.controller(state, hex_) != "spanish" or any(
        u["side"] == "allied" for u in at(state, hex_)
    ):
        raise RuleViolation("13.3", f"{hex_} is not controlled by the Spanish player", "hexes")


def deploy(state: State, side: str, command: Mapping[str, Any], dice: Dice) -> list[RulesEvent]:
    """8.1 / 18: the Spanish deploy first (and place 5 fortifications, 13.3), then the Allies; the
    scenario's set-up is the default, ``positions`` moves units within the rules' areas."""
    positions = command.get("positions") or {}
    if not isinstance(positions, Mapping):
        raise InvalidCommand("positions maps unit ids to hexes", {"positions": ["an object"]})
    moved: dict[str, str] = {}
    for uid, hex_ in positions.items():
        u = unit(state, uid)
        if u is None or u["side"] != side or u["status"] != "map" or not isinstance(hex_, str):
            raise InvalidCommand(
                "unknown unit or hex", {f"positions.{uid}": ["not one of your units on the map"]}
            )
        moved[uid] = hex_
    trial = {uid: {**u, "hex": moved.get(uid, u["hex"])} for uid, u in state["units"].items()}
    look = {**state, "units": trial}
    for u in on_map(look, side):
        _deployment_area(look, u)
    problems = stacking_violations(look, side)
    if problems:
        raise RuleViolation("5", f"deployment over the stacking limits: {problems}", "positions")
    events = [RulesEvent("UnitsDeployed", {"side": side, "positions": moved})] if moved else []
    if side == "spanish":
        _garrisons(look)
        hexes = command.get("fortifications", [])
        if not isinstance(hexes, list) or not all(isinstance(h, str) for h in hexes):
            raise InvalidCommand("fortifications is a list of hexes", {"fortifications": ["hexes"]})
        allowed = state["data"]["fortifications_at_deployment"]
        if len(hexes) > allowed:
            raise RuleViolation(
                "13.3", f"at most {allowed} fortifications at deployment", "fortifications"
            )
        for hex_ in hexes:
            _fortifiable(state, hex_, deployment=True)
        if hexes:
            events.append(RulesEvent("FortificationsBuilt", {"hexes": hexes, "rule": "13.3"}))
        return events + [RulesEvent("StepChanged", {"step": "allied_deployment", "turn": 1})]
    return events + [RulesEvent("StepChanged", {"step": "administrative", "turn": 1})]


def _deployment_area(state: State, u: Unit) -> None:
    """18.1: IX CE (and the Germans) west of and in column 13, X CE east of and in column 14,
    Mehalas anywhere in the Protectorate; WTF up to column 12 and CTF from column 13, south of the
    border; 18.2: American units in or next to a city they hold."""
    hex_ = u["hex"]
    if not geo.board(state).grid.in_bounds(hex_) or geo.impassable(state, hex_):
        raise RuleViolation("18.1", f"{u['name']}: {hex_} is not a land hex", "positions")
    spanish_zone = geo.spanish_territory(state, hex_)
    col = geo.column(hex_)
    if u["side"] == "spanish":
        ok = spanish_zone and (
            "mehalas" in tags(u)
            or (u["formation"] == "IX CE" and col <= 13)
            or (u["formation"] == "X CE" and col >= 14)
        )
    else:
        ok = not spanish_zone and (
            (u["formation"] == "WTF" and col <= 12) or (u["formation"] == "CTF" and col >= 13)
        )
        if ok and state["data"]["scenario_number"] == 2 and u["nation"] == "us":
            grid = geo.board(state).grid
            cities = [
                p.hex
                for p in geo.board(state).places_of_kind("city")
                if not geo.spanish_territory(state, p.hex)
            ]
            ok = any(grid.distance(hex_, c) <= 1 for c in cities)
    if not ok:
        raise RuleViolation(
            "18.1" if state["data"]["scenario_number"] == 1 else "18.2",
            f"{u['name']} may not deploy in {hex_}",
            "positions",
        )


def _garrisons(state: State) -> None:
    """18.1: Ceuta, Tangier, Tetouan, Villa Sanjurjo and Melilla start with a combat unit (no HQ)."""
    for name in state["data"]["garrisons"]:
        hex_ = geo.city_hex(state, name)
        if not any(u["side"] == "spanish" and u["type"] != "hq" for u in at(state, hex_)):
            raise RuleViolation("18.1", f"{name} needs a combat unit as garrison", "positions")


def begin_turn(state: State, side: str, command: Mapping[str, Any], dice: Dice) -> list[RulesEvent]:
    """Meteorology and events segment (10): weather, air and naval points, the chit draw."""
    events = admin.weather(state, dice)
    kind = events[0].data["weather"]
    events.append(admin.support_points(state, kind))
    events += admin.draw_chit(state, dice)
    return events + [RulesEvent("StepChanged", {"step": "events", "turn": state["turn"]})]


def pass_events(
    state: State, side: str, command: Mapping[str, Any], dice: Dice
) -> list[RulesEvent]:
    if "tunisia" in state["events"]["hands"][side]:
        raise RuleViolation("10.2", "the German offensive in Tunisia is played at once", "type")
    return [RulesEvent("StepChanged", {"step": "strait", "turn": state["turn"]})]


def roll_strait(
    state: State, side: str, command: Mapping[str, Any], dice: Dice
) -> list[RulesEvent]:
    """Strait (11), supply (12.2) and reinforcements (13.1) segments."""
    events = admin.strait_roll(state, dice, bool(command.get("air_point")))
    events += admin.supply_check(state)
    events += admin.reinforcements(state)
    return events + sequence.next_step(state, "strait")


# -- events (10.2) ----------------------------------------------------------------------------------
def play_event(state: State, side: str, command: Mapping[str, Any], dice: Dice) -> list[RulesEvent]:
    chit = command.get("chit")
    if not isinstance(chit, str) or chit not in state["events"]["hands"][side]:
        raise RuleViolation("10.2", f"{chit!r} is not an event chit in your hand", "chit")
    spec = admin.chit_spec(side, chit)
    if spec["timing"] == "permanent":
        raise RuleViolation("10.2", f"{spec['name']} is in force from its draw", "chit")
    if (
        spec.get("not_turn_1_of_scenario") == "1"
        and state["turn"] == 1
        and state["data"]["scenario_number"] == 1
    ):
        raise RuleViolation(
            "10.2", "Spanish initiative drawn in turn 1 of scenario 1 must be saved", "chit"
        )
    if spec.get("not_in_bad_weather") and state["weather"] == "bad":
        raise RuleViolation("10.2", f"{spec['name']} cannot be played in bad weather", "chit")
    effects: dict[str, Any] = {}
    rolls: list[dict[str, Any]] = []
    if chit == "tactical_air":
        effects["air"] = 4 if state["weather"] == "bad" else 12
    elif chit == "naval_power":
        effects["naval"] = load("supports")["naval"]["events"]["naval_power"]
    elif chit == "sea_lions" and state["strait"]["open"]:
        effects["naval"] = 0
    elif chit == "spanish_initiative":
        effects["initiative"] = "spanish"
    elif chit in ("ultra", "nest_of_spies"):
        other = "spanish" if side == "allied" else "allied"
        pool = state["events"]["cups"][other] + state["events"]["hands"][other]
        if pool:
            die = dice.roll(len(pool), "stolen chit")
            rolls.append(die.as_dict())
            effects["stolen"] = pool[die.value - 1]
    elif chit == "oss":
        effects["step_losses"], rolls = _oss(state, command, dice)
    elif chit == "rif_rebellion":
        effects["placed"] = _rif(state, command)
    elif chit == "tunisia":
        effects["withdrawn"] = _tunisia(state, command)
    return [
        RulesEvent(
            "EventChitPlayed", {"side": side, "chit": chit, "effects": effects, "dice": rolls}
        )
    ]


def _oss(
    state: State, command: Mapping[str, Any], dice: Dice
) -> tuple[list[str], list[dict[str, Any]]]:
    """OSS buys wills: each Mehalas unit loses a step on 4-6, one GFRI chosen by the Allies on 5-6."""
    gfri = unit(state, command.get("gfri"))
    if gfri is None or "gfri" not in tags(gfri) or gfri["status"] != "map":
        raise RuleViolation("10.2", "choose one GFRI unit on the map", "gfri")
    losses, rolls = [], []
    for u in [u for u in on_map(state, "spanish") if "mehalas" in tags(u)] + [gfri]:
        die = dice.roll(6, f"OSS {u['id']}")
        rolls.append(die.as_dict())
        if (
            die.value
            in load("events")["chits"]["allied"][5]["loss_on"][
                "mehalas" if "mehalas" in tags(u) else "gfri"
            ]
        ):
            losses.append(u["id"])
    return losses, rolls


def _rif(state: State, command: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Rebellion in the Rif: 2 Rif units in mountain or half mountain hexes the Spanish control,
    even in their ZOC, but not with Spanish units."""
    hexes = _hexes(command, "hexes")
    specs = state["data"]["rif_units"]
    if len(hexes) != len(specs):
        raise RuleViolation("10.2", f"place {len(specs)} Rif units", "hexes")
    for hex_ in hexes:
        if not geo.board(state).grid.in_bounds(hex_):
            raise RuleViolation("10.2", f"{hex_} is not on the map", "hexes")
        if geo.terrain(state, hex_) not in ("mountain", "half_mountain"):
            raise RuleViolation("10.2", f"{hex_} is not a mountain or half mountain hex", "hexes")
        if geo.controller(state, hex_) != "spanish" or at(state, hex_):
            raise RuleViolation("10.2", f"{hex_} is not an empty Spanish-controlled hex", "hexes")
    return [{"unit": spec["id"], "hex": hex_} for spec, hex_ in zip(specs, hexes, strict=True)]


def _tunisia(state: State, command: Mapping[str, Any]) -> list[str]:
    """German offensive in Tunisia: two battalions (armor, tank destroyers, commandos, rangers,
    paratroopers) in supply leave the game; no Allied replacements this turn."""
    ids = command.get("units")
    if not isinstance(ids, list) or len(set(ids)) != 2:
        raise RuleViolation("10.2", "name two battalions to send to Tunisia", "units")
    for uid in ids:
        u = unit(state, uid)
        if u is None or u["side"] != "allied" or not u.get("battalion"):
            raise RuleViolation("10.2", f"{uid} is not an Allied battalion", "units")
        if u["status"] not in ("map", "afloat", "ready") or not u.get("supplied", True):
            raise RuleViolation("10.2", f"{uid} is not on the map and in supply", "units")
    return list(ids)


# -- replacements and fortifications (13.2, 13.3) ----------------------------------------------------
def _replacement_cost(state: State, side: str, u: Unit) -> int:
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


def replace(state: State, side: str, command: Mapping[str, Any], dice: Dice) -> list[RulesEvent]:
    """Hidden until both sides have chosen (13.2); the Spanish may also fortify on even turns."""
    steps = command.get("steps", [])
    if not isinstance(steps, list):
        raise InvalidCommand("steps must be a list", {"steps": ["a list of {unit, hex}"]})
    points = (
        0 if "tunisia" in state["played_this_turn"] else load("replacements")["allied"]["points"]
    )
    allowance = _spanish_allowance(state)
    chosen: list[dict[str, Any]] = []
    for item in steps:
        u = unit(state, item.get("unit") if isinstance(item, Mapping) else None)
        if u is None:
            raise InvalidCommand("each step names a unit", {"steps": ["unknown unit"]})
        cost = _replacement_cost(state, side, u)
        if side == "spanish":
            if u["efficiency"] not in allowance:
                raise RuleViolation(
                    "13.2", f"no efficiency {u['efficiency']} replacement step is left", "steps"
                )
            allowance.remove(u["efficiency"])
        else:
            points -= cost
            if points < 0:
                raise RuleViolation("13.2", "the Allies have 2 replacement points a turn", "steps")
        hex_ = item.get("hex") if u["status"] == "eliminated" else None
        if u["status"] == "eliminated":
            _check_rebuild_hex(state, u, hex_)
        chosen.append({"unit": u["id"], "hex": hex_})
    events = [RulesEvent("ReplacementsChosen", {"side": side, "steps": chosen})]
    fort = command.get("fortify")
    if fort is not None:
        if side != "spanish" or state["turn"] % 2:
            raise RuleViolation(
                "13.3", "only the Spanish player fortifies, on even turns", "fortify"
            )
        _fortifiable(state, fort, deployment=False)
        events.append(RulesEvent("FortificationsBuilt", {"hexes": [fort], "rule": "13.3"}))
    if len(state["replacements"]) == 1:
        other = next(iter(state["replacements"]))
        events.append(
            RulesEvent("ReplacementsPlaced", {"side": other, "steps": state["replacements"][other]})
        )
        events.append(RulesEvent("ReplacementsPlaced", {"side": side, "steps": chosen}))
        events += sequence.next_step(state, "replacements")
    return events


def _check_rebuild_hex(state: State, u: Unit, hex_: Any) -> None:
    """13.2: rebuilt units return with or next to their HQ, not in an un-negated enemy ZOC; without
    the HQ, in their corps' cities (Spanish) or their TF's cities (Allied)."""
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
    placement = load("replacements")[u["side"]]["placement"].get(u["formation"], [])
    for name in placement:
        if geo.controller(state, geo.city_hex(state, name)) == u["side"]:
            options.add(geo.city_hex(state, name))
    if u["nation"] == "uk" and state.get("beachhead") and state["strait"]["open"]:
        options.add(state["beachhead"])  # 14: replacements at the beachhead need the Strait
    if hex_ not in options:
        raise RuleViolation(
            "13.2", f"a rebuilt {u['name']} returns to one of {sorted(options)}", "steps"
        )


# -- the landing (14, 18.2) ---------------------------------------------------------------------------
def land(state: State, command: Mapping[str, Any]) -> list[RulesEvent]:
    """14: 2 brigades of the 4th Division and the Commandos land on a coastal (light blue) hex, not a
    city; against defenders the attack is halved with +2 fleet support; unopposed they just land."""
    spec = state["data"]["amphibious"]
    hex_ = command.get("hex")
    ids = command.get("units")
    if not isinstance(hex_, str) or not isinstance(ids, list) or not ids:
        raise InvalidCommand("land needs hex and units", {"hex": ["a hex"], "units": ["unit ids"]})
    if not geo.board(state).grid.in_bounds(hex_) or geo.city_at(state, hex_):
        raise RuleViolation("14", "landings are on coastal hexes, never cities", "hex")
    mediterranean = geo.feature(state, hex_, "landing")
    atlantic = hex_ in spec.get("atlantic_hexes", [])
    if spec["coast"] == "mediterranean" and not mediterranean:
        raise RuleViolation("14", f"{hex_} is not a Mediterranean landing hex", "hex")
    if spec["coast"] == "atlantic":
        strait_ok = state["strait"]["open"] and state["strait"]["turn"] < state["turn"]
        if not (atlantic or (mediterranean and strait_ok)):
            raise RuleViolation(
                "18.2",
                "land on 2,3, 4,2 or 6,2 (Mediterranean only the turn after the Strait opens)",
                "hex",
            )
    allowed = set(spec["assault_units"]["brigades"]) | set(spec["assault_units"]["also"])
    brigades = [uid for uid in ids if uid in spec["assault_units"]["brigades"]]
    if not set(ids) <= allowed or len(brigades) > spec["assault_units"]["max_brigades"]:
        raise RuleViolation(
            "14", "at most 2 brigades of the 4th Division and the Commandos land", "units"
        )
    for uid in ids:
        if state["units"][uid]["status"] != "afloat":
            raise RuleViolation("14", f"{uid} is not afloat", "units")
    if any(u["side"] == "spanish" for u in at(state, hex_)):
        return combat_flow.declare(state, "allied", {**command, "target": hex_}, amphibious=True)
    return [RulesEvent("LandingSucceeded", {"hex": hex_, "units": list(ids), "unopposed": True})]


def drop(state: State, side: str, command: Mapping[str, Any], dice: Dice) -> list[RulesEvent]:
    """18.1 optional, British paratrooper assault: at the start of the Allied movement phase, at most
    two battalions a turn, each costing an air point, on clear or broken hexes (no city), never in bad
    weather; each rolls against its dispersion (+1 broken, +1 enemy ZOC) and is lost at or under it."""
    if not state["options"].get("paratrooper_assault"):
        raise RuleViolation("18.1", "the paratrooper assault option is not in play", "type")
    if state["moved"]:
        raise RuleViolation("18.1", "drops come at the beginning of the movement phase", "type")
    if state["weather"] == "bad":
        raise RuleViolation("18.1", "no jumps in bad weather", "type")
    drops = command.get("drops")
    if not isinstance(drops, list) or not drops:
        raise InvalidCommand("drops is a list of {unit, hex}", {"drops": ["a non-empty list"]})
    done = sum(1 for u in state["units"].values() if u.get("dropped_turn") == state["turn"])
    if done + len(drops) > 2:
        raise RuleViolation("18.1", "at most two battalions jump per turn", "drops")
    if len(drops) > state["air"]["allied"]:
        raise RuleViolation("18.1", "each battalion costs an air point", "drops")
    zoc = geo.enemy_zoc(state, "allied")
    results: list[dict[str, Any]] = []
    for item in drops:
        u = unit(state, item.get("unit") if isinstance(item, Mapping) else None)
        hex_ = item.get("hex") if isinstance(item, Mapping) else None
        if u is None or u["type"] != "paratroop" or u["status"] != "ready":
            raise RuleViolation("18.1", "only ready paratrooper battalions jump", "drops")
        if not isinstance(hex_, str) or not geo.board(state).grid.in_bounds(hex_):
            raise InvalidCommand("a drop needs a hex", {"drops": ["hex"]})
        kind = geo.terrain(state, hex_)
        if kind not in ("clear", "broken") or geo.city_at(state, hex_) or at(state, hex_):
            raise RuleViolation("18.1", f"{hex_} is not an empty clear or broken hex", "drops")
        dispersion = int(kind == "broken") + int(hex_ in zoc)
        die = dice.roll(6, f"dispersion {u['id']}")
        results.append(
            {
                "unit": u["id"],
                "hex": hex_,
                "dispersion": dispersion,
                "die": die.as_dict(),
                "lost": die.value <= dispersion,
            }
        )
    return [RulesEvent("ParatroopersDropped", {"drops": results})]


def vote_end(state: State, side: str, command: Mapping[str, Any], dice: Dice) -> list[RulesEvent]:
    """17: with a victory condition met at the end of a turn the players may agree to end."""
    end = bool(command.get("end"))
    events = [RulesEvent("EndOfGameVoted", {"side": side, "end": end})]
    votes = {**state["end_votes"], side: end}
    if len(votes) == 2:
        if all(votes.values()):
            events.append(
                RulesEvent(
                    "GameEnded",
                    {
                        "result": {**sequence.victory(state), "by_agreement": True},
                        "turn": state["turn"],
                    },
                )
            )
        else:
            events += sequence.new_turn(state)
    return events
