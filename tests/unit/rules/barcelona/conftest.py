"""Helpers for the Back to Barcelona rule tests: the skirmish table with units placed by hand.

The skirmish table (48" x 36"): road x 22-26 (full length); wood (cover, bad going) x 4-14, y 14-22;
farm (cover, defences) x 32-38, y 16-21; trench x 12-22, y 27-29; broken ground x 40-46, y 4-14."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from service.rules.barcelona import SYSTEM, forces
from service.rules.base import RulesEvent, State
from tests.support.rules_play import player, run_scripted, types

NAT, REP = "nationalist", "republican"


def placed(
    u: dict[str, Any], x: float, y: float, facing: float | None = None, **extra: Any
) -> dict[str, Any]:
    u.update(status="table", x=float(x), y=float(y))
    u["facing"] = float(facing if facing is not None else (90 if u["side"] == NAT else 270))
    u.update(extra)
    return u


def foot(
    uid: str, side: str, x: float, y: float, troop: str = "Militia", figures: int = 6, **extra: Any
) -> dict[str, Any]:
    lmg = extra.pop("lmg", 0)
    bombs = extra.pop("bombs", True)
    attrs = extra.pop("attributes", [])
    return placed(
        forces.figures_unit(uid, side, troop, 0, figures, extra=attrs, bombs=bombs, lmg=lmg),
        x,
        y,
        **extra,
    )


def team(
    uid: str, side: str, weapon: str, x: float, y: float, troop: str = "Militia", **extra: Any
) -> dict[str, Any]:
    return placed(forces.team_unit(uid, side, weapon, troop, 0), x, y, **extra)


def vehicle(uid: str, side: str, name: str, x: float, y: float, **extra: Any) -> dict[str, Any]:
    return placed(forces.vehicle_unit(uid, side, name), x, y, **extra)


def table_state(
    *units: dict[str, Any], phase: str = "movement", step: str | None = None, mover: str = NAT
) -> State:
    state = SYSTEM.initial_state("skirmish", {})
    phase = "shooting" if step else phase
    state.update(turn=1, phase=phase, step=step, mover=mover, done={NAT: False, REP: False})
    for u in units:
        state["units"][u["id"]] = u
        u["step_figures"] = u["figures"] if step else None
    return state


def run(
    handler: Any, state: State, side: str, command: dict[str, Any], dice: Iterable[int] = ()
) -> list[RulesEvent]:
    """Call one rule function ``(state, side, command, dice)`` with scripted dice (every die must
    be used) and apply its events: the rule alone, without the phases that run after it."""
    return run_scripted(SYSTEM, state, lambda d: handler(state, side, command, d), dice)


play = player(SYSTEM)

__all__ = ["NAT", "REP", "foot", "play", "run", "table_state", "team", "types", "vehicle"]
