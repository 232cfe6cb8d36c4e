"""Force building: units from the Troop Type table, the Attribute Costs, the AFVs table, and the
random column of GENERATING A COLUMN."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from service.rules.barcelona import data
from service.rules.base import Dice, InvalidCommand, RulesEvent, RuleViolation, State

ATTRIBUTES = ("skilled", "stubborn", "ferocious", "cavalry")
TEAM_WEAPONS = (
    "HMG",
    "Mortar",
    "Lt Mortar",
    "Field Gun",
    "Mtn/Inf/AFV Gun",
    "AT Gun",
    "Flamethrower",
)


def number(uid: str) -> str:
    """The number in a unit's printed name: the digits its id ends with (``nat3``: 3)."""
    digits = uid[len(uid.rstrip("0123456789")) :]
    return digits or uid


def _base(
    uid: str, side: str, name: str, kind: str, figures: int, weapons: list[str]
) -> dict[str, Any]:
    return {
        "id": uid,
        "side": side,
        "name": name,
        "kind": kind,
        "figures": figures,
        "start_figures": figures,
        "step_figures": None,
        "weapons": weapons,
        "lmg": 0,
        "bombs": False,
        "troop_type": None,
        "grade": 0,
        "morale": None,
        "tactical": None,
        "attributes": [],
        "class": None,
        "vehicle": None,
        "vehicle_kind": None,
        "one_weapon": False,
        "vs_afv_bonus": 0,
        "carries": 0,
        "tows": False,
        "status": "unplaced",
        "x": None,
        "y": None,
        "facing": 90,
        "ranks": 1,
        "carrying": None,
        "towing": None,
        "carried_by": None,
        "moved": False,
        "activated": False,
        "advanced": False,
        "rolled": None,
        "fired": [],
        "set_up": True,
        "failures": 0,
        "casualties": 0,
        "sources": [],
        "tested": [],
        "contacted": [],
        "cavalry_contact": False,
        "points": 0,
    }


def troop(troop_type: str, grade: int) -> dict[str, Any]:
    types = data.load("troops")["troop_types"]
    if troop_type not in types:
        raise InvalidCommand("unknown troop type", {"troop_type": [f"one of {', '.join(types)}"]})
    grades = types[troop_type]["grades"]
    if grade not in range(len(grades)):
        raise InvalidCommand("unknown grade", {"grade": [f"0 to {len(grades) - 1}"]})
    return {**grades[grade], "attributes": list(types[troop_type]["attributes"])}


#: the two camps the Troop Type table's names belong to (``troops.json`` ``fielded_by``)
CAMPS = ("nationalist", "republican")


def camps_of(troop_type: str) -> tuple[str, ...]:
    """The camps that field a troop type: the one its name says (Falangists, Moors: Nationalist;
    Militia, International Bde.: Republican ...), or both for a type that served both sides."""
    fielded = data.load("troops")["fielded_by"]
    return tuple(c for c in CAMPS if troop_type in fielded[c]) or CAMPS


def camp_of(state: Mapping[str, Any], side: str) -> str | None:
    """The camp whose troop types ``side`` fields: the scenario's ``camps`` entry, else the side's
    own name when it is a camp (a state from before camps were recorded has none)."""
    camps = state.get("camps") or {}
    return str(camps[side]) if side in camps else (side if side in CAMPS else None)


def fielding_problem(troop_type: str, camp: str | None) -> str | None:
    """Why a side of ``camp`` may not field ``troop_type`` (Troop Type table), else None."""
    camps = camps_of(troop_type)
    if camp is None or camp in camps or troop_type not in data.load("troops")["troop_types"]:
        return None
    return (
        f"{troop_type} fight for the {camps[0].capitalize()} side (the Troop Type table's names "
        f"say who fields them): the {camp.capitalize()} side may not field them"
    )


def check_fielding(state: Mapping[str, Any], side: str, troop_type: str, field: str) -> None:
    problem = fielding_problem(troop_type, camp_of(state, side))
    if problem is not None:
        raise RuleViolation(str(data.load("troops")["fielded_by"]["rule"]), problem, field)


def figures_unit(
    uid: str,
    side: str,
    troop_type: str,
    grade: int,
    figures: int,
    *,
    extra: list[str] = (),  # type: ignore[assignment]
    bombs: bool = True,
    lmg: int = 0,
    name: str | None = None,
) -> dict[str, Any]:
    """A unit of figures of a troop type; ``extra`` attributes are bought (Attribute Costs)."""
    t = troop(troop_type, grade)
    attributes = sorted(set(t["attributes"]) | set(extra))
    kind = "cavalry" if "cavalry" in attributes else "foot"
    weapons = ["Rifle"] + (["Bombs"] if bombs else []) + (["LMG"] if lmg else [])
    body = "squadron" if kind == "cavalry" else "company"
    u = _base(uid, side, name or f"{troop_type} {body} {number(uid)}", kind, figures, weapons)
    added = [a for a in attributes if a not in t["attributes"]]
    u.update(
        troop_type=troop_type,
        grade=grade,
        morale=t["morale"],
        tactical=t["tactical"],
        attributes=attributes,
        bombs=bombs,
        lmg=lmg,
    )
    u["points"] = figures_points(t["points"], figures, added, bombs, lmg)
    return u


def figures_points(per_figure: int, figures: int, added: list[str], bombs: bool, lmg: int) -> int:
    costs = data.load("troops")["attribute_costs"]
    each = per_figure + sum(costs["per_figure"][a] for a in added)
    if not bombs:
        each += costs["per_figure"]["no_bombs"]
    return int(each * figures + costs["lmg"] * lmg)


def team_unit(
    uid: str, side: str, weapon: str, troop_type: str, grade: int, crew: int | None = None
) -> dict[str, Any]:
    """A weapon and its crew (MG: 8 times crew; Gun: 6 times crew)."""
    if weapon not in TEAM_WEAPONS:
        raise InvalidCommand(
            "unknown team weapon", {"weapon": [f"one of {', '.join(TEAM_WEAPONS)}"]}
        )
    t = troop(troop_type, grade)
    crew = crew or int(data.load("troops")["placeholders"]["crew"]["value"])
    u = _base(uid, side, f"{weapon} team {number(uid)}", "team", crew, [weapon])
    u.update(troop_type=troop_type, grade=grade, morale=t["morale"], tactical=t["tactical"])
    u["points"] = data.load("troops")["attribute_costs"]["teams"][weapon]["per_crew"] * crew
    return u


def vehicle_unit(uid: str, side: str, name: str) -> dict[str, Any]:
    spec = data.vehicle(name)
    if spec is None:
        raise InvalidCommand("unknown vehicle", {"vehicle": ["a type of the AFVs table or Lorry"]})
    costs = data.load("troops")["attribute_costs"]
    u = _base(uid, side, f"{name} {number(uid)}", "vehicle", 1, list(spec.get("weapons", [])))
    u.update(
        vehicle=name,
        vehicle_kind=spec.get("kind", "soft"),
        one_weapon=bool(spec.get("one_weapon")),
        vs_afv_bonus=int(spec.get("vs_afv_bonus", 0)),
        carries=int(spec.get("carries", 0)),
        tows=bool(spec.get("tows")),
    )
    u["class"] = spec.get("class")
    kind = spec.get("kind")
    u["points"] = (
        costs["tank"]
        if kind == "tank"
        else costs["armoured_car"]
        if kind == "armoured_car"
        else costs["lorry"]["points"]
    )
    return u


def aircraft_unit(uid: str, side: str) -> dict[str, Any]:
    u = _base(uid, side, f"Aeroplane {number(uid)}", "aircraft", 1, ["Aircraft"])
    u["points"] = data.load("troops")["attribute_costs"]["aeroplane"]
    return u


def next_ids(state: State, side: str, n: int) -> list[str]:
    start = state["next_id"][side]
    return [f"{side[:3]}{start + i}" for i in range(n)]


def generate_column(
    state: State, side: str, command: Mapping[str, Any], dice: Dice
) -> list[RulesEvent]:
    """GENERATING A COLUMN: a die for the companies, one for the MG, one for the specials (and on
    a listed number one more on the Specials list)."""
    if state["options"]["forces"] != "column":
        raise RuleViolation("GENERATING A COLUMN", "this game builds forces with points")
    troop_type = command["troop_type"]
    grade = command.get("grade", 0)
    troop(troop_type, grade)
    check_fielding(state, side, troop_type, "troop_type")
    chosen = dict(state["vehicles"][side])
    chosen.update({k: command[k] for k in ("tank", "armoured_car") if k in command})
    table = data.load("column")
    companies = dice.roll(6, "column: companies")
    mg = dice.roll(6, "column: MG")
    specials = dice.roll(6, "column: specials")
    row = table["rows"][str(companies.value)]
    rolls = {"companies": companies.as_dict(), "mg": mg.as_dict(), "specials": specials.as_dict()}
    special = None
    if specials.value in row["specials"]:
        which = dice.roll(6, "column: special type")
        rolls["special"] = which.as_dict()
        special = table["specials"][str(which.value)]
    plan: list[tuple[str, Any]] = [("company", row["figures"])] * row["count"]
    if mg.value in row["mg"]:
        plan.append(("team", "HMG"))
    plan += {
        None: [],
        "Extra MG": [("team", "HMG")],
        "Mortar": [("team", "Mortar")],
        "Armoured Car": [("vehicle", chosen["armoured_car"])],
        "Tank": [("vehicle", chosen["tank"])],
        "Los Tiznaos": [("vehicle", "Los Tiznaos")],
        "Field Gun (& tow)": [("team", "Field Gun"), ("vehicle", "Lorry")],
    }[special]
    units = []
    for uid, (what, detail) in zip(next_ids(state, side, len(plan)), plan, strict=True):
        if what == "company":
            units.append(figures_unit(uid, side, troop_type, grade, detail))
        elif what == "team":
            units.append(team_unit(uid, side, detail, troop_type, grade))
        else:
            units.append(vehicle_unit(uid, side, detail))
    return [
        RulesEvent(
            "ColumnGenerated",
            {
                "side": side,
                "troop_type": troop_type,
                "grade": grade,
                "rolls": rolls,
                "companies": row["companies"],
                "mg": mg.value in row["mg"],
                "special": special,
                "units": units,
            },
        )
    ]


def vehicles_of(kind: str) -> list[str]:
    """The AFVs table's types of one kind (``tank``, ``armoured_car``), or every vehicle."""
    afvs = data.load("afvs")
    found = [n for n, spec in afvs["vehicles"].items() if kind in ("any", spec["kind"])]
    return found + (list(afvs["soft_vehicles"]) if kind == "any" else [])


#: what each kind of bought unit must say (the ``unit`` of a ``buy`` command)
NEEDS = {
    "foot": ("troop_type", "figures"),
    "cavalry": ("troop_type", "figures"),
    "team": ("weapon", "troop_type"),
    "vehicle": ("vehicle",),
    "aircraft": (),
}


def bought_unit(uid: str, side: str, spec: Mapping[str, Any]) -> dict[str, Any]:
    """The unit a ``buy`` describes (its fields typed by the declaration)."""
    kind = spec["kind"]
    missing = [f"unit.{k}" for k in NEEDS[kind] if k not in spec]
    if missing:
        raise InvalidCommand(f"a {kind} unit needs more", {k: ["required"] for k in missing})
    if kind == "team":
        return team_unit(
            uid, side, spec["weapon"], spec["troop_type"], spec.get("grade", 0), spec.get("crew")
        )
    if kind == "vehicle":
        return vehicle_unit(uid, side, spec["vehicle"])
    if kind == "aircraft":
        return aircraft_unit(uid, side)
    extra = list(spec.get("attributes", [])) + (["cavalry"] if kind == "cavalry" else [])
    bad = [a for a in extra if a not in ATTRIBUTES]
    if bad:
        raise InvalidCommand("unknown attribute", {"unit.attributes": bad})
    return figures_unit(
        uid,
        side,
        spec["troop_type"],
        spec.get("grade", 0),
        spec["figures"],
        extra=extra,
        bombs=spec.get("bombs", True),
        lmg=spec.get("lmg", 0),
    )


def buy(state: State, side: str, command: Mapping[str, Any], dice: Dice) -> list[RulesEvent]:
    """Troop Type points and Attribute Costs against the scenario's points."""
    if state["options"]["forces"] != "points":
        raise RuleViolation("GENERATING A COLUMN", "this game generates random columns")
    [uid] = next_ids(state, side, 1)
    u = bought_unit(uid, side, command["unit"])
    if u["troop_type"] is not None:
        check_fielding(state, side, u["troop_type"], "unit.troop_type")
    left = state["budget"][side] - u["points"]
    if left < 0:
        raise RuleViolation(
            "Attribute Costs",
            f"{u['name']} costs {u['points']} points; {state['budget'][side]} left",
        )
    return [RulesEvent("UnitBought", {"side": side, "unit": u, "points": u["points"]})]
