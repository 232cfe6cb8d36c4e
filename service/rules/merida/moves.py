"""Rule 5 (movement) with rules 6, 7 and 10: validating a move, step by step (``reach`` lists where
units may go by the same step rules)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from service.rules.base import Dice, RulesEvent, RuleViolation, State
from service.rules.declare import Path, Text, Units
from service.rules.kernel import movement as kernel_movement
from service.rules.merida import board, data, stacking, terrain
from service.rules.merida.commands import COMMANDS

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


def train_strategic(state: State) -> bool:
    """The reading of the armored train's movement a game plays (option ``armored_train``,
    conflict entry ``merida:conflict-armored-train``).  By default rule 5's own line, "Armored
    train movement: unlimited movement along the rail line": unlimited points along the rail, and
    otherwise the movement rules every unit keeps -- it leaves an enemy ZOC freely at the start,
    stops on entering one, may attack, and gives no strategic-movement modifier.  With
    ``armored_train: "strategic"`` it moves as a brigade by rail ("Otherwise, the same rules given
    above for strategic movement apply")."""
    return bool(state["options"].get("armored_train", "unlimited") == "strategic")


def strategic_move(state: State, unit: dict[str, Any], mode: str) -> bool:
    """Does ``unit`` moving in ``mode`` come under the strategic-movement rules (rule 5): strategic
    movement, and rail movement ("the same rules given above for strategic movement apply") --
    the armored train only under the ``armored_train: "strategic"`` reading."""
    if unit["type"] == "train":
        return train_strategic(state)
    return mode in ("strategic", "rail")


EnemyView = tuple[dict[str, set[str]], set[str]]


def enemy_view(state: State, side: str) -> EnemyView:
    """The enemy ZOCs (hex -> the stacks exerting it; an overrun stack exerts none for the phasing
    player, rule 8) and the hexes of enemy units, as ``side`` moves."""
    enemy = board.other(side)
    ignore = [o["hex"] for o in state["overruns"]] if state["side"] == side else []
    return board.zoc_sources(state, enemy, ignore), board.occupied(state, enemy)


class StepRules:
    """The step judgements for one unit's move, remembering why a step was refused."""

    def __init__(
        self,
        state: State,
        unit: dict[str, Any],
        mode: str,
        start: str,
        path: list[str],
        view: EnemyView | None = None,
    ):
        self.state, self.unit, self.mode, self.start = state, unit, mode, start
        self.side = unit["side"]
        self.zoc, self.enemy_hexes = view or enemy_view(state, self.side)
        self.mapdata = board.map_of(state)
        self.reason: tuple[str, str] = ("5", "")
        self.kind = unit["type"]
        self.river_added = terrain.river_added(state)
        self.by_rail = mode == "rail" or self.kind == "train"
        self.strategic = strategic_move(state, unit, mode)
        self.ignored: set[str] = set()
        if unit["type"] == "guerrilla":  # rule 5: the first ZOC (an enemy unit's six hexes) entered
            first = next((h for h in path[1:] if h in self.zoc), None)  # is ignored
            self.ignored = set(self.zoc[first]) if first else set()

    def in_zoc(self, hex_: str) -> bool:
        if not self.ignored:
            return hex_ in self.zoc
        return bool(self.zoc.get(hex_, set()) - self.ignored)

    def refuse(self, rule: str, message: str) -> float | None:
        """Remember why the step is refused; the step costs ``None`` (prohibited)."""
        self.reason = (rule, message)
        return None

    def step(self, frm: str, to: str) -> float | None:
        unit = self.unit
        if to in self.enemy_hexes:
            return self.refuse("6", f"{to} holds enemy units: units never stack with enemy units")
        rule, cost = terrain.judge(self.mapdata, self.kind, frm, to, self.river_added)
        if rule is not None:
            return self.refuse(rule, f"{unit['name']} may not enter {to} from {frm}")
        if self.by_rail:
            if "rail" not in self.mapdata.hexside_features(frm, to):
                return self.refuse("5", f"{frm} to {to} is not along the rail line")
            if self.kind != "train" and board.controller(self.state, to) != self.side:
                return self.refuse(
                    "5", f"units move by rail only along rail hexes they control ({to})"
                )
        if self.strategic and to in self.zoc:
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
        return 0.0 if self.by_rail else cost

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


def bound_group(state: State, unit: dict[str, Any]) -> list[dict[str, Any]]:
    """Set up table note: units that begin the game stacked with a leader must remain with that
    leader for turn 1.  On turn 1 the leader and the units bound to it, while still together, move
    only as one stack: the units that must move with ``unit`` (``unit`` first), else just it."""
    if state["turn"] != 1:
        return [unit]
    leader = state["units"].get(unit["stay_with"] or "") or unit
    if leader["type"] != "leader" or leader["status"] != "map" or leader["hex"] != unit["hex"]:
        return [unit]
    bound = [
        u
        for u in board.units_at(state, leader["hex"], leader["side"])
        if u["stay_with"] == leader["id"]
    ]
    group = [leader, *bound] if bound else [unit]
    return sorted(group, key=lambda u: (u["id"] != unit["id"], u["type"] == "leader", u["id"]))


def committed(state: State, unit: dict[str, Any]) -> bool:
    """Rule 8 automatic victory: the attackers of a declared overrun stay where they are."""
    return any(unit["id"] in o["attackers"] for o in state["overruns"])


def check_movers(state: State, side: str, units: list[dict[str, Any]], start: str) -> None:
    """Rules 4, 5, 8 and 12: who may move now."""
    ids = {u["id"] for u in units}
    for unit in units:
        if unit["side"] != side or unit["status"] != "map":
            raise RuleViolation("4", f"{unit['name']} is not a unit of yours on the map", "units")
        if unit["hex"] != start:
            raise RuleViolation("5", f"{unit['name']} is in {unit['hex']}, not {start}", "path")
        if unit["moved"]:
            raise RuleViolation(
                "5", f"{unit['name']} has moved: movement points are never accumulated", "units"
            )
        if committed(state, unit):
            raise RuleViolation("8", f"{unit['name']} is committed to an overrun", "units")
        group = bound_group(state, unit)
        if any(u["id"] not in ids for u in group):
            raise RuleViolation("12", separated(group, unit), "units")


def separated(group: list[dict[str, Any]], unit: dict[str, Any]) -> str:
    """Why ``unit`` may not move without the rest of its turn-1 ``group`` (set up table note)."""
    leader = next(u for u in group if u["type"] == "leader")
    others = [u["name"] for u in group if u["type"] != "leader"]
    stack = " and ".join([", ".join(others), leader["name"]])
    if unit["id"] == leader["id"]:
        return (
            f"{leader['name']} began the game stacked with {', '.join(others)}, who must remain "
            f"with that leader for turn 1: move {stack} as one stack"
        )
    return (
        f"{unit['name']} began the game stacked with {leader['name']} and must remain with that "
        f"leader for turn 1: move {stack} as one stack"
    )


def check_mode(
    state: State, side: str, units: list[dict[str, Any]], mode: str, start: str
) -> list[dict[str, Any]]:
    """Rule 5: strategic and rail movement, the armored train."""
    strategic = any(strategic_move(state, u, mode) for u in units)
    if strategic and start in board.zoc_sources(state, board.other(side)):
        raise RuleViolation("5", "strategic movement may not begin in an enemy ZOC", "mode")
    rail_brigades = [u for u in units if u["type"] not in ("train", "leader")]
    if mode == "rail" and rail_brigades and (state["rail_used"] or len(rail_brigades) > 1):
        raise RuleViolation("5", "rail movement is limited to one brigade per turn", "units")
    if any(u["type"] == "train" for u in units) and (len(units) > 1 or mode != "rail"):
        raise RuleViolation("5", "the armored train moves alone, along the rail line", "mode")
    return rail_brigades


def walk_costs(
    state: State,
    units: list[dict[str, Any]],
    mode: str,
    path: list[str],
    view: EnemyView | None = None,
) -> dict[str, float]:
    """Rules 5, 6, 7, 10 and the TEC, step by step for each unit: the cost of each unit's move."""
    costs: dict[str, float] = {}
    view = view or enemy_view(state, units[0]["side"])
    for unit in units:
        rules = StepRules(state, unit, mode, path[0], path, view)
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
    return costs


@COMMANDS.command(
    "move",
    phases=("movement",),
    doc="Rule 5: units move together along a path, in tactical, strategic or rail mode.",
    units=Units(min=1),
    path=Path(min=2),
    mode=Text(required=False, choices=MODES),
)
def check_move(state: State, side: str, command: Mapping[str, Any], dice: Dice) -> list[RulesEvent]:
    return [judge_move(state, side, command)]


def judge_move(state: State, side: str, command: Mapping[str, Any]) -> RulesEvent:
    """The move a parsed ``move`` command makes, or the RuleViolation citing the rule it breaks."""
    ids, path, mode = command["units"], list(command["path"]), command.get("mode", "tactical")
    units = [state["units"][i] for i in ids]
    check_movers(state, side, units, path[0])
    rail_brigades = check_mode(state, side, units, mode, path[0])
    event = {
        "side": side,
        "units": list(ids),
        "path": path,
        "mode": mode,
        "costs": walk_costs(state, units, mode, path),
        "allowances": {u["id"]: allowance(u, mode) for u in units},
        "counts_for_rail": bool(rail_brigades),
    }
    return RulesEvent("UnitsMoved", event)


def _violation(err: kernel_movement.MoveError, rules: StepRules) -> RuleViolation:
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
