"""Duel: a tiny made-up game on the rules contract, the proof's own test subject.

It exercises what the conformance suite and the fuzzer check -- declared commands and events, one
action vocabulary with ``one_of`` and ``some_of`` choices, dice, hidden information (a side's secret
plan) and an end -- so the harness can be tested while the real games are elsewhere, and broken on
purpose (:func:`broken`) to show that each check catches what it is meant to.

Its invented rulebook: D1 sequence (red then blue, six turns), D2 advance (one or two spaces towards
the enemy), D3 attack (a d6 per attacker, a hit on 5-6 costs the target a step), D4 plans (written
secretly, revealed at the end of the turn), D5 victory (the side with more steps left).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from service.fuzz.probes import Probe, register_probe
from service.rules.actions import Actions, one_of, some_of
from service.rules.base import (
    Dice,
    RulesEvent,
    RulesSystem,
    RuleViolation,
    ScenarioError,
    ScenarioInfo,
    State,
)
from service.rules.declare import Commands, Count, Events, Text, Unit, Units

SIDES = ("red", "blue")
TURNS = 6
PLANS = ("feint", "charge", "hold")
HIDDEN = "hidden"


def _other(side: str) -> str:
    return SIDES[1 - SIDES.index(side)]


def _guard(state: State, side: str, spec: Any) -> None:
    if state["result"] is not None:
        raise RuleViolation("D5", "the duel is over")
    if side != state["active"]:
        raise RuleViolation("D1", f"it is {state['active']}'s turn")


class _Refs:
    """A unit must be one of the duel's; there are no hexes."""

    def unit(self, state: State, unit_id: str) -> bool:
        return unit_id in state["units"]

    def hex(self, state: State, hex_id: str) -> bool:
        return False


COMMANDS = Commands("duel", guard=_guard, refs=_Refs())
EVENTS = Events("duel")


def _alive(state: State, side: str) -> list[str]:
    return [u for u, v in state["units"].items() if v["side"] == side and v["steps"] > 0]


def _gap(state: State) -> int:
    return int(state["front"]["blue"] - state["front"]["red"])


@COMMANDS.command("advance", unit=Unit(), spaces=Count(minimum=1, maximum=2))
def advance(state: State, side: str, command: Mapping[str, Any], dice: Dice) -> list[RulesEvent]:
    unit = state["units"][command["unit"]]
    if unit["side"] != side or unit["steps"] <= 0:
        raise RuleViolation("D2", "only a unit of yours still fighting advances", "unit")
    if command["spaces"] >= _gap(state):
        raise RuleViolation("D2", "a unit may not pass the enemy front", "spaces")
    return [RulesEvent("Advanced", {"side": side, "unit": command["unit"], **command})]


@COMMANDS.command("attack", attackers=Units(min=1), target=Unit())
def attack(state: State, side: str, command: Mapping[str, Any], dice: Dice) -> list[RulesEvent]:
    if _gap(state) > 1:
        raise RuleViolation("D3", "the fronts must touch to attack", "target")
    if any(a not in _alive(state, side) for a in command["attackers"]):
        raise RuleViolation("D3", "only your units still fighting attack", "attackers")
    if command["target"] not in _alive(state, _other(side)):
        raise RuleViolation("D3", "attack an enemy unit still fighting", "target")
    if len(command["attackers"]) > 2:
        raise RuleViolation("D3", "at most two units attack together", "attackers")
    rolls = [dice.roll(6, "attack").value for _ in command["attackers"]]
    hits = sum(1 for r in rolls if r >= 5)
    return [
        RulesEvent(
            "Attacked",
            {
                "attackers": list(command["attackers"]),
                "target": command["target"],
                "rolls": rolls,
                "hits": min(hits, state["units"][command["target"]]["steps"]),
            },
        )
    ]


@COMMANDS.command("plan", plan=Text(choices=PLANS))
def plan(state: State, side: str, command: Mapping[str, Any], dice: Dice) -> list[RulesEvent]:
    if state["plans"][side] is not None:
        raise RuleViolation("D4", "one plan a turn")
    return [RulesEvent("PlanWritten", {"side": side, "plan": command["plan"]})]


@COMMANDS.command("end_turn")
def end_turn(state: State, side: str, command: Mapping[str, Any], dice: Dice) -> list[RulesEvent]:
    events = [RulesEvent("TurnEnded", {"side": side, "turn": state["turn"]})]
    if side == SIDES[-1]:
        plans = {s: p for s, p in state["plans"].items() if p is not None}
        if plans:
            events.append(RulesEvent("PlansRevealed", {"plans": plans}))
        if state["turn"] >= TURNS or any(not _alive(state, s) for s in SIDES):
            steps = {s: sum(state["units"][u]["steps"] for u in _alive(state, s)) for s in SIDES}
            winner = max(SIDES, key=lambda s: steps[s]) if steps["red"] != steps["blue"] else None
            events.append(RulesEvent("DuelEnded", {"winner": winner, "steps": steps}))
    return events


def _hide_plan(data: dict[str, Any], state: State, side: str | None) -> dict[str, Any]:
    return dict(data) if side == data["side"] else {"side": data["side"], "plan": HIDDEN}


@EVENTS.event(
    "Advanced",
    sections=("D2",),
    topics=("movement",),
    words=lambda d, n: f"{n.unit(d['unit'])} advances {d['spaces']} space(s)",
)
def _advanced(state: State, data: dict[str, Any]) -> None:
    step = data["spaces"] if data["side"] == "red" else -data["spaces"]
    state["front"][data["side"]] += step


@EVENTS.event(
    "Attacked",
    sections=("D3",),
    topics=("combat",),
    words=lambda d, n: (
        f"{n.units(d['attackers'])} attack {n.unit(d['target'])}: {d['hits']} hit(s)"
    ),
    facts=lambda d, s: [f"rolled {', '.join(map(str, d['rolls']))}"],
)
def _attacked(state: State, data: dict[str, Any]) -> None:
    state["units"][data["target"]]["steps"] -= data["hits"]


@EVENTS.event(
    "PlanWritten",
    sections=("D4",),
    topics=("plans",),
    words=lambda d, n: f"{d['side']} writes a plan",
    visible=_hide_plan,
)
def _planned(state: State, data: dict[str, Any]) -> None:
    state["plans"][data["side"]] = data["plan"]


@EVENTS.event(
    "PlansRevealed",
    sections=("D4",),
    topics=("plans",),
    words=lambda d, n: (
        "plans revealed: " + ", ".join(f"{s} {p}" for s, p in sorted(d["plans"].items()))
    ),
    reveals=True,
)
def _revealed(state: State, data: dict[str, Any]) -> None:
    state["revealed"].append({"turn": state["turn"], **data["plans"]})
    state["plans"] = {s: None for s in SIDES}


@EVENTS.event(
    "TurnEnded",
    sections=("D1",),
    topics=("sequence",),
    words=lambda d, n: f"{d['side']} ends turn {d['turn']}",
)
def _turn_ended(state: State, data: dict[str, Any]) -> None:
    if data["side"] == SIDES[-1]:
        state["turn"] += 1
    state["active"] = _other(data["side"])


@EVENTS.event(
    "DuelEnded",
    sections=("D5",),
    topics=("victory",),
    words=lambda d, n: f"the duel ends: {d['winner'] or 'a draw'}",
)
def _ended(state: State, data: dict[str, Any]) -> None:
    state["result"] = {
        "winner": data["winner"],
        "outcome": "win" if data["winner"] else "draw",
        "steps": data["steps"],
    }


class Duel(RulesSystem):
    name = "duel"
    title = "Duel (proof fixture)"
    document = "duel"
    commands = COMMANDS
    events = EVENTS
    hidden_information = True

    def scenarios(self) -> list[ScenarioInfo]:
        return [ScenarioInfo("meeting", self.name, "Meeting on the road", SIDES)]

    def default_options(self, scenario: str) -> dict[str, Any]:
        return {"units": 2}

    def initial_state(self, scenario: str, options: Mapping[str, Any]) -> State:
        if scenario != "meeting":
            raise ScenarioError(f"unknown scenario {scenario!r}", {"scenario": ["unknown"]})
        count = int(options.get("units", 2))
        units = {
            f"{side[0]}{i}": {"side": side, "steps": 2, "name": f"{side.title()} Lancers {i}"}
            for side in SIDES
            for i in range(1, count + 1)
        }
        return {
            "turn": 1,
            "active": "red",
            "front": {"red": 0, "blue": 6},
            "units": units,
            "plans": {s: None for s in SIDES},
            "revealed": [],
            "result": None,
        }

    def active_sides(self, state: State) -> list[str]:
        return [] if state["result"] is not None else [state["active"]]

    def phase(self, state: State) -> dict[str, Any]:
        return {"turn": state["turn"], "phase": "action", "side": state["active"]}

    def actions(self, state: State, side: str) -> Actions:
        out = Actions()
        if side not in self.active_sides(state):
            return out
        names = self.names(state)
        mine, theirs = _alive(state, side), _alive(state, _other(side))
        spaces = [s for s in (1, 2) if s < _gap(state)]
        for unit in mine if spaces else []:
            out.add(
                COMMANDS.template(
                    "advance",
                    f"Advance {names.unit(unit)}",
                    fixed={"unit": unit},
                    choose={"spaces": one_of(spaces, [f"{s} space(s)" for s in spaces])},
                )
            )
        if _gap(state) <= 1 and mine and theirs:
            out.add(
                COMMANDS.template(
                    "attack",
                    "Attack",
                    choose={
                        "attackers": some_of(mine, [names.unit(u) for u in mine], max=len(mine)),
                        "target": one_of(theirs, [names.unit(u) for u in theirs]),
                    },
                )
            )
        if state["plans"][side] is None:
            out.add(COMMANDS.template("plan", "Write a plan", choose={"plan": one_of(PLANS)}))
        out.add(COMMANDS.template("end_turn", "End turn"))
        return out

    def result(self, state: State) -> dict[str, Any] | None:
        result: dict[str, Any] | None = state["result"]
        return result

    def view(self, state: State, side: str | None) -> State:
        seen = {**state, "plans": dict(state["plans"])}
        for other in SIDES:
            if other != side and seen["plans"][other] is not None:
                seen["plans"][other] = HIDDEN
        return seen


SYSTEM = Duel()


def _probe_view(state: State, seen: State, side: str | None) -> list[str]:
    return [
        f"{other}'s plan is shown (D4)"
        for other in SIDES
        if other != side and seen["plans"][other] not in (None, HIDDEN)
    ]


def _probe_event(
    event: RulesEvent, shown: RulesEvent, before: State, side: str | None
) -> list[str]:
    if event.type == "PlanWritten" and event.data["side"] != side:
        return [] if shown.data["plan"] == HIDDEN else ["the other side's plan is shown (D4)"]
    return []


PROBE = Probe(_probe_view, _probe_event)
register_probe("duel", PROBE)
