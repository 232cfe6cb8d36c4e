"""Issue 32, "Placeholders a player can see": the board of a game says which of its scenario's data
are stand-ins, by topic and in words (the shipped Merida: every hex clear, counter strengths not in
the text), the systems' list says it before a game is created, and a scenario with none says none."""

from __future__ import annotations

from flask.testing import FlaskClient

from service.rules.scenario.placeholders import Placeholder, topics
from tests.support.api import ApiHelper

SIDES = {"nationalist": "franco", "republican": "rojo"}


def test_topics_group_placeholders_in_the_words_a_player_uses() -> None:
    found = topics(
        [
            Placeholder("units[3].values.strength", "not printed"),
            Placeholder("map.default_terrain", "every hex is clear"),
            Placeholder("units[4].values.strength", "not printed"),
            Placeholder("units[5].values.strength", "read as 0"),
            Placeholder("map.hexsides[2]", "placeholder road"),
            Placeholder("weird", "something"),
        ]
    )
    assert found == [
        {"topic": "Terrain", "count": 1, "notes": ["every hex is clear"]},
        {"topic": "Hexsides (roads, rivers, rail)", "count": 1, "notes": ["placeholder road"]},
        {"topic": "Counter values", "count": 3, "notes": ["not printed", "read as 0"]},
        {"topic": "Other values", "count": 1, "notes": ["something"]},
    ]


def test_a_merida_game_board_names_its_placeholder_data(
    client: FlaskClient, api: ApiHelper
) -> None:
    game = api.create_game("merida", "merida-1938", SIDES)
    board = client.get(f"/api/games/{game['id']}/board", headers=api.user("franco")).get_json()
    by_topic = {t["topic"]: t for t in board["placeholder_topics"]}
    assert "every hex is clear" in by_topic["Terrain"]["notes"][0]
    assert by_topic["Counter values"]["count"] == 72
    assert any("not printed" in n for n in by_topic["Counter values"]["notes"])
    # said before a game is created: the systems' scenario list carries the same topics
    merida = client.get("/api/systems/merida").get_json()
    [scenario] = [s for s in merida["scenarios"] if s["id"] == "merida-1938"]
    assert scenario["placeholder_topics"] == board["placeholder_topics"]


def test_a_scenario_without_placeholders_lists_none(client: FlaskClient) -> None:
    systems = client.get("/api/systems").get_json()
    scenarios = [s for system in systems for s in system["scenarios"]]
    for scenario in scenarios:
        assert bool(scenario["placeholder_topics"]) == scenario["placeholder"], scenario["id"]
