"""The SEQUENCE OF PLAY: muster and deployment before the first turn, then each turn: written
orders and their transmission, late arrivals, alternate unit moves, shooting in the printed order,
close combat, morale tests, rallying; the automatic phases run by the server; the end of the game."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from service.rules.barcelona import geometry as geo
from service.rules.barcelona import melee, morale, movement, orders, shooting
from service.rules.barcelona import table as tb
from service.rules.base import Dice, RulesEvent, RuleViolation, State
from service.rules.declare import Emitter

RULE = "SEQUENCE OF PLAY"
IN_PLAY = ("table", "reserve", "unplaced", "carried", "towed")


def acting(state: State) -> list[str]:
    phase = state["phase"]
    if phase == "over":
        return []
    if phase in ("deployment", "movement"):
        return [state["mover"]] if not state["done"][state["mover"]] else []
    return [s for s in state["sides"] if not state["done"].get(s)]


# -- deployment ------------------------------------------------------------------------------------
def facing_of(state: State, side: str) -> float:
    """The attacker deploys facing up the table (90 degrees), the defender down it."""
    return 90.0 if side == state["attacker"] else 270.0


def outside_zone(state: State, side: str, u: tb.Unit, at: Mapping[str, float], ranks: int) -> int:
    """How many figures of ``u`` placed ``at`` stand outside ``side``'s deployment zone."""
    zone = geo.polygon(state["deployment"][side])
    return sum(1 for p in tb.figures_of({**u, **at, "ranks": ranks}) if not geo.inside(p, zone))


def deploy(state: State, side: str, command: Mapping[str, Any], dice: Dice) -> list[RulesEvent]:
    u = _unplaced(state, side, command)
    facing = command.get("facing", facing_of(state, side))
    ranks = command.get("ranks", 1)
    at = {"x": float(command["x"]), "y": float(command["y"]), "facing": float(facing)}
    outside = outside_zone(state, side, u, at, ranks)
    if outside:
        raise RuleViolation(
            "scenario", f"every figure must stand in your deployment zone ({outside} outside)", "x"
        )
    return [RulesEvent("UnitDeployed", {"unit": u["id"], "side": side, **at, "ranks": ranks})]


def reserve(state: State, side: str, command: Mapping[str, Any], dice: Dice) -> list[RulesEvent]:
    u = _unplaced(state, side, command)
    return [RulesEvent("UnitReserved", {"unit": u["id"], "side": side})]


def _unplaced(state: State, side: str, command: Mapping[str, Any]) -> tb.Unit:
    u = tb.unit(state, command["unit"])
    if u["side"] != side or u["status"] != "unplaced":
        raise RuleViolation(
            "scenario", f"{u['name']} is not one of your units waiting to deploy", "unit"
        )
    return u


def waiting(state: State, side: str) -> list[str]:
    """The units of ``side`` still to deploy or hold back."""
    units = state["units"].values()
    return sorted(u["id"] for u in units if u["side"] == side and u["status"] == "unplaced")


def end_deployment(
    state: State, side: str, command: Mapping[str, Any], dice: Dice
) -> list[RulesEvent]:
    left = waiting(state, side)
    if left:
        names = ", ".join(tb.unit(state, uid)["name"] for uid in left)
        raise RuleViolation("scenario", f"deploy or hold back every unit first: {names}")
    return [RulesEvent("DeploymentEnded", {"side": side})]


# -- the automatic parts ----------------------------------------------------------------------------
def settle(flow: Emitter, dice: Dice) -> None:
    """Run every phase no player acts in, until a player must act or the game is over."""
    for _ in range(200):
        s = flow.state
        if s["phase"] == "over":
            return
        if s["phase"] not in ("muster", "deployment") and (ended := _ended_by_loss(s)):
            flow.emit(ended)
            return
        if not _AUTOMATIC.get(s["phase"], _never)(flow, dice):
            return
    raise RuntimeError("the sequence of play did not settle")  # pragma: no cover - a bug guard


def _after_muster(flow: Emitter, dice: Dice) -> bool:
    s = flow.state
    if not all(s["done"].values()):
        return False
    flow.emit(RulesEvent("PhaseBegan", {"phase": "deployment", "mover": s["defender"]}))
    return True


def _after_deployment(flow: Emitter, dice: Dice) -> bool:
    if not all(flow.state["done"].values()):
        return False
    _begin_turn(flow, 1)
    return True


def _after_orders(flow: Emitter, dice: Dice) -> bool:
    if not all(flow.state["done"].values()):
        return False
    flow.emit(orders.transmission(flow.state, dice))
    flow.emit(orders.late_arrivals(flow.state, dice))
    s = flow.state
    done = {side: not movement.movable(s, side) for side in s["sides"]}
    mover = s["attacker"] if not done[s["attacker"]] else s["defender"]
    flow.emit(RulesEvent("PhaseBegan", {"phase": "movement", "mover": mover, "done": done}))
    return True


def _in_movement(flow: Emitter, dice: Dice) -> bool:
    s = flow.state
    if s["moving"]:
        return False
    idle = [x for x in s["sides"] if not s["done"][x] and not movement.movable(s, x)]
    if idle:
        flow.emit(RulesEvent("MovementEnded", {"side": idle[0], "automatic": True}))
    elif all(s["done"].values()):
        _next_step(flow, dice, None)
    else:
        return False
    return True


def _in_shooting(flow: Emitter, dice: Dice) -> bool:
    s = flow.state
    idle = [x for x in s["sides"] if not s["done"][x] and not shooting.shooters(s, x, s["step"])]
    if idle:
        flow.emit(RulesEvent("StepEnded", {"side": idle[0], "automatic": True}))
    elif all(s["done"].values()):
        _next_step(flow, dice, s["step"])
    else:
        return False
    return True


def _never(flow: Emitter, dice: Dice) -> bool:
    return False


_AUTOMATIC = {
    "muster": _after_muster,
    "deployment": _after_deployment,
    "orders": _after_orders,
    "movement": _in_movement,
    "shooting": _in_shooting,
}


def _begin_turn(flow: Emitter, turn: int) -> None:
    flow.emit(RulesEvent("TurnBegan", {"turn": turn}))
    flow.emit(RulesEvent("PhaseBegan", {"phase": "orders"}))


def _next_step(flow: Emitter, dice: Dice, current: str | None) -> None:
    """The next step of the shooting order in which someone can fire, else the end of the turn."""
    after = shooting.STEPS.index(current) + 1 if current else 0
    for step in shooting.STEPS[after:]:
        s = flow.state
        # who could fire with every figure the step starts with (shooters only reads the state)
        probe = {
            **s,
            "units": {
                uid: {**u, "step_figures": u["figures"] if u["status"] == "table" else 0}
                for uid, u in s["units"].items()
            },
        }
        done = {side: not shooting.shooters(probe, side, step) for side in s["sides"]}
        if not all(done.values()):
            if current is None:
                flow.emit(RulesEvent("PhaseBegan", {"phase": "shooting"}))
            flow.emit(RulesEvent("StepBegan", {"step": step, "done": done}))
            return
    _end_of_turn(flow, dice)


def _end_of_turn(flow: Emitter, dice: Dice) -> None:
    flow.emit(RulesEvent("PhaseBegan", {"phase": "close_combat"}))
    for attacker, defender in melee.pairs(flow.state):
        if {flow.state["units"][attacker]["status"], flow.state["units"][defender]["status"]} == {
            "table"
        }:
            flow.emit(melee.resolve(flow.state, attacker, defender, dice))
    flow.emit(RulesEvent("PhaseBegan", {"phase": "morale"}))
    for uid in sorted(flow.state["units"]):
        u = flow.state["units"][uid]
        if u["status"] == "table" and tb.has_figures(u):
            flow.emit(morale.test(flow.state, u, dice))
    flow.emit(RulesEvent("PhaseBegan", {"phase": "rallying"}))
    for uid in sorted(flow.state["units"]):
        u = flow.state["units"][uid]
        if u["status"] == "table" and tb.has_figures(u):
            flow.emit(morale.rally(flow.state, u, dice))
    s = flow.state
    flow.emit(RulesEvent("TurnEnded", {"turn": s["turn"]}))
    written = {side: {uid: dict(o) for uid, o in s["written"][side].items()} for side in s["sides"]}
    flow.emit(RulesEvent("OrdersRevealed", {"turn": s["turn"], "orders": written}))
    if (ended := _ended_by_loss(flow.state)) is not None:
        flow.emit(ended)
    elif s["turn"] >= s["last_turn"]:
        flow.emit(final_result(flow.state))
    else:
        _begin_turn(flow, s["turn"] + 1)


# -- the end -----------------------------------------------------------------------------------------
def points_left(state: State, side: str) -> int:
    return sum(
        u["points"] for u in state["units"].values() if u["side"] == side and u["status"] in IN_PLAY
    )


def _ended_by_loss(state: State) -> RulesEvent | None:
    alive = {
        side: any(u["side"] == side and u["status"] in IN_PLAY for u in state["units"].values())
        for side in state["sides"]
    }
    if all(alive.values()):
        return None
    winner = next((side for side, ok in alive.items() if ok), None)
    return RulesEvent(
        "GameEnded",
        {
            "winner": winner,
            "outcome": "win" if winner else "draw",
            "level": "the enemy has nothing left on the table",
            "points": {side: points_left(state, side) for side in state["sides"]},
            "placeholder": True,
            "rule": "house victory (placeholder)",
        },
    )


def final_result(state: State) -> RulesEvent:
    """Placeholder victory (house.json ``victory``): more points of units still in play wins."""
    points = {side: points_left(state, side) for side in state["sides"]}
    a, b = state["sides"]
    winner = a if points[a] > points[b] else b if points[b] > points[a] else None
    return RulesEvent(
        "GameEnded",
        {
            "winner": winner,
            "outcome": "win" if winner else "draw",
            "level": "points of units left after the last turn",
            "points": points,
            "placeholder": True,
            "rule": "house victory (placeholder)",
        },
    )
