"""The check of a Barcelona scenario (a table in inches, docs/scenario-library.md): its shape by a
marshmallow schema, then every terrain piece, deployment zone, entry point and objective on the
table, each problem at its place (``areas[2].effects``, ``deployment.republican``); placeholders
as warnings.  The same code path serves ``arbiter scenarios check`` and the club scenario library;
``initial_state_from`` builds a game from a checked document with the shipped scenarios' code."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from marshmallow import Schema, ValidationError, fields, validate

from service.rules.barcelona import forces, setup
from service.rules.barcelona import geometry as geo
from service.rules.barcelona.documents import TableDocuments
from service.rules.base import ScenarioError, State
from service.rules.scenario.loader import flatten
from service.rules.scenario.placeholders import unwrap
from service.rules.scenario.schema import Items

Report = list[dict[str, str]]


def _point() -> fields.List:
    return fields.List(fields.Float(), validate=validate.Length(equal=2))


class AreaSchema(Schema):
    id = fields.String(required=True, validate=validate.Length(min=1))
    name = fields.String(required=True, validate=validate.Length(min=1))
    effects = fields.List(fields.String(), load_default=list)
    rect = fields.List(fields.Float(), validate=validate.Length(equal=4))
    polygon = fields.List(_point(), validate=validate.Length(min=3))


class ZoneSchema(Schema):
    rect = fields.List(fields.Float(), required=True, validate=validate.Length(equal=4))


class ObjectiveSchema(Schema):
    name = fields.String(required=True, validate=validate.Length(min=1))
    point = _point()
    point.required = True
    values = fields.Dict(keys=fields.String(), values=fields.Float(), load_default=dict)


class TableSchema(Schema):
    width = fields.Float(required=True, validate=validate.Range(min=1, max=240))
    height = fields.Float(required=True, validate=validate.Range(min=1, max=240))


class OptionSchema(Schema):
    default = fields.Raw(required=True)
    choices = fields.List(fields.Raw())
    description = fields.String(load_default="")  # shown beside the option where a game starts
    min = fields.Integer(strict=True, validate=validate.Equal(1))  # a count: 1 or more


class BarcelonaScenarioSchema(Schema):
    id = fields.String(required=True, validate=validate.Regexp(r"^[a-z0-9][a-z0-9_-]*$"))
    system = fields.String(validate=validate.Equal("barcelona"))
    title = fields.String(required=True, validate=validate.Length(min=1))
    description = fields.String(load_default="")
    placeholder = fields.Boolean(load_default=False)
    sides = fields.List(fields.String(), required=True, validate=validate.Length(equal=2))
    attacker = fields.String(required=True)
    turns = fields.Integer(strict=True, required=True, validate=validate.Range(min=1))
    table = fields.Nested(TableSchema, required=True)
    areas = Items(fields.Nested(AreaSchema), load_default=list)
    deployment = fields.Dict(keys=fields.String(), values=fields.Nested(ZoneSchema), required=True)
    entries = fields.Dict(keys=fields.String(), values=_point(), required=True)
    objectives = Items(fields.Nested(ObjectiveSchema), load_default=list)
    vehicles = fields.Dict(keys=fields.String(), values=fields.Dict(), load_default=dict)
    options = fields.Dict(keys=fields.String(), values=fields.Nested(OptionSchema), required=True)
    units = fields.List(fields.Dict(), load_default=list)
    #: whose troop types a side fields when its name is not a camp (Troop Type table's names)
    camps = fields.Dict(
        keys=fields.String(), values=fields.String(validate=validate.OneOf(forces.CAMPS))
    )


def problems_of(raw: Any) -> tuple[list[tuple[str, str]], Any, list[Any]]:
    """``(problems, loaded data, placeholders)`` of a Barcelona scenario's parsed JSON."""
    if not isinstance(raw, dict):
        return [("", "a scenario must be a JSON object")], None, []
    data, placeholders = unwrap(raw)
    problems: list[tuple[str, str]] = []
    try:
        loaded = BarcelonaScenarioSchema().load(data)
    except ValidationError as err:
        problems.extend(flatten(err.messages))
        loaded = err.valid_data or {}
    problems.extend(_cross_checks(loaded))
    return problems, loaded, placeholders


def _cross_checks(data: Mapping[str, Any]) -> list[tuple[str, str]]:
    found: list[tuple[str, str]] = []
    table = data.get("table") or {}
    sides = list(data.get("sides") or [])
    width, height = table.get("width"), table.get("height")
    if data.get("attacker") is not None and sides and data["attacker"] not in sides:
        found.append(("attacker", f"not a side ({', '.join(sides)})"))
    if width is None or height is None:
        return found
    found += _camp_checks(data, sides)
    found += _area_checks([a or {} for a in data.get("areas") or []], width, height)
    found += _side_checks(data, sides, width, height)
    found += _objective_checks(data, width, height)
    return found


def _camp_checks(data: Mapping[str, Any], sides: list[str]) -> list[tuple[str, str]]:
    """Troop Type table: its names say which side fields which troops (Falangists, Moors ...
    Nationalist; Militia, International Bde. ... Republican). Each side is a camp -- named
    nationalist or republican, or given one in ``camps`` -- and each unit the scenario places is of
    a troop type its side fields."""
    found: list[tuple[str, str]] = []
    camps = dict(data.get("camps") or {})
    for side in camps:
        if sides and side not in sides:
            found.append((f"camps.{side}", f"unknown side {side!r}"))
    state = {"camps": camps}
    for side in sides:
        if forces.camp_of(state, side) is None:
            found.append(
                (
                    "camps",
                    f"side {side!r} is neither nationalist nor republican: give its camp "
                    "(the Troop Type table's names say which side fields which troops)",
                )
            )
    for index, unit in enumerate(u or {} for u in data.get("units") or []):
        side, troop_type = unit.get("side"), unit.get("troop_type")
        if not isinstance(side, str) or not isinstance(troop_type, str):
            continue
        problem = forces.fielding_problem(troop_type, forces.camp_of(state, side))
        if problem is not None:
            found.append((f"units[{index}].troop_type", f"Troop Type: {problem}"))
    return found


def _area_checks(areas: list[Any], width: float, height: float) -> list[tuple[str, str]]:
    found = [
        (place, reason)
        for place, reasons in setup.check_areas(areas, width, height).items()
        for reason in reasons
    ]
    seen: dict[Any, int] = {}
    for index, area in enumerate(areas):
        if area.get("id") in seen:
            found.append((f"areas[{index}].id", f"duplicate piece {area['id']!r}"))
        seen.setdefault(area.get("id"), index)
    return found


def _side_checks(
    data: Mapping[str, Any], sides: list[str], width: float, height: float
) -> list[tuple[str, str]]:
    """Deployment zones and entry points: a known side's, on the table."""
    found: list[tuple[str, str]] = []
    for side, zone in (data.get("deployment") or {}).items():
        if sides and side not in sides:
            found.append((f"deployment.{side}", f"unknown side {side!r}"))
        for corner in geo.polygon(dict(zone)) if zone.get("rect") else []:
            if not geo.on_table(corner, width, height):
                found.append((f"deployment.{side}", f"{list(corner)} is off the table"))
    for side, entry in (data.get("entries") or {}).items():
        if sides and side not in sides:
            found.append((f"entries.{side}", f"unknown side {side!r}"))
        if entry and not geo.on_table(entry, width, height):
            found.append((f"entries.{side}", f"{list(entry)} is off the table"))
    return found


def _objective_checks(
    data: Mapping[str, Any], width: float, height: float
) -> list[tuple[str, str]]:
    found: list[tuple[str, str]] = []
    names: dict[Any, int] = {}
    for index, objective in enumerate(o or {} for o in data.get("objectives") or []):
        point = objective.get("point")
        if point and not geo.on_table(point, width, height):
            found.append((f"objectives[{index}].point", f"{list(point)} is off the table"))
        if objective.get("name") in names:
            found.append(
                (f"objectives[{index}].name", f"duplicate objective {objective['name']!r}")
            )
        names.setdefault(objective.get("name"), index)
    return found


def check_data(raw: Any) -> Report:
    problems, _, placeholders = problems_of(raw)
    report = [{"level": "error", "place": p, "message": m} for p, m in dict.fromkeys(problems)]
    if isinstance(raw, dict) and raw.get("placeholder") is True:
        report.append(
            {
                "level": "warning",
                "place": "placeholder",
                "message": "placeholder: the table "
                "is a stand-in until the club confirms it (placeholder: false)",
            }
        )
    report += [
        {"level": "warning", "place": p.place, "message": f"placeholder: {p.note}"}
        for p in placeholders
    ]
    return report


class BarcelonaScenarioChecks:
    def check_scenario_file(self, path: str) -> Report:
        try:
            raw = json.loads(Path(path).read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            return [{"level": "error", "place": "", "message": f"not a JSON file: {exc}"}]
        return check_data(raw)


class BarcelonaCustomScenarios(TableDocuments):
    """Games from a club's Barcelona scenario (checked first: a problem raises ScenarioError);
    the document's drawing, words and places are the table's (:mod:`.documents`)."""

    def _loaded(self, document: Mapping[str, Any]) -> dict[str, Any]:
        problems, loaded, _ = problems_of(dict(document))
        if problems:
            grouped: dict[str, list[str]] = {}
            for place, message in problems:
                grouped.setdefault(place, []).append(message)
            raise ScenarioError(f"invalid scenario: {problems[0][0]}: {problems[0][1]}", grouped)
        return dict(unwrap(dict(document))[0])

    def default_options_from(self, document: Mapping[str, Any]) -> dict[str, Any]:
        return {k: v["default"] for k, v in self._loaded(document)["options"].items()}

    def initial_state_from(self, document: Mapping[str, Any], options: Mapping[str, Any]) -> State:
        return setup.state_from(self._loaded(document), options)
