"""``combat_preview``: a shot described as a situation (no game needed): range, the score needed,
every modifier with its heading, or the 2d6 KO numbers against an AFV; with rolls, the results."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from service.rules.barcelona import data, shooting
from service.rules.base import InvalidCommand

FACTS = ("cover", "works", "skilled_stationary_open", "moved_into_contact")


def situation_preview(situation: Mapping[str, Any]) -> dict[str, Any]:
    problems: dict[str, list[str]] = {}
    weapons = data.load("weapons")["weapons"]
    weapon = situation.get("weapon")
    if weapon not in weapons:
        problems["weapon"] = [f"one of {', '.join(weapons)}"]
    distance = situation.get("distance")
    if isinstance(distance, bool) or not isinstance(distance, int | float) or distance < 0:
        problems["distance"] = ["inches, a number >= 0"]
    target = situation.get("target", {})
    if not isinstance(target, Mapping) or target.get("kind", "figures") not in (
        "figures",
        "soft_vehicle",
        "afv",
    ):
        problems["target.kind"] = ["figures, soft_vehicle or afv"]
        target = {}
    elif target.get("kind") == "afv" and target.get("class") not in ("A", "B"):
        problems["target.class"] = ["A or B"]
    rolls = situation.get("rolls", [])
    if not isinstance(rolls, list) or not all(isinstance(r, int) and 1 <= r <= 6 for r in rolls):
        problems["rolls"] = ["a list of d6 values"]
    if problems:
        raise InvalidCommand("invalid situation", problems)
    spec = data.weapon(str(weapon))
    afv = target.get("kind") == "afv"
    reach = spec.get("range_vs_afv", spec["range"]) if afv else spec["range"]
    out: dict[str, Any] = {"weapon": weapon, "range": reach, "in_range": distance <= reach}
    ko = shooting.afv_ko(str(weapon), target["class"]) if afv and spec["afv"] != "none" else None
    if afv and spec["afv"] == "none":
        out["refused"] = f"{weapon} cannot harm an AFV (AFV rules)"
        return out
    if ko is not None:
        bonus = int(situation.get("vs_afv_bonus", 0)) if spec["afv"] == "hmg" else 0
        out.update(mode="afv_2d6", ko=ko, bonus=bonus, rule="AFVs")
        pairs = [rolls[i : i + 2] for i in range(0, len(rolls) - 1, 2)]
        out["results"] = [
            {"rolls": p, "total": sum(p) + bonus, "ko": sum(p) + bonus in ko or sum(p) + bonus > 12}
            for p in pairs
        ]
        return out
    facts = {k: bool(target.get(k)) for k in FACTS}
    facts["over_half_range"] = distance > reach / 2
    facts["firer_moved"] = bool(situation.get("firer_moved"))
    facts["soft_vehicle"] = target.get("kind") == "soft_vehicle"
    mods = shooting.modifiers(str(weapon), facts)
    need = shooting.needed(str(weapon), facts)
    total = sum(m["value"] for m in mods)
    out.update(mode="afv_gun" if afv else "d6", needed=need, modifiers=mods, modifier_total=total)
    out["results"] = [{"roll": r, "modified": r + total, "hit": r + total >= need} for r in rolls]
    return out
