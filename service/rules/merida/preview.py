"""``preview``: what an ``attack`` would meet before it is sent (rule 8), and what a ``move`` would
trigger (rules 5, 6, 7, 8 and 10, the TEC).

It runs the checks and the assessment ``decide`` runs (the declaration's parse and guard,
``battle.check_attack``, ``battle.situation``, ``combat.assess``), so the preview cannot disagree
with the decision.  The one thing it cannot know is the air loss rolls made at resolution: the
headline odds count every committed air point, and ``air.outcomes`` gives the column for each
possible loss (one point a side at most).

A move is judged by ``moves.judge_move`` (the decision's own code) and applied to a copy of the
state; what it would set off is read from the rules' own functions on that copy: the ZOC it stops
in (``moves.StepRules``), the combat it would oblige (``sequence.combat_obligations``), the lines of
command and supply (``board.commanded_hexes`` / ``board.supplied_hexes``) and the stack it ends in
(``stacking.points``).  Each item is a sentence with its rule, as ``consequences``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from service.rules.base import InvalidCommand, Names, RulesEvent, State, clone
from service.rules.merida import battle, board, combat, data, decisions, moves, sequence, stacking
from service.rules.merida.commands import COMMANDS, check_turn
from service.rules.merida.events import apply_event

AIR_NOTE = (
    "each side with air points here rolls one die before the combat; on a 6 it rolls again: 1-3 "
    "one point aborts, 4-6 one point is shot down (the Republican on turns 1-3 and 13+ loses one "
    "on a first roll of 5 or 6); each point left adds 1 strength"
)


class MeridaPreviews:
    """The previews capability: an attack before it is sent (rule 8), what a move would trigger
    (rules 5-10), and any combat situation."""

    commands = frozenset({"attack", "move"})

    def preview(self, state: State, side: str, command: Mapping[str, Any]) -> dict[str, Any]:
        if isinstance(command, Mapping) and command.get("type") == "move":
            return preview_move(state, side, command)
        return preview_attack(state, side, command)

    def combat_preview(self, situation: Mapping[str, Any]) -> dict[str, Any]:
        return combat.assess(situation)


def preview_attack(state: State, side: str, command: Mapping[str, Any]) -> dict[str, Any]:
    """Strengths, the odds column, every strength effect and die modifier with its rule."""
    spec, parsed = COMMANDS.parse(state, command)
    if spec.type != "attack":
        raise InvalidCommand("only attacks and moves are previewed", {"type": ["attack", "move"]})
    check_turn(state, side, spec)
    attackers, defenders = battle.check_attack(state, side, parsed)
    hex_ = parsed["hex"]
    air = {
        "attacker": len(battle.committed_air(state, hex_, "attack")),
        "defender": len(battle.committed_air(state, hex_, "defense")),
    }
    assessment = combat.assess(battle.situation(state, attackers, hex_, air))
    found: dict[str, Any] = {
        "type": "attack",
        "hex": hex_,
        "attackers": [u["id"] for u in attackers],
        "defenders": [u["id"] for u in defenders],
        "attack": assessment["attack_strength"],
        "defence": assessment["defense_strength"],
        **assessment,
        "table": "crt",
        "rule": "8",
    }
    if air["attacker"] or air["defender"]:
        found["air"] = {
            **air,
            "rule": "8",
            "note": AIR_NOTE,
            "outcomes": _air_outcomes(state, attackers, hex_, air),
        }
    if battle.tanks_alone(defenders):
        found["automatic"] = {
            "result": "tanks alone",
            "rule": "2",
            "note": "the defending tanks are eliminated without a roll; the attackers may advance",
        }
    found["consequences"] = _decision_items(state, found, len(defenders), len(attackers))
    return found


def _decision_items(
    state: State, found: Mapping[str, Any], defending: int, attacking: int
) -> list[dict[str, Any]]:
    """Issue 19 (``decisions.py``): the results on the column that would wait for a side's choice
    -- which units take the losses, where the rest retreat (rule 8) -- when players decide."""
    if decisions.mode(state) != decisions.PLAYERS or "automatic" in found:
        return []
    if found["column"] not in data.crt_columns():
        return []
    crt = data.load("crt")
    column = crt["columns"].index(found["column"])
    codes = sorted({row["results"][column] for row in crt["rows"]})
    items = []
    for role, count, verb in (
        ("defender", defending, "the defender chooses"),
        ("attacker", attacking, "you choose"),
    ):
        waiting = [
            c
            for c in codes
            if (
                data.crt_effect(c)[f"{role}_losses"]
                and count > data.crt_effect(c)[f"{role}_losses"]
            )
            or data.crt_effect(c)[f"{role}_retreat"]
        ]
        if waiting:
            items.append(
                {
                    "text": f"on a result of {', '.join(waiting)} {verb} which units take the "
                    "losses and where they retreat, and the game waits for that choice",
                    "rule": "8",
                }
            )
    return items


def _air_outcomes(
    state: State, attackers: list[dict[str, Any]], hex_: str, air: dict[str, int]
) -> list[dict[str, Any]]:
    """The column after each possible result of the air loss rolls (rule 8)."""
    outcomes = []
    for attacker_air in sorted({air["attacker"], max(0, air["attacker"] - 1)}, reverse=True):
        for defender_air in sorted({air["defender"], max(0, air["defender"] - 1)}, reverse=True):
            counted = {"attacker": attacker_air, "defender": defender_air}
            assessment = combat.assess(battle.situation(state, attackers, hex_, counted))
            outcomes.append(
                {
                    "attacker_air": attacker_air,
                    "defender_air": defender_air,
                    "attack_strength": assessment["attack_strength"],
                    "defense_strength": assessment["defense_strength"],
                    "column": assessment["column"],
                }
            )
    return outcomes


def _mp(value: float) -> str:
    """Movement points in words: ``1``, ``½``, ``2½``."""
    whole, half = int(value), value - int(value) >= 0.5
    if not half:
        return str(whole)
    return f"{whole}½" if whole else "½"


def _n(ids: list[str], one: str, many: str) -> str:
    """The verb or pronoun for one unit or several."""
    return one if len(ids) == 1 else many


def preview_move(state: State, side: str, command: Mapping[str, Any]) -> dict[str, Any]:
    """What a move costs, hex by hex with the terrain (TEC), and what it would trigger: stopping in
    an enemy ZOC (rule 7) and the attack it obliges (rule 8), a stack left full (rule 6), units
    left out of command (rule 10: no attack, a 2-hex retreat in an enemy ZOC) or out of supply
    (rules 4B, 10), units regaining their lines.  Raises what ``decide`` raises for a bad move."""
    spec, parsed = COMMANDS.parse(state, command)
    check_turn(state, side, spec)
    event = moves.judge_move(state, side, parsed)
    after = clone(state)
    apply_event(after, event)
    names = Names(state)
    path, mode = list(parsed["path"]), event.data["mode"]
    units = [state["units"][i] for i in parsed["units"]]
    end = path[-1]
    found: dict[str, Any] = {
        "type": "move",
        "units": [u["id"] for u in units],
        "path": path,
        "mode": mode,
        "costs": _path_costs(state, units, mode, path, event.data, names),
        "rule": "5",
    }
    lines = _line_items(state, after, side, units, names)
    items = _zoc_items(state, side, units, mode, path, names, after)
    items += _stacking_items(after, end, names)
    found["consequences"] = items + lines
    moved = names.units(found["units"])
    found["text"] = f"{moved} {'moves' if len(units) == 1 else 'move'} to {names.hex(end)}: " + (
        "; ".join(c["text"] for c in found["costs"])
    )
    return found


def _path_costs(
    state: State,
    units: list[dict[str, Any]],
    mode: str,
    path: list[str],
    record: Mapping[str, Any],
    names: Names,
) -> list[dict[str, Any]]:
    """Each unit's cost of ``path``, step by step by ``moves.StepRules`` with the terrain entered and
    the hexside crossed (TEC); units with the same steps share one entry."""
    mapdata = board.map_of(state)
    view = moves.enemy_view(state, side=units[0]["side"])
    entries: list[dict[str, Any]] = []
    for unit in units:
        rules = moves.StepRules(state, unit, mode, path[0], path, view)
        steps = []
        for frm, to in zip(path, path[1:], strict=False):
            cost = rules.step(frm, to) or 0.0
            across = sorted(mapdata.hexside_features(frm, to) & {"road", "river", "rail"})
            steps.append(
                {
                    "hex": to,
                    "terrain": mapdata.terrain(to),
                    "hexside": across,
                    "cost": cost,
                }
            )
        total, mp = record["costs"][unit["id"]], record["allowances"][unit["id"]]
        same = next((e for e in entries if e["steps"] == steps and e["allowance"] == mp), None)
        if same:
            same["units"].append(unit["id"])
            continue
        entries.append({"units": [unit["id"]], "steps": steps, "cost": total, "allowance": mp})
    for entry in entries:
        words = ", ".join(
            f"{names.hex(s['hex'])} {s['terrain']}"
            + (f" by {' and '.join(s['hexside'])}" if s["hexside"] else "")
            + f" {_mp(s['cost'])}"
            for s in entry["steps"]
        )
        mp = entry["allowance"]
        of = "" if mp >= moves.UNLIMITED else f" of {_mp(mp)}"
        entry["text"] = f"{names.units(entry['units'])}: {_mp(entry['cost'])}{of} MP ({words})"
        entry["rule"] = "TEC"
    return entries


def _zoc_items(
    state: State,
    side: str,
    units: list[dict[str, Any]],
    mode: str,
    path: list[str],
    names: Names,
    after: State,
) -> list[dict[str, Any]]:
    """Rule 7: the move ends in an enemy ZOC (a guerrilla's first ZOC ignored, rule 5); rule 8:
    combat units there must attack in the combat phase every enemy unit exerting it -- as
    ``sequence.combat_obligations`` finds it after the command phase's check (out of command,
    they may not attack: rules 4 D and 10)."""
    view = moves.enemy_view(state, side)
    stopped = [
        u for u in units if moves.StepRules(state, u, mode, path[0], path, view).must_stop(path[-1])
    ]
    if not stopped:
        return []
    zoc, _ = view
    exerting = sorted(
        {
            e["id"]
            for h in zoc.get(path[-1], set())
            for e in board.units_at(state, h)
            if e["side"] != side
        }
    )
    end = names.hex(path[-1])
    ids = [u["id"] for u in stopped]
    items = [
        {
            "text": f"{names.units(ids)} {_n(ids, 'enters', 'enter')} the ZOC of "
            f"{names.units(exerting)} at {end} and must stop there",
            "rule": "7",
        }
    ]
    obliged = set(_combat_obligations(after)["must_attack"])
    fighting = [u["id"] for u in stopped if u["id"] in obliged]
    if fighting:
        items.append(
            {
                "text": f"{names.units(fighting)} must attack in the combat phase, and every enemy "
                f"unit exerting that ZOC must be attacked",
                "rule": "8",
            }
        )
    return items


def _combat_obligations(after: State) -> dict[str, list[str]]:
    """Rule 8 on the state after the move, once the command phase (rule 4 D) has checked command."""
    probe = clone(after)
    _, out_of_command = board.status_of(probe, probe["side"])
    checked = {"side": probe["side"], "out_of_command": out_of_command}
    apply_event(probe, RulesEvent("CommandChecked", checked))
    probe["phase"] = "combat"
    return sequence.combat_obligations(probe)


def _stacking_items(after: State, end: str, names: Names) -> list[dict[str, Any]]:
    """Rule 6: the stack the move ends in, when it is full (no other ground unit may join it)."""
    points = stacking.points(board.units_at(after, end))
    if points + 1 <= stacking.LIMIT:  # a cavalry unit (one third) could still join
        return []
    return [
        {
            "text": f"the stack at {names.hex(end)} is then full: no other ground unit may end a "
            "move there (three units, plus two artillery; three cavalry count as one)",
            "rule": "6",
        }
    ]


def _line_items(
    state: State, after: State, side: str, units: list[dict[str, Any]], names: Names
) -> list[dict[str, Any]]:
    """Rule 10, read on the state after the move, as the command phase (rule 4 D) and the next
    supply phase (rule 4 B) would: units left out of command (they may not attack; in an enemy ZOC
    they must retreat 2 hexes towards their leader, or are eliminated if they cannot), units
    regaining command, units left out of supply (half movement, never towards the enemy)."""
    items: list[dict[str, Any]] = []
    moved = {u["id"] for u in units}
    before_command = board.commanded_hexes(state, side)
    after_command = board.commanded_hexes(after, side)
    zoc = board.zoc_sources(after, board.other(side))
    lost, regained = [], []
    for unit in board.on_map(after, side):
        if not board.needs_lines(unit):
            continue
        was_in = state["units"][unit["id"]]["hex"] in before_command
        now_in = unit["hex"] in after_command
        if not now_in and (was_in or unit["id"] in moved):
            lost.append(unit)
        elif now_in and unit["id"] in moved and (unit["out_of_command"] or not was_in):
            regained.append(unit)
    if lost:
        retreat = [u["id"] for u in lost if u["hex"] in zoc]
        calm = [u["id"] for u in lost if u["hex"] not in zoc]
        if retreat:
            chooser = (
                "you choose the retreat"
                if decisions.mode(after) == decisions.PLAYERS
                else "the retreat is automatic"
            )
            items.append(
                {
                    "text": f"{names.units(retreat)} would be out of command in an enemy ZOC at the "
                    f"command phase: {_n(retreat, 'it', 'they')} may not attack and must retreat "
                    f"2 hexes towards {_n(retreat, 'its', 'their')} leader ({chooser}), or "
                    f"{_n(retreat, 'is', 'are')} eliminated if {_n(retreat, 'it', 'they')} cannot",
                    "rule": "10",
                }
            )
        if calm:
            items.append(
                {
                    "text": f"{names.units(calm)} would be out of command at the command phase "
                    f"(more than {board.COMMAND_RANGE} hexes from a leader, or the line blocked by "
                    f"enemy units or ZOCs): {_n(calm, 'it', 'they')} may not attack",
                    "rule": "10",
                }
            )
    if regained:
        items.append(
            {
                "text": f"{names.units([u['id'] for u in regained])} would be back in command at "
                "the command phase",
                "rule": "10",
            }
        )
    supplied = board.supplied_hexes(after, side)
    cut = [
        u["id"]
        for u in units
        if board.needs_lines(u) and after["units"][u["id"]]["hex"] not in supplied
    ]
    if cut:
        items.append(
            {
                "text": f"{names.units(cut)} would have no line of supply there: if still so at "
                "the next supply phase, half movement and no move towards enemy units",
                "rule": "10",
            }
        )
    return items
