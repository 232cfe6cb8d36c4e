"""The rules knowledge base over HTTP and the CLI contract."""

from __future__ import annotations

import json
from typing import Any

from click.testing import CliRunner

from service.cli import main


def test_search_returns_results_best_first_with_the_contract_fields(client: Any) -> None:
    body = client.get(
        "/api/rules/search",
        query_string={"q": "last stand defense", "limit": 2, "document": "backbone"},
    ).get_json()
    assert body["took_ms"] >= 0 and len(body["results"]) == 2
    top = body["results"][0]
    assert (
        top["id"] == "backbone:16-5"
        and top["heading"] == "16.5 Last Stand Defense"
        and top["kind"] == "rule"
    )
    for key in ("id", "kind", "document", "heading", "rule_refs", "snippet", "score"):
        assert key in top


def test_a_ruling_carries_its_question_and_signed_answers(client: Any) -> None:
    results = client.get(
        "/api/rules/search", query_string={"q": "12C1", "document": "fwtbt-faq"}
    ).get_json()["results"]
    ruling = results[0]
    assert ruling["kind"] == "ruling" and "12C1" in ruling["rule_refs"]
    assert ruling["question"] and ruling["answers"][0]["authority"]


def test_bad_queries_get_400_with_the_field(client: Any) -> None:
    """400 for what the document forbids, 422 for a query the knowledge base refuses (issue 46)."""
    for params, field, status in (
        ({"q": ""}, "q", 400),
        ({"q": "???"}, "q", 422),
        ({"q": "x" * 600}, "q", 400),
        ({"q": "retreat", "limit": 500}, "limit", 400),
        ({"q": "retreat", "document": "chess"}, "document", 422),
        ({}, "q", 422),
    ):
        response = client.get("/api/rules/search", query_string=params)
        assert response.status_code == status, params
        assert field in response.get_json()["details"], (params, response.get_json())


def test_one_entry_whole(client: Any) -> None:
    entry = client.get("/api/rules/fwtbt-faq:maps:q1").get_json()
    assert entry["answers"][0]["authority"] == "AEG, Developer"
    missing = client.get("/api/rules/nope:1")
    assert missing.status_code == 404 and missing.get_json()["error"] == "not_found"


def test_cli_search_json_contract(config: Any, monkeypatch: Any) -> None:
    monkeypatch.setenv("ARBITER_VAR", str(config.var_dir))
    result = CliRunner().invoke(
        main, ["rules", "search", "retreat through zone of control", "--limit", "3", "--json"]
    )
    assert result.exit_code == 0, result.output
    rows = json.loads(result.output)
    assert len(rows) == 3 and all(
        {"id", "kind", "document", "heading", "rule_refs", "snippet", "score"} <= set(r)
        for r in rows
    )
