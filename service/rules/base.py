"""The contract between the game core and a game's rules module.

A rules system is pure: it does no I/O beyond reading its own data files, keeps no state between
calls (a memo of a pure computation keyed by every input it reads, such as the kernel's map cache or
Merida's movement searches, is allowed), and works on a *state* that is a plain JSON-compatible value (dicts, lists, str, int, float,
bool, None -- never tuples or sets), so that the Game aggregate can snapshot it and the API can send
it. Every decision goes through four functions, after Rally the Troops' modules:

* ``actions(state, side)`` -- what ``side`` may do now, as templates of one vocabulary (actions.py);
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
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from service.rules.actions import Actions
    from service.rules.declare import Commands, Events
    from service.rules.luck import RollValue
    from service.rules.rulebook import Conflict, Link, RulebookSpec

JSON = Any
State = dict[str, Any]


#: a rulebook's charts as their references name them, in the words a player reads
CHARTS = {"TEC": "the Terrain Effects Chart", "CRT": "the Combat Results Table"}


def rule_words(rule: str) -> str:
    """A rule reference as a player reads it: ``"5.2"`` -> ``"rule 5.2"``, ``"TEC"`` -> ``"the
    Terrain Effects Chart"`` (never the bare abbreviation)."""
    rule = str(rule)
    return CHARTS.get(rule.upper(), f"rule {rule}")


class RuleViolation(Exception):
    """A command breaks a rule. ``rule`` cites the rulebook (``"5.2"``, ``"16.7"``, ``"7A"``)."""

    def __init__(self, rule: str, message: str, field: str | None = None) -> None:
        super().__init__(f"{message} ({rule_words(rule)})")
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

    def option_problems(self) -> dict[str, list[str]]:
        """The problems of a game's options, each at ``options.<name>`` (a loader may name the
        option bare or already under ``options.``); ``{"options": [message]}`` when none is named."""
        named = {
            k if k.startswith("options") else f"options.{k}": v for k, v in self.problems.items()
        }
        return named or {"options": [self.message]}


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
    #: the options a game of it may be created with (its optional rules, its length...), each
    #: ``{"name", "default", "description", "kind", "choices", "min", "max"}`` (None where unset)
    options: tuple[Mapping[str, Any], ...] = ()
    #: its placeholders by topic (``scenario.placeholders.topics``), for players to read
    placeholder_topics: tuple[Mapping[str, Any], ...] = ()

    def as_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "system": self.system,
            "title": self.title,
            "sides": list(self.sides),
            "description": self.description,
            "placeholder": self.placeholder,
            "placeholder_topics": [dict(t) for t in self.placeholder_topics],
            "options": [dict(o) for o in self.options],
        }


@dataclass(frozen=True)
class Governing:
    """What governs an event type: sections of the module's own rulebook and topics."""

    sections: tuple[str, ...] = ()
    topics: tuple[str, ...] = ()


class Previews(Protocol):
    """Capability: what a command would meet before it is sent (odds and modifiers with rules)."""

    #: the command types :meth:`preview` answers (a client asks for these only: ``/api/systems``
    #: lists them as ``previews``)
    commands: frozenset[str]

    def preview(self, state: State, side: str, command: Mapping[str, Any]) -> dict[str, Any]:
        """Computed on ``state`` as ``side`` sees it (the caller passes the side's view, so a
        preview never reveals hidden units).  Raises InvalidCommand or RuleViolation."""
        ...

    def combat_preview(self, situation: Mapping[str, Any]) -> dict[str, Any]:
        """Odds, modifiers with rules, and for a roll the result.  Raises InvalidCommand."""
        ...


class Drawing(Protocol):
    """Capability: what a client draws -- the board, the pieces, the game's tables."""

    def board(self, scenario: str) -> dict[str, Any]:
        """The map to draw (hex games: ``kernel.layout.board_json``) or a table's shapes."""
        ...

    def counters(self, state: State) -> list[dict[str, Any]]:
        """``[{"id", "side", "hex", "type", "name", "values", "steps", "max_steps"}]`` of a viewed
        state."""
        ...

    def tables(self) -> dict[str, Any]:
        """Named tables as data (``{"crt": {...}}``)."""
        ...


class Review(Protocol):
    """Capability: the review's measures (issue 31, :mod:`service.rules.luck`).  A game without
    it still has a review: every roll is reported with its distribution only."""

    def roll_values(self, event: RulesEvent, state_before: State) -> list[RollValue]:
        """What each roll ``event`` records was worth: one
        :class:`~service.rules.luck.RollValue` per roll with a natural value (the value every face
        would have produced, from the same table functions that resolved it); none for a roll
        with no natural value (weather, events, initiative)."""
        ...

    def tally(self, state: State) -> dict[str, dict[str, float]]:
        """Each side's standing for the review's chart: ``{side: {"vp": .., "losses": ..}}``
        (victory points as the victory rules count them, steps or units lost so far); ``{}``
        when the game has none to give."""
        ...


class ScenarioChecks(Protocol):
    """Capability: problems and placeholders of a scenario file, ``[{"level", "place", "message"}]``."""

    def check_scenario_file(self, path: str) -> list[dict[str, str]]: ...


class CustomScenarios(Protocol):
    """Capability: games from a scenario document a club entered (docs/scenario-library.md).
    The document is checked by ``scenario_checks`` first (one code path with ``arbiter scenarios
    check``); this builds the state before the first command from it, options merged over the
    document's defaults.  Raises :class:`ScenarioError` for a bad document or options."""

    def initial_state_from(
        self, document: Mapping[str, Any], options: Mapping[str, Any]
    ) -> State: ...

    def default_options_from(self, document: Mapping[str, Any]) -> dict[str, Any]: ...

    # -- the document in this game's terms: the club scenario library keeps versions,
    # permissions and edits, and reads what a map or table holds only through these
    def blank_document(self, spec: Mapping[str, Any]) -> dict[str, Any]:
        """A scenario of an empty map to start from (a hex map: ``spec``'s ``bounds``,
        ``coordinates``, ``sides`` ...).  ScenarioError naming ``blank`` when this game has no
        blank map."""
        ...

    def drawn(self, document: Mapping[str, Any]) -> dict[str, Any]:
        """The document's map or table as data for drawing, as this game draws its own, errors
        and all (a draft is drawn while it is wrong).  ScenarioError when it cannot be drawn."""
        ...

    def changes(self, old: Mapping[str, Any], new: Mapping[str, Any]) -> list[str]:
        """The facts that differ between two documents, one sentence each, in names not ids
        (``J7: clear → mountain``, ``hexside J7/J8: none → river``, ``piece Farm added``)."""
        ...

    def place_of(self, field: str, document: Mapping[str, Any]) -> str:
        """Where a checked field is, in an organiser's words (``hex J7``, ``unit 19-div``,
        ``zone republican``), else ``field <path>``."""
        ...


@dataclass(frozen=True)
class Rulebook:
    """Capability: the game's rulebook for the knowledge base (see :mod:`service.rules.rulebook`)
    -- its document name (``merida``: entry ids ``merida:7``), the text it is parsed from (a file
    name in the knowledge base's corpus directory, ``faq/corpus/``, or an absolute path to a file
    the game ships), where its sections start, and the conflict readings the module applies."""

    document: str
    corpus_file: str
    spec: RulebookSpec
    conflicts: tuple[Conflict, ...] = ()
    #: which entries (sections, charts, conflicts) each event type links to, and why
    links: tuple[Link, ...] = ()


class Names:
    """Printed names for sentences, read from a state (before the event being worded): units by
    ``state["units"][id]["name"]``, hexes by the place standing there, else the hex label."""

    def __init__(self, state: State | None) -> None:
        self.state: State = state or {}
        self._units: dict[str, Any] = self.state.get("units") or {}
        self._places: dict[str, str] | None = None

    def unit(self, unit_id: str) -> str:
        return str((self._units.get(unit_id) or {}).get("name") or unit_id)

    def units(self, unit_ids: Sequence[str]) -> str:
        names = [self.unit(u) for u in unit_ids]
        if not names:
            return "no unit"
        return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"

    def hex(self, hex_id: str) -> str:
        if self._places is None:
            places = (self.state.get("map") or {}).get("places") or []
            self._places = {}
            for place in places:
                self._places.setdefault(str(place["hex"]), str(place.get("label") or place["name"]))
        name = self._places.get(hex_id)
        return f"{name} ({hex_id})" if name else str(hex_id)

    def path(self, hexes: Sequence[str]) -> str:
        if not hexes:
            return "nowhere"
        if len(hexes) == 1:
            return self.hex(hexes[0])
        return f"from {self.hex(hexes[0])} to {self.hex(hexes[-1])}"


class RulesSystem(ABC):
    """A game's rules module: one package, one subclass of this, registered in the registry.

    **The core** -- the hooks every game fills (ten at most):

    ``scenarios``, ``default_options``, ``initial_state``, ``active_sides``, ``phase``, ``actions``,
    ``result`` and ``view``; ``decide`` and ``apply`` are given by the declarations
    (:attr:`commands`, :attr:`events`, see :mod:`service.rules.declare`) and rarely overridden.

    **Capabilities** -- declared, never detected: an attribute holding the part that offers it, or
    ``None`` when the game does not.  ``hidden_information`` (views and events redacted per side,
    events that reveal), ``previews``, ``drawing``, ``scenario_checks``, ``rulebook``, ``review``
    (luck measured from the dice and the standing per turn: docs/review.md).
    Knowledge links (sentence, facts, governing sections) are part of each event's declaration.
    """

    #: registry key and API name: ``merida``, ``backbone``, ``bizkaya``, ``barcelona``
    name: str = ""
    #: human title
    title: str = ""
    #: the knowledge-base document of its rulebook (``merida`` ...), see faq/
    document: str = ""
    #: the version of what ``apply`` makes of the recorded events (and ``decide`` of commands):
    #: raised when a stored game would replay to another state.  A game record names it, and a
    #: server imports only records of the version it runs (docs/game-record.md)
    rules_version: str = "1"

    #: the declared commands and events (set by each game)
    commands: Commands
    events: Events

    #: each side's counter colour as its rulebook prints it (``{"nationalist": "blue"}``: a CSS
    #: colour name); a side not listed gets the page's palette
    side_colours: Mapping[str, str] = MappingProxyType({})

    #: options the rules module declares for every scenario of the game, in the scenario file's
    #: ``options`` format (``{"name": {"default", "choices", "description"}}``): readings of the
    #: rulebook that clubs differ on (each named by a conflict of the game's rulebook).  A
    #: scenario's own declaration of a name wins; a game's state records such an option only
    #: when it is not the default (docs/scenario-format.md, "Options")
    declared_options: Mapping[str, Mapping[str, Any]] = MappingProxyType({})

    # -- capabilities (declared) ----------------------------------------------------------------
    hidden_information: bool = False
    previews: Previews | None = None
    drawing: Drawing | None = None
    scenario_checks: ScenarioChecks | None = None
    custom_scenarios: CustomScenarios | None = None
    rulebook: Rulebook | None = None
    review: Review | None = None

    # -- the core: scenarios ---------------------------------------------------------------------
    @abstractmethod
    def scenarios(self) -> list[ScenarioInfo]:
        """The scenarios this system ships."""

    def default_options(self, scenario: str) -> dict[str, Any]:
        """The options a scenario starts with; ``initial_state`` merges the given ones over these."""
        return {}

    @abstractmethod
    def initial_state(self, scenario: str, options: Mapping[str, Any]) -> State:
        """The state before the first command.  Raises :class:`ScenarioError` for a bad scenario or
        options.  Deterministic: no dice (a set-up roll is a command of its own)."""

    # -- the core: whose turn --------------------------------------------------------------------
    @abstractmethod
    def active_sides(self, state: State) -> list[str]:
        """The sides that may act now (empty when the game is over)."""

    def phase(self, state: State) -> dict[str, Any]:
        """Turn and phase for display: ``{"turn": 3, "phase": "movement", "side": "..."}``."""
        return {}

    # -- the core: decisions -----------------------------------------------------------------------
    @abstractmethod
    def actions(self, state: State, side: str) -> Actions:
        """What ``side`` may do now, in the one action vocabulary (:mod:`service.rules.actions`):
        templates built with ``self.commands.template`` (so every command built from one is
        well-formed) and, disabled with reason and rule, what the rules refuse now.  A side that
        must act always has at least one template."""

    def decide(self, state: State, side: str, command: Any, dice: Dice) -> list[RulesEvent]:
        """Validate ``command`` for ``side`` (shape from its declaration, then the rules) and return
        the events it causes, recording every resolved fact.  Must not mutate ``state``."""
        return self.commands.decide(state, side, command, dice)

    def apply(self, state: State, event: RulesEvent) -> State:
        """Apply one event to ``state`` (may mutate it) and return it: no validation, no dice, no
        judgement -- the event carries every fact."""
        return self.events.apply(state, event)

    @abstractmethod
    def result(self, state: State) -> dict[str, Any] | None:
        """``None`` while the game goes on; else ``{"winner": side|None, "outcome": "win"|"draw",
        "level": "...", ...}``."""

    def view(self, state: State, side: str | None) -> State:
        """The state as ``side`` may see it (``None``: a spectator).  Default: all of it; a game
        with ``hidden_information`` redacts here."""
        return state

    # -- derived from the declarations (not hooks) --------------------------------------------------
    def parse_command(self, state: State, command: Any) -> dict[str, Any]:
        """``command`` as its declaration loads it (its declared fields, typed): what the log
        stores; :class:`InvalidCommand` naming every bad field otherwise."""
        return self.commands.parse(state, command)[1]

    def names(self, state: State | None) -> Names:
        return Names(state)

    def describe(self, event: RulesEvent, state_before: State | None = None) -> str:
        """An event in words, in the game's own terms, from its declaration."""
        return self.events.describe(event, self.names(state_before))

    def event_facts(self, event: RulesEvent, state_before: State) -> list[str]:
        return self.events.facts(event, state_before)

    def governing(self, event_type: str) -> Governing:
        return self.events.governing(event_type)

    def event_view(self, event: RulesEvent, state_before: State, side: str | None) -> RulesEvent:
        return self.events.visible(event, state_before, side)

    def reveals(self, event: RulesEvent) -> bool:
        return self.events.reveals(event)


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
    return {k: v if k in STATIC_KEYS else copied(v) for k, v in state.items()}


#: values a copy shares: they cannot change
_ATOMS = frozenset({str, int, float, bool, type(None)})


def copied(value: Any) -> Any:
    """A deep copy of a state's value: its dicts and lists made anew, level by level, what
    cannot change shared, anything else left to ``copy.deepcopy``.  A state is JSON (it is stored
    in events and snapshots and replayed from them), so two places never hold one object that
    the copy would have to keep shared; this is about three times faster than ``deepcopy``
    (whose bookkeeping of such sharing was most of a look-ahead's cost)."""
    kind = type(value)
    if kind is dict:
        return {k: copied(v) for k, v in value.items()}
    if kind is list:
        return [copied(v) for v in value]
    if kind in _ATOMS:
        return value
    return copy.deepcopy(value)
