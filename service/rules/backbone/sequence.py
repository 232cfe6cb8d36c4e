"""The sequence of play (8.2) and the end of the game (17)."""

from __future__ import annotations

from typing import Any

from service.rules.backbone import geography as geo
from service.rules.backbone.units import State, at
from service.rules.base import RulesEvent

LAST_TURN = 10


def landing_due(state: State) -> bool:
    """14 / 18.2: scenario 1 lands in turn 1 (mandatory); scenario 2 may land from turn 2 on the
    Atlantic (or the Mediterranean the turn after the Strait opens), never in bad weather."""
    if state["landing"].get("done"):
        return False
    if state["data"]["scenario_number"] == 1:
        return state["turn"] == 1
    return state["turn"] >= 2 and state["weather"] == "good"


def turn_steps(state: State) -> list[str]:
    steps = ["administrative", "events", "strait"]
    if state["turn"] >= 2:
        steps.append("replacements")
    first = state.get("initiative", "allied")
    for side in (first, "spanish" if first == "allied" else "allied"):
        if side == "allied" and landing_due(state):
            steps.append("amphibious")
        steps += [f"{side}_movement", f"{side}_combat"]
    return steps


def next_step(state: State, step: str) -> list[RulesEvent]:
    """The events that take the game from ``step`` to the next one (or to the next turn)."""
    steps = turn_steps(state)
    if step in steps and steps.index(step) + 1 < len(steps):
        return [
            RulesEvent("StepChanged", {"step": steps[steps.index(step) + 1], "turn": state["turn"]})
        ]
    return end_of_turn(state)


def end_of_turn(state: State) -> list[RulesEvent]:
    """17: at the end of turn 10 the victory is judged; earlier, if the Allies meet a victory
    condition, the players may agree to end the game."""
    outcome = victory(state)
    if state["turn"] >= LAST_TURN:
        return [RulesEvent("GameEnded", {"result": outcome, "turn": state["turn"]})]
    if outcome["winner"] == "allied":
        return [RulesEvent("StepChanged", {"step": "agreement", "turn": state["turn"]})]
    return new_turn(state)


def new_turn(state: State) -> list[RulesEvent]:
    return [
        RulesEvent("TurnBegan", {"turn": state["turn"] + 1}),
        RulesEvent("StepChanged", {"step": "administrative", "turn": state["turn"] + 1}),
    ]


def victory(state: State) -> dict[str, Any]:
    """17: Allied strategic victory with the 9 Protectorate cities, tactical with 8 including Tangier
    and Ceuta; both need the Port-Lyautey...Taourirt road to the east edge free of Spanish units and
    ZOC.  Otherwise the Spanish win."""
    cities = geo.protectorate_cities(state)
    held = sorted(c for c in cities if geo.controller(state, geo.city_hex(state, c)) == "allied")
    zoc = geo.zoc_of(state, "spanish")
    blocked = [
        h
        for h in state["data"]["victory_road"]
        if h in zoc or any(u["side"] == "spanish" for u in at(state, h))
    ]
    facts = {"allied_cities": held, "road_blocked_at": blocked}
    if not blocked and len(held) == len(cities):
        return {"winner": "allied", "outcome": "win", "level": "strategic", **facts}
    if not blocked and len(held) >= 8 and {"Tangier", "Ceuta"} <= set(held):
        return {"winner": "allied", "outcome": "win", "level": "tactical", **facts}
    return {"winner": "spanish", "outcome": "win", "level": "spanish", **facts}
