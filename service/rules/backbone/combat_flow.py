"""Combat in play (16): declaration with supports, the defender's supports, resolution with the
CRT and losses, retreat or last stand, advance after combat and exploitation; the landing (14).
Each command is declared with its fields (:mod:`.declared`): the rules here read them as typed."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any

from service.rules.backbone import fog, sequence
from service.rules.backbone import geography as geo
from service.rules.backbone.combat import (
    RETREATED_TO_VACANT,
    CombatError,
    evaluate,
    retreated_to_vacant,
)
from service.rules.backbone.data_files import load
from service.rules.backbone.declared import COMMANDS, EfficiencyChoices
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
)
from service.rules.base import Dice, RulesEvent, RuleViolation
from service.rules.declare import Count, Flag, Hex, Units
from service.rules.declare import Unit as UnitField
from service.rules.kernel.retreat import retreat_paths

Command = Mapping[str, Any]


def supports_fields() -> dict[str, Any]:
    """The supports a side designates for a combat (16.3, 16.4, 9.1, 9.2) and its loss picks (16.6)."""
    return {
        "air": Count(required=False),
        "naval": Count(required=False),
        "hq": UnitField(required=False, allow_none=True),
        "legion": Flag(required=False),
        "efficiency": Count(required=False, allow_none=True, minimum=1, maximum=3),
        "efficiency_as": EfficiencyChoices(),
        "own_losses": Units(required=False),
        "enemy_losses": Units(required=False),
    }


def _violation(exc: CombatError) -> RuleViolation:
    return RuleViolation(exc.rule, exc.message, exc.field)


def hq_support(
    state: State, side: str, role: str, hq_id: str | None, target: str, units: list[Unit]
) -> bool:
    """Validate an HQ's support (9.1): same CE/TF, range 1 (Spanish) or 2 (Allied), in supply, once
    in attack and once in defence per turn."""
    if hq_id is None:
        return False
    hq = state["units"][hq_id]
    if not is_hq(hq) or hq["side"] != side or hq["status"] != "map":
        raise RuleViolation("9.1", "the supporting unit is not one of your HQs on the map", "hq")
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
    others = [u["name"] for u in units if not is_hq(u) and u["formation"] != hq["formation"]]
    if others:
        raise RuleViolation("9.1", f"{', '.join(others)} are not of {hq['formation']}", "hq")
    # 16.3: "CG / HQ support ... provided the units are in supply"; 9.1: the units that "want to
    # benefit from this support" must "have supply line to him": every unit it supports
    short = [u["name"] for u in units if not is_hq(u) and not u.get("supplied", True)]
    if short:
        raise RuleViolation(
            "16.3", f"{', '.join(short)} out of supply: HQ support needs the units in supply", "hq"
        )
    return True


def _air(state: State, side: str, command: Command) -> int:
    air: int = command.get("air") or 0
    if air > state["air"][side]:
        raise RuleViolation(
            "16.4", f"only {state['air'][side]} air points are left this turn", "air"
        )
    return air


def _naval(state: State, side: str, command: Command, target: str) -> int:
    naval: int = command.get("naval") or 0
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


def supports_of(
    state: State, side: str, role: str, command: Command, target: str
) -> dict[str, Any]:
    """The supports a defence designates (16.3), judged as ``defend`` judges them."""
    combat = state["combat"]
    defenders = [state["units"][uid] for uid in combat["defenders"]]
    return _supports(state, side, role, command, target, defenders)


def _supports(
    state: State, side: str, role: str, command: Command, target: str, units: list[Unit]
) -> dict[str, Any]:
    hq = command.get("hq")
    return {
        "air": _air(state, side, command),
        "naval": _naval(state, side, command, target),
        "hq": hq if hq_support(state, side, role, hq, target, units) else None,
        "legion": bool(command.get("legion")),
        "efficiency": command.get("efficiency"),
        "efficiency_as": dict(command.get("efficiency_as") or {}),
    }


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


def retreated_here(state: State, u: Unit, target: str) -> bool:
    """16.7: ``u`` retreated into ``target`` this turn."""
    return bool(u.get("retreated_turn") == state["turn"] and u.get("retreated_into") == target)


def _defender_views(state: State, target: str, side: str) -> list[dict[str, Any]]:
    return [
        {"retreated": retreated_here(state, u, target)}
        for u in at(state, target)
        if u["side"] == side
    ]


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
            retreated=retreated_here(state, u, target),
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
        # 9.2 / 16.6: the reading of the Legion's first loss the game plays (a game option)
        "legion_first_loss": state["options"].get("legion_first_loss", "ability_used"),
        # 9.2 / 16.6: the reading of the engineers' first loss the game plays (a game option)
        "engineer_first_loss": state["options"].get("engineer_first_loss", "ability_used"),
        # 19.2: declared under limited intelligence, it is carried out whatever the stack shows
        "limited_intelligence": bool(combat.get("limited_intelligence")),
    }


@COMMANDS.command(
    "attack",
    phases=("combat",),
    target=Hex(),
    units=Units(),
    exploitation=Flag(required=False),
    **supports_fields(),
    doc="16.1: attack an adjacent enemy hex with supports (16.3, 16.4, 9.1, 9.2); 16.7 exploitation",
)
def attack(state: State, side: str, command: Command, dice: Dice) -> list[RulesEvent]:
    return declare(state, side, command)


def declare(
    state: State, side: str, command: Command, amphibious: bool = False
) -> list[RulesEvent]:
    """Validate an attack (16.1) and return CombatDeclared.  Under limited intelligence (19.2) it
    is judged on what the attacker sees -- the units under the top of the enemy stack count for
    nothing in a refusal -- and, once declared, "must be carried out obligatorily": the whole
    stack then determines the ratio, and below 1:2 the combat is fought on the 1:2 column
    (knowledge-base entry ``backbone:conflict-hidden-odds``)."""
    if fog.limited(state):
        seen = fog.view(state, side)
        assess(seen, declaration(seen, side, command, amphibious))
        combat = {**declaration(state, side, command, amphibious), "limited_intelligence": True}
    else:
        combat = declaration(state, side, command, amphibious)
    assess(state, combat)
    data = {"combat": combat, "coast": geo.coast(state, combat["target"])}
    return [RulesEvent("CombatDeclared", data)]


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
    state: State, side: str, command: Command, amphibious: bool = False
) -> dict[str, Any]:
    """The combat an attack declares (16.1), with the attacker's supports; refuses what the
    rules forbid of the attackers, the target and the supports."""
    target = command["target"]
    defenders = [u for u in at(state, target) if u["side"] == enemy(side)]
    if not defenders:
        raise RuleViolation("16.1", f"no enemy unit in {target}", "target")
    exploitation = bool(command.get("exploitation"))
    if not command["units"]:
        raise RuleViolation("16.1", "name the attacking units", "units")
    attackers = [state["units"][uid] for uid in command["units"]]
    origin = {u["id"]: _attacker(state, side, u, target, amphibious) for u in attackers}
    _check_group(state, side, attackers, target, exploitation)
    sup = _supports(state, side, "attack", command, target, attackers)
    _loss_picks(state, command.get("own_losses"), list(command["units"]), "own_losses")
    if amphibious:
        sup["naval"] = load("supports")["naval"]["amphibious_drm"]
    return {
        "attacker_side": side,
        "target": target,
        "attackers": list(command["units"]),
        "defenders": [u["id"] for u in defenders],
        "from": origin,
        "supports": sup,
        "exploitation": exploitation,
        "amphibious": amphibious,
        "losses": {
            "own": list(command.get("own_losses") or []),
            "enemy": list(command.get("enemy_losses") or []),
        },
    }


def _loss_picks(state: State, picks: list[str] | None, fighting: list[str], field: str) -> None:
    """16.6: loss picks name units of the combat (the defender's picks of the attackers are known:
    every unit of a declared combat is shown, 19.2)."""
    strays = [uid for uid in picks or [] if uid not in fighting]
    if strays:
        names = ", ".join(state["units"][uid]["name"] for uid in strays)
        raise RuleViolation("16.6", f"{names} does not fight in this combat", field)


def _attacker(state: State, side: str, u: Unit, target: str, amphibious: bool) -> str:
    """Where an attacking unit attacks from (16.1, 14): refuses a unit that may not attack."""
    if u["side"] != side:
        raise RuleViolation("16.1", "a unit named is not one of yours", "units")
    if is_hq(u):
        raise RuleViolation("4", f"{u['name']} does not attack; name it as hq support", "units")
    if amphibious:
        if u["status"] != "afloat":
            raise RuleViolation("14", f"{u['name']} is not afloat for the landing", "units")
        return "sea"
    if u["status"] != "map" or not geo.board(state).grid.adjacent(u["hex"], target):
        raise RuleViolation("16.1", f"{u['name']} is not adjacent to {target}", "units")
    if u.get("landed_turn") == state["turn"] or u.get("dropped_turn") == state["turn"]:
        raise RuleViolation("14", f"{u['name']} landed this turn and cannot attack", "units")
    return str(u["hex"])


def _check_group(
    state: State, side: str, attackers: list[Unit], target: str, exploitation: bool
) -> None:
    """What 16.1, 16.7, 10.2 and 12.3 say of the attackers together and of the target."""
    if len({u["type"] == "rif" for u in attackers}) > 1:
        raise RuleViolation("10.2", "Rif units do not attack together with Allied units", "units")
    if exploitation:
        late = [u["name"] for u in attackers if u["id"] not in state["exploiters"]]
        if late:
            raise RuleViolation(
                "16.7", f"{', '.join(late)} did not advance as armor after combat", "units"
            )
        if target not in exploit_targets(state):
            raise RuleViolation(
                "16.7", "exploitation attacks only the units that retreated", "target"
            )
        return
    if retreated_to_vacant(_defender_views(state, target, enemy(side))):
        raise RuleViolation("16.7", RETREATED_TO_VACANT, "target")
    again = [u["name"] for u in attackers if u["id"] in state["attacked_units"]]
    if again:
        raise RuleViolation("16.1", f"{', '.join(again)} already attacked this turn", "units")
    if target in state["attacked_hexes"]:
        raise RuleViolation("16.1", f"{target} was already attacked this turn", "target")
    if side == "spanish":
        corps = sorted({u["formation"] for u in attackers})
        done = [c for c in corps if c in state["corps_attacked"]]
        if done:
            raise RuleViolation(
                "12.3", f"{', '.join(done)} already launched its attack this turn", "units"
            )


@COMMANDS.command(
    "defend",
    phases=("defence",),
    **supports_fields(),
    doc="16.3: the defender's supports, designated after the attacker's; then the roll (16.2)",
)
def defend(state: State, side: str, command: Command, dice: Dice) -> list[RulesEvent]:
    """The defender's supports (16.3: designated after the attacker's), then the roll and losses."""
    combat = state["combat"]
    target = combat["target"]
    defenders = [state["units"][uid] for uid in combat["defenders"]]
    defence = _supports(state, side, "defence", command, target, defenders)
    picks = {
        "own": list(command.get("own_losses") or []),
        "enemy": list(command.get("enemy_losses") or []),
    }
    _loss_picks(state, picks["own"], combat["defenders"], "own_losses")
    _loss_picks(state, picks["enemy"], combat["attackers"], "enemy_losses")
    assess(state, combat, defence)
    die = dice.roll(6, "combat")
    declared = RulesEvent("DefenceDeclared", {"supports": defence, "side": side, "picks": picks})
    if baraka_available(state):
        first = evaluate(situation(state, combat, defence, die.value))["result"]["text"]
        return [declared, RulesEvent("CombatRolled", {"die": die.as_dict(), "result": first})]
    return [declared, *after_combat(state, resolve(state, combat, defence, picks, die.as_dict()))]


def exploit_targets(state: State) -> list[str]:
    """16.7: the hexes the defenders of the last combat retreated to (several when the stack
    split), which armor that advanced may attack in exploitation."""
    targets = state.get("exploit_targets") or [state.get("exploit_target")]
    return [t for t in targets if t]


def baraka_available(state: State) -> bool:
    """Baraka (10.2): from its draw, once each turn, the Spanish may re-roll a combat's die."""
    return "baraka" in state["events"]["in_force"] and state.get("baraka_turn") != state["turn"]


@COMMANDS.command(
    "baraka", phases=("baraka",), reroll=Flag(), doc="10.2: keep the combat's die or roll it again"
)
def baraka(state: State, side: str, command: Command, dice: Dice) -> list[RulesEvent]:
    """The Spanish keep the roll or re-roll it, ignoring the first (10.2 Baraka): the combat's die,
    or with ``baraka_dice: any_combat_die`` the last stand's (16.5)."""
    combat = state["combat"]
    die = combat["first_die"]
    events = []
    last_stand = combat.get("baraka_for") == "last stand"
    if command["reroll"]:
        die = dice.roll(6, "last stand (Baraka)" if last_stand else "combat (Baraka)").as_dict()
        events.append(RulesEvent("BarakaUsed", {"ignored": combat["first_die"], "die": die}))
    if last_stand:
        moving = [state["units"][uid] for uid in combat["retreating"]]
        chosen = combat.get("last_stand_loss")
        return after_combat(state, events + last_stand_result(state, combat, moving, die, chosen))
    return after_combat(
        state, events + resolve(state, combat, combat["defence"], combat["picks"], die)
    )


def after_combat(state: State, events: list[RulesEvent]) -> list[RulesEvent]:
    """After a landing's combat ends the game moves on from the amphibious segment (14)."""
    types = {e.type for e in events}
    if state["step"] == "amphibious" and "CombatEnded" in types and "AdvanceRequired" not in types:
        return events + sequence.next_step(state, "amphibious")
    return events


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
    lost = _tally(att_losses)
    advancers = [u["id"] for u in attackers if u["steps"] > lost.get(u["id"], 0)]
    resolved = RulesEvent(
        "CombatResolved",
        {
            "target": target,
            "die": die,
            "odds": {
                k: outcome[k]
                for k in ("base_ratio", "column_shifts", "column", "efficiency", "below_table")
                if k in outcome
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
    after = _after_losses(combat, survivors, advancers, res["retreat"])
    return [resolved, *after]


def _tally(losses: list[dict[str, Any]]) -> dict[str, int]:
    return dict(Counter(loss["unit"] for loss in losses))  # each unit's steps lost, in order met


def _after_losses(
    combat: Mapping[str, Any], survivors: list[str], advancers: list[str], retreat: bool
) -> list[RulesEvent]:
    if survivors and retreat:
        return [RulesEvent("RetreatRequired", {"units": survivors, "from": combat["target"]})]
    if survivors:
        return _end(combat, held=True)
    return _vacated(combat, advancers)


def _vacated(combat: Mapping[str, Any], advancers: list[str]) -> list[RulesEvent]:
    """The defending hex is empty: the landing succeeds (14), the attackers advance (16.7) -- when
    none of them is left, the combat simply ends."""
    if combat.get("amphibious"):
        return [
            RulesEvent("LandingSucceeded", {"hex": combat["target"], "units": combat["attackers"]})
        ] + _end(combat, held=False)
    if not advancers:
        return _end(combat, held=False)
    return [RulesEvent("AdvanceRequired", {"hex": combat["target"]})]


def advancers(state: State, combat: Mapping[str, Any]) -> list[str]:
    return [uid for uid in combat["attackers"] if state["units"][uid]["status"] == "map"]


def _end(combat: Mapping[str, Any], held: bool) -> list[RulesEvent]:
    events = []
    if combat.get("amphibious") and held:
        events.append(
            RulesEvent("LandingFailed", {"hex": combat["target"], "units": combat["attackers"]})
        )
    return events + [RulesEvent("CombatEnded", {"target": combat["target"]})]


# -- retreat (16.7) and last stand (16.5) -------------------------------------------------------
def retreat_options(state: State, units: list[str] | None = None) -> dict[str, Any]:
    """Legal retreat hexes for the units of the pending combat still to retreat (or ``units``, a
    part of them: a stack may split, 16.7 -- see the knowledge-base entry
    ``backbone:conflict-retreat-stack``), and their cost in steps."""
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

    moving = [state["units"][uid] for uid in (combat["retreating"] if units is None else units)]
    steps = sum(u["steps"] for u in moving)

    def fits(h: str) -> bool:
        present = sum(u["steps"] for u in at(state, h) if u["side"] == side)
        return present + steps <= geo.stacking_limit(state, h)

    def can_enter(frm: str, to: str) -> bool:
        """A retreat enters each hex as a move does (15.2: mountain is impassable for armour but
        by road), and never an enemy's."""
        if geo.impassable(state, to) or to in foes:
            return False
        return all(geo.step_cost(state, u, frm, to) is not None for u in moving)

    paths = retreat_paths(grid, origin, 1, can_enter)
    away = [p[-1] for p in paths if distance(p[-1]) > distance(origin) or not attack_hexes]
    if away and not any(fits(h) for h in away):
        longer = retreat_paths(grid, origin, 2, can_enter)
        away = [p[-1] for p in longer if distance(p[-1]) > distance(origin) and fits(p[-1])]
    else:
        away = [h for h in away if fits(h)]
    return _retreat_choice(state, side, away, zoc, friends)


def _retreat_choice(
    state: State, side: str, away: list[str], zoc: set[str], friends: set[str]
) -> dict[str, Any]:
    """16.7: hexes free of enemy ZOC (or held by friends) first, the side's own among them;
    otherwise the hexes in an enemy ZOC, at the cost of an extra step."""
    free = [h for h in away if h not in zoc or h in friends]
    if free:
        own = [h for h in free if geo.controller(state, h) == side]
        return {"hexes": sorted(own or free), "extra_loss": False}
    in_zoc = [h for h in away if h not in friends]
    return {"hexes": sorted(in_zoc), "extra_loss": bool(in_zoc)}


@COMMANDS.command(
    "retreat",
    phases=("retreat",),
    to=Hex(required=False, allow_none=True),
    last_stand=Flag(required=False),
    units=Units(required=False),
    loss=UnitField(required=False),
    doc="16.7: retreat the defenders (all, or some of them: a stack may split) to a hex; 16.5: "
    "or try a last stand (``loss``: which of the most efficient units loses the step)",
)
def retreat(state: State, side: str, command: Command, dice: Dice) -> list[RulesEvent]:
    combat = state["combat"]
    moving = [state["units"][uid] for uid in combat["retreating"]]
    if command.get("last_stand"):
        if command.get("units"):
            raise RuleViolation("16.5", "a last stand is the whole hex's, not some units'", "units")
        return after_combat(state, _last_stand(state, combat, moving, dice, command.get("loss")))
    if command.get("loss"):
        raise RuleViolation("16.5", "a unit loses a step only in a last stand", "loss")
    chosen = list(command.get("units") or combat["retreating"])
    strays = [uid for uid in chosen if uid not in combat["retreating"]]
    if strays:
        names = ", ".join(u["name"] for u in moving)
        raise RuleViolation("16.7", f"the units to retreat are {names}", "units")
    part = [u for u in moving if u["id"] in chosen]
    options = retreat_options(state, chosen)
    to = command.get("to")
    if options["hexes"] and to not in options["hexes"]:
        where = ", ".join(options["hexes"])
        raise RuleViolation("16.7", f"retreat to one of {where}", "to")
    retreated = _retreated(state, combat, part, to if options["hexes"] else None, options)
    if len(part) < len(moving):
        return [retreated]  # 16.7: the rest of the stack retreats next, where its owner chooses
    events = [retreated, *_vacated(combat, advancers(state, combat))]
    return after_combat(state, events)


def _retreated(
    state: State,
    combat: Mapping[str, Any],
    moving: list[Unit],
    to: str | None,
    options: Mapping[str, Any],
) -> RulesEvent:
    """The retreat (16.7): a step lost to retreat through an enemy ZOC and a second retreat in a
    turn; nowhere to go, the units are eliminated."""
    extra: list[str] = []
    eliminated: list[str] = []
    for u in moving:
        loss = int(options["extra_loss"]) + int(u.get("retreated_turn") == state["turn"])
        extra += [u["id"]] * loss
        if to is None or u["steps"] - loss <= 0:
            eliminated.append(u["id"])
    data = {
        "units": [u["id"] for u in moving],
        "from": combat["target"],
        "to": to,
        "extra_losses": extra if to else [],
        "eliminated": eliminated,
    }
    return RulesEvent("UnitsRetreated", data)


def _last_stand_modifiers(state: State, combat: Mapping[str, Any]) -> list[dict[str, Any]]:
    origin = combat["target"]
    side = enemy(combat["attacker_side"])
    present = [u for u in at(state, origin) if u["side"] == side]
    return last_stand_modifiers(state, origin, present)


def last_stand_refusal(state: State) -> str | None:
    """Why the retreating units may not make a last stand (16.5), or None."""
    combat = state["combat"]
    if combat.get("last_stand_failed"):
        return "the last stand failed: the defender must retreat"
    if combat.get("retreated_hexes"):
        return "part of the stack has retreated: the last stand is the whole hex's"
    if not last_stand_terrain(state, combat["target"]):
        return "last stand only in city, mountain or half mountain hexes"
    if sum(m["value"] for m in _last_stand_modifiers(state, combat)) < 1:
        return "the defender's last stand modifiers do not reach 1"
    return None


def last_stand_losers(moving: list[Unit]) -> list[str]:
    """16.5: the extra step of a successful last stand is lost "among the most efficient present";
    which of them is the defender's choice (the first listed is the default)."""
    best = max(u["efficiency"] for u in moving)
    return [u["id"] for u in sorted(moving, key=lambda u: -u["seq"]) if u["efficiency"] == best]


def _last_stand(
    state: State,
    combat: Mapping[str, Any],
    moving: list[Unit],
    dice: Dice,
    chosen: str | None = None,
) -> list[RulesEvent]:
    origin = combat["target"]
    reason = last_stand_refusal(state)
    if reason:
        raise RuleViolation("16.5", reason, "last_stand")
    losers = last_stand_losers(moving)
    if chosen is not None and chosen not in losers:
        names = ", ".join(state["units"][u]["name"] for u in losers)
        raise RuleViolation("16.5", f"the step is lost among the most efficient: {names}", "loss")
    mods = _last_stand_modifiers(state, combat)
    needed = sum(m["value"] for m in mods)
    die = dice.roll(6, "last stand")
    if baraka_on_last_stand(state):
        data = {"hex": origin, "die": die.as_dict(), "needed": needed, "loss": chosen}
        return [RulesEvent("LastStandDieRolled", data)]
    return last_stand_result(state, combat, moving, die.as_dict(), chosen)


def baraka_on_last_stand(state: State) -> bool:
    """The option ``baraka_dice: any_combat_die`` (the other reading of 10.2, knowledge-base entry
    ``backbone:conflict-baraka-dice``): Baraka may also re-roll the last stand die (16.5)."""
    option = state["options"].get("baraka_dice", "combat_result")
    return option == "any_combat_die" and baraka_available(state)


def last_stand_result(
    state: State,
    combat: Mapping[str, Any],
    moving: list[Unit],
    die: Mapping[str, Any],
    chosen: str | None,
) -> list[RulesEvent]:
    """16.5: the defender holds on a roll at or under the sum of the modifiers, losing a step
    among the most efficient present; else it must retreat (without that step)."""
    origin = combat["target"]
    losers = last_stand_losers(moving)
    mods = _last_stand_modifiers(state, combat)
    needed = sum(m["value"] for m in mods)
    success = die["value"] <= needed
    loss = None
    if success:
        loss = chosen or losers[0]
    events = [
        RulesEvent(
            "LastStandRolled",
            {
                "hex": origin,
                "die": dict(die),
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
@COMMANDS.command(
    "advance",
    phases=("advance",),
    units=Units(),
    doc="16.7: attacking units advance into the emptied hex",
)
def advance(state: State, side: str, command: Command, dice: Dice) -> list[RulesEvent]:
    combat = state["combat"]
    ids = list(command["units"])
    if combat["supports"].get("hq") in ids:  # before 16.7: the supporting HQ is no attacker
        raise RuleViolation("9.1", "an HQ cannot advance after combat", "units")
    movers = [state["units"][uid] for uid in ids]
    if not movers:
        raise RuleViolation("16.7", "at least one attacking combat unit must advance", "units")
    if any(u["id"] not in advancers(state, combat) for u in movers):
        raise RuleViolation("16.7", "only units that attacked in this combat advance", "units")
    hex_ = combat["target"]
    if sum(u["steps"] for u in movers) > geo.stacking_limit(state, hex_):
        raise RuleViolation(
            "5", f"more than {geo.stacking_limit(state, hex_)} steps in {hex_}", "units"
        )
    exploiters = [u["id"] for u in movers if is_armor(u) and not combat.get("exploitation")]
    events = [
        RulesEvent("UnitsAdvanced", {"units": ids, "to": hex_, "exploiters": exploiters}),
        RulesEvent("CombatEnded", {"target": hex_}),
    ]
    return after_combat(state, events)
