"""What governs each event (rule sections and topics), event facts and descriptions for the
knowledge base, the tables served by the API, and the scenario file check."""

from __future__ import annotations

from typing import Any

from service.rules.backbone.data_files import load
from service.rules.backbone.units import State
from service.rules.base import Governing, RulesEvent
from service.rules.scenario import check_file

GOVERNING: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "UnitMoved": (
        ("15", "15.1", "15.2", "7.1", "9.2", "5"),
        ("movement", "zone of control", "terrain"),
    ),
    "UnitsDeployed": (("8.1", "18.1", "18.2", "5"), ("deployment",)),
    "StepChanged": (("8.2",), ("sequence of play",)),
    "TurnBegan": (("8.2", "3"), ("sequence of play",)),
    "CombatDeclared": (
        ("16.1", "16.2", "16.3", "16.4", "9.1", "9.2", "12.3", "14"),
        ("combat", "supports"),
    ),
    "DefenceDeclared": (("16.3", "16.4", "9.1", "9.2"), ("combat", "supports")),
    "CombatRolled": (("10.2", "16.2"), ("Baraka", "combat")),
    "BarakaUsed": (("10.2",), ("Baraka",)),
    "CombatResolved": (
        ("16.2", "16.3", "16.6", "6"),
        ("combat results table", "losses", "efficiency"),
    ),
    "RetreatRequired": (("16.7",), ("retreat",)),
    "LastStandRolled": (("16.5",), ("last stand defense",)),
    "UnitsRetreated": (("16.7", "7.2"), ("retreat", "zone of control")),
    "AdvanceRequired": (("16.7",), ("advance after combat",)),
    "UnitsAdvanced": (("16.7", "9.1"), ("advance after combat", "exploitation")),
    "CombatEnded": (("16.1",), ("combat",)),
    "LandingSucceeded": (("14", "18.2"), ("amphibious invasion", "beachhead")),
    "LandingFailed": (("14",), ("amphibious invasion",)),
    "WeatherDetermined": (("10.1", "3", "19.1"), ("weather",)),
    "SupportPointsSet": (("16.4", "10.1", "16.3", "18.2"), ("air points", "naval support")),
    "StraitRolled": (("11", "10.2", "18.2"), ("Strait of Gibraltar",)),
    "SupplyDetermined": (("12.1", "12.2", "7.2"), ("supply",)),
    "ReinforcementsArrived": (("13.1", "14", "9.1"), ("reinforcements",)),
    "EventChitDrawn": (("10.2",), ("events",)),
    "EventChitPlayed": (("10.2",), ("events",)),
    "FortificationsBuilt": (("13.3",), ("fortifications",)),
    "ReplacementsChosen": (("13.2",), ("replacements",)),
    "ReplacementsPlaced": (("13.2",), ("replacements",)),
    "EndOfGameVoted": (("17",), ("victory",)),
    "GameEnded": (("17",), ("victory",)),
    "ParatroopersDropped": (("18.1", "9.2"), ("paratrooper assault",)),
}


def governing(event_type: str) -> Governing:
    sections, topics = GOVERNING.get(event_type, ((), ()))
    return Governing(sections=sections, topics=topics)


def event_facts(event: RulesEvent, state_before: State) -> list[str]:
    """Words for ruling search: terrain, unit types, result, weather ..."""
    d = event.data
    words: list[str] = []
    units = state_before.get("units", {})

    def unit_words(ids: list[str]) -> None:
        for uid in ids:
            if uid in units:
                words.extend([units[uid]["type"], units[uid]["nation"]])

    if event.type == "UnitMoved":
        unit_words([d["unit"]])
        if d.get("ignored_zoc"):
            words.append("ignore first ZOC")
        if d.get("zoc_to_zoc"):
            words.append("ZOC to ZOC")
    elif event.type == "CombatDeclared":
        c = d["combat"]
        unit_words(c["attackers"] + c["defenders"])
        if c.get("amphibious"):
            words.append("amphibious")
        if c.get("exploitation"):
            words.append("exploitation")
    elif event.type == "CombatResolved":
        words += [d["result"]["text"], d["odds"]["column"]]
        if d["result"]["retreat"]:
            words.append("retreat")
    elif event.type == "WeatherDetermined":
        words.append(f"{d['weather']} weather")
    elif event.type in ("EventChitDrawn", "EventChitPlayed"):
        words.append(str(d.get("chit")))
    elif event.type == "LastStandRolled":
        words.append("last stand " + ("success" if d["success"] else "failed"))
    return sorted(set(words))


def describe(event: RulesEvent) -> str:
    d = event.data
    t = event.type
    if t == "UnitMoved":
        return f"{d['unit']} moves {' -> '.join(d['path'])} ({d['cost']:g} of {d['mp']} MP)"
    if t == "CombatDeclared":
        c = d["combat"]
        return f"{c['attacker_side']} attacks {c['target']} with {', '.join(c['attackers'])}"
    if t == "CombatResolved":
        return (
            f"combat at {d['target']}: {d['odds']['base_ratio']} -> {d['odds']['column']}, "
            f"die {d['die']['value']}{d['net_drm']:+d} = {d['modified_roll']}: {d['result']['text']}"
        )
    if t == "UnitsRetreated":
        return f"{', '.join(d['units'])} retreat from {d['from']} to {d['to'] or 'elimination'}"
    if t == "UnitsAdvanced":
        return f"{', '.join(d['units'])} advance into {d['to']}"
    if t == "WeatherDetermined":
        return f"the weather is {d['weather']}"
    if t == "StraitRolled":
        return "the Strait is forced open" if d["success"] else "the Strait stays closed"
    if t == "StepChanged":
        return f"turn {d['turn']}: {d['step'].replace('_', ' ')}"
    if t == "GameEnded":
        return f"game over: {d['result']['level']} ({d['result']['winner']})"
    return f"{t} {d}"


def check_scenario_file(path: str) -> list[dict[str, str]]:
    """The shared format's problems and placeholders, plus Backbone's own: every unit needs its
    nation and formation in ``data.units``, and set-up hexes must be land."""
    report = check_file(path)
    if any(item["level"] == "error" for item in report):
        return report
    from service.rules.scenario import load_scenario_file

    scen = load_scenario_file(path)
    extra = scen.data.get("units", {})
    for index, spec in enumerate(scen.units.values()):
        if spec.id not in extra or not {"nation", "formation"} <= set(extra[spec.id]):
            report.append(
                {
                    "level": "error",
                    "place": f"units[{index}]",
                    "message": f"data.units.{spec.id} needs nation and formation",
                }
            )
        if spec.hex and scen.map.terrain(spec.hex) == "sea":
            report.append(
                {
                    "level": "error",
                    "place": f"units[{index}].hex",
                    "message": f"{spec.hex} is a sea hex",
                }
            )
    for key in (
        "scenario_number",
        "air_points",
        "strait_drm",
        "victory_road",
        "amphibious",
        "spanish_zone_max_row",
    ):
        if key not in scen.data:
            report.append({"level": "error", "place": f"data.{key}", "message": "missing"})
    return report


def tables(crt: dict[str, Any]) -> dict[str, Any]:
    return {
        "crt": crt,
        "terrain": load("terrain"),
        "weather": load("weather"),
        "strait": load("strait"),
        "supports": load("supports"),
        "events": load("events"),
        "replacements": load("replacements"),
    }
