"""Attacks inside movement (13): declaration and its MP cost, the Bilbao roll (15), leaders chosen
Nationalist first, resolution, step losses, retreats or the morale check to hold, retreats through
enemy ZoC (5), euphoria (6) and the advance after combat."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from service.rules.base import Dice, RuleViolation, State, clone
from service.rules.bizkaya import board, combat, tables
from service.rules.bizkaya.events import emit, regroup, retreat_move
from service.rules.bizkaya.losses import ordered, spread
from service.rules.bizkaya.moves import available_mp, may_act
from service.rules.declare import Emitter

Unit = dict[str, Any]
MAX_RETREAT = 4


def entrenched(state: State, hex_: str, against: list[str]) -> bool:
    """9, 15: a completed trench of the occupier, or every hex it is fought from lies across an
    Iron Belt (trench) hexside."""
    occupier = board.side_at(state, hex_)
    trench = state["trenches"].get(hex_)
    if trench and trench["status"] == "complete" and trench["side"] == occupier:
        return True
    mapdata = board.map_of(state)
    return bool(against) and all(mapdata.has_hexside(h, hex_, "iron_belt") for h in against)


def attackers_for(state: State, side: str, hex_: str) -> list[Unit]:
    """Units that may attack ``hex_`` now: first echelon, not demoralized, not yet in a combat this
    impulse, adjacent but not across a no-combat hexside, with the MPs the attack costs."""
    cost = board.attack_cost(state, hex_)
    mapdata = board.map_of(state)
    blocked = no_combat_hexsides()
    found = []
    for u in board.on_map(state, side):
        if not (board.is_combat(u) and u["echelon"] == 1 and may_act(state, u)):
            continue
        if u["demoralized"] or u["fought"] or not mapdata.grid.adjacent(u["hex"], hex_):
            continue
        if mapdata.hexside_features(u["hex"], hex_) & blocked or cost is None:
            continue
        if available_mp(state, u) >= cost:
            found.append(u)
    return found


def no_combat_hexsides() -> set[str]:
    """1: no combat across the ferry's no-combat hexside, nor across an impassable one ("and
    therefore are impassable ... Combat remains forbiden, though": an impassable hexside forbids
    combat, so no attacker -- and no advance after combat, 13 -- crosses it)."""
    tec = tables.terrain()
    return set(tec["no_combat_hexsides"]) | set(tec["impassable_hexsides"])


def declare(em: Emitter, side: str, command: Mapping[str, Any], dice: Dice) -> None:
    s = em.state
    hex_ = command["hex"]
    enemy = board.other(side)
    if hex_ in s["attacked_hexes"]:
        raise RuleViolation("13", f"{hex_} has already been attacked this impulse", "hex")
    defenders = board.stack(s, hex_, enemy)
    if not defenders:
        raise RuleViolation("13", f"no enemy unit in {hex_}", "hex")
    eligible = {u["id"] for u in attackers_for(s, side, hex_)}
    units = [s["units"][i] for i in command["units"]]
    for u in units:
        if u["id"] not in eligible:
            raise RuleViolation("13", _why_not(s, side, u, hex_), "units")
    if s["phase"] == "reserve" and not all(u["activated"] for u in units):
        raise RuleViolation("11", "in the reserve impulse only activated reserves attack", "units")
    cost = board.attack_cost(s, hex_)
    first = [u["id"] for u in board.first_echelon(s, hex_)]
    emit(
        em,
        "AttackDeclared",
        {
            "side": side,
            "hex": hex_,
            "units": [u["id"] for u in units],
            "from": sorted({u["hex"] for u in units}),
            "cost": cost,
            "defenders": first,
        },
    )
    if not any(board.is_combat(u) for u in defenders):
        emit(
            em,
            "UnitsEliminated",
            {
                "units": [u["id"] for u in defenders],
                "reason": "support units alone attacked (4, 12)",
            },
        )
        offer_advance(em)
        return
    bilbao = tables.game()["bilbao"]
    if side == "nationalist" and hex_ in s["special"]["bilbao_roll_hexes"]:
        die = dice.roll(6, "Bilbao (15)")
        falls = die.value in bilbao["retreat_on"]
        emit(em, "BilbaoRolled", {"hex": hex_, "die": die.as_dict(), "retreat": falls})
        if falls:
            emit(
                em,
                "RetreatDue",
                {
                    "side": enemy,
                    "units": [u["id"] for u in defenders],
                    "drm": 0,
                    "may_hold": False,
                    "away_from": sorted({u["hex"] for u in units}),
                    "reason": "Bilbao: the defenders retreat one hex without fighting (15)",
                },
            )
            return
    auto_leaders(em, dice)


def _why_not(state: State, side: str, u: Unit, hex_: str) -> str:
    if u["side"] != side or u["status"] != "map":
        return f"{u['name']} is not one of your units on the map"
    if not board.is_combat(u) or u["echelon"] != 1:
        return f"{u['name']} is not a first-echelon combat unit: only the first echelon attacks (4)"
    if u["demoralized"]:
        return f"{u['name']} is demoralized and cannot attack (6)"
    if u["fought"]:
        return f"{u['name']} has already fought this impulse"
    if not may_act(state, u):
        return f"{u['name']} may not act in this impulse (reserve, 11)"
    if not board.map_of(state).grid.adjacent(u["hex"], hex_):
        return f"{u['name']} is not adjacent to {hex_}"
    if board.map_of(state).hexside_features(u["hex"], hex_) & no_combat_hexsides():
        return f"no combat across the hexside {u['hex']}-{hex_} (1)"
    return f"{u['name']} has {available_mp(state, u)} MP, the attack costs {board.attack_cost(state, hex_)} (13)"


def candidates(state: State, side: str) -> list[Unit]:
    """Who may lead for ``side`` in the pending combat (6: not demoralized if another may)."""
    c = state["combat"]
    if side == c["side"]:
        units = [state["units"][i] for i in c["units"] if state["units"][i]["status"] == "map"]
    else:
        units = board.first_echelon(state, c["hex"])
    return list(combat.may_lead(units))  # type: ignore[arg-type]


def auto_leaders(em: Emitter, dice: Dice) -> None:
    """Leaders are chosen Nationalist first (13); a side with one possible leader has it chosen."""
    c = em.state["combat"]
    for side in board.SIDES:
        if side in c["leaders"]:
            continue
        eligible = candidates(em.state, side)
        if len(eligible) != 1:
            return
        emit(
            em,
            "LeaderChosen",
            {"side": side, "unit": eligible[0]["id"], "losses": [], "auto": True},
        )
    resolve(em, dice)


def loss_units(state: State, side: str) -> list[Unit]:
    """The units of ``side`` in the pending combat that may take its step losses (13: after the
    leader, "distributed as the owning player sees fit"; the second echelon last, 4)."""
    c = state["combat"]
    if side == c["side"]:
        return [state["units"][i] for i in c["units"] if state["units"][i]["status"] == "map"]
    return [u for u in board.stack(state, c["hex"], side) if board.is_combat(u)]


def choose_leader(em: Emitter, side: str, command: Mapping[str, Any], dice: Dice) -> None:
    eligible = {u["id"] for u in candidates(em.state, side)}
    if command["unit"] not in eligible:
        raise RuleViolation(
            "6", f"{command['unit']} may not lead ({', '.join(sorted(eligible))})", "unit"
        )
    own = {u["id"] for u in loss_units(em.state, side)}
    strays = [uid for uid in command.get("losses", []) if uid not in own]
    if strays:
        raise RuleViolation(
            "13", f"{', '.join(strays)} does not fight for you in this combat", "losses"
        )
    emit(
        em,
        "LeaderChosen",
        {
            "side": side,
            "unit": command["unit"],
            "losses": list(command.get("losses", [])),
            "auto": False,
        },
    )
    auto_leaders(em, dice)


def _unit_view(u: Unit) -> dict[str, Any]:
    return {
        "id": u["id"],
        "attack": u["attack"],
        "defence": u["defence"],
        "morale": u["morale"],
        "steps": u["steps"],
        "max_steps": u["max_steps"],
        "out_of_supply": u["oos"],
        "demoralized": u["demoralized"],
    }


def situation(
    state: State, side: str, hex_: str, units: list[Unit], leaders: Mapping[str, str]
) -> dict[str, Any]:
    """The combat situation of :mod:`combat` built from the board."""
    defenders = board.first_echelon(state, hex_)
    from_hexes = {u["hex"] for u in units}
    attacking_stacks = [u for h in from_hexes for u in board.stack(state, h, side)]
    nat_hexes = from_hexes if side == "nationalist" else {hex_}
    count = sum(
        1
        for leader in state["leaders"].values()
        if leader["unit"] and state["units"][leader["unit"]]["hex"] in nat_hexes
    )
    enemy = board.other(side)
    return {
        "attacker_side": side,
        "attackers": [_unit_view(u) for u in units],
        "defenders": [_unit_view(u) for u in defenders],
        "attacker_leader": leaders.get(side),
        "defender_leader": leaders.get(enemy),
        "attacker_euphoric": bool(attacking_stacks)
        and all(u["euphoric"] for u in attacking_stacks),
        "defender_euphoric": bool(defenders)
        and all(u["euphoric"] for u in board.stack(state, hex_)),
        # 6: which morale difference euphoria doubles (a game option, rulebook.py's conflict)
        "euphoria_doubling": (state.get("options") or {}).get(
            "euphoria_doubling", "any_difference"
        ),
        "leaders": {"attacker" if side == "nationalist" else "defender": count},
        "terrain": board.terrain(state, hex_),
        "city": board.is_city(state, hex_),
    }


def resolve(em: Emitter, dice: Dice) -> None:
    """13: the dice, the CRT and the intensity losses, euphoria (6), then the retreat due or the
    advance offered."""
    s = em.state
    c = s["combat"]
    side, hex_ = c["side"], c["hex"]
    units = [s["units"][i] for i in c["units"]]
    sit = situation(s, side, hex_, units, c["leaders"])
    rolled = {
        "nationalist": dice.roll(6, "combat (13): the Nationalist die"),
        "republican": dice.roll(6, "combat (13): the Republican die"),
    }
    sit["dice"] = {k: d.value for k, d in rolled.items()}
    out = combat.evaluate(sit)
    record = {
        "side": side,
        "hex": hex_,
        "attackers": [u["id"] for u in units],
        "defenders": [u["id"] for u in board.first_echelon(s, hex_)],
        **{k: out[k] for k in RESULT_KEYS},
        "leaders": {"attacker": c["leaders"][side], "defender": c["leaders"][board.other(side)]},
        "dice": {k: d.as_dict() for k, d in rolled.items()},
        **_losses(s, c, units, out),
        **_euphoria(s, units, out),
        "retreat_ignored": _ignored(s, hex_, out["effect"]),
    }
    emit(em, "CombatResolved", record)
    effect = out["effect"]
    if effect["retreat"] and not record["retreat_ignored"] and _retreat_due(em, units, out):
        return
    offer_advance(em)


RESULT_KEYS = (
    "attack",
    "defence",
    "column",
    "modifiers",
    "modifier_total",
    "dice_total",
    "modified",
    "result",
    "shaded",
    "attacker_losses",
    "defender_losses",
)


def _losses(s: State, c: dict[str, Any], units: list[Unit], out: dict[str, Any]) -> dict[str, Any]:
    """13: each side's steps, the leader's first, then spread; 4: the defender's second echelon
    only when the first cannot absorb them; support units alone in the hex are eliminated."""
    side, hex_ = c["side"], c["hex"]
    enemy = board.other(side)
    attack_pool = ordered(units, c["losses"].get(side, []), c["leaders"][side])
    second = [u for u in board.stack(s, hex_) if board.is_combat(u) and u["echelon"] == 2]
    defence_pools = [
        ordered(board.first_echelon(s, hex_), c["losses"].get(enemy, []), c["leaders"][enemy]),
        ordered(second, c["losses"].get(enemy, [])),
    ]
    a_losses, a_short = spread([attack_pool], out["attacker_losses"])
    d_losses, d_short = spread(defence_pools, out["defender_losses"])
    left = {u["id"]: u["steps"] for u in s["units"].values()}
    for loss in a_losses + d_losses:
        left[loss["unit"]] -= loss["steps"]
    stack = board.stack(s, hex_)
    survivors = [u for u in stack if board.is_combat(u) and left[u["id"]] > 0]
    return {
        "losses": a_losses + d_losses,
        "unsatisfied": {"attacker": a_short, "defender": d_short},
        "eliminated": [] if survivors else [u["id"] for u in stack if not board.is_combat(u)],
    }


def _euphoria(s: State, units: list[Unit], out: dict[str, Any]) -> dict[str, Any]:
    """6: a shaded result makes the attacking stacks euphoric; the loser of a retreat result (the
    attackers on AR, the defending stack on DR) loses its euphoria."""
    side, hex_, effect = s["combat"]["side"], s["combat"]["hex"], out["effect"]
    lost: list[str] = []
    if effect["retreat"]:
        losers = units if effect["loser"] == "attacker" else board.stack(s, hex_)
        lost = [u["id"] for u in losers]
    euphoric: list[str] = []
    if out["shaded"]:
        hexes = {u["hex"] for u in units}
        euphoric = sorted(u["id"] for h in hexes for u in board.stack(s, h, side))
    return {"euphoric": euphoric, "euphoria_lost": lost}


def _ignored(s: State, hex_: str, effect: dict[str, Any]) -> str | None:
    if effect["retreat"] and effect["loser"] == "defender" and board.fortified(s, hex_):
        return "fortified hex (13)"
    return None


def _retreat_due(em: Emitter, units: list[Unit], out: dict[str, Any]) -> bool:
    """13: the loser retreats (or tries to hold: d6 + the result's figure, none when entrenched)
    away from the enemy it fought; False when nobody is left to retreat."""
    s = em.state
    c, effect = s["combat"], out["effect"]
    hex_ = c["hex"]
    if effect["loser"] == "defender":
        retreating = board.stack(s, hex_)
        away = sorted({u["hex"] for u in units if u["status"] == "map"}) or c["from"]
        drm = 0 if entrenched(s, hex_, c["from"]) else effect["check_modifier"]
    else:
        retreating = _attacker_retreat(s, units)
        away, drm = [hex_], effect["check_modifier"]
    if not retreating:
        return False
    first = [u for u in retreating if board.is_combat(u) and u["echelon"] == 1]
    emit(
        em,
        "RetreatDue",
        {
            "side": retreating[0]["side"],
            "units": [u["id"] for u in retreating],
            "drm": drm,
            "may_hold": _may_hold(s, first),
            "away_from": away,
            "reason": out["result"],
        },
    )
    return True


def whole_stack_holds(state: State) -> bool:
    """The reading of 13's hold a game plays (option ``hold_check``, knowledge-base entry
    ``bizkaya:conflict-hold-check``): each unit that passes stays (default), or the units hold
    only if every one passes (``whole_stack``)."""
    return (state.get("options") or {}).get("hold_check") == "whole_stack"


def _may_hold(state: State, first: list[Unit]) -> bool:
    """13: "Demoralized units may not attempt avoiding retreat" -- by default the others may; when
    every unit must pass (``hold_check: whole_stack``) one demoralized unit keeps them all from
    trying, since it cannot pass."""
    if whole_stack_holds(state):
        return bool(first) and not any(u["demoralized"] for u in first)
    return any(not u["demoralized"] for u in first)


def _attacker_retreat(state: State, units: list[Unit]) -> list[Unit]:
    """The attackers that retreat, with the second echelon of each hex whose whole first echelon
    retreats (4)."""
    alive = [state["units"][u["id"]] for u in units if state["units"][u["id"]]["status"] == "map"]
    out = list(alive)
    ids = {u["id"] for u in alive}
    for hex_ in sorted({u["hex"] for u in alive}):
        if all(u["id"] in ids for u in board.first_echelon(state, hex_)):
            out += [
                u
                for u in board.stack(state, hex_)
                if u["id"] not in ids and not (board.is_combat(u) and u["echelon"] == 1)
            ]
    return out


def offer_advance(em: Emitter) -> None:
    """13: the attackers may occupy the hex, free, if it is empty of enemy units; light artillery
    of their stacks may go with them, heavy and siege may not (12)."""
    s = em.state
    c = s["combat"]
    if board.stack(s, c["hex"], board.other(c["side"])):
        emit(em, "CombatEnded", {"hex": c["hex"]})
        return
    units = [s["units"][i] for i in c["units"] if s["units"][i]["status"] == "map"]
    units = [u for u in units if u["hex"] in c["from"]]
    light = [
        u["id"] for h in c["from"] for u in board.stack(s, h, c["side"]) if u["art"] == "light"
    ]
    if not units:
        emit(em, "CombatEnded", {"hex": c["hex"]})
        return
    emit(em, "AdvanceOffered", {"hex": c["hex"], "units": [u["id"] for u in units] + light})


def advance(em: Emitter, side: str, command: Mapping[str, Any]) -> None:
    s = em.state
    c = s["combat"]
    offered = set(c["advance"]["units"])
    chosen = list(command["units"])
    extra = [u for u in chosen if u not in offered]
    if extra:
        raise RuleViolation(
            "13", f"{', '.join(extra)} may not advance (attackers and light artillery, 12)", "units"
        )
    if chosen:
        units = [s["units"][u] for u in chosen]
        if not any(board.is_combat(u) for u in units):
            raise RuleViolation("12", "artillery advances only with combat units", "units")
        arriving = [{**u, "echelon": 1 if board.is_combat(u) else 2} for u in units]
        problems = board.stacking_problems(s, c["hex"], arriving)
        if problems:
            raise RuleViolation("4", "overstacked: " + "; ".join(problems), "units")
        emit(
            em,
            "UnitsAdvanced",
            {
                "side": side,
                "units": chosen,
                "hex": c["hex"],
                "regroup": regroup(s, side, chosen, [c["hex"], c["hex"]]),
            },
        )
    emit(em, "CombatEnded", {"hex": c["hex"]})


def hold(em: Emitter, side: str, command: Mapping[str, Any], dice: Dice) -> None:
    """13: to avoid the retreat every unit passes a morale check (d6 + the result's figure <=
    morale; no figure when entrenched); those failing are demoralized and retreat, demoralized
    units may not try.  With ``hold_check: whole_stack`` ("all units must pass") one failure sends
    every unit back."""
    s = em.state
    r = s["combat"]["retreat"]
    if not r["may_hold"]:
        raise RuleViolation("13", "these units may not try to avoid the retreat", "type")
    units = [s["units"][u] for u in r["units"]]
    checks, staying = [], set()
    for u in units:
        if board.is_combat(u) and u["echelon"] == 1 and not u["demoralized"]:
            die = dice.roll(6, f"morale check of {u['id']} to hold (13)")
            passed = die.value + r["drm"] <= u["morale"]
            checks.append(
                {
                    "unit": u["id"],
                    "die": die.as_dict(),
                    "drm": r["drm"],
                    "morale": u["morale"],
                    "passed": passed,
                }
            )
            if passed:
                staying.add(u["id"])
    whole = whole_stack_holds(s)
    if whole and any(not c["passed"] for c in checks):
        staying = set()  # 13 "all units must pass a morale check": one failed, all retreat
    held_hexes = {s["units"][u]["hex"] for u in staying}
    retreat = [
        u["id"]
        for u in units
        if u["id"] not in staying
        and not (u["hex"] in held_hexes and not (board.is_combat(u) and u["echelon"] == 1))
    ]
    emit(
        em,
        "HoldChecked",
        {
            "side": side,
            "checks": checks,
            "retreat": retreat,
            "stay": sorted(staying),
            **({"all_must_pass": True} if whole else {}),
        },
    )
    if not retreat:
        after_retreat(em)


def _enterable(state: State, side: str) -> Any:
    mapdata = board.map_of(state)
    enemy = board.occupied_by(state, board.other(side))
    blocked = set(tables.terrain()["impassable_hexsides"])

    def can(frm: str, to: str) -> bool:
        return (
            board.playable(state, to)
            and to not in enemy
            and not (mapdata.hexside_features(frm, to) & blocked)
        )

    return can


def legal_paths(
    state: State, side: str, units: list[Unit], away: list[str], placed: dict[str, list[Unit]]
) -> list[list[str]]:
    """13, 4: retreats of one hex towards the rearguard (each step further from the enemy it
    retreats from), continuing only while the hex reached would be overstacked."""
    grid = board.map_of(state).grid
    can = _enterable(state, side)
    found: list[list[str]] = []
    ids = {u["id"] for u in units}

    def fits(hex_: str) -> bool:
        present = [u for u in board.stack(state, hex_) if u["id"] not in ids] + placed.get(hex_, [])
        return not board.stacking_problems(state, hex_, present + units)

    def extend(path: list[str]) -> None:
        here = path[-1]
        distance = grid.distance_to_nearest(here, away) or 0
        for there in grid.neighbours(here):
            if there in path or not can(here, there):
                continue
            if (grid.distance_to_nearest(there, away) or 0) <= distance:
                continue
            if fits(there):
                found.append(path + [there])
            elif len(path) < MAX_RETREAT:
                extend(path + [there])

    extend([units[0]["hex"]])
    return found


def retreat_groups(state: State) -> dict[str, list[Unit]]:
    r = state["combat"]["retreat"]
    groups: dict[str, list[Unit]] = {}
    for uid in r["units"]:
        u = state["units"][uid]
        if u["status"] == "map":
            groups.setdefault(u["hex"], []).append(u)
    return groups


def retreat(em: Emitter, side: str, command: Mapping[str, Any], dice: Dice) -> None:
    """13: each group of units retreats along a legal path; 4: a unit that has none is
    eliminated; 5: through enemy ZoC it is demoralized or loses a step."""
    s = em.state
    away = s["combat"]["retreat"]["away_from"]
    due = {u["id"] for g in retreat_groups(s).values() for u in g}
    zoc = board.zoc_of(s, board.other(side))
    placed: dict[str, list[Unit]] = {}
    records = []
    for m in command["moves"]:
        units = _retreating(s, m, due - {u["id"] for us in placed.values() for u in us})
        if m["path"] not in legal_paths(s, side, units, away, placed):
            raise RuleViolation(
                "13",
                f"{' - '.join(m['path'])} is not a legal retreat: one hex towards the rearguard, "
                "further only if overstacked (4)",
                "moves",
            )
        placed.setdefault(m["path"][-1], []).extend(units)
        records.append(_through_zoc(units, m["path"], zoc, dice, per_unit=zoc_loss_per_unit(s)))
    missing = due - {u["id"] for us in placed.values() for u in us}
    for hex_, group in retreat_groups(s).items():
        left = [u for u in group if u["id"] in missing]
        if left and legal_paths(s, side, left, away, placed):
            raise RuleViolation(
                "13", f"{', '.join(u['name'] for u in left)} must retreat from {hex_}", "moves"
            )
    _regrouped(s, side, records)
    emit(em, "UnitsRetreated", {"side": side, "moves": records, "eliminated": sorted(missing)})
    after_retreat(em)


def _retreating(s: State, move: Mapping[str, Any], due: set[str]) -> list[Unit]:
    """The units of one retreat move: units due to retreat, not yet moved, of one hex, along a
    path from there."""
    ids, path = move["units"], move["path"]
    if any(i not in due for i in ids):
        raise RuleViolation("13", f"units to retreat: {', '.join(sorted(due))}", "moves")
    units = [s["units"][i] for i in ids]
    if len({u["hex"] for u in units}) != 1 or path[0] != units[0]["hex"]:
        raise RuleViolation(
            "13", "each retreat moves units of one hex along a path from there", "moves"
        )
    return units


def _regrouped(s: State, side: str, records: list[dict[str, Any]]) -> None:
    """6, 9, 13: what each retreat move settles where it leaves and where it stops, move after
    move (a look-ahead copy: the event records it, ``apply`` never judges)."""
    scratch = clone(s)
    for record in records:
        record["regroup"] = regroup(scratch, side, record["units"], record["path"])
        retreat_move(scratch, side, record)


def zoc_loss_per_unit(s: State) -> bool:
    """The reading of 5 a game plays (option ``zoc_retreat_loss``, knowledge-base entry
    ``bizkaya:conflict-zoc-retreat-stack``): one random step for the whole stack (default), or one
    step for every unit of it."""
    return (s.get("options") or {}).get("zoc_retreat_loss") == "one_step_per_unit"


def _through_zoc(
    units: list[Unit], path: list[str], zoc: set[str], dice: Dice, per_unit: bool = False
) -> dict[str, Any]:
    """5: retreating across enemy ZoC demoralizes a unit, or costs a step if it already was; a
    stack also loses one step chosen at random among its combat units ("eliminate 1 step (choose
    it at random) for ALL units": one step in all) -- or, with ``per_unit`` (the other reading),
    one step for each of its combat units."""
    crossed = [h for h in path[1:] if h in zoc]
    record: dict[str, Any] = {
        "units": [u["id"] for u in units],
        "path": list(path),
        "zoc": crossed,
        "demoralized": [],
        "losses": [],
    }
    if not crossed:
        return record
    combat_units = [u for u in units if board.is_combat(u)]
    if len(units) == 1:
        u = units[0]
        if u["demoralized"] and board.is_combat(u):
            record["losses"].append({"unit": u["id"], "steps": 1})
        elif board.is_combat(u):
            record["demoralized"].append(u["id"])
        return record
    record["demoralized"] = [u["id"] for u in combat_units if not u["demoralized"]]
    if per_unit:
        record["losses"] = [{"unit": u["id"], "steps": 1} for u in combat_units]
        record["reading"] = "one step per unit"
    elif len(combat_units) > 1:
        die = dice.roll(len(combat_units), "random step lost retreating through enemy ZoC (5)")
        record["die"] = die.as_dict()
        record["losses"].append({"unit": combat_units[die.value - 1]["id"], "steps": 1})
    elif combat_units:
        record["losses"].append({"unit": combat_units[0]["id"], "steps": 1})
    return record


def after_retreat(em: Emitter) -> None:
    """After a retreat or a hold: the attackers may advance if the defender's hex is empty (13:
    "After solving combat and applying any step losses and retreats" -- whichever side retreated;
    :func:`offer_advance` offers only the attackers still in the hexes they attacked from, so
    those that held on an AR, not those that retreated)."""
    offer_advance(em)
