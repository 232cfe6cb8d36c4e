"""The declared rules events of Closing the Merida Pocket (``EVENTS``).

Each event type is declared once on its ``apply`` -- the pure application of the recorded facts: no
validation, no dice, no judgement -- and beside it its sentence in printed names (``words``), its
facts for the knowledge base (``facts``) and the rulebook sections and topics that govern it.  Merida
has no hidden information: every side sees every event whole."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from service.rules.base import RulesEvent, State
from service.rules.declare import Events, Facts, Names
from service.rules.merida import board
from service.rules.merida.moves import strategic_move

EVENTS = Events("merida")
event = EVENTS.event


def apply_event(state: State, recorded: RulesEvent) -> State:
    return EVENTS.apply(state, recorded)


# -- words ------------------------------------------------------------------------------------------


def _side(side: str) -> str:
    return side.capitalize()


def _phase(phase: str) -> str:
    return phase.replace("_", " ")


def _verb(units: Sequence[str], singular: str, plural: str) -> str:
    return singular if len(units) == 1 else plural


def _listed(names: Names, units: Sequence[str]) -> str:
    return names.units(units) if units else "none"


def _moved_words(d: dict[str, Any], n: Names) -> str:
    how = {"strategic": " by strategic movement", "rail": " by rail"}.get(d["mode"], "")
    return f"{n.units(d['units'])} {_verb(d['units'], 'moves', 'move')}{how} {n.path(d['path'])}"


def _retreats_words(d: dict[str, Any], n: Names) -> list[str]:
    parts = [
        f"{n.units(r['units'])} {_verb(r['units'], 'retreats', 'retreat')} {n.path(r['path'])}"
        for r in d["retreats"]
    ]
    parts += [
        f"{n.units(m['units'])} {_verb(m['units'], 'is', 'are')} displaced {n.path(m['path'])}"
        for m in d.get("displaced", [])
    ]
    if d["eliminated"]:
        parts.append(f"{n.units(d['eliminated'])} eliminated")
    return parts


def _retreated_words(d: dict[str, Any], n: Names) -> str:
    return f"{d['reason'].capitalize()}: {'; '.join(_retreats_words(d, n)) or 'no retreat'}"


def _combat_words(d: dict[str, Any], n: Names) -> str:
    verb = _verb(d["attackers"], "attacks", "attack")
    head = f"{n.units(d['attackers'])} {verb} {n.hex(d['hex'])}"
    if "die" in d:
        head += f" at {d['column']}: roll {d['die']['value']} (modified {d['modified_roll']})"
    losses = [f"{n.units(d['eliminated'])} eliminated"] if d["eliminated"] else []
    losses += [
        f"{n.units(r['units'])} {_verb(r['units'], 'retreats', 'retreat')} to {n.hex(r['path'][-1])}"
        for r in d["retreats"]
    ]
    return f"{head}: {d['result']}" + "".join(f"; {part}" for part in losses)


def _advanced_words(d: dict[str, Any], n: Names) -> str:
    path = d["path"]
    onward = f" and on to {n.hex(path[-1])}" if len(path) > 1 else ""
    verb = _verb(d["units"], "advances", "advance")
    return f"{n.units(d['units'])} {verb} into {n.hex(path[0])}{onward}"


def _removed_words(d: dict[str, Any], n: Names) -> str:
    instead = f" in place of {n.unit(d['due'])}" if d["unit"] != d["due"] else ""
    return f"{n.unit(d['unit'])} is removed from the map{instead}"


def _reorganized_words(d: dict[str, Any], n: Names) -> str:
    return (
        f"{n.unit(d['unit'])} is reorganized with {n.unit(d['leader'])} at {n.hex(d['hex'])}; "
        f"{n.units(d['gone'])} {_verb(d['gone'], 'is', 'are')} gone for good"
    )


def _checked_words(d: dict[str, Any], n: Names) -> str:
    supply = f"out of supply: {_listed(n, d['out_of_supply'])}; " if "out_of_supply" in d else ""
    check = "supply check" if "out_of_supply" in d else "command check"
    return f"{_side(d['side'])} {check}: {supply}out of command: {_listed(n, d['out_of_command'])}"


def _ended_words(d: dict[str, Any], n: Names) -> str:
    points = ", ".join(f"{_side(side)} {p}" for side, p in d["points"].items())
    return f"Game over: {points} victory points; {d['level']}"


# -- facts for the knowledge base --------------------------------------------------------------------


def _types(state: State, ids: Sequence[str]) -> list[str]:
    return sorted({state["units"][i]["type"] for i in ids if i in state["units"]})


def _terrain_words(state: State, hex_: str) -> list[str]:
    mapdata = board.map_of(state)
    return [mapdata.terrain(hex_), *sorted(mapdata.hex_features(hex_))]


def _moved_facts(d: dict[str, Any], state: State) -> list[str]:
    facts = [f"{d['mode']} movement", *_types(state, d["units"])]
    if "train" in facts:
        facts.append("armored train")
    zoc = board.zoc_sources(state, board.other(d["side"]))
    if any(h in zoc for h in d["path"][1:]):
        facts.append("entered enemy zone of control")
    for hex_ in d["path"][1:]:
        facts += _terrain_words(state, hex_)
    mapdata = board.map_of(state)
    for frm, to in zip(d["path"], d["path"][1:], strict=False):
        facts += sorted(mapdata.hexside_features(frm, to))
    return facts


def _combat_facts(d: dict[str, Any], state: State) -> list[str]:
    effects = [e["cause"] for e in d.get("strength_effects", [])]
    facts = [f"result {d['result']}", *_terrain_words(state, d["hex"])]
    facts += [f"attacker {t}" for t in _types(state, d["attackers"])]
    facts += [f"defender {t}" for t in _types(state, d["defenders"])]
    facts += [f"odds {d['column']}"] if d.get("column") else []
    facts += [m["cause"] for m in d.get("modifiers", [])] + effects
    flags = {
        "across river": any("river" in e for e in effects),
        "air units": bool(d.get("air_rolls")),
        "units eliminated": bool(d["eliminated"]),
        "retreat": bool(d["retreats"]),
        "advance after combat": bool(d.get("advance")),
        # rule 8 read with the option combat_once_per: game_turn (conflict combat-once-per-turn)
        "once per game turn": (state.get("options") or {}).get("combat_once_per") == "game_turn",
    }
    return facts + [word for word, present in flags.items() if present]


def _fixed(*words: str) -> Facts:
    return lambda d, state: list(words)


# -- the events -------------------------------------------------------------------------------------


#: rule 4: "The first player in a turn is always the Nationalist (rebel) player."
FIRST_PLAYER = "nationalist"


def _place(state: State, unit_id: str, hex_: str | None) -> None:
    unit = state["units"][unit_id]
    unit["hex"] = hex_
    unit["status"] = "map" if hex_ is not None else unit["status"]


def _remove(state: State, unit_ids: list[str], status: str) -> None:
    for unit_id in unit_ids:
        unit = state["units"][unit_id]
        unit["status"] = status
        unit["hex"] = None


def _new_turn(state: State, side: str) -> None:
    """Phase A of a player's turn: the marks of the last turn go (rules 5 and 8).  Rule 8's "once
    per turn" marks go with each player's turn, or -- with the option ``combat_once_per:
    game_turn`` -- only when the game turn begins (the Nationalist's turn, rule 4)."""
    once_per_game_turn = state["options"].get("combat_once_per", "player_turn") == "game_turn"
    clear_combat = not once_per_game_turn or side == FIRST_PLAYER
    for unit in state["units"].values():
        unit["moved"] = False
        if clear_combat:
            unit.update(attacked=False, defended=False)
        if unit["side"] == side:
            unit["strategic"] = False  # its effect lasts for the next player's phase (rule 5)
    state["rail_used"] = False
    state["overruns"] = []
    state["air_allocations"] = []
    if side == "nationalist":
        for side_air in state["air"].values():
            side_air["used"] = {}


@event(
    "PhaseBegan",
    sections=("4",),
    topics=("sequence of play",),
    words=lambda d, n: f"Turn {d['turn']}: {_side(d['side'])} {_phase(d['phase'])} phase",
)
def _phase_began(state: State, data: dict[str, Any]) -> None:
    state["turn"], state["side"], state["phase"] = data["turn"], data["side"], data["phase"]
    state["advance"] = None
    if data["phase"] == "reinforcements":
        _new_turn(state, data["side"])
    if data["phase"] == "combat":
        state["must_attack"] = list(data.get("must_attack", []))
        state["must_be_attacked"] = list(data.get("must_be_attacked", []))


@event(
    "ReinforcementsDue",
    sections=("4", "12"),
    topics=("reinforcements",),
    words=lambda d, n: f"{_side(d['side'])} reinforcements due: {n.units(d['units'])}",
)
def _due(state: State, data: dict[str, Any]) -> None:
    for unit_id in data["units"]:
        state["units"][unit_id]["status"] = "pending"


@event(
    "RemovalsDue",
    sections=("12",),
    topics=("reinforcements", "removal"),
    words=lambda d, n: f"{_side(d['side'])} units due for removal: {n.units(d['units'])}",
)
def _removals_due(state: State, data: dict[str, Any]) -> None:
    state["pending_removals"].extend(data["units"])


@event(
    "ReinforcementPlaced",
    sections=("4", "12", "6"),
    topics=("reinforcements", "stacking"),
    words=lambda d, n: f"{n.unit(d['unit'])} enters at {n.hex(d['hex'])}",
)
def _placed(state: State, data: dict[str, Any]) -> None:
    _place(state, data["unit"], data["hex"])


@event(
    "UnitDeployed",
    sections=("12", "6"),
    topics=("set up", "stacking"),
    words=lambda d, n: f"{n.unit(d['unit'])} deploys to {n.hex(d['hex'])}",
)
def _deployed(state: State, data: dict[str, Any]) -> None:
    _place(state, data["unit"], data["hex"])


@event(
    "UnitRemoved",
    sections=("12",),
    topics=("reinforcements", "removal"),
    words=_removed_words,
)
def _removed(state: State, data: dict[str, Any]) -> None:
    _remove(state, [data["unit"]], "removed")
    state["pending_removals"].remove(data["due"])
    if data["unit"] != data["due"]:
        state.setdefault("removed_for", {})[data["due"]] = data["unit"]


@event(
    "UnitKept",
    sections=("12", "11"),
    topics=("reinforcements", "victory points"),
    words=lambda d, n: f"{n.unit(d['unit'])} stays on the map for {d['vp_cost']} victory points",
)
def _kept(state: State, data: dict[str, Any]) -> None:
    state["pending_removals"].remove(data["unit"])
    side = state["units"][data["unit"]]["side"]
    state["vp_adjustments"][side] -= data["vp_cost"]


@event(
    "UnitReturned",
    sections=("12",),
    topics=("reinforcements",),
    words=lambda d, n: f"{n.unit(d['unit'])} returns at {n.hex(d['hex'])}",
)
def _returned(state: State, data: dict[str, Any]) -> None:
    _place(state, data["unit"], data["hex"])


@event(
    "LeaderReplaced",
    sections=("12", "2"),
    topics=("reinforcements", "leaders"),
    words=lambda d, n: (
        f"{n.unit(d['removed'])} is replaced by {n.unit(d['placed'])} at {n.hex(d['hex'])}"
    ),
)
def _leader_replaced(state: State, data: dict[str, Any]) -> None:
    _remove(state, [data["removed"]], "removed")


@event(
    "UnitReorganized",
    sections=("9", "6", "7"),
    topics=("reorganization", "leaders", "stacking"),
    words=_reorganized_words,
)
def _reorganized(state: State, data: dict[str, Any]) -> None:
    _place(state, data["unit"], data["hex"])
    _remove(state, data["gone"], "gone")


@event(
    "StatusChecked",
    sections=("4", "10"),
    topics=("supply", "command"),
    words=_checked_words,
    facts=_fixed("line of supply", "line of command"),
)
def _status(state: State, data: dict[str, Any]) -> None:
    for unit in state["units"].values():
        if unit["side"] == data["side"]:
            unit["out_of_supply"] = unit["id"] in data["out_of_supply"]
            unit["out_of_command"] = unit["id"] in data["out_of_command"]


@event(
    "CommandChecked",
    sections=("4", "10"),
    topics=("command",),
    words=_checked_words,
    facts=_fixed("line of command"),
)
def _command(state: State, data: dict[str, Any]) -> None:
    for unit in state["units"].values():
        if unit["side"] == data["side"]:
            unit["out_of_command"] = unit["id"] in data["out_of_command"]


def _control(state: State, side: str, hexes: list[str]) -> None:
    for hex_ in hexes:
        state["control"][hex_] = side


@event(
    "UnitsMoved",
    sections=("5", "6", "7", "10", "12", "TEC"),
    topics=("movement", "zone of control", "terrain", "stacking"),
    words=_moved_words,
    facts=_moved_facts,
)
def _moved(state: State, data: dict[str, Any]) -> None:
    for unit_id in data["units"]:
        unit = state["units"][unit_id]
        unit["hex"] = data["path"][-1]
        unit["moved"] = True
        if strategic_move(state, unit, data["mode"]):
            unit["strategic"] = True
    if data["mode"] == "rail" and data.get("counts_for_rail", True):
        state["rail_used"] = True
    _control(state, data["side"], data["path"][1:])


@event(
    "OverrunDeclared",
    sections=("8",),
    topics=("automatic victory", "overrun", "combat"),
    words=lambda d, n: f"{n.units(d['attackers'])} overrun {n.hex(d['hex'])} at {d['column']}",
    facts=lambda d, state: ["automatic victory", "overrun", f"odds {d['column']}"],
)
def _overrun(state: State, data: dict[str, Any]) -> None:
    state["overruns"].append({"hex": data["hex"], "attackers": list(data["attackers"])})


def _moves_of(state: State, data: dict[str, Any]) -> None:
    for move in [*data["retreats"], *data.get("displaced", [])]:
        for unit_id in move["units"]:
            state["units"][unit_id]["hex"] = move["path"][-1]


@event(
    "UnitsRetreated",
    sections=("10", "8", "7"),
    topics=("command", "retreat", "zone of control"),
    words=_retreated_words,
    facts=_fixed("out of command", "retreat 2 hexes", "enemy zone of control"),
)
def _retreated(state: State, data: dict[str, Any]) -> None:
    _moves_of(state, data)
    _remove(state, data.get("eliminated", []), "eliminated")


@event(
    "AirAllocated",
    sections=("4", "8", "2"),
    topics=("air units",),
    words=lambda d, n: (
        f"{_side(d['side'])} air {', '.join(d['air'])} "
        f"{'attacks' if d['role'] == 'attack' else 'defends'} at {n.hex(d['hex'])}"
    ),
    facts=lambda d, state: [f"air {d['role']}", *d["air"]],
)
def _air(state: State, data: dict[str, Any]) -> None:
    used = state["air"][data["side"]]["used"]
    for kind in data["air"]:
        used[kind] = used.get(kind, 0) + 1
    state["air_allocations"].append(
        {"side": data["side"], "hex": data["hex"], "air": list(data["air"]), "role": data["role"]}
    )


@event(
    "CombatResolved",
    sections=("8", "2", "TEC", "10"),
    topics=("combat", "retreat", "air units", "terrain"),
    words=_combat_words,
    facts=_combat_facts,
)
def _combat(state: State, data: dict[str, Any]) -> None:
    for unit_id in data["attackers"]:
        state["units"][unit_id]["attacked"] = True
    for unit_id in data["defenders"]:
        state["units"][unit_id]["defended"] = True
    for loss in data.get("air_losses", []):
        if loss["outcome"] == "shot_down":
            shot = state["air"][loss["side"]]["shot_down"]
            shot[loss["type"]] = shot.get(loss["type"], 0) + 1
    _remove(state, data["eliminated"], "eliminated")
    _moves_of(state, data)
    state["advance"] = data.get("advance")
    steps = list(data.get("pending", []))  # issue 19: what the owners still decide (decisions.py)
    state["pending"] = steps
    state["combat"] = (
        {k: data[k] for k in ("hex", "side", "attackers", "result", "unfilled")} if steps else None
    )


def _how(d: dict[str, Any]) -> str:
    if d["how"] == "only":
        return " (the only legal choice, taken automatically)"
    return f" (chosen by the {_side(d['side'])} player, rule {d['rule']})"


def _decision_words(d: dict[str, Any], n: Names) -> str:
    units = d["units"]
    if d["kind"] == "loss":
        lost = [u for u in d["eliminated"] if u not in units]
        with_them = f", and {n.units(lost)} with them (rule 2)" if lost else ""
        text = f"{n.units(units)} {_verb(units, 'is', 'are')} lost{with_them}"
    elif d.get("path"):
        text = f"{n.units(units)} {_verb(units, 'retreats', 'retreat')} {n.path(d['path'])}"
        moved = d.get("displaced")
        if moved:
            verb = _verb(moved["units"], "is", "are")
            text += f", displacing {n.units(moved['units'])} ({verb} moved to "
            text += f"{n.hex(moved['path'][-1])})"
    else:
        text = f"{n.units(units)} cannot retreat and {_verb(units, 'is', 'are')} eliminated"
        text += f": {d.get('reason', 'no legal retreat')}"
    return text + _how(d)


def _pending_words(d: dict[str, Any], n: Names) -> str:
    stacks = "; ".join(f"{n.units(s['units'])}" for s in d["pending"])
    return f"{_side(d['side'])} units out of command in an enemy ZOC must retreat 2 hexes: {stacks}"


@event(
    "DecisionTaken",
    sections=("8", "10", "6", "2"),
    topics=("retreat", "losses", "stacking", "decisions"),
    words=_decision_words,
    facts=lambda d, state: [
        "loss" if d["kind"] == "loss" else "retreat",
        "player's choice" if d["how"] == "chosen" else "only legal choice",
        *(["displaced units"] if d.get("displaced") else []),
        *(["units eliminated"] if d["eliminated"] else []),
    ],
)
def _decision(state: State, data: dict[str, Any]) -> None:
    """Issue 19: one answer to a pending step (rules 8 and 10), with all it causes."""
    _remove(state, data["eliminated"], "eliminated")
    moves = [data["displaced"]] if data.get("displaced") else []
    if data.get("path"):
        moves.append({"units": data["units"], "path": data["path"]})
    for move in moves:
        for unit_id in move["units"]:
            state["units"][unit_id]["hex"] = move["path"][-1]
    state["pending"] = list(data["pending"])
    if not data["pending"] and state.get("combat"):
        state["advance"] = data.get("advance")
        state["combat"] = None


@event(
    "RetreatsDue",
    sections=("10", "4"),
    topics=("command", "retreat", "zone of control"),
    words=_pending_words,
    facts=_fixed("out of command", "retreat 2 hexes", "enemy zone of control"),
)
def _retreats_due(state: State, data: dict[str, Any]) -> None:
    """Rule 10: the out-of-command stacks whose owner chooses each retreat (decisions.py)."""
    state["pending"] = list(data["pending"])


@event(
    "UnitsAdvanced",
    sections=("8",),
    topics=("advance after combat",),
    words=_advanced_words,
    facts=_fixed("advance after combat"),
)
def _advanced(state: State, data: dict[str, Any]) -> None:
    for unit_id in data["units"]:
        state["units"][unit_id]["hex"] = data["path"][-1]
    state["advance"] = None
    _control(state, data["side"], data["path"])


@event(
    "GameEnded",
    sections=("11",),
    topics=("victory conditions", "victory points"),
    words=_ended_words,
    facts=lambda d, state: [d["level"], "victory points"],
)
def _ended(state: State, data: dict[str, Any]) -> None:
    state["phase"] = "over"
    state["result"] = dict(data)
