"""The input gate (issue 14, items 5 and 6): every kind of malformed input the probe sent, to every
endpoint that takes input, across every system's commands and previews, is a 4xx in the documented
error shape naming the field -- never a 500 -- and writes nothing (the game's version unchanged);
the log never holds NaN, Infinity or a field outside a command's declaration."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.fuzz.support import SITUATIONS, Table, assert_error, open_table
from tests.support.api import build

pytestmark = pytest.mark.slow(
    "wrong JSON types sent in every declared field of every command of every system (45 to 95 s "
    "of the file in make test, by what runs beside it)"
)

SYSTEMS = ("merida", "backbone", "bizkaya", "barcelona", "skirmish")

#: raw JSON texts the gate refuses, each with the place its answer names
MALFORMED = {
    "nan": ('{"expected_version": 1, "command": {"type": "x", "n": NaN}}', "command.n"),
    "infinity": ('{"expected_version": Infinity, "command": {}}', "expected_version"),
    "-infinity": ('{"expected_version": 1, "command": {"a": [-Infinity]}}', "command.a[0]"),
    "overflowing float": ('{"expected_version": 1, "command": {"n": 1e400}}', "command.n"),
    "long integer": ('{"expected_version": ' + "9" * 5000 + ', "command": {}}', "expected_version"),
    "integer past 2**53": (
        '{"expected_version": 1, "command": {"n": 9007199254740993}}',
        "command.n",
    ),
    "deep nesting": ('{"command": ' + "[" * 50_000 + "]" * 50_000 + "}", "body"),
    "33 deep": ('{"command": {"a": ' + "[" * 32 + "]" * 32 + "}}", "body"),
    "lone surrogate": ('{"expected_version": 1, "side": "\\ud800", "command": {}}', "side"),
    "lone surrogate key": ('{"expected_version": 1, "command": {"\\udfff": 1}}', "command.\\udfff"),
    "not JSON": ('{"expected_version": 1,', "body"),
}


@pytest.fixture(scope="module")
def table(tmp_path_factory: pytest.TempPathFactory, index_template: Path) -> Iterator[Table]:
    found = open_table(tmp_path_factory.mktemp("gate"), index_template)
    yield found
    found.app.extensions["arbiter"].close()


def post_raw(table: Table, url: str, text: str | bytes, user: str | None = None) -> Any:
    headers = {"Content-Type": "application/json", **(table.headers(user) if user else {})}
    return table.client.post(url, data=text, headers=headers)


def body_endpoints(table: Table, system: str) -> list[str]:
    gid = table.games[system]["id"]
    urls = [f"/api/games/{gid}/{p}" for p in ("commands", "preview", "entropy", "takebacks")]
    urls += [f"/api/games/{gid}/disputes", "/api/games", "/api/users", "/api/tokens"]
    return urls + [f"/api/systems/{system}/combat-preview"]


@pytest.mark.parametrize("kind", sorted(MALFORMED))
@pytest.mark.parametrize("system", SYSTEMS)
def test_malformed_json_is_400_naming_the_place_and_writes_nothing(
    table: Table, system: str, kind: str
) -> None:
    text, place = MALFORMED[kind]
    side, user = table.actor(system)
    before = table.version(system)
    games = len(table.client.get("/api/games").get_json())
    for url in body_endpoints(table, system):
        assert_error(post_raw(table, url, text, user), 400, place)
    assert table.version(system) == before
    assert len(table.client.get("/api/games").get_json()) == games


def test_bodies_that_are_not_utf8_or_too_large(table: Table) -> None:
    side, user = table.actor("merida")
    url = f"/api/games/{table.games['merida']['id']}/commands"
    assert_error(post_raw(table, url, b'{"side": "\xff"}', user), 400, "body")
    big = json.dumps(
        {"expected_version": 1, "command": {"type": "end_phase", "x": "j" * 1_100_000}}
    )
    body = assert_error(post_raw(table, url, big, user), 413, "body")
    assert body["error"] == "too_large"


QUERIES = {
    "version": ("", {"version": 2**31}),
    "after": ("/events", {"after": 2**31}),
    "limit": ("/events", {"limit": 10**20}),
    "from": ("/audit/diff", {"from": 99999999999999999999, "to": 1}),
    "to": ("/audit/diff", {"from": 1, "to": 2**63}),
}


@pytest.mark.parametrize("field", sorted(QUERIES))
@pytest.mark.parametrize("system", SYSTEMS)
def test_query_integers_past_the_database_range_are_400(
    table: Table, system: str, field: str
) -> None:
    path, query = QUERIES[field]
    side, user = table.actor(system)
    r = table.client.get(
        f"/api/games/{table.games[system]['id']}{path}",
        query_string=query,
        headers=table.headers(user),
    )
    assert_error(r, 400, field)


WRONG = [None, True, 0, -1, 2**53 - 1, 0.5, -1e308, "", "x" * 300, [], {}, [1], {"a": 1}, [[]]]


@pytest.mark.parametrize("system", SYSTEMS)
def test_wrong_json_types_in_every_declared_field_are_4xx(table: Table, system: str) -> None:
    declarations = table.client.get(f"/api/systems/{system}").get_json()["commands"]
    gid = table.games[system]["id"]
    side, user = table.actor(system)
    version = table.version(system)
    for declaration in declarations:
        for name in [*declaration["fields"], "type"]:
            for value in WRONG:
                command = {
                    "type": declaration["type"],
                    **dict.fromkeys(declaration["fields"], "A1"),
                }
                command[name] = value
                for path, extra in (("commands", {"expected_version": version}), ("preview", {})):
                    r = table.client.post(
                        f"/api/games/{gid}/{path}",
                        json={**extra, "side": side, "command": command},
                        headers=table.headers(user),
                    )
                    assert_error(r)
    assert table.version(system) == version


def test_junk_outside_a_command_is_refused_and_never_stored(table: Table) -> None:
    gid = table.games["skirmish"]["id"]
    side, user = table.actor("skirmish")
    version = table.version("skirmish")
    valid = build(
        table.client.get(
            f"/api/games/{gid}/actions", query_string={"side": side}, headers=table.headers(user)
        ).get_json()["actions"][0]
    )
    url = f"/api/games/{gid}/commands"
    top = {"expected_version": version, "side": side, "command": valid, "junk": 1}
    assert_error(table.client.post(url, json=top, headers=table.headers(user)), 400, "junk")
    junk = {**valid, "note": "j" * 900_000}
    body = {"expected_version": version, "side": side, "command": junk}
    assert_error(
        table.client.post(url, json=body, headers=table.headers(user)), 400, "command.note"
    )
    key = next(k for k in valid if k != "type")  # NaN in a declared field
    marked = {"expected_version": version, "side": side, "command": {**valid, key: "@NaN@"}}
    nan = json.dumps(marked).replace('"@NaN@"', "NaN")
    assert_error(post_raw(table, url, nan, user), 400, f"command.{key}")
    assert table.version("skirmish") == version
    export = table.client.get(f"/api/games/{gid}/events.ndjson", headers=table.headers(user))
    assert "NaN" not in export.get_data(as_text=True) and "jjjj" not in export.get_data(
        as_text=True
    )


@pytest.mark.parametrize("system", sorted(SITUATIONS))
def test_combat_previews_refuse_shapes_they_do_not_expect(table: Table, system: str) -> None:
    url = f"/api/systems/{system}/combat-preview"
    valid = SITUATIONS[system][0]
    shapes: list[Any] = [[], "x", 1, None, [valid], {"attackers": {"a": 1}}, {"attackers": [1]}]
    shapes += [{**valid, key: value} for key in valid for value in ([], {}, "x", -1, 10**15, None)]
    shapes += [{k: v for k, v in valid.items() if k != key} for key in valid]
    for shape in shapes:
        r = table.client.post(url, json=shape)
        if r.status_code != 200:
            assert_error(r, 400)


def test_the_stored_command_is_the_one_the_declaration_loaded(table: Table) -> None:
    """Barcelona declares ``deploy``'s x and y as numbers: sent as integers, they are stored as the
    declaration loaded them (floats), never as the raw body."""
    gid, users = table.games["barcelona"]["id"], table.games["barcelona"]["users"]
    for _ in range(20):
        game = table.game("barcelona")
        side = game["active_sides"][0]
        listed = table.client.get(
            f"/api/games/{gid}/actions",
            query_string={"side": side},
            headers=table.headers(users[side]),
        ).get_json()["actions"]
        deploy = [t for t in listed if t["type"] == "deploy"]
        command = build(deploy[0] if deploy else listed[0])
        if deploy:
            command.update(x=int(command["x"]), y=int(command["y"]))
        r = table.client.post(
            f"/api/games/{gid}/commands",
            json={"expected_version": game["version"], "side": side, "command": command},
            headers=table.headers(users[side]),
        )
        assert r.status_code == 201, r.get_json()
        if deploy:
            break
    else:
        raise AssertionError("no deploy offered")
    export = table.client.get(f"/api/games/{gid}/events.ndjson", headers=table.headers(users[side]))
    stored = [json.loads(line) for line in export.get_data(as_text=True).splitlines()]
    accepted = [e for e in stored if e.get("type") == "CommandAccepted"][-1]["payload"]["command"]
    assert accepted["type"] == "deploy"
    assert isinstance(accepted["x"], float) and isinstance(accepted["y"], float), accepted


def test_the_body_is_parsed_once_by_the_gate_and_handed_to_the_route(
    api: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The routes' argument parser takes the body the gate parsed (``service.api.blueprint``):
    with webargs' own JSON parsing broken, a command still goes through and a bad one is still
    refused by its schema, naming the field."""
    import webargs.core

    def refuse(*_: Any, **__: Any) -> Any:
        raise AssertionError("the body was parsed a second time")

    game = api.create_game("skirmish", "meeting", {"red": "ann", "blue": "bob"})
    monkeypatch.setattr(webargs.core, "parse_json", refuse)
    response = api.command(
        game["id"], "ann", {"type": "end_phase"}, expected_version=game["version"]
    )
    assert response.status_code == 201, response.get_json()
    assert response.get_json()["version"] > 1
    refused = api.client.post(
        f"/api/games/{game['id']}/commands",
        json={"expected_version": "two", "command": {"type": "end_phase"}},
        headers=api.user("ann"),
    )
    assert refused.status_code == 400, refused.get_json()
    assert "expected_version" in refused.get_json()["details"]
