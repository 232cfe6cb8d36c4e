"""The Operation Backbone rules system: the core hooks over the modules of this package, its
declared commands and events (:mod:`.declared`) and its capabilities."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from service.rules.actions import Actions
from service.rules.backbone import (  # noqa: F401  (importing them declares commands and events)
    apply,
    combat_flow,
    decisions,
    fog,
    legal,
    luck,
    movement,
    playing,
    setup,
)
from service.rules.backbone.declared import COMMANDS, EVENTS, active_sides
from service.rules.backbone.drawing import BackboneDrawing, as_printed
from service.rules.backbone.preview import BackbonePreviews
from service.rules.backbone.rulebook import OPTIONS, RULEBOOK
from service.rules.backbone.scenario_checks import BackboneScenarioChecks
from service.rules.backbone.units import State
from service.rules.hexgame import HexCustomScenarios, HexRulesSystem


class BackboneRules(HexRulesSystem):
    name = "backbone"
    title = "Operation Backbone"
    document = "backbone"

    commands = COMMANDS
    events = EVENTS

    hidden_information = True
    previews = BackbonePreviews()
    drawing = BackboneDrawing()
    review = luck.BackboneReview()  # luck of the combat dice, steps lost (issue 31)
    scenario_checks = BackboneScenarioChecks()
    custom_scenarios = HexCustomScenarios(  # a club's own scenario (docs/scenario-library.md)
        "backbone",
        lambda scen, options: setup.build_state(scen, options),
        OPTIONS,
        as_drawn=as_printed,  # a club's map is drawn as the printed one is (labels row,column)
    )
    rulebook = RULEBOOK
    declared_options = OPTIONS  # readings clubs differ on (rulebook.py's conflicts)

    # -- scenarios ----------------------------------------------------------------------------
    def scenario_ids(self) -> list[str]:
        return list(setup.SCENARIOS)

    def load_scenario(self, scenario: str) -> Any:
        return setup.scenario(scenario)

    def initial_state(self, scenario: str, options: Mapping[str, Any]) -> State:
        return setup.initial_state(scenario, options)

    # -- whose turn ---------------------------------------------------------------------------
    def acting_side(self, state: State) -> str | None:
        return next(iter(active_sides(state)), None)

    def active_sides(self, state: State) -> list[str]:
        return active_sides(state)

    def phase(self, state: State) -> dict[str, Any]:
        combat = state.get("combat")
        return {
            "turn": state["turn"],
            "phase": state["step"],
            "side": self.acting_side(state),
            "combat_stage": combat["stage"] if combat else None,
            # a decision the rules give a player (18.1, 9.1) waits for that side
            "decision": (state.get("pending") or {}).get("kind"),
            "weather": state["weather"],
            "strait_open": state["strait"]["open"],
        }

    # -- decisions ----------------------------------------------------------------------------
    def actions(self, state: State, side: str) -> Actions:
        if side not in active_sides(state):
            return Actions()
        return legal.actions(state, side)

    # -- fog of war ------------------------------------------------------------------------------
    def view(self, state: State, side: str | None) -> State:
        return fog.view(state, side)
