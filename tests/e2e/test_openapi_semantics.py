"""The API keeps the HTTP semantics its OpenAPI document promises (issue 46): ``Allow`` on every
405, an error shape declared for every operation, 400 for what the document forbids and 422 for
a well-formed request a rule refuses, and what the server enforces stated in the document."""

from __future__ import annotations

from typing import Any

import jsonschema_rs
import pytest
from flask.testing import FlaskClient

from service.api.schemas import PageCursor
from tests.e2e.test_openapi_errors import operation_of, resolve
from tests.support.api import ApiHelper

SIDES = {"red": "alice", "blue": "bob"}


@pytest.fixture
def spec(client: FlaskClient) -> dict[str, Any]:
    return client.get("/api/openapi.json").get_json()


def validator(spec: dict[str, Any], schema: dict[str, Any]) -> Any:
    """A validator of ``schema`` whose ``$ref`` reach the document's components."""
    return jsonschema_rs.validator_for({**schema, "components": spec["components"]})


@pytest.mark.parametrize(
    ("method", "url", "allowed"),
    [
        ("TRACE", "/api/campaigns/0", {"GET"}),
        ("PUT", "/api/systems", {"GET"}),
        ("DELETE", "/api/me/notifications/read", {"POST"}),
        # /api/games/import is POST's alone: GET is not the game named "import"
        ("GET", "/api/games/import", {"POST"}),
    ],
)
def test_a_405_names_the_allowed_methods(
    client: FlaskClient, method: str, url: str, allowed: set[str]
) -> None:
    r = client.open(url, method=method)
    assert r.status_code == 405, r.get_json()
    named = {m.strip() for m in r.headers.get("Allow", "").split(",")}
    assert allowed <= named and named <= allowed | {"HEAD", "OPTIONS"}, named
    assert r.get_json()["error"] == "method_not_allowed"


def test_every_operation_declares_its_error_shape(spec: dict[str, Any]) -> None:
    error = spec["components"]["schemas"]["Error"]
    assert set(error["required"]) == {"error", "message", "details"}
    operations = [
        (method, path, op)
        for path, item in spec["paths"].items()
        for method, op in item.items()
        if method != "parameters"
    ]
    assert len(operations) > 150
    for method, path, op in operations:
        responses = op["responses"]
        errors = [code for code in responses if code == "default" or code[0] in "45"]
        assert errors, (method, path)
        for code in errors:
            content = resolve(spec, responses[code]).get("content", {})
            schema = content.get("application/json", {}).get("schema", {})
            assert schema == {"$ref": "#/components/schemas/Error"}, (method, path, code)


def test_a_cursor_of_the_pattern_that_the_api_did_not_give_is_a_422(
    client: FlaskClient, api: ApiHelper, spec: dict[str, Any]
) -> None:
    headers = api.user("alice")
    after = operation_of(spec, "GET", "/api/seeks")["parameters"]
    pattern = next(p for p in after if p["name"] == "after")["schema"]["pattern"]
    foreign = PageCursor.encode((1, "not-a-uuid"))
    assert jsonschema_rs.is_valid({"pattern": pattern}, foreign)
    for url in ("/api/seeks", "/api/clubs", "/api/games"):
        r = client.get(url, query_string={"after": foreign}, headers=headers)
        assert r.status_code == 422 and "after" in r.get_json()["details"], (url, r.get_json())
        r = client.get(url, query_string={"after": "not a cursor!"}, headers=headers)
        assert r.status_code == 400 and "after" in r.get_json()["details"], (url, r.get_json())


def test_a_side_the_game_does_not_have_is_a_422(client: FlaskClient, api: ApiHelper) -> None:
    game = api.create_game("skirmish", "meeting", SIDES)
    r = client.post(
        f"/api/games/{game['id']}/resign", json={"side": "green"}, headers=api.user("alice")
    )
    assert r.status_code == 422 and "side" in r.get_json()["details"], r.get_json()
    assert api.game(game["id"], "alice")["status"] == "active"


def test_an_integer_written_with_a_zero_fraction_is_an_integer(
    client: FlaskClient, api: ApiHelper
) -> None:
    """JSON Schema's ``integer`` takes 3.0: so does the server (a string or 3.5 it refuses)."""
    game = api.create_game("skirmish", "meeting", SIDES)
    url, alice = f"/api/games/{game['id']}/vacation", api.user("alice")
    for days in ("3", 3.5, True):
        r = client.post(url, json={"side": "red", "days": days}, headers=alice)
        assert r.status_code == 400 and "days" in r.get_json()["details"], (days, r.get_json())
    r = client.post(url, json={"side": "red", "days": 3.0}, headers=alice)
    assert r.status_code != 400, r.get_json()


def test_an_unfinished_game_in_a_list_matches_its_documented_schema(
    client: FlaskClient, api: ApiHelper, spec: dict[str, Any]
) -> None:
    api.create_game("skirmish", "meeting", SIDES)
    r = client.get("/api/games", query_string={"mine": "true"}, headers=api.user("alice"))
    listed = r.get_json()
    assert listed and listed[0]["ended_at"] is None
    ok = resolve(spec, operation_of(spec, "GET", "/api/games")["responses"]["200"])
    validator(spec, ok["content"]["application/json"]["schema"]).validate(listed)


@pytest.mark.parametrize(
    ("method", "url", "body", "field"),
    [
        ("POST", "/api/me/webhooks", {"url": "example.org/hook"}, "url"),
        ("POST", "/api/me/notifications/read", {}, "ids"),
        ("POST", "/api/me/notifications/read", {"all": False, "ids": []}, "ids"),
    ],
)
def test_what_the_document_forbids_is_a_400_and_the_document_says_so(
    client: FlaskClient,
    api: ApiHelper,
    spec: dict[str, Any],
    method: str,
    url: str,
    body: dict[str, Any],
    field: str,
) -> None:
    op = operation_of(spec, method, url)
    schema = op["requestBody"]["content"]["application/json"]["schema"]
    assert not validator(spec, schema).is_valid(body)
    r = client.open(url, method=method, json=body, headers=api.user("alice"))
    assert r.status_code == 400 and field in r.get_json()["details"], r.get_json()


def test_a_webhook_url_that_urlsplit_cannot_read_is_a_400_not_a_500(
    client: FlaskClient, api: ApiHelper
) -> None:
    """Found by tests/fuzz/test_schemathesis.py once the document gave the URL's pattern."""
    for url in ("http://[ccc74B1e03fa]:01", "http://example.org:99999/h"):
        r = client.post("/api/me/webhooks", json={"url": url}, headers=api.user("alice"))
        assert r.status_code == 400 and "url" in r.get_json()["details"], (url, r.get_json())
    assert client.get("/api/me/webhooks", headers=api.user("alice")).get_json()["webhooks"] == []


def test_blank_chat_text_is_forbidden_by_the_document(
    client: FlaskClient, api: ApiHelper, spec: dict[str, Any]
) -> None:
    game = api.create_game("skirmish", "meeting", SIDES)
    url = f"/api/games/{game['id']}/chat"
    op = operation_of(spec, "POST", url)
    schema = validator(spec, op["requestBody"]["content"]["application/json"]["schema"])
    assert not schema.is_valid({"text": " \n\t"}) and schema.is_valid({"text": " hi "})
    r = client.post(url, json={"text": " \n\t"}, headers=api.user("alice"))
    assert r.status_code == 400 and "text" in r.get_json()["details"], r.get_json()
    assert client.get(url, headers=api.user("alice")).get_json()["messages"] == []


def test_a_club_scenario_starts_from_exactly_one_of_base_or_blank(spec: dict[str, Any]) -> None:
    create = spec["components"]["schemas"]["ScenarioCreate"]
    assert create["oneOf"] == [{"required": ["base"]}, {"required": ["blank"]}]


def test_rules_search_without_a_question_is_a_422(client: FlaskClient) -> None:
    """q is required unless kind=conflict: no OpenAPI form ties a query parameter to another's
    value, so the rule is a 422; an empty q the document forbids (400)."""
    r = client.get("/api/rules/search")
    assert r.status_code == 422 and "q" in r.get_json()["details"], r.get_json()
    assert client.get("/api/rules/search", query_string={"q": ""}).status_code == 400
    assert client.get("/api/rules/search", query_string={"kind": "conflict"}).status_code == 200
