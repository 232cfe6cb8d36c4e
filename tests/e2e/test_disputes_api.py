"""Takebacks, disputes, remedies (rewind, rebase), club rulings and audit, through the HTTP API."""

from __future__ import annotations

import json
from typing import Any

from flask import Flask

from tests.support.api import ApiHelper, every

SIDES = {"red": "alice", "blue": "bob"}
RULING = "merida:8-retreats"  # a rulebook section of the knowledge base


def make_arbiter(app: Flask, api: ApiHelper, name: str = "carol") -> dict[str, str]:
    headers = api.user(name)
    svc = app.extensions["arbiter"]
    user = svc.users.by_name(name)
    user.grant("arbiter")
    svc.store.save(user)
    return headers


def faq_entry(api: ApiHelper, query: str = "retreat zone of control") -> str:
    svc = api.client.application.extensions["arbiter"]
    return next(r["id"] for r in svc.knowledge.kb.search(query, limit=10, document="fwtbt-faq"))


def open_dispute(api: ApiHelper, gid: str, seq: int, claim: str, user: str = "bob") -> str:
    """``user`` (a player) disputes event ``seq``; returns the dispute id."""
    r = api.client.post(
        f"/api/games/{gid}/disputes", json={"seq": seq, "claim": claim}, headers=api.user(user)
    )
    return str(ok(r)["dispute"])


def ok(response: Any, status: int = 201) -> dict[str, Any]:
    assert response.status_code == status, response.get_json()
    return response.get_json()


def move_r2(api: ApiHelper, game_id: str, path: list[str]) -> dict[str, Any]:
    return ok(api.command(game_id, "alice", {"type": "move", "unit": "r2", "path": path}))


def test_a_takeback_accepted_retracts_by_appending(api: ApiHelper, client: Any) -> None:
    game = api.create_game("skirmish", "meeting", SIDES)
    gid = game["id"]
    move_r2(api, gid, ["D3", "D4"])
    r = client.post(f"/api/games/{gid}/takebacks", json={}, headers=api.user("alice"))
    assert ok(r)["takeback"]["side"] == "red"
    assert (
        client.post(
            f"/api/games/{gid}/takebacks/answer", json={"accept": True}, headers=api.user("alice")
        ).status_code
        == 403
    )
    ok(
        client.post(
            f"/api/games/{gid}/takebacks/answer", json={"accept": True}, headers=api.user("bob")
        ),
        200,
    )
    now = api.game(gid, "alice")
    assert now["state"]["units"]["r2"]["hex"] == "D2"
    events = api.events(gid, "alice")
    moved = next(e for e in events if e["type"] == "UnitMoved")
    assert moved["retracted"] and any(e["type"] == "Retracted" for e in events)
    assert ok(client.get(f"/api/games/{gid}/audit", headers=api.reader(None)), 200)["ok"]
    move_r2(api, gid, ["D3"])  # red may move the unit again
    assert api.game(gid, "alice")["state"]["units"]["r2"]["hex"] == "D3"


def test_the_game_says_whose_latest_orders_may_be_taken_back(api: ApiHelper, client: Any) -> None:
    """``takeback_offer``: the side whose latest commands a take back may ask for, and their seqs
    (what ``POST /takebacks`` would accept), or None: the page offers the button only then."""
    gid = api.create_game("skirmish", "meeting", SIDES)["id"]
    assert api.game(gid, "alice")["takeback_offer"] is None  # nobody has given an order yet
    accepted = "Game.CommandAccepted"
    moved = move_r2(api, gid, ["D3", "D4", "D5", "D6"])
    seq = next(e["seq"] for e in moved["events"] if e["kind"] == accepted)
    assert api.game(gid, "bob")["takeback_offer"] == {"side": "red", "seqs": [seq]}
    ended = ok(api.command(gid, "alice", {"type": "end_phase"}))
    then = next(e["seq"] for e in ended["events"] if e["kind"] == accepted)
    assert api.game(gid, "alice")["takeback_offer"] == {"side": "red", "seqs": [seq, then]}
    attack = every(api.template(gid, "alice", "attack"))
    ok(api.command(gid, "alice", attack))
    assert api.game(gid, "alice")["takeback_offer"] is None  # dice were rolled
    r = client.post(f"/api/games/{gid}/takebacks", json={}, headers=api.user("alice"))
    assert r.status_code == 409


def test_a_takeback_declined_changes_nothing(api: ApiHelper, client: Any) -> None:
    gid = api.create_game("skirmish", "meeting", SIDES)["id"]
    move_r2(api, gid, ["D3", "D4"])
    ok(client.post(f"/api/games/{gid}/takebacks", json={}, headers=api.user("alice")))
    ok(
        client.post(
            f"/api/games/{gid}/takebacks/answer", json={"accept": False}, headers=api.user("bob")
        ),
        200,
    )
    assert api.game(gid, "alice")["state"]["units"]["r2"]["hex"] == "D4"
    assert not any(e["retracted"] for e in api.events(gid, "alice"))


def test_no_takeback_after_dice_or_once_the_opponent_acted(api: ApiHelper, client: Any) -> None:
    gid = api.create_game("skirmish", "meeting", SIDES)["id"]
    move_r2(api, gid, ["D3", "D4", "D5", "D6"])
    ok(api.command(gid, "alice", {"type": "end_phase"}))
    attack = every(api.template(gid, "alice", "attack"))
    ok(api.command(gid, "alice", attack))
    r = client.post(f"/api/games/{gid}/takebacks", json={}, headers=api.user("alice"))
    assert r.status_code == 409 and "dice" in r.get_json()["message"]
    ok(api.command(gid, "alice", {"type": "end_phase"}))
    ok(api.command(gid, "bob", {"type": "end_phase"}))
    r = client.post(f"/api/games/{gid}/takebacks", json={}, headers=api.user("alice"))
    assert r.status_code == 409 and "opponent" in r.get_json()["message"]
    r = client.post(
        f"/api/games/{gid}/takebacks/answer", json={"accept": True}, headers=api.user("bob")
    )
    assert r.status_code == 409
    assert (
        client.post(
            f"/api/games/{gid}/takebacks", json={"from_seq": "x"}, headers=api.user("bob")
        ).status_code
        == 400
    )


def test_a_ladder_policy_may_forbid_takebacks(app: Flask, api: ApiHelper) -> None:
    api.user("alice")
    api.user("bob")
    svc = app.extensions["arbiter"]
    alice = svc.users.by_name("alice")
    game = svc.games.create(
        system="skirmish",
        scenario="meeting",
        sides=SIDES,
        creator=alice,
        labels={"takeback_policy": "never"},
    )
    move_r2(api, str(game.id), ["D3"])
    r = api.client.post(f"/api/games/{game.id}/takebacks", json={}, headers=api.user("alice"))
    assert r.status_code == 403 and "not allowed" in r.get_json()["message"]


def play_to_an_attack(api: ApiHelper, gid: str) -> dict[str, Any]:
    move_r2(api, gid, ["D3", "D4", "D5", "D6"])
    ok(api.command(gid, "alice", {"type": "end_phase"}))
    attack = every(api.template(gid, "alice", "attack"))
    return ok(api.command(gid, "alice", attack))


def test_only_players_dispute_and_only_arbiters_resolve(
    app: Flask, api: ApiHelper, client: Any
) -> None:
    gid = api.create_game("skirmish", "meeting", SIDES)["id"]
    moved = move_r2(api, gid, ["D3", "D4"])
    seq = next(e["seq"] for e in moved["events"] if e["type"] == "UnitMoved")
    api.user("mallory")
    r = client.post(
        f"/api/games/{gid}/disputes", json={"seq": seq, "claim": "bad"}, headers=api.user("mallory")
    )
    assert r.status_code == 404  # a stranger to a private game: it is not there for them
    r = client.post(
        f"/api/games/{gid}/disputes",
        json={"seq": seq, "claim": "bad", "citations": ["no-such-entry"]},
        headers=api.user("bob"),
    )
    assert r.status_code == 422 and "citations" in r.get_json()["details"]
    assert (
        client.post(
            f"/api/games/{gid}/disputes", json={"claim": "bad"}, headers=api.user("bob")
        ).status_code
        == 400
    )
    dispute = open_dispute(api, gid, seq, "the road does not reach D4")
    url = f"/api/games/{gid}/disputes/{dispute}/resolution"
    body = {"verdict": "upheld", "citations": [RULING]}
    assert client.post(url, json=body, headers=api.user("alice")).status_code == 403  # a player
    assert (
        client.post(url, json=body, headers=api.user("mallory")).status_code == 404
    )  # not an arbiter: a stranger to the private game
    arbiter = make_arbiter(app, api)
    assert client.post(url, json={"verdict": "upheld"}, headers=arbiter).status_code == 400
    assert (
        client.post(
            url, json={"verdict": "overturned", "citations": [RULING]}, headers=arbiter
        ).status_code
        == 422
    )
    before = api.game(gid)["version"]
    result = ok(client.post(url, json=body, headers=arbiter))
    assert result["verdict"] == "upheld" and result["citations"][0]["id"] == RULING
    assert len(result["citations"][0]["text_hash"]) == 64
    # the verdict, and the digest of the what-if it was decided on (issue 28)
    assert api.game(gid)["version"] == before + 2
    assert client.post(url, json=body, headers=arbiter).status_code == 409  # already resolved
    listed = ok(client.get(f"/api/games/{gid}/disputes", headers=api.reader(None)), 200)
    assert listed[0]["status"] == "upheld" and listed[0]["resolution"]["arbiter"] == "carol"


def test_an_open_dispute_pauses_the_game_when_the_setting_says_so(
    app: Flask, api: ApiHelper, client: Any
) -> None:
    api.user("alice")
    api.user("bob")
    svc = app.extensions["arbiter"]
    game = svc.games.create(
        system="skirmish",
        scenario="meeting",
        sides=SIDES,
        creator=svc.users.by_name("alice"),
        labels={"pause_on_dispute": True},
    )
    gid = str(game.id)
    moved = move_r2(api, gid, ["D3"])
    seq = moved["events"][-1]["seq"]
    opened = ok(
        client.post(
            f"/api/games/{gid}/disputes", json={"seq": seq, "claim": "no"}, headers=api.user("bob")
        )
    )
    assert opened["paused"]
    r = api.command(gid, "alice", {"type": "end_phase"})
    assert r.status_code == 409 and "paused" in r.get_json()["message"]
    arbiter = make_arbiter(app, api)
    ok(
        client.post(
            f"/api/games/{gid}/disputes/{opened['dispute']}/resolution",
            json={"verdict": "upheld", "citations": [RULING]},
            headers=arbiter,
        )
    )
    ok(api.command(gid, "alice", {"type": "end_phase"}))


def test_overturn_with_rewind_retracts_everything_from_the_disputed_event(
    app: Flask, api: ApiHelper, client: Any
) -> None:
    gid = api.create_game("skirmish", "meeting", SIDES)["id"]
    first = move_r2(api, gid, ["D3", "D4"])
    disputed = next(e["seq"] for e in first["events"] if e["type"] == "UnitMoved")
    ok(api.command(gid, "alice", {"type": "move", "unit": "r1", "path": ["C3"]}))
    dispute = open_dispute(api, gid, disputed, "illegal")
    arbiter = make_arbiter(app, api)
    result = ok(
        client.post(
            f"/api/games/{gid}/disputes/{dispute}/resolution",
            json={
                "verdict": "overturned",
                "remedy": "rewind",
                "citations": [RULING, faq_entry(api)],
            },
            headers=arbiter,
        )
    )
    assert result["report"] == []
    state = api.game(gid, "alice")["state"]
    assert state["units"]["r2"]["hex"] == "D2" and state["units"]["r1"]["hex"] == "C2"
    events = {e["seq"]: e for e in api.events(gid, "alice")}
    # rewind retracts the whole command that caused the disputed event, and all after it
    assert events[disputed - 1]["type"] == "CommandAccepted" and events[disputed - 1]["retracted"]
    assert events[disputed]["retracted"] and not events[1]["retracted"]
    assert not any(
        e["retracted"] for e in events.values() if e["type"] in ("DisputeOpened", "DisputeResolved")
    )
    assert ok(client.get(f"/api/games/{gid}/audit", headers=api.reader(None)), 200)["ok"]


def test_overturn_with_rebase_keeps_the_later_legal_commands(
    app: Flask, api: ApiHelper, client: Any
) -> None:
    gid = api.create_game("skirmish", "meeting", SIDES)["id"]
    disputed = next(
        e["seq"] for e in move_r2(api, gid, ["D3", "D4"])["events"] if e["type"] == "UnitMoved"
    )
    ok(
        api.command(gid, "alice", {"type": "move", "unit": "r1", "path": ["C3"]})
    )  # still legal after
    ok(api.command(gid, "alice", {"type": "end_phase"}))
    dispute = open_dispute(api, gid, disputed, "illegal")
    arbiter = make_arbiter(app, api)
    result = ok(
        client.post(
            f"/api/games/{gid}/disputes/{dispute}/resolution",
            json={"verdict": "overturned", "remedy": "rebase", "citations": [RULING]},
            headers=arbiter,
        )
    )
    assert [(r["command"], r["status"]) for r in result["report"]] == [
        ("move", "kept"),
        ("end_phase", "kept"),
    ]
    game = api.game(gid, "alice")
    assert (
        game["state"]["units"]["r2"]["hex"] == "D2" and game["state"]["units"]["r1"]["hex"] == "C3"
    )
    assert game["phase"]["phase"] == "combat"
    actions = ok(client.get(f"/api/games/{gid}/audit/actions", headers=api.reader(None)), 200)
    assert [a["origin"] for a in actions if a["action"] == "command" and not a["retracted"]][
        -2:
    ] == [r["origin"] for r in result["report"]]
    assert ok(client.get(f"/api/games/{gid}/audit", headers=api.reader(None)), 200)["ok"]


def test_rebase_rerolls_with_new_indexes_and_drops_what_became_illegal(
    app: Flask, api: ApiHelper, client: Any
) -> None:
    gid = api.create_game("skirmish", "meeting", SIDES)["id"]
    first_move = move_r2(api, gid, ["D3", "D4", "D5", "D6"])
    disputed = next(e["seq"] for e in first_move["events"] if e["type"] == "UnitMoved")
    ok(api.command(gid, "alice", {"type": "end_phase"}))
    attack = every(api.template(gid, "alice", "attack"))
    attacked = ok(api.command(gid, "alice", attack))
    old_index = next(e for e in attacked["events"] if e["type"] == "DiceRolled")["payload"][
        "rolls"
    ][0]["index"]
    dispute = open_dispute(api, gid, disputed, "too far")
    result = ok(
        client.post(
            f"/api/games/{gid}/disputes/{dispute}/resolution",
            json={"verdict": "overturned", "remedy": "rebase", "citations": [RULING]},
            headers=make_arbiter(app, api),
        )
    )
    statuses = [(r["command"], r["status"]) for r in result["report"]]
    assert statuses[0] == ("end_phase", "kept")
    assert (
        statuses[1][0] == "attack" and statuses[1][1] == "dropped"
    )  # r2 is no longer next to the enemy
    dice = ok(client.get(f"/api/games/{gid}/dice", headers=api.reader(None)), 200)
    assert dice["ok"] and dice["reused_indexes"] == [] and old_index == 0


def test_a_club_ruling_is_searchable_and_returned_with_later_events(
    app: Flask, api: ApiHelper, client: Any
) -> None:
    gid = api.create_game("skirmish", "meeting", SIDES)["id"]
    disputed = next(
        e["seq"] for e in move_r2(api, gid, ["D3", "D4"])["events"] if e["type"] == "UnitMoved"
    )
    dispute = open_dispute(api, gid, disputed, "road")
    ruling = {
        "heading": "Road movement at the Crossroads",
        "text": "A unit entering the Crossroads by road pays the road rate even from a hill hexside.",
        "rule_refs": ["S4.1"],
        "event_types": ["UnitMoved"],
    }
    result = ok(
        client.post(
            f"/api/games/{gid}/disputes/{dispute}/resolution",
            json={"verdict": "upheld", "citations": [RULING], "club_ruling": ruling},
            headers=make_arbiter(app, api),
        )
    )
    assert result["club_ruling"]
    kb = app.extensions["arbiter"].knowledge.kb
    found = kb.search("crossroads road rate hill hexside", limit=5)
    assert found[0]["kind"] == "club-ruling" and found[0]["heading"] == ruling["heading"]
    moved = ok(api.command(gid, "alice", {"type": "move", "unit": "r1", "path": ["C3"]}))
    later = next(e["seq"] for e in moved["events"] if e["type"] == "UnitMoved")
    rulings = ok(
        client.get(f"/api/games/{gid}/events/{later}/rulings", headers=api.reader(None)), 200
    )
    assert rulings["related"][0]["heading"] == ruling["heading"]
    assert rulings["sections"] == ["S4.1", "S4.2", "S5.1", "S6.1"]


def test_audit_views_and_state_diff(api: ApiHelper, client: Any) -> None:
    gid = api.create_game("skirmish", "meeting", SIDES)["id"]
    moved = move_r2(api, gid, ["D3", "D4"])
    diff = ok(
        client.get(
            f"/api/games/{gid}/audit/diff",
            query_string={"from": 1, "to": moved["version"]},
            headers=api.reader(None),
        ),
        200,
    )
    assert {"path": "units.r2.hex", "before": "D2", "after": "D4"} in diff["changes"]
    actions = ok(
        client.get(
            f"/api/games/{gid}/audit/actions",
            query_string={"side": "red"},
            headers=api.reader(None),
        ),
        200,
    )
    assert actions[0]["user"] == "alice" and actions[0]["command"]["unit"] == "r2"
    assert actions[0]["effects"][0]["type"] == "UnitMoved"
    assert (
        client.get(
            f"/api/games/{gid}/audit/diff", query_string={"from": 1}, headers=api.reader(None)
        ).status_code
        == 400
    )


def test_rules_index_rebuild_keeps_club_rulings_from_the_log(
    app: Flask, api: ApiHelper, client: Any, monkeypatch: Any
) -> None:
    """The index is only a cache: `arbiter rules index` re-adds the club rulings from the event log."""
    from click.testing import CliRunner

    from service.cli import main

    gid = api.create_game("skirmish", "meeting", SIDES)["id"]
    seq = move_r2(api, gid, ["D3"])["events"][-1]["seq"]
    dispute = open_dispute(api, gid, seq, "x")
    ruling = {
        "heading": "Fords of the Mill",
        "text": "The fords of the Mill stream are clear terrain.",
        "event_types": ["UnitMoved"],
    }
    ok(
        client.post(
            f"/api/games/{gid}/disputes/{dispute}/resolution",
            json={"verdict": "upheld", "citations": [RULING], "club_ruling": ruling},
            headers=make_arbiter(app, api),
        )
    )
    config = app.extensions["arbiter"].config
    for key, value in {
        "ARBITER_VAR": str(config.var_dir),
        "ARBITER_SECRET_KEY": config.secret_key,
        "ARBITER_PLUGINS": "tests.fixtures.skirmish",
    }.items():
        monkeypatch.setenv(key, value)
    result = CliRunner().invoke(main, ["rules", "index"])
    assert result.exit_code == 0, result.output
    found = CliRunner().invoke(main, ["rules", "search", "fords of the mill stream", "--json"])
    assert json.loads(found.output)[0]["heading"] == "Fords of the Mill"


def test_a_command_after_a_roll_may_still_be_taken_back(api: ApiHelper, client: Any) -> None:
    """Only the commands that rolled dice (or revealed something) and those before them are locked."""
    gid = api.create_game("skirmish", "meeting", SIDES)["id"]
    play_to_an_attack(api, gid)
    ended = ok(api.command(gid, "alice", {"type": "end_phase"}))
    r = client.post(f"/api/games/{gid}/takebacks", json={}, headers=api.user("alice"))
    assert ok(r)["takeback"]["from_seq"] == ended["events"][0]["seq"]
    r = client.post(f"/api/games/{gid}/takebacks", json={"from_seq": 2}, headers=api.user("alice"))
    assert r.status_code == 422 and "from_seq" in r.get_json()["details"]  # not one of the latest
    assert (
        client.post(f"/api/games/{gid}/takebacks", json={}, headers=api.user("alice")).status_code
        == 409
    )
    ok(
        client.post(
            f"/api/games/{gid}/takebacks/answer", json={"accept": True}, headers=api.user("bob")
        ),
        200,
    )
    game = api.game(gid, "alice")
    assert game["active_sides"] == ["red"] and game["phase"]["phase"] == "combat"


def test_the_queue_names_the_disputed_event_in_words(
    app: Flask, api: ApiHelper, client: Any
) -> None:
    gid = api.create_game("skirmish", "meeting", SIDES)["id"]
    seq = next(
        e["seq"] for e in move_r2(api, gid, ["D3", "D4"])["events"] if e["type"] == "UnitMoved"
    )
    ok(
        client.post(
            f"/api/games/{gid}/disputes",
            json={"seq": seq, "claim": "no road"},
            headers=api.user("bob"),
        )
    )
    queue = ok(client.get("/api/disputes/queue", headers=make_arbiter(app, api)), 200)
    assert queue[0]["event"] == {
        "seq": seq,
        "type": "UnitMoved",
        "text": "2nd Foot moves from D2 to Crossroads (D4) for 1 MP",
        "side": "red",
    }  # along the road
    assert queue[0]["paused"] is False and queue[0]["by"] == "bob"
    mine = client.get(
        "/api/games", query_string={"mine": "true"}, headers=api.user("alice")
    ).get_json()
    assert (
        list(mine[0]["disputes"].values())[0]["status"] == "open" and mine[0]["paused_by"] is None
    )
    assert client.get("/api/disputes/queue").status_code == 401


def test_a_dispute_needs_a_live_game_event_a_claim_and_no_open_twin(
    api: ApiHelper, client: Any
) -> None:
    gid = api.create_game("skirmish", "meeting", SIDES)["id"]
    moved = move_r2(api, gid, ["D3", "D4"])
    seq = next(e["seq"] for e in moved["events"] if e["type"] == "UnitMoved")
    url, bob = f"/api/games/{gid}/disputes", api.user("bob")

    def dispute(at: int, claim: str = "wrong") -> Any:
        return client.post(url, json={"seq": at, "claim": claim}, headers=bob)

    r = dispute(seq + 50)
    assert r.status_code == 422 and "seq" in r.get_json()["details"]  # no such event
    r = dispute(seq, "   ")
    assert r.status_code == 422 and "claim" in r.get_json()["details"]
    open_dispute(api, gid, seq, "the road does not reach D4")
    r = dispute(seq)
    assert r.status_code == 409 and "already under dispute" in r.get_json()["message"]
    r = dispute(api.game(gid)["version"])  # the DisputeOpened event itself
    assert r.status_code == 422 and "bookkeeping" in r.get_json()["message"]


def test_a_dispute_of_a_retracted_event_is_refused(api: ApiHelper, client: Any) -> None:
    gid = api.create_game("skirmish", "meeting", SIDES)["id"]
    moved = move_r2(api, gid, ["D3", "D4"])
    seq = next(e["seq"] for e in moved["events"] if e["type"] == "UnitMoved")
    ok(client.post(f"/api/games/{gid}/takebacks", json={}, headers=api.user("alice")))
    ok(
        client.post(
            f"/api/games/{gid}/takebacks/answer", json={"accept": True}, headers=api.user("bob")
        ),
        200,
    )
    r = client.post(
        f"/api/games/{gid}/disputes", json={"seq": seq, "claim": "wrong"}, headers=api.user("bob")
    )
    assert r.status_code == 409 and "retracted" in r.get_json()["message"]


def test_a_takeback_is_answered_once_and_only_by_the_opponent(api: ApiHelper, client: Any) -> None:
    gid = api.create_game("skirmish", "meeting", SIDES)["id"]
    move_r2(api, gid, ["D3", "D4"])
    ask, answer = f"/api/games/{gid}/takebacks", f"/api/games/{gid}/takebacks/answer"
    r = client.post(answer, json={"accept": True}, headers=api.user("bob"))
    assert r.status_code == 409 and "takeback" in r.get_json()["details"]  # nothing pending
    ok(client.post(ask, json={}, headers=api.user("alice")))
    r = client.post(ask, json={}, headers=api.user("alice"))
    assert r.status_code == 409 and "already pending" in r.get_json()["message"]
    r = client.post(answer, json={"accept": True}, headers=api.user("alice"))
    assert r.status_code == 403 and "opponent" in r.get_json()["message"]


def test_an_upheld_event_takes_no_remedy(app: Flask, api: ApiHelper, client: Any) -> None:
    gid = api.create_game("skirmish", "meeting", SIDES)["id"]
    moved = move_r2(api, gid, ["D3", "D4"])
    seq = next(e["seq"] for e in moved["events"] if e["type"] == "UnitMoved")
    dispute = open_dispute(api, gid, seq, "the road does not reach D4")
    r = client.post(
        f"/api/games/{gid}/disputes/{dispute}/resolution",
        json={"verdict": "upheld", "remedy": "rewind", "citations": [RULING]},
        headers=make_arbiter(app, api),
    )
    assert r.status_code == 422 and "remedy" in r.get_json()["details"]
