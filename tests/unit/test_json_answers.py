"""The answers' JSON (``service.api.json_answers``): orjson's bytes, read back as Flask's own, and
Flask's encoder where orjson cannot answer."""

from __future__ import annotations

import dataclasses
import json
import math
from datetime import UTC, datetime
from decimal import Decimal
from uuid import UUID

import pytest
from flask import Flask, jsonify
from flask.json.provider import DefaultJSONProvider

from service.api.json_answers import OrjsonProvider


@pytest.fixture
def app() -> Flask:
    app = Flask(__name__)
    app.json = OrjsonProvider(app)
    return app


@dataclasses.dataclass
class Point:
    x: int
    y: int


SAMPLE = {
    "version": 7,
    "status": "active",
    "events": [
        {"seq": 1, "payload": {"path": ["A1", "A2"], "z": None, "a": 1.5}, "kind": "Game.Moved"},
    ],
    "at": datetime(2026, 12, 6, 2, 40, tzinfo=UTC),
    "id": UUID("a230757c-30bc-4df8-a7d7-ce2bdbce5bf5"),
    "point": Point(1, 2),
    "cost": Decimal("2.50"),
    "hexes": {3: "a key that is not a string", 1: "another"},
}


def test_an_answer_is_the_json_flasks_own_provider_gives(app: Flask) -> None:
    with app.app_context():
        ours = jsonify(SAMPLE)
        theirs = DefaultJSONProvider(app).response(SAMPLE)
    assert ours.mimetype == "application/json"
    # the same keys, sorted, the same values (dates as HTTP dates, UUIDs and decimals as strings,
    # a dataclass by its fields): the same text, as nothing here is outside ASCII
    assert ours.get_data() == theirs.get_data()
    assert json.loads(ours.get_data())["at"] == "Sun, 06 Dec 2026 02:40:00 GMT"


def test_text_outside_ascii_is_sent_as_utf8_and_reads_back_the_same(app: Flask) -> None:
    value = {"name": "Bizkaya — Gernika’s bridge", "emoji": "⚔"}
    with app.app_context():
        body = jsonify(value).get_data()
    assert "Gernika’s".encode() in body  # not \u2019
    assert json.loads(body) == value


def test_an_integer_past_64_bits_is_written_by_flasks_encoder(app: Flask) -> None:
    big = {"seed": 2**70}
    with app.app_context():
        body = jsonify(big).get_data()
        assert app.json.dumps(big) == json.dumps(big)
    assert json.loads(body) == big


def test_a_float_that_is_not_a_number_is_null_not_invalid_json(app: Flask) -> None:
    with app.app_context():
        body = jsonify({"x": math.nan}).get_data()
    assert json.loads(body) == {"x": None}


def test_calls_with_options_of_their_own_and_debug_answers_are_flasks(app: Flask) -> None:
    with app.app_context():
        assert app.json.dumps({"b": 1, "a": 2}, separators=(",", ":")) == '{"a":2,"b":1}'
        app.debug = True
        assert jsonify({"a": 1}).get_data() == b'{\n  "a": 1\n}\n'


def test_something_neither_encoder_knows_is_refused(app: Flask) -> None:
    with app.app_context(), pytest.raises(TypeError):
        jsonify({"x": object()})
