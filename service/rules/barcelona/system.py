"""The Back to Barcelona rules system (see docs/rules/barcelona.md): the core hooks and the declared
capabilities; commands are declared in ``commands.py``, events in ``events.py``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from service.rules.actions import Actions
from service.rules.barcelona import data, documents, fog, legal, sequence, setup, shooting
from service.rules.barcelona import luck as barcelona_luck
from service.rules.barcelona import table as tb
from service.rules.barcelona.commands import COMMANDS
from service.rules.barcelona.events import EVENTS
from service.rules.barcelona.preview import BarcelonaPreviews
from service.rules.barcelona.rulebook import RULEBOOK
from service.rules.barcelona.scenario_checks import (
    BarcelonaCustomScenarios,
    BarcelonaScenarioChecks,
)
from service.rules.base import RulesSystem, ScenarioInfo, State


class TableDrawing:
    """The drawing capability of a game on a table: the table and its areas in inches, the units
    with their positions and figures, the sheet's tables."""

    def board(self, scenario: str) -> dict[str, Any]:
        """The shipped table drawn as a club's is (:func:`documents.board`)."""
        return documents.board(setup.load(scenario))

    def counters(self, state: State) -> list[dict[str, Any]]:
        return [_counter(u) for u in sorted(tb.on_table(state), key=lambda x: x["id"])]

    def tables(self) -> dict[str, Any]:
        return {
            "weapons": data.load("weapons"),
            "afvs": data.load("afvs"),
            "movement": data.load("movement"),
            "troop_types": data.load("troops")["troop_types"],
            "attribute_costs": data.load("troops")["attribute_costs"],
            "catalogue": legal.catalogue(),
            "column": data.load("column"),
            "morale": data.load("morale"),
            "shooting_order": list(shooting.STEPS),
            "placeholders": data.load("house"),
        }


def _counter(u: tb.Unit) -> dict[str, Any]:
    return {
        "id": u["id"],
        "side": u["side"],
        "x": u["x"],
        "y": u["y"],
        "facing": u["facing"],
        "type": u["kind"],
        "name": u["name"],
        "values": {"figures": u["figures"], "morale": u["morale"], "failures": u["failures"]},
        "figures": [[round(x, 2), round(y, 2)] for x, y in tb.figures_of(u)],
        "steps": u["figures"],
        "max_steps": None,
    }


class BarcelonaRules(RulesSystem):
    name = "barcelona"
    title = "Back to Barcelona - Spanish Civil War miniatures"
    document = "barcelona"

    commands = COMMANDS
    events = EVENTS

    #: written orders stay hidden from the other side until the end of the turn reveals them
    hidden_information = True
    drawing = TableDrawing()
    previews = BarcelonaPreviews()
    review = barcelona_luck.BarcelonaReview()  # luck of the shooting dice (issue 31)
    rulebook = RULEBOOK
    scenario_checks = BarcelonaScenarioChecks()  # the table in inches: pieces, zones, objectives
    custom_scenarios = BarcelonaCustomScenarios()  # a club's own table (docs/scenario-library.md)

    def scenarios(self) -> list[ScenarioInfo]:
        return [setup.info(s) for s in data.scenario_ids()]

    def default_options(self, scenario: str) -> dict[str, Any]:
        return setup.default_options(scenario)

    def initial_state(self, scenario: str, options: Mapping[str, Any]) -> State:
        return setup.initial_state(scenario, options)

    def active_sides(self, state: State) -> list[str]:
        return sequence.acting(state)

    def phase(self, state: State) -> dict[str, Any]:
        return {
            "turn": state["turn"],
            "phase": state["phase"],
            "step": state["step"],
            "side": state["mover"] if state["phase"] in ("deployment", "movement") else None,
            "acting": sequence.acting(state),
        }

    def actions(self, state: State, side: str) -> Actions:
        return legal.actions(state, side)

    def result(self, state: State) -> dict[str, Any] | None:
        return state["result"]  # type: ignore[no-any-return]

    def view(self, state: State, side: str | None) -> State:
        return fog.view(state, side)
