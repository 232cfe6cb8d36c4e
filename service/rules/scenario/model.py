"""The loaded scenario: plain frozen values built from a validated file."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from service.rules.base import ScenarioError, ScenarioInfo
from service.rules.kernel.mapdata import MapData
from service.rules.scenario.placeholders import Placeholder, topics


@dataclass(frozen=True)
class UnitSpec:
    id: str
    side: str
    type: str
    steps: int = 1
    values: Mapping[str, float] = field(default_factory=dict)
    name: str = ""
    hex: str | None = None  # its set-up hex; None for a reinforcement


@dataclass(frozen=True)
class Reinforcement:
    turn: int
    unit: str
    hexes: tuple[str, ...]  # where it may enter: the entry's hexes or the one hex given
    entry: str | None = None


OPTION_TYPES = ("boolean", "integer", "number", "string")


@dataclass(frozen=True)
class OptionSpec:
    name: str
    default: Any
    description: str = ""
    choices: tuple[Any, ...] | None = None
    min: float | None = None
    max: float | None = None
    type: str | None = None  # one of OPTION_TYPES; None: the type of the default
    #: declared by the game's rules module for every scenario (a reading of its rulebook the
    #: clubs differ on), not by the scenario file: a game's state records it only when the game
    #: plays another value than the default, so a state without it plays the default -- as every
    #: game recorded before the option was declared does
    system: bool = False

    @classmethod
    def from_data(cls, name: str, data: Mapping[str, Any], system: bool = False) -> OptionSpec:
        """An option from what :class:`~service.rules.scenario.schema.OptionSchema` loaded."""
        choices = data.get("choices")
        return cls(
            name,
            data["default"],
            data.get("description", ""),
            tuple(choices) if choices is not None else None,
            data.get("min"),
            data.get("max"),
            data.get("type"),
            system,
        )

    @property
    def kind(self) -> str | None:
        return self.type or KINDS.get(type(self.default))

    def describe(self) -> dict[str, Any]:
        """The option as a client offers it (see ``ScenarioInfo.options``)."""
        whole = self.kind == "integer"  # its bounds as integers (the format loads them as numbers)
        return {
            "name": self.name,
            "default": self.default,
            "description": self.description,
            "kind": self.kind,
            "choices": list(self.choices) if self.choices is not None else None,
            "min": int(self.min) if whole and self.min is not None else self.min,
            "max": int(self.max) if whole and self.max is not None else self.max,
        }

    def problems(self, value: Any) -> list[str]:
        """Why ``value`` is not valid for this option (empty when it is)."""
        kind = self.kind
        if kind is not None and KINDS.get(type(value)) not in ACCEPTS[kind]:
            return [f"must be a{'n' if kind == 'integer' else ''} {kind}, not {value!r}"]
        if self.choices is not None and value not in self.choices:
            return [f"must be one of {list(self.choices)}, not {value!r}"]
        if KINDS.get(type(value)) not in ("integer", "number"):
            return []
        if self.min is not None and value < self.min:
            return [f"must be at least {self.min:g}"]
        if self.max is not None and value > self.max:
            return [f"must be at most {self.max:g}"]
        return []


def with_declared(
    options: Mapping[str, Mapping[str, Any]], declared: Mapping[str, Mapping[str, Any]]
) -> dict[str, Mapping[str, Any]]:
    """A document's ``options`` with the options its game's rules module declares for every
    scenario (``RulesSystem.declared_options``) after them; the document's own declaration of a
    name wins."""
    return {**dict(options), **{k: v for k, v in declared.items() if k not in options}}


def describe_options(options: Mapping[str, Mapping[str, Any]]) -> list[dict[str, Any]]:
    """A document's ``options`` (``{name: {"default", "description", ...}}``, as both scenario
    formats write them) as a client offers them (``ScenarioInfo.options``)."""
    return [OptionSpec.from_data(name, spec).describe() for name, spec in options.items()]


def _same(value: Any, default: Any) -> bool:
    return type(value) is type(default) and bool(value == default)


#: the option kind of a JSON value, by its exact type (``True`` is a boolean, not an integer)
KINDS: dict[type, str] = {bool: "boolean", int: "integer", float: "number", str: "string"}
#: the kinds of value each option kind accepts (a number may be written as an integer)
ACCEPTS: dict[str, tuple[str, ...]] = {
    "boolean": ("boolean",),
    "integer": ("integer",),
    "number": ("integer", "number"),
    "string": ("string",),
}


@dataclass(frozen=True)
class Scenario:
    id: str
    system: str
    title: str
    sides: tuple[str, ...]
    turns: int
    map: MapData
    units: Mapping[str, UnitSpec]
    reinforcements: tuple[Reinforcement, ...] = ()
    options: Mapping[str, OptionSpec] = field(default_factory=dict)
    data: Mapping[str, Any] = field(default_factory=dict)
    description: str = ""
    placeholders: tuple[Placeholder, ...] = ()

    def info(self) -> ScenarioInfo:
        return ScenarioInfo(
            id=self.id,
            system=self.system,
            title=self.title,
            sides=self.sides,
            description=self.description,
            placeholder=bool(self.placeholders),
            placeholder_topics=tuple(topics(self.placeholders)),
            options=tuple(option.describe() for option in self.options.values()),
        )

    def set_up(self) -> dict[str, str]:
        """Unit id -> set-up hex, for the units on the map at the start."""
        return {unit.id: unit.hex for unit in self.units.values() if unit.hex is not None}

    def arriving(self, turn: int) -> list[Reinforcement]:
        return [r for r in self.reinforcements if r.turn == turn]

    def default_options(self) -> dict[str, Any]:
        return {name: option.default for name, option in self.options.items()}

    def with_declared(self, declared: Mapping[str, Mapping[str, Any]]) -> Scenario:
        """This scenario with the options its game's rules module declares for every scenario
        (the scenario file's own declaration of a name wins)."""
        added = {
            name: OptionSpec.from_data(name, spec, system=True)
            for name, spec in declared.items()
            if name not in self.options
        }
        return replace(self, options={**self.options, **added}) if added else self

    def options_with(self, given: Mapping[str, Any]) -> dict[str, Any]:
        """The defaults with ``given`` merged over them; raises ScenarioError listing every unknown
        option and bad value (place ``options.<name>``)."""
        problems: dict[str, list[str]] = {}
        for name, value in given.items():
            option = self.options.get(name)
            if option is None:
                problems[f"options.{name}"] = [f"unknown option (known: {sorted(self.options)})"]
            elif reasons := option.problems(value):
                problems[f"options.{name}"] = reasons
        if problems:
            raise ScenarioError(f"invalid options for scenario {self.id}", problems)
        chosen = {**self.default_options(), **given}
        return {  # a system's option at its default is not recorded (see OptionSpec.system)
            name: value
            for name, value in chosen.items()
            if not (self.options[name].system and _same(value, self.options[name].default))
        }
