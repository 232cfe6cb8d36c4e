"""The Closing the Merida Pocket rules system (see docs/rules/merida.md and docs/rules/contract.md).

The core hooks a hex game fills (scenarios, the state before the first command, the acting side,
the phase, the actions), the declared commands and events, and the capabilities it offers: the
drawing of board, counters and tables, the attack and combat previews, and the check of a scenario
file.  It has no hidden information."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

from service.rules.actions import Actions
from service.rules.base import State
from service.rules.hexgame import (
    HexCustomScenarios,
    HexDrawing,
    HexRulesSystem,
    HexScenarioChecks,
)
from service.rules.merida import (  # noqa: F401 - each module declares the commands it decides
    advance,
    battle,
    choices,
    data,
    luck,
    moves,
    phases,
    reinforce,
    scenario_checks,
    setup,
)
from service.rules.merida.board import acting_side
from service.rules.merida.commands import COMMANDS
from service.rules.merida.events import EVENTS
from service.rules.merida.legal import actions
from service.rules.merida.preview import MeridaPreviews
from service.rules.merida.rulebook import OPTIONS, RULEBOOK
from service.rules.merida.sequence import enter_first_turn
from service.rules.scenario import Scenario


class MeridaRules(HexRulesSystem):
    name = "merida"
    title = "Closing the Merida Pocket - Extremadura, 1938"
    document = "merida"
    #: rule 2: "Nationalist ... forces are represented by the blue counters, while Republican ...
    #: forces are represented by the green counters"
    side_colours = MappingProxyType({"nationalist": "blue", "republican": "green"})

    commands = COMMANDS
    events = EVENTS
    hidden_information = False
    rulebook = RULEBOOK
    declared_options = OPTIONS  # readings clubs differ on (rulebook.py's conflicts)

    def __init__(self) -> None:
        self.drawing = HexDrawing(self.scenario_map, data.tables)
        self.previews = MeridaPreviews()
        self.review = luck.MeridaReview()  # luck of the combat dice, VP and losses (issue 31)
        self.scenario_checks = HexScenarioChecks(setup.unit_check, scenario_checks.check)
        self.custom_scenarios = (
            HexCustomScenarios(  # a club's own scenario (docs/scenario-library.md)
                "merida",
                lambda scen, options: enter_first_turn(setup.build_state(scen, options)),
                OPTIONS,
            )
        )

    # -- scenarios --------------------------------------------------------------------------------
    def scenario_ids(self) -> list[str]:
        return setup.scenario_ids()

    def load_scenario(self, scenario: str) -> Scenario:
        return setup.load(scenario)

    def initial_state(self, scenario: str, options: Mapping[str, Any]) -> State:
        return enter_first_turn(setup.build_state(setup.load(scenario), options))

    # -- whose turn, what they may do --------------------------------------------------------------
    def acting_side(self, state: State) -> str | None:
        return acting_side(state)

    def phase(self, state: State) -> dict[str, Any]:
        return {
            "turn": state["turn"],
            "phase": state["phase"],
            "side": state["side"],
            "acting": acting_side(state),
        }

    def actions(self, state: State, side: str) -> Actions:
        return actions(state, side)
