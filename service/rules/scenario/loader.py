"""Loading a scenario: placeholders unwrapped, the shape checked by the marshmallow schema, then
every cross-reference (hexes on the map, sides, units, entries, turns) checked, and EVERY problem
reported with its place (``units[3].hex: unknown hex Z99``)."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from marshmallow import ValidationError

from service.rules.base import ScenarioError
from service.rules.kernel.grid import Bounds, HexGrid
from service.rules.kernel.mapdata import Entry, MapData, Place
from service.rules.scenario.checks import Checker, Problem
from service.rules.scenario.model import OptionSpec, Reinforcement, Scenario, UnitSpec
from service.rules.scenario.placeholders import Placeholder, join, unwrap
from service.rules.scenario.schema import ScenarioSchema


def flatten(messages: Any, place: str = "") -> list[Problem]:
    """marshmallow's nested error messages -- dicts by field, index, ``_schema`` and a Dict
    field's ``key``/``value``, down to lists of strings -- as ``(place, message)`` pairs."""
    if not isinstance(messages, dict):
        return [(place, str(m)) for m in ([messages] if isinstance(messages, str) else messages)]
    found: list[Problem] = []
    for key, inner in messages.items():
        found.extend(flatten(inner, _place(place, key, set(messages))))
    return found


def _place(place: str, key: str | int, keys: set[str | int]) -> str:
    if key == "_schema":
        return place
    if keys <= {"key", "value"}:  # a Dict field's entry: its key or its value
        return place if key == "value" else f"{place} (key)"
    return join(place, key)


def validate(raw: Any) -> tuple[dict[str, Any] | None, list[Problem], list[Placeholder]]:
    """``(loaded data or None, problems, placeholders)`` for raw (parsed JSON) scenario data."""
    if not isinstance(raw, dict):
        return None, [("", "a scenario must be a JSON object")], []
    data, placeholders = unwrap(raw)
    problems: list[Problem] = []
    try:
        loaded = ScenarioSchema().load(data)
    except ValidationError as err:  # check what did load, too: every problem at once
        problems.extend(flatten(err.messages))
        loaded = err.valid_data or {}
    problems.extend(Checker(loaded).run())
    unique = sorted(set(problems), key=lambda p: (_order(p[0]), p[1]))
    return (loaded if not unique else None), unique, placeholders


def _order(place: str) -> tuple[Any, ...]:
    return tuple(int(part) if part.isdigit() else part for part in re.split(r"(\d+)", place))


def build(data: Mapping[str, Any], placeholders: list[Placeholder]) -> Scenario:
    m = data["map"]
    grid = HexGrid(
        m["coordinates"],
        Bounds(**m["bounds"]),
        m["orientation"],
        m["offset"],
    )
    entries = [Entry(e["name"], tuple(e["hexes"]), e["side"]) for e in m["entries"]]
    mapdata = MapData(
        grid,
        default_terrain=m["default_terrain"],
        terrain=m["terrain"],
        hex_features=m["hex_features"],
        hexsides={(s["hexes"][0], s["hexes"][1]): s["features"] for s in m["hexsides"]},
        places=[
            Place(
                p["name"], p["hex"], p["kind"], p["values"], p.get("label", ""), p.get("notes", "")
            )
            for p in m["places"]
        ],
        supply_sources=m["supply_sources"],
        entries=entries,
    )
    units = {
        u["id"]: UnitSpec(
            u["id"], u["side"], u["type"], u["steps"], u["values"], u["name"], u["hex"]
        )
        for u in data["units"]
    }
    reinforcements = tuple(
        Reinforcement(
            r["turn"],
            r["unit"],
            mapdata.entry_hexes(r["entry"]) if "entry" in r else (r["hex"],),
            r.get("entry"),
        )
        for r in data["reinforcements"]
    )
    return Scenario(
        id=data["id"],
        system=data["system"],
        title=data["title"],
        sides=tuple(data["sides"]),
        turns=data["turns"],
        map=mapdata,
        units=units,
        reinforcements=reinforcements,
        options={name: OptionSpec.from_data(name, o) for name, o in data["options"].items()},
        data=data["data"],
        description=data["description"],
        placeholders=tuple(placeholders),
    )


def _error(what: str, problems: list[Problem]) -> ScenarioError:
    grouped: dict[str, list[str]] = {}
    for place, message in problems:
        grouped.setdefault(place, []).append(message)
    first = f"{problems[0][0]}: {problems[0][1]}" if problems[0][0] else problems[0][1]
    more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
    return ScenarioError(f"invalid scenario {what}: {first}{more}", grouped)


def load_scenario(
    raw: Any, system: str | None = None, declared: Mapping[str, Mapping[str, Any]] | None = None
) -> Scenario:
    """A :class:`Scenario` from parsed JSON; raises ScenarioError listing every problem.
    ``declared``: the options the game's rules module declares for every scenario
    (``RulesSystem.declared_options``), added to the file's own."""
    loaded, problems, placeholders = validate(raw)
    what = raw.get("id", "?") if isinstance(raw, dict) else "?"
    if loaded is not None and system is not None and loaded["system"] != system:
        problems = [("system", f"this scenario is for {loaded['system']!r}, not {system!r}")]
    if problems or loaded is None:
        raise _error(str(what), problems)
    return build(loaded, placeholders).with_declared(declared or {})


def read_json(path: str | Path) -> Any:
    """Parsed JSON of a file; raises ScenarioError when it cannot be read or parsed."""
    try:
        return json.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as exc:
        raise ScenarioError(f"cannot read {path}: {exc.strerror}", {"": [str(exc)]}) from exc
    except json.JSONDecodeError as exc:
        place = f"line {exc.lineno} column {exc.colno}"
        raise ScenarioError(
            f"{path} is not JSON: {exc.msg} at {place}", {place: [exc.msg]}
        ) from exc


def load_scenario_file(
    path: str | Path,
    system: str | None = None,
    declared: Mapping[str, Mapping[str, Any]] | None = None,
) -> Scenario:
    return load_scenario(read_json(path), system, declared)


def check_file(path: str | Path) -> list[dict[str, str]]:
    """Every problem of a scenario file as ``{"level": "error", "place", "message"}`` and every
    placeholder as ``{"level": "warning", "place", "message"}``; empty when all is well."""
    try:
        raw = read_json(path)
    except ScenarioError as exc:
        return [
            {"level": "error", "place": place, "message": exc.message}
            for place in (exc.problems or {"": []})
        ]
    _, problems, placeholders = validate(raw)
    report = [{"level": "error", "place": place, "message": message} for place, message in problems]
    report += [
        {"level": "warning", "place": p.place, "message": f"placeholder: {p.note}"}
        for p in placeholders
    ]
    return report
