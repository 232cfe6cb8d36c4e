"""Pending decisions: what rule 8 and rule 10 leave to the owner of the units.

When a combat result forces losses or retreats (rule 8: which unit absorbs a loss, which retreat
path, displacing instead of overstacking), or units out of command in an enemy ZOC retreat 2 hexes
(rule 10: "so as to move them closer to their leader if possible"), the game records the *steps*
still to take in ``state["pending"]``, in order.  The side owning the head step acts
(``board.acting_side``); the step's legal answers are listed as templates (``choices``); a step with
one legal answer only is taken at once and its ``DecisionTaken`` event says so (``how: "only"``).

The scenario option ``decisions`` chooses who decides: ``"players"`` (the default) or
``"automatic"`` (the fixed preference of earlier versions -- weakest units lost first, retreats
away from the enemy or towards the leader -- for quick games; no step is ever pending then).

A step is plain JSON::

    {"kind": "loss", "side": s, "rule": "8", "role": "attacker"|"defender",
     "units": [ids that may absorb it], "count": n}
    {"kind": "retreat", "side": s, "rule": "8"|"10", "units": [ids], "length": 1|2,
     "towards": [leader hexes] (rule 10)}

An *answer* is ``{"units": [...]}`` for a loss, ``{"path": [...], "displace": {"units", "path"}?}``
or ``{"eliminated": True, "reason": ...}`` for a retreat.  ``DecisionTaken`` records the answer and
everything it causes, and the steps still pending after it, so ``apply`` judges nothing.
"""

from __future__ import annotations

from itertools import combinations
from typing import Any

from service.rules.base import RulesEvent, RuleViolation, State, clone
from service.rules.kernel import retreat as kernel_retreat
from service.rules.merida import board, data, stacking
from service.rules.merida.events import apply_event
from service.rules.merida.retreats import _can_enter, _others_at

PLAYERS, AUTOMATIC = "players", "automatic"
UNFILLED_MP = 2  # rule 8: each unfilled result is worth 2 extra movement points


def mode(state: State) -> str:
    return str(state["options"].get("decisions", PLAYERS))


def pending(state: State) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = state.get("pending") or []
    return found


def waiting_for(state: State) -> str | None:
    """The side whose decision the game waits for, else None."""
    steps = pending(state)
    return str(steps[0]["side"]) if steps else None


def what(step: dict[str, Any]) -> str:
    """The decision in words: ``the unit that takes the loss``, ``a retreat``."""
    if step["kind"] == "loss":
        n = step["count"]
        return "the unit that takes the loss" if n == 1 else f"the {n} units that take the losses"
    return "the retreat path"


def command_of(step: dict[str, Any]) -> str:
    return "choose_loss" if step["kind"] == "loss" else "choose_retreat"


# -- the steps of a combat result -------------------------------------------------------------------


def combat_steps(
    attackers: list[dict[str, Any]],
    defenders: list[dict[str, Any]],
    effect: dict[str, Any],
    defender_retreats: bool,
) -> list[dict[str, Any]]:
    """Rule 8 in its order: the attacker's losses, the defender's, the attackers' retreats (a stack
    per hex they attacked from), the defender's retreat."""
    steps: list[dict[str, Any]] = []
    for role, units, key in (
        ("attacker", attackers, "attacker_losses"),
        ("defender", defenders, "defender_losses"),
    ):
        if effect[key] and units:
            steps.append(
                {
                    "kind": "loss",
                    "side": units[0]["side"],
                    "rule": "8",
                    "role": role,
                    "units": [u["id"] for u in units],
                    "count": effect[key],
                }
            )
    if effect["attacker_retreat"]:
        for hex_ in sorted({u["hex"] for u in attackers}):
            ids = [u["id"] for u in attackers if u["hex"] == hex_]
            steps.append(_retreat_step(attackers[0]["side"], "8", ids, 1))
    if effect["defender_retreat"] and defender_retreats and defenders:
        steps.append(_retreat_step(defenders[0]["side"], "8", [u["id"] for u in defenders], 1))
    return steps


def _retreat_step(
    side: str, rule: str, ids: list[str], length: int, towards: list[str] | None = None
) -> dict[str, Any]:
    step: dict[str, Any] = {
        "kind": "retreat",
        "side": side,
        "rule": rule,
        "units": ids,
        "length": length,
    }
    if towards is not None:
        step["towards"] = towards
    return step


def command_retreat_steps(state: State, side: str) -> list[dict[str, Any]]:
    """Rule 10 (and 4D): each stack of units out of command found in an enemy ZOC retreats 2 hexes,
    towards their leaders if possible."""
    zoc = board.zoc_sources(state, board.other(side))
    leaders = sorted(u["hex"] for u in board.on_map(state, side) if u["type"] == "leader")
    hexes = sorted(
        {u["hex"] for u in board.on_map(state, side) if u["out_of_command"] and u["hex"] in zoc}
    )
    return [
        _retreat_step(
            side,
            "10",
            [u["id"] for u in board.units_at(state, h, side) if u["out_of_command"]],
            2,
            leaders,
        )
        for h in hexes
    ]


# -- the legal answers ------------------------------------------------------------------------------


def _live(state: State, ids: list[str]) -> list[dict[str, Any]]:
    return [state["units"][i] for i in ids if state["units"][i]["status"] == "map"]


def loss_candidates(state: State, step: dict[str, Any]) -> tuple[list[dict[str, Any]], int]:
    """The units that may absorb a loss (combat units; leaders only when no combat unit is left,
    rule 2), weakest first, and how many must go."""
    live = _live(state, step["units"])
    candidates = [u for u in live if board.is_combat(u)] or live
    candidates.sort(key=lambda u: (u["strength"], u["id"]))
    return candidates, min(step["count"], len(candidates))


def answers(state: State, step: dict[str, Any]) -> list[dict[str, Any]]:
    """Every legal answer to ``step`` on ``state`` (the fixed preference first); ``[]`` when the
    step no longer applies (its units are gone)."""
    if step["kind"] == "loss":
        candidates, count = loss_candidates(state, step)
        if count == 0:
            return []
        ids = [u["id"] for u in candidates]
        return [{"units": list(c)} for c in combinations(ids, count)]
    return retreat_answers(state, step)


class _RetreatBoard:
    """What a retreat of ``group`` meets: the enemy's ZOC and units, the map, the paths."""

    def __init__(self, state: State, step: dict[str, Any]) -> None:
        self.state = state
        self.group = _live(state, step["units"])
        self.start = self.group[0]["hex"] if self.group else ""
        enemy = board.other(step["side"])
        self.zoc = set(board.zoc_sources(state, enemy))
        self.enemy = board.occupied(state, enemy)
        self.grid = board.map_of(state).grid
        self.can_enter = _can_enter(state, self.group, self.zoc, self.enemy)

    def paths(self, length: int) -> list[tuple[str, ...]]:
        return kernel_retreat.retreat_paths(self.grid, self.start, length, self.can_enter)

    def closer(self, paths: list[tuple[str, ...]], towards: list[str]) -> list[tuple[str, ...]]:
        """Rule 10: the paths ending closer to a leader than the start, if any; else all."""
        here = self.grid.distance_to_nearest(self.start, towards)
        if here is None:
            return paths
        found = [p for p in paths if (self.grid.distance_to_nearest(p[-1], towards) or 0) < here]
        return found or paths

    def preference(self, towards: list[str] | None) -> Any:
        """The order of the fixed preference (the ``automatic`` option): away from the enemy, or
        for units out of command towards their leaders."""

        def key(path: tuple[str, ...]) -> tuple[Any, ...]:
            if towards:
                return (self.grid.distance_to_nearest(path[-1], towards) or 0, path)
            return (-(self.grid.distance_to_nearest(path[-1], self.enemy) or 0), path)

        return key

    def fits(self, hex_: str) -> bool:
        return stacking.fits(_others_at(self.state, hex_, self.group) + self.group)

    def displacements(self, hex_: str) -> list[dict[str, Any]]:
        """Rule 8: the units already in ``hex_`` moved one hex (not into an enemy ZOC nor into the
        retreating stack's hex, within stacking limits) to make room."""
        present = _others_at(self.state, hex_, self.group)
        enter = _can_enter(self.state, present, self.zoc, self.enemy | {self.start})
        room = kernel_retreat.retreat_paths(
            self.grid,
            hex_,
            1,
            enter,
            can_end=lambda near: stacking.fits(_others_at(self.state, near, present) + present),
        )
        return [{"units": [u["id"] for u in present], "path": list(p)} for p in room]


def retreat_answers(state: State, step: dict[str, Any]) -> list[dict[str, Any]]:
    where = _RetreatBoard(state, step)
    if not where.group:
        return []
    paths = where.paths(step["length"])
    if step.get("towards"):
        paths = where.closer(paths, step["towards"])
    paths.sort(key=where.preference(step.get("towards")))  # the fixed preference first
    found: list[dict[str, Any]] = []
    for path in paths:
        if where.fits(path[-1]):
            found.append({"path": list(path)})
        elif stacking.fits(where.group):
            found += [{"path": list(path), "displace": d} for d in where.displacements(path[-1])]
    if found:
        return found
    reason = (
        "no retreat within stacking limits"
        if paths
        else "no retreat free of enemy ZOC and prohibited terrain"
    )
    return [{"eliminated": True, "reason": reason}]


def why_not_retreat(state: State, step: dict[str, Any], answer: dict[str, Any]) -> RuleViolation:
    """Why ``answer`` is not a legal retreat for ``step``: the rule it breaks."""
    where = _RetreatBoard(state, step)
    path, displace = list(answer.get("path") or []), answer.get("displace")
    rule, length = step["rule"], step["length"]
    name = board.hex_name
    if not path or path[0] != where.start:
        return RuleViolation(rule, f"the retreat starts at {name(state, where.start)}", "path")
    if len(path) != length + 1:
        hexes = "hex" if length == 1 else "hexes"
        return RuleViolation(rule, f"these units retreat {length} {hexes}", "path")
    for frm, to in zip(path, path[1:], strict=False):
        if not where.grid.adjacent(frm, to):
            return RuleViolation("5", f"hexes may never be skipped ({frm} to {to})", "path")
        if to in where.enemy or to in where.zoc:
            return RuleViolation(
                "8",
                f"units may not retreat into or through an enemy ZOC ({name(state, to)})",
                "path",
            )
        if path.count(to) > 1 or to == where.start:
            return RuleViolation(rule, "a retreat never enters the same hex twice", "path")
        if not where.can_enter(frm, to):
            return RuleViolation("TEC", f"the retreat may not enter {name(state, to)}", "path")
    legal = [a for a in retreat_answers(state, step) if "path" in a]
    ends = {tuple(a["path"]) for a in legal}
    if tuple(path) not in ends:
        if rule == "10":
            names = ", ".join(sorted({name(state, a["path"][-1]) for a in legal}))
            return RuleViolation(
                "10",
                f"units out of command retreat so as to move closer to their leader: {names}",
                "path",
            )
        return RuleViolation("8", f"{name(state, path[-1])} would be overstacked", "path")
    if where.fits(path[-1]):
        return RuleViolation(
            "8",
            "units are displaced only instead of overstacking (nothing to displace)",
            "displace",
        )
    if displace is None:
        return RuleViolation(
            "6",
            f"{name(state, path[-1])} would be overstacked: displace the units there (rule 8)",
            "displace",
        )
    return RuleViolation(
        "8",
        "the displaced units move one hex, not into an enemy ZOC nor into the retreating "
        "stack's hex, within stacking limits",
        "displace",
    )


# -- taking a step -----------------------------------------------------------------------------------


def _leaders_sharing_fate(state: State, lost: list[str], step: dict[str, Any]) -> list[str]:
    """Rule 2: the leaders of the step's units whose stack has no combat unit left."""
    gone = set(lost)
    out = []
    for unit in _live(state, step["units"]):
        if unit["type"] != "leader" or unit["id"] in gone:
            continue
        here = [
            u
            for u in board.units_at(state, unit["hex"], unit["side"])
            if u["id"] not in gone and board.is_combat(u)
        ]
        if not here:
            out.append(unit["id"])
    return out


def decision_event(
    state: State, step: dict[str, Any], answer: dict[str, Any], how: str, rest: list[dict[str, Any]]
) -> RulesEvent:
    """The ``DecisionTaken`` event of ``answer`` to ``step`` (``how``: ``chosen`` by the player or
    the ``only`` legal answer), with the steps still pending after it (those that no longer apply
    dropped) and, when a combat's steps are all taken, the advance it offers."""
    record: dict[str, Any] = {
        "side": step["side"],
        "kind": step["kind"],
        "rule": step["rule"],
        "how": how,
        "units": [],
        "eliminated": [],
        "path": None,
        "displaced": None,
    }
    if step["kind"] == "loss":
        record["units"] = list(answer["units"])
        record["eliminated"] = list(answer["units"])
        record["eliminated"] += _leaders_sharing_fate(state, record["units"], step)
    else:
        record["units"] = [u["id"] for u in _live(state, step["units"])]
        if answer.get("eliminated"):
            record["eliminated"] = list(record["units"])
            record["reason"] = answer["reason"]
        else:
            record["path"] = list(answer["path"])
            record["displaced"] = answer.get("displace")
    after = clone(state)
    after["pending"] = []
    after["combat"] = None
    apply_event(after, RulesEvent("DecisionTaken", {**record, "pending": []}))
    remaining = [s for s in rest if answers(after, s)]
    record["pending"] = remaining
    record["advance"] = None
    combat = state.get("combat")
    if not remaining and combat:
        record["advance"] = advance_offer(after, combat)
    return RulesEvent("DecisionTaken", record)


def advance_offer(state: State, combat: dict[str, Any]) -> dict[str, Any] | None:
    """Rule 8: the surviving attackers may advance into the vacated hex, with 2 extra movement
    points for each result the defender could not fill."""
    if not data.crt_effect(combat["result"])["advance"]:
        return None
    hex_ = combat["hex"]
    survivors = [u["id"] for u in _live(state, combat["attackers"])]
    if not survivors or board.units_at(state, hex_):
        return None
    return {"hex": hex_, "units": survivors, "extra_mp": UNFILLED_MP * combat["unfilled"]}


def live_steps(state: State, steps: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [s for s in steps if answers(state, s)]


def run_on(work: State) -> list[RulesEvent]:
    """Take, on ``work`` (a look-ahead copy, changed in place), every pending step that has one
    legal answer only, until a step needs its player or none is left."""
    events: list[RulesEvent] = []
    while pending(work):
        head, *rest = pending(work)
        found = answers(work, head)
        if len(found) != 1:
            break
        event = decision_event(work, head, found[0], "only", rest)
        apply_event(work, event)
        events.append(event)
    return events
