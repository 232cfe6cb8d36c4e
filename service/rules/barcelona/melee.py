"""CLOSE COMBAT: removal of units with two morale failures, the defender's shooting, then a d6 for
each figure with the printed modifiers; figures losing by 2 or more are removed."""

from __future__ import annotations

from typing import Any

from service.rules.barcelona import data, shooting
from service.rules.barcelona import geometry as geo
from service.rules.barcelona import table as tb
from service.rules.base import Dice, RulesEvent, State

RULE = "CLOSE COMBAT"


def pairs(state: State) -> list[tuple[str, str]]:
    """Units of figures in contact, each fighting once: (attacker, defender), the attacker being
    the unit that moved into contact, else the unit of the scenario's attacking side."""
    found: list[tuple[str, str]] = []
    busy: set[str] = set()
    first = state["attacker"]
    ordered = sorted(tb.on_table(state), key=lambda u: (u["side"] != first, u["id"]))
    for u in ordered:
        if u["id"] in busy or not tb.has_figures(u):
            continue
        for enemy_id in tb.contacts(state, u):
            enemy = tb.unit(state, enemy_id)
            if enemy_id in busy or not tb.has_figures(enemy):
                continue
            attacker, defender = (enemy, u) if u["id"] in enemy["contacted"] else (u, enemy)
            found.append((attacker["id"], defender["id"]))
            busy |= {u["id"], enemy_id}
            break
    return found


def fighter_modifiers(
    state: State, me: tb.Unit, foe: tb.Unit, attacking: bool
) -> list[dict[str, Any]]:
    found = []
    if attacking and tb.behind_defences(state, foe):
        found.append(
            {"modifier": "fighting to cross defences (not trench)", "value": -1, "rule": RULE}
        )
    if me["kind"] == "cavalry" and tb.is_foot(foe) and tb.in_open(state, foe):
        found.append({"modifier": "cavalry vs foot in the open", "value": 1, "rule": RULE})
    if {"ferocious", "stubborn"} & set(me["attributes"]):
        found.append({"modifier": "ferocious or stubborn", "value": 1, "rule": RULE})
    return found


def bouts(
    dice: Dice, a: tb.Unit, d: tb.Unit, mods: dict[str, int]
) -> tuple[list[dict[str, Any]], dict[str, int]]:
    """Every figure rolls a d6.  Figures pair off; the larger side's spare figures fight as second
    figures against single opponents (+2).  A figure losing by 2 or more is removed."""
    big, small = (a, d) if a["figures"] >= d["figures"] else (d, a)
    n_small = small["figures"]
    n_big = min(big["figures"], 2 * n_small)
    small_rolls = [dice.roll(6, f"close combat {small['id']}").as_dict() for _ in range(n_small)]
    big_rolls = [dice.roll(6, f"close combat {big['id']}").as_dict() for _ in range(n_big)]
    lost_small: set[int] = set()
    lost_big = 0
    out = []
    for k, roll in enumerate(big_rolls):
        j = k % n_small
        second = k >= n_small
        b_total = roll["value"] + mods[big["id"]] + (2 if second else 0)
        s_total = small_rolls[j]["value"] + mods[small["id"]]
        loser = (
            big["id"] if s_total - b_total >= 2 else small["id"] if b_total - s_total >= 2 else None
        )
        if loser == big["id"]:
            lost_big += 1
        elif loser == small["id"]:
            lost_small.add(j)
        out.append(
            {
                big["id"]: roll,
                small["id"]: small_rolls[j],
                "second_figure": second,
                "totals": {big["id"]: b_total, small["id"]: s_total},
                "loser": loser,
            }
        )
    return out, {big["id"]: lost_big, small["id"]: len(lost_small)}


def resolve(state: State, attacker_id: str, defender_id: str, dice: Dice) -> RulesEvent:
    a, d = tb.unit(state, attacker_id), tb.unit(state, defender_id)
    facts: dict[str, Any] = {
        "attacker": a["id"],
        "defender": d["id"],
        "removed": [],
        "shooting": None,
    }
    facts["removed"] = [u["id"] for u in (a, d) if u["failures"] >= 2]
    if facts["removed"]:
        facts["removed_because"] = "unit with 2 morale failures in close combat (MORALE)"
        return RulesEvent("CloseCombatResolved", facts)
    figures = {a["id"]: a["figures"], d["id"]: d["figures"]}
    arc = geo.off_angle(d["facing"], tb.where(d), tb.where(a))
    may_shoot = d["id"] in a["contacted"] and not d["moved"] and arc <= data.house("shooting_angle")
    facts["defender_may_shoot"] = {
        "contacted_this_turn": d["id"] in a["contacted"],
        "moved": d["moved"],
        "angle": round(arc, 1),
        "allowed": may_shoot,
    }
    weapon = "Bombs" if d["bombs"] else d["weapons"][0]
    if d["kind"] == "team" and data.weapon(weapon).get("needs_setup") and not d["set_up"]:
        may_shoot = False
    facts["defender_may_shoot"]["allowed"] = may_shoot
    if may_shoot:
        shooter = {**d, "step_figures": d["figures"]}
        n = shooting.max_dice(shooter, weapon)
        if data.weapon(weapon).get("separate_targets"):
            n = min(n, a["figures"])
        if n > 0 and not shooting.assess(state, shooter, weapon, a)["refused"]:
            shot = shooting.resolve(
                state, shooter, weapon, [{"unit": a["id"], "dice": n, "figure": 0}], dice
            )
            facts["shooting"] = shot
            figures[a["id"]] -= shot["casualties"].get(a["id"], 0)
    if figures[a["id"]] <= 0 or figures[d["id"]] <= 0:
        return RulesEvent("CloseCombatResolved", facts)
    mods_a = fighter_modifiers(state, a, d, True)
    mods_d = fighter_modifiers(state, d, a, False)
    totals = {a["id"]: sum(m["value"] for m in mods_a), d["id"]: sum(m["value"] for m in mods_d)}
    fought_a = {**a, "figures": figures[a["id"]]}
    fought_d = {**d, "figures": figures[d["id"]]}
    result, lost = bouts(dice, fought_a, fought_d, totals)
    facts.update(
        modifiers={a["id"]: mods_a, d["id"]: mods_d},
        figures=figures,
        bouts=result,
        casualties={k: v for k, v in lost.items() if v},
    )
    return RulesEvent("CloseCombatResolved", facts)
