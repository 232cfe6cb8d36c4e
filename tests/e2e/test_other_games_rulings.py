"""Issue 33 over HTTP: another game's rulings (For Whom the Bell Tolls's FAQ) are persuasive, not
binding -- stored so with a dispute's citations and a verdict's, labelled with that game's title
in words, after this game's own entries; a verdict citing only them must also cite one of this
game's sections (422 naming ``citations``, nothing written); an event's rulings say the same."""

from __future__ import annotations

from typing import Any

from flask import Flask

from tests.e2e.test_merida_dispute_story import RULE_10, SIDES, retreats, send, start
from tests.support.api import ApiHelper

PERSUASIVE = "For Whom the Bell Tolls FAQ — another game's ruling: persuasive, not binding"


def _europa_ruling(client: Any) -> str:
    found = client.get(
        "/api/rules/search",
        query_string={"q": "retreat zone of control", "document": "fwtbt-faq", "limit": 1},
    ).get_json()["results"]
    return str(found[0]["id"])


def _judge(app: Flask, api: ApiHelper) -> dict[str, str]:
    headers = api.user("judge")
    svc = app.extensions["arbiter"]
    judge = svc.users.by_name("judge")
    judge.grant("arbiter")
    svc.store.save(judge)
    return headers


def test_a_verdict_citing_only_another_games_rulings_is_refused_and_writes_nothing(
    app: Flask, api: ApiHelper
) -> None:
    client = api.client
    gid = start(app, api)
    disputed = retreats(send(api, gid, "nationalist", {"type": "end_phase"})["events"])[0]
    europa = _europa_ruling(client)
    # a player may point to another game's ruling: stored as persuasive, after this game's rules
    opened = client.post(
        f"/api/games/{gid}/disputes",
        json={"seq": disputed["seq"], "claim": "in command", "citations": [europa, RULE_10]},
        headers=api.user(SIDES["republican"]),
    )
    assert opened.status_code == 201, opened.get_json()
    dispute = opened.get_json()["dispute"]
    [stored] = client.get(f"/api/games/{gid}/disputes", headers=api.reader(None)).get_json()
    cited = stored["citations"]
    assert [c["id"] for c in cited] == [RULE_10, europa]  # this game's rule first
    assert (cited[0]["binding"], cited[0]["belongs_to"]) == (True, "Closing the Merida Pocket")
    assert cited[0]["source"] == "Closing the Merida Pocket rulebook"
    assert (cited[1]["binding"], cited[1]["belongs_to"]) == (False, "For Whom the Bell Tolls")
    assert cited[1]["source"] == f"{PERSUASIVE} in Closing the Merida Pocket"

    headers = _judge(app, api)
    version = api.game(gid, "rojo")["version"]
    url = f"/api/games/{gid}/disputes/{dispute}/resolution"
    refused = client.post(url, json={"verdict": "upheld", "citations": [europa]}, headers=headers)
    assert refused.status_code == 422, refused.get_json()
    [reason] = refused.get_json()["details"]["citations"]
    assert "For Whom the Bell Tolls" in reason and "persuasive, not binding" in reason
    assert "cite one of Closing the Merida Pocket's sections too" in reason
    assert api.game(gid, "rojo")["version"] == version  # nothing written
    [still] = client.get(f"/api/games/{gid}/disputes", headers=api.reader(None)).get_json()
    assert still["status"] == "open" and still["resolution"] is None

    resolved = client.post(
        url, json={"verdict": "upheld", "citations": [europa, RULE_10]}, headers=headers
    )
    assert resolved.status_code == 201, resolved.get_json()
    verdict = resolved.get_json()["citations"]
    assert [(c["id"], c["binding"]) for c in verdict] == [(RULE_10, True), (europa, False)]
    [done] = client.get(f"/api/games/{gid}/disputes", headers=api.reader(None)).get_json()
    assert done["resolution"]["citations"] == verdict


def test_an_events_related_rulings_of_another_game_say_so_and_come_last(
    app: Flask, api: ApiHelper
) -> None:
    """A Merida retreat through a zone of control: rule 5 ZOC rulings of For Whom the Bell Tolls
    come by word similarity; each is labelled with that game, persuasive, not binding."""
    client = api.client
    gid = start(app, api)
    disputed = retreats(send(api, gid, "nationalist", {"type": "end_phase"})["events"])[0]
    rulings = client.get(
        f"/api/games/{gid}/events/{disputed['seq']}/rulings", headers=api.reader(None)
    ).get_json()
    related = rulings["related"]
    europa = [r for r in related if r["document"] == "fwtbt-faq"]
    assert europa
    assert all(
        r["binding"] is False and r["belongs_to"] == "For Whom the Bell Tolls" for r in europa
    )
    assert all(r["source"] == f"{PERSUASIVE} in Closing the Merida Pocket" for r in europa)
    binding = [r["binding"] for r in related]
    assert binding == sorted(binding, reverse=True)
    assert all(g["binding"] for g in rulings["governing"])
