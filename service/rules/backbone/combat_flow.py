"""Combat in play (16): declaration with supports, the defender's supports, resolution with the
CRT and losses, retreat or last stand, advance after combat and exploitation; the landing (14)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from service.rules.backbone import geography as geo
from service.rules.backbone.combat import CombatError, evaluate
from service.rules.backbone.data_files import load
from service.rules.backbone.losses import (
    assign,
    last_stand_modifiers,
    last_stand_terrain,
    satisfiable,
)
from service.rules.backbone.units import (
    State,
    Unit,
    at,
    combat_view,
    enemy,
    is_armor,
    is_hq,
    occupied,
    unit,
)
from service.rules.base import Dice, RulesEvent, RuleViolation
from service.rules.kernel.retreat import retreat_paths


def _ids(command: Mapping[str, Any], key: str) -> list[str]:
    value = command.get(key, [])
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise RuleViolation("16.1", f"{key} must be a list of unit ids", key)
    return value


def _violation(exc: CombatError) -> RuleViolation:
    return RuleViolation(exc.rule, exc.message, exc.field)


def _hq_support(
    state: State, side: str, role: str, hq_id: Any, target: str, units: list[Unit]
) -> bool:
    """Validate an HQ's support (9.1): same CE/TF, range 1 (Spanish) or 2 (Allied), in supply, once
    in attack and once in defence per turn."""
    if hq_id in (None, False):
        return False
    hq = unit(state, hq_id)
    if hq is None or not is_hq(hq) or hq["side"] != side or hq["status"] != "map":
        raise RuleViolation("9.1", f"{hq_id} is not one of your HQs on the map", "hq")
    data = load("supports")["hq"]
    if geo.board(state).grid.distance(hq["hex"], target) > data["range"][side]:
        raise RuleViolation(
            "9.1", f"{hq['name']} is more than {data['range'][side]} hexes away", "hq"
        )
    if not hq.get("supplied", True):
        raise RuleViolation("12.2", f"{hq['name']} is out of supply and gives no support", "hq")
    if role in state["hq_used"].get(hq["id"], []):
        raise RuleViolation(
            "9.1", f"{hq['name']} already supported a combat in {role} this turn", "hq"
        )
    others = [u["id"] for u in units if not is_hq(u) and u["formation"] != hq["formation"]]
    if others:
        raise RuleViolation("9.1", f"units {others} are not of {hq['formation']}", "hq")
    return True


def _air(state: State, side: str, command: Mapping[str, Any]) -> int:
    air = command.get("air", 0)
    if not isinstance(air, int) or isinstance(air, bool) or air < 0:
        raise RuleViolation("16.4", "air must be a whole number of air points", "air")
    if air > state["air"][side]:
        raise RuleViolation(
            "16.4", f"only {state['air'][side]} air points are left this turn", "air"
        )
    return air


def _naval(state: State, side: str, command: Mapping[str, Any], target: str) -> int:
    naval = command.get("naval", 0)
    if not isinstance(naval, int) or isinstance(naval, bool) or naval < 0:
        raise RuleViolation("16.3", "naval must be a whole number", "naval")
    if not naval:
        return 0
    if side != "allied":
        raise RuleViolation("16.3", "only the Allied player has naval support", "naval")
    if naval > state["naval"]["points"]:
        raise RuleViolation(
            "16.3", f"only {state['naval']['points']} naval points are left", "naval"
        )
    coast = geo.coast(state, target)
    if coast in state["naval"]["used_coasts"] and not state["strait"]["open"]:
        raise RuleViolation("16.3", f"the {coast} naval support was used this turn", "naval")
    return naval


def limited_offensive_supply(state: State, attackers: list[Unit], target: str) -> bool:
    """12.3: until the turn after the Strait is Allied, Allied attacks on hexes in or east of column
    13 shift one column left; British units suffer it everywhere unless linked to Port-Lyautey."""
    if attackers[0]["side"] != "allied":
        return False
    opened = state["strait"]["open"] and state["strait"]["turn"] < state["turn"]
    if opened:
        return False
    east = geo.column(target) >= load("supports")["limited_offensive_supply"]["east_of_column"]
    british = [u for u in attackers if u["nation"] == "uk"]
    if british and any(u["id"] not in state["supply_links"] for u in british):
        return True
    return east


def situation(
    state: State,
    combat: Mapping[str, Any],
    defence: Mapping[str, Any],
    roll: int | None = None,
) -> dict[str, Any]:
    """The combat.evaluate situation of a declared combat and the defender's supports."""
    target = combat["target"]
    attackers = [state["units"][uid] for uid in combat["attackers"]]
    defenders = [state["units"][uid] for uid in combat["defenders"]]
    ex = combat.get("exploitation", False)
    sup = combat["supports"]
    att_views = []
    for u in attackers:
        frm = combat["from"][u["id"]]
        att_views.append(
            combat_view(
                u,
                **{"from": frm},
                across_river=frm != "sea" and geo.river(state, frm, target),
                amphibious=frm == "sea",
                via_road=frm != "sea" and geo.road(state, frm, target),
                efficiency_as=sup.get("efficiency_as", {}).get(u["id"]),
            )
        )
    def_views = [
        combat_view(
            u,
            retreated=u.get("retreated_turn") == state["turn"]
            and u.get("retreated_into") == target,
            efficiency_as=defence.get("efficiency_as", {}).get(u["id"]),
        )
        for u in defenders
    ]
    for view in att_views + def_views:
        if view.get("efficiency_as") is None:
            view.pop("efficiency_as")
    hq_att = bool(sup.get("hq"))
    att_support = {
        "air": sup.get("air", 0),
        "naval": sup.get("naval", 0),
        "hq": hq_att,
        "legion": sup.get("legion", False),
        "efficiency": sup.get("efficiency"),
    }
    if hq_att:
        att_views.append(combat_view(state["units"][sup["hq"]], **{"from": "hq"}))
    if defence.get("hq") and defence["hq"] not in combat["defenders"]:
        def_views.append(combat_view(state["units"][defence["hq"]], support_only=True))
    return {
        "attacker_side": combat["attacker_side"],
        "terrain": geo.terrain(state, target),
        "city": bool(geo.city_at(state, target)),
        "fortifications": state["fortifications"].get(target, 0),
        "coast": geo.coast(state, target),
        "strait_controlled": state["strait"]["open"],
        "amphibious": bool(combat.get("amphibious")),
        "attack_hexes": len({v["from"] for v in att_views if v["from"] != "hq"}),
        "attackers": att_views,
        "defenders": def_views,
        "attacker": att_support,
        "defender": {
            "air": defence.get("air", 0),
            "naval": defence.get("naval", 0),
            "hq": bool(defence.get("hq")),
            "legion": defence.get("legion", False),
            "efficiency": defence.get("efficiency"),
        },
        "limited_offensive_supply": not combat.get("amphibious")
        and limited_offensive_supply(state, attackers, target),
        "dissensions": "dissensions" in state["events"]["in_force"],
        "exploitation": ex,
        "roll": roll,
    }


def declare(
    state: State, side: str, command: Mapping[str, Any], amphibious: bool = False
) -> list[RulesEvent]:
    """Validate an attack (16.1) and return CombatDeclared."""
    combat = declaration(state, side, command, amphibious)
    assess(state, combat)
    return [
        RulesEvent(
            "CombatDeclared", {"combat": combat, "coast": geo.coast(state, combat["target"])}
        )
    ]


def assess(
    state: State, combat: Mapping[str, Any], defence: Mapping[str, Any] | None = None
) -> dict[str, Any]:
    """``combat.evaluate`` of a combat (and the defender's supports, once designated), its
    refusals as rule violations."""
    try:
        return evaluate(situation(state, combat, defence or {}))
    except CombatError as exc:
        raise _violation(exc) from exc


def declaration(
    state: State, side: str, command: Mapping[str, Any], amphibious: bool = False
) -> dict[str, Any]:
    """The combat an attack declares (16.1), with the attacker's supports; refuses what the
    rules forbid of the attackers, the target and the supports."""
    target = command.get("target")
    grid = geo.board(state).grid
    if not isinstance(target, str) or not grid.in_bounds(target):
        raise RuleViolation("16.1", "target must be a hex on the map", "target")
    defenders = [u for u in at(state, target) if u["side"] == enemy(side)]
    if not defenders:
        raise RuleViolation("16.1", f"no enemy unit in {target}", "target")
    exploitation = bool(command.get("exploitation"))
    ids = _ids(command, "units")
    if not ids:
        raise RuleViolation("16.1", "name the attacking units", "units")
    attackers, origin = [], {}
    for uid in ids:
        u = unit(state, uid)
        if u is None or u["side"] != side:
            raise RuleViolation("16.1", f"{uid} is not one of your units", "units")
        if is_hq(u):
            raise RuleViolation("4", "an HQ does not attack; name it as hq support", "units")
        if amphibious:
            if u["status"] != "afloat":
                raise RuleViolation("14", f"{u['name']} is not afloat for the landing", "units")
            origin[uid] = "sea"
        else:
            if u["status"] != "map" or not grid.adjacent(u["hex"], target):
                raise RuleViolation("16.1", f"{u['name']} is not adjacent to {target}", "units")
            origin[uid] = u["hex"]
            if u.get("landed_turn") == state["turn"] or u.get("dropped_turn") == state["turn"]:
                raise RuleViolation(
                    "14", f"{u['name']} landed this turn and cannot attack", "units"
                )
        if exploitation:
            if uid not in state["exploiters"]:
                raise RuleViolation(
                    "16.7", f"{u['name']} did not advance as armor after combat", "units"
                )
        elif uid in state["attacked_units"]:
            raise RuleViolation("16.1", f"{u['name']} has already attacked this turn", "units")
        attackers.append(u)
    if len({u["type"] == "rif" for u in attackers}) > 1:
        raise RuleViolation("10.2", "Rif units do not attack together with Allied units", "units")
    if exploitation:
        if target != state.get("exploit_target"):
            raise RuleViolation(
                "16.7", "exploitation attacks only the units that retreated", "target"
            )
    elif target in state["attacked_hexes"]:
        raise RuleViolation("16.1", f"{target} was already attacked this turn", "target")
    if side == "spanish" and not exploitation:
        corps = sorted({u["formation"] for u in attackers})
        done = [c for c in corps if c in state["corps_attacked"]]
        if done:
            raise RuleViolation("12.3", f"{done} already launched its attack this turn", "units")
    sup = {
        "air": _air(state, side, command),
        "naval": load("supports")["naval"]["amphibious_drm"]
        if amphibious
        else _naval(state, side, command, target),
        "hq": command.get("hq")
        if _hq_support(state, side, "attack", command.get("hq"), target, attackers)
        else None,
        "legion": bool(command.get("legion")),
        "efficiency": command.get("efficiency"),
        "efficiency_as": command.get("efficiency_as") or {},
    }
    combat = {
        "attacker_side": side,
        "target": target,
        "attackers": ids,
        "defenders": [u["id"] for u in defenders],
        "from": origin,
        "supports": sup,
        "exploitation": exploitation,
        "amphibious": amphibious,
        "losses": {"own": _ids(command, "own_losses"), "enemy": _ids(command, "enemy_losses")},
    }
    return combat


def defend(state: State, side: str, command: Mapping[str, Any], dice: Dice) -> list[RulesEvent]:
    """The defender's supports (16.3: designated after the attacker's), then the roll and losses."""
    combat = state["combat"]
    target = combat["target"]
    defenders = [state["units"][uid] for uid in combat["defenders"]]
    defence = {
        "air": _air(state, side, command),
        "naval": _naval(state, side, command, target),
        "hq": command.get("hq")
        if _hq_support(state, side, "defence", command.get("hq"), target, defenders)
        else None,
        "legion": bool(command.get("legion")),
        "efficiency": command.get("efficiency"),
        "efficiency_as": command.get("efficiency_as") or {},
    }
    picks = {"own": _ids(command, "own_losses"), "enemy": _ids(command, "enemy_losses")}
    assess(state, combat, defence)
    die = dice.roll(6, "combat")
    declared = RulesEvent("DefenceDeclared", {"supports": defence, "side": side, "picks": picks})
    if baraka_available(state):
        first = evaluate(situation(state, combat, defence, die.value))["result"]["text"]
        return [declared, RulesEvent("CombatRolled", {"die": die.as_dict(), "result": first})]
    return [declared, *resolve(state, combat, defence, picks, die.as_dict())]


def baraka_available(state: State) -> bool:
    """Baraka (10.2): from its draw, once each turn, the Spanish may re-roll a combat's die."""
    return "baraka" in state["events"]["in_force"] and state.get("baraka_turn") != state["turn"]


def baraka(state: State, command: Mapping[str, Any], dice: Dice) -> list[RulesEvent]:
    """The Spanish keep the roll or re-roll it, ignoring the first (10.2 Baraka)."""
    combat = state["combat"]
    die = combat["first_die"]
    events = []
    if command.get("reroll"):
        die = dice.roll(6, "combat (Baraka)").as_dict()
        events.append(RulesEvent("BarakaUsed", {"ignored": combat["first_die"], "die": die}))
    return events + resolve(state, combat, combat["defence"], combat["picks"], die)


def resolve(
    state: State,
    combat: Mapping[str, Any],
    defence: Mapping[str, Any],
    picks: Mapping[str, list[str]],
    die: dict[str, Any],
) -> list[RulesEvent]:
    """The CRT result and the steps lost (16.6), then retreat or advance (16.7)."""
    target = combat["target"]
    defenders = [state["units"][uid] for uid in combat["defenders"]]
    outcome = evaluate(situation(state, combat, defence, die["value"]))
    res = outcome["result"]
    attackers = [state["units"][uid] for uid in combat["attackers"]]
    a_steps, d_steps = satisfiable(
        res["attacker_steps"],
        res["defender_steps"],
        sum(u["steps"] for u in attackers),
        sum(u["steps"] for u in defenders),
    )
    att_losses = assign(
        attackers,
        a_steps,
        outcome["first_loss"]["attacker"],
        combat["losses"]["own"],
        picks["enemy"],
    )
    def_losses = assign(
        defenders,
        d_steps,
        outcome["first_loss"]["defender"],
        picks["own"],
        combat["losses"]["enemy"],
    )
    lost = _tally(def_losses)
    survivors = [u["id"] for u in defenders if u["steps"] > lost.get(u["id"], 0)]
    resolved = RulesEvent(
        "CombatResolved",
        {
            "target": target,
            "die": die,
            "odds": {
                k: outcome[k] for k in ("base_ratio", "column_shifts", "column", "efficiency")
            },
            "attack": outcome["attack"]["total"],
            "defense": outcome["defense"]["total"],
            "die_modifiers": outcome["die_modifiers"],
            "caps": outcome["caps"],
            "net_drm": outcome["net_drm"],
            "modified_roll": outcome["modified_roll"],
            "result": res,
            "losses": {"attacker": att_losses, "defender": def_losses},
            "survivors": survivors,
        },
    )
    return [resolved, *_after_losses(state, combat, survivors, res["retreat"])]


def _tally(losses: list[dict[str, Any]]) -> dict[str, int]:
    out: dict[str, int] = {}
    for loss in losses:
        out[loss["unit"]] = out.get(loss["unit"], 0) + 1
    return out


def _after_losses(
    state: State, combat: Mapping[str, Any], survivors: list[str], retreat: bool
) -> list[RulesEvent]:
    if survivors and retreat:
        return [RulesEvent("RetreatRequired", {"units": survivors, "from": combat["target"]})]
    if survivors:
        return _end(combat, held=True)
    return _vacated(combat)


def _vacated(combat: Mapping[str, Any]) -> list[RulesEvent]:
    if combat.get("amphibious"):
        return [
            RulesEvent("LandingSucceeded", {"hex": combat["target"], "units": combat["attackers"]})
        ] + _end(combat, held=False)
    return [RulesEvent("AdvanceRequired", {"hex": combat["target"]})]


def _end(combat: Mapping[str, Any], held: bool) -> list[RulesEvent]:
    events = []
    if combat.get("amphibious") and held:
        events.append(
            RulesEvent("LandingFailed", {"hex": combat["target"], "units": combat["attackers"]})
        )
    return events + [RulesEvent("CombatEnded", {"target": combat["target"]})]


# -- retreat (16.7) and last stand (16.5) -------------------------------------------------------
def retreat_options(state: State) -> dict[str, Any]:
    """Legal retreat hexes for the units of the pending combat, and their cost in steps."""
    combat = state["combat"]
    origin = combat["target"]
    side = enemy(combat["attacker_side"])
    grid = geo.board(state).grid
    attack_hexes = [h for h in combat["from"].values() if h != "sea"]
    zoc = geo.enemy_zoc(state, side)
    foes = occupied(state, combat["attacker_side"])
    friends = occupied(state, side) - {origin}

    def distance(h: str) -> int:
        return sum(grid.distance(h, a) for a in attack_hexes)

    moving = [state["units"][uid] for uid in combat["retreating"]]
    steps = sum(u["steps"] for u in moving)

    def fits(h: str) -> bool:
        present = sum(u["steps"] for u in at(state, h) if u["side"] == side)
        return present + steps <= geo.stacking_limit(state, h)

    def can_enter(_frm: str, to: str) -> bool:
        return not geo.impassable(state, to) and to not in foes

    paths = retreat_paths(grid, origin, 1, can_enter)
    away = [p[-1] for p in paths if distance(p[-1]) > distance(origin) or not attack_hexes]
    if away and not any(fits(h) for h in away):
        longer = retreat_paths(grid, origin, 2, can_enter)
        away = [p[-1] for p in longer if distance(p[-1]) > distance(origin) and fits(p[-1])]
    else:
        away = [h for h in away if fits(h)]
    free = [h for h in away if h not in zoc or h in friends]
    if free:
        own = [h for h in free if geo.controller(state, h) == side]
        return {"hexes": sorted(own or free), "extra_loss": False}
    in_zoc = [h for h in away if h not in friends]
    return {"hexes": sorted(in_zoc), "extra_loss": bool(in_zoc)}


def retreat(state: State, side: str, command: Mapping[str, Any], dice: Dice) -> list[RulesEvent]:
    combat = state["combat"]
    origin = combat["target"]
    moving = [state["units"][uid] for uid in combat["retreating"]]
    if command.get("last_stand"):
        return _last_stand(state, combat, moving, dice)
    options = retreat_options(state)
    if not options["hexes"]:
        return [
            RulesEvent(
                "UnitsRetreated",
                {
                    "units": combat["retreating"],
                    "from": origin,
                    "to": None,
                    "eliminated": combat["retreating"],
                    "extra_losses": [],
                },
            )
        ] + _vacated(combat)
    to = command.get("to")
    if to not in options["hexes"]:
        raise RuleViolation("16.7", f"retreat to one of {options['hexes']}", "to")
    extra: list[str] = []
    eliminated: list[str] = []
    for u in moving:
        loss = int(options["extra_loss"]) + int(u.get("retreated_turn") == state["turn"])
        for _ in range(loss):
            extra.append(u["id"])
        if u["steps"] - loss <= 0:
            eliminated.append(u["id"])
    return [
        RulesEvent(
            "UnitsRetreated",
            {
                "units": combat["retreating"],
                "from": origin,
                "to": to,
                "extra_losses": extra,
                "eliminated": eliminated,
            },
        )
    ] + _vacated(combat)


def _last_stand(
    state: State, combat: Mapping[str, Any], moving: list[Unit], dice: Dice
) -> list[RulesEvent]:
    origin = combat["target"]
    if combat.get("last_stand_failed"):
        raise RuleViolation(
            "16.5", "the last stand failed: the defender must retreat", "last_stand"
        )
    if not last_stand_terrain(state, origin):
        raise RuleViolation(
            "16.5", "last stand only in city, mountain or half mountain hexes", "last_stand"
        )
    present = [u for u in at(state, origin) if u["side"] == moving[0]["side"]]
    mods = last_stand_modifiers(state, origin, present)
    needed = sum(m["value"] for m in mods)
    if needed < 1:
        raise RuleViolation(
            "16.5", "the defender's last stand modifiers do not reach 1", "last_stand"
        )
    die = dice.roll(6, "last stand")
    success = die.value <= needed
    loss = None
    if success:
        best = max(u["efficiency"] for u in moving)
        loss = next(
            u["id"] for u in sorted(moving, key=lambda u: -u["seq"]) if u["efficiency"] == best
        )
    events = [
        RulesEvent(
            "LastStandRolled",
            {
                "hex": origin,
                "die": die.as_dict(),
                "modifiers": mods,
                "needed": needed,
                "success": success,
                "loss": loss,
            },
        )
    ]
    if success:
        events += _end(combat, held=True)
    return events


# -- advance after combat (16.7) ----------------------------------------------------------------
def advance(state: State, side: str, command: Mapping[str, Any]) -> list[RulesEvent]:
    combat = state["combat"]
    ids = _ids(command, "units")
    if combat["supports"].get("hq") in ids:  # before 16.7: the supporting HQ is no attacker
        raise RuleViolation("9.1", "an HQ cannot advance after combat", "units")
    movers = []
    for uid in ids:
        u = unit(state, uid)
        if u is None or uid not in combat["attackers"] or u["status"] != "map":
            raise RuleViolation("16.7", f"{uid} did not attack in this combat", "units")
        movers.append(u)
    if not movers:
        raise RuleViolation("16.7", "at least one attacking combat unit must advance", "units")
    hex_ = combat["target"]
    if sum(u["steps"] for u in movers) > geo.stacking_limit(state, hex_):
        raise RuleViolation(
            "5", f"more than {geo.stacking_limit(state, hex_)} steps in {hex_}", "units"
        )
    exploiters = [u["id"] for u in movers if is_armor(u) and not combat.get("exploitation")]
    return [
        RulesEvent("UnitsAdvanced", {"units": ids, "to": hex_, "exploiters": exploiters}),
        RulesEvent("CombatEnded", {"target": hex_}),
    ]
