"""The fuzzer's JSON check (``service.fuzz.checks.json_problem``): a value of JSON's own types
passes without the ``dumps``/``loads`` round trip; anything the round trip would change or refuse
is still caught and named where it first differs."""

from __future__ import annotations

import enum
import math

import pytest

from service.fuzz.checks import json_problem


class Side(enum.IntEnum):
    RED = 1


def test_plain_json_passes() -> None:
    value = {"units": [{"hex": "A1", "steps": 2, "ok": True, "x": 0.5, "note": None}], "n": []}
    assert json_problem(value, "a state") is None


NOT_ONLY = "a state is not JSON only (a tuple, set or non-string key?): "


@pytest.mark.parametrize(
    ("value", "problem"),
    [
        ({"path": ("A1", "A2")}, NOT_ONLY + "path: ('A1', 'A2') != ['A1', 'A2']"),
        ({"units": {1: "r1"}}, NOT_ONLY + "units.1: removed"),
        ({"hexes": {"A1"}}, "a state is not JSON: Object of type set is not JSON serializable"),
        (
            {"odds": math.nan},
            "a state is not JSON: Out of range float values are not JSON compliant",
        ),
        ([object()], "a state is not JSON: Object of type object is not JSON serializable"),
    ],
    ids=["tuple", "int key", "set", "nan", "object"],
)
def test_what_the_round_trip_changes_or_refuses_is_named(value: object, problem: str) -> None:
    assert json_problem(value, "a state") == problem


def test_a_value_that_survives_the_round_trip_unchanged_still_passes() -> None:
    # an IntEnum is not one of JSON's own types, but it comes back equal: the round trip decides
    assert json_problem({"side": Side.RED}, "a state") is None
