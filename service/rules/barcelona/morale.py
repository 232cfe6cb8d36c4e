"""MORALE: a test for each cause in a move (a turn), failing on a roll over the morale rating; the
casualty thresholds by unit size at the start of the turn; first-time causes; ignored first tests;
the three failures and their effects; and the rallying placeholder."""

from __future__ import annotations

from typing import Any

from service.rules.barcelona import data
from service.rules.barcelona import geometry as geo
from service.rules.barcelona import table as tb
from service.rules.base import Dice, RulesEvent, State

RULE = "MORALE"


def threshold(size: int) -> int:
    """Casualties this turn that cause a test, by unit size at the start of the turn."""
    for row in data.load("morale")["casualty_thresholds"]:
        if row.get("min_size", 0) <= size <= row.get("max_size", size):
            return int(row["casualties"])
    raise ValueError(size)


def causes(state: State, u: tb.Unit) -> list[dict[str, Any]]:
    found = []
    if u["casualties"] and u["casualties"] >= threshold(u["start_figures"]):
        found.append(
            {
                "cause": f"casualties: {u['casualties']} on a unit of {u['start_figures']}",
                "first": None,
            }
        )
    for source in ("artillery", "aircraft"):
        if source in u["sources"] and source not in u["tested"]:
            found.append(
                {"cause": f"first time suffering casualties from {source}", "first": source}
            )
    if "afv" not in u["tested"] and _near_afv(state, u):
        found.append({"cause": 'first time within 8" of AFVs', "first": "afv"})
    if u["cavalry_contact"]:
        found.append({"cause": "foot in open contacted by cavalry", "first": None})
    return found


def _near_afv(state: State, u: tb.Unit) -> bool:
    reach = data.load("morale")["afv_distance"]
    mine = tb.figures_of(u)
    for v in tb.on_table(state, tb.other(state, u["side"])):
        if not tb.is_afv(v):
            continue
        if v["vehicle_kind"] == "armoured_car" and not tb.in_open(state, u):
            continue
        if geo.nearest(mine, [tb.where(v)]) <= reach + 1e-9:
            return True
    return False


def ignores_first(u: tb.Unit) -> str | None:
    """Advancing ferocious, defending stubborn, advancing cavalry ignore first test in any move."""
    if "ferocious" in u["attributes"] and u["advanced"]:
        return "advancing ferocious"
    if "stubborn" in u["attributes"] and not u["moved"]:
        return "defending stubborn"
    if u["kind"] == "cavalry" and u["advanced"]:
        return "advancing cavalry"
    return None


def test(state: State, u: tb.Unit, dice: Dice) -> RulesEvent | None:
    found = causes(state, u)
    if not found:
        return None
    failures = u["failures"]
    ignore = ignores_first(u)
    tests = []
    for i, cause in enumerate(found):
        line: dict[str, Any] = {"cause": cause["cause"], "morale": u["morale"]}
        if i == 0 and ignore:
            line.update(ignored=ignore)
        else:
            die = dice.roll(6, f"morale {u['id']}").as_dict()
            failed = die["value"] > u["morale"]
            failures += failed
            line.update(die=die, failed=failed)
        tests.append(line)
    effects = data.load("morale")["effects"]
    return RulesEvent(
        "MoraleTested",
        {
            "unit": u["id"],
            "side": u["side"],
            "tests": tests,
            "failures_before": u["failures"],
            "failures": failures,
            "effect": effects.get(str(min(failures, 3))) if failures > u["failures"] else None,
            "removed": failures >= 3,
            "first": [c["first"] for c in found if c["first"]],
        },
    )


def rally(state: State, u: tb.Unit, dice: Dice) -> RulesEvent | None:
    """Placeholder (house.json ``rally``): the sheet names a rallying phase without its rule."""
    if not u["failures"] or u["casualties"] or tb.contacts(state, u):
        return None
    die = dice.roll(6, f"rally {u['id']}").as_dict()
    rallied = die["value"] <= u["morale"]
    return RulesEvent(
        "Rallied",
        {
            "unit": u["id"],
            "side": u["side"],
            "die": die,
            "rallied": rallied,
            "placeholder": True,
            "failures": u["failures"] - 1 if rallied else u["failures"],
        },
    )
