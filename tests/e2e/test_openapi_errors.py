"""The OpenAPI document tells the truth: every error the API answers validates against the error
schema the document gives for that operation and status, malformed arguments are documented as the
400 they are, and the live streams are documented as ``text/event-stream``."""

from __future__ import annotations

import re
from typing import Any

import jsonschema_rs
import pytest
from flask.testing import FlaskClient

from tests.support.api import PASSWORD, ApiHelper

SIDES = {"red": "alice", "blue": "bob"}


def resolve(spec: dict[str, Any], node: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in node:
        _, *parts = node["$ref"].split("/")
        node = spec
        for part in parts:
            node = node[part]
    return node


def operation_of(spec: dict[str, Any], method: str, url: str) -> dict[str, Any]:
    """The documented operation that serves ``method url``."""
    path = url.split("?")[0]
    for template, item in spec["paths"].items():
        pattern = "^" + re.sub(r"\\{[^/]+?\\}", "[^/]+", re.escape(template)) + "$"
        if re.match(pattern, path) and method.lower() in item:
            return item[method.lower()]
    raise AssertionError(f"{method} {path} is not in the OpenAPI document")


def documented_error_schema(
    spec: dict[str, Any], method: str, url: str, status: int
) -> dict[str, Any]:
    responses = operation_of(spec, method, url)["responses"]
    response = resolve(spec, responses.get(str(status)) or responses["default"])
    return resolve(spec, response["content"]["application/json"]["schema"])


@pytest.fixture
def spec(client: FlaskClient) -> dict[str, Any]:
    r = client.get("/api/openapi.json")
    assert r.status_code == 200
    return r.get_json()


def bad_requests(api: ApiHelper) -> list[tuple[str, str, dict[str, Any], int]]:
    """(method, url, request kwargs, expected status): each kind of error the API answers (bob
    may not move red; alice's move is illegal)."""
    game = api.create_game("skirmish", "meeting", SIDES)
    commands = f"/api/games/{game['id']}/commands"
    illegal = {"type": "move", "unit": "r2", "path": ["D2", "D4"]}
    alice, bob = api.user("alice"), api.user("bob")
    v = game["version"]  # bob accepted alice's invitation: the game is under way
    stale = {"expected_version": v + 6, "command": illegal}
    return [
        ("POST", "/api/tokens", {"json": {"username": "alice"}}, 400),
        ("POST", "/api/users", {"json": {"username": "x!", "password": PASSWORD}}, 400),
        (
            "POST",
            commands,
            {"json": {"expected_version": v, "command": illegal, "x": 1}, "headers": alice},
            400,
        ),
        ("GET", "/api/me", {}, 401),
        ("GET", "/api/me/tokens", {"headers": {"Authorization": "Bearer a.b.c"}}, 401),
        ("DELETE", "/api/tokens/current", {}, 401),
        (
            "POST",
            commands,
            {"json": {"expected_version": v, "command": illegal}, "headers": bob},
            403,
        ),
        ("GET", "/api/games/00000000-0000-0000-0000-000000000000", {}, 404),
        ("DELETE", "/api/tokens/" + "0" * 32, {"headers": alice}, 404),
        ("POST", "/api/users", {"json": {"username": "alice", "password": PASSWORD}}, 409),
        ("POST", commands, {"json": stale, "headers": alice}, 409),
        ("GET", f"/api/games/{game['id']}/stream?window=0", {"headers": alice}, 400),
        ("GET", f"/api/games/{game['id']}", {}, 404),  # private: a visitor reads nothing
    ]


def test_every_error_body_matches_the_documented_error_schema(
    client: FlaskClient, api: ApiHelper, spec: dict[str, Any]
) -> None:
    for method, url, kwargs, status in bad_requests(api):
        r = client.open(url, method=method, **kwargs)
        assert r.status_code == status, (method, url, r.get_json())
        schema = documented_error_schema(spec, method, url, status)
        jsonschema_rs.validate(schema, r.get_json())
    refused = api.command(
        api.create_game("skirmish", "meeting", SIDES)["id"],
        "alice",
        {"type": "move", "unit": "r2", "path": ["D2", "D4"]},
    )
    assert refused.status_code == 422
    schema = documented_error_schema(spec, "POST", "/api/games/x/commands", 422)
    jsonschema_rs.validate(schema, refused.get_json())


def test_the_documented_error_schema_is_the_real_shape_and_nothing_else(
    spec: dict[str, Any],
) -> None:
    schema = documented_error_schema(spec, "GET", "/api/me", 401)
    assert set(schema["properties"]) == {"error", "message", "details"}
    assert set(schema["required"]) == {"error", "message", "details"}
    old_shape = {"code": 401, "status": "Unauthorized", "message": "x", "errors": {}}
    assert not jsonschema_rs.validator_for(schema).is_valid(old_shape)


def test_malformed_arguments_are_documented_as_the_400_they_are(spec: dict[str, Any]) -> None:
    documented = [
        (path, method, set(op["responses"]))
        for path, item in spec["paths"].items()
        for method, op in item.items()
        if method != "parameters" and "requestBody" in op
    ]
    assert documented
    for path, method, statuses in documented:
        assert "400" in statuses and "422" not in statuses, (method, path, statuses)


def test_live_streams_are_documented_and_served_as_event_streams(
    client: FlaskClient, api: ApiHelper, spec: dict[str, Any]
) -> None:
    streams = [path for path in spec["paths"] if path.endswith("/stream")]
    assert {"/api/games/{game_id}/stream", "/api/ladders/{ladder_id}/stream"} <= set(streams)
    for path in streams:
        ok = spec["paths"][path]["get"]["responses"]["200"]
        assert list(ok["content"]) == ["text/event-stream"], path
    game = api.create_game("skirmish", "meeting", SIDES)
    r = client.get(f"/api/games/{game['id']}/stream?window=1", headers=api.user("alice"))
    assert r.status_code == 200 and r.mimetype == "text/event-stream"
    r.close()
