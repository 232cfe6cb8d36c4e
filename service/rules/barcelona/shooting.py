"""SHOOTING, the WEAPONS LIST and the AFV rules: who may shoot, range from positions, dice per
figure, 4-6 hits, the listed modifiers, the artillery template, MG dice on separate targets,
saving throws, 2d6 KO numbers against AFVs, and aircraft."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from service.rules.barcelona import data
from service.rules.barcelona import geometry as geo
from service.rules.barcelona import table as tb
from service.rules.base import Dice, InvalidCommand, RulesEvent, RuleViolation, State

STEPS = ("off_table_artillery", "aa", "aircraft", "hmg", "artillery", "vehicles", "infantry")
RULE = "SHOOTING"
FIGURE_WEAPONS = ("Rifle", "Bombs")  # the figures' own weapons: one of them a turn


def modifiers(weapon: str, facts: Mapping[str, bool]) -> list[dict[str, Any]]:
    """The printed modifiers that apply, each with its text and heading."""
    spec = data.weapon(weapon)
    aircraft = spec.get("category") == "aircraft"
    found = []

    def add(text: str, value: int) -> None:
        found.append({"modifier": text, "value": value, "rule": RULE})

    if facts.get("over_half_range"):
        add("target over half range", -1)
    if facts.get("moved_into_contact"):
        add("target moved into contact with firers", -1)
    if facts.get("cover") and not spec.get("no_cover_modifier") and not aircraft:
        add("target in cover", -1)
    if facts.get("skilled_stationary_open"):
        add("target skilled troops stationary in open", -1)
    if facts.get("firer_moved") and not aircraft:
        add("firer moved (not aircraft)", -1)
    if facts.get("works") and not spec.get("no_trench_modifier") and not aircraft:
        add("target in trench or fortifications", -2)
    return found


def needed(weapon: str, facts: Mapping[str, bool]) -> int:
    """The unmodified score to hit: 4,5,6, or for aircraft their own line of the weapons list."""
    spec = data.weapon(weapon)
    if spec.get("category") != "aircraft":
        return 4
    table = spec["aircraft_to_hit"]
    if facts.get("soft_vehicle"):
        return int(table["soft_vehicle"])
    if facts.get("cover") or facts.get("works"):
        return int(table["cover"])
    return int(table["open"])


def afv_ko(weapon: str, vehicle_class: str) -> list[int] | None:
    """The 2d6 KO numbers against an AFV, or None for weapons that roll a d6 (guns)."""
    kind = data.weapon(weapon)["afv"]
    if kind not in ("bombs", "hmg"):
        return None
    return list(data.load("weapons")["afv_fire"][kind]["ko"][vehicle_class])


def facts_of(
    state: State, firer: tb.Unit, target: tb.Unit, weapon: str, distance: float
) -> dict[str, bool]:
    spec = data.weapon(weapon)
    reach = spec.get("range_vs_afv", spec["range"]) if tb.is_afv(target) else spec["range"]
    return {
        "over_half_range": distance > reach / 2,
        "moved_into_contact": firer["id"] in target["contacted"],
        "cover": tb.in_cover(state, target),
        "works": tb.in_works(state, target),
        "skilled_stationary_open": "skilled" in target["attributes"]
        and not target["moved"]
        and tb.in_open(state, target),
        "firer_moved": bool(firer["moved"]),
        "soft_vehicle": tb.is_vehicle(target) and not tb.is_afv(target),
    }


def step_of(u: tb.Unit, weapon: str) -> str:
    """A weapon's place in the shooting order: a vehicle's weapons fire with the vehicles."""
    return "vehicles" if u["kind"] == "vehicle" else str(data.weapon(weapon)["step"])


def max_dice(firer: tb.Unit, weapon: str) -> int:
    spec = data.weapon(weapon)
    figures = firer["step_figures"] if firer["step_figures"] is not None else firer["figures"]
    front = geo.front_rank(figures, firer["ranks"])
    if weapon == "Rifle":
        return max(0, front - firer["lmg"])
    if weapon == "Bombs":
        return front
    if weapon == "LMG":
        return int(spec["dice"]) * firer["lmg"]
    return int(spec["dice"])


def usable(state: State, u: tb.Unit, step: str | None = None) -> list[str]:
    """Weapons ``u`` may fire now (in ``step``): only vehicles, aircraft and infantry with bombs
    move and shoot; a starred AFV fires one weapon a move; team weapons without * need a turn to
    set up; the figures fire their rifles or their bombs, one rank only."""
    if u["status"] != "table" or not (u["step_figures"] or 0) > 0:
        return []
    if u["moved"] and not (u["kind"] in ("vehicle", "aircraft") or u["bombs"]):
        return []
    if u["one_weapon"] and u["fired"]:
        return []
    out = []
    for weapon in dict.fromkeys(u["weapons"]):
        spec = data.weapon(weapon)
        if step is not None and step_of(u, weapon) != step:
            continue
        if u["fired"].count(weapon) >= u["weapons"].count(weapon):
            continue
        if u["kind"] == "team" and spec.get("needs_setup") and not u["set_up"]:
            continue
        if weapon in FIGURE_WEAPONS and set(FIGURE_WEAPONS) & set(u["fired"]):
            continue
        if max_dice(u, weapon) > 0:
            out.append(weapon)
    return out


def assess(state: State, firer: tb.Unit, weapon: str, target: tb.Unit) -> dict[str, Any]:
    """Range and what a shot at ``target`` needs; ``refused`` names the reason it cannot be made."""
    spec = data.weapon(weapon)
    origin = [tb.where(firer)]
    distance = geo.nearest(origin, tb.figures_of(target))
    reach = spec.get("range_vs_afv", spec["range"]) if tb.is_afv(target) else spec["range"]
    out: dict[str, Any] = {
        "target": target["id"],
        "distance": round(distance, 2),
        "range": reach,
        "refused": None,
    }
    if target["side"] == firer["side"] or target["status"] != "table":
        out["refused"] = "not an enemy unit on the table"
    elif target["kind"] == "aircraft":
        out["refused"] = "no weapon on the list fires at aircraft"
    elif spec.get("only_vs_vehicles") and not tb.is_vehicle(target):
        out["refused"] = f"{weapon}: only vs vehicles"
    elif tb.is_afv(target) and spec["afv"] == "none":
        out["refused"] = f"{weapon} cannot harm an AFV (AFV rules)"
    elif distance > reach + 1e-9:
        out["refused"] = f'out of range: {distance:.2f}" > {reach}"'
    facts = facts_of(state, firer, target, weapon, distance)
    ko = afv_ko(weapon, target["class"]) if tb.is_afv(target) else None
    if ko is not None:
        bonus = firer["vs_afv_bonus"] if spec["afv"] == "hmg" else 0
        out.update(mode="afv_2d6", ko=ko, bonus=bonus, modifiers=[])
    else:
        mods = modifiers(weapon, facts)
        out.update(
            mode="afv_gun"
            if tb.is_afv(target)
            else "vehicle"
            if tb.is_vehicle(target)
            else "figures",
            needed=needed(weapon, facts),
            modifiers=mods,
            modifier_total=sum(m["value"] for m in mods),
        )
        if spec.get("template_ko") and not tb.is_afv(target):
            out["template_ko"] = list(spec["template_ko"])
    return out


def _check(
    state: State, side: str, command: Mapping[str, Any]
) -> tuple[tb.Unit, str, list[dict[str, Any]]]:
    firer, weapon = tb.unit(state, command["unit"]), command["weapon"]
    _may_fire(state, side, firer, weapon)
    cleaned = _targets(state, command["targets"])
    spec = data.weapon(weapon)
    most = max_dice(firer, weapon)
    if sum(t["dice"] for t in cleaned) > most:
        raise RuleViolation(
            RULE,
            f"{weapon} may use up to {most} d6 (one die per figure, one rank only; HMG 6, LMG 3)",
            "targets",
        )
    if len(cleaned) > 1 and not spec.get("separate_targets"):
        raise RuleViolation("WEAPONS LIST", f"{weapon} fires at one target", "targets")
    for t in cleaned:
        _at(state, firer, weapon, t)
    return firer, weapon, cleaned


def _may_fire(state: State, side: str, firer: tb.Unit, weapon: str) -> None:
    if firer["side"] != side:
        raise RuleViolation(RULE, f"{firer['name']} is not your unit", "unit")
    if weapon not in firer["weapons"]:
        raise RuleViolation("WEAPONS LIST", f"{firer['name']} has no {weapon}", "weapon")
    if step_of(firer, weapon) != state["step"]:
        raise RuleViolation(
            "SEQUENCE OF PLAY",
            f"{weapon} fires in the {step_of(firer, weapon)} step of the shooting order",
            "weapon",
        )
    if weapon not in usable(state, firer, state["step"]):
        raise RuleViolation(RULE, _why_not(firer, weapon), "weapon")


def _targets(state: State, targets: list[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The named targets with their dice (1 if not said) and aimed figure (0 if not said)."""
    for i, t in enumerate(targets):
        if t["unit"] not in state["units"]:
            raise InvalidCommand("unknown target", {f"targets[{i}].unit": ["unknown unit"]})
    if len({t["unit"] for t in targets}) != len(targets):
        raise InvalidCommand("name each target once", {"targets": ["a unit appears twice"]})
    return [
        {"unit": t["unit"], "dice": t.get("dice", 1), "figure": t.get("figure", 0)} for t in targets
    ]


def _at(state: State, firer: tb.Unit, weapon: str, t: dict[str, Any]) -> None:
    """May ``firer`` fire ``t["dice"]`` of ``weapon`` at ``t["unit"]``?"""
    spec = data.weapon(weapon)
    target = tb.unit(state, t["unit"])
    if spec.get("separate_targets") and t["dice"] > max(1, target["figures"]):
        raise RuleViolation(
            "WEAPONS LIST",
            f"each shot on different target: {target['name']} has {target['figures']} figures",
            "targets",
        )
    if spec.get("template_ko") and not 0 <= t["figure"] < target["figures"]:
        raise RuleViolation(
            RULE,
            f"Artillery: choose a target figure of {target['name']}: figure 0 to "
            f"{target['figures'] - 1}",
            "targets",
        )
    refused = assess(state, firer, weapon, target)["refused"]
    if refused:
        raise RuleViolation("AFVs" if "AFV" in refused else RULE, refused, "targets")


def _why_not(u: tb.Unit, weapon: str) -> str:
    if u["moved"] and not (u["kind"] in ("vehicle", "aircraft") or u["bombs"]):
        return "only vehicles, aircraft and infantry with bombs can move and shoot"
    if u["one_weapon"] and u["fired"]:
        return "only one weapon may fire each move (AFVs *)"
    if u["kind"] == "team" and data.weapon(weapon).get("needs_setup") and not u["set_up"]:
        return f"{weapon} needs a turn to set up to fire (only * weapons do not)"
    return f"{u['name']} has already fired its {weapon} this turn"


def _save(dice: Dice, target: tb.Unit, hits: int) -> tuple[int, list[dict[str, Any]]]:
    """Saving throw 4+ for teams whose weapon has one: each casualty is saved on the number."""
    save = (
        data.weapon(target["weapons"][0]).get("saving_throw") if target["kind"] == "team" else None
    )
    if not save or hits <= 0:
        return hits, []
    rolls = [dice.roll(6, f"saving throw {target['id']}").as_dict() for _ in range(hits)]
    return sum(1 for r in rolls if r["value"] < save), rolls


def resolve(
    state: State, firer: tb.Unit, weapon: str, targets: list[dict[str, Any]], dice: Dice
) -> dict[str, Any]:
    """Roll a shot and return its resolved facts (targets, collateral, casualties, KOs)."""
    spec = data.weapon(weapon)
    out: dict[str, Any] = {
        "unit": firer["id"],
        "side": firer["side"],
        "weapon": weapon,
        "targets": [],
        "collateral": [],
    }
    casualties: dict[str, int] = {}
    ko: list[str] = []
    for t in targets:
        target = tb.unit(state, t["unit"])
        a = assess(state, firer, weapon, target)
        line: dict[str, Any] = {k: a[k] for k in ("target", "distance", "range", "mode") if k in a}
        if spec.get("template_ko") and a["mode"] == "figures":
            line["figure"] = t["figure"]  # "Artillery: Choose target figure" (the player's choice)
        line["dice"] = []
        if a["mode"] == "afv_2d6":
            line.update(ko_numbers=a["ko"], bonus=a["bonus"])
            for _ in range(t["dice"]):
                pair = [dice.roll(6, f"{weapon} vs AFV {target['id']}").as_dict() for _ in range(2)]
                total = pair[0]["value"] + pair[1]["value"] + a["bonus"]
                hit = total in a["ko"] or total > 12
                line["dice"].append({"rolls": pair, "total": total, "ko": hit})
                if hit:
                    break
            line["ko"] = any(d["ko"] for d in line["dice"])
            if line["ko"]:
                ko.append(target["id"])
        else:
            line.update(
                needed=a["needed"], modifiers=a["modifiers"], modifier_total=a["modifier_total"]
            )
            hits = 0
            for _ in range(t["dice"]):
                die = dice.roll(6, f"{weapon} at {target['id']}").as_dict()
                die["hit"] = die["value"] + a["modifier_total"] >= a["needed"]
                line["dice"].append(die)
                hits += die["hit"]
            if a["mode"] in ("afv_gun", "vehicle"):
                line["ko"] = hits > 0
                if hits:
                    ko.append(target["id"])
            else:
                lost, saves = _save(dice, target, min(hits, target["figures"]))
                line.update(hits=hits, saves=saves, casualties=lost)
                casualties[target["id"]] = casualties.get(target["id"], 0) + lost
                if hits and spec.get("template_ko"):
                    out["collateral"] = _template(
                        state, target, t["figure"], spec["template_ko"], dice, casualties
                    )
        out["targets"].append(line)
    out["casualties"] = {k: v for k, v in casualties.items() if v}
    out["ko"] = ko
    out["source"] = spec.get("category")
    return out


def _template(
    state: State,
    target: tb.Unit,
    figure: int,
    ko: list[int],
    dice: Dice,
    casualties: dict[str, int],
) -> list[dict[str, Any]]:
    """Artillery: if the target figure is hit, all figures within 2" of it test, KO on the number."""
    centre = tb.figures_of(target)[figure]
    found = []
    for u in sorted(tb.on_table(state), key=lambda x: x["id"]):
        if not tb.has_figures(u):
            continue
        near = [
            i
            for i, p in enumerate(tb.figures_of(u))
            if geo.dist(p, centre) <= 2 + 1e-9 and not (u["id"] == target["id"] and i == figure)
        ]
        if not near:
            continue
        rolls = [dice.roll(6, f"template test {u['id']}").as_dict() for _ in near]
        kos = sum(1 for r in rolls if r["value"] in ko)
        left = u["figures"] - casualties.get(u["id"], 0)
        lost, saves = _save(dice, u, min(kos, left))
        casualties[u["id"]] = casualties.get(u["id"], 0) + lost
        found.append(
            {
                "unit": u["id"],
                "figures": len(near),
                "dice": rolls,
                "ko_numbers": ko,
                "saves": saves,
                "casualties": lost,
            }
        )
    return found


def shoot(state: State, side: str, command: Mapping[str, Any], dice: Dice) -> list[RulesEvent]:
    firer, weapon, targets = _check(state, side, command)
    facts = resolve(state, firer, weapon, targets, dice)
    facts["step"] = state["step"]
    return [RulesEvent("ShotResolved", facts)]


def shooters(state: State, side: str, step: str) -> list[dict[str, Any]]:
    """Every unit and weapon of ``side`` able to fire in ``step``, with its targets in range."""
    found = []
    for u in sorted(tb.on_table(state, side), key=lambda x: x["id"]):
        for weapon in usable(state, u, step):
            targets = [
                assess(state, u, weapon, e)
                for e in sorted(tb.on_table(state, tb.other(state, side)), key=lambda x: x["id"])
            ]
            targets = [t for t in targets if not t["refused"]]
            if targets:
                found.append(
                    {
                        "unit": u["id"],
                        "weapon": weapon,
                        "max_dice": max_dice(u, weapon),
                        "targets": targets,
                    }
                )
    return found


def preview(state: State, side: str, command: Mapping[str, Any]) -> dict[str, Any]:
    """What a shot would meet: per target the range, the score needed, every modifier (or the 2d6
    KO numbers against an AFV), before any die is rolled.  ``command`` is typed (see preview.py);
    without targets, every enemy unit on the table."""
    firer, weapon = tb.unit(state, command["unit"]), command["weapon"]
    if firer["side"] != side:
        raise RuleViolation(RULE, f"{firer['name']} is not your unit", "unit")
    named = command.get("targets") or [
        {"unit": e["id"]} for e in tb.on_table(state, tb.other(state, side))
    ]
    if any(t["unit"] not in state["units"] for t in named):
        raise InvalidCommand("unknown target", {"targets": ["unknown unit"]})
    return {
        "unit": firer["id"],
        "weapon": weapon,
        "weapon_list": data.weapon(weapon),
        "may_fire_now": weapon in usable(state, firer, state.get("step")),
        "max_dice": max_dice(firer, weapon),
        "targets": [assess(state, firer, weapon, tb.unit(state, t["unit"])) for t in named],
    }
