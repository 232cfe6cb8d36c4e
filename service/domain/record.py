"""The open game record: a whole game as versioned, line-oriented text (docs/game-record.md).

A record is UTF-8 text, one item a line (``\\n``):

- ``[Tag value]`` header lines first, PGN-like, each value one JSON value (``[System "merida"]``,
  ``[Options {"crt": "fwtbt"}]``); the first is ``[Format "arbiter-game-record 1"]``;
- then one line per stored event of the game, in order: the event as the NDJSON export shows it
  (``service.application.events.present_event``) without ``text`` and ``seal``, its keys in the
  stored event's order;
- last, the anchored head: ``{"head": {"game", "version", "hash"}}`` (``{"head": null}``: none);
- ``#`` lines are words for people (each event in words, each command's entry) and blank lines
  group the entries: both are ignored by a reader.

This module writes and reads that shape only; checking what it says (the chain, the dice, the
replay) is the importer's (``service.application.records``)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

FORMAT = "arbiter-game-record"
VERSION = 1
#: the first line of every record of this version
FIRST_LINE = f'[Format "{FORMAT} {VERSION}"]'
#: the header tags, in the order a record writes them (those in ``OPTIONAL`` only when they apply)
TAGS = (
    "Format",
    "Game",
    "Title",
    "System",
    "RulesVersion",
    "Scenario",
    "ScenarioVersion",
    "ScenarioHash",
    "Options",
    "Labels",
    "Sides",
    "Created",
    "Status",
    "Ended",
    "Result",
    "SeedCommitment",
    "Seed",
    "Events",
    "Shown",
    "StateDigest",
)
OPTIONAL = frozenset({"ScenarioVersion", "Ended", "Result", "Seed"})
#: the event fields a record leaves out: words (in the comments) and the server's private seal
LEFT_OUT = ("text", "seal")
#: the fields of every event line, and those some have (docs/game-record.md)
EVENT_FIELDS = frozenset(
    {"game", "seq", "kind", "type", "at", "payload", "prev_hash", "hash", "retracted"}
)
EVENT_OPTIONAL = frozenset({"sealed", "shown", "salt", "side", "user", "redacted"})
#: events that belong to the entry of the command (or other action) before them
_FOLLOWING = frozenset({"Game.DiceRolled", "Game.DiceReused", "Game.Recorded", "Game.Ended"})
_HEADER = re.compile(r"\[([A-Za-z]+) (.*)\]")
_WRITTEN = "one JSON value: keys sorted, ', ' and ': ' between items, non-ASCII as \\u escapes"
_WRITTEN_DATA = "one JSON object: ', ' and ': ' between items, non-ASCII as \\u escapes"


class RecordError(Exception):
    """A record that cannot be read or does not check: ``line`` (1-based; 0: the whole file), and
    ``fields``: an event's fields at fault, each with its reasons."""

    def __init__(
        self, line: int, message: str, fields: Mapping[str, list[str]] | None = None
    ) -> None:
        super().__init__(f"line {line}: {message}" if line else message)
        self.line = line
        self.message = message
        #: the fields of the line at fault and why, when it is an event's payload
        self.fields = dict(fields or {})


def dumps(value: Any) -> str:
    """A header's value on one line, as a record writes it (keys sorted, ASCII)."""
    return json.dumps(value, sort_keys=True)


def data(value: Any) -> str:
    """A data line's JSON, as a record writes it: ASCII, and every object's keys in the order
    the stored event holds them (a game's state keeps its order: rules that go through a dict
    decide in its order, so a replay must read it as it was)."""
    return json.dumps(value)


def data_line(item: Mapping[str, Any]) -> str:
    """An event as its record line: the export's object without words and seal."""
    return data({k: v for k, v in item.items() if k not in LEFT_OUT})


def render(
    headers: Mapping[str, Any],
    items: Iterable[Mapping[str, Any]],
    head: Mapping[str, Any] | None,
    words: Any,
) -> Iterator[str]:
    """The record's lines (each ending in ``\\n``): ``headers`` (tag -> value, in :data:`TAGS`
    order), a comment and a data line per event (``words(item)``: the event in words) and the
    head."""
    for tag in TAGS:
        if tag in headers:
            yield f"[{tag} {dumps(headers[tag])}]\n"
    yield "# An Arbiter game record: docs/game-record.md. '#' lines are words for people and are\n"
    yield "# not checked; every other line is.\n"
    for item in items:
        if item.get("kind") not in _FOLLOWING:
            yield "\n"
        text = " ".join(str(words(item)).split())
        yield f"# {item.get('seq')} {item.get('type')}: {text}\n"
        yield data_line(item) + "\n"
    yield "\n"
    shown = None if head is None else {k: head.get(k) for k in ("game", "version", "hash")}
    yield data({"head": shown}) + "\n"


@dataclass
class Parsed:
    """A record as read: each header's value and line, each event with its line, the head."""

    headers: dict[str, tuple[int, Any]] = field(default_factory=dict)
    events: list[tuple[int, dict[str, Any]]] = field(default_factory=list)
    head: Any = None
    head_line: int = 0

    def line_of(self, seq: int) -> int:
        """The line of event ``seq``, or of the first event after it (one missing), or the head's
        (past the last event)."""
        later = [number for number, item in self.events if item.get("seq", 0) >= seq]
        exact = [number for number, item in self.events if item.get("seq") == seq]
        return (exact or later or [self.head_line])[0]


def parse(text: str) -> Parsed:
    """Read a record's lines; raises :class:`RecordError` naming the first malformed line."""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()  # the newline that ends the last line
    parsed = Parsed()
    first = next((i for i, line in enumerate(lines) if line.strip()), None)
    if first is None:
        raise RecordError(0, "the file is empty: not a game record")
    if not lines[first].startswith("[Format "):
        raise RecordError(first + 1, f"a game record starts with {FIRST_LINE}")
    for number, line in enumerate(lines, start=1):
        if not line.strip() or line.startswith("#"):
            continue
        if "\r" in line:
            raise RecordError(number, "a carriage return: lines end with \\n alone")
        if line.startswith("["):
            _header(parsed, number, line)
        elif line.startswith("{"):
            _data(parsed, number, line)
        else:
            raise RecordError(number, "neither a header, an event, the head nor a '#' comment")
    if parsed.head_line == 0:
        raise RecordError(len(lines), "the record ends without its head line (cut short?)")
    return parsed


def _header(parsed: Parsed, number: int, line: str) -> None:
    match = _HEADER.fullmatch(line)
    if match is None:
        raise RecordError(number, "a header line is [Tag value] with one space between")
    tag, raw = match.groups()
    if parsed.events or parsed.head_line:
        raise RecordError(number, f"the header [{tag}] comes after the events")
    if tag not in TAGS:
        raise RecordError(number, f"unknown header [{tag}] in format {VERSION}")
    if tag in parsed.headers:
        raise RecordError(
            number, f"[{tag}] is given twice (first at line {parsed.headers[tag][0]})"
        )
    try:
        value = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise RecordError(number, f"the value of [{tag}] is not JSON: {exc.msg}") from None
    if f"[{tag} {dumps(value)}]" != line:
        raise RecordError(number, f"[{tag}] is not written as a record writes it ({_WRITTEN})")
    parsed.headers[tag] = (number, value)
    if tag == "Format":
        _format(number, value)


def _format(number: int, value: Any) -> None:
    name, _, version = str(value).partition(" ")
    if name != FORMAT:
        raise RecordError(number, f"not an Arbiter game record (format {value!r})")
    if version != str(VERSION):
        raise RecordError(
            number,
            f"format version {version or '?'} of the game record is not known to this server "
            f"(it reads version {VERSION})",
        )


def _data(parsed: Parsed, number: int, line: str) -> None:
    if parsed.head_line:
        raise RecordError(number, "a line after the head: the head ends the record")
    try:
        value = json.loads(line)
    except json.JSONDecodeError as exc:
        raise RecordError(number, f"not a JSON object: {exc.msg} at column {exc.colno}") from None
    if not isinstance(value, dict):
        raise RecordError(number, "not a JSON object")
    if data(value) != line:
        raise RecordError(number, f"not written as a record writes it ({_WRITTEN_DATA})")
    if set(value) == {"head"}:
        parsed.head, parsed.head_line = value["head"], number
        return
    seq = value.get("seq")
    if not isinstance(seq, int) or isinstance(seq, bool):
        raise RecordError(number, "an event line without its seq")
    expected = parsed.events[-1][1]["seq"] + 1 if parsed.events else 1
    if seq != expected:
        raise RecordError(number, f"event {expected} was expected here, not event {seq}")
    missing = sorted(EVENT_FIELDS - set(value))
    unknown = sorted(set(value) - EVENT_FIELDS - EVENT_OPTIONAL)
    if missing or unknown:
        what = ", ".join([f"no {n!r}" for n in missing] + [f"an unknown {n!r}" for n in unknown])
        raise RecordError(number, f"event {seq} has {what}")
    at = value["at"]
    try:
        written = datetime.fromisoformat(at).isoformat() if isinstance(at, str) else None
    except ValueError:
        written = None
    if written != at:
        raise RecordError(number, f"event {seq}: 'at' is not a time as a record writes it")
    parsed.events.append((number, value))


def shown_form(items: Sequence[Mapping[str, Any]]) -> str:
    """Which form the events show: ``full``, a side, or ``*`` (a spectator's)."""
    return next((str(i.get("shown")) for i in items if "sealed" in i), "full")
