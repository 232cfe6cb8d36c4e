"""The readings the games settle in the open, over HTTP: ``GET /api/rules/search?kind=conflict``
lists every conflict entry with its passages, the reading applied and the game option giving the
other reading -- among them the four of issue 33 (Backbone 9.2 against 16.6, Bizkaya 6 and 13,
Merida 8)."""

from __future__ import annotations

from typing import Any

#: issue 33's readings: entry id -> (the game option, its default, the other reading)
NEW_READINGS = {
    "backbone:conflict-legion-first-loss": ("legion_first_loss", "ability_used", "always"),
    "bizkaya:conflict-euphoria-doubling": ("euphoria_doubling", "any_difference", "in_its_favour"),
    "bizkaya:conflict-hold-check": ("hold_check", "each_unit", "whole_stack"),
    "merida:conflict-combat-once-per-turn": ("combat_once_per", "player_turn", "game_turn"),
    # issue 47: rule 5's armored train, its own line or rail movement's strategic rules
    "merida:conflict-armored-train": ("armored_train", "unlimited", "strategic"),
}


def test_the_conflicts_list_shows_each_reading_with_its_game_option(client: Any) -> None:
    response = client.get("/api/rules/search", query_string={"kind": "conflict"})
    assert response.status_code == 200, response.get_json()
    listed = {c["id"]: c for c in response.get_json()["results"]}
    assert all(c["kind"] == "conflict" for c in listed.values())
    for entry_id, (option, default, other) in NEW_READINGS.items():
        conflict = listed[entry_id]
        assert len(conflict["readings"]) >= 2, entry_id  # both readings quoted, each with its rule
        assert all(r["rule"] and r["quote"] for r in conflict["readings"])
        assert "by default" in conflict["engine_reading"] and "Why:" in conflict["engine_reading"]
        assert conflict["option"] == option
        detail = conflict["option_detail"]
        assert (detail["name"], detail["default"], detail["choices"]) == (
            option,
            default,
            [default, other],
        )
        assert conflict["source"].endswith("rulebook") and conflict["binding"] is True
    # the older conflicts name their options in a sentence: found in it all the same
    assert listed["merida:conflict-zoc-to-zoc"]["option_detail"]["name"] == "zoc_to_zoc"


def test_the_conflicts_list_of_one_game_in_the_order_declared(client: Any) -> None:
    from service.rules.bizkaya.rulebook import RULEBOOK

    response = client.get("/api/rules/search", query_string={"kind": "conflict", "game": "bizkaya"})
    ids = [c["id"] for c in response.get_json()["results"]]
    assert ids == [f"bizkaya:conflict-{c.key}" for c in RULEBOOK.conflicts]
    assert {"bizkaya:conflict-euphoria-doubling", "bizkaya:conflict-hold-check"} <= set(ids)


def test_a_search_keeps_one_kind_and_a_bad_kind_or_no_question_is_a_400(client: Any) -> None:
    found = client.get(
        "/api/rules/search", query_string={"q": "euphoria morale", "kind": "conflict"}
    ).get_json()["results"]
    assert found and {r["kind"] for r in found} == {"conflict"}
    assert found[0]["id"] == "bizkaya:conflict-euphoria-doubling"
    for params, field, status in (  # q required unless kind=conflict: a 422 (issue 46)
        ({"q": "retreat", "kind": "chart"}, "kind", 400),
        ({"kind": "ruling"}, "q", 422),
        ({"kind": "banana"}, "kind", 400),
    ):
        response = client.get("/api/rules/search", query_string=params)
        assert response.status_code == status, params
        assert field in response.get_json()["details"], (params, response.get_json())
