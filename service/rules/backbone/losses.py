"""Loss assignment (16.6): who takes each step, unsatisfiable losses, and last stand (16.5)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from service.rules.backbone import geography as geo
from service.rules.backbone.data_files import load
from service.rules.backbone.units import State, Unit, is_hq


def satisfiable(
    attacker_loss: int, defender_loss: int, attacker_steps: int, defender_steps: int
) -> tuple[int, int]:
    """Steps each side actually loses (16.6): a side that cannot satisfy its loss spares the other
    as many steps as it fell short (2/2 against 1 defending step: 1/1; 1/2: 0/1)."""
    d = min(defender_loss, defender_steps)
    a = min(attacker_loss, attacker_steps)
    a_final = max(0, a - (defender_loss - d))
    d_final = max(0, d - (attacker_loss - a))
    return a_final, d_final


def assign(
    units: Sequence[Unit],
    steps: int,
    first: Sequence[str],
    owner_picks: Sequence[str],
    opponent_picks: Sequence[str],
) -> list[dict[str, Any]]:
    """The order of the steps lost (16.6): the first to a unit of ``first`` (the special unit that
    used its ability, else one of the efficiency used) chosen by the owner; the second by the
    opponent; the third by the owner; the fourth by the opponent.  A pick list names units in order
    of preference; an unusable or missing pick falls to the first eligible unit in stack order."""
    left = {u["id"]: u["steps"] for u in units}
    order = [u["id"] for u in sorted(units, key=lambda u: (is_hq(u), -u["seq"]))]
    taken: list[dict[str, Any]] = []
    for index in range(steps):
        eligible = [uid for uid in order if left[uid] > 0]
        if index == 0 and first:
            eligible = [uid for uid in eligible if uid in first] or eligible
        if not eligible:
            break
        by_owner = index % 2 == 0
        picks = owner_picks if by_owner else opponent_picks
        chosen = next((uid for uid in picks if uid in eligible), eligible[0])
        left[chosen] -= 1
        taken.append(
            {"unit": chosen, "step": index + 1, "chosen_by": "owner" if by_owner else "opponent"}
        )
    return taken


def last_stand_modifiers(state: State, hex_: str, units: Sequence[Unit]) -> list[dict[str, Any]]:
    """16.5: +1 with 6 to 10 steps in the hex, +1 if half or more of them are efficiency 2 or more,
    +1 with an HQ present.  Only in city, mountain and half mountain hexes."""
    steps = sum(u["steps"] for u in units)
    good = sum(u["steps"] for u in units if u["efficiency"] >= 2)
    mods = []
    if 6 <= steps <= 10:
        mods.append({"source": f"{steps} steps in the hex", "value": 1, "rule": "16.5"})
    if steps and good * 2 >= steps:
        mods.append({"source": "half or more steps of efficiency 2+", "value": 1, "rule": "16.5"})
    if any(is_hq(u) for u in units):
        mods.append({"source": "HQ present", "value": 1, "rule": "16.5"})
    return mods


def last_stand_terrain(state: State, hex_: str) -> bool:
    data = load("terrain")
    return bool(geo.city_at(state, hex_)) or bool(
        data["terrain"][geo.terrain(state, hex_)].get("last_stand")
    )
