"""The Operation Backbone rules system: the RulesSystem contract over the modules of this package."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from service.rules.backbone import (
    combat_flow,
    drawing,
    fog,
    knowledge,
    legal,
    playing,
    sequence,
    setup,
)
from service.rules.backbone.apply import HANDLERS
from service.rules.backbone.combat import CombatError, evaluate
from service.rules.backbone.crt import crt_table
from service.rules.backbone.movement import check_path, stacking_violations
from service.rules.backbone.preview import preview_attack
from service.rules.backbone.units import State, enemy, unit
from service.rules.base import (
    Dice,
    Governing,
    InvalidCommand,
    RulesEvent,
    RulesSystem,
    RuleViolation,
    ScenarioInfo,
)

SIDES = ["allied", "spanish"]
REVEALING = frozenset({"CombatDeclared", "EventChitDrawn", "EventChitPlayed", "ReplacementsPlaced"})


class BackboneRules(RulesSystem):
    name = "backbone"
    title = "Operation Backbone"
    document = "backbone"

    # -- scenarios ----------------------------------------------------------------------------
    def scenarios(self) -> list[ScenarioInfo]:
        return setup.infos()

    def initial_state(self, scenario: str, options: Mapping[str, Any]) -> State:
        return setup.initial_state(scenario, options)

    def default_options(self, scenario: str) -> dict[str, Any]:
        return setup.scenario(scenario).default_options()

    def check_scenario_file(self, path: str) -> list[dict[str, str]]:
        return knowledge.check_scenario_file(path)

    # -- whose turn ---------------------------------------------------------------------------
    def sides(self, state: State) -> list[str]:
        return list(SIDES)

    def active_sides(self, state: State) -> list[str]:
        step = state["step"]
        combat = state.get("combat")
        if state.get("result") or step == "over":
            return []
        if combat:
            attacker = combat["attacker_side"]
            if combat["stage"] == "baraka":
                return ["spanish"]
            return [attacker] if combat["stage"] == "advance" else [enemy(attacker)]
        if step == "deployment":
            return ["spanish"]
        if step == "allied_deployment":
            return ["allied"]
        if step in ("administrative", "strait", "amphibious"):
            return ["allied"]
        if step == "events":
            return ["spanish" if state["turn"] % 2 else "allied"]
        if step == "replacements":
            return [s for s in SIDES if s not in state["replacements"]]
        if step == "agreement":
            return [s for s in SIDES if s not in state["end_votes"]]
        return [step.split("_")[0]]

    def phase(self, state: State) -> dict[str, Any]:
        combat = state.get("combat")
        return {
            "turn": state["turn"],
            "phase": state["step"],
            "side": next(iter(self.active_sides(state)), None),
            "combat_stage": combat["stage"] if combat else None,
            "weather": state["weather"],
            "strait_open": state["strait"]["open"],
        }

    # -- decisions ----------------------------------------------------------------------------
    def legal_actions(self, state: State, side: str) -> list[dict[str, Any]]:
        if side not in self.active_sides(state):
            return []
        return legal.legal_actions(state, side)

    def decide(
        self, state: State, side: str, command: Mapping[str, Any], dice: Dice
    ) -> list[RulesEvent]:
        if not isinstance(command, Mapping) or not isinstance(command.get("type"), str):
            raise InvalidCommand("a command needs a type", {"type": ["missing"]})
        self._check_turn(state, side)
        kind = command["type"]
        step = state["step"]
        combat = state.get("combat")
        if combat:
            return self._combat_stage(state, side, command, dice)
        handler = {
            "deployment": {"deploy": playing.deploy},
            "allied_deployment": {"deploy": playing.deploy},
            "administrative": {"begin_turn": playing.begin_turn},
            "events": {"play_event": playing.play_event, "pass": playing.pass_events},
            "strait": {"roll_strait": playing.roll_strait},
            "replacements": {"replace": playing.replace},
            "amphibious": {"land": self._land, "pass": self._pass_landing},
            "agreement": {"vote_end": playing.vote_end},
        }.get(step)
        if handler is None:
            handler = (
                {"move": self._move, "end_phase": self._end_movement, "drop": playing.drop}
                if step.endswith("_movement")
                else {"attack": self._attack, "end_phase": self._end_combat}
            )
        if kind not in handler:
            raise RuleViolation(
                "8.2", f"{kind!r} is not allowed in the {step} step ({sorted(handler)})", "type"
            )
        return handler[kind](state, side, command, dice)

    def _check_turn(self, state: State, side: str) -> None:
        if side not in SIDES:
            raise InvalidCommand("unknown side", {"side": [f"one of {SIDES}"]})
        if side not in self.active_sides(state):
            raise RuleViolation("8.2", f"it is not the {side} player's turn to act", "side")

    # -- operations -----------------------------------------------------------------------------
    def _move(
        self, state: State, side: str, command: Mapping[str, Any], dice: Dice
    ) -> list[RulesEvent]:
        u = unit(state, command.get("unit"))
        path = command.get("path")
        if u is None or not isinstance(path, list) or not all(isinstance(h, str) for h in path):
            raise InvalidCommand(
                "move needs unit and path", {"unit": ["a unit id"], "path": ["a list of hexes"]}
            )
        if u["side"] != side or u["status"] != "map":
            raise RuleViolation("15.1", f"{u['name']} is not one of your units on the map", "unit")
        if u["id"] in state["moved"]:
            raise RuleViolation("15.1", f"{u['name']} has already moved this phase", "unit")
        if u.get("landed_turn") == state["turn"]:
            raise RuleViolation("14", f"{u['name']} landed this turn and cannot move", "unit")
        return [RulesEvent("UnitMoved", check_path(state, u, path))]

    def _end_movement(
        self, state: State, side: str, command: Mapping[str, Any], dice: Dice
    ) -> list[RulesEvent]:
        problems = stacking_violations(state, side)
        if problems:
            where = ", ".join(f"{p['hex']} ({p['limit']})" for p in problems)
            raise RuleViolation(
                "5", f"stacking is over the limit at the end of movement: {where}", "type"
            )
        return sequence.next_step(state, state["step"])

    def _attack(
        self, state: State, side: str, command: Mapping[str, Any], dice: Dice
    ) -> list[RulesEvent]:
        return combat_flow.declare(state, side, command)

    def _end_combat(
        self, state: State, side: str, command: Mapping[str, Any], dice: Dice
    ) -> list[RulesEvent]:
        return sequence.next_step(state, state["step"])

    def _land(
        self, state: State, side: str, command: Mapping[str, Any], dice: Dice
    ) -> list[RulesEvent]:
        events = playing.land(state, command)
        if events[-1].type == "LandingSucceeded":
            return events + self._after(state, events)
        return events

    def _pass_landing(
        self, state: State, side: str, command: Mapping[str, Any], dice: Dice
    ) -> list[RulesEvent]:
        if state["data"]["scenario_number"] == 1:
            raise RuleViolation("14", "the landing of turn 1 is mandatory", "type")
        return sequence.next_step(state, "amphibious")

    def _combat_stage(
        self, state: State, side: str, command: Mapping[str, Any], dice: Dice
    ) -> list[RulesEvent]:
        stage = state["combat"]["stage"]
        allowed = {
            "defence": "defend",
            "baraka": "baraka",
            "retreat": "retreat",
            "advance": "advance",
        }[stage]
        if command["type"] != allowed:
            raise RuleViolation("16.2", f"the combat waits for {allowed!r}", "type")
        if stage == "defence":
            events = combat_flow.defend(state, side, command, dice)
        elif stage == "baraka":
            events = combat_flow.baraka(state, command, dice)
        elif stage == "retreat":
            events = combat_flow.retreat(state, side, command, dice)
        else:
            events = combat_flow.advance(state, side, command)
        return events + self._after(state, events)

    def _after(self, state: State, events: list[RulesEvent]) -> list[RulesEvent]:
        """After a landing combat ends the game moves on from the amphibious segment (14)."""
        if (
            state["step"] == "amphibious"
            and any(e.type == "CombatEnded" or e.type == "LandingSucceeded" for e in events)
            and not any(e.type == "AdvanceRequired" for e in events)
        ):
            return sequence.next_step(state, "amphibious")
        return []

    def apply(self, state: State, event: RulesEvent) -> State:
        return HANDLERS.apply(state, event)

    def result(self, state: State) -> dict[str, Any] | None:
        return state.get("result")

    # -- fog of war ------------------------------------------------------------------------------
    def view(self, state: State, side: str | None) -> State:
        return fog.view(state, side)

    def event_view(self, event: RulesEvent, state_before: State, side: str | None) -> RulesEvent:
        return fog.event_view(self, event, state_before, side)

    def reveals(self, event: RulesEvent) -> bool:
        """Events that show the acting side something hidden: a declared combat (the defending
        stack under 19.2; and 16.1: once announced it must be fought), a drawn or played chit
        (10.2), the opponent's replacements (13.2)."""
        return event.type in REVEALING

    # -- knowledge -------------------------------------------------------------------------------
    def governing(self, event_type: str) -> Governing:
        return knowledge.governing(event_type)

    def event_facts(self, event: RulesEvent, state_before: State) -> list[str]:
        return knowledge.event_facts(event, state_before)

    def describe(self, event: RulesEvent) -> str:
        return knowledge.describe(event)

    # -- drawing ---------------------------------------------------------------------------------
    def board(self, scenario: str) -> dict[str, Any]:
        """The scenario's map drawn as printed, with its placeholder markers (see :mod:`.drawing`)."""
        return drawing.board(scenario)

    # -- tables and previews ----------------------------------------------------------------------
    def tables(self) -> dict[str, Any]:
        return knowledge.tables(crt_table())

    def preview(self, state: State, side: str, command: Mapping[str, Any]) -> dict[str, Any]:
        """An attack before it is declared, on ``side``'s view: see :mod:`.preview` (16, 19.2)."""
        if not isinstance(command, Mapping) or command.get("type") != "attack":
            raise InvalidCommand("only attacks are previewed", {"type": ["attack"]})
        self._check_turn(state, side)
        if state.get("combat"):
            stage = state["combat"]["stage"]
            raise RuleViolation("16.2", f"a declared combat waits for its {stage} stage", "type")
        if not state["step"].endswith("_combat"):
            raise RuleViolation(
                "8.2", f"'attack' is not allowed in the {state['step']} step", "type"
            )
        return preview_attack(state, side, command)

    def combat_preview(self, situation: Mapping[str, Any]) -> dict[str, Any]:
        if not isinstance(situation, Mapping):
            raise InvalidCommand(
                "the situation must be an object", {"situation": ["not an object"]}
            )
        try:
            return evaluate(situation)
        except CombatError as exc:
            raise InvalidCommand(
                f"{exc.message} (rule {exc.rule})",
                {exc.field: [f"{exc.message} (rule {exc.rule})"]},
            ) from exc
