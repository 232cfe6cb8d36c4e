"""Issue 15 over HTTP: ``GET /api/rules/search?game=`` (scope and source on every result, 422
naming an unknown ``game``), and a dispute on a Merida event citing only what it may."""

from __future__ import annotations

from typing import Any

from flask import Flask

from tests.e2e.test_merida_dispute_story import SIDES, send, start
from tests.support.api import ApiHelper


def test_search_scoped_to_a_game_labels_every_result(client: Any) -> None:
    body = client.get(
        "/api/rules/search", query_string={"q": "retreat zone of control", "game": "merida"}
    ).get_json()
    results = body["results"]
    assert results[0]["scope"] == "game" and results[0]["document"] == "merida"
    assert results[0]["source"] == "Closing the Merida Pocket rulebook"
    assert all(r["scope"] in ("game", "club", "fwtbt", "other-game") for r in results)
    assert all(r["source"] for r in results)
    named = client.get(
        "/api/rules/search", query_string={"q": "in Merida, retreat zone of control"}
    ).get_json()["results"]
    assert [r["id"] for r in named] == [r["id"] for r in results]
    # the existing parameters keep working beside it
    only = client.get(
        "/api/rules/search", query_string={"q": "retreat", "document": "fwtbt-faq", "limit": 3}
    ).get_json()["results"]
    assert len(only) == 3 and {r["document"] for r in only} == {"fwtbt-faq"}


def test_an_unknown_game_is_a_422_naming_game(client: Any) -> None:
    response = client.get("/api/rules/search", query_string={"q": "retreat", "game": "chess"})
    assert response.status_code == 422  # well-formed, refused by the knowledge base (issue 46)
    assert "game" in response.get_json()["details"]


def test_a_game_whose_system_has_no_rulebook_searches_unscoped(client: Any) -> None:
    """A system the server plays but the knowledge base holds no rulebook of (a club's plug-in,
    here the test fixture ``skirmish``): the search is the unscoped one, every result labelled by
    its source (the game page's rules drawer and citation picker send ``game`` for every game)."""
    response = client.get("/api/rules/search", query_string={"q": "retreat", "game": "skirmish"})
    assert response.status_code == 200, response.get_json()
    results = response.get_json()["results"]
    plain = client.get("/api/rules/search", query_string={"q": "retreat"}).get_json()["results"]
    assert results and [r["id"] for r in results] == [r["id"] for r in plain]
    assert all(r["source"] for r in results)


def test_a_merida_dispute_cannot_cite_another_games_rulebook(app: Flask, api: ApiHelper) -> None:
    gid = start(app, api)
    seq = send(api, gid, "nationalist", {"type": "end_phase"})["events"][-1]["seq"]
    player = SIDES["republican"]
    url = f"/api/games/{gid}/disputes"
    other = api.client.post(
        url,
        json={"seq": seq, "claim": "wrong", "citations": ["backbone:16-5"]},
        headers=api.user(player),
    )
    assert other.status_code == 422, other.get_json()
    problem = other.get_json()["details"]["citations"][0]
    assert "Operation Backbone" in problem and "another game's rulebook" in problem
    svc = app.extensions["arbiter"]
    faq = svc.knowledge.kb.search("retreat", limit=1, document="fwtbt-faq")[0]["id"]
    fine = api.client.post(
        url,
        json={"seq": seq, "claim": "wrong", "citations": ["merida:8-retreats", faq]},
        headers=api.user(player),
    )
    assert fine.status_code == 201, fine.get_json()
