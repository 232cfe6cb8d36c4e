"""``actions``: what a side may send now, as templates of the one action vocabulary.

Positions are free inches, so a template fixes the unit and offers a few legal places (deployment
spots along the zone's front, destinations of a rolled move), each checked by the same rule
function ``decide`` runs: every option is accepted on its own.  Labels use printed names."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from service.rules.actions import Actions, one_of
from service.rules.barcelona import data, forces, movement, sequence, shooting
from service.rules.barcelona import geometry as geo
from service.rules.barcelona import table as tb
from service.rules.barcelona.commands import COMMANDS
from service.rules.base import RuleViolation, State

GOING_LABELS = {"good": "good going", "bad": "bad going", "road": "on the road"}


def actions(state: State, side: str) -> Actions:
    out = Actions()
    if side in sequence.acting(state):
        PHASES.get(state["phase"], _nothing)(state, side, out)
    return out


def _nothing(state: State, side: str, out: Actions) -> None:
    return None


# -- muster ------------------------------------------------------------------------------------------
def _muster(state: State, side: str, out: Actions) -> None:
    types = _fielded(state, side)
    if state["options"]["forces"] == "column":
        choose = {"troop_type": one_of(types, [f"A column of {t}" for t in types])}
        out.add(COMMANDS.template("generate_column", "Generate a column", choose=choose))
        return
    offers = [(spec, u) for spec, u in _offers(side, types) if u["points"] <= state["budget"][side]]
    if offers:
        labels = [f"{_what(spec, u)} ({u['points']} points)" for spec, u in offers]
        choose = {"unit": one_of([spec for spec, _ in offers], labels)}
        left = state["budget"][side]
        out.add(COMMANDS.template("buy", f"Buy a unit ({left} points left)", choose=choose))
    if any(u["side"] == side for u in state["units"].values()):
        out.add(COMMANDS.template("end_muster", "End the muster"))
    else:
        out.block("end_muster", "End the muster", "buy at least one unit", "Attribute Costs")


def _fielded(state: State, side: str) -> list[str]:
    """The troop types ``side`` fields (Troop Type table: the names say who fields them)."""
    camp = forces.camp_of(state, side)
    types = sorted(data.load("troops")["troop_types"])
    return [t for t in types if forces.fielding_problem(t, camp) is None]


def _offers(side: str, types: list[str]) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """A company of ten of each troop type the side fields, each team weapon (crewed by the first
    of them), each vehicle and an aeroplane: what the catalogue sells, priced by ``forces``."""
    specs: list[dict[str, Any]] = [{"kind": "foot", "troop_type": t, "figures": 10} for t in types]
    specs += [{"kind": "team", "weapon": w, "troop_type": types[0]} for w in forces.TEAM_WEAPONS]
    specs += [{"kind": "vehicle", "vehicle": v} for v in forces.vehicles_of("any")]
    specs.append({"kind": "aircraft"})
    return [(spec, forces.bought_unit("offer", side, spec)) for spec in specs]


def _what(spec: dict[str, Any], u: dict[str, Any]) -> str:
    if spec["kind"] == "foot":
        return f"A company of {spec['figures']} {spec['troop_type']}"
    if spec["kind"] == "team":
        return f"{spec['weapon']} team ({spec['troop_type']} crew)"
    return str(spec.get("vehicle", "Aeroplane"))


# -- deployment --------------------------------------------------------------------------------------
def _deployment(state: State, side: str, out: Actions) -> None:
    left = sequence.waiting(state, side)
    for i, uid in enumerate(left):
        u = tb.unit(state, uid)
        spots = _spots(state, side, u, i)
        if spots:
            fixed = {"unit": uid, **{k: v for k, v in spots[0].items() if k != "x"}}
            xs = [s["x"] for s in spots]
            choose = {"x": one_of(xs, [f'{x:g}" from the left edge' for x in xs])}
            out.add(COMMANDS.template("deploy", f"Deploy {u['name']}", fixed=fixed, choose=choose))
        label = f"Hold back {u['name']} to arrive late"
        out.add(COMMANDS.template("reserve", label, fixed={"unit": uid}))
    if left:
        names = ", ".join(tb.unit(state, uid)["name"] for uid in left)
        reason = f"deploy or hold back every unit first: {names}"
        out.block("end_deployment", "End the deployment", reason, "scenario")
    else:
        out.add(COMMANDS.template("end_deployment", "End the deployment"))


def _spots(state: State, side: str, u: tb.Unit, index: int) -> list[dict[str, Any]]:
    """Legal places along the front of the deployment zone, every 4", the first one a slot of its
    own for each waiting unit."""
    zone = geo.polygon(state["deployment"][side])
    xs = [p[0] for p in zone]
    ys = [p[1] for p in zone]
    facing = sequence.facing_of(state, side)
    ranks = 4 if u["figures"] > 8 else 1
    y = max(ys) - 1 if facing == 90.0 else min(ys) + 1
    found = []
    for x in range(math.ceil(min(xs)) + 2, math.floor(max(xs)) - 1, 4):
        at = {"x": float(x), "y": float(y), "facing": facing}
        if not sequence.outside_zone(state, side, u, at, ranks):
            found.append({**at, "ranks": ranks})
    if not found:
        return []
    first = (len(tb.on_table(state, side)) + index) % len(found)
    return found[first:] + found[:first]


# -- orders ------------------------------------------------------------------------------------------
def _orders(state: State, side: str, out: Actions) -> None:
    units = sorted(
        u["id"]
        for u in state["units"].values()
        if u["side"] == side and u["status"] in ("table", "reserve")
    )
    advance = {uid: {"text": "advance on the enemy", "move": True} for uid in units}
    hold = {uid: {"text": "hold your ground", "move": False} for uid in units}
    choose = {"orders": one_of([advance, hold], ["Every unit advances", "Every unit holds"])}
    out.add(COMMANDS.template("write_orders", "Write this turn's orders", choose=choose))


# -- movement ----------------------------------------------------------------------------------------
def _movement(state: State, side: str, out: Actions) -> None:
    if state["moving"]:
        u = tb.unit(state, state["moving"])
        facing = _facing_to_enemy(state, u)
        paths, labels = _destinations(state, side, u, facing)
        fixed = {"unit": u["id"], "facing": facing}
        choose = {"path": one_of(paths, labels)}
        out.add(COMMANDS.template("move", f"Move {u['name']}", fixed=fixed, choose=choose))
        reason = f"first finish the move of {u['name']}"
        out.block("end_movement", "End movement", reason, "MOVEMENT")
        return
    for u in movement.movable(state, side):
        here = "bad" if "bad_going" in tb.effects_at(state, tb.where(u)) else "good"
        goings = [here] + [g for g in movement.GOINGS if g != here]
        choose = {"going": one_of(goings, [GOING_LABELS[g] for g in goings])}
        fixed = {"unit": u["id"]}
        out.add(
            COMMANDS.template("roll_move", f"Roll to move {u['name']}", fixed=fixed, choose=choose)
        )
        out.add(COMMANDS.template("hold", f"{u['name']} holds", fixed=fixed))
    out.add(COMMANDS.template("end_movement", "End movement"))


def _destinations(
    state: State, side: str, u: tb.Unit, facing: float
) -> tuple[list[list[list[float]]], list[str]]:
    """Stay put, the straight move towards the nearest enemy, and full and half moves in the
    eight directions of the table: those the move rule accepts."""
    distance = float(u["rolled"]["distance"])
    paths: list[list[list[float]]] = [[]]
    labels = ["Stay put"]
    toward = movement.suggested_path(state, u)
    candidates = [toward] if toward else []
    for length in (distance, distance / 2):
        for degrees in range(0, 360, 45):
            a = math.radians(degrees)
            end = [round(u["x"] + length * math.cos(a), 1), round(u["y"] + length * math.sin(a), 1)]
            candidates.append([end])
    for path in candidates:
        if path not in paths and _accepted(state, side, u, path, facing):
            paths.append(path)
            x, y = path[-1]
            labels.append(f'To {x:g}", {y:g}" ({geo.path_length(tb.where(u), path):.1f}")')
    return paths, labels


def _accepted(state: State, side: str, u: tb.Unit, path: list[list[float]], facing: float) -> bool:
    command = {"type": "move", "unit": u["id"], "path": path, "facing": facing}
    try:
        movement.move(state, side, command, _NO_DICE)
    except RuleViolation:
        return False
    return True


class _NoDice:
    def roll(self, sides: int = 6, purpose: str = "") -> Any:
        raise AssertionError("a move rolls no dice")  # pragma: no cover


_NO_DICE = _NoDice()


def _facing_to_enemy(state: State, u: tb.Unit) -> float:
    enemies = tb.on_table(state, tb.other(state, u["side"]))
    if not enemies:
        return float(u["facing"])
    target = min(enemies, key=lambda e: geo.dist(tb.where(u), tb.where(e)))
    return round(math.degrees(math.atan2(target["y"] - u["y"], target["x"] - u["x"])) % 360, 1)


# -- shooting ----------------------------------------------------------------------------------------
def _shooting(state: State, side: str, out: Actions) -> None:
    """SHOOTING: each weapon that may fire, at each target in reach with all its dice; an MG may
    also split its dice between two targets ("Each shot on different target"); artillery chooses
    its target figure ("Artillery: Choose target figure")."""
    for option in shooting.shooters(state, side, state["step"]):
        u = tb.unit(state, option["unit"])
        weapon = option["weapon"]
        targets: list[list[dict[str, Any]]] = []
        labels: list[str] = []
        for t in option["targets"]:
            aimed = _aim(state, weapon, option["max_dice"], t)
            name = tb.unit(state, t["target"])["name"]
            targets.append(aimed)
            labels.append(f'{name} ({t["distance"]:g}", {aimed[0]["dice"]} d6)')
            for figure in _other_figures(state, weapon, t):
                targets.append([{**aimed[0], "figure": figure}])
                labels.append(f'{name}, figure {figure + 1} ({t["distance"]:g}")')
        for split, label in _splits(state, weapon, option["max_dice"], option["targets"]):
            targets.append(split)
            labels.append(label)
        fixed = {"unit": u["id"], "weapon": weapon}
        choose = {"targets": one_of(targets, labels)}
        label = f"{u['name']} fires its {weapon}"
        out.add(COMMANDS.template("shoot", label, fixed=fixed, choose=choose))
    out.add(COMMANDS.template("end_step", "End this shooting step"))


def _other_figures(state: State, weapon: str, target: dict[str, Any]) -> list[int]:
    """Artillery (a template weapon) may aim at any figure of the target but the first."""
    if not data.weapon(weapon).get("template_ko"):
        return []
    return list(range(1, tb.unit(state, target["target"])["figures"]))


def _splits(
    state: State, weapon: str, most: int, targets: list[dict[str, Any]]
) -> list[tuple[list[dict[str, Any]], str]]:
    """An MG's dice shared between two targets, as evenly as their figures allow (WEAPONS LIST:
    "each shot on different target", no more dice on a unit than it has figures)."""
    if not data.weapon(weapon).get("separate_targets") or most < 2:
        return []
    found = []
    for i, first in enumerate(targets):
        for second in targets[i + 1 :]:
            a, b = (tb.unit(state, t["target"]) for t in (first, second))
            one = min(max(1, a["figures"]), (most + 1) // 2)
            two = min(max(1, b["figures"]), most - one)
            if two < 1:
                continue
            aimed = [
                {"unit": a["id"], "dice": one, "figure": 0},
                {"unit": b["id"], "dice": two, "figure": 0},
            ]
            found.append((aimed, f"{a['name']} ({one} d6) and {b['name']} ({two} d6)"))
    return found


def _aim(state: State, weapon: str, most: int, target: dict[str, Any]) -> list[dict[str, Any]]:
    """Every die the weapon has at one target (an MG: no more than the target has figures)."""
    spec = data.weapon(weapon)
    figures = tb.unit(state, target["target"])["figures"]
    dice = min(most, max(1, figures)) if spec.get("separate_targets") else most
    return [{"unit": target["target"], "dice": dice, "figure": 0}]


PHASES: dict[str, Callable[[State, str, Actions], None]] = {
    "muster": _muster,
    "deployment": _deployment,
    "orders": _orders,
    "movement": _movement,
    "shooting": _shooting,
}


#: the ``unit`` fields of a ``buy`` command for each kind (the catalogue says what each may be)
BUY_FIELDS = {
    "foot": ["troop_type", "grade", "figures", "attributes", "bombs", "lmg"],
    "cavalry": ["troop_type", "grade", "figures", "attributes", "bombs", "lmg"],
    "team": ["weapon", "troop_type", "grade", "crew"],
    "vehicle": ["vehicle"],
    "aircraft": [],
}


def catalogue() -> dict[str, Any]:
    """What a ``buy`` may describe and what it costs (Troop Type table, Attribute Costs, AFVs
    table), for a client to build its form; the command is ``{"type": "buy", "unit": {"kind",
    ...the kind's fields}}``.  Figures pay their troop type's points per figure plus each bought
    attribute (cavalry is bought as the ``cavalry`` kind), less one without bombs; each LMG is
    paid apart; a team pays per crew figure; a vehicle and an aeroplane pay a flat price.
    Placeholder prices keep their ``placeholder`` flag and note."""
    troops = data.load("troops")
    costs = troops["attribute_costs"]
    afvs = data.load("afvs")
    crew = troops["placeholders"]["crew"]
    flat = {"tank": costs["tank"], "armoured_car": costs["armoured_car"]}
    vehicles = {
        name: {
            "points": flat[spec["kind"]],
            "kind": spec["kind"],
            "class": spec["class"],
            "armament": spec["armament"],
            **_marker(spec),
        }
        for name, spec in afvs["vehicles"].items()
    }
    lorry = costs["lorry"]
    for name in afvs["soft_vehicles"]:
        vehicles[name] = {"points": lorry["points"], "kind": "soft", **_marker(lorry)}
    return {
        "rule": "Attribute Costs",
        "kinds": BUY_FIELDS,
        "troop_types": {
            name: {
                "attributes": list(t["attributes"]),
                "grades": [
                    {
                        "grade": i,
                        "morale": g["morale"],
                        "tactical": g["tactical"],
                        "points": g["points"],
                    }
                    for i, g in enumerate(t["grades"])
                ],
            }
            for name, t in troops["troop_types"].items()
        },
        "attributes": {a: costs["per_figure"][a] for a in forces.ATTRIBUTES if a != "cavalry"},
        "per_figure": {
            "cavalry": costs["per_figure"]["cavalry"],
            "no_bombs": costs["per_figure"]["no_bombs"],
        },
        "lmg": costs["lmg"],
        "teams": {
            w: {"per_crew": costs["teams"][w]["per_crew"], **_marker(costs["teams"][w])}
            for w in forces.TEAM_WEAPONS
        },
        "crew": {"default": crew["value"], **_marker(crew)},
        "vehicles": vehicles,
        "aircraft": {"points": costs["aeroplane"]},
        # Troop Type table: the names say who fields them; a type in neither list serves both
        "fielded_by": {c: list(troops["fielded_by"][c]) for c in forces.CAMPS},
    }


def _marker(spec: dict[str, Any]) -> dict[str, Any]:
    """A placeholder flag and note carried over from the data."""
    return {"placeholder": True, "note": spec["note"]} if spec.get("placeholder") else {}
