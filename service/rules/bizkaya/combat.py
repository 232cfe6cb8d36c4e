"""13 (with 6, 8 and the TEC): the combat of a situation -- factors, ratio, modifiers with their
rules and, given the dice, the CRT result and the intensity losses.  The attack command builds the
same situation from the board, so the preview and the game read one implementation::

    {"attacker_side": "nationalist",
     "attackers": [{"id": "a", "attack": 6, "morale": 3, "steps": 3, "max_steps": 3,
                    "out_of_supply": false, "demoralized": false}],
     "defenders": [{"id": "d", "defence": 3, "morale": 2, "demoralized": false, ...}],
     "attacker_leader": "a", "defender_leader": "d",      # default: the best morale that may lead
     "attacker_euphoric": false, "defender_euphoric": false,
     "leaders": {"attacker": 0, "defender": 0},           # Garcia Valino / Alonso Vega present (8)
     "terrain": "forest", "city": false,
     "dice": {"nationalist": 5, "republican": 5}}         # optional
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from typing import Any

from service.rules.base import InvalidCommand
from service.rules.bizkaya import tables

SIDES = ("nationalist", "republican")


def _number(value: Fraction) -> int | float:
    return int(value) if value.denominator == 1 else float(value)


def _factor(unit: Mapping[str, Any], name: str) -> Fraction:
    value = Fraction(unit[name])
    steps, full = unit.get("steps", 1), unit.get("max_steps", unit.get("steps", 1))
    if steps < full:
        value = Fraction(-((-unit[name] * steps) // full))
    return value / 2 if unit.get("out_of_supply") else value


def may_lead(units: list[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """6: a demoralized unit may not lead while a unit that is not demoralized is there."""
    fresh = [u for u in units if not u.get("demoralized")]
    return fresh or list(units)


def _leader(
    units: list[Mapping[str, Any]], chosen: Any, place: str, problems: dict
) -> Mapping[str, Any] | None:
    if not units:
        return None
    eligible = may_lead(units)
    if chosen is None:
        return max(eligible, key=lambda u: u["morale"])
    for unit in eligible:
        if unit.get("id") == chosen:
            return unit
    problems[place] = [
        f"{chosen!r} may not lead this combat (6: {', '.join(str(u.get('id')) for u in eligible)})"
    ]
    return None


def _validate_units(situation: Mapping[str, Any], key: str, factor: str, problems: dict) -> list:
    units = situation.get(key)
    if not isinstance(units, list) or not units:
        problems[key] = ["a non-empty list of units is required"]
        return []
    for index, unit in enumerate(units):
        if not isinstance(unit, Mapping):
            problems[f"{key}[{index}]"] = ["must be an object"]
            continue
        for name in (factor, "morale"):
            value = unit.get(name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                problems[f"{key}[{index}].{name}"] = ["must be an integer >= 0"]
    return [u for u in units if isinstance(u, Mapping)]


def validate(situation: Mapping[str, Any]) -> None:
    if not isinstance(situation, Mapping):
        raise InvalidCommand("the situation must be an object", {"situation": ["not an object"]})
    problems: dict[str, list[str]] = {}
    _validate_units(situation, "attackers", "attack", problems)
    _validate_units(situation, "defenders", "defence", problems)
    if situation.get("attacker_side", "nationalist") not in SIDES:
        problems["attacker_side"] = [f"must be one of {', '.join(SIDES)}"]
    known = tables.terrain()["combat_modifier"]
    if situation.get("terrain", "clear") not in known:
        problems["terrain"] = [f"must be one of {', '.join(known)}"]
    dice = situation.get("dice")
    if dice is not None and (
        not isinstance(dice, Mapping)
        or any(isinstance(dice.get(s), bool) or dice.get(s) not in range(1, 7) for s in SIDES)
    ):
        problems["dice"] = ['must be {"nationalist": 1-6, "republican": 1-6}']
    if problems:
        raise InvalidCommand("invalid combat situation", problems)


def assess(situation: Mapping[str, Any]) -> dict[str, Any]:
    validate(situation)
    problems: dict[str, list[str]] = {}
    attackers = list(situation["attackers"])
    defenders = list(situation["defenders"])
    if any(u.get("demoralized") for u in attackers):
        problems["attackers"] = ["demoralized units cannot attack (6)"]
    a_leader = _leader(attackers, situation.get("attacker_leader"), "attacker_leader", problems)
    d_leader = _leader(defenders, situation.get("defender_leader"), "defender_leader", problems)
    if problems:
        raise InvalidCommand("invalid combat situation", problems)
    assert a_leader is not None and d_leader is not None
    attack = sum((_factor(u, "attack") for u in attackers), Fraction(0))
    defence = sum((_factor(u, "defence") for u in defenders), Fraction(0))
    odds = tables.odds(float(attack), float(defence))
    modifiers = modifiers_for(situation, a_leader, d_leader)
    total = sum(m["value"] for m in modifiers)
    out: dict[str, Any] = {
        "attack": _number(attack),
        "defence": _number(defence),
        "column": odds.label,
        "odds": odds.as_dict(),
        "attacker_leader": a_leader.get("id"),
        "defender_leader": d_leader.get("id"),
        "modifiers": modifiers,
        "modifier_total": total,
        "halved": [u.get("id") for u in attackers + defenders if u.get("out_of_supply")],
    }
    dice = situation.get("dice")
    if dice is not None and odds.label is not None:
        out.update(resolve(situation, odds.label, total, dice, a_leader, d_leader))
    return out


def modifiers_for(
    situation: Mapping[str, Any], a_leader: Mapping[str, Any], d_leader: Mapping[str, Any]
) -> list[dict[str, Any]]:
    mods: list[dict[str, Any]] = []
    difference = a_leader["morale"] - d_leader["morale"]
    a_euph, d_euph = (
        bool(situation.get("attacker_euphoric")),
        bool(situation.get("defender_euphoric")),
    )
    if difference:
        mods.append({"cause": "morale of the leaders", "value": difference, "rule": "13"})
    if difference and a_euph != d_euph:
        who = "attacking" if a_euph else "defending"
        mods.append(
            {
                "cause": f"{who} stacks euphoric: morale difference doubled",
                "value": difference,
                "rule": "6",
            }
        )
    if any(u.get("demoralized") for u in situation["defenders"]):
        mods.append({"cause": "demoralized defender", "value": 1, "rule": "6"})
    leaders = situation.get("leaders") or {}
    if leaders.get("attacker"):
        mods.append(
            {
                "cause": "leader with the attacking stack",
                "value": int(leaders["attacker"]),
                "rule": "8",
            }
        )
    if leaders.get("defender"):
        mods.append(
            {
                "cause": "leader with the defending stack",
                "value": -int(leaders["defender"]),
                "rule": "8",
            }
        )
    terrain = situation.get("terrain", "clear")
    value = tables.terrain()["combat_modifier"][terrain]
    if value:
        mods.append({"cause": f"defender in {terrain}", "value": value, "rule": "TEC"})
    if situation.get("city") and terrain != "major_city":
        value = tables.terrain()["city_combat_modifier"]
        if value:
            mods.append({"cause": "defender in a population centre", "value": value, "rule": "TEC"})
    return mods


def resolve(
    situation: Mapping[str, Any],
    column: str,
    modifier: int,
    dice: Mapping[str, int],
    a_leader: Mapping[str, Any],
    d_leader: Mapping[str, Any],
) -> dict[str, Any]:
    """13: the two dice summed on the CRT; each side's die on the intensity table against the
    morale of the other side's leader."""
    attacker = situation.get("attacker_side", "nationalist")
    defender = SIDES[1] if attacker == SIDES[0] else SIDES[0]
    total = dice["nationalist"] + dice["republican"]
    lookup, code, shaded = tables.crt_lookup(column, total, modifier)
    return {
        "dice_total": total,
        "modified": lookup.modified,
        "row": lookup.used,
        "result": code,
        "shaded": shaded,
        "effect": tables.crt_effect(code),
        "attacker_losses": tables.intensity(dice[defender], a_leader["morale"]),
        "defender_losses": tables.intensity(dice[attacker], d_leader["morale"]),
    }


def assess_barrage(situation: Mapping[str, Any]) -> dict[str, Any]:
    """12: ``{"factors": 14, "entrenched": true, "air": false, "roll": 5}`` -> column, modifiers
    and, with ``roll``, the result."""
    problems: dict[str, list[str]] = {}
    factors = situation.get("factors")
    if isinstance(factors, bool) or not isinstance(factors, int | float) or factors < 0:
        problems["factors"] = ["must be a number >= 0"]
    roll = situation.get("roll")
    if roll is not None and (isinstance(roll, bool) or roll not in range(1, 7)):
        problems["roll"] = ["must be a die roll 1-6"]
    if problems:
        raise InvalidCommand("invalid barrage situation", problems)
    column = tables.barrage_column(float(factors))  # type: ignore[arg-type]
    if column is None:
        raise InvalidCommand(
            "too few factors for the Barrage Table", {"factors": ["below the first column (12)"]}
        )
    mods = barrage_modifiers(bool(situation.get("entrenched")), bool(situation.get("air")))
    total = sum(m["value"] for m in mods)
    out: dict[str, Any] = {
        "factors": factors,
        "column": column,
        "modifiers": mods,
        "modifier_total": total,
    }
    if roll is not None:
        lookup = tables.barrage_table().lookup(column, roll, total)
        out.update(
            roll=roll,
            modified=lookup.modified,
            result=lookup.result,
            effect=tables.barrage_effect(lookup.result),
        )
    return out


def barrage_modifiers(entrenched: bool, air: bool) -> list[dict[str, Any]]:
    table = tables.table("barrage")["modifiers"]
    mods = []
    if entrenched:
        mods.append(
            {"cause": "target entrenched", "value": table["entrenched"]["value"], "rule": "12"}
        )
    if air:
        mods.append(
            {
                "cause": "combined barrage with air units",
                "value": table["air"]["value"],
                "rule": "12",
            }
        )
    return mods
