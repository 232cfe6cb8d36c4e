"""Combat odds, column shifts and die modifiers (16.1-16.4), pure functions over a *situation*.

A situation is the JSON described in docs/rules/backbone.md ("Combat situation"); the game builds
one from its state and ``combat_preview`` accepts one from the API.  Every modifier carries its rule.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from service.rules.backbone.crt import COLUMNS, CombatResult, lookup, row_for
from service.rules.backbone.data_files import load
from service.rules.kernel.odds import OddsColumns

SIDES = ("allied", "spanish")
TERRAINS = ("clear", "broken", "half_mountain", "mountain")


class CombatError(Exception):
    """A combat that the rules forbid or a malformed situation: ``rule`` and ``field`` say why."""

    def __init__(self, rule: str, message: str, field: str = "situation") -> None:
        super().__init__(f"{message} (rule {rule})")
        self.rule = rule
        self.message = message
        self.field = field


def _int(value: Any, field: str, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise CombatError("16", f"{field} must be an integer from {low} to {high}", field)
    return value


def _tags(unit: Mapping[str, Any]) -> set[str]:
    return set(unit.get("tags", []))


def unit_efficiency(unit: Mapping[str, Any], field: str) -> int:
    """A unit's efficiency, or the one chosen among its options (FJR/GJR as 3 or 2, 16.3 note)."""
    chosen = unit.get("efficiency_as")
    if chosen is None:
        return _int(unit.get("efficiency"), f"{field}.efficiency", 1, 3)
    options = unit.get("efficiency_options") or []
    if chosen not in options:
        raise CombatError("16.3", f"efficiency {chosen} is not an option of this unit", field)
    return int(chosen)


def choose_efficiency(
    units: list[Mapping[str, Any]], choice: Any, field: str, hq_supports: bool
) -> dict[str, Any]:
    """The efficiency with the greatest number of steps; a tie is the player's choice (16.3)."""
    steps: dict[int, int] = {}
    for i, unit in enumerate(units):
        if "hq" in _tags(unit) and not hq_supports and len(units) > 1:
            continue  # an HQ counts only when it gives its support factor (16.3)
        eff = unit_efficiency(unit, f"{field}[{i}]")
        steps[eff] = steps.get(eff, 0) + _int(unit.get("steps"), f"{field}[{i}].steps", 1, 4)
    if not steps:
        raise CombatError("16.3", "no unit gives an efficiency", field)
    most = max(steps.values())
    tied = sorted(e for e, n in steps.items() if n == most)
    if choice is None:
        used = tied[-1]
    elif choice in tied:
        used = int(choice)
    else:
        raise CombatError("16.3", f"efficiency {choice} is not among the tied {tied}", field)
    return {"used": used, "steps": {str(k): v for k, v in sorted(steps.items())}, "tied": tied}


def _factor_total(units: list[Mapping[str, Any]], factor: str, field: str) -> dict[str, Any]:
    """Factors summed by stack (3), each halving (river, landing, out of supply) rounded down, min 1."""
    groups: dict[tuple[str, bool, bool, bool], int] = {}
    for i, unit in enumerate(units):
        value = _int(unit.get(factor, 0), f"{field}[{i}].{factor}", 0, 99)
        key = (
            str(unit.get("from", "")),
            bool(unit.get("across_river")),
            bool(unit.get("amphibious")),
            bool(unit.get("out_of_supply")),
        )
        groups[key] = groups.get(key, 0) + value
    total, parts = 0, []
    for (origin, river, landing, oos), raw in groups.items():
        value = raw
        halvings = [
            name
            for name, on in (("river 16.3", river), ("landing 14", landing), ("supply 12.2", oos))
            if on
        ]
        for _ in halvings:
            value //= 2
        if raw > 0:
            value = max(1, value)  # rule 3: a factor is at least 1
        total += value
        parts.append({"from": origin, "raw": raw, "halved_for": halvings, "value": value})
    return {"total": total, "stacks": parts}


ODDS = OddsColumns(COLUMNS)


def base_ratio(attack: int, defence: int) -> tuple[int, str]:
    """The base column index (0 = 1:2 ... 6 = 6:1; above 6:1 is 6:1, 16.1) and the ratio, rounded
    down in the defender's favour (16.2: 17/5 is 3:1).  Below 1:2 the index is negative: 1:3 is
    -1, 1:4 is -2, so that only enough favourable shifts bring it back onto the table."""
    if attack >= defence:
        index = ODDS.base_index(attack, defence)
        assert index is not None
        return index, f"{attack // defence}:1"
    n = -(-defence // attack)
    found = ODDS.base_index(attack, defence)
    return (found if found is not None else 2 - n), f"1:{n}"


def _side_supports(
    side: str, role: str, sup: Mapping[str, Any], situation: Mapping[str, Any], field: str
) -> list[dict[str, Any]]:
    """The die modifiers a side designates (16.3, 16.4, 9.1, 9.2), in its own favour (positive)."""
    data = load("supports")
    mods: list[dict[str, Any]] = []
    exploiting = role == "attacker" and bool(situation.get("exploitation"))
    air = _int(sup.get("air", 0), f"{field}.air", 0, data["air"]["max_per_combat"])
    naval = _int(sup.get("naval", 0), f"{field}.naval", 0, 3)
    if exploiting and (air or naval or sup.get("hq")):
        raise CombatError("16.7", "an exploitation attack receives no support", field)
    if air:
        mods.append({"source": "air support", "drm": air, "rule": "16.4"})
    if naval:
        if side != "allied":
            raise CombatError("16.3", "only the Allied player has naval support", f"{field}.naval")
        coast = situation.get("coast")
        strait = bool(situation.get("strait_controlled"))
        if situation.get("amphibious"):
            allowed = data["naval"]["amphibious_drm"]
        elif coast in ("atlantic", "mediterranean"):
            allowed = 2 if strait else 1
        elif coast == "strait":
            allowed = 2 if strait else 0
        else:
            allowed = 0
        if naval > allowed:
            raise CombatError("16.3", f"naval support here is at most {allowed}", f"{field}.naval")
        mods.append({"source": "naval support", "drm": naval, "rule": "16.3"})
    if sup.get("hq"):
        mods.append({"source": "HQ support", "drm": data["hq"]["drm"][side], "rule": "9.1"})
    units = situation[f"{role}s"]
    if sup.get("legion"):
        if not any("legion" in _tags(u) for u in units):
            raise CombatError("9.2", "no Legion unit takes part", f"{field}.legion")
        mods.append({"source": "Legion", "drm": 1, "rule": "9.2"})
    against = situation.get("city") or situation.get("fortifications", 0)
    if role == "attacker" and against and any("engineer" in _tags(u) for u in units):
        mods.append({"source": "engineers vs city/fortification", "drm": 1, "rule": "9.2"})
    if situation.get("dissensions") and {"es", "de"} <= {u.get("nation") for u in units}:
        mods.append({"source": "Dissensions in the Axis", "drm": -1, "rule": "10.2"})
    return mods


def evaluate(situation: Mapping[str, Any]) -> dict[str, Any]:
    """Odds, shifts, die modifiers with rules and caps; with ``roll`` the CRT result (16.2)."""
    attacker_side = situation.get("attacker_side")
    if attacker_side not in SIDES:
        raise CombatError("16", "attacker_side must be 'allied' or 'spanish'", "attacker_side")
    defender_side = SIDES[1 - SIDES.index(attacker_side)]
    terrain = situation.get("terrain", "clear")
    if terrain not in TERRAINS:
        raise CombatError("16.3", f"terrain must be one of {TERRAINS}", "terrain")
    attackers = situation.get("attackers")
    defenders = situation.get("defenders")
    if not isinstance(attackers, list) or not attackers:
        raise CombatError("16.1", "at least one attacking unit is needed", "attackers")
    if not isinstance(defenders, list) or not defenders:
        raise CombatError("16.1", "the target hex has no defending unit", "defenders")
    for key in ("attackers", "defenders"):
        for i, unit in enumerate(situation[key]):
            if not isinstance(unit, Mapping):
                raise CombatError("16", "each unit must be an object", f"{key}[{i}]")
    nations = {u.get("nation") for u in attackers}
    if {"us", "uk"} <= nations:
        raise CombatError("16.1", "US and British units cannot attack the same target", "attackers")
    if terrain == "mountain":
        for i, unit in enumerate(attackers):
            if "armor" in _tags(unit) and not unit.get("via_road"):
                raise CombatError(
                    "16.3", "armor may attack a mountain hex only along a road", f"attackers[{i}]"
                )
    if situation.get("exploitation") and not all("armor" in _tags(u) for u in attackers):
        raise CombatError("16.7", "only armored units exploit", "attackers")

    att_sup = situation.get("attacker", {}) or {}
    def_sup = situation.get("defender", {}) or {}
    combat_attackers = [u for u in attackers if "hq" not in _tags(u)]
    if not combat_attackers:
        raise CombatError("4", "an HQ cannot attack by itself", "attackers")
    in_hex = [u for u in defenders if not u.get("support_only")]
    alone_hq = len(in_hex) == 1
    exploitation = bool(situation.get("exploitation"))
    counted_defenders = [
        u
        for u in in_hex
        if ("hq" not in _tags(u) or alone_hq) and (exploitation or not u.get("retreated"))
    ]
    attack = _factor_total(combat_attackers, "attack", "attackers")
    defence = (
        _factor_total(counted_defenders, "defense", "defenders") if counted_defenders else None
    )
    def_total = max(1, defence["total"]) if defence else 1
    index, ratio = base_ratio(attack["total"], def_total)

    shifts: list[dict[str, Any]] = []
    hexes = situation.get("attack_hexes")
    if hexes is None:
        hexes = len({str(u.get("from", "")) for u in combat_attackers})
    hexes = _int(hexes, "attack_hexes", 1, 6)
    envelop = load("terrain")["envelopment"].get(str(hexes), 0)
    if envelop:
        shifts.append(
            {"source": f"envelopment from {hexes} hexes", "columns": envelop, "rule": "16.3"}
        )
    att_eff = choose_efficiency(
        attackers, att_sup.get("efficiency"), "attackers", bool(att_sup.get("hq"))
    )
    def_eff = choose_efficiency(
        defenders, def_sup.get("efficiency"), "defenders", bool(def_sup.get("hq"))
    )
    diff = att_eff["used"] - def_eff["used"]
    if diff:
        shifts.append({"source": "efficiency difference", "columns": diff, "rule": "16.3"})
    tdata = load("terrain")
    if situation.get("city"):
        shifts.append(
            {"source": "city", "columns": tdata["city"]["combat_columns"], "rule": "16.3"}
        )
    if tdata["terrain"][terrain]["combat_columns"]:
        cols = tdata["terrain"][terrain]["combat_columns"]
        shifts.append({"source": terrain.replace("_", " "), "columns": cols, "rule": "16.3"})
    if situation.get("limited_offensive_supply"):
        shifts.append({"source": "limited offensive supply", "columns": -1, "rule": "12.3"})
    final = index + sum(s["columns"] for s in shifts)
    if final < 0:
        raise CombatError(
            "16.1", "the final ratio is below 1:2: this attack cannot be made", "attackers"
        )
    column = COLUMNS[min(final, len(COLUMNS) - 1)]

    att_mods = _side_supports(attacker_side, "attacker", att_sup, situation, "attacker")
    def_mods = _side_supports(defender_side, "defender", def_sup, situation, "defender")
    if tdata["terrain"][terrain]["combat_drm"]:
        def_mods.append(
            {"source": terrain, "drm": -tdata["terrain"][terrain]["combat_drm"], "rule": "16.3"}
        )
    forts = _int(situation.get("fortifications", 0), "fortifications", 0, 9)
    if forts:
        def_mods.append({"source": f"{forts} fortification(s)", "drm": forts, "rule": "13.3"})
    caps = tdata["drm_caps"]
    att_raw = sum(m["drm"] for m in att_mods)
    def_raw = sum(m["drm"] for m in def_mods)
    att_applied = min(caps["attacker"], att_raw)
    def_applied = min(caps["defender"], def_raw)
    net = att_applied - def_applied

    first_loss = {
        "attacker": _first_loss(attackers, att_eff["used"], att_sup, situation, "attacker"),
        "defender": _first_loss(defenders, def_eff["used"], def_sup, situation, "defender"),
    }
    out: dict[str, Any] = {
        "attacker_side": attacker_side,
        "attack": attack,
        "defense": defence or {"total": 0, "stacks": []},
        "base_ratio": ratio,
        "base_column_index": index,
        "column_shifts": shifts,
        "final_column_index": final,
        "column": column,
        "column_capped": final > len(COLUMNS) - 1 or ODDS.is_above_max(attack["total"], def_total),
        "efficiency": {"attacker": att_eff, "defender": def_eff},
        "die_modifiers": {
            "attacker": att_mods,
            "defender": [{**m, "drm": -m["drm"]} for m in def_mods],
        },
        "caps": {
            "attacker": {
                "raw": att_raw,
                "applied": att_applied,
                "cap": caps["attacker"],
                "rule": "16.3",
            },
            "defender": {
                "raw": -def_raw,
                "applied": -def_applied,
                "cap": -caps["defender"],
                "rule": "16.3",
            },
        },
        "net_drm": net,
        "first_loss": first_loss,
    }
    roll = situation.get("roll")
    if roll is not None:
        roll = _int(roll, "roll", 1, 6)
        modified = roll + net
        text = lookup(column, modified)
        out.update(
            {
                "roll": roll,
                "modified_roll": modified,
                "row": "<0" if row_for(modified) == 0 else row_for(modified),
                "result": CombatResult.parse(text).as_dict(),
            }
        )
    return out


def _first_loss(
    units: list[Mapping[str, Any]],
    efficiency: int,
    sup: Mapping[str, Any],
    situation: Mapping[str, Any],
    role: str,
) -> list[str]:
    """The units one of which takes the first step lost (16.6): a special unit that used its ability
    (Legion, engineers), else a unit of the efficiency used (16.3); the owner picks among them."""
    if sup.get("legion"):
        return [u["id"] for u in units if "legion" in _tags(u) and "id" in u]
    if role == "attacker" and (situation.get("city") or situation.get("fortifications", 0)):
        engineers = [u["id"] for u in units if "engineer" in _tags(u) and "id" in u]
        if engineers:
            return engineers
    return [
        u["id"]
        for u in units
        if "id" in u
        and ("hq" not in _tags(u) or len(units) == 1)
        and u.get("efficiency_as", u.get("efficiency")) == efficiency
    ]
