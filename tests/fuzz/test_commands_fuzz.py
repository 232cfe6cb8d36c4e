"""Commands of every system, generated from the declarations ``GET /api/systems/<name>`` lists and
from the templates the active side is offered, then mutated into wrong types and shapes, sent with
the game's version and the active side's token so that they reach the rules: never a 5xx, every
error in the documented shape, and a refused command writes nothing."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.fuzz.strategies import json_values, mutated
from tests.fuzz.support import Table, error_problems, fuzz_settings
from tests.support.api import build

SYSTEMS = ("merida", "backbone", "bizkaya", "barcelona", "skirmish")
_OFFERS: dict[tuple[int, str], Offered] = {}


def offers(table: Table, system: str) -> Offered:
    """The system's offer, read at the first example of the module's table."""
    key = (id(table), system)
    if key not in _OFFERS:
        _OFFERS[key] = offered(table, system)
    return _OFFERS[key]


def names_in(game: dict[str, Any]) -> list[str]:
    """Unit ids and hexes the game shows: plausible values for a declared field."""
    found = ["A1", "0101", ""]
    for counter in game.get("counters") or []:
        found += [str(counter.get("id")), str(counter.get("hex"))]
    return found


@st.composite
def declared_command(draw: st.DrawFn, declaration: dict[str, Any], names: list[str]) -> dict:
    """A command of a declared type, each field a plausible value of its kind or any JSON value."""
    by_kind = {
        "unit": st.sampled_from(names),
        "hex": st.sampled_from(names),
        "units": st.lists(st.sampled_from(names), max_size=4),
        "path": st.lists(st.sampled_from(names), max_size=4),
        "number": st.integers(-5, 50) | st.floats(-100, 100),
        "flag": st.booleans(),
        "point": st.fixed_dictionaries({"x": st.floats(-5, 60), "y": st.floats(-5, 60)}),
    }
    command: dict[str, Any] = {"type": declaration["type"]}
    for name, info in declaration["fields"].items():
        if not info["required"] and draw(st.booleans()):
            continue
        command[name] = draw(by_kind.get(info["kind"], json_values) | json_values)
    return command


def send(table: Table, system: str, path: str, command: dict[str, Any]) -> Any:
    gid = table.games[system]["id"]
    side, user = table.actor(system)
    body = {"expected_version": table.version(system), "side": side, "command": command}
    if path == "preview":
        body.pop("expected_version")
    return table.client.post(f"/api/games/{gid}/{path}", json=body, headers=table.headers(user))


def check(table: Table, system: str, path: str, command: dict[str, Any]) -> None:
    before = table.version(system)
    r = send(table, system, path, command)
    problems = error_problems(r)
    assert not problems, (problems, command)
    if r.status_code >= 400 or path == "preview":
        assert table.version(system) == before, ("written on an error", r.get_json(), command)


@dataclass(frozen=True)
class Offered:
    """What a command is drawn from, read once so that drawing never depends on the game's state
    (commands that pass move the game on): the templates the active side was offered, every
    declaration, and the names the game showed."""

    templates: list[dict[str, Any]]
    declarations: list[dict[str, Any]]
    names: list[str]


def offered(table: Table, system: str) -> Offered:
    gid = table.games[system]["id"]
    side, user = table.actor(system)
    listed = table.client.get(
        f"/api/games/{gid}/actions", query_string={"side": side}, headers=table.headers(user)
    ).get_json()
    declarations = table.client.get(f"/api/systems/{system}").get_json()["commands"]
    return Offered(listed.get("actions") or [], declarations, names_in(table.game(system)))


@st.composite
def command_for(draw: st.DrawFn, offer: Offered) -> dict[str, Any]:
    """A mutated template the active side was offered, or a declared command of any type."""
    if offer.templates and draw(st.booleans()):
        valid = build(draw(st.sampled_from(offer.templates)))
        return draw(mutated(valid, keep=(("type",),)))
    declaration = draw(st.sampled_from(offer.declarations))
    return draw(declared_command(declaration, offer.names))


@pytest.mark.parametrize("system", SYSTEMS)
@fuzz_settings(60)
@given(data=st.data())
def test_mutated_commands_reach_the_rules_and_never_fail(
    table: Table, system: str, data: st.DataObject
) -> None:
    command = data.draw(command_for(offers(table, system)), label="command")
    check(table, system, "commands", command)


@pytest.mark.parametrize("system", SYSTEMS)
@fuzz_settings(40)
@given(data=st.data())
def test_mutated_commands_previewed_never_fail(
    table: Table, system: str, data: st.DataObject
) -> None:
    command = data.draw(command_for(offers(table, system)), label="command")
    check(table, system, "preview", command)
