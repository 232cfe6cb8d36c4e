"""Rule 4, the sequence of play: Nationalist then Republican each turn, phases A-G, the automatic
phases (supply, command) run by the server, phases skipped when no one can act in them, and the
end of the game after the last turn."""

from __future__ import annotations

from typing import Any

from service.rules.base import RulesEvent, State, clone
from service.rules.merida import battle, board, data, decisions, reinforce
from service.rules.merida.board import acting_side
from service.rules.merida.events import apply_event
from service.rules.merida.retreats import retreat_group
from service.rules.merida.victory import final_result

PHASES = ("reinforcements", "supply", "movement", "command", "air_attack", "air_defense", "combat")
FIRST = "nationalist"  # rule 4: the Nationalist is always the first player

__all__ = ["acting_side", "advance_events", "available_air", "attackable_hexes", "enter_first_turn"]


def following(state: State) -> tuple[int, str, str] | None:
    turn, side, phase = state["turn"], state["side"], state["phase"]
    if phase == "deployment":
        return 1, FIRST, PHASES[0]
    index = PHASES.index(phase)
    if index + 1 < len(PHASES):
        return turn, side, PHASES[index + 1]
    if side == FIRST:
        return turn, board.other(FIRST), PHASES[0]
    if turn < state["last_turn"]:
        return turn + 1, FIRST, PHASES[0]
    return None


def available_air(state: State, side: str) -> dict[str, int]:
    """Air points a side may still commit this turn: the table's number for the turn, never more
    than its counters not shot down, less those already used this turn (rule 8, air table)."""
    counters = data.air_counters(side)
    shot = state["air"][side]["shot_down"]
    used = state["air"][side]["used"]
    found = {}
    for kind, number in data.air_points(side, state["turn"]).items():
        left = min(number, counters[kind] - shot.get(kind, 0)) - used.get(kind, 0)
        if left > 0:
            found[kind] = left
    return found


def attackable_hexes(state: State) -> list[str]:
    """Enemy hexes adjacent to phasing units that may still attack: the possible combats."""
    side = state["side"]
    grid = board.map_of(state).grid
    enemy = board.occupied(state, board.other(side))
    found: set[str] = set()
    for unit in board.on_map(state, side):
        if board.is_combat(unit) and battle.eligible_attacker(state, unit) is None:
            found.update(h for h in grid.neighbours(unit["hex"]) if h in enemy)
    return sorted(
        h for h in found if all(battle.may_be_attacked(state, u) for u in board.units_at(state, h))
    )


def _needs_player(state: State) -> bool:
    side, phase = state["side"], state["phase"]
    if phase == "reinforcements":
        due = [u for u in state["pending_removals"] if state["units"][u]["side"] == side]
        return bool(
            reinforce.pending_units(state, side) or due or reinforce.reorganizable(state, side)
        )
    if phase == "movement":
        return True
    if phase == "air_attack":
        return bool(available_air(state, side) and attackable_hexes(state))
    if phase == "air_defense":
        return bool(available_air(state, board.other(side)) and attackable_hexes(state))
    if phase == "combat":
        return bool(attackable_hexes(state))
    return False


def _automatic(state: State) -> list[RulesEvent]:
    side, phase, turn = state["side"], state["phase"], state["turn"]
    if phase == "reinforcements":
        return _reinforcement_events(state, side, turn)
    if phase == "supply":
        out_supply, out_command = board.status_of(state, side)
        if state["options"].get("command_check", "B_and_D") == "D_only":  # rule 4 literally
            out_command = sorted(u["id"] for u in board.on_map(state, side) if u["out_of_command"])
        return [
            RulesEvent(
                "StatusChecked",
                {"side": side, "out_of_supply": out_supply, "out_of_command": out_command},
            )
        ]
    if phase == "command":
        _, out_command = board.status_of(state, side)
        return [RulesEvent("CommandChecked", {"side": side, "out_of_command": out_command})]
    return []


def _reinforcement_events(state: State, side: str, turn: int) -> list[RulesEvent]:
    events = []
    change = state.get("leader_change")
    if change and change["turn"] == turn and change["side"] == side:
        events.append(
            RulesEvent(
                "LeaderReplaced",
                {
                    "side": side,
                    "removed": change["remove"],
                    "placed": change["place"],
                    "hex": change["hex"],
                },
            )
        )
    due = [
        a["unit"]
        for a in state["arrivals"]
        if a["turn"] == turn
        and state["units"][a["unit"]]["side"] == side
        and state["units"][a["unit"]]["status"] == "waiting"
    ]
    if due:
        events.append(RulesEvent("ReinforcementsDue", {"side": side, "units": due}))
    removals = [r["unit"] for r in state["removals"] if r["turn"] == turn and r["side"] == side]
    if removals:
        events.append(RulesEvent("RemovalsDue", {"side": side, "units": removals}))
    for entry in state["returns"]:
        if entry["turn"] == turn and entry["side"] == side:
            unit_id = state.get("removed_for", {}).get(entry["unit"], entry["unit"])
            if state["units"][unit_id]["status"] == "removed":
                events.append(
                    RulesEvent("UnitReturned", {"side": side, "unit": unit_id, "hex": entry["hex"]})
                )
    return events


def _out_of_command_retreats(state: State) -> list[RulesEvent]:
    """Rule 10 (and 4D): units out of command found in an enemy ZOC retreat 2 hexes, towards their
    leaders if possible; eliminated if they cannot."""
    side = state["side"]
    if decisions.mode(state) == decisions.PLAYERS:
        return _retreats_due(state, side)
    zoc = board.zoc_sources(state, board.other(side))
    leaders = [u["hex"] for u in board.on_map(state, side) if u["type"] == "leader"]
    events = []
    hexes = sorted(
        {u["hex"] for u in board.on_map(state, side) if u["out_of_command"] and u["hex"] in zoc}
    )
    for hex_ in hexes:
        group = [u for u in board.units_at(state, hex_, side) if u["out_of_command"]]
        move = retreat_group(state, group, 2, towards=leaders)
        data_ = {
            "side": side,
            "rule": "10",
            "reason": "out of command in an enemy ZOC",
            "retreats": [],
            "eliminated": [],
            "displaced": [],
        }
        if move.get("eliminated"):
            data_["eliminated"] = move["units"]
        else:
            data_["retreats"] = [{"units": move["units"], "path": move["path"]}]
            data_["displaced"] = [move["displaced"]] if "displaced" in move else []
        event = RulesEvent("UnitsRetreated", data_)
        apply_event(state, event)
        events.append(event)
    return events


def _retreats_due(state: State, side: str) -> list[RulesEvent]:
    """Issue 19: each stack's rule 10 retreat is its owner's choice among the hexes that bring it
    closer to its leader; a stack with one legal retreat (or none) retreats (or is eliminated) at
    once."""
    steps = decisions.live_steps(state, decisions.command_retreat_steps(state, side))
    if not steps:
        return []
    due = RulesEvent(
        "RetreatsDue",
        {"side": side, "rule": "10", "reason": "out of command in an enemy ZOC", "pending": steps},
    )
    apply_event(state, due)
    return [due, *decisions.run_on(state)]


def combat_obligations(state: State) -> dict[str, list[str]]:
    """Rule 8: units beginning the combat phase in an enemy ZOC must attack; every enemy unit
    exerting a ZOC on them must be attacked."""
    side = state["side"]
    zoc = board.zoc_sources(state, board.other(side))
    must_attack: list[str] = []
    must_be_attacked: set[str] = set()
    for unit in board.on_map(state, side):
        if (
            board.is_combat(unit)
            and unit["hex"] in zoc
            and battle.eligible_attacker(state, unit) is None
        ):
            must_attack.append(unit["id"])
            for hex_ in zoc[unit["hex"]]:
                must_be_attacked.update(
                    u["id"]
                    for u in board.units_at(state, hex_)
                    if board.is_combat(u) and battle.may_be_attacked(state, u)
                )
    return {"must_attack": sorted(must_attack), "must_be_attacked": sorted(must_be_attacked)}


def advance_events(state: State) -> list[RulesEvent]:
    """The events that end the current phase and run the game on to the next decision."""
    work = clone(state)
    events: list[RulesEvent] = []
    while True:
        nxt = following(work)
        if nxt is None:
            event = RulesEvent("GameEnded", final_result(work))
            apply_event(work, event)
            events.append(event)
            return events
        turn, side, phase = nxt
        began: dict[str, Any] = {"turn": turn, "side": side, "phase": phase}
        if phase == "combat":
            probe = clone(work)
            probe.update(side=side, phase=phase)
            began.update(combat_obligations(probe))
        event = RulesEvent("PhaseBegan", began)
        apply_event(work, event)
        events.append(event)
        for auto in _automatic(work):
            apply_event(work, auto)
            events.append(auto)
        if phase == "command":
            events.extend(_out_of_command_retreats(work))
            if decisions.pending(work):  # issue 19: the owner chooses a rule 10 retreat
                return events
        if _needs_player(work):
            return events


def enter_first_turn(state: State) -> State:
    """Apply the opening events when the game starts without a deployment to make."""
    if state["deployment"]["units"]:
        return state
    state["phase"] = "combat"  # as if the turn before had ended: the chain starts at turn 1
    state["side"] = board.other(FIRST)
    state["turn"] = 0
    for event in advance_events(state):
        apply_event(state, event)
    return state
