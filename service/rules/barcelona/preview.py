"""The previews capability: a shot in a game before it is sent (``preview``), and a shot described
as a situation with no game (``combat_preview``): range, the score needed, every modifier with its
heading, or the 2d6 KO numbers against an AFV; with rolls, the results."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from marshmallow import fields

from service.rules.barcelona import data, shooting
from service.rules.barcelona.table import UnitRefs
from service.rules.base import Dice, InvalidCommand, RulesEvent, State
from service.rules.declare import Commands, Count, Flag, Nested, Number, Text, Unit

FACTS = ("cover", "works", "skilled_stationary_open", "moved_into_contact")
TARGET_KINDS = ("figures", "soft_vehicle", "afv")


def weapon_names() -> list[str]:
    return list(data.load("weapons")["weapons"])


#: what a preview reads, declared as commands so that a malformed one names its field
ASKED = Commands("barcelona previews", refs=UnitRefs())


@ASKED.command(
    "shoot",
    unit=Unit(),
    weapon=Text(choices=weapon_names()),
    targets=Nested(
        {"unit": Text(), "dice": Count(required=False), "figure": Count(required=False)},
        many=True,
        required=False,
    ),
)
@ASKED.command(
    "situation",
    weapon=Text(choices=weapon_names()),
    distance=Number(minimum=0),
    target=Nested(
        {
            "kind": Text(required=False, choices=TARGET_KINDS),
            "class": Text(required=False, choices=["A", "B"]),
            **{k: Flag(required=False) for k in FACTS},
        },
        required=False,
    ),
    rolls=fields.List(Count(minimum=1, maximum=6), required=False),
    firer_moved=Flag(required=False),
    vs_afv_bonus=Count(required=False, minimum=-12, maximum=12),
)
def _asked(state: State, side: str, command: Mapping[str, Any], dice: Dice) -> list[RulesEvent]:
    return []  # pragma: no cover - a preview is parsed, never decided


class BarcelonaPreviews:
    commands = frozenset({"shoot"})

    def preview(self, state: State, side: str, command: Mapping[str, Any]) -> dict[str, Any]:
        _, shot = ASKED.parse(state, {**command, "type": "shoot"})
        return shooting.preview(state, side, shot)

    def combat_preview(self, situation: Mapping[str, Any]) -> dict[str, Any]:
        _, given = ASKED.parse({}, {**situation, "type": "situation"})
        target = given.get("target", {})
        if target.get("kind") == "afv" and "class" not in target:
            raise InvalidCommand("invalid situation", {"target.class": ["A or B"]})
        return situation_preview(given)


def situation_preview(given: Mapping[str, Any]) -> dict[str, Any]:
    weapon, distance, rolls = given["weapon"], given["distance"], given.get("rolls", [])
    target = given.get("target", {})
    spec = data.weapon(weapon)
    afv = target.get("kind") == "afv"
    reach = spec.get("range_vs_afv", spec["range"]) if afv else spec["range"]
    out: dict[str, Any] = {"weapon": weapon, "range": reach, "in_range": distance <= reach}
    if afv and spec["afv"] == "none":
        out["refused"] = f"{weapon} cannot harm an AFV (AFV rules)"
        return out
    ko = shooting.afv_ko(weapon, target["class"]) if afv else None
    if ko is not None:
        bonus = given.get("vs_afv_bonus", 0) if spec["afv"] == "hmg" else 0
        out.update(mode="afv_2d6", ko=ko, bonus=bonus, rule="AFVs")
        pairs = [sum(rolls[i : i + 2]) + bonus for i in range(0, len(rolls) - 1, 2)]
        out["results"] = [
            {"rolls": rolls[2 * i : 2 * i + 2], "total": t, "ko": t in ko or t > 12}
            for i, t in enumerate(pairs)
        ]
        return out
    facts = {k: bool(target.get(k)) for k in FACTS}
    facts["over_half_range"] = distance > reach / 2
    facts["firer_moved"] = bool(given.get("firer_moved"))
    facts["soft_vehicle"] = target.get("kind") == "soft_vehicle"
    mods = shooting.modifiers(weapon, facts)
    need = shooting.needed(weapon, facts)
    total = sum(m["value"] for m in mods)
    out.update(mode="afv_gun" if afv else "d6", needed=need, modifiers=mods, modifier_total=total)
    out["results"] = [{"roll": r, "modified": r + total, "hit": r + total >= need} for r in rolls]
    return out
