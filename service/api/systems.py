"""Rules systems, their scenarios, tables and combat previews."""

from __future__ import annotations

from typing import Any

from flask import request
from flask.views import MethodView

from service.api import schemas
from service.api.auth import optional_user, services
from service.api.blueprint import Blueprint
from service.api.compression import gzip_json
from service.domain.errors import Invalid, NotFound
from service.rules.base import Drawing, InvalidCommand, RulesSystem

blp = Blueprint("systems", __name__, url_prefix="/api", description="Rules systems and scenarios")
blp.after_request(gzip_json)  # a map (Merida: 1,118 hexes) goes gzipped


def system_json(system: RulesSystem) -> dict[str, Any]:
    return {
        "name": system.name,
        "title": system.title,
        "document": system.document,
        "rules_version": system.rules_version,
        "tables": sorted(system.drawing.tables()) if system.drawing else [],
        "scenarios": [s.as_dict() for s in system.scenarios()],
        "capabilities": capabilities(system),
        "previews": sorted(system.previews.commands) if system.previews else [],
        "side_colours": dict(system.side_colours),
        "commands": [spec.describe() for spec in system.commands],
    }


def capabilities(system: RulesSystem) -> list[str]:
    """What a system declares it offers beyond the core."""
    offered = {
        "hidden_information": system.hidden_information,
        "previews": system.previews is not None,
        "drawing": system.drawing is not None,
        "scenario_checks": system.scenario_checks is not None,
        "rulebook": system.rulebook is not None,
    }
    return [name for name, on in offered.items() if on]


def drawing_of(system: RulesSystem) -> Drawing:
    if system.drawing is None:
        raise NotFound(f"{system.name} draws nothing", {"system": ["no drawing capability"]})
    return system.drawing


@blp.route("/systems")
class Systems(MethodView):
    @blp.response(200, schemas.SystemOut(many=True))
    def get(self) -> list[dict[str, Any]]:
        """Every rules system this server enforces."""
        return [system_json(s) for s in services().registry]


@blp.route("/systems/<name>")
class System(MethodView):
    @blp.response(200, schemas.SystemOut)
    def get(self, name: str) -> dict[str, Any]:
        """One rules system."""
        return system_json(services().games.system(name))


@blp.route("/systems/<name>/scenarios/<scenario>/board")
class Board(MethodView):
    @blp.response(200)
    def get(self, name: str, scenario: str) -> Any:
        """The scenario's map as data for drawing: hexes with centres and terrain, hexsides, places."""
        system = services().games.system(name)
        ref, at, version = scenario.partition("@")
        if at and version.isdigit():  # a club scenario's version, for who may read the scenario
            return services().scenarios.board(ref, optional_user(), int(version))
        if scenario not in {s.id for s in system.scenarios()}:
            raise NotFound(
                f"no scenario {scenario!r} in {name}", {"scenario": ["unknown scenario"]}
            )
        return drawing_of(system).board(scenario)


@blp.route("/systems/<name>/tables/<table>")
class Table(MethodView):
    @blp.response(200)
    def get(self, name: str, table: str) -> Any:
        """A table of a rules system, as data (``crt`` ...)."""
        tables = drawing_of(services().games.system(name)).tables()
        if table not in tables:
            raise NotFound(
                f"no table {table!r} in {name}", {"table": [f"known: {', '.join(sorted(tables))}"]}
            )
        return tables[table]


@blp.route("/systems/<name>/combat-preview")
class CombatPreview(MethodView):
    @blp.response(200)
    def post(self, name: str) -> Any:
        """Odds, every modifier with its rule, and for a roll the result (see docs/rules/)."""
        system = services().games.system(name)
        if system.previews is None:
            raise NotFound(f"{name} offers no combat preview", {"system": ["no previews"]})
        situation = request.get_json(silent=True)
        if not isinstance(situation, dict):
            raise Invalid(
                "send the situation as a JSON object", {"body": ["a JSON object is required"]}
            )
        try:
            return system.previews.combat_preview(situation)
        except InvalidCommand as exc:
            raise Invalid(exc.message, exc.details or {"body": [exc.message]}) from None


@blp.route("/scenarios")
class Scenarios(MethodView):
    @blp.response(200, schemas.ScenarioOut(many=True))
    def get(self) -> list[dict[str, Any]]:
        """Every scenario of every system, with its system and title."""
        return [s.as_dict() for system in services().registry for s in system.scenarios()]
