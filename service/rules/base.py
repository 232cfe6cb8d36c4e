"""The contract between the game core and a game's rules module.

A rules system is pure: it does no I/O beyond reading its own data files, keeps no state between
calls, and works on a *state* that is a plain JSON-compatible value (dicts, lists, str, int, float,
bool, None -- never tuples or sets), so that the Game aggregate can snapshot it and the API can send
it. Every decision goes through four functions, after Rally the Troops' modules:

* ``legal_actions(state, side)`` -- what ``side`` may do now, as command dicts the client can send;
* ``decide(state, side, command, dice)`` -- validate a command and return the events it causes,
  recording every resolved fact (paths and costs, each die with its index, odds, table cells,
  losses, retreats).  It raises :class:`RuleViolation` citing the rule when the command is illegal;
* ``apply(state, event)`` -- the pure application of one event to the state: no validation, no
  dice, no clock.  It may mutate ``state`` in place (the aggregate owns it) and returns it;
* ``result(state)`` -- ``None`` while the game goes on, else the end-of-game result.

``decide`` must not mutate the state it is given; it may copy it to look ahead with :func:`clone`.
A state's ``map`` (the scenario's embedded map) is never changed by the rules: ``clone`` shares it.
"""

from __future__ import annotations

import copy
import re
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

JSON = Any
State = dict[str, Any]


class RuleViolation(Exception):
    """A command breaks a rule. ``rule`` cites the rulebook (``"5.2"``, ``"16.7"``, ``"7A"``)."""

    def __init__(self, rule: str, message: str, field: str | None = None) -> None:
        super().__init__(f"{message} (rule {rule})")
        self.rule = rule
        self.message = message
        self.field = field


class InvalidCommand(Exception):
    """A command is malformed (missing or mistyped fields): ``details`` maps field -> reasons."""

    def __init__(self, message: str, details: Mapping[str, Sequence[str]] | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.details = {k: list(v) for k, v in (details or {}).items()}


class ScenarioError(Exception):
    """A scenario or its options are invalid: ``problems`` maps a place (``units[3].hex``) to reasons."""

    def __init__(self, message: str, problems: Mapping[str, Sequence[str]] | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.problems = {k: list(v) for k, v in (problems or {}).items()}


class Dice(Protocol):
    """The dice a decision may roll.  Every roll is drawn by the server and recorded by the core."""

    def roll(self, sides: int = 6, purpose: str = "") -> DieRoll:
        """Draw the next die; the returned record carries its index and value."""
        ...


@dataclass(frozen=True)
class DieRoll:
    index: int
    sides: int
    value: int
    purpose: str = ""

    def as_dict(self) -> dict[str, Any]:
        return {
            "index": self.index,
            "sides": self.sides,
            "value": self.value,
            "purpose": self.purpose,
        }


@dataclass
class RulesEvent:
    """One resolved fact decided by a rules module: ``type`` in the past tense (``UnitMoved``)."""

    type: str
    data: dict[str, Any] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return {"type": self.type, "data": self.data}


@dataclass(frozen=True)
class ScenarioInfo:
    id: str
    system: str
    title: str
    sides: tuple[str, ...]
    description: str = ""
    placeholder: bool = False  # True when the scenario ships placeholder data a club must replace

    def as_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "system": self.system,
            "title": self.title,
            "sides": list(self.sides),
            "description": self.description,
            "placeholder": self.placeholder,
        }


@dataclass(frozen=True)
class Governing:
    """What governs an event type: sections of the module's own rulebook and topics."""

    sections: tuple[str, ...] = ()
    topics: tuple[str, ...] = ()


class RulesSystem(ABC):
    """A game's rules module.  Subclass it, fill the narrow hooks, register it in the registry."""

    #: registry key and API name: ``merida``, ``backbone``, ``bizkaya``, ``barcelona``
    name: str = ""
    #: human title
    title: str = ""
    #: the knowledge-base document of its rulebook (``merida`` ...), see faq/
    document: str = ""

    # -- scenarios ------------------------------------------------------------------------------
    @abstractmethod
    def scenarios(self) -> list[ScenarioInfo]:
        """The scenarios this system ships."""

    @abstractmethod
    def initial_state(self, scenario: str, options: Mapping[str, Any]) -> State:
        """The state before the first command.  Raises :class:`ScenarioError` for a bad scenario or
        options.  Deterministic: no dice (a set-up roll is a command of its own)."""

    def default_options(self, scenario: str) -> dict[str, Any]:
        """The options a scenario starts with; ``initial_state`` merges the given ones over these."""
        return {}

    # -- whose turn -----------------------------------------------------------------------------
    @abstractmethod
    def sides(self, state: State) -> list[str]:
        """All sides of the game (stable order)."""

    @abstractmethod
    def active_sides(self, state: State) -> list[str]:
        """The sides that may act now (empty when the game is over)."""

    def phase(self, state: State) -> dict[str, Any]:
        """Turn and phase for display: ``{"turn": 3, "phase": "movement", "side": "..."}``."""
        return {}

    # -- decisions ------------------------------------------------------------------------------
    @abstractmethod
    def legal_actions(self, state: State, side: str) -> list[dict[str, Any]]:
        """Commands ``side`` may send now.  Large choice spaces may be summarised (e.g. one entry per
        unit with its reachable hexes) as long as every entry is a valid command template."""

    @abstractmethod
    def decide(
        self, state: State, side: str, command: Mapping[str, Any], dice: Dice
    ) -> list[RulesEvent]:
        """Validate ``command`` for ``side`` and return the events it causes."""

    @abstractmethod
    def apply(self, state: State, event: RulesEvent) -> State:
        """Apply one event to ``state`` (may mutate it) and return the new state."""

    @abstractmethod
    def result(self, state: State) -> dict[str, Any] | None:
        """``None`` while the game goes on; else ``{"winner": side|None, "outcome": "win"|"draw",
        "level": "...", ...}``."""

    # -- what each side may see ----------------------------------------------------------------------
    def view(self, state: State, side: str | None) -> State:
        """The state as ``side`` may see it (``None``: a spectator or the public).  Default: all of it."""
        return state

    def event_view(self, event: RulesEvent, state_before: State, side: str | None) -> RulesEvent:
        """An event as ``side`` may see it, given the state before it.  Default: all of it."""
        return event

    def reveals(self, event: RulesEvent) -> bool:
        """Whether an event reveals information the opponent could not see before (it then ends the
        acting side's right to a takeback).  Default: nothing is hidden, so nothing is revealed."""
        return False

    # -- knowledge base -------------------------------------------------------------------------------
    def governing(self, event_type: str) -> Governing:
        """The rulebook sections and topics that govern an event type."""
        return Governing()

    def event_facts(self, event: RulesEvent, state_before: State) -> list[str]:
        """Words describing an event's facts (terrain, unit types, result ...) for ruling search."""
        return []

    def describe(self, event: RulesEvent) -> str:
        """An event in words, for logs.  Default: the type in words and its facts, e.g.
        ``Deployment ended (side: nationalist)``; modules word their events better."""
        return plain_sentence(event)

    # -- drawing -------------------------------------------------------------------------------------
    def board(self, scenario: str) -> dict[str, Any]:
        """The map to draw (for hex games ``service.rules.kernel.layout.board_json(map)``: the map's
        fields plus each hex's centre), or ``{}`` for a system without one."""
        return {}

    def counters(self, state: State) -> list[dict[str, Any]]:
        """The pieces to draw from a (viewed) state: ``[{"id", "side", "hex", "type", "name",
        "values": {name: number}, "steps", "max_steps"}]``.  Default: ``state["units"]`` entries that
        stand on a hex, their numeric fields as values."""
        units = state.get("units") if isinstance(state, dict) else None
        if not isinstance(units, dict):
            return []
        skip = {"steps", "max_steps"}
        out = []
        for uid, unit in units.items():
            if not isinstance(unit, dict) or not unit.get("hex"):
                continue
            values = {
                k: v
                for k, v in unit.items()
                if isinstance(v, (int, float)) and not isinstance(v, bool) and k not in skip
            }
            out.append(
                {
                    "id": uid,
                    "side": unit.get("side"),
                    "hex": unit.get("hex"),
                    "type": unit.get("type", ""),
                    "name": unit.get("name", uid),
                    "values": values,
                    "steps": unit.get("steps"),
                    "max_steps": unit.get("max_steps"),
                }
            )
        return out

    # -- tables and previews ---------------------------------------------------------------------------
    def tables(self) -> dict[str, Any]:
        """Named tables as data (``{"crt": {...}}``)."""
        return {}

    def preview(self, state: State, side: str, command: Mapping[str, Any]) -> dict[str, Any]:
        """What ``command`` would meet before it is sent -- for an attack the odds column and every
        modifier with its rule -- computed on ``state`` as ``side`` sees it (the caller passes the
        side's view, so a preview never reveals hidden units).  Raises InvalidCommand or RuleViolation."""
        raise InvalidCommand(
            "this rules system previews no command", {"command.type": ["no preview"]}
        )

    def combat_preview(self, situation: Mapping[str, Any]) -> dict[str, Any]:
        """Odds, modifiers with rules, and for a roll the result.  Raises InvalidCommand."""
        raise InvalidCommand("this rules system has no combat preview")

    def check_scenario_file(self, path: str) -> list[dict[str, str]]:
        """Problems and placeholders of a scenario file: ``[{"level", "place", "message"}]``."""
        return []


#: top-level state keys that rules never change once the game is set up (a scenario's embedded
#: map): a look-ahead copy shares them instead of copying them
STATIC_KEYS = frozenset({"map"})


def _plain(value: Any) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:g}"
    if isinstance(value, list):
        return ", ".join(_plain(v) for v in value) or "none"
    if isinstance(value, dict):
        return "; ".join(f"{k} {_plain(v)}" for k, v in value.items()) or "none"
    return "none" if value is None else str(value)


def plain_sentence(event: RulesEvent) -> str:
    """An event type in words with its facts: ``DeploymentEnded {side: x}`` -> ``Deployment ended
    (side: x)``."""
    words = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", " ", event.type)
    words = words[:1] + words[1:].lower()
    facts = ", ".join(f"{k.replace('_', ' ')}: {_plain(v)}" for k, v in event.data.items())
    return f"{words} ({facts})" if facts else words


def clone(state: State) -> State:
    """A copy of a state for look-ahead in ``decide``: deep, except the static keys, which are shared."""
    return {k: v if k in STATIC_KEYS else copy.deepcopy(v) for k, v in state.items()}
