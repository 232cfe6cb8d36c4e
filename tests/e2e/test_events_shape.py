"""The events of a command's answer and of an events page are sent as the service shaped them
(``schemas.Shaped``, no field-by-field dump): they must be exactly what the documented ``EventOut``
schema dumps of them -- no key outside it, none of another type -- for a plain game and for a game
with hidden information read by the other side (sealed, shown, salt, redacted)."""

from __future__ import annotations

from typing import Any

from service.api.schemas import EventOut
from tests.support.api import ApiHelper

SIDES = {"allied": "ike", "spanish": "paco"}


def as_documented(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return EventOut(many=True).dump(events)


def test_a_command_answer_and_the_events_pages_hold_only_the_documented_fields(
    api: ApiHelper,
) -> None:
    game = api.create_game("backbone", "scenario-1", SIDES, options={"limited_intelligence": True})
    gid = game["id"]
    answers = []
    for user, command in (
        ("paco", {"type": "deploy", "fortifications": []}),
        ("ike", {"type": "deploy"}),
        ("ike", {"type": "begin_turn"}),
    ):
        response = api.command(gid, user, command)
        assert response.status_code == 201, response.get_json()
        answers.append(response.get_json()["events"])
    assert all(answers)
    for events in answers:
        assert events == as_documented(events)
    pages = {
        reader: api.client.get(
            f"/api/games/{gid}/events", query_string={"limit": 1000}, headers=headers
        ).get_json()["events"]
        for reader, headers in (
            ("ike", api.user("ike")),
            ("paco", api.user("paco")),
            (None, api.reader(None)),
        )
    }
    for reader, events in pages.items():
        assert events, reader
        assert events == as_documented(events), reader
    assert any(e.get("redacted") for e in pages["ike"]), "the Allied reader sees a redacted deploy"
    assert any("sealed" in e and "salt" in e for e in pages["ike"])


def test_an_unknown_key_would_show(api: ApiHelper) -> None:
    """The comparison above can fail: a key outside the schema is dropped by its dump."""
    item = {"game": "g", "seq": 1, "kind": "Game.Recorded", "internal": {"secret": 1}}
    assert as_documented([item]) != [item]
