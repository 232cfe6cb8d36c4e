"""Rule 5 (movement) with rules 6, 7 and 10: validating a move and listing where a unit may go."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from service.rules.base import RulesEvent, RuleViolation, State
from service.rules.kernel import movement as kernel_movement
from service.rules.merida import board, data, stacking, terrain

MODES = ("tactical", "strategic", "rail")
UNLIMITED = 10_000.0


def allowance(unit: dict[str, Any], mode: str) -> float:
    """Movement points: the chart's tactical rate, doubled for strategic movement, unlimited by rail
    (rule 5); halved out of command (rule 5) and halved out of supply (rule 10)."""
    if mode == "rail" or unit["type"] == "train":
        return UNLIMITED
    mp = float(data.allowance(unit["type"]))
    if mode == "strategic":
        mp *= 2
    if unit["out_of_command"]:
        mp /= 2
    if unit["out_of_supply"]:
        mp /= 2
    return mp


class _Rules:
    """The step judgements for one unit's move, remembering why a step was refused."""

    def __init__(self, state: State, unit: dict[str, Any], mode: str, start: str, path: list[str]):
        self.state, self.unit, self.mode, self.start = state, unit, mode, start
        self.side = unit["side"]
        enemy = board.other(self.side)
        ignore = [o["hex"] for o in state["overruns"]] if state["side"] == self.side else []
        self.zoc = board.zoc_sources(state, enemy, ignore)
        self.enemy_hexes = board.occupied(state, enemy)
        self.mapdata = board.map_of(state)
        self.reason: tuple[str, str] = ("5", "")
        self.ignored: set[str] = set()
        if unit["type"] == "guerrilla":  # rule 5: the first ZOC (an enemy unit's six hexes) entered
            first = next((h for h in path[1:] if h in self.zoc), None)  # is ignored
            self.ignored = set(self.zoc[first]) if first else set()

    def in_zoc(self, hex_: str) -> bool:
        return bool(self.zoc.get(hex_, set()) - self.ignored)

    def refuse(self, rule: str, message: str) -> float | None:
        """Remember why the step is refused; the step costs ``None`` (prohibited)."""
        self.reason = (rule, message)
        return None

    def step(self, frm: str, to: str) -> float | None:
        unit = self.unit
        if to in self.enemy_hexes:
            return self.refuse("6", f"{to} holds enemy units: units never stack with enemy units")
        rule, cost = terrain.judge(self.mapdata, unit["type"], frm, to)
        if rule is not None:
            return self.refuse(rule, f"{unit['name']} may not enter {to} from {frm}")
        if self.mode == "rail" or unit["type"] == "train":
            if "rail" not in self.mapdata.hexside_features(frm, to):
                return self.refuse("5", f"{frm} to {to} is not along the rail line")
            if unit["type"] != "train" and board.controller(self.state, to) != self.side:
                return self.refuse(
                    "5", f"units move by rail only along rail hexes they control ({to})"
                )
        if self.mode in ("strategic", "rail") and to in self.zoc:
            return self.refuse("5", f"strategic movement may not enter an enemy ZOC ({to})")
        if unit["out_of_command"] and self.in_zoc(to):
            return self.refuse("10", f"units out of command may not enter enemy ZOCs ({to})")
        if frm == self.start and self.in_zoc(frm) and self.in_zoc(to):
            same = self.zoc[frm] & self.zoc[to]
            if self.state["options"].get("zoc_to_zoc", "same_unit") == "any":
                return self.refuse(
                    "7", f"units may never move directly from one ZOC to another ({to})"
                )
            if same:
                return self.refuse(
                    "5",
                    f"units may not move directly from one ZOC to another ZOC of the same enemy unit ({to})",
                )
        if self.mode == "rail" or unit["type"] == "train":
            return 0.0
        return cost

    def must_stop(self, hex_: str) -> bool:
        return self.in_zoc(hex_)


def _fitter(state: State, moving: list[dict[str, Any]]) -> Callable[[str], bool]:
    """Rule 6 at the end of a move: does ``hex`` hold the moving units within the limits?"""
    ids = {u["id"] for u in moving}
    stacks: dict[str, list[dict[str, Any]]] = {}
    for unit in board.on_map(state):
        if unit["id"] not in ids:
            stacks.setdefault(unit["hex"], []).append(unit)
    return lambda hex_: stacking.fits(stacks.get(hex_, []) + moving)


def check_move(state: State, side: str, command: Mapping[str, Any]) -> list[RulesEvent]:
    ids, path, mode = command["units"], list(command["path"]), command.get("mode", "tactical")
    if mode not in MODES:
        raise RuleViolation("5", f"mode must be one of {', '.join(MODES)}", "mode")
    units = [state["units"][i] for i in ids]
    for unit in units:
        if unit["side"] != side or unit["status"] != "map":
            raise RuleViolation("4", f"{unit['name']} is not a unit of yours on the map", "units")
        if unit["hex"] != path[0]:
            raise RuleViolation("5", f"{unit['name']} is in {unit['hex']}, not {path[0]}", "path")
        if unit["moved"]:
            raise RuleViolation(
                "5", f"{unit['name']} has moved: movement points are never accumulated", "units"
            )
        if any(unit["id"] in o["attackers"] for o in state["overruns"]):
            raise RuleViolation("8", f"{unit['name']} is committed to an overrun", "units")
    enemy_zoc = board.zoc_sources(state, board.other(side))
    if mode in ("strategic", "rail") and path[0] in enemy_zoc:
        raise RuleViolation("5", "strategic movement may not begin in an enemy ZOC", "mode")
    rail_brigades = [u for u in units if u["type"] not in ("train", "leader")]
    if mode == "rail" and rail_brigades and (state["rail_used"] or len(rail_brigades) > 1):
        raise RuleViolation("5", "rail movement is limited to one brigade per turn", "units")
    if any(u["type"] == "train" for u in units) and (len(units) > 1 or mode != "rail"):
        raise RuleViolation("5", "the armored train moves alone, along the rail line", "mode")
    costs: dict[str, float] = {}
    for unit in units:
        rules = _Rules(state, unit, mode, path[0], path)
        try:
            walked = kernel_movement.walk(
                board.map_of(state).grid,
                path,
                allowance(unit, mode),
                rules.step,
                must_stop=rules.must_stop,
                can_end=_fitter(state, units),
            )
        except kernel_movement.MoveError as err:
            raise _violation(err, rules) from None
        costs[unit["id"]] = walked.cost
        if unit["out_of_supply"]:
            _not_towards_enemy(state, unit, path)
    event = {
        "side": side,
        "units": list(ids),
        "path": path,
        "mode": mode,
        "costs": costs,
        "allowances": {u["id"]: allowance(u, mode) for u in units},
        "counts_for_rail": bool(rail_brigades),
    }
    return [RulesEvent("UnitsMoved", event)]


def _violation(err: kernel_movement.MoveError, rules: _Rules) -> RuleViolation:
    if err.code == "prohibited":
        return RuleViolation(rules.reason[0], rules.reason[1], "path")
    if err.code == "not_adjacent":
        return RuleViolation("5", f"hexes may never be skipped: {err.message}", "path")
    if err.code == "after_stop":
        return RuleViolation(
            "7", f"units must stop on entering an enemy ZOC: {err.message}", "path"
        )
    if err.code == "cannot_end":
        return RuleViolation("6", f"stacking limit exceeded: {err.message}", "path")
    return RuleViolation("5", err.message, "path")


def _towards_enemy(state: State, unit: dict[str, Any], start: str, end: str) -> bool:
    """Does a move from ``start`` to ``end`` end nearer the nearest enemy unit (rule 4B)?"""
    grid = board.map_of(state).grid
    enemies = board.occupied(state, board.other(unit["side"]))
    before = grid.distance_to_nearest(start, enemies)
    after = grid.distance_to_nearest(end, enemies)
    return before is not None and after is not None and after < before


def _not_towards_enemy(state: State, unit: dict[str, Any], path: list[str]) -> None:
    """Rule 4B: units out of supply may not move towards enemy units."""
    if _towards_enemy(state, unit, path[0], path[-1]):
        raise RuleViolation(
            "4", f"{unit['name']} is out of supply and may not move towards enemy units", "path"
        )


def destinations(state: State, unit: dict[str, Any], mode: str) -> dict[str, list[str]]:
    """Where a unit may end a move in ``mode``, with a path to each (for legal actions): the
    hexes ``check_move`` accepts, by the same step rules (rule 4B too, out of supply)."""
    start = unit["hex"]
    if mode in ("strategic", "rail") and start in board.zoc_sources(
        state, board.other(unit["side"])
    ):
        return {}
    if mode == "rail" and unit["type"] not in ("train", "leader") and state["rail_used"]:
        return {}  # rule 5: one brigade a turn by rail
    rules = _Rules(state, unit, mode, start, [start])
    found = kernel_movement.reachable(
        board.map_of(state).grid,
        start,
        allowance(unit, mode),
        rules.step,
        must_stop=rules.must_stop,
        can_end=_fitter(state, [unit]),
    )
    return {
        hex_: list(reach.path)
        for hex_, reach in sorted(found.items())
        if not (unit["out_of_supply"] and _towards_enemy(state, unit, start, hex_))
    }


def regain_hexes(
    state: State, unit: dict[str, Any], tactical: Mapping[str, list[str]] | None = None
) -> tuple[str, list[str]] | None:
    """Rule 10: a unit found out of supply (or out of command) in the supply phase that has not
    moved and could regain its line by moving: which line, and the hexes that regain it.
    ``tactical`` is the unit's tactical :func:`destinations` when the caller has them already."""
    if unit["moved"] or unit["status"] != "map" or not board.needs_lines(unit):
        return None
    for line, flag, reach in (
        ("supply", "out_of_supply", board.supplied_hexes),
        ("command", "out_of_command", board.commanded_hexes),
    ):
        if not unit[flag]:
            continue
        lined = reach(state, unit["side"])
        if unit["hex"] in lined:
            continue
        if tactical is None:
            tactical = destinations(state, unit, "tactical")
        found = [h for h in tactical if h in lined]
        if found:
            return line, found
    return None
