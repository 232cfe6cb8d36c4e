"""Declared commands and events: each command type and each rules event type is declared once, and
beside its declaration stands everything about it.

Commands (:class:`Commands`)::

    COMMANDS = Commands("merida", guard=check_turn, refs=hex_refs)

    @COMMANDS.command("move", phases=("movement",), units=Units(), path=Path(), mode=Text(required=False))
    def move(state, side, command, dice) -> list[RulesEvent]: ...

A command's shape comes from its declared fields (marshmallow fields; unknown fields are refused),
and the ids it names are checked against the state by their kind (``unit``/``units`` must be units
of the game, ``hex``/``path`` hexes of its map) through ``refs``: a malformed command is an
:class:`InvalidCommand` naming the field before any rule runs, so handlers read fields as typed.

Events (:class:`Events`)::

    EVENTS = Events("merida")

    @EVENTS.event("UnitsMoved", sections=("5", "6"), topics=("movement",),
                  words=lambda d, names: f"{names.units(d['units'])} move ...", facts=moved_facts)
    def _moved(state, data) -> None: ...   # the pure application: no validation, no dice

Beside each event type: how it applies, its sentence in words, its facts for the knowledge base, the
sections and topics that govern it, what each side may see of it (``visible``) and whether it reveals
hidden information (``reveals``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from marshmallow import RAISE, Schema, ValidationError, fields, validate

from service.rules.actions import Choice, Template
from service.rules.base import (
    Dice,
    Governing,
    InvalidCommand,
    RulesEvent,
    RuleViolation,
    State,
    clone,
    plain_sentence,
)

# -- command fields ---------------------------------------------------------------------------------


class Kinded:
    """A declared field's kind: what it designates for a client (``unit``, ``hex``, ``path`` ...).
    A game may declare a field of its own by mixing this into a marshmallow field."""

    kind = "text"


class Text(Kinded, fields.String):
    """A string (a mode, a weapon, a chit name)."""

    kind = "text"

    def __init__(self, *, required: bool = True, choices: Sequence[str] | None = None, **kw: Any):
        if choices is not None:
            kw["validate"] = validate.OneOf(list(choices))
        super().__init__(required=required, **kw)


class Unit(Kinded, fields.String):
    """The id of one unit of the game."""

    kind = "unit"

    def __init__(self, *, required: bool = True, **kw: Any) -> None:
        super().__init__(required=required, validate=validate.Length(min=1, max=200), **kw)


class Units(Kinded, fields.List):
    """Ids of units of the game (no duplicates)."""

    kind = "units"

    def __init__(self, *, required: bool = True, min: int = 0, max: int = 64, **kw: Any) -> None:
        super().__init__(
            fields.String(validate=validate.Length(min=1, max=200)),
            required=required,
            validate=validate.Length(min=min, max=max),
            **kw,
        )


class Hex(Kinded, fields.String):
    """A hex of the game's map."""

    kind = "hex"

    def __init__(self, *, required: bool = True, **kw: Any) -> None:
        super().__init__(required=required, validate=validate.Length(min=1, max=16), **kw)


class Path(Kinded, fields.List):
    """Hexes from the start hex to the destination."""

    kind = "path"

    def __init__(self, *, required: bool = True, min: int = 1, max: int = 256, **kw: Any) -> None:
        super().__init__(
            fields.String(validate=validate.Length(min=1, max=16)),
            required=required,
            validate=validate.Length(min=min, max=max),
            **kw,
        )


class Number(Kinded, fields.Float):
    """A finite number (inches on a table, a bid)."""

    kind = "number"

    def __init__(self, *, required: bool = True, minimum: float | None = None, **kw: Any):
        if minimum is not None:
            kw["validate"] = validate.Range(min=minimum)
        super().__init__(required=required, allow_nan=False, **kw)


class Count(Kinded, fields.Integer):
    """A whole number."""

    kind = "number"

    def __init__(
        self, *, required: bool = True, minimum: int = 0, maximum: int = 10**6, **kw: Any
    ) -> None:
        super().__init__(
            required=required, strict=True, validate=validate.Range(min=minimum, max=maximum), **kw
        )


class Flag(Kinded, fields.Boolean):
    """``true`` or ``false``, nothing else (not 1, "yes" ...)."""

    kind = "flag"

    def __init__(self, *, required: bool = True, **kw: Any) -> None:
        super().__init__(required=required, **kw)

    def _deserialize(self, value: Any, attr: Any, data: Any, **kwargs: Any) -> bool:
        if value is not True and value is not False:
            raise self.make_error("invalid", input=value)
        return value


class Texts(Kinded, fields.List):
    """A list of strings (air points by kind, supports)."""

    kind = "choice"

    def __init__(self, *, required: bool = True, max: int = 64, **kw: Any) -> None:
        super().__init__(
            fields.String(validate=validate.Length(min=1, max=200)),
            required=required,
            validate=validate.Length(max=max),
            **kw,
        )


class Point(Kinded, fields.Dict):
    """A position on a table in inches: ``{"x": number, "y": number}``."""

    kind = "point"

    def __init__(self, *, required: bool = True, **kw: Any) -> None:
        super().__init__(
            keys=fields.String(validate=validate.OneOf(["x", "y"])),
            values=fields.Float(allow_nan=False),
            required=required,
            validate=validate.Length(equal=2),
            **kw,
        )


class Nested(Kinded, fields.Nested):
    """A structured value with its own declared fields (a list of them with ``many=True``)."""

    kind = "choice"

    def __init__(
        self, declared: Mapping[str, fields.Field], *, many: bool = False, required: bool = True
    ) -> None:
        schema = Schema.from_dict(dict(declared))(unknown=RAISE)
        super().__init__(schema, many=many, required=required)


def kind_of(declared: fields.Field) -> str:
    return str(getattr(declared, "kind", "text"))


# -- references -------------------------------------------------------------------------------------


class Refs(Protocol):
    """What names in a command must refer to in a state (a game supplies it with its Commands)."""

    def unit(self, state: State, unit_id: str) -> bool: ...
    def hex(self, state: State, hex_id: str) -> bool: ...


class NoRefs:
    """No reference checks (a game whose commands name nothing on a map)."""

    def unit(self, state: State, unit_id: str) -> bool:
        return True

    def hex(self, state: State, hex_id: str) -> bool:
        return True


Handler = Callable[[State, str, Mapping[str, Any], Dice], list[RulesEvent]]
Guard = Callable[[State, str, "CommandSpec"], None]


@dataclass
class CommandSpec:
    """One declared command type: its fields, the phases it belongs to, and its decision."""

    type: str
    fields: dict[str, fields.Field]
    decide: Handler
    phases: tuple[str, ...] = ()
    doc: str = ""
    schema: Schema = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self.schema = Schema.from_dict(dict(self.fields), name=f"{self.type}Command")(unknown=RAISE)

    def kinds(self) -> dict[str, str]:
        return {name: kind_of(f) for name, f in self.fields.items()}

    def describe(self) -> dict[str, Any]:
        """The declaration as data (``GET /api/systems/<name>``)."""
        return {
            "type": self.type,
            "phases": list(self.phases),
            "fields": {
                name: {"kind": kind_of(f), "required": bool(f.required)}
                for name, f in self.fields.items()
            },
            "doc": self.doc,
        }


def field_errors(messages: Any, prefix: str = "") -> dict[str, list[str]]:
    """marshmallow's nested error messages as ``{"attackers[0].type": [reasons]}``: a list index in
    brackets, a schema-wide message (``_schema``) and a Dict field entry's ``value`` on their owner,
    a Dict field entry's ``key`` as ``owner (key)``."""
    if not isinstance(messages, dict):
        return {prefix or "command": [str(m) for m in messages]}
    out: dict[str, list[str]] = {}
    entry = set(messages) <= {"key", "value"}
    for key, value in messages.items():
        if key == "_schema" or (entry and key == "value"):
            name = prefix or "command"
        elif entry:
            name = f"{prefix} (key)"
        elif str(key).isdigit():
            name = f"{prefix}[{key}]"
        else:
            name = f"{prefix}.{key}" if prefix else str(key)
        for place, reasons in field_errors(value, name).items():
            out.setdefault(place, []).extend(reasons)
    return out


class Parsed(dict[str, Any]):
    """A command as its declaration loaded it (:meth:`Commands.parse`): its ``type`` and typed
    fields, what the log stores, with the declaration it was loaded by -- so deciding it does not
    parse it again."""

    def __init__(self, spec: CommandSpec, loaded: dict[str, Any]) -> None:
        super().__init__(loaded)
        self.spec = spec


class Commands:
    """The declared commands of one game."""

    def __init__(self, game: str, *, guard: Guard | None = None, refs: Refs | None = None) -> None:
        self.game = game
        self.guard = guard
        self.refs: Refs = refs or NoRefs()
        self._specs: dict[str, CommandSpec] = {}

    def command(
        self, type: str, *, phases: Sequence[str] = (), doc: str = "", **declared: fields.Field
    ) -> Callable[[Handler], Handler]:
        def register(handler: Handler) -> Handler:
            if type in self._specs:
                raise ValueError(f"{self.game}: two declarations of the command {type}")
            self._specs[type] = CommandSpec(type, dict(declared), handler, tuple(phases), doc)
            return handler

        return register

    def __contains__(self, type: object) -> bool:
        return type in self._specs

    def __iter__(self) -> Iterator[CommandSpec]:
        return iter(self._specs.values())

    def spec(self, type: str) -> CommandSpec:
        return self._specs[type]

    def types(self) -> list[str]:
        return list(self._specs)

    # -- parsing --------------------------------------------------------------------------------
    def parse(self, state: State, command: Any) -> tuple[CommandSpec, Parsed]:
        """The declaration and the typed fields of ``command``; :class:`InvalidCommand` naming every
        bad field otherwise (unknown type, missing or mistyped or unknown fields, ids that name
        nothing in this game)."""
        if not isinstance(command, Mapping):
            raise InvalidCommand("a command must be an object", {"command": ["not an object"]})
        kind = command.get("type")
        if not isinstance(kind, str) or kind not in self._specs:
            raise InvalidCommand(
                "unknown command", {"type": [f"must be one of {', '.join(self._specs)}"]}
            )
        spec = self._specs[kind]
        body = {k: v for k, v in command.items() if k != "type"}
        try:
            loaded = spec.schema.load(body)
        except ValidationError as exc:
            raise InvalidCommand(f"invalid {kind} command", field_errors(exc.messages)) from None
        problems = self._unknown_refs(state, spec, loaded)
        if problems:
            raise InvalidCommand(f"invalid {kind} command", problems)
        return spec, Parsed(spec, {"type": kind, **loaded})

    def _unknown_refs(
        self, state: State, spec: CommandSpec, loaded: Mapping[str, Any]
    ) -> dict[str, list[str]]:
        problems: dict[str, list[str]] = {}
        for name, declared in spec.fields.items():
            value = loaded.get(name)
            if value is None:
                continue
            kind = kind_of(declared)
            if kind == "unit" and not self.refs.unit(state, value):
                problems[name] = [f"unknown unit {value}"]
            elif kind == "units":
                bad = [u for u in value if not self.refs.unit(state, u)]
                if bad:
                    problems[name] = [f"unknown unit {u}" for u in bad]
                elif len(set(value)) != len(value):
                    problems[name] = ["a unit is named twice"]
            elif kind == "hex" and not self.refs.hex(state, value):
                problems[name] = [f"unknown hex {value}"]
            elif kind == "path":
                bad = [h for h in value if not self.refs.hex(state, h)]
                if bad:
                    problems[name] = [f"unknown hex {h}" for h in bad]
        return problems

    # -- deciding -------------------------------------------------------------------------------
    def decide(self, state: State, side: str, command: Any, dice: Dice) -> list[RulesEvent]:
        """Parse ``command`` (unless it is already :class:`Parsed`: once per command), run the
        game's guard (whose turn, which phase), then its decision."""
        parsed = command if isinstance(command, Parsed) else self.parse(state, command)[1]
        spec = parsed.spec
        if self.guard is not None:
            self.guard(state, side, spec)
        return spec.decide(state, side, parsed, dice)

    # -- templates ------------------------------------------------------------------------------
    def template(
        self,
        type: str,
        label: str,
        *,
        fixed: Mapping[str, Any] | None = None,
        choose: Mapping[str, Choice] | None = None,
    ) -> Template:
        """A template of a declared command: its fields must be the declaration's, and together
        with ``choose`` cover every required field (checked here, so a template is always sendable)."""
        spec = self._specs[type]
        fixed = dict(fixed or {})
        choose = dict(choose or {})
        named = set(fixed) | set(choose)
        extra = named - set(spec.fields)
        missing = {n for n, f in spec.fields.items() if f.required} - named
        if extra or missing:
            raise ValueError(
                f"{self.game} template {type}: fields {sorted(extra)} not declared, "
                f"{sorted(missing)} required but not given"
            )
        kinds = {n: kind_of(spec.fields[n]) for n in sorted(named)}
        return Template(type, label, fixed, choose, kinds)


def guard_phase(rule: str) -> Callable[[State, str, CommandSpec, str], None]:
    """A helper for guards: refuse a command outside its declared phases, citing ``rule``."""

    def check(state: State, side: str, spec: CommandSpec, phase: str) -> None:
        if spec.phases and phase not in spec.phases:
            raise RuleViolation(rule, f"{spec.type} is not allowed in the {phase} phase", "type")

    return check


# -- events -----------------------------------------------------------------------------------------

Apply = Callable[[State, dict[str, Any]], None]
Words = Callable[[dict[str, Any], "Names"], str]
Facts = Callable[[dict[str, Any], State], list[str]]
Visible = Callable[[dict[str, Any], State, "str | None"], dict[str, Any]]


class Names(Protocol):
    """Printed names for a sentence, read from the state before the event."""

    def unit(self, unit_id: str) -> str: ...
    def units(self, unit_ids: Sequence[str]) -> str: ...
    def hex(self, hex_id: str) -> str: ...
    def path(self, hexes: Sequence[str]) -> str: ...


@dataclass
class EventSpec:
    type: str
    apply: Apply
    sections: tuple[str, ...] = ()
    topics: tuple[str, ...] = ()
    words: Words | None = None
    facts: Facts | None = None
    visible: Visible | None = None  # None: every side sees all of it
    reveals: bool | Callable[[dict[str, Any]], bool] = False

    @property
    def governing(self) -> Governing:
        return Governing(self.sections, self.topics)


class Events:
    """The declared rules events of one game."""

    def __init__(self, game: str) -> None:
        self.game = game
        self._specs: dict[str, EventSpec] = {}

    def event(
        self,
        type: str,
        *,
        sections: Sequence[str] = (),
        topics: Sequence[str] = (),
        words: Words | None = None,
        facts: Facts | None = None,
        visible: Visible | None = None,
        reveals: bool | Callable[[dict[str, Any]], bool] = False,
    ) -> Callable[[Apply], Apply]:
        def register(apply: Apply) -> Apply:
            if type in self._specs:
                raise ValueError(f"{self.game}: two declarations of the event {type}")
            self._specs[type] = EventSpec(
                type, apply, tuple(sections), tuple(topics), words, facts, visible, reveals
            )
            return apply

        return register

    def __contains__(self, type: object) -> bool:
        return type in self._specs

    def __iter__(self) -> Iterator[EventSpec]:
        return iter(self._specs.values())

    def types(self) -> list[str]:
        return sorted(self._specs)

    def spec(self, type: str) -> EventSpec:
        try:
            return self._specs[type]
        except KeyError:
            raise KeyError(f"{self.game} declares no event {type!r}") from None

    def apply(self, state: State, event: RulesEvent) -> State:
        self.spec(event.type).apply(state, event.data)
        return state

    def describe(self, event: RulesEvent, names: Names) -> str:
        spec = self._specs.get(event.type)
        if spec is None or spec.words is None:
            return plain_sentence(event)
        return spec.words(event.data, names)

    def facts(self, event: RulesEvent, state_before: State) -> list[str]:
        spec = self._specs.get(event.type)
        return [f for f in spec.facts(event.data, state_before) if f] if spec and spec.facts else []

    def governing(self, type: str) -> Governing:
        spec = self._specs.get(type)
        return spec.governing if spec else Governing()

    def visible(self, event: RulesEvent, state_before: State, side: str | None) -> RulesEvent:
        spec = self._specs.get(event.type)
        if spec is None or spec.visible is None:
            return event
        return RulesEvent(event.type, spec.visible(event.data, state_before, side))

    def reveals(self, event: RulesEvent) -> bool:
        spec = self._specs.get(event.type)
        if spec is None:
            return False
        return bool(spec.reveals(event.data) if callable(spec.reveals) else spec.reveals)

    def hides_anything(self) -> bool:
        return any(s.visible is not None for s in self._specs.values())

    def emitter(self, state: State) -> Emitter:
        """An :class:`Emitter` over a look-ahead copy of ``state``."""
        return Emitter(self, state)


class Emitter:
    """Events decided so far, applied in order to a look-ahead copy of the state so that later
    checks of the same decision see them (``emitter.state``); ``emitter.events`` is the decision."""

    def __init__(self, events: Events, state: State) -> None:
        self._events = events
        self.state = clone(state)
        self.events: list[RulesEvent] = []

    def emit(
        self, kind: str | RulesEvent | None, data: dict[str, Any] | None = None
    ) -> RulesEvent | None:
        """Record an event (a type and its data, or a RulesEvent; ``None`` records nothing)."""
        if kind is None:
            return None
        event = kind if isinstance(kind, RulesEvent) else RulesEvent(kind, data or {})
        self._events.apply(self.state, event)
        self.events.append(event)
        return event
