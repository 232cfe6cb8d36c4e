"""Club events (tournaments) through the HTTP API: a 6-player Swiss of 5 rounds played by
resignations and draws, a 4-player double round robin, the arbiter's results after a deadline, and
bad input refused with nothing written (issue 30)."""

from __future__ import annotations

from collections import Counter
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from tests.support.api import ApiHelper

SIX = ("bob", "cat", "dan", "eve", "fay", "gus")


def ok(response: Any, status: int = 200) -> Any:
    assert response.status_code == status, response.get_json()
    return response.get_json()


def refused(response: Any, status: int, field: str) -> dict[str, Any]:
    body = response.get_json()
    assert response.status_code == status, body
    assert field in body["details"], body
    return body


@pytest.fixture
def club(api: ApiHelper) -> dict[str, Any]:
    body = ok(
        api.client.post("/api/clubs", json={"name": "Swiss Club"}, headers=api.user("ann")), 201
    )
    for name in (*SIX, "hal"):
        api.user(name)
        api.admit(
            f"/api/clubs/{body['id']}/members",
            {"username": name, "roles": ["player"]},
            api.user("ann"),
        )
    return body


def create(api: ApiHelper, club: dict[str, Any], **spec: Any) -> dict[str, Any]:
    body = {"name": "Autumn", "system": "skirmish", "scenario": "meeting"} | spec
    return ok(
        api.client.post(f"/api/clubs/{club['id']}/events", json=body, headers=api.user("ann")),
        201,
    )


def event(api: ApiHelper, eid: str, who: str = "ann") -> dict[str, Any]:
    return ok(api.client.get(f"/api/events/{eid}", headers=api.user(who)))


def started(api: ApiHelper, game: dict[str, Any]) -> None:
    """A paired game is under way at once: joining the event was the players' consent (issue 51,
    finding 9: the event said "being played" while the game waited for two acceptances)."""
    for name in game["sides"].values():
        assert api.game(game["game"], name)["status"] == "active"
        r = api.client.post(f"/api/games/{game['game']}/accept", headers=api.user(name))
        assert r.status_code == 409, r.get_json()  # no invitation to accept


def finish(api: ApiHelper, game: dict[str, Any], how: str) -> None:
    """``red``/``blue``: that side wins (the other resigns); ``draw``: agreed."""
    red, blue = game["sides"]["red"], game["sides"]["blue"]
    gid = game["game"]
    if how == "draw":
        ok(
            api.client.post(
                f"/api/games/{gid}/draw", json={"action": "offer"}, headers=api.user(red)
            )
        )
        ok(
            api.client.post(
                f"/api/games/{gid}/draw", json={"action": "accept"}, headers=api.user(blue)
            )
        )
    else:
        loser = blue if how == "red" else red
        ok(api.client.post(f"/api/games/{gid}/resign", json={}, headers=api.user(loser)))


def by_hand(rounds: list[dict[str, Any]], players: list[str]) -> dict[str, dict[str, float]]:
    """Points 2/1/0 (a bye: 2), Buchholz (the opponents' points) and Sonneborn-Berger (beaten
    opponents' points plus half the drawn ones'), computed straight from the rounds."""
    games = []
    points = dict.fromkeys(players, 0.0)
    for rnd in rounds:
        if rnd["bye"]:
            points[rnd["bye"]] += 2
        for g in rnd["games"]:
            red, blue, winner = g["sides"]["red"], g["sides"]["blue"], g["result"]["winner"]
            games.append((red, blue, winner))
            if winner is None:
                points[red] += 1
                points[blue] += 1
            else:
                points[red if winner == "red" else blue] += 2
    out = {}
    for p in players:
        bh = sb = 0.0
        for red, blue, winner in games:
            if p not in (red, blue):
                continue
            opp, mine = (blue, "red") if p == red else (red, "blue")
            bh += points[opp]
            sb += points[opp] * (1.0 if winner == mine else 0.5 if winner is None else 0.0)
        out[p] = {"points": points[p], "buchholz": bh, "sonneborn_berger": sb}
    return out


def test_a_six_player_swiss_of_five_rounds(api: ApiHelper, club: dict[str, Any]) -> None:
    body = create(api, club, format="swiss", rounds=5, round_days=7)
    eid = body["id"]
    assert body["status"] == "open" and body["scoring"] == {
        "win": 2,
        "draw": 1,
        "loss": 0,
        "bye": 2,
    }
    for name in SIX[:5]:
        ok(api.client.post(f"/api/events/{eid}/join", headers=api.user(name)), 201)
    ok(
        api.client.post(
            f"/api/events/{eid}/players", json={"username": "gus"}, headers=api.user("ann")
        ),
        201,
    )
    listed = ok(api.client.get(f"/api/clubs/{club['id']}/events"))
    assert [e["id"] for e in listed] == [eid]
    body = ok(api.client.post(f"/api/events/{eid}/start", headers=api.user("ann")), 201)
    assert body["status"] == "started" and len(body["rounds"]) == 1
    outcomes = ("red", "blue", "draw")
    met: set[frozenset[str]] = set()
    for number in range(1, 6):
        rnd = body["rounds"][number - 1]
        assert rnd["number"] == number and rnd["bye"] is None and len(rnd["games"]) == 3
        for i, game in enumerate(rnd["games"]):
            pair = frozenset(game["sides"].values())
            assert pair not in met, f"a rematch in round {number}: {sorted(pair)}"
            met.add(pair)
            started(api, game)
            finish(api, game, outcomes[(number + i) % 3])
        if number < 5:
            # the admin's writing request records the results of the games that ended
            body = ok(
                api.client.post(f"/api/events/{eid}/rounds", json={}, headers=api.user("ann")), 201
            )
    api.work()  # the worker records the last round's results
    body = event(api, eid, "bob")
    assert body["status"] == "finished"
    assert all(g["state"] == "scored" for r in body["rounds"] for g in r["games"])
    # every player's count of each side differs by at most one
    counts: dict[str, Counter[str]] = {p: Counter() for p in SIX}
    for rnd in body["rounds"]:
        for g in rnd["games"]:
            for side, name in g["sides"].items():
                counts[name][side] += 1
    for p in SIX:
        assert abs(counts[p]["red"] - counts[p]["blue"]) <= 1, (p, counts[p])
    expected = by_hand(body["rounds"], list(SIX))
    rows = body["standings"]
    assert sorted(r["player"] for r in rows) == sorted(SIX)
    for row in rows:
        assert row["sides"] == {
            "red": counts[row["player"]]["red"],
            "blue": counts[row["player"]]["blue"],
        }
        want = expected[row["player"]]
        assert (row["points"], row["buchholz"], row["sonneborn_berger"]) == (
            want["points"],
            want["buchholz"],
            want["sonneborn_berger"],
        ), row["player"]
    keys = [(-r["points"], -r["buchholz"], -r["sonneborn_berger"]) for r in rows]
    assert keys == sorted(keys)  # rank order: points, Buchholz, Sonneborn-Berger
    assert sum(r["points"] for r in rows) == 15 * 2  # 15 games, each worth 2 points
    # a finished event releases nothing more; the notices told the players
    refused(
        api.client.post(f"/api/events/{eid}/rounds", json={}, headers=api.user("ann")), 409, "event"
    )
    notices = ok(api.client.get("/api/me/notifications?limit=100", headers=api.user("bob")))
    texts = [n["text"] for n in notices["notifications"] if n["kind"] == "event"]
    assert any("Round 1 of “Autumn”" in t for t in texts), texts
    # the pairing started the game: nobody is asked to accept it (issue 51, finding 9)
    assert not any("invitation" in t for t in texts), texts
    assert any("the game has started" in t for t in texts if t.startswith("Round 1")), texts
    assert any("has ended" in t for t in texts), texts


def test_a_double_round_robin_plays_each_pair_on_both_sides(
    api: ApiHelper, club: dict[str, Any]
) -> None:
    eid = create(api, club, format="round_robin", double=True, name="Winter")["id"]
    for name in SIX[:4]:
        ok(api.client.post(f"/api/events/{eid}/join", headers=api.user(name)), 201)
    body = ok(api.client.post(f"/api/events/{eid}/start", headers=api.user("ann")), 201)
    assert len(body["rounds"]) == 6 and all(len(r["games"]) == 2 for r in body["rounds"])
    seen: Counter[tuple[str, str]] = Counter()
    for rnd in body["rounds"]:
        for game in rnd["games"]:
            seen[(game["sides"]["red"], game["sides"]["blue"])] += 1
    for a in SIX[:4]:
        for b in SIX[:4]:
            if a != b:
                assert seen[(a, b)] == 1, (a, b)  # each pair once with each side
    # all released at once: the games are played in any order
    for rnd in reversed(body["rounds"]):
        for game in rnd["games"]:
            started(api, game)
            finish(api, game, "red")
    api.work()
    body = event(api, eid)
    assert body["status"] == "finished"
    for row in body["standings"]:
        assert row["sides"] == {"red": 3, "blue": 3}
        assert row["points"] == 6 and row["buchholz"] is None  # each won its three red games


def test_the_arbiter_records_a_result_after_the_deadline(
    api: ApiHelper, club: dict[str, Any]
) -> None:
    svc = api.client.application.extensions["arbiter"]
    eid = create(api, club, format="swiss", rounds=2, round_days=3)["id"]
    for name in SIX[:3]:
        ok(api.client.post(f"/api/events/{eid}/join", headers=api.user(name)), 201)
    body = ok(api.client.post(f"/api/events/{eid}/start", headers=api.user("ann")), 201)
    rnd = body["rounds"][0]
    assert rnd["bye"] == "dan"  # the lowest-ranked player without a bye
    game = rnd["games"][0]
    # the side counts are of the games released, at every moment: played or not yet
    counts = {r["player"]: r["sides"] for r in body["standings"]}
    assert counts[game["sides"]["red"]] == {"red": 1, "blue": 0}
    assert counts[game["sides"]["blue"]] == {"red": 0, "blue": 1}
    assert counts["dan"] == {"red": 0, "blue": 0}
    result = {"game": game["game"], "winner": "blue", "kind": "forfeit"}
    # before the deadline the game is still played
    refused(
        api.client.post(f"/api/events/{eid}/results", json=result, headers=api.user("ann")),
        409,
        "game",
    )
    refused(
        api.client.post(f"/api/events/{eid}/rounds", json={}, headers=api.user("ann")),
        409,
        "rounds",
    )
    # near the deadline the worker warns the players
    later = datetime.now(UTC) + timedelta(days=2, hours=12)
    assert svc.tournaments.check_deadlines(later) == 1
    api.work()
    notices = ok(api.client.get("/api/me/notifications?limit=100", headers=api.user("bob")))
    assert any("goes to the club's arbiter" in n["text"] for n in notices["notifications"])
    svc.tournaments.clock = lambda: datetime.now(UTC) + timedelta(days=4)
    # only a club arbiter records it
    refused(
        api.client.post(f"/api/events/{eid}/results", json=result, headers=api.user("bob")),
        403,
        "event",
    )
    stranger = {"game": "0" * 32, "winner": "blue", "kind": "forfeit"}
    refused(
        api.client.post(f"/api/events/{eid}/results", json=stranger, headers=api.user("ann")),
        422,
        "game",
    )
    purple = result | {"winner": "purple"}
    refused(
        api.client.post(f"/api/events/{eid}/results", json=purple, headers=api.user("ann")),
        400,
        "winner",
    )
    walkover = result | {"kind": "walkover"}  # neither forfeit nor adjudication
    said = refused(
        api.client.post(f"/api/events/{eid}/results", json=walkover, headers=api.user("ann")),
        400,
        "kind",
    )
    assert "forfeit" in str(said["details"]["kind"]) and "adjudication" in str(said["details"])
    refused(
        api.client.post(
            f"/api/events/{eid}/rounds", json={"results": [walkover]}, headers=api.user("ann")
        ),
        400,
        "results.0.kind",
    )
    forced = {"results": [stranger]}
    refused(
        api.client.post(f"/api/events/{eid}/rounds", json=forced, headers=api.user("ann")),
        422,
        "results.0.game",
    )
    assert event(api, eid)["rounds"][0]["overdue"] is True
    body = ok(
        api.client.post(f"/api/events/{eid}/results", json=result, headers=api.user("ann")), 201
    )
    scored = body["rounds"][0]["games"][0]
    assert scored["result"] == {"winner": "blue", "source": "forfeit"}
    # the game itself ends with that result: no one plays on in a game the event has scored
    red = game["sides"]["red"]
    ended = api.game(game["game"], red)
    assert ended["status"] == "ended"
    assert ended["result"] == {
        "winner": "blue",
        "outcome": "win",
        "level": "forfeit",
        "reason": "forfeit",
        "loser": "red",
    }
    refused(
        api.client.post(f"/api/games/{game['game']}/resign", json={}, headers=api.user(red)),
        409,
        "game",
    )
    log = ok(api.client.get(f"/api/games/{game['game']}/events?limit=100", headers=api.user(red)))
    kinds = [e["type"] for e in log["events"]]
    assert kinds[-2:] == ["Adjudicated", "GameEnded"], kinds
    # ... and a second result for it is refused (the event's and the game's both stand)
    refused(
        api.client.post(f"/api/events/{eid}/results", json=result, headers=api.user("ann")),
        409,
        "game",
    )
    winner = game["sides"]["blue"]
    assert next(r for r in body["standings"] if r["player"] == winner)["points"] == 2
    assert next(r for r in body["standings"] if r["player"] == "dan")["points"] == 2  # the bye
    body = ok(api.client.post(f"/api/events/{eid}/rounds", json={}, headers=api.user("ann")), 201)
    assert body["rounds"][1]["bye"] != "dan"  # one bye each while others have none


def test_bad_input_is_refused_and_writes_nothing(api: ApiHelper, club: dict[str, Any]) -> None:
    url = f"/api/clubs/{club['id']}/events"
    base = {
        "name": "Spring",
        "system": "skirmish",
        "scenario": "meeting",
        "format": "swiss",
        "rounds": 3,
    }
    refused(api.client.post(url, json=base, headers=api.user("bob")), 403, "club")  # not an admin
    refused(
        api.client.post(url, json=base | {"format": "knockout"}, headers=api.user("ann")),
        400,
        "format",
    )
    refused(
        api.client.post(url, json=base | {"rounds": None}, headers=api.user("ann")), 400, "rounds"
    )
    refused(
        api.client.post(url, json=base | {"scenario": "nowhere"}, headers=api.user("ann")),
        422,
        "scenario",
    )
    refused(
        api.client.post(
            url, json=base | {"scoring": {"win": 1, "draw": 2}}, headers=api.user("ann")
        ),
        400,
        "scoring",
    )
    bad_options = base | {"options": {"turns": "abc", "nope": 1}}
    body = refused(
        api.client.post(url, json=bad_options, headers=api.user("ann")), 400, "options.turns"
    )
    assert "options.nope" in body["details"]
    assert ok(api.client.get(url)) == []
    eid = create(api, club, **base)["id"]
    ok(api.client.post(f"/api/events/{eid}/join", headers=api.user("bob")), 201)
    api.user("zed")  # not a member of the club
    refused(api.client.post(f"/api/events/{eid}/join", headers=api.user("zed")), 403, "event")
    refused(
        api.client.post(
            f"/api/events/{eid}/players", json={"username": "zed"}, headers=api.user("ann")
        ),
        422,
        "username",
    )
    refused(
        api.client.post(
            f"/api/events/{eid}/players", json={"username": "cat"}, headers=api.user("bob")
        ),
        403,
        "event",
    )
    refused(api.client.post(f"/api/events/{eid}/join", headers=api.user("bob")), 409, "username")
    # three rounds without a rematch cannot be paired for two players: refused, nothing written
    ok(api.client.post(f"/api/events/{eid}/join", headers=api.user("cat")), 201)
    ok(api.client.post(f"/api/events/{eid}/join", headers=api.user("dan")), 201)
    ok(api.client.delete(f"/api/events/{eid}/players/dan", headers=api.user("ann")))
    assert event(api, eid)["players"] == ["bob", "cat"]
    refused(api.client.post(f"/api/events/{eid}/start", headers=api.user("bob")), 403, "event")
    refused(api.client.post(f"/api/events/{eid}/start", headers=api.user("ann")), 422, "rounds")
    assert event(api, eid)["status"] == "open" and event(api, eid)["rounds"] == []
    ok(api.client.post(f"/api/events/{eid}/join", headers=api.user("dan")), 201)
    ok(api.client.post(f"/api/events/{eid}/join", headers=api.user("eve")), 201)
    ok(api.client.post(f"/api/events/{eid}/start", headers=api.user("ann")), 201)
    refused(api.client.post(f"/api/events/{eid}/join", headers=api.user("fay")), 409, "event")
    refused(
        api.client.delete(f"/api/events/{eid}/players/bob", headers=api.user("ann")), 409, "event"
    )
    refused(api.client.get("/api/events/not-an-event"), 404, "event")


def mill_ladder(api: ApiHelper, club: dict[str, Any]) -> Any:
    """The club's ladder of the skirmish's meeting, which an event may rate its games by."""
    return ok(
        api.client.post(
            f"/api/clubs/{club['id']}/ladders",
            json={"name": "Mill ladder", "system": "skirmish", "scenario": "meeting"},
            headers=api.user("ann"),
        ),
        201,
    )


def test_a_rated_event_feeds_the_clubs_ladder(api: ApiHelper, club: dict[str, Any]) -> None:
    ladder = mill_ladder(api, club)
    other = ok(
        api.client.post("/api/clubs", json={"name": "Other Club"}, headers=api.user("hal")), 201
    )
    foreign = ok(
        api.client.post(
            f"/api/clubs/{other['id']}/ladders",
            json={"name": "Their ladder", "system": "skirmish"},
            headers=api.user("hal"),
        ),
        201,
    )
    url = f"/api/clubs/{club['id']}/events"
    base = {"name": "Rated", "system": "skirmish", "scenario": "meeting", "format": "round_robin"}
    refused(
        api.client.post(url, json=base | {"ladder": foreign["id"]}, headers=api.user("ann")),
        422,
        "ladder",
    )
    refused(
        api.client.post(url, json=base | {"ladder": "nope"}, headers=api.user("ann")), 422, "ladder"
    )
    eid = create(api, club, **base | {"ladder": ladder["id"]})["id"]
    for name in SIX[:2]:
        ok(api.client.post(f"/api/events/{eid}/join", headers=api.user(name)), 201)
    body = ok(api.client.post(f"/api/events/{eid}/start", headers=api.user("ann")), 201)
    game = body["rounds"][0]["games"][0]
    assert api.game(game["game"], game["sides"]["red"])["labels"]["rated"] is True
    started(api, game)
    finish(api, game, "blue")
    api.work()
    body = event(api, eid)
    assert body["status"] == "finished" and body["ladder"] == ladder["id"]
    results = ok(api.client.get(f"/api/ladders/{ladder['id']}"))["recent_results"]
    assert [(r["winner"], r["source"]) for r in results] == [("blue", "game")]
    assert {r["sides"]["blue"] for r in results} == {game["sides"]["blue"]}


def test_a_rated_events_forfeit_ends_the_game_and_reaches_the_ladder(
    api: ApiHelper, club: dict[str, Any]
) -> None:
    """An arbiter's forfeit after the deadline is the game's result everywhere: the game ends
    (``Game.Adjudicated`` then ``Ended``), the event scores it, and the ladder that rates the event
    records it once (the worker that sees the game end records nothing more)."""
    svc = api.client.application.extensions["arbiter"]
    ladder = mill_ladder(api, club)
    base = {"name": "Rated", "format": "round_robin", "round_days": 3}
    eid = create(api, club, **base | {"ladder": ladder["id"]})["id"]
    for name in SIX[:2]:
        ok(api.client.post(f"/api/events/{eid}/join", headers=api.user(name)), 201)
    body = ok(api.client.post(f"/api/events/{eid}/start", headers=api.user("ann")), 201)
    game = body["rounds"][0]["games"][0]
    started(api, game)
    svc.tournaments.clock = lambda: datetime.now(UTC) + timedelta(days=4)
    result = {"game": game["game"], "winner": "red", "kind": "forfeit", "note": "blue never moved"}
    ok(api.client.post(f"/api/events/{eid}/results", json=result, headers=api.user("ann")), 201)
    api.work()
    assert api.game(game["game"], game["sides"]["red"])["result"]["reason"] == "forfeit"
    body = event(api, eid)
    assert body["status"] == "finished"
    results = ok(api.client.get(f"/api/ladders/{ladder['id']}"))["recent_results"]
    assert [(r["winner"], r["level"]) for r in results] == [("red", "forfeit")]
    assert results[0]["sides"]["red"] == game["sides"]["red"]


def test_a_club_runs_at_most_its_limit_of_events_at_once(
    api: ApiHelper, club: dict[str, Any]
) -> None:
    """Every per-club growth is capped (docs/events.md): the club's 21st event not finished is
    refused with 409 limit_reached naming the club, and nothing is written."""
    from service.domain.tournaments import RUNNING_PER_CLUB

    for n in range(RUNNING_PER_CLUB):
        create(api, club, name=f"Event {n}", format="round_robin")
    url = f"/api/clubs/{club['id']}/events"
    body = {"name": "One more", "system": "skirmish", "scenario": "meeting", "format": "swiss"}
    body["rounds"] = 3
    answer = refused(api.client.post(url, json=body, headers=api.user("ann")), 409, "club")
    assert answer["error"] == "limit_reached"
    listed = ok(api.client.get(url, query_string={"limit": 100}))
    assert len(listed) == RUNNING_PER_CLUB and "One more" not in [e["name"] for e in listed]


def test_an_event_that_loses_a_race_leaves_no_game_behind(
    api: ApiHelper, club: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A round's games are stored with the event in one commit: when the event's save loses a
    race (another admin changed it meanwhile), no game of the round is left as an invitation."""
    from service.domain.errors import Conflict
    from service.domain.game import Game
    from service.domain.tournaments import Tournament

    svc = api.client.application.extensions["arbiter"]
    eid = create(api, club, format="round_robin")["id"]
    for name in SIX[:4]:
        ok(api.client.post(f"/api/events/{eid}/join", headers=api.user(name)), 201)
    commit = svc.store.commit
    stored: list[Any] = []

    def racing(*aggregates: Any, **kwargs: Any) -> Any:
        if any(isinstance(a, Tournament) for a in aggregates):
            stored.extend(a for a in aggregates if isinstance(a, Game))
            raise kwargs.get("conflict") or Conflict("lost", {"event": ["changed meanwhile"]})
        return commit(*aggregates, **kwargs)

    monkeypatch.setattr(svc.store, "commit", racing)
    refused(api.client.post(f"/api/events/{eid}/start", headers=api.user("ann")), 409, "event")
    monkeypatch.setattr(svc.store, "commit", commit)
    assert len(stored) == 6  # the round robin's games were in the refused commit ...
    for game in stored:  # ... and none of them is on the server
        assert api.client.get(f"/api/games/{game.id}", headers=api.user("ann")).status_code == 404
    body = ok(api.client.post(f"/api/events/{eid}/start", headers=api.user("ann")), 201)
    assert sum(len(r["games"]) for r in body["rounds"]) == 6


def test_an_arbiter_who_plays_the_game_may_not_decide_it(
    api: ApiHelper, club: dict[str, Any]
) -> None:
    """The club's arbiter plays in the event: a forfeit of their own game is a 403 naming
    ``arbiter``, and nothing is written (the event's result and the game stay as they were)."""
    svc = api.client.application.extensions["arbiter"]
    eid = create(api, club, format="round_robin", round_days=3)["id"]
    for name in ("ann", "bob"):
        ok(api.client.post(f"/api/events/{eid}/join", headers=api.user(name)), 201)
    body = ok(api.client.post(f"/api/events/{eid}/start", headers=api.user("ann")), 201)
    game = body["rounds"][0]["games"][0]
    svc.tournaments.clock = lambda: datetime.now(UTC) + timedelta(days=4)
    mine = {"game": game["game"], "winner": "red", "kind": "forfeit"}
    refused(
        api.client.post(f"/api/events/{eid}/results", json=mine, headers=api.user("ann")),
        403,
        "arbiter",
    )
    assert event(api, eid)["rounds"][0]["games"][0]["result"] is None
    assert api.game(game["game"], "bob")["status"] != "ended"
