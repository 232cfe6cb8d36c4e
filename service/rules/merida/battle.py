"""Rule 8 combat on the board: who may attack whom, air loss rolls, the CRT, losses, retreats and the
advance after combat; the overrun (automatic victory) during movement."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from service.rules.base import Dice, RulesEvent, RuleViolation, State, clone
from service.rules.declare import Hex, Units
from service.rules.merida import board, combat, data, decisions
from service.rules.merida.commands import COMMANDS
from service.rules.merida.events import apply_event
from service.rules.merida.retreats import retreat_group

UNFILLED_MP = 2  # rule 8: each unfilled result is worth 2 extra movement points


def situation(
    state: State, attackers: list[dict[str, Any]], hex_: str, air: Mapping[str, int] | None = None
) -> dict[str, Any]:
    """The combat situation (see :mod:`combat`) of ``attackers`` against the stack in ``hex_``."""
    mapdata = board.map_of(state)
    enemy = board.other(attackers[0]["side"])
    defenders = board.units_at(state, hex_, enemy)
    across = all("river" in mapdata.hexside_features(u["hex"], hex_) for u in attackers)
    air = air or {}
    return {
        "attackers": [_unit_facts(u) for u in attackers],
        "defenders": [_unit_facts(u) for u in defenders],
        "terrain": "mountain" if mapdata.terrain(hex_) == "mountain" else "clear",
        "settlement": board.town_or_city(state, hex_),
        "across_river": across,
        "attacker_air": air.get("attacker", 0),
        "defender_air": air.get("defender", 0),
        "strategic_modifier": state["options"].get("strategic_modifier", 2),
    }


def _unit_facts(unit: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": unit["id"],
        "type": unit["type"],
        "strength": unit["strength"],
        "out_of_supply": unit["out_of_supply"],
        "strategic_moved": unit["strategic"],
    }


def game_turn_once(state: State) -> bool:
    """The reading of rule 8's "once per turn" a game plays (option ``combat_once_per``,
    knowledge-base entry ``merida:conflict-combat-once-per-turn``): each player's turn (default),
    or the whole game turn -- one combat per unit, attacking or attacked, until the marker moves."""
    return bool(state["options"].get("combat_once_per", "player_turn") == "game_turn")


def fought(state: State, unit: dict[str, Any]) -> str | None:
    """Rule 8 "Each unit may only attack or be attacked once per turn": how ``unit`` already
    fought this turn, if it did -- "attacked" or "been attacked" (its own side's attacks and its
    defences, each marked until the turn's marks are cleared, see ``events._new_turn``)."""
    if unit["attacked"]:
        return "attacked"
    if unit["defended"]:
        return "been attacked"
    return None


def may_be_attacked(state: State, unit: dict[str, Any]) -> bool:
    """Rule 8: a unit is attacked once per turn; reading the turn as the game turn, a unit that
    attacked in it may not be attacked either."""
    return not (unit["defended"] or (game_turn_once(state) and unit["attacked"]))


def check_defenders(state: State, hex_: str, defenders: list[dict[str, Any]]) -> None:
    """Rule 8: refuse a combat against a stack one of whose units may not be attacked again."""
    for unit in defenders:
        if not may_be_attacked(state, unit):
            raise RuleViolation(
                "8",
                f"{unit['name']} in {board.hex_name(state, hex_)} has already "
                f"{fought(state, unit)} this turn: each unit may only attack or be attacked once "
                "per turn",
                "hex",
            )


def eligible_attacker(state: State, unit: dict[str, Any]) -> str | None:
    """Why a unit may not attack now (the rule), else None."""
    if unit["attacked"] or (game_turn_once(state) and unit["defended"]):
        return "8"  # each unit may only attack or be attacked once per turn
    if unit["out_of_command"]:
        return "4"  # phase D: units not in command may not attack
    if unit["strategic"]:
        return "5"  # strategic (and rail) movers may not attack
    return None


def check_attackers(state: State, side: str, ids: list[str], hex_: str) -> list[dict[str, Any]]:
    grid = board.map_of(state).grid
    if not board.units_at(state, hex_, board.other(side)):
        raise RuleViolation("8", f"{board.hex_name(state, hex_)} holds no enemy unit", "hex")
    if not ids:
        raise RuleViolation("8", "an attack needs attacking units", "attackers")
    attackers = []
    for unit_id in ids:
        unit = state["units"][unit_id]
        if unit["side"] != side or unit["status"] != "map":
            raise RuleViolation(
                "8", f"{unit['name']} is not a unit of yours on the map", "attackers"
            )
        if not grid.adjacent(unit["hex"], hex_):
            raise RuleViolation(
                "8", f"{unit['name']} is not adjacent to {board.hex_name(state, hex_)}", "attackers"
            )
        rule = eligible_attacker(state, unit)
        if rule is not None:
            reason = {
                "8": f"has already {fought(state, unit)} this turn",
                "4": "is out of command",
                "5": "moved strategically",
            }
            raise RuleViolation(
                rule, f"{unit['name']} may not attack: it {reason[rule]}", "attackers"
            )
        attackers.append(unit)
    kinds = {u["type"] for u in attackers}
    if "armor" in kinds and kinds <= {"armor", "leader"}:
        raise RuleViolation("2", "tanks may not attack by themselves", "attackers")
    return attackers


@COMMANDS.command(
    "declare_overrun",
    phases=("movement",),
    doc="Rule 8 automatic victory: attackers at 6-1 or better during movement overrun a stack.",
    hex=Hex(),
    attackers=Units(min=1),
)
def declare_overrun(
    state: State, side: str, command: Mapping[str, Any], dice: Dice
) -> list[RulesEvent]:
    """Rule 8 automatic victory: 6-1 or better during movement; the stack and its ZOC are ignored
    for the rest of the movement phase, and the combat is still rolled in the combat phase."""
    hex_ = command["hex"]
    attackers = check_attackers(state, side, list(command["attackers"]), hex_)
    check_defenders(state, hex_, board.units_at(state, hex_, board.other(side)))
    if any(o["hex"] == hex_ for o in state["overruns"]):
        raise RuleViolation("8", f"{hex_} is already overrun", "hex")
    assessment = combat.assess(situation(state, attackers, hex_))
    if assessment["column"] != "6-1":
        raise RuleViolation(
            "8",
            f"an overrun needs 6-1 or better odds, these are {assessment['column']}",
            "attackers",
        )
    return [
        RulesEvent(
            "OverrunDeclared",
            {
                "side": side,
                "hex": hex_,
                "attackers": [u["id"] for u in attackers],
                **_odds(assessment),
            },
        )
    ]


def _odds(assessment: dict[str, Any]) -> dict[str, Any]:
    return {
        "attack_strength": assessment["attack_strength"],
        "defense_strength": assessment["defense_strength"],
        "column": assessment["column"],
    }


def _air_roll(state: State, side: str, air: list[str], dice: Dice) -> dict[str, Any]:
    """Rule 8: one die for a side's air points in a battle; a 6 rolls again (1-3 abort, 4-6 shot
    down).  The Republican on turns 1-3 and 13+ loses one on a first roll of 5 (abort) or 6 (shot
    down) instead."""
    first = dice.roll(6, f"air loss ({side})")
    rolls = [first.as_dict()]
    outcome = None
    if side == "republican" and data.republican_air_variant(state["turn"]):
        outcome = {5: "aborted", 6: "shot_down"}.get(first.value)
    elif first.value == 6:
        second = dice.roll(6, f"air loss again ({side})")
        rolls.append(second.as_dict())
        outcome = "aborted" if second.value <= 3 else "shot_down"
    loss = {"side": side, "type": air[0], "outcome": outcome} if outcome else None
    return {"side": side, "air": air, "rolls": rolls, "loss": loss}


def _losses(units: list[dict[str, Any]], count: int) -> tuple[list[str], int]:
    """The owner loses the weakest units first (a fixed preference); returns the ids and how many
    results could not be filled.  Leaders count only when no combat unit is present."""
    candidates = [u for u in units if board.is_combat(u)] or list(units)
    chosen = sorted(candidates, key=lambda u: (u["strength"], u["id"]))[:count]
    return [u["id"] for u in chosen], max(0, count - len(candidates))


def check_attack(
    state: State, side: str, command: Mapping[str, Any]
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The attackers and defenders of an ``attack`` command, refusing what rule 8 forbids."""
    hex_ = command["hex"]
    attackers = check_attackers(state, side, list(command["attackers"]), hex_)
    defenders = board.units_at(state, hex_, board.other(side))
    check_defenders(state, hex_, defenders)
    return attackers, defenders


def tanks_alone(defenders: list[dict[str, Any]]) -> bool:
    """Rule 2: a defending stack whose only combat units are tanks is eliminated without a roll."""
    combat_defenders = [u for u in defenders if board.is_combat(u)]
    return bool(combat_defenders) and all(u["type"] == "armor" for u in combat_defenders)


def committed_air(state: State, hex_: str, role: str) -> list[str]:
    """The air points placed on ``hex_`` in phase E (``role`` attack) or F (defense)."""
    return [
        kind
        for a in state["air_allocations"]
        if a["hex"] == hex_ and a["role"] == role
        for kind in a["air"]
    ]


@COMMANDS.command(
    "attack",
    phases=("combat",),
    doc="Rule 8: units adjacent to an enemy stack attack it; air loss rolls, the CRT, losses, "
    "retreats and the advance after combat are decided and recorded.",
    attackers=Units(),
    hex=Hex(),
)
def resolve_attack(
    state: State, side: str, command: Mapping[str, Any], dice: Dice
) -> list[RulesEvent]:
    hex_ = command["hex"]
    attackers, defenders = check_attack(state, side, command)
    record: dict[str, Any] = {
        "side": side,
        "hex": hex_,
        "attackers": [u["id"] for u in attackers],
        "defenders": [u["id"] for u in defenders],
        "air_rolls": [],
        "air_losses": [],
        "retreats": [],
        "displaced": [],
        "eliminated": [],
        "advance": None,
    }
    if tanks_alone(defenders):
        record.update(result="tanks alone", rule="2", unfilled=0)
        record["eliminated"] = record["defenders"]
        record["advance"] = {"hex": hex_, "units": record["attackers"], "extra_mp": 0}
        return [RulesEvent("CombatResolved", record)]
    air = _air_rolls(state, side, hex_, dice, record)
    assessment = combat.assess(situation(state, attackers, hex_, air))
    die = dice.roll(6, "combat")
    outcome = combat.resolve(assessment["column"], die.value, assessment["modifier_total"])
    record.update(
        {k: assessment[k] for k in RECORDED},
        die=die.as_dict(),
        modified_roll=outcome["modified_roll"],
        result=outcome["result"],
        rule="8",
    )
    if decisions.mode(state) == decisions.AUTOMATIC:
        _apply_result(state, attackers, defenders, outcome["effect"], record)
        return [RulesEvent("CombatResolved", record)]
    return _await_owners(state, attackers, defenders, outcome["effect"], record)


def _await_owners(
    state: State,
    attackers: list[dict[str, Any]],
    defenders: list[dict[str, Any]],
    effect: dict[str, Any],
    record: dict[str, Any],
) -> list[RulesEvent]:
    """Issue 19: the result's losses and retreats become pending steps their owners decide
    (rule 8); the steps with one legal answer only are taken at once."""
    town = board.town_or_city(state, record["hex"]) == "town"  # TEC: town defenders stay
    _, unfilled = _losses(defenders, effect["defender_losses"])
    record["unfilled"] = unfilled
    steps = decisions.combat_steps(attackers, defenders, effect, not town)
    work = clone(state)
    record["pending"] = decisions.live_steps(work, steps)
    if not record["pending"]:
        record["advance"] = decisions.advance_offer(work, record)
    resolved = RulesEvent("CombatResolved", record)
    apply_event(work, resolved)
    return [resolved, *decisions.run_on(work)]


RECORDED = ("attack_strength", "defense_strength", "column", "modifiers", "strength_effects")


def _air_rolls(
    state: State, side: str, hex_: str, dice: Dice, record: dict[str, Any]
) -> dict[str, int]:
    """Rule 8: each side with air points on the hex rolls for losses; the points left count."""
    air = {"attacker": 0, "defender": 0}
    for role, owner, key in (
        ("attack", side, "attacker"),
        ("defense", board.other(side), "defender"),
    ):
        committed = committed_air(state, hex_, role)
        if committed:
            roll = _air_roll(state, owner, committed, dice)
            record["air_rolls"].append(roll)
            if roll["loss"]:
                record["air_losses"].append(roll["loss"])
            air[key] = len(committed) - (1 if roll["loss"] else 0)
    return air


def _apply_result(
    state: State,
    attackers: list[dict[str, Any]],
    defenders: list[dict[str, Any]],
    effect: dict[str, Any],
    record: dict[str, Any],
) -> None:
    """The CRT result on a look-ahead copy: losses (leaders share the fate of their stack),
    retreats, and the advance offered into a vacated hex (rule 8, rule 2, TEC)."""
    hex_ = record["hex"]
    work = clone(state)
    lost_att, _ = _losses(attackers, effect["attacker_losses"])
    lost_def, unfilled = _losses(defenders, effect["defender_losses"])
    record["unfilled"] = unfilled
    _eliminate(work, lost_att + lost_def, record)
    if lost_att + lost_def:
        _leaders_share_fate(state, work, attackers + defenders, record)
    if effect["attacker_retreat"]:
        for hex_from in sorted({u["hex"] for u in attackers}):
            group = [work["units"][u["id"]] for u in attackers if u["hex"] == hex_from]
            _retreat(work, [u for u in group if u["status"] == "map"], record)
    town = board.town_or_city(state, hex_) == "town"
    if effect["defender_retreat"] and not town:  # TEC: defenders in a town ignore retreats
        _retreat(work, board.units_at(work, hex_, board.other(record["side"])), record)
    survivors = [u["id"] for u in attackers if work["units"][u["id"]]["status"] == "map"]
    if effect["advance"] and survivors and not board.units_at(work, hex_):
        record["advance"] = {"hex": hex_, "units": survivors, "extra_mp": UNFILLED_MP * unfilled}


def _leaders_share_fate(
    state: State, work: State, units: list[dict[str, Any]], record: dict[str, Any]
) -> None:
    """Rule 2: leaders are eliminated if the units they are stacked with are eliminated."""
    for unit in units:
        if unit["type"] == "leader" and unit["id"] not in record["eliminated"]:
            here = board.units_at(work, state["units"][unit["id"]]["hex"], unit["side"])
            if not any(board.is_combat(u) for u in here):
                _eliminate(work, [unit["id"]], record)


def _eliminate(work: State, ids: list[str], record: dict[str, Any]) -> None:
    for unit_id in ids:
        work["units"][unit_id].update(status="eliminated", hex=None)
        record["eliminated"].append(unit_id)


def _retreat(work: State, group: list[dict[str, Any]], record: dict[str, Any]) -> None:
    if not group:
        return
    move = retreat_group(work, group, 1)
    if move.get("eliminated"):
        _eliminate(work, move["units"], record)
        return
    for displaced in [move["displaced"]] if "displaced" in move else []:
        record["displaced"].append(displaced)
        for unit_id in displaced["units"]:
            work["units"][unit_id]["hex"] = displaced["path"][-1]
    record["retreats"].append({"units": move["units"], "path": move["path"]})
    for unit_id in move["units"]:
        work["units"][unit_id]["hex"] = move["path"][-1]
