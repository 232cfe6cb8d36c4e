"""A game's life through the HTTP API (issue 17): invitations, a correspondence clock that runs only
for the side to play, a declined draw offer, resignation into the ladder standings and the archive;
open games (seeks); club games; and the bad input the issue lists, each refused naming its field
with nothing written."""

from __future__ import annotations

import time
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from service.app import create_app
from service.config import Config
from tests.support.api import ApiHelper

DAY = 86400.0
CLOCK = {"kind": "per-turn", "days": 3, "vacation_days": 7}


def ok(r: Any, status: int = 200) -> Any:
    assert r.status_code == status, (r.status_code, r.get_json())
    return r.get_json()


def refused(r: Any, status: int, field: str) -> dict[str, Any]:
    body = r.get_json()
    assert r.status_code == status, (r.status_code, body)
    assert field in body["details"], (field, body)
    return body


def post(api: ApiHelper, path: str, user: str, body: dict[str, Any] | None = None) -> Any:
    return api.client.post(path, json=body or {}, headers=api.user(user))


@pytest.fixture
def ladder(api: ApiHelper) -> dict[str, Any]:
    club = ok(post(api, "/api/clubs", "ann", {"name": "Mill Club"}), 201)
    for name in ("alice", "bob", "carol"):
        api.user(name)
        api.admit(f"/api/clubs/{club['id']}/members", {"username": name}, "ann")
    body = {"name": "Mill ladder", "system": "skirmish", "scenario": "meeting"}
    made = ok(post(api, f"/api/clubs/{club['id']}/ladders", "ann", body), 201)
    for name in ("alice", "bob"):
        ok(post(api, f"/api/ladders/{made['id']}/players", name), 201)
    return made | {"club_id": club["id"]}


def invite(api: ApiHelper, creator: str = "alice", **extra: Any) -> dict[str, Any]:
    api.user("bob")
    body = {
        "system": "skirmish",
        "scenario": "meeting",
        "sides": {"red": "alice", "blue": "bob"},  # naming bob makes an invitation by default
        **extra,
    }
    return ok(post(api, "/api/games", creator, body), 201)


def end_phase(api: ApiHelper, game_id: str, user: str) -> None:
    ok(api.command(game_id, user, {"type": "end_phase"}), 201)


def clock_of(api: ApiHelper, game_id: str) -> dict[str, Any]:
    clock: dict[str, Any] = api.game(game_id, "alice")["clock"]
    return clock


def test_invite_accept_play_clock_draw_declined_resign_standings_archive(
    api: ApiHelper, ladder: dict[str, Any], config: Config
) -> None:
    game = invite(api, ladder=ladder["id"], clock=CLOCK)
    gid = game["id"]
    assert game["status"] == "invited" and game["invitation"]["pending"] == ["bob"]
    assert game["labels"]["ladder"] == ladder["id"] and game["labels"]["clock"]["days"] == 3
    # nothing can be played before bob accepts, and the clock does not run
    refused(api.command(gid, "alice", {"type": "end_phase"}), 409, "game")
    assert clock_of(api, gid)["running"] == []
    # bob sees the invitation, and only bob
    waiting = ok(api.client.get("/api/games?invited=true", headers=api.user("bob")))
    assert [g["id"] for g in waiting] == [gid]
    assert ok(api.client.get("/api/games?invited=true", headers=api.user("carol"))) == []

    accepted = ok(post(api, f"/api/games/{gid}/accept", "bob"))
    assert accepted["status"] == "active" and accepted["invitation"]["accepted"] == ["bob"]
    assert accepted["active_sides"] == ["red"]

    # red's turn: alice's clock runs, bob's stands at the full allowance
    time.sleep(0.2)
    clock = clock_of(api, gid)
    assert clock["running"] == ["red"]
    assert clock["sides"]["blue"]["remaining_seconds"] == 3 * DAY
    assert 3 * DAY - 60 < clock["sides"]["red"]["remaining_seconds"] < 3 * DAY
    end_phase(api, gid, "alice")  # movement
    end_phase(api, gid, "alice")  # combat: blue's turn now
    assert api.game(gid, "alice")["active_sides"] == ["blue"]
    time.sleep(0.2)
    first = clock_of(api, gid)
    time.sleep(0.2)
    second = clock_of(api, gid)
    assert first["running"] == ["blue"] and second["running"] == ["blue"]
    # alice's clock stands still while bob plays; bob's runs
    assert first["sides"]["red"]["remaining_seconds"] == second["sides"]["red"]["remaining_seconds"]
    assert second["sides"]["blue"]["remaining_seconds"] < 3 * DAY
    assert (
        second["sides"]["blue"]["remaining_seconds"] <= first["sides"]["blue"]["remaining_seconds"]
    )

    # alice offers a draw, bob declines it
    offered = ok(post(api, f"/api/games/{gid}/draw", "alice", {"action": "offer"}))
    assert offered["draw_offer"] == {"side": "red", "by": "alice"}
    declined = ok(post(api, f"/api/games/{gid}/draw", "bob", {"action": "decline"}))
    assert declined["draw_offer"] is None and declined["status"] == "active"

    # bob resigns: alice wins, the seed is revealed, the ladder standings move
    before = ok(api.client.get(f"/api/ladders/{ladder['id']}/standings"))["standings"]
    ended = ok(post(api, f"/api/games/{gid}/resign", "bob"))
    assert ended["status"] == "ended"
    assert ended["result"] == {
        "winner": "red",
        "outcome": "win",
        "level": "resignation",
        "reason": "resignation",
        "loser": "blue",
    }
    assert ended["dice"]["seed"] and ended["clock"]["running"] == []
    kinds = [e["type"] for e in api.events(gid, "alice", limit=1000)]
    assert kinds[:3] == ["GameCreated", "Invited", "InvitationAccepted"]
    assert kinds[-4:] == ["DrawOffered", "DrawDeclined", "Resigned", "GameEnded"]
    assert ok(api.client.get(f"/api/ladders/{ladder['id']}/standings"))["standings"] == before
    api.work()  # the worker's step rates the game (a GET only reads)
    after = ok(api.client.get(f"/api/ladders/{ladder['id']}/standings"))["standings"]
    rating = {row["username"]: row["rating"] for row in after}
    assert rating["alice"] > rating["bob"], after
    assert before != after
    history = ok(api.client.get(f"/api/ladders/{ladder['id']}/history/bob"))
    assert history, "bob's rating history holds the resigned game"

    # the archive lists it; the game replays move by move at any version
    archive = ok(api.client.get("/api/games?status=ended", headers=api.user("alice")))
    assert [g["id"] for g in archive] == [gid] and archive[0]["result"]["reason"] == "resignation"
    at_start = api.game(gid, "alice", version=3)  # a ladder game: its club reads it
    assert at_start["status"] == "active" and at_start["active_sides"] == ["red"]

    # the profile shows the game, the club and the rating history
    profile = ok(api.client.get("/api/users/bob/profile", headers=api.user("bob")))
    assert profile["games"][0]["id"] == gid and profile["record"]["lost"] == 1
    assert [c["name"] for c in profile["clubs"]] == ["Mill Club"]
    assert profile["ladders"][0]["history"] and profile["ladders"][0]["rating"] < 1500

    # a replay of the log (a second app on the same store) gives the same clock and result
    replayed_app = create_app(config)
    try:
        again = (
            replayed_app.test_client()
            .get(f"/api/games/{gid}", headers=api.user("alice"))  # the same store, same token
            .get_json()
        )
    finally:
        replayed_app.extensions["arbiter"].close()
    assert again["clock"]["sides"] == ended["clock"]["sides"]
    assert again["result"] == ended["result"]


def test_a_declined_invitation_never_starts(api: ApiHelper) -> None:
    gid = invite(api)["id"]
    declined = ok(post(api, f"/api/games/{gid}/decline", "bob"))
    assert declined["status"] == "declined" and declined["result"] is None
    assert declined["invitation"]["declined"] == "bob"
    refused(post(api, f"/api/games/{gid}/accept", "bob"), 409, "game")
    refused(post(api, f"/api/games/{gid}/resign", "alice"), 409, "game")
    assert (
        ok(api.client.get("/api/games?status=declined", headers=api.reader(None)))[0]["id"] == gid
    )


def test_naming_another_player_always_asks_them_and_a_hot_seat_game_starts_at_once(
    api: ApiHelper, client: FlaskClient
) -> None:
    game = invite(api)  # no "invite" in the body: the behaviour is the default
    assert game["status"] == "invited" and game["invitation"]["pending"] == ["bob"]
    refused(api.command(game["id"], "alice", {"type": "end_phase"}), 409, "game")
    # nobody may put another user into a game without asking: "invite": false is refused
    games = len(ok(client.get("/api/games", headers=api.reader(None))))
    body = {"system": "skirmish", "scenario": "meeting", "sides": {"red": "alice", "blue": "bob"}}
    refused(post(api, "/api/games", "alice", {**body, "invite": False}), 403, "invite")
    refused(post(api, "/api/games", "carol", {**body, "invite": False}), 403, "invite")
    assert len(ok(client.get("/api/games", headers=api.reader(None)))) == games
    # every side the creator's own (hot seat): active at once, with or without "invite"
    for extra in ({}, {"invite": False}, {"invite": True}):
        own = {**body, "sides": {"red": "alice", "blue": "alice"}, **extra}
        solo = ok(post(api, "/api/games", "alice", own), 201)
        assert solo["status"] == "active" and solo["version"] == 1, extra
        assert solo["invitation"] is None, extra
        ok(api.command(solo["id"], "alice", {"type": "end_phase"}, expected_version=1), 201)
    # a game the creator does not play asks every named player; it starts after the last accept
    other = ok(post(api, "/api/games", "carol", body), 201)
    assert other["status"] == "invited" and sorted(other["invitation"]["pending"]) == [
        "alice",
        "bob",
    ]
    assert ok(post(api, f"/api/games/{other['id']}/accept", "alice"))["status"] == "invited"
    started = ok(post(api, f"/api/games/{other['id']}/accept", "bob"))
    assert started["status"] == "active" and started["active_sides"] == ["red"]


def test_bad_input_is_refused_naming_the_field_and_writes_nothing(
    api: ApiHelper, client: FlaskClient
) -> None:
    gid = invite(api)["id"]
    api.user("carol")
    version = api.game(gid)["version"]
    # accepting someone else's invitation (carol is not invited; alice created it)
    refused(post(api, f"/api/games/{gid}/accept", "carol"), 404, "game")  # not there for her
    refused(post(api, f"/api/games/{gid}/decline", "carol"), 404, "game")
    refused(post(api, f"/api/games/{gid}/accept", "alice"), 403, "user")
    assert api.game(gid)["version"] == version and api.game(gid)["status"] == "invited"
    ok(post(api, f"/api/games/{gid}/accept", "bob"))
    version = api.game(gid)["version"]
    # resigning a game you do not play
    refused(post(api, f"/api/games/{gid}/resign", "carol"), 404, "game")  # not there for her
    refused(post(api, f"/api/games/{gid}/resign", "alice", {"side": "blue"}), 403, "side")
    # offering a draw twice; answering your own offer; a draw action that does not exist
    ok(post(api, f"/api/games/{gid}/draw", "alice", {"action": "offer"}))
    version += 1
    refused(post(api, f"/api/games/{gid}/draw", "alice", {"action": "offer"}), 409, "draw")
    refused(post(api, f"/api/games/{gid}/draw", "alice", {"action": "accept"}), 403, "side")
    refused(post(api, f"/api/games/{gid}/draw", "bob", {"action": "maybe"}), 400, "action")
    # claiming and a vacation without a clock
    refused(post(api, f"/api/games/{gid}/claim", "bob"), 409, "claim")
    refused(post(api, f"/api/games/{gid}/vacation", "bob", {"days": 2}), 409, "vacation")
    assert api.game(gid)["version"] == version
    # a clock with negative time, an unknown kind, an unknown field
    games = len(ok(client.get("/api/games", headers=api.reader(None))))
    body = {"system": "skirmish", "scenario": "meeting", "sides": {"red": "alice", "blue": "bob"}}
    for clock, field in (
        ({"kind": "per-move", "days": -1}, "clock.days"),
        ({"kind": "per-move", "days": 0}, "clock.days"),
        ({"kind": "hourglass", "days": 2}, "clock.kind"),
        ({"kind": "per-move", "days": 2, "vacation_days": -3}, "clock.vacation_days"),
        ({"kind": "per-move", "days": 2, "bonus": 1}, "clock.bonus"),
    ):
        refused(post(api, "/api/games", "alice", body | {"clock": clock}), 400, field)
    refused(post(api, "/api/games", "alice", body | {"club": "No Such Club"}), 422, "club")
    assert len(ok(client.get("/api/games", headers=api.reader(None)))) == games


def test_a_timed_out_opponent_is_claimed_and_the_clock_check_is_idempotent(
    app: Flask, api: ApiHelper
) -> None:
    from datetime import UTC, datetime, timedelta

    svc = app.extensions["arbiter"]
    gid = invite(api, clock={"kind": "per-move", "days": 1, "vacation_days": 2})["id"]
    ok(post(api, f"/api/games/{gid}/accept", "bob"))
    end_phase(api, gid, "alice")
    end_phase(api, gid, "alice")  # blue to move: bob's day starts now
    # bob takes a day of vacation: his clock stands still for it
    on_leave = ok(post(api, f"/api/games/{gid}/vacation", "bob", {"days": 1}))
    assert on_leave["clock"]["sides"]["blue"]["on_vacation"] is True
    assert on_leave["clock"]["sides"]["blue"]["vacation_days_left"] == 1
    refused(post(api, f"/api/games/{gid}/vacation", "bob", {"days": 2}), 422, "days")
    refused(post(api, f"/api/games/{gid}/claim", "alice"), 409, "claim")  # still in time
    # one day later bob is still on vacation: nothing expires
    now = datetime.now(UTC)
    assert svc.lifecycle.expire_clocks(now + timedelta(days=1, hours=-1)) == []
    # two days and a bit later his day has run out: the expiry is recorded once
    late = now + timedelta(days=2, hours=1)
    assert svc.lifecycle.expire_clocks(late) == [gid]
    assert svc.lifecycle.expire_clocks(late) == []
    kinds = [e["type"] for e in api.events(gid, "alice", limit=1000)]
    assert kinds.count("ClockExpired") == 1 and kinds[-1] == "ClockExpired"
    # alice claims the game: bob loses on time
    svc.lifecycle.clock = lambda: late
    claimed = ok(post(api, f"/api/games/{gid}/claim", "alice"))
    assert claimed["result"]["winner"] == "red" and claimed["result"]["reason"] == "timeout"
    kinds = [e["type"] for e in api.events(gid, "alice", limit=1000)]
    assert kinds[-2:] == ["Claimed", "GameEnded"]


def test_forfeit_policy_ends_the_game_when_the_clock_runs_out(app: Flask, api: ApiHelper) -> None:
    from datetime import UTC, datetime, timedelta

    svc = app.extensions["arbiter"]
    gid = invite(api, clock={"kind": "per-move", "days": 1, "on_timeout": "forfeit"})["id"]
    ok(post(api, f"/api/games/{gid}/accept", "bob"))
    assert svc.lifecycle.expire_clocks(datetime.now(UTC) + timedelta(days=1, minutes=5)) == [gid]
    game = api.game(gid, "bob")
    assert game["status"] == "ended" and game["result"]["winner"] == "blue"
    assert game["result"]["reason"] == "timeout" and game["result"]["loser"] == "red"


def test_open_games_club_only_and_joined_at_once(api: ApiHelper, client: FlaskClient) -> None:
    club = ok(post(api, "/api/clubs", "ann", {"name": "Hex Club"}), 201)
    api.user("bob")
    api.admit(f"/api/clubs/{club['id']}/members", {"username": "bob"}, "ann")
    api.user("carol")
    open_all = ok(
        post(
            api, "/api/seeks", "ann", {"system": "skirmish", "scenario": "meeting", "side": "blue"}
        ),
        201,
    )
    members = ok(
        post(
            api,
            "/api/seeks",
            "ann",
            {"system": "skirmish", "scenario": "meeting", "club": club["id"]},
        ),
        201,
    )
    assert members["club_name"] == "Hex Club" and open_all["by"] == "ann"
    assert open_all["title"] == "Meeting at the Mill"
    # carol (no member) sees only the open one and may not join the club's
    seen = ok(client.get("/api/seeks", headers=api.user("carol")))
    assert [s["id"] for s in seen] == [open_all["id"]]
    refused(post(api, f"/api/seeks/{members['id']}/join", "carol"), 403, "seek")
    refused(post(api, f"/api/seeks/{open_all['id']}/join", "ann"), 409, "seek")
    # bob (a member) sees both and joins the club's: the game starts at once
    assert len(ok(client.get("/api/seeks", headers=api.user("bob")))) == 2
    game = ok(post(api, f"/api/seeks/{members['id']}/join", "bob"), 201)
    assert game["status"] == "active" and game["sides"] == {"red": "ann", "blue": "bob"}
    assert game["labels"]["club"] == club["id"]
    refused(post(api, f"/api/seeks/{members['id']}/join", "carol"), 409, "seek")
    assert [s["id"] for s in ok(client.get("/api/seeks", headers=api.user("bob")))] == [
        open_all["id"]
    ]
    joined = ok(post(api, f"/api/seeks/{open_all['id']}/join", "carol"), 201)
    assert joined["sides"] == {"red": "carol", "blue": "ann"}


def test_a_club_game_needs_members_and_its_arbiters_see_its_disputes(api: ApiHelper) -> None:
    club = ok(post(api, "/api/clubs", "ann", {"name": "Hex Club"}), 201)
    api.user("bob")
    body = {"system": "skirmish", "scenario": "meeting", "sides": {"red": "ann", "blue": "bob"}}
    refused(post(api, "/api/games", "ann", body | {"club": club["id"]}), 422, "sides")
    api.admit(f"/api/clubs/{club['id']}/members", {"username": "bob"}, "ann")
    game = ok(post(api, "/api/games", "ann", body | {"club": "Hex Club"}), 201)
    assert game["labels"]["club"] == club["id"] and game["labels"]["pause_on_dispute"] is True


def test_a_ladder_clock_is_the_default_of_its_games(api: ApiHelper, ladder: dict[str, Any]) -> None:
    path = f"/api/ladders/{ladder['id']}/settings"
    negative = {"clock": {"kind": "per-move", "days": -1}}
    bad = api.client.patch(path, json=negative, headers=api.user("ann"))
    assert bad.status_code == 400 and "settings.clock.days" in bad.get_json()["details"]
    five = {"clock": {"kind": "per-move", "days": 5}}
    ok(api.client.patch(path, json=five, headers=api.user("ann")))
    game = invite(api, ladder=ladder["id"])
    assert game["labels"]["clock"] == {
        "kind": "per-move",
        "days": 5,
        "vacation_days": 0,
        "on_timeout": "claim",
    }
    assert game["clock"]["sides"]["red"]["remaining_seconds"] == 5 * DAY
    # a game naming a player outside the ladder is refused, naming the sides
    api.user("carol")
    body = {"system": "skirmish", "scenario": "meeting", "sides": {"red": "alice", "blue": "carol"}}
    refused(post(api, "/api/games", "alice", body | {"ladder": ladder["id"]}), 422, "sides")


def test_a_ladder_game_always_asks_its_players(api: ApiHelper, ladder: dict[str, Any]) -> None:
    body = {"system": "skirmish", "scenario": "meeting", "sides": {"red": "alice", "blue": "bob"}}
    game = ok(post(api, "/api/games", "alice", body | {"ladder": ladder["id"]}), 201)
    assert game["status"] == "invited" and game["invitation"]["pending"] == ["bob"]
    # nobody makes a rated game for two others
    refused(post(api, "/api/games", "ann", body | {"ladder": ladder["id"]}), 422, "sides")


def test_the_arbiter_policy_puts_a_claim_before_the_clubs_arbiter(
    app: Flask, api: ApiHelper
) -> None:
    from datetime import UTC, datetime, timedelta

    svc = app.extensions["arbiter"]
    club = ok(post(api, "/api/clubs", "ann", {"name": "Hex Club"}), 201)  # ann: admin, arbiter
    for name in ("alice", "bob"):
        api.user(name)
        api.admit(f"/api/clubs/{club['id']}/members", {"username": name}, "ann")
    api.user("carol")
    clock = {"kind": "per-move", "days": 1, "on_timeout": "arbiter"}
    gid = invite(api, club=club["id"], clock=clock)["id"]
    ok(post(api, f"/api/games/{gid}/accept", "bob"))
    late = datetime.now(UTC) + timedelta(days=1, hours=1)
    assert svc.lifecycle.expire_clocks(late) == [gid]  # red (alice) ran out: recorded, not ended
    svc.lifecycle.clock = lambda: late
    claimed = ok(post(api, f"/api/games/{gid}/claim", "bob"))
    assert claimed["status"] == "active" and claimed["claim"] == {
        "side": "blue",
        "by": "bob",
        "against": "red",
    }
    # the game waits for the arbiter: no command, no second claim, no clock running
    refused(api.command(gid, "alice", {"type": "end_phase"}), 409, "game")
    refused(post(api, f"/api/games/{gid}/claim", "bob"), 409, "claim")
    assert claimed["clock"]["running"] == []
    # only the club's arbiter decides (not a player, not a stranger); the queue shows it to ann
    decision = f"/api/games/{gid}/claim/decision"
    refused(post(api, decision, "alice", {"decision": "forfeit"}), 403, "arbiter")
    refused(post(api, decision, "carol", {"decision": "forfeit"}), 404, "game")  # a stranger
    refused(post(api, decision, "ann", {"decision": "maybe"}), 400, "decision")
    waiting = ok(api.client.get("/api/games?claimed=true", headers=api.user("ann")))
    assert [g["id"] for g in waiting] == [gid]
    assert ok(api.client.get("/api/games?claimed=true", headers=api.user("carol"))) == []
    # the arbiter lets the game go on: red has a whole day again
    svc.lifecycle.clock = lambda: datetime.now(UTC)
    goes_on = ok(post(api, decision, "ann", {"decision": "continue", "note": "the post was down"}))
    assert goes_on["claim"] is None and goes_on["status"] == "active"
    assert goes_on["clock"]["sides"]["red"]["remaining_seconds"] > DAY - 60
    refused(post(api, f"/api/games/{gid}/claim", "bob"), 409, "claim")
    # red runs out again; this time the arbiter forfeits it
    assert svc.lifecycle.expire_clocks(datetime.now(UTC) + timedelta(days=1, hours=1)) == [gid]
    svc.lifecycle.clock = lambda: datetime.now(UTC) + timedelta(days=1, hours=1)
    ok(post(api, f"/api/games/{gid}/claim", "bob"))
    ended = ok(post(api, decision, "ann", {"decision": "forfeit"}))
    assert ended["status"] == "ended" and ended["result"]["reason"] == "timeout"
    assert ended["result"]["winner"] == "blue"
    kinds = [e["type"] for e in api.events(gid, "alice", limit=1000)]
    assert kinds[-3:] == ["Claimed", "ClaimDecided", "GameEnded"]
    assert kinds.count("ClockExpired") == 2


def test_a_clubs_policies_apply_to_its_games(api: ApiHelper) -> None:
    club = ok(post(api, "/api/clubs", "ann", {"name": "Hex Club"}), 201)
    assert club["policies"] == {
        "takeback": "always",
        "pause_on_dispute": True,
        "clock": None,
        "readings": {},  # the readings its new games start with (issue 28)
    }
    for name in ("alice", "bob"):
        api.user(name)
        api.admit(f"/api/clubs/{club['id']}/members", {"username": name}, "ann")
    path = f"/api/clubs/{club['id']}/policies"
    policies = {"takeback": "never", "clock": {"kind": "per-turn", "days": 4}}
    refused(api.client.patch(path, json=policies, headers=api.user("alice")), 403, "club")
    negative = {"clock": {"kind": "per-turn", "days": -4}}
    refused(
        api.client.patch(path, json=negative, headers=api.user("ann")), 400, "policies.clock.days"
    )
    assert ok(api.client.get(f"/api/clubs/{club['id']}"))["policies"]["clock"] is None
    changed = ok(api.client.patch(path, json=policies, headers=api.user("ann")))
    assert changed["policies"]["takeback"] == "never" and changed["policies"]["clock"]["days"] == 4
    # a club game follows them: no take backs, its clock, disputes pause it
    game = invite(api, club=club["id"], takeback="always")
    labels = game["labels"]
    assert labels["takeback_policy"] == "never" and labels["clock"]["kind"] == "per-turn"
    assert labels["pause_on_dispute"] is True
    ok(post(api, f"/api/games/{game['id']}/accept", "bob"))
    end_phase(api, game["id"], "alice")
    refused(post(api, f"/api/games/{game['id']}/takebacks", "alice"), 403, "takeback")
