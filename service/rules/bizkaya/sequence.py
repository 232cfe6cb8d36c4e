"""The sequence of play (2): whose move it is, and the segments and phases that follow each other.

A turn: weather (3, the Nationalist rolls), then each player's phase -- the Nationalist's first --
with its administrative segment (reinforcements 7, recovery 6, reserves 11; the Nationalist places
the leaders 8), its supply phase (10, trenches 9) and three operations impulses each followed by the
opponent's reserve impulse (13); then the final segment (victory 16, turn marker)."""

from __future__ import annotations

import math

from service.rules.base import Dice, State
from service.rules.bizkaya import board, tables
from service.rules.bizkaya.events import emit
from service.rules.declare import Emitter


def acting_side(state: State) -> str | None:
    if state["phase"] == "over":
        return None
    combat = state.get("combat")
    if combat:
        return awaiting(state)
    if state["phase"] == "weather":
        return str(tables.game()["weather_roller"])
    if state["phase"] == "reserve":
        return board.other(state["side"])
    return str(state["side"])


def pending(state: State) -> str | None:
    """The step the pending combat waits for (``leaders``, ``retreat``, ``advance``), or ``None``
    between two events of one decision (its resolution is being recorded)."""
    combat = state["combat"]
    stage = combat["stage"]
    bilbao = combat.get("bilbao") or {}
    if stage == "leaders" and len(combat["leaders"]) < len(board.SIDES):
        return None if bilbao.get("retreat") else "leaders"
    if stage == "retreat" and combat["retreat"]["units"]:
        return "retreat"
    return "advance" if stage == "advance" else None


def awaiting(state: State) -> str:
    """Who the pending combat waits for: leaders (Nationalist first, 13), the retreat or hold of
    the losing side, the attacker's advance (and the attacker while the combat is resolved)."""
    combat = state["combat"]
    step = pending(state)
    if step == "leaders":
        return next(side for side in board.SIDES if side not in combat["leaders"])
    if step == "retreat":
        return str(combat["retreat"]["side"])
    return str(combat["side"])


def roll_weather(em: Emitter, dice: Dice) -> None:
    die = dice.roll(6, "weather (3)")
    previous = em.state["weather"]
    code, weather = tables.next_weather(previous, die.value)
    emit(
        em,
        "WeatherRolled",
        {"die": die.as_dict(), "previous": previous, "code": code, "weather": weather},
    )
    begin_admin(em, "nationalist", dice)


def begin_admin(em: Emitter, side: str, dice: Dice) -> None:
    """The administrative segment: withdrawal after Bilbao (15), reinforcements (7) and the
    reorganization of 17, recovery of demoralized units (6, 10)."""
    s = em.state
    emit(em, "PhaseBegan", {"side": side, "phase": "admin", "impulse": 0})
    fell = s["bilbao_fell"]
    if fell is not None and fell < s["turn"] and not s["withdrawal_done"]:
        withdraw_brigades(em, dice)
    arrivals = [
        r
        for r in s["reinforcements"]
        if r["turn"] == s["turn"] and s["units"][r["unit"]]["side"] == side
    ]
    enemy = board.occupied_by(s, board.other(side))
    blocked = [r["unit"] for r in arrivals if r["hex"] in enemy]  # see docs: they never arrive
    arrivals = [r for r in arrivals if r["hex"] not in enemy]
    if arrivals or blocked:
        reorganized = []
        items = []
        for r in arrivals:
            unit = s["units"][r["unit"]]
            hex_ = r["hex"]
            for reorg in s["reorganizations"]:
                source = s["units"][reorg["from"]]
                if reorg["to"] == r["unit"] and source["status"] == "map":
                    hex_ = source["hex"]
                    reorganized.append({"from": reorg["from"], "to": r["unit"], "hex": hex_})
            items.append(
                {"unit": r["unit"], "hex": hex_, "echelon": 1 if board.is_combat(unit) else 2}
            )
        emit(
            em,
            "ReinforcementsArrived",
            {"side": side, "units": items, "reorganized": reorganized, "blocked": blocked},
        )
    checks = []
    for unit in sorted(board.on_map(s, side), key=lambda u: u["id"]):
        if unit["demoralized"] and not unit["oos"]:
            die = dice.roll(6, f"recovery of {unit['id']} (6)")
            checks.append(
                {
                    "unit": unit["id"],
                    "die": die.as_dict(),
                    "morale": unit["morale"],
                    "passed": die.value <= unit["morale"],
                }
            )
    if checks:
        emit(em, "RecoveryRolled", {"side": side, "checks": checks})


def withdraw_brigades(em: Emitter, dice: Dice) -> None:
    """15: after Bilbao falls, a quarter of the Republican brigades (rounded up) chosen at random."""
    candidates = sorted(
        u["id"] for u in board.on_map(em.state, "republican") if u["type"] == "brigade"
    )
    count = math.ceil(len(candidates) * tables.game()["bilbao"]["withdraw_fraction"])
    chosen, rolls = [], []
    for _ in range(count):
        if len(candidates) > 1:
            die = dice.roll(len(candidates), "brigade withdrawn after Bilbao (15)")
            rolls.append(die.as_dict())
            chosen.append(candidates.pop(die.value - 1))
        else:
            chosen.append(candidates.pop())
    emit(em, "BrigadesWithdrawn", {"units": chosen, "dice": rolls, "count": count})


def begin_supply(em: Emitter) -> None:
    """10: the active player's supply; two turns out of supply demoralize; 9: trenches complete."""
    s = em.state
    side = s["side"]
    reach = board.supplied(s, side)
    out, turns, demoralized, mp = [], {}, [], {}
    for unit in sorted(board.on_map(s, side), key=lambda u: u["id"]):
        oos = unit["hex"] not in reach
        count = unit["oos_turns"] + 1 if oos else 0
        if oos:
            out.append(unit["id"])
            turns[unit["id"]] = count
            if count >= 2 and not unit["demoralized"]:
                demoralized.append(unit["id"])
        mp[unit["id"]] = board.capacity(s, {**unit, "oos": oos})
    completed = sorted(
        h for h, t in s["trenches"].items() if t["side"] == side and t["status"] == "building"
    )
    emit(
        em,
        "SupplyChecked",
        {
            "side": side,
            "out_of_supply": out,
            "oos_turns": turns,
            "demoralized": demoralized,
            "mp": mp,
            "trenches_completed": completed,
        },
    )
    emit(em, "PhaseBegan", {"side": side, "phase": "supply", "impulse": 0})


def end_impulse(em: Emitter, dice: Dice) -> None:
    s = em.state
    if s["phase"] == "operations":
        emit(em, "PhaseBegan", {"side": s["side"], "phase": "reserve", "impulse": s["impulse"]})
    elif s["impulse"] < 3:
        emit(
            em,
            "PhaseBegan",
            {"side": s["side"], "phase": "operations", "impulse": s["impulse"] + 1},
        )
    else:
        end_player_phase(em, dice)


def end_player_phase(em: Emitter, dice: Dice) -> None:
    s = em.state
    if s["side"] == tables.game()["first_player"]:
        begin_admin(em, board.other(s["side"]), dice)
    else:
        final_segment(em)


def final_segment(em: Emitter) -> None:
    """16: the Nationalist wins on taking Bilbao and reaching the limit with Santander (1702,
    1803, 1903) by the end of IV June 1937; otherwise the Republican wins."""
    s = em.state
    special = s["special"]
    bilbao = s["control"].get(special["bilbao"]) == "nationalist"
    reached = sorted(
        h for h in special["santander_limit"] if h in board.occupied_by(s, "nationalist")
    )
    wins = bilbao and bool(reached)
    emit(
        em,
        "VictoryChecked",
        {
            "turn": s["turn"],
            "bilbao_taken": bilbao,
            "limit_reached": reached,
            "nationalist_wins": wins,
        },
    )
    if wins:
        emit(
            em,
            "GameEnded",
            {
                "winner": "nationalist",
                "outcome": "win",
                "level": "Nationalist victory",
                "rule": "16",
                "turn": s["turn"],
            },
        )
    elif s["turn"] >= s["turns"]:
        emit(
            em,
            "GameEnded",
            {
                "winner": "republican",
                "outcome": "win",
                "level": "Republican victory",
                "rule": "16",
                "turn": s["turn"],
            },
        )
    else:
        emit(em, "TurnBegan", {"turn": s["turn"] + 1})
