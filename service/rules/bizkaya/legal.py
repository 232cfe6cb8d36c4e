"""``actions(state, side)``: what a side may send now, as templates of the declared commands with
printed names, and what the rules refuse now (``Blocked``, with the reason and the rule)."""

from __future__ import annotations

from collections.abc import Iterator
from itertools import islice
from typing import Any

from service.rules.actions import Actions, one_of, some_of
from service.rules.base import RuleViolation, State
from service.rules.bizkaya import barrage, battle, board, moves, sequence, tables
from service.rules.bizkaya.commands import (
    COMMANDS,
    STOP_RULE,
    end_admin_refusal,
    end_impulse_refusal,
)
from service.rules.hexgame import HexNames

Unit = dict[str, Any]
#: the most complete retreats offered as options of one template
MAX_RETREATS = 64


def actions(state: State, side: str) -> Actions:
    out = Actions()
    if side != sequence.acting_side(state):
        return out
    names = HexNames(state)
    if state.get("combat"):
        _combat(state, side, names, out)
    elif state["phase"] == "weather":
        out.add(COMMANDS.template("roll_weather", "Roll for the weather (3)"))
    elif state["phase"] == "admin":
        _admin(state, side, names, out)
    elif state["phase"] == "supply":
        _supply(state, side, names, out)
    else:
        _impulse(state, side, names, out)
    return out


def _refusal(out: Actions, type: str, label: str, refusal: RuleViolation | None) -> None:
    if refusal is None:
        out.add(COMMANDS.template(type, label))
    else:
        out.block(type, label, refusal.message, refusal.rule)


def _unit_choice(units: list[Unit], names: HexNames) -> tuple[list[str], list[str]]:
    ids = [u["id"] for u in units]
    return ids, [f"{u['name']} ({names.hex(u['hex'])})" for u in units]


# -- administrative segment and supply phase ----------------------------------------------------


def _admin(state: State, side: str, names: HexNames, out: Actions) -> None:
    own = sorted(board.on_map(state, side), key=lambda u: u["id"])
    if side == "nationalist" and own:  # 8: each leader on one of his stacks
        ids, labels = _unit_choice(own, names)
        for lid, leader in state["leaders"].items():
            if leader["unit"] is None:
                label = f"Place {leader['name']} (8)"
                choose = {"unit": one_of(ids, labels)}
                out.add(
                    COMMANDS.template("place_leader", label, fixed={"leader": lid}, choose=choose)
                )
    for hex_ in board.overstacked(state, side):  # 4: the owner removes units
        ids, labels = _unit_choice(board.stack(state, hex_), names)
        label = f"Eliminate units overstacked in {names.hex(hex_)} (4)"
        out.add(COMMANDS.template("eliminate", label, choose={"units": some_of(ids, labels)}))
    candidates = [
        u
        for u in own
        if board.is_combat(u)
        and not u["reserve"]
        and not (u["echelon"] == 1 and board.adjacent_to_enemy(state, u["hex"], side))
    ]
    if candidates:  # 11
        ids, labels = _unit_choice(candidates, names)
        out.add(
            COMMANDS.template(
                "reserve", "Place units in reserve (11)", choose={"units": some_of(ids, labels)}
            )
        )
    _echelons(state, side, names, out)
    _refusal(out, "end_admin", "End the administrative segment", end_admin_refusal(state, side))


def _echelons(state: State, side: str, names: HexNames, out: Actions) -> None:
    """4: a combat unit may change echelon in the administrative segment or while it moves."""
    if state["phase"] != "admin" and state["stage"] != "move":
        return
    for echelon, word in ((2, "second"), (1, "first")):
        units = [
            u
            for u in board.on_map(state, side)
            if board.is_combat(u)
            and u["echelon"] != echelon
            and (state["phase"] == "admin" or moves.may_act(state, u))
            and _echelon_fits(state, u, echelon, side)
        ]
        if units:
            ids, labels = _unit_choice(sorted(units, key=lambda u: u["id"]), names)
            out.add(
                COMMANDS.template(
                    "set_echelon",
                    f"Move units to the {word} echelon (4)",
                    fixed={"echelon": echelon},
                    choose={"units": some_of(ids, labels)},
                )
            )


def _echelon_fits(state: State, unit: Unit, echelon: int, side: str) -> bool:
    if echelon == 1 and unit["reserve"] and board.adjacent_to_enemy(state, unit["hex"], side):
        return False
    present = [u for u in board.stack(state, unit["hex"]) if u["id"] != unit["id"]]
    return not board.stacking_problems(state, unit["hex"], [*present, {**unit, "echelon": echelon}])


def _supply(state: State, side: str, names: HexNames, out: Actions) -> None:
    builders = [
        u
        for u in sorted(board.on_map(state, side), key=lambda u: u["id"])
        if u["type"] == "brigade" and (state["trenches"].get(u["hex"]) or {}).get("side") != side
    ]
    if builders:  # 9
        ids, labels = _unit_choice(builders, names)
        out.add(
            COMMANDS.template(
                "entrench", "Begin a trench (9)", choose={"unit": one_of(ids, labels)}
            )
        )
    out.add(COMMANDS.template("end_supply", "End the supply phase"))


# -- impulses -----------------------------------------------------------------------------------


def _impulse(state: State, side: str, names: HexNames, out: Actions) -> None:
    if state["phase"] == "reserve" and state["stage"] == "move":  # 11, 13
        waiting = sorted(
            (u for u in board.on_map(state, side) if u["reserve"]), key=lambda u: u["id"]
        )
        if waiting:
            ids, labels = _unit_choice(waiting, names)
            out.add(
                COMMANDS.template(
                    "activate", "Activate reserves (11)", choose={"units": some_of(ids, labels)}
                )
            )
    if state["stage"] == "move":
        _moves(state, side, names, out)
        _echelons(state, side, names, out)
    targets = sorted(board.occupied_by(state, board.other(side)))
    if state["stage"] != "attack":
        for hex_ in targets:
            _barrage(state, side, hex_, names, out)
    for hex_ in targets:
        _attack(state, side, hex_, names, out)
    if state["phase"] == "operations":
        stop = RuleViolation(*STOP_RULE) if state["acted"] else None
        _refusal(out, "stop_operations", "Stop operations (2)", stop)
    _refusal(out, "end_impulse", "End the impulse", end_impulse_refusal(state, side))


def _moves(state: State, side: str, names: HexNames, out: Actions) -> None:
    """13: each stack that may act moves to any hex it reaches (the cheapest path)."""
    stacks: dict[str, list[Unit]] = {}
    for u in sorted(board.on_map(state, side), key=lambda u: u["id"]):
        if moves.may_act(state, u) and moves.available_mp(state, u) > 0:
            stacks.setdefault(u["hex"], []).append(u)
    cost = board.step_cost(state, side)
    for hex_, units in sorted(stacks.items()):
        paths = moves.destinations(state, units, cost)
        if not paths:
            continue
        label = f"Move {names.units([u['id'] for u in units])} from {names.hex(hex_)}"
        out.add(
            COMMANDS.template(
                "move",
                label,
                fixed={"units": [u["id"] for u in units]},
                choose={"path": one_of(list(paths.values()), [names.hex(h) for h in paths])},
            )
        )


def _barrage(state: State, side: str, hex_: str, names: HexNames, out: Actions) -> None:
    """12, 14: every artillery that may fire; air modules (Nationalist) as a choice."""
    if hex_ in state["barraged"]:
        return
    artillery = [u["id"] for u in barrage.artillery_for(state, side, hex_)]
    try:
        barrage.check(state, side, {"hex": hex_, "artillery": artillery})
    except RuleViolation:  # a hex that cannot be barraged now is simply not offered
        return
    air = tables.game()["air"]
    left = air["modules"] - state["air_used"] if side == air["side"] else 0
    choose = {"air": one_of(list(range(left + 1)), [f"{n} air modules" for n in range(left + 1)])}
    targets = [u for u in board.first_echelon(state, hex_) if board.is_combat(u)]
    if len(targets) > 1:  # 12: the attacker chooses which units suffer the step losses
        ids, labels = _unit_choice(targets, names)
        choose["losses"] = some_of(ids, labels, min=0)
    out.add(
        COMMANDS.template(
            "barrage",
            f"Barrage {names.hex(hex_)} with {names.units(artillery)} (12)",
            fixed={"hex": hex_, "artillery": artillery},
            choose=choose,
        )
    )


def _attack(state: State, side: str, hex_: str, names: HexNames, out: Actions) -> None:
    if hex_ in state["attacked_hexes"]:
        return
    units = battle.attackers_for(state, side, hex_)
    if not units:
        return
    ids, labels = _unit_choice(units, names)
    out.add(
        COMMANDS.template(
            "attack",
            f"Attack {names.hex(hex_)} (13)",
            fixed={"hex": hex_},
            choose={"units": some_of(ids, labels)},
        )
    )


# -- the pending combat ---------------------------------------------------------------------------


def _combat(state: State, side: str, names: HexNames, out: Actions) -> None:
    step = sequence.pending(state)
    c = state["combat"]
    if step == "leaders":
        ids, labels = _unit_choice(battle.candidates(state, side), names)
        choose = {"unit": one_of(ids, labels)}
        own = battle.loss_units(state, side)
        if len(own) > 2:  # 13: after the leader, the owner spreads the losses as he sees fit
            loss_ids, loss_labels = _unit_choice(own, names)
            choose["losses"] = some_of(loss_ids, loss_labels, min=0)
        out.add(COMMANDS.template("choose_leader", "Choose the leading unit (13)", choose=choose))
    elif step == "retreat":
        _retreat(state, side, names, out)
    elif step == "advance":
        ids, labels = _unit_choice([state["units"][u] for u in c["advance"]["units"]], names)
        where = names.hex(c["advance"]["hex"])
        out.add(
            COMMANDS.template(
                "advance", f"Advance into {where} (13)", choose={"units": some_of(ids, labels)}
            )
        )
        out.add(COMMANDS.template("advance", f"Do not advance into {where}", fixed={"units": []}))
    else:
        out.block(
            "advance",
            "Continue the combat",
            f"the combat in {names.hex(c['hex'])} is being resolved",
            "13",
        )


def _retreat(state: State, side: str, names: HexNames, out: Actions) -> None:
    """13: the hold (a morale check) if the units may try, and every complete retreat."""
    r = state["combat"]["retreat"]
    if r["may_hold"]:
        out.add(COMMANDS.template("hold", "Hold: a morale check to avoid the retreat (13)"))
    groups = [g for _hex, g in sorted(battle.retreat_groups(state).items())]
    options = list(islice(_retreats(state, side, groups, r["away_from"], {}), MAX_RETREATS))
    labels = [_retreat_label(option, state, names) for option in options]
    out.add(COMMANDS.template("retreat", "Retreat (13)", choose={"moves": one_of(options, labels)}))


def _retreats(
    state: State,
    side: str,
    groups: list[list[Unit]],
    away: list[str],
    placed: dict[str, list[Unit]],
) -> Iterator[list[dict[str, Any]]]:
    """Every complete retreat: a legal path for each group in turn (the groups placed before it
    count for stacking), a group with none being eliminated."""
    if not groups:
        yield []
        return
    group, rest = groups[0], groups[1:]
    paths = battle.legal_paths(state, side, group, away, placed)
    if not paths:
        yield from _retreats(state, side, rest, away, placed)
        return
    ids = [u["id"] for u in group]
    for path in paths:
        here = {**placed, path[-1]: [*placed.get(path[-1], []), *group]}
        for tail in _retreats(state, side, rest, away, here):
            yield [{"units": ids, "path": path}, *tail]


def _retreat_label(option: list[dict[str, Any]], state: State, names: HexNames) -> str:
    due = {u for g in battle.retreat_groups(state).values() for u in (x["id"] for x in g)}
    moved = {u for m in option for u in m["units"]}
    words = [f"{names.units(m['units'])} to {names.hex(m['path'][-1])}" for m in option]
    if due - moved:
        words.append(f"{names.units(sorted(due - moved))} eliminated (no retreat)")
    return "; ".join(words)
