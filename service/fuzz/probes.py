"""What each game hides, in its own terms: the probes the proof uses to check that a view or an
event's view never shows a side what the rules hide from it.

The contract declares *that* a game hides information (``hidden_information``), not *what*; that is
each game's own notion (its rulebook and its ``fog``), so each such game has a probe here, written
from its rules and its tests:

* Backbone: the other side's event chits in hand and cup (10.2), its replacements until both are
  placed (13.2), and with limited intelligence all but the top unit of an enemy stack (19.2);
* Barcelona: the orders the other side writes, until the end of the turn reveals them.

A game without a probe gets the generic checks only (views are JSON, never mutate the state).
"""

from __future__ import annotations

import importlib
import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from service.rules.base import RulesEvent, State

HIDDEN = "hidden"

ViewProbe = Callable[[State, State, "str | None"], list[str]]
EventProbe = Callable[[RulesEvent, RulesEvent, State, "str | None"], list[str]]


@dataclass(frozen=True)
class Probe:
    """``view(state, seen, side)`` and ``event(event, shown, state_before, side)``: what ``side``
    sees that the rules hide from it, as sentences (empty: nothing)."""

    view: ViewProbe
    event: EventProbe


_PROBES: dict[str, Probe] = {}


def register_probe(system: str, probe: Probe) -> None:
    _PROBES[system] = probe


def probe_for(system: str) -> Probe | None:
    return _PROBES.get(system)


def _mentions(value: Any, ids: set[str]) -> list[str]:
    """Which of ``ids`` appear as a whole JSON string in ``value``."""
    text = json.dumps(value)
    return sorted(i for i in ids if json.dumps(i) in text)


# -- Backbone ----------------------------------------------------------------------------------------


def _backbone_hidden_units(state: State, side: str | None) -> set[str]:
    fog = importlib.import_module("service.rules.backbone.fog")
    hidden: set[str] = fog.hidden_units(state, side)
    return hidden


def _backbone_view(state: State, seen: State, side: str | None) -> list[str]:
    problems = []
    for other in ("allied", "spanish"):
        if other == side:
            continue
        for pile in ("hands", "cups"):
            shown = seen.get("events", {}).get(pile, {}).get(other, [])
            if any(chit != HIDDEN for chit in shown):
                problems.append(f"the {other} event chits in {pile[:-1]} are shown (10.2)")
        replacements = seen.get("replacements", {})
        if other in replacements and replacements[other] != HIDDEN:
            problems.append(f"the {other} replacements are shown before both are placed (13.2)")
    hidden = _backbone_hidden_units(state, side)
    # the scenario's own data (its order of battle, reserves, garrisons) is published: naming a unit
    # there says nothing of where it is
    public = seen.get("data") == state.get("data")
    leaked = _mentions({k: v for k, v in seen.items() if not (k == "data" and public)}, hidden)
    if leaked:
        problems.append(f"units hidden under a stack are named: {', '.join(leaked)} (19.2)")
    return problems


def _backbone_unseen(event: RulesEvent, before: State, side: str | None) -> set[str]:
    """The units an event may not name to ``side`` (19.2): those hidden under a stack before and
    after it (a unit seen coming out of a stack, or going under one, is seen moving), and those a
    deployment puts on the map under a stack (where the other side has not seen them)."""
    fog = importlib.import_module("service.rules.backbone.fog")
    declared = importlib.import_module("service.rules.backbone.declared")
    after = declared.EVENTS.apply(fog.copy_state(before), RulesEvent(event.type, event.data))
    hidden_after = _backbone_hidden_units(after, side)
    pending = {uid for uid, u in before["units"].items() if u.get("status") == "pending"}
    unseen: set[str] = (_backbone_hidden_units(before, side) | pending) & hidden_after
    return unseen


def _backbone_event(
    event: RulesEvent, shown: RulesEvent, before: State, side: str | None
) -> list[str]:
    data = shown.data
    problems = []
    other_side = event.data.get("side") not in (None, side)
    drawn = event.type == "EventChitDrawn" and not event.data.get("permanent")
    if drawn and other_side and data.get("chit") != HIDDEN:
        problems.append("the chit the other side drew is shown (10.2)")
    if event.type == "ReplacementsChosen" and other_side and data.get("steps") != HIDDEN:
        problems.append("the other side's replacements are shown (13.2)")
    if before.get("options", {}).get("limited_intelligence"):
        leaked = _mentions(data, _backbone_unseen(event, before, side))
        if leaked:
            problems.append(f"units hidden under a stack are named: {', '.join(leaked)} (19.2)")
    return problems


# -- Barcelona ---------------------------------------------------------------------------------------


def _barcelona_view(state: State, seen: State, side: str | None) -> list[str]:
    problems = []
    for other in state.get("sides", []):
        if other == side:
            continue
        written = seen.get("written", {}).get(other)
        if written and set(written) - {HIDDEN}:
            problems.append(f"the orders {other} is writing are shown")
        for uid, order in state.get("orders", {}).get(other, {}).items():
            if order.get("revealed"):
                continue
            shown = seen.get("orders", {}).get(other, {}).get(uid, {})
            if set(shown) - {HIDDEN, "turn"}:
                problems.append(f"the {other} order of {uid} is shown before it is revealed")
    return problems


def _barcelona_event(
    event: RulesEvent, shown: RulesEvent, before: State, side: str | None
) -> list[str]:
    theirs = event.type == "OrdersWritten" and event.data.get("side") != side
    if theirs and "orders" in shown.data:
        return ["the orders the other side wrote are shown before they are revealed"]
    return []


register_probe("backbone", Probe(_backbone_view, _backbone_event))
register_probe("barcelona", Probe(_barcelona_view, _barcelona_event))
