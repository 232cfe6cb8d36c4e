"""The invariants every rules system keeps, as checks that return problems (sentences), never raise.

Shared by the conformance suite (``tests/conformance``) and the fuzzer (:mod:`service.fuzz.runner`):

* ``decide`` never mutates its input (accepted or refused);
* a template-built command is never an ``InvalidCommand``; a ``RuleViolation`` only for a
  ``some_of`` subset;
* replay equals live play; state and events are JSON only;
* every emitted event type is declared, in words (printed names, no raw data) and governed;
* views never show what the rules hide (:mod:`service.fuzz.probes`);
* a side that must act has at least one template.
"""

from __future__ import annotations

import json
import math
import re
import traceback
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

from service.fuzz.probes import probe_for
from service.rules.actions import Actions, Template
from service.rules.base import (
    InvalidCommand,
    RulesEvent,
    RulesSystem,
    RuleViolation,
    State,
    plain_sentence,
)

#: what a sentence for people never contains: a Python dict or list repr
RAW_MARKS = ("{'", "['", '{"', "RulesEvent(")


def copy_json(value: Any) -> Any:
    """A deep copy of JSON data (tuples and sets are copied as they are, so a check still sees them)."""
    if type(value) is dict:
        return {k: copy_json(v) for k, v in value.items()}
    if type(value) is list:
        return [copy_json(v) for v in value]
    return value


def first_difference(before: Any, after: Any, path: str = "") -> str | None:
    """Where two JSON values first differ (``units.r2.hex: 'A1' != 'A2'``), or ``None``."""
    if type(before) is dict and type(after) is dict:
        # by text, then type: a key 1 and a key "1" (a round trip's doing) in the same order every run
        for key in sorted(set(before) | set(after), key=lambda k: (str(k), type(k).__name__)):
            sub = f"{path}.{key}" if path else str(key)
            if key not in before or key not in after:
                return f"{sub}: {'added' if key not in before else 'removed'}"
            found = first_difference(before[key], after[key], sub)
            if found:
                return found
        return None
    if type(before) is list and type(after) is list and len(before) == len(after):
        for index, (a, b) in enumerate(zip(before, after, strict=True)):
            found = first_difference(a, b, f"{path}[{index}]")
            if found:
                return found
        return None
    if type(before) is not type(after) or before != after:
        return f"{path or 'value'}: {_short(before)} != {_short(after)}"
    return None


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def _plain_json(value: Any) -> bool:
    """Whether ``value`` is built of JSON's own types only (dicts with string keys, lists, strings,
    finite floats, ints, booleans, ``None``): such a value survives ``dumps``/``loads`` unchanged."""
    kind = type(value)
    if kind is str or kind is int or kind is bool or value is None:
        return True
    if kind is float:
        return math.isfinite(value)
    if kind is dict:
        return all(type(k) is str and _plain_json(v) for k, v in value.items())
    if kind is list:
        return all(_plain_json(v) for v in value)
    return False


def json_problem(value: Any, what: str) -> str | None:
    """``None`` when ``value`` is JSON only (it survives ``dumps``/``loads`` unchanged, no NaN).
    A value of JSON's own types passes at once (the fuzzer checks every state and every side's
    actions at every step: the round trip was half of a golden game's replay); anything else
    takes the round trip, which decides and words the problem."""
    if _plain_json(value):
        return None
    try:
        back = json.loads(json.dumps(value, allow_nan=False))
    except (TypeError, ValueError) as exc:
        return f"{what} is not JSON: {exc}"
    if back == value:  # a tuple or a non-string key makes them differ
        return None
    where = first_difference(value, back)
    return f"{what} is not JSON only (a tuple, set or non-string key?): {where}" if where else None


# -- decisions ----------------------------------------------------------------------------------------


def decide_pure(
    system: RulesSystem, state: State, side: str, command: Any, dice: Any
) -> tuple[list[RulesEvent] | None, Exception | None, list[str]]:
    """Decide ``command`` on a copy of ``state``: ``(events, refusal, problems)``; a problem when
    ``decide`` changed the state it was given or raised anything but a refusal."""
    given = copy_json(state)
    events: list[RulesEvent] | None = None
    refusal: Exception | None = None
    problems: list[str] = []
    try:
        events = system.decide(given, side, copy_json(command), dice)
    except (RuleViolation, InvalidCommand) as exc:
        refusal = exc
    except Exception as exc:  # noqa: BLE001 - a crash in decide is what the fuzzer looks for
        problems.append(f"decide crashed on {_command_words(command)}: {crash(exc)}")
    changed = first_difference(state, given)
    if changed:
        verdict = "refusing" if refusal else "deciding"
        problems.append(f"decide mutated its input {verdict} {_command_words(command)}: {changed}")
    return events, refusal, problems


def crash(exc: BaseException) -> str:
    """An exception in one line, with where it was raised (``file.py:12 in f``)."""
    frames = traceback.extract_tb(exc.__traceback__)
    where = (
        f" at {Path(frames[-1].filename).name}:{frames[-1].lineno} in {frames[-1].name}"
        if frames
        else ""
    )
    return f"{type(exc).__name__}: {exc}{where}"


def _command_words(command: Any) -> str:
    return json.dumps(command, sort_keys=True, default=str)


def refusal_problem(template: Template, command: Any, refusal: Exception | None) -> str | None:
    """A template-built command may be refused only with a rule, and only for a ``some_of`` subset."""
    if refusal is None:
        return None
    if isinstance(refusal, InvalidCommand):
        return (
            f"template {template.type!r} ({template.label}) built an invalid command "
            f"{_command_words(command)}: {refusal.message} {refusal.details}"
        )
    if any(c.many for c in template.choose.values()):
        return None
    return (
        f"template {template.type!r} ({template.label}) offered {_command_words(command)} "
        f"but decide refused it: {refusal}"
    )


def refused_variants(
    state: State, side: str, templates: Sequence[Template], sides: Sequence[str]
) -> Iterator[tuple[str, Any]]:
    """Commands that should be refused (a side acting out of turn, a field left out or naming
    nothing): ``(side, command)`` pairs to check ``decide`` leaves the state alone on refusals."""
    yield side, {"type": "no-such-command"}
    for template in templates[:3]:
        command = template.command()
        for other in sides:
            if other != side:
                yield other, command
        named = list(template.fixed) + list(template.choose)
        if named:
            yield side, {k: v for k, v in command.items() if k != named[0]}
        ref = next((n for n, k in template.kinds.items() if k in ("unit", "hex")), None)
        if ref is not None:
            yield side, {**command, ref: "zz-nowhere-999"}


# -- events -------------------------------------------------------------------------------------------


def event_problems(system: RulesSystem, event: RulesEvent, state_before: State) -> Iterator[str]:
    """A rules event is declared, JSON only, described in printed names and governed."""
    if event.type not in system.events:
        yield f"event {event.type} is emitted but not declared in {system.name}'s events"
        return
    problem = json_problem(event.data, f"event {event.type}'s data")
    if problem:
        yield problem
    spec = system.events.spec(event.type)
    if not spec.sections:
        yield f"event {event.type} is governed by no section of the rulebook"
    if spec.words is None:
        yield f"event {event.type} has no words (it would show as {plain_sentence(event)!r})"
    else:
        yield from _words_problems(system, event, state_before)
    try:
        facts = system.event_facts(event, state_before)
    except Exception as exc:  # noqa: BLE001
        yield f"event {event.type}: facts crashed: {crash(exc)}"
    else:
        if not all(type(f) is str for f in facts):
            yield f"event {event.type}: facts are not sentences: {_short(facts)}"


def _words_problems(system: RulesSystem, event: RulesEvent, state_before: State) -> Iterator[str]:
    try:
        text = system.describe(event, state_before)
    except Exception as exc:  # noqa: BLE001
        yield f"event {event.type}: describe crashed: {crash(exc)}"
        return
    if type(text) is not str or not text.strip():
        yield f"event {event.type}: describe gave {_short(text)}"
        return
    if text == plain_sentence(event) or text == event.type:
        yield f"event {event.type}: describe fell back to the raw event: {text!r}"
    marks = [m for m in RAW_MARKS if m in text]
    if marks:
        yield f"event {event.type}: words show raw data ({marks[0]!r}): {text!r}"
    ids = internal_ids(text, state_before)
    if ids:
        yield f"event {event.type}: words name units by id ({', '.join(ids)}): {text!r}"


def internal_ids(text: str, state: State) -> list[str]:
    """Unit ids written in ``text`` where the unit has a printed name that does not contain the id."""
    units = state.get("units") if type(state) is dict else None
    found = []
    for uid, unit in (units or {}).items() if type(units) is dict else ():
        name = unit.get("name") if type(unit) is dict else None
        if not name or uid == name or uid in str(name) or len(uid) < 2:
            continue
        if re.search(rf"(?<![\w-]){re.escape(uid)}(?![\w-])", text):
            found.append(uid)
    return found


# -- views --------------------------------------------------------------------------------------------


def view_problems(system: RulesSystem, state: State, sides: Iterable[str | None]) -> Iterator[str]:
    """Each side's view is JSON and shows nothing the rules hide from it (by the game's probe)."""
    if not system.hidden_information:
        return
    probe = probe_for(system.name)
    for side in sides:
        given = copy_json(state)
        try:
            seen = system.view(given, side)
        except Exception as exc:  # noqa: BLE001
            yield f"view for {side} crashed: {crash(exc)}"
            continue
        changed = first_difference(state, given)
        if changed:
            yield f"view for {side} mutated the state: {changed}"
        problem = json_problem(seen, f"the view for {side}")
        if problem:
            yield problem
        if probe is not None:
            yield from (f"view for {side}: {p}" for p in probe.view(state, seen, side))


def event_view_problems(
    system: RulesSystem, event: RulesEvent, state_before: State, sides: Iterable[str | None]
) -> Iterator[str]:
    """Each side's view of an event is JSON and hides what the rules hide from that side."""
    if not system.hidden_information:
        return
    probe = probe_for(system.name)
    for side in sides:
        try:
            shown = system.event_view(
                RulesEvent(event.type, copy_json(event.data)), state_before, side
            )
        except Exception as exc:  # noqa: BLE001
            yield f"event_view of {event.type} for {side} crashed: {crash(exc)}"
            continue
        problem = json_problem(shown.data, f"{event.type} as {side} sees it")
        if problem:
            yield problem
        if probe is not None:
            found = probe.event(event, shown, state_before, side)
            yield from (f"{event.type} as {side} sees it: {p}" for p in found)


# -- replay -------------------------------------------------------------------------------------------


def replay(system: RulesSystem, initial: State, events: Iterable[RulesEvent]) -> State:
    """Apply recorded events, read back from JSON as the store would, to a copy of ``initial``."""
    state = json.loads(json.dumps(initial))
    for event in events:
        data = json.loads(json.dumps(event.data))
        state = system.apply(state, RulesEvent(event.type, data))
    return state


def replay_problem(live: State, replayed: State, when: str) -> str | None:
    where = first_difference(live, replayed)
    return f"replay differs from live play {when}: {where}" if where else None


def must_act_problems(system: RulesSystem, state: State) -> Iterator[str]:
    """A side that must act has at least one template; the templates and blocked entries are data."""
    for side in system.active_sides(state):
        try:
            actions = system.actions(copy_json(state), side)
        except Exception as exc:  # noqa: BLE001
            yield f"actions for {side} crashed: {crash(exc)}"
            continue
        yield from actions_problems(side, actions)


def actions_problems(side: str, actions: Actions) -> Iterator[str]:
    """The actions of a side that must act: at least one template, and JSON only."""
    if not actions.templates:
        reasons = "; ".join(f"{b.label}: {b.reason} ({b.rule})" for b in actions.blocked)
        yield f"{side} must act but has no template" + (f" (blocked: {reasons})" if reasons else "")
    problem = json_problem(actions.as_dict(), f"the actions of {side}")
    if problem:
        yield problem
