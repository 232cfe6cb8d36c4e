"""Rule 8 and the Terrain Effects Chart: combat strengths, odds, die modifiers and the CRT lookup.

Works on a *situation*, the JSON the combat preview takes and the one ``attack`` builds from the
board, so both read the same rules::

    {"attackers": [{"type": "infantry", "strength": 4, "out_of_supply": false}, ...],
     "defenders": [{"type": "infantry", "strength": 3, "out_of_supply": false,
                    "strategic_moved": false}, ...],
     "terrain": "clear" | "mountain",  "settlement": null | "town" | "city",
     "across_river": false,           # every attacker attacks across a river hexside
     "attacker_air": 0, "defender_air": 0,   # air points that survived their loss roll
     "strategic_modifier": 2,        # the scenario option (rule 8 +2, or rule 5 -2)
     "roll": 4}                      # optional: the die (1-6)

Leaders are units of type ``leader`` whose ``strength`` is the value they add (rule 2).
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from typing import Any

from marshmallow import EXCLUDE, Schema, fields, validate

from service.rules.base import InvalidCommand
from service.rules.kernel.odds import Odds, OddsColumns
from service.rules.merida import data

UNIT_TYPES = ("infantry", "cavalry", "artillery", "armor", "leader", "guerrilla", "train")
TERRAINS = ("clear", "mountain")
SETTLEMENTS = ("town", "city")
MIN_ROW, MAX_ROW = 0, 7


def odds(attack: Fraction, defence: Fraction) -> Odds:
    """Rule 8: the ratio rounded down in the defender's favour; worse than 1-4 is 1-4, better than
    6-1 is 6-1 (Combat Results notes)."""
    return OddsColumns(data.crt_columns()).odds(float(attack), float(defence), below_min="first")


_UNIT: dict[str, fields.Field] = {
    "type": fields.String(required=True, validate=validate.OneOf(UNIT_TYPES)),
    "strength": fields.Float(required=True, allow_nan=False, validate=validate.Range(min=0)),
    "out_of_supply": fields.Boolean(truthy={True}, falsy={False}),
    "strategic_moved": fields.Boolean(truthy={True}, falsy={False}),
}


def _units() -> fields.Field:
    unit = Schema.from_dict(_UNIT, name="CombatUnit")(unknown=EXCLUDE)
    return fields.List(fields.Nested(unit), required=True, validate=validate.Length(min=1))


SITUATION = Schema.from_dict(
    {
        "attackers": _units(),
        "defenders": _units(),
        "terrain": fields.String(validate=validate.OneOf(TERRAINS)),
        "settlement": fields.String(allow_none=True, validate=validate.OneOf(SETTLEMENTS)),
        "across_river": fields.Boolean(truthy={True}, falsy={False}),
        "attacker_air": fields.Integer(strict=True, validate=validate.Range(min=0)),
        "defender_air": fields.Integer(strict=True, validate=validate.Range(min=0)),
        "strategic_modifier": fields.Integer(strict=True, validate=validate.OneOf((2, -2))),
        "roll": fields.Integer(strict=True, allow_none=True, validate=validate.Range(min=1, max=6)),
    },
    name="CombatSituation",
)(unknown=EXCLUDE)


def _flat(messages: Mapping[Any, Any], prefix: str = "") -> dict[str, list[str]]:
    """Marshmallow's nested messages as ``{"attackers[0].type": [reasons]}``."""
    out: dict[str, list[str]] = {}
    for key, value in messages.items():
        if key == "_schema":
            name = prefix or "situation"
        elif str(key).isdigit():
            name = f"{prefix}[{key}]"
        else:
            name = f"{prefix}.{key}" if prefix else str(key)
        if isinstance(value, Mapping):
            out.update(_flat(value, name))
        else:
            out.setdefault(name, []).extend(value)
    return out


def validate_situation(situation: Mapping[str, Any]) -> None:
    """Raise InvalidCommand with ``{field: [reasons]}`` for a malformed situation."""
    problems = _flat(SITUATION.validate(situation))
    if not problems:
        kinds = [u["type"] for u in situation["attackers"]]
        if "armor" in kinds and all(kind in ("armor", "leader") for kind in kinds):
            problems["attackers"] = ["tanks may not attack by themselves (rule 2)"]
    if problems:
        raise InvalidCommand("invalid combat situation", problems)


def _strength(unit: Mapping[str, Any]) -> Fraction:
    value = Fraction(unit["strength"]).limit_denominator(1000)
    return value / 2 if unit.get("out_of_supply") else value  # rule 10


def assess(situation: Mapping[str, Any]) -> dict[str, Any]:
    """Strengths, odds column and die modifiers, each with the rule it comes from; with ``roll``
    also the modified roll and the CRT result."""
    validate_situation(situation)
    notes: list[dict[str, str]] = []
    attack = sum((_strength(u) for u in situation["attackers"]), Fraction(0))
    defence = sum((_strength(u) for u in situation["defenders"]), Fraction(0))
    if any(u.get("out_of_supply") for u in situation["attackers"]):
        notes.append({"cause": "attacker out of supply: halved", "rule": "10"})
    if any(u.get("out_of_supply") for u in situation["defenders"]):
        notes.append({"cause": "defender out of supply: halved", "rule": "10"})
    doubled = []
    if situation.get("settlement") == "city":
        doubled.append("city")
    if situation.get("terrain") == "mountain":
        doubled.append("mountain")
    if situation.get("across_river"):
        doubled.append("attacked exclusively across river")
    if doubled:
        defence *= 2
        notes.append({"cause": "defender doubled: " + ", ".join(doubled), "rule": "TEC"})
    attack += situation.get("attacker_air", 0)
    defence += situation.get("defender_air", 0)
    if situation.get("attacker_air") or situation.get("defender_air"):
        notes.append({"cause": "air units add 1 strength point each", "rule": "8"})
    found = odds(attack, defence)
    column = str(found.label)
    modifiers = modifiers_for(situation)
    assessment: dict[str, Any] = {
        "attack_strength": _number(attack),
        "defense_strength": _number(defence),
        "column": column,
        "odds": found.as_dict(),
        "strength_effects": notes,
        "modifiers": modifiers,
        "modifier_total": sum(m["value"] for m in modifiers),
    }
    if situation.get("roll") is not None:
        assessment.update(resolve(column, situation["roll"], assessment["modifier_total"]))
    return assessment


def modifiers_for(situation: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Rule 8 die modifiers: +1 attacking armor, -1 defending armor (one effect a side, rule 2),
    the strategic-movement modifier, -1 for a defender in a town (TEC)."""
    modifiers: list[dict[str, Any]] = []
    if any(u["type"] == "armor" for u in situation["attackers"]):
        modifiers.append({"cause": "attacking armor", "value": 1, "rule": "8"})
    if any(u["type"] == "armor" for u in situation["defenders"]):
        modifiers.append({"cause": "defending armor", "value": -1, "rule": "8"})
    if any(u.get("strategic_moved") for u in situation["defenders"]):
        value = situation.get("strategic_modifier", 2)
        modifiers.append(
            {
                "cause": "defender moved by strategic movement in the previous phase",
                "value": value,
                "rule": "8" if value == 2 else "5",
            }
        )
    if situation.get("settlement") == "town":
        modifiers.append({"cause": "defender in a town", "value": -1, "rule": "TEC"})
    return modifiers


def resolve(column: str, roll: int, modifier: int) -> dict[str, Any]:
    modified = max(MIN_ROW, min(MAX_ROW, roll + modifier))
    result = data.crt_result(column, modified)
    return {
        "roll": roll,
        "modified_roll": modified,
        "result": result,
        "effect": data.crt_effect(result),
    }


def _number(value: Fraction) -> int | float:
    return int(value) if value.denominator == 1 else float(value)
