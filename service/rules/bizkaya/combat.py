"""13 (with 6, 8 and the TEC): the combat of a situation -- factors, ratio, modifiers with their
rules and, given the dice, the CRT result and the intensity losses.  The attack command builds the
same situation from the board, so the preview and the game read one implementation::

    {"attacker_side": "nationalist",
     "attackers": [{"id": "a", "attack": 6, "morale": 3, "steps": 3, "max_steps": 3,
                    "out_of_supply": false, "demoralized": false}],
     "defenders": [{"id": "d", "defence": 3, "morale": 2, "demoralized": false, ...}],
     "attacker_leader": "a", "defender_leader": "d",      # default: the best morale that may lead
     "attacker_euphoric": false, "defender_euphoric": false,
     "euphoria_doubling": "any_difference",               # the game option (6), or "in_its_favour"
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
from service.rules.declare import Commands, Count, Flag, Nested, Number, Text

SIDES = ("nationalist", "republican")
#: the readings of 6's euphoria (knowledge-base entry bizkaya:conflict-euphoria-doubling): the
#: leaders' morale difference doubled whichever side it favours, or only in the euphoric side's
EUPHORIA_DOUBLING = ("any_difference", "in_its_favour")


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


def _unit_fields(factor: str) -> dict[str, Any]:
    optional = {"attack", "defence"} - {factor}
    return {
        "id": Text(required=False),
        factor: Count(),
        "morale": Count(),
        "steps": Count(required=False, minimum=1),
        "max_steps": Count(required=False, minimum=1),
        "out_of_supply": Flag(required=False),
        "demoralized": Flag(required=False),
        **{name: Count(required=False) for name in optional},
    }


#: the situations a preview may be asked about, declared like commands: a malformed one is an
#: InvalidCommand naming each field
SITUATIONS = Commands("bizkaya situations")


@SITUATIONS.command(
    "attack",
    attacker_side=Text(required=False, choices=SIDES),
    attackers=Nested(_unit_fields("attack"), many=True),
    defenders=Nested(_unit_fields("defence"), many=True),
    attacker_leader=Text(required=False),
    defender_leader=Text(required=False),
    attacker_euphoric=Flag(required=False),
    defender_euphoric=Flag(required=False),
    euphoria_doubling=Text(required=False, choices=EUPHORIA_DOUBLING),
    leaders=Nested(
        {"attacker": Count(required=False), "defender": Count(required=False)}, required=False
    ),
    terrain=Text(required=False, choices=tuple(tables.terrain()["combat_modifier"])),
    city=Flag(required=False),
    dice=Nested({side: Count(minimum=1, maximum=6) for side in SIDES}, required=False),
)
def _attack_situation(state: Any, side: str, situation: Mapping[str, Any], dice: Any) -> list:
    return []


@SITUATIONS.command(
    "barrage",
    factors=Number(minimum=0),
    entrenched=Flag(required=False),
    air=Flag(required=False),
    roll=Count(required=False, minimum=1, maximum=6),
)
def _barrage_situation(state: Any, side: str, situation: Mapping[str, Any], dice: Any) -> list:
    return []


def parse(kind: str, situation: Any) -> dict[str, Any]:
    """The typed situation, or InvalidCommand naming each bad field."""
    try:
        _spec, loaded = SITUATIONS.parse({}, {**situation, "type": kind})
    except InvalidCommand as exc:
        raise InvalidCommand(f"invalid {kind} situation", exc.details) from None
    del loaded["type"]
    return loaded


def assess(situation: Any) -> dict[str, Any]:
    r"""An attack situation as a client gives it: checked, then :func:`evaluate`\ d."""
    loaded = parse("attack", situation)
    empty = {k: ["a non-empty list of units is required"] for k in SIDES_OF if not loaded[k]}
    if empty:
        raise InvalidCommand("invalid combat situation", empty)
    return evaluate(loaded)


SIDES_OF = ("attackers", "defenders")


def evaluate(situation: Mapping[str, Any]) -> dict[str, Any]:
    """The combat of a well-formed situation (the board's own, or a checked one)."""
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
    # 6: the game option euphoria_doubling -- the difference doubled whichever side it favours (the
    # text as written), or only when it favours the euphoric side
    in_its_favour = (difference > 0) == a_euph
    doubled = situation.get("euphoria_doubling", "any_difference") == "any_difference"
    if difference and a_euph != d_euph and (doubled or in_its_favour):
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


def assess_barrage(situation: Any) -> dict[str, Any]:
    """12: ``{"factors": 14, "entrenched": true, "air": false, "roll": 5}`` -> column, modifiers
    and, with ``roll``, the result."""
    loaded = parse("barrage", {k: v for k, v in situation.items() if k != "kind"})
    factors, roll = loaded["factors"], loaded.get("roll")
    column = tables.barrage_column(float(factors))
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
