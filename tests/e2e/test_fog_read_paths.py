"""Limited intelligence (Backbone 19.2) holds in every read path: a unit hidden under the top of an
enemy stack appears in no answer the other side can get -- state now or at a past version, counters,
events, export, audit views, state diffs, rulings for an event, a preview -- and the owner sees it."""

from __future__ import annotations

from typing import Any

from tests.support.api import ApiHelper
from tests.support.hidden_games import backbone_hiding_a_unit


def test_19_2_a_hidden_unit_leaks_through_no_read_path(api: ApiHelper) -> None:
    gid, hidden = backbone_hiding_a_unit(api)
    version = api.game(gid, "paco")["version"]
    allied = api.user("ike")
    c = api.client

    def text(response: Any) -> str:
        assert response.status_code == 200, (response.request.path, response.get_json())
        return response.get_data(as_text=True)

    paths = {
        "state": c.get(f"/api/games/{gid}", headers=allied),
        "state at version 1": c.get(
            f"/api/games/{gid}", query_string={"version": 1}, headers=allied
        ),
        "events": c.get(f"/api/games/{gid}/events", query_string={"limit": 1000}, headers=allied),
        "export": c.get(f"/api/games/{gid}/events.ndjson", headers=allied),
        "audit actions": c.get(f"/api/games/{gid}/audit/actions", headers=allied),
        "audit diff": c.get(
            f"/api/games/{gid}/audit/diff", query_string={"from": 1, "to": version}, headers=allied
        ),
        "public state": c.get(f"/api/games/{gid}"),
        "public events": c.get(f"/api/games/{gid}/events"),
    }
    for seq in range(1, version + 1):
        paths[f"rulings {seq}"] = c.get(f"/api/games/{gid}/events/{seq}/rulings", headers=allied)
    for name, response in paths.items():
        assert hidden not in text(response), f"{hidden} leaks through {name}"
    assert (
        c.get(f"/api/games/{gid}", query_string={"side": "spanish"}, headers=allied).status_code
        == 403
    )
    assert hidden in text(c.get(f"/api/games/{gid}", headers=api.user("paco")))
    assert hidden in text(c.get(f"/api/games/{gid}/events.ndjson", headers=api.user("paco")))


def test_the_audit_says_which_orders_are_hidden_from_the_reader(api: ApiHelper) -> None:
    """The other side's orders show their type only; the row says so when that hides something
    (the audit page then reads "Order: deploy (details hidden)"), as the log marks the event
    redacted; an order that is its type alone hides nothing, and a side's own orders are never
    marked."""
    gid, _ = backbone_hiding_a_unit(api)

    def marks(user: str) -> set[tuple[str, bool]]:
        rows = api.client.get(f"/api/games/{gid}/audit/actions", headers=api.user(user))
        assert rows.status_code == 200
        return {
            (r["side"], r.get("hidden", False)) for r in rows.get_json() if r["action"] == "command"
        }

    assert marks("ike") == {("spanish", True), ("allied", False)}
    assert marks("paco") == {("spanish", False), ("allied", False)}  # {"type": "deploy"} only
    log = api.client.get(f"/api/games/{gid}/events", headers=api.user("paco")).get_json()
    accepted = [e for e in log["events"] if e["kind"] == "Game.CommandAccepted"]
    assert [(e["side"], e["redacted"]) for e in accepted] == [
        ("spanish", False),
        ("allied", False),
        ("allied", False),
    ]


def test_the_audit_words_the_other_sides_effects_as_the_log_does(api: ApiHelper) -> None:
    """The audit hides no more and no less of an effect than the game log does for the same
    reader: each effect of the other side's orders reads as the log's sentence for that event
    (what the rules redact stays redacted in both, what they show is shown in both)."""
    gid, _ = backbone_hiding_a_unit(api)
    for user, other in (("ike", "spanish"), ("paco", "allied")):
        headers = api.user(user)
        log = api.client.get(
            f"/api/games/{gid}/events", query_string={"limit": 1000}, headers=headers
        ).get_json()
        said = {item["seq"]: item["text"] for item in log["events"] if "text" in item}
        rows = api.client.get(f"/api/games/{gid}/audit/actions", headers=headers).get_json()
        effects = [
            effect
            for row in rows
            if row["action"] == "command" and row["side"] == other
            for effect in row["effects"]
            if effect["type"] != "DiceRolled"
        ]
        assert effects, f"{other} recorded no effects"
        assert {e["seq"]: e.get("text") for e in effects} == {
            e["seq"]: said[e["seq"]] for e in effects
        }
