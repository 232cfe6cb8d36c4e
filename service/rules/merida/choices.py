"""The commands that answer a pending decision (``decisions.py``) and their templates: which units
absorb a loss (rule 8), which retreat path and which displacement (rule 8), which retreat brings
units out of command closer to their leader (rule 10)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from service.rules.actions import Actions, one_of
from service.rules.base import Dice, RulesEvent, RuleViolation, State, clone
from service.rules.declare import Names, Path, Units
from service.rules.merida import decisions, sequence
from service.rules.merida.commands import COMMANDS
from service.rules.merida.events import apply_event


def _head(state: State) -> dict[str, Any]:
    return decisions.pending(state)[0]


def _taken(state: State, answer: dict[str, Any]) -> list[RulesEvent]:
    """The player's answer, the steps then forced, and (the rule 10 retreats of phase D done) the
    game run on to the next decision."""
    head, *rest = decisions.pending(state)
    work = clone(state)
    first = decisions.decision_event(work, head, answer, "chosen", rest)
    apply_event(work, first)
    events = [first, *decisions.run_on(work)]
    if not decisions.pending(work) and work["phase"] == "command":
        events += sequence.advance_events(work)
    return events


@COMMANDS.command(
    "choose_loss",
    phases=("combat",),
    doc="Rule 8: the owner chooses which of his units absorb the losses of a combat result "
    "(leaders only when no combat unit is left, rule 2).",
    units=Units(min=1),
)
def choose_loss(
    state: State, side: str, command: Mapping[str, Any], dice: Dice
) -> list[RulesEvent]:
    step = _head(state)
    chosen = sorted(command["units"])
    legal = decisions.answers(state, step)
    if any(sorted(a["units"]) == chosen for a in legal):
        return _taken(state, {"units": list(command["units"])})
    candidates, count = decisions.loss_candidates(state, step)
    names = ", ".join(u["name"] for u in candidates)
    if len(set(chosen)) != count or len(chosen) != count:
        units = "unit" if count == 1 else "units"
        raise RuleViolation("8", f"the result takes {count} {units}: choose {count}", "units")
    ids = {u["id"] for u in candidates}
    stray = [u for u in chosen if u not in ids]
    leader = next(
        (u for u in stray if state["units"].get(u, {}).get("type") == "leader"),
        None,
    )
    if leader is not None:
        raise RuleViolation(
            "2",
            f"{state['units'][leader]['name']} is a leader: leaders are lost with their stack, "
            f"not in place of a unit ({names} may absorb the loss)",
            "units",
        )
    raise RuleViolation("8", f"only {names} may absorb this loss", "units")


@COMMANDS.command(
    "choose_retreat",
    phases=("combat", "command"),
    doc="Rule 8: the owner chooses the retreat path (and, instead of overstacking, where the units "
    "already there are displaced); rule 10: the retreat of units out of command, closer to their "
    "leader if possible.",
    path=Path(min=1),
    displace=Path(required=False, min=2),
)
def choose_retreat(
    state: State, side: str, command: Mapping[str, Any], dice: Dice
) -> list[RulesEvent]:
    step = _head(state)
    path, displace = list(command["path"]), command.get("displace")
    for answer in decisions.answers(state, step):
        if answer.get("path") == path and (answer.get("displace") or {}).get("path") == displace:
            return _taken(state, answer)
    given = {"path": path, "displace": {"path": displace} if displace else None}
    raise decisions.why_not_retreat(state, step, given)


# -- templates ---------------------------------------------------------------------------------------


def templates(state: State, side: str, names: Names, out: Actions) -> None:
    """The legal answers to the pending step, each ``one_of`` option legal on its own."""
    step = _head(state)
    found = decisions.answers(state, step)
    if step["kind"] == "loss":
        _, count = decisions.loss_candidates(state, step)
        role = "attacking" if step["role"] == "attacker" else "defending"
        losses = "loss" if count == 1 else f"{count} losses"
        label = f"Choose the {role} units that take the {losses} (rule 8)"
        options = [a["units"] for a in found]
        choose = {"units": one_of(options, [names.units(o) for o in options])}
        out.add(COMMANDS.template("choose_loss", label, choose=choose))
        return
    who = names.units([u["id"] for u in decisions._live(state, step["units"])])
    plain = [a["path"] for a in found if "path" in a and "displace" not in a]
    if plain:
        label = f"Choose the retreat of {who} (rule {step['rule']})"
        choose = {"path": one_of(plain, [_path_label(names, p) for p in plain])}
        out.add(COMMANDS.template("choose_retreat", label, choose=choose))
    by_path: dict[tuple[str, ...], list[dict[str, Any]]] = {}
    for answer in found:
        if answer.get("displace"):
            by_path.setdefault(tuple(answer["path"]), []).append(answer["displace"])
    for path, moves in by_path.items():
        label = (
            f"Retreat {who} to {_path_label(names, list(path))}, displacing "
            f"{names.units(moves[0]['units'])} (rule 8)"
        )
        ends = [m["path"] for m in moves]
        choose = {"displace": one_of(ends, [f"to {names.hex(e[-1])}" for e in ends])}
        out.add(
            COMMANDS.template("choose_retreat", label, fixed={"path": list(path)}, choose=choose)
        )


def _path_label(names: Names, path: list[str]) -> str:
    end = names.hex(path[-1])
    if len(path) > 2:
        return f"{end} by {', '.join(names.hex(h) for h in path[1:-1])}"
    return end
