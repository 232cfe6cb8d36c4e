"""The readings of the rules a game may be played under: its options, and those of them that are
the other reading of a declared conflict of its rulebook (``service.rules.rulebook.Conflict``).

A dispute may claim one (``reading``); its page offers the readings that govern the disputed
event -- the conflicts its events link to -- as choices, in words."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

from service.rules.base import RulesEvent, RulesSystem, State


def option_specs(rules: RulesSystem, scenario: str) -> dict[str, dict[str, Any]]:
    """Every option a game of ``scenario`` declares, by name: ``{"default", "choices", "kind",
    "min", "max", "description"}`` (the scenario's own list, else the module's declared ones)."""
    out: dict[str, dict[str, Any]] = {
        name: {"name": name, **dict(spec)} for name, spec in rules.declared_options.items()
    }
    for info in rules.scenarios():
        if info.id == scenario:
            out.update({str(o["name"]): dict(o) for o in info.options})
    return out


def option_value_ok(spec: Mapping[str, Any], value: Any) -> bool:
    choices = spec.get("choices")
    if choices:
        return any(value == c and type(value) is type(c) for c in choices)
    kind = spec.get("kind")
    if kind == "boolean":
        return isinstance(value, bool)
    if kind == "integer":
        if not isinstance(value, int) or isinstance(value, bool):
            return False
        low, high = spec.get("min"), spec.get("max")
        return (low is None or value >= low) and (high is None or value <= high)
    return isinstance(value, str)


def option_value_words(spec: Mapping[str, Any]) -> str:
    choices = spec.get("choices")
    if choices:
        return "one of " + ", ".join(value_words(c) for c in choices)
    kind = spec.get("kind")
    if kind == "boolean":
        return "true or false"
    if kind == "integer":
        return f"a whole number from {spec.get('min')} to {spec.get('max')}"
    return "a word"


def value_words(value: Any) -> str:
    """An option's value in words: ``-2`` and ``+2``, ``same unit``, ``yes``/``no``."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int):
        return f"+{value}" if value > 0 else str(value)
    return str(value).replace("_", " ")


def option_label(name: str) -> str:
    return name.replace("_", " ").capitalize()


def _option_of(conflict_option: str | None, specs: Mapping[str, Any]) -> str | None:
    """The option a conflict names (``option`` is its name, or words that name it)."""
    if not conflict_option:
        return None
    if conflict_option in specs:
        return conflict_option
    for name in specs:
        if re.search(rf"(?<![\w]){re.escape(name)}(?![\w])", conflict_option):
            return name
    return None


def governing_readings(
    rules: RulesSystem,
    scenario: str,
    options: Mapping[str, Any],
    events: Iterable[tuple[RulesEvent, State]],
) -> list[dict[str, Any]]:
    """The readings that govern ``events`` (each with the state before it): every conflict of the
    rulebook an event links to (its ``when`` words found in the event's facts) that names a game
    option, with that option's choices in words and the value in force (``options``)."""
    book = rules.rulebook
    if book is None:
        return []
    specs = option_specs(rules, scenario)
    conflicts = {c.key: c for c in book.conflicts}
    chosen: dict[str, dict[str, Any]] = {}
    for event, before in events:
        facts: list[str] | None = None
        for link in book.links:
            key = link.entry.removeprefix("conflict-")
            if event.type not in link.events or key == link.entry or key not in conflicts:
                continue
            if facts is None:
                try:
                    facts = rules.event_facts(event, before)
                except (KeyError, TypeError, ValueError, IndexError):
                    facts = []
            if link.holds(event.type, facts) is None:
                continue
            conflict = conflicts[key]
            name = _option_of(conflict.option, specs)
            if name is None or name in chosen:
                continue
            spec = specs[name]
            current = options.get(name, spec.get("default"))
            chosen[name] = {
                "option": name,
                "label": option_label(name),
                "heading": conflict.heading.removeprefix("Conflict: ").strip(),
                "why": link.why,
                "description": str(spec.get("description") or ""),
                "current": current,
                "choices": [
                    {"value": c, "words": value_words(c), "current": c == current}
                    for c in spec.get("choices") or []
                ],
            }
    return list(chosen.values())
