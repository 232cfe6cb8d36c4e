"""``actions``: what a side may send now, in the one action vocabulary (service/rules/actions.py).
Templates are built from the declarations (``COMMANDS.template``), labelled with printed names; each
``one_of`` option is legal on its own; what the rules refuse now is ``blocked`` with its rule.  Moves
list a path to every hex a unit may reach (15, 7.1, 9.2), attacks each target hex with the units
that may attack it (16.1); both are judged on what the side can see (19.2)."""

from __future__ import annotations

from collections.abc import Callable
from itertools import combinations
from typing import Any

from service.rules.actions import Actions, Template, one_of, some_of
from service.rules.backbone import admin, combat_flow, decisions, fog, playing
from service.rules.backbone import geography as geo
from service.rules.backbone.combat import naval_allowed
from service.rules.backbone.data_files import load
from service.rules.backbone.declared import COMMANDS
from service.rules.backbone.movement import (
    PutRight,
    Room,
    destinations,
    may_end,
    obstacles,
    stacking_violations,
)
from service.rules.backbone.units import (
    EFFICIENCY_OPTIONS,
    State,
    Unit,
    at,
    enemy,
    is_armor,
    is_hq,
    on_map,
    tags,
)
from service.rules.base import RuleViolation
from service.rules.hexgame import HexNames


def actions(state: State, side: str) -> Actions:
    """Templates for ``side``, which the caller has checked is an active side."""
    out = Actions()
    combat = state.get("combat")
    step = state["step"]
    if state.get("pending"):
        decisions.arrival_actions(state, side, out)
    elif combat:
        _STAGES[combat["stage"]](state, side, out)
    elif step in _STEPS:
        _STEPS[step](state, side, out)
    elif step.endswith("_movement"):
        _movement(visible(state, side), side, out)
    else:
        _combat_phase(visible(state, side), side, out)
    return out


def visible(state: State, side: str) -> State:
    """The state as ``side`` sees it under limited intelligence (19.2), else the state itself:
    moves and attacks are listed from it, so the list never depends on a hidden enemy unit (a
    listed order may then be refused when ``decide`` meets that unit, as at the table)."""
    return fog.view(state, side) if fog.limited(state) else state


def _t(type_: str, label: str, **parts: Any) -> Template:
    return COMMANDS.template(type_, label, **parts)


# -- the steps of the turn ----------------------------------------------------------------------------
def _deployment(state: State, side: str, out: Actions) -> None:
    out.add(_t("deploy", "Deploy as set up"))
    if side != "spanish":
        return
    names = HexNames(state)
    hexes = _fortifiable(state, deployment=True)
    allowed = state["data"]["fortifications_at_deployment"]
    if hexes:
        choose = {"fortifications": some_of(hexes, [names.hex(h) for h in hexes], max=allowed)}
        out.add(_t("deploy", "Deploy as set up and fortify (13.3)", choose=choose))


def _fortifiable(state: State, deployment: bool) -> list[str]:
    found = []
    for hex_ in geo.board(state).grid.labels():
        try:
            playing.fortifiable(state, hex_, deployment)
        except RuleViolation:
            continue
        found.append(hex_)
    return found


def _events(state: State, side: str, out: Actions) -> None:
    for chit in state["events"]["hands"][side]:
        _chit(state, side, chit, out)
    if "tunisia" in state["events"]["hands"][side]:
        reason = "the German offensive in Tunisia is played at once"
        out.block("pass", "Play no event", reason, "10.2")
    else:
        out.add(_t("pass", "Play no event"))


def _chit(state: State, side: str, chit: str, out: Actions) -> None:
    name = admin.chit_spec(chit)["name"]
    label = f"Play {name}"
    reason = playing.refusal(state, side, chit)
    if reason:
        out.block("play_event", label, reason, "10.2")
        return
    names = HexNames(state)
    fixed = {"chit": chit}
    if chit == "rif_rebellion":
        hexes = playing.rif_hexes(state)
        count = len(state["data"]["rif_units"])
        if len(hexes) < count:
            out.block("play_event", label, "no room for the Rif units", "10.2")
            return
        choose = {"hexes": some_of(hexes, [names.hex(h) for h in hexes], min=count, max=count)}
        out.add(_t("play_event", label, fixed=fixed, choose=choose))
    elif chit == "tunisia":
        units = playing.tunisia_battalions(state)
        count = min(2, len(units))
        ids, labels = [u["id"] for u in units], [u["name"] for u in units]
        choose = {"units": some_of(ids, labels, min=count, max=count)}
        out.add(_t("play_event", label, fixed=fixed, choose=choose))
    elif chit == "oss":
        seen = visible(state, side)
        gfri = [u for u in on_map(seen, "spanish") if u["type"] == "regulars"]
        if not gfri:
            out.block("play_event", label, "no GFRI unit is on the map", "10.2")
            return
        choose = {"gfri": one_of([u["id"] for u in gfri], [u["name"] for u in gfri])}
        out.add(_t("play_event", label, fixed=fixed, choose=choose))
    else:
        out.add(_t("play_event", label, fixed=fixed))


def _strait(state: State, side: str, out: Actions) -> None:
    if state["strait"]["open"]:
        out.add(_t("roll_strait", "Go on: the Strait is open (11)"))
    elif state["air"]["allied"] >= 1 and "sea_lions" not in state["played_this_turn"]:
        choose = {"air_point": one_of([False, True], ["No air point", "Spend an air point (-1)"])}
        out.add(_t("roll_strait", "Roll for the Strait", choose=choose))
    else:
        out.add(_t("roll_strait", "Roll for the Strait"))


def _replacements(state: State, side: str, out: Actions) -> None:
    out.add(_t("replace", "Take no replacements", fixed={"steps": []}))
    steps, labels = _replacement_steps(state, side)
    if steps:
        most = 2 if side == "spanish" else max(1, playing.allied_points(state))
        choose = {"steps": some_of(steps, labels, max=min(most, len(steps)))}
        out.add(_t("replace", "Replace steps (13.2)", choose=choose))
    if side == "spanish" and state["turn"] % 2 == 0:
        hexes = _fortifiable(state, deployment=False)
        names = HexNames(state)
        if hexes:
            choose = {"fortify": one_of(hexes, [names.hex(h) for h in hexes])}
            out.add(_t("replace", "Fortify a hex (13.3)", fixed={"steps": []}, choose=choose))


def _replacement_steps(state: State, side: str) -> tuple[list[dict[str, Any]], list[str]]:
    names = HexNames(state)
    steps: list[dict[str, Any]] = []
    labels: list[str] = []
    for u in sorted(state["units"].values(), key=lambda u: u["id"]):
        if u["side"] != side:
            continue
        try:
            cost = playing.replacement_cost(state, side, u)
        except RuleViolation:
            continue
        if side == "allied" and cost > playing.allied_points(state):
            continue
        if u["status"] == "map":
            if not Room(state).fits(u, u["hex"], 1):
                continue  # 5: the step would put its stack over the limit
            steps.append({"unit": u["id"], "hex": None})
            labels.append(f"A step of {u['name']}")
            continue
        for hex_ in sorted(playing.rebuild_hexes(state, u)):
            steps.append({"unit": u["id"], "hex": hex_})
            labels.append(f"Rebuild {u['name']} in {names.hex(hex_)}")
    return steps, labels


def _amphibious(state: State, side: str, out: Actions) -> None:
    spec = state["data"]["amphibious"]["assault_units"]
    afloat = playing.assault_units(state)
    brigades = [u for u in afloat if u in spec["brigades"]][: spec["max_brigades"]]
    units = brigades + [u for u in afloat if u in spec["also"]]
    names = HexNames(state)
    seen = visible(state, side)  # 19.2: the landing's odds judged on the defenders it can see
    landings: dict[tuple[str, ...], list[str]] = {}
    for hex_ in geo.board(seen).grid.labels():
        group = _landing_group(seen, hex_, units)
        if group:
            landings.setdefault(group, []).append(hex_)
    for group, hexes in landings.items():
        ids = list(group)
        label = "Land " + names.units(ids)
        opposed = [h for h in hexes if any(u["side"] == "spanish" for u in at(seen, h))]
        free = [h for h in hexes if h not in opposed]
        if free:
            choose = {"hex": one_of(free, [names.hex(h) for h in free])}
            out.add(_t("land", label, fixed={"units": ids}, choose=choose))
        for hex_ in opposed:  # 14: "You can also assign air points and in general all the
            # modifiers for combat apply": the supports of an attack, chosen per hex
            judge = _attack_judge(seen, side, {"hex": hex_}, ids, amphibious=True)
            units_ = [seen["units"][u] for u in ids]
            choose = support_choices(seen, side, hex_, units_, judge, naval=False)
            foes = [u["id"] for u in at(seen, hex_) if u["side"] != side]
            choose.update(loss_choices(seen, ids, foes))
            choose["hex"] = one_of([hex_], [names.hex(hex_)])
            out.add(
                _t("land", f"{label} in {names.hex(hex_)}", fixed={"units": ids}, choose=choose)
            )
    if not landings:
        out.block("land", "Land " + names.units(units), "no coastal hex can be reached", "14")
    if state["data"]["scenario_number"] == 2:
        out.add(_t("pass", "Do not land this turn (18.2)"))
    else:
        out.block("pass", "Do not land", "the landing of turn 1 is mandatory", "14")


def _landing_group(state: State, hex_: str, units: list[str]) -> tuple[str, ...] | None:
    """The largest group of ``units`` that may land on ``hex_`` (14): all of them, unless they
    would not fit there (5) or could not attack its defenders (16.1)."""
    if not units or playing.landing_hex_refusal(state, hex_) or geo.impassable(state, hex_):
        return None
    for size in range(len(units), 0, -1):
        for group in combinations(units, size):
            if _may_land(state, hex_, list(group)):
                return group
    return None


def _may_land(state: State, hex_: str, units: list[str]) -> bool:
    if not any(u["side"] == "spanish" for u in at(state, hex_)):
        return playing.landing_fits(state, hex_, units)
    command = {"target": hex_, "units": units}
    try:
        combat_flow.assess(state, combat_flow.declaration(state, "allied", command, True))
    except RuleViolation:
        return False
    return True


def _agreement(state: State, side: str, out: Actions) -> None:
    choose = {"end": one_of([True, False], ["End the game now (17)", "Play on"])}
    out.add(_t("vote_end", "Vote on ending the game", choose=choose))


_STEPS: dict[str, Callable[[State, str, Actions], None]] = {
    "deployment": _deployment,
    "allied_deployment": _deployment,
    "administrative": lambda s, side, out: out.add(_t("begin_turn", "Begin the turn")),
    "events": _events,
    "strait": _strait,
    "replacements": _replacements,
    "amphibious": _amphibious,
    "agreement": _agreement,
}


# -- the stages of a declared combat -----------------------------------------------------------------
def _defence(state: State, side: str, out: Actions) -> None:
    """16.3: "Supports. They will be designated first by the attacker and then by the defender":
    every support the ``defend`` command accepts (air, naval, HQ, Legion, an efficiency tie, the
    FJR/GJR's efficiency) is offered, each option one the defence accepts with any other."""
    combat = state["combat"]
    defenders = [state["units"][uid] for uid in combat["defenders"]]

    def accepted(picks: dict[str, Any]) -> bool:
        try:
            command = {"type": "defend", **picks}
            defence = combat_flow.supports_of(state, side, "defence", command, combat["target"])
            combat_flow.assess(state, combat, defence)
        except RuleViolation:
            return False
        return True

    choose = support_choices(state, side, combat["target"], defenders, accepted)
    choose.update(loss_choices(state, combat["defenders"], combat["attackers"]))
    out.add(_t("defend", "Defend", choose=choose))


def support_choices(
    state: State,
    side: str,
    target: str,
    units: list[Unit],
    accepted: Callable[[dict[str, Any]], bool],
    *,
    fire: bool = True,
    naval: bool = True,
) -> dict[str, Any]:
    """The supports a side designates for a combat (16.3, 16.4, 9.1, 9.2) as choose fields, so a
    player who plays from the list may use every one: air points (0 to 3, 16.4), naval points
    (Allied, where the coast allows, 16.3), an HQ of the units' formation in range (9.1), the
    Legion's modifier (9.2), an efficiency among the tied ones and the efficiency the FJR/GJR
    count as (16.3 note).  ``accepted(picks)`` judges a set of picks; an HQ, efficiency or
    efficiency_as option is kept only when it is accepted with every other option kept (the ones
    that change the columns), so a ``one_of`` option is never refused for another one's sake.
    Without ``fire`` (an exploitation attack, 16.7) no air, naval or HQ support."""
    choose: dict[str, Any] = {}
    choose.update(_point_choices(state, side, target, fire=fire, naval=naval))
    hqs = [
        hq["id"]
        for hq in (on_map(state, side) if fire else [])
        if is_hq(hq) and accepted({"hq": hq["id"]})
    ]
    if hqs:
        labels = ["No HQ support", *(f"{state['units'][h]['name']} in support" for h in hqs)]
        choose["hq"] = one_of([None, *hqs], labels)
    if any("legion" in tags(u) for u in units):
        choose["legion"] = one_of([False, True], ["Legion: no modifier", "Legion: +1/-1 (9.2)"])
    choose.update(_efficiency_choices(state, units, accepted, [None, *hqs]))
    return choose


def _point_choices(
    state: State, side: str, target: str, *, fire: bool, naval: bool
) -> dict[str, Any]:
    """Air points (0 to 3, 16.4) and the Allies' naval points where the coast allows (16.3), as
    choose fields (none without ``fire``)."""
    choose: dict[str, Any] = {}
    most = min(state["air"][side], load("supports")["air"]["max_per_combat"]) if fire else 0
    if most:
        choose["air"] = one_of(list(range(most + 1)), [_air_label(n) for n in range(most + 1)])
    most = _naval_most(state, side, target) if fire and naval else 0
    if most:
        labels = ["No naval support"] + [
            f"{n} naval point{'s' if n > 1 else ''}" for n in range(1, most + 1)
        ]
        choose["naval"] = one_of(list(range(most + 1)), labels)
    return choose


def _efficiency_choices(
    state: State,
    units: list[Unit],
    accepted: Callable[[dict[str, Any]], bool],
    every_hq: list[str | None],
) -> dict[str, Any]:
    """The efficiency the FJR/GJR count as (16.3 note) and the efficiency among the tied ones
    (16.3), each option kept only when accepted with every HQ and count kept."""
    choose: dict[str, Any] = {}
    counted: list[dict[str, int]] = [{}] + [
        {u["id"]: value} for u in units for value in EFFICIENCY_OPTIONS.get(u["type"], [])
    ]
    counts = [o for o in counted if all(accepted({"hq": h, "efficiency_as": o}) for h in every_hq)]
    if len(counts) > 1:
        labels = ["Efficiencies as printed"] + [
            f"{state['units'][uid]['name']} as efficiency {v} (16.3)"
            for o in counts[1:]
            for uid, v in o.items()
        ]
        choose["efficiency_as"] = one_of(counts, labels)
    effs = [
        e
        for e in (1, 2, 3)
        if all(
            accepted({"hq": h, "efficiency_as": o, "efficiency": e})
            for h in every_hq
            for o in counts
        )
    ]
    if effs:
        labels = ["The efficiency with the most steps"] + [
            f"Efficiency {e} (16.3 tie)" for e in effs
        ]
        choose["efficiency"] = one_of([None, *effs], labels)
    return choose


def _naval_most(state: State, side: str, target: str) -> int:
    """16.3: the naval points the Allies may give a combat in ``target`` now."""
    if side != "allied" or not state["naval"]["points"]:
        return 0
    coast = geo.coast(state, target)
    if coast in state["naval"]["used_coasts"] and not state["strait"]["open"]:
        return 0
    allowed = naval_allowed({"coast": coast, "strait_controlled": state["strait"]["open"]})
    return min(int(state["naval"]["points"]), allowed)


def loss_choices(state: State, own: list[str], foes: list[str]) -> dict[str, Any]:
    """16.6: the steps a side takes are chosen in turn -- the 1st and 3rd by their owner (the 1st
    among the units that used an ability or whose efficiency was used), the 2nd and 4th by the
    opponent.  Each side names its picks with its attack or defence, in order of preference:
    ``own_losses`` (its own units) and ``enemy_losses`` (the other side's); none named: the
    last unit placed in the stack first."""
    choose: dict[str, Any] = {}
    own = [uid for uid in own if not is_hq(state["units"][uid])] + [
        uid for uid in own if is_hq(state["units"][uid])
    ]
    if len(own) > 1:
        labels = [state["units"][uid]["name"] for uid in own]
        choose["own_losses"] = some_of(own, labels, min=0)
    if len(foes) > 1:
        labels = [state["units"][uid]["name"] for uid in foes]
        choose["enemy_losses"] = some_of(foes, labels, min=0)
    return choose


def _air_label(n: int) -> str:
    return "No air support" if n == 0 else f"{n} air point{'s' if n > 1 else ''}"


def _baraka(state: State, side: str, out: Actions) -> None:
    choose = {"reroll": one_of([True, False], ["Roll the die again", "Keep the roll"])}
    out.add(_t("baraka", "Baraka (10.2)", choose=choose))


def _retreat(state: State, side: str, out: Actions) -> None:
    """16.7: the stack retreats together (the first template), or one unit of it at a time to a
    hex of its own (a stack may split); 16.5: or it makes a last stand."""
    hexes = combat_flow.retreat_options(state)["hexes"]
    names = HexNames(state)
    if hexes:
        out.add(
            _t("retreat", "Retreat", choose={"to": one_of(hexes, [names.hex(h) for h in hexes])})
        )
    else:
        out.add(_t("retreat", "Retreat: no hex is open, the units are eliminated (16.7)"))
    retreating = state["combat"]["retreating"]
    if len(retreating) > 1:
        for uid in retreating:
            own = combat_flow.retreat_options(state, [uid])["hexes"]
            name = state["units"][uid]["name"]
            if own:
                choose = {"to": one_of(own, [names.hex(h) for h in own])}
                label = f"Retreat {name} alone (16.7)"
                out.add(_t("retreat", label, fixed={"units": [uid]}, choose=choose))
    reason = combat_flow.last_stand_refusal(state)
    if reason:
        out.block("retreat", "Last stand", reason, "16.5")
        return
    moving = [state["units"][uid] for uid in retreating]
    losers = combat_flow.last_stand_losers(moving)
    if len(losers) == 1:
        out.add(_t("retreat", "Last stand (16.5)", fixed={"last_stand": True}))
        return
    choose = {"loss": one_of(losers, [state["units"][u]["name"] for u in losers])}
    label = "Last stand (16.5): if it holds, who loses the step"
    out.add(_t("retreat", label, fixed={"last_stand": True}, choose=choose))


def _advance(state: State, side: str, out: Actions) -> None:
    combat = state["combat"]
    ids = combat_flow.advancers(state, combat)
    labels = [state["units"][uid]["name"] for uid in ids]
    limit = geo.stacking_limit(state, combat["target"])
    fitting = [i for i, uid in enumerate(ids) if state["units"][uid]["steps"] <= limit]
    ids, labels = [ids[i] for i in fitting], [labels[i] for i in fitting]
    out.add(
        _t("advance", "Advance after combat (16.7)", choose={"units": some_of(ids, labels, max=1)})
    )
    if len(ids) > 1:
        choose = {"units": some_of(ids, labels, min=1)}
        out.add(_t("advance", "Advance with several units (16.7)", choose=choose))


_STAGES: dict[str, Callable[[State, str, Actions], None]] = {
    "defence": _defence,
    "baraka": _baraka,
    "retreat": _retreat,
    "advance": _advance,
}


# -- movement (15) and combat (16) phases -------------------------------------------------------------
def _movement(seen: State, side: str, out: Actions) -> None:
    names = HexNames(seen)
    for unit_id, paths in moves(seen, side):
        dests = list(paths)
        choose = {"path": one_of([paths[h] for h in dests], [names.hex(h) for h in dests])}
        label = f"Move {seen['units'][unit_id]['name']}"
        out.add(_t("move", label, fixed={"unit": unit_id}, choose=choose))
    if side == "allied":
        _drops(seen, out)
    problems = stacking_violations(seen, side)
    if problems:
        where = ", ".join(names.hex(p["hex"]) for p in problems)
        out.block("end_phase", "End the movement phase", f"stacking over the limit in {where}", "5")
    else:
        out.add(_t("end_phase", "End the movement phase"))


def _drops(state: State, out: Actions) -> None:
    ready = [
        u for u in state["units"].values() if u["type"] == "paratroop" and u["status"] == "ready"
    ]
    if not ready or not state["options"].get("paratrooper_assault"):
        return
    reason = playing.drop_refusal(state) or (None if playing.drops_left(state) else "no jump left")
    if reason:
        out.block("drop", "Paratrooper assault", reason, "18.1")
        return
    names = HexNames(state)
    zones = [h for h in geo.board(state).grid.labels() if playing.drop_zone(state, h)]
    for u in ready:
        options = [[{"unit": u["id"], "hex": h}] for h in zones]
        choose = {"drops": one_of(options, [names.hex(h) for h in zones])}
        out.add(_t("drop", f"Drop {u['name']} (18.1)", choose=choose))


def moves(state: State, side: str) -> list[tuple[str, dict[str, list[str]]]]:
    """Each unit that may still move with ``{hex: [start, ..., hex]}``: the cheapest path to each
    destination, found with the costs and stops ``decide`` checks, on the state as the side sees
    it."""
    found = []
    around = obstacles(state, side)  # the same for every unit of the side
    right = PutRight(state, side)  # 5: a stack over the limit is never left past putting right
    keep = right.possible()
    for u in sorted(on_map(state, side), key=lambda u: u["id"]):
        if u["id"] in state["moved"] or u.get("landed_turn") == state["turn"]:
            continue  # 15.1 once per phase; 14 not after landing
        reach = sorted(destinations(state, u, around).items())
        paths = {
            h: list(r.path)
            for h, r in reach
            if may_end(state, u, h) and (not keep or right.possible(u, h))
        }
        if paths:
            found.append((u["id"], paths))
    return found


def _combat_phase(seen: State, side: str, out: Actions) -> None:
    """16.1: "The attacker can choose to attack with one, some or all units from those adjacent
    hexes": the units are a ``some_of`` (at least one) of every unit that may attack the hex
    together; 16.3: the supports the attacker designates are choose fields (``support_choices``)."""
    names = HexNames(seen)
    for target, ids, exploitation in attacks(seen, side):
        label = f"Attack {names.hex(target)} with {names.units(ids)}"
        fixed: dict[str, Any] = {"target": target}
        if exploitation:
            fixed["exploitation"] = True
            label = f"Exploit into {names.hex(target)} with {names.units(ids)} (16.7)"
        choose: dict[str, Any] = {}
        if len(ids) > 1:
            choose["units"] = some_of(ids, [seen["units"][u]["name"] for u in ids], min=1)
        else:
            fixed["units"] = ids
        group = [seen["units"][u] for u in ids]
        choose.update(
            support_choices(
                seen,
                side,
                target,
                group,
                _attack_judge(seen, side, fixed, ids),
                fire=not exploitation,
            )
        )
        foes = [u["id"] for u in at(seen, target) if u["side"] != side]
        choose.update(loss_choices(seen, ids, foes))
        out.add(_t("attack", label, fixed=fixed, choose=choose))
    out.add(_t("end_phase", "End the combat phase"))


def _attack_judge(
    state: State, side: str, fixed: dict[str, Any], ids: list[str], amphibious: bool = False
) -> Callable[[dict[str, Any]], bool]:
    """Whether the declaration accepts an attack of ``ids`` with ``picks`` (16.1, 16.3)."""

    def accepted(picks: dict[str, Any]) -> bool:
        command = {"type": "attack", **fixed, "units": ids, **picks}
        if amphibious:
            command["target"] = command.pop("hex")
        try:
            combat_flow.assess(state, combat_flow.declaration(state, side, command, amphibious))
        except RuleViolation:
            return False
        return True

    return accepted


def attacks(seen: State, side: str) -> list[tuple[str, list[str], bool]]:
    """Each target hex with a group of units that may attack it together, every eligible unit
    listed (the player may leave some out), on the state as the side sees it."""
    grid = geo.board(seen).grid
    own = [u for u in on_map(seen, side) if not is_hq(u)]
    found: list[tuple[str, list[str], bool]] = []
    for exploit in combat_flow.exploit_targets(seen):
        units = [
            u for u in own if u["id"] in seen["exploiters"] and grid.adjacent(u["hex"], exploit)
        ]
        found += _groups(seen, side, exploit, units, exploitation=True)
    targets = sorted({u["hex"] for u in on_map(seen, enemy(side))})
    for target in targets:
        if target in seen["attacked_hexes"]:
            continue  # 16.1: each hex once per turn
        units = [u for u in own if grid.adjacent(u["hex"], target) and _may_attack(seen, u, target)]
        found += _groups(seen, side, target, units, exploitation=False)
    return found


def _may_attack(state: State, u: Unit, target: str) -> bool:
    """What 16.1, 12.3, 14 and 16.3 say of a unit attacking an adjacent hex."""
    turn = state["turn"]
    if u["id"] in state["attacked_units"]:
        return False
    if u.get("landed_turn") == turn or u.get("dropped_turn") == turn:
        return False
    if u["side"] == "spanish" and u["formation"] in state["corps_attacked"]:
        return False
    mountain = geo.terrain(state, target) == "mountain"
    return not (is_armor(u) and mountain and not geo.road(state, u["hex"], target))


def _groups(
    state: State, side: str, target: str, units: list[Unit], *, exploitation: bool
) -> list[tuple[str, list[str], bool]]:
    """The groups for one target: one per kind of units that may not attack together (Rif units
    apart, 10.2; US and British apart, 16.1), each checked by the declaration itself."""
    if exploitation:
        units = [u for u in units if is_armor(u)]  # 16.7: only armor exploits
    rif = [u for u in units if u["type"] == "rif"]
    rest = [u for u in units if u["type"] != "rif"]
    nations = {u["nation"] for u in rest}
    groups = [rif]
    if {"us", "uk"} <= nations:
        groups += [[u for u in rest if u["nation"] != n] for n in ("uk", "us")]
    else:
        groups.append(rest)
    found = []
    for group in groups:
        ids = _accepted(state, side, target, group, exploitation)
        if ids:
            found.append((target, ids, exploitation))
    return found


def _accepted(
    state: State, side: str, target: str, group: list[Unit], exploitation: bool
) -> list[str]:
    """The group's ids if the declaration accepts it as is; else the group less its least
    efficient units (which may lower the efficiency used, 16.3) if that is accepted; else []."""
    for least in (1, 2, 3):
        ids = [u["id"] for u in group if u["efficiency"] >= least]
        if not ids:
            return []
        command = {"type": "attack", "target": target, "units": ids, "exploitation": exploitation}
        try:
            combat_flow.assess(state, combat_flow.declaration(state, side, command))
        except RuleViolation:
            continue
        return ids
    return []
