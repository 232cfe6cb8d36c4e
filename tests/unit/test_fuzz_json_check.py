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


@pytest.mark.parametrize(
    ("value", "found"),
    [
        ({"path": ("A1", "A2")}, "is not JSON only (a tuple, set or non-string key?): path"),
        ({"units": {1: "r1"}}, "is not JSON only (a tuple, set or non-string key?): units.1"),
        ({"hexes": {"A1"}}, "is not JSON: Object of type set is not JSON serializable"),
        ({"odds": math.nan}, "is not JSON: Out of range float values are not JSON compliant"),
        ([object()], "is not JSON: Object of type object is not JSON serializable"),
    ],
)
def test_what_the_round_trip_changes_or_refuses_is_named(value: object, found: str) -> None:
    problem = json_problem(value, "a state")
    assert problem is not None and problem.startswith("a state " + found.split(":")[0])
    assert found.split(": ", 1)[1] in problem


def test_a_value_that_survives_the_round_trip_unchanged_still_passes() -> None:
    # an IntEnum is not one of JSON's own types, but it comes back equal: the round trip decides
    assert json_problem({"side": Side.RED}, "a state") is None
