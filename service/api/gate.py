"""The input gate: every JSON body is checked before any route runs.

A body sent as JSON must be UTF-8, at most ``MAX_BODY`` bytes (413 beyond), nested at most
``MAX_DEPTH`` deep, and hold only what every reader can read back: no ``NaN`` or ``Infinity``, no
number beyond a double's range, integers within +/-(2**53 - 1) (JSON's safe integers, checked before
Python parses the digits), and strings (keys too) of valid Unicode (no lone surrogate such as
``"\\ud800"``).  A body that breaks any of these is answered 400 in the API's error shape, naming
each bad place (``command.units[0]``), and the route never runs, so nothing is written.  What
passes then meets the route's own marshmallow schema (and a command its declaration).
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterator
from dataclasses import dataclass
from itertools import accumulate
from typing import Any

from flask import Flask, Response, jsonify, request
from werkzeug.exceptions import RequestEntityTooLarge

from service.api.errors import error_body

MAX_BODY = 1024 * 1024
MAX_DEPTH = 32
MAX_INT = 2**53 - 1
MAX_PROBLEMS = 20
#: where the gate leaves the body it parsed, for the routes' argument parser (not parsed twice)
PARSED = "arbiter.gate.body"

_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")


class BadJson(ValueError):
    """A body the gate refuses: ``details`` maps each bad place to its reasons."""

    def __init__(self, message: str, details: dict[str, list[str]]) -> None:
        super().__init__(message)
        self.message = message
        self.details = details


@dataclass(frozen=True)
class Refused:
    """Stands in the parsed value for a number JSON may not carry, so its place can be named."""

    reason: str


def _constant(name: str) -> Refused:
    return Refused(f"{name} is not allowed (numbers must be finite)")


def _integer(text: str) -> int | Refused:
    if len(text.lstrip("-")) > len(str(MAX_INT)) or abs(int(text)) > MAX_INT:
        return Refused(f"an integer must be within -{MAX_INT}..{MAX_INT}")
    return int(text)


def _number(text: str) -> float | Refused:
    value = float(text)
    return value if math.isfinite(value) else Refused("the number is out of range")


def depth(text: str) -> int:
    """How deep the arrays and objects of a JSON text nest (brackets inside strings not counted)."""
    brackets = _NOT_BRACKET.sub("", _STRING.sub("", text))
    return max(accumulate(1 if c in "[{" else -1 for c in brackets), default=0)


def _printable(key: str) -> str:
    return key.encode("utf-8", "backslashreplace").decode("utf-8")


def _is_unicode(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def problems(value: Any, place: str = "") -> Iterator[tuple[str, str]]:
    """``(place, reason)`` for each refused number and each string that is not valid Unicode."""
    if isinstance(value, Refused):
        yield place or "body", value.reason
    elif isinstance(value, str) and not _is_unicode(value):
        yield place or "body", "not valid Unicode (a lone surrogate)"
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield from problems(item, f"{place}[{i}]" if place else f"body[{i}]")
    elif isinstance(value, dict):
        for key, item in value.items():
            name = f"{place}.{_printable(key)}" if place else _printable(key)
            if not _is_unicode(key):
                yield name, "the name is not valid Unicode (a lone surrogate)"
            yield from problems(item, name)


def load(text: str) -> Any:
    """``text`` parsed as JSON the gate allows; :class:`BadJson` naming each bad place otherwise."""
    # a text with no more opening brackets than the limit cannot nest beyond it: most bodies are
    # cleared by two counts, without the scan of ``depth``
    opening = text.count("[") + text.count("{")
    deepest = depth(text) if opening > MAX_DEPTH else 0
    if deepest > MAX_DEPTH:
        raise BadJson(
            f"the body nests {deepest} deep, at most {MAX_DEPTH} is allowed",
            {"body": [f"nested at most {MAX_DEPTH} deep"]},
        )
    refused: list[Refused] = []

    def noted(value: Any) -> Any:
        if isinstance(value, Refused):
            refused.append(value)
        return value

    try:
        value = json.loads(
            text,
            parse_constant=lambda name: noted(_constant(name)),
            parse_int=lambda digits: noted(_integer(digits)),
            parse_float=lambda digits: noted(_number(digits)),
        )
    except json.JSONDecodeError as exc:
        reason = f"not valid JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})"
        raise BadJson(f"the body is {reason}", {"body": [reason]}) from None
    # a lone surrogate comes only from a ``\u`` escape (the text is strict UTF-8): a body with
    # no refused number and no escape has nothing to name, and is not walked
    if not refused and "\\u" not in text:
        return value
    found: dict[str, list[str]] = {}
    for place, reason in problems(value):
        found.setdefault(place, []).append(reason)
        if len(found) >= MAX_PROBLEMS:
            break
    if found:
        first, reasons = next(iter(found.items()))
        raise BadJson(f"invalid request: {first}: {reasons[0]}", found)
    return value


def check_body() -> tuple[Response, int] | None:
    """The ``before_request`` hook: refuse a JSON body the gate does not allow."""
    if not request.is_json:
        return None
    raw = request.get_data(cache=True)  # RequestEntityTooLarge past MAX_CONTENT_LENGTH
    if not raw:
        return None
    try:
        request.environ[PARSED] = load(raw.decode("utf-8"))
    except UnicodeDecodeError:
        reason = "not UTF-8"
        return jsonify(error_body("invalid", f"the body is {reason}", {"body": [reason]})), 400
    except BadJson as exc:
        return jsonify(error_body("invalid", exc.message, exc.details)), 400
    return None


def too_large(_: RequestEntityTooLarge) -> tuple[Response, int]:
    reason = f"at most {MAX_BODY} bytes"
    return jsonify(
        error_body("too_large", f"the body is too large: {reason}", {"body": [reason]})
    ), 413


def install(app: Flask) -> None:
    """Put the gate in front of every route of ``app``."""
    app.config["MAX_CONTENT_LENGTH"] = MAX_BODY
    app.before_request(check_body)
    app.register_error_handler(RequestEntityTooLarge, too_large)
