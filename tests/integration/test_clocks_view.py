"""The clocks view (issue 27), on a real SQLite file and PostgreSQL: the clock checks load only the
timed games due (a game written to since the last look, or whose deadline -- its running clock's
expiry or low warning, pushed on by vacations -- has come), each expiry at its deadline and not
before, each warning once; a move makes its game due again; a vacation moves the deadline, and a
warning due on vacation waits for its end; the arbiters' queue of claims on time reads the view's
claimed rows; the view equals its rebuild.  Time is injected (``check_clocks(now)``); the events'
own times are real."""

from __future__ import annotations

import random
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from flask import Flask

from service.config import Config
from service.domain.game import low_threshold
from service.views.games import GameQuery
from tests.conftest import app_of
from tests.support.api import ApiHelper

CLOCK = {"kind": "per-move", "days": 1}


@pytest.fixture
def app(store_config: Config, index_template: Path) -> Iterator[Flask]:
    with app_of(store_config, index_template) as application:
        yield application


@pytest.fixture
def api(app: Flask) -> ApiHelper:
    return ApiHelper(app.test_client())


def svc(api: ApiHelper) -> Any:
    app: Any = api.client.application
    return app.extensions["arbiter"]


def ok(r: Any, status: int = 200) -> Any:
    assert r.status_code == status, (r.status_code, r.get_json())
    return r.get_json()


def post(api: ApiHelper, path: str, user: str, body: dict[str, Any] | None = None) -> Any:
    return api.client.post(path, json=body or {}, headers=api.user(user))


def invite(api: ApiHelper, clock: dict[str, Any] | None = CLOCK, **extra: Any) -> str:
    api.user("bob")
    body = {"system": "skirmish", "scenario": "meeting", "sides": {"red": "alice", "blue": "bob"}}
    if clock is not None:
        body["clock"] = clock
    return str(ok(post(api, "/api/games", "alice", body | extra), 201)["id"])


def started(api: ApiHelper, clock: dict[str, Any] | None = CLOCK, **extra: Any) -> str:
    gid = invite(api, clock, **extra)
    ok(post(api, f"/api/games/{gid}/accept", "bob"))
    return gid


class Loads:
    """Counts the games the clock checks load (``GameService.get``)."""

    def __init__(self, services: Any, monkeypatch: pytest.MonkeyPatch) -> None:
        self.services = services
        self.seen: list[str] = []
        real = services.games.get

        def get(game_id: Any, *args: Any, **kwargs: Any) -> Any:
            self.seen.append(str(game_id))
            return real(game_id, *args, **kwargs)

        monkeypatch.setattr(services.games, "get", get)

    def check(self, at: datetime) -> tuple[set[str], set[str]]:
        """The games a check at ``at`` recorded something in, and the games it loaded."""
        self.seen.clear()
        touched = self.services.lifecycle.check_clocks(at)
        assert len(touched) == len(set(touched))
        return set(touched), set(self.seen)


def deadlines(services: Any, gid: str) -> tuple[datetime, datetime]:
    """The running clock's low warning and expiry, from the game's clock (no vacation)."""
    game = services.games.get(gid)
    [entry] = [e for e in game.clock["sides"].values() if e["since"] is not None]
    expiry = entry["since"] + entry["remaining"]
    low = expiry - low_threshold(game.labels["clock"])
    return datetime.fromtimestamp(low, UTC), datetime.fromtimestamp(expiry, UTC)


def kinds(api: ApiHelper, gid: str) -> list[str]:
    return [e["type"] for e in api.events(gid, "alice", limit=1000)]


def test_a_check_loads_only_the_games_due(api: ApiHelper, monkeypatch: pytest.MonkeyPatch) -> None:
    services = svc(api)
    timed = [started(api) for _ in range(4)]
    waiting = invite(api)  # bob has not accepted: no clock runs
    started(api, clock=None)  # no clock: never in the view
    loads = Loads(services, monkeypatch)
    now = datetime.now(UTC)
    view = services.projections["clocks"].view
    # the first look: every game the view holds is due (written to since the last look)
    assert loads.check(now) == (set(), {*timed, waiting})
    assert {r["game"] for r in view.every()} == {*timed, waiting}
    assert loads.check(now) == (set(), set())  # then nothing is due till a deadline
    assert view.row(waiting)["due"] is None
    # a move makes its game due again: red ends both phases, blue's clock runs
    for _ in range(2):
        ok(api.command(timed[0], "alice", {"type": "end_phase"}), 201)
    assert loads.check(now + timedelta(hours=1)) == (set(), {timed[0]})
    assert loads.check(now + timedelta(hours=1)) == (set(), set())
    due = {gid: deadlines(services, gid) for gid in timed}
    for gid, (low, _) in due.items():  # the warning's moment, in microseconds since the epoch
        assert abs(view.row(gid)["due"] - low.timestamp() * 1e6) <= 2
    # the warnings: not a second before, each once
    first_low = min(low for low, _ in due.values())
    last_low = max(low for low, _ in due.values())
    assert loads.check(first_low - timedelta(seconds=1)) == (set(), set())
    assert loads.check(last_low + timedelta(seconds=1)) == (set(timed), set(timed))
    assert loads.check(last_low + timedelta(seconds=2)) == (set(), set())
    for gid in timed:
        assert kinds(api, gid).count("ClockLow") == 1
    # the expiries: not a second before, each once, then no deadline is left
    first_out = min(out for _, out in due.values())
    last_out = max(out for _, out in due.values())
    assert loads.check(first_out - timedelta(seconds=1)) == (set(), set())
    assert loads.check(last_out + timedelta(seconds=1)) == (set(timed), set(timed))
    assert loads.check(last_out + timedelta(days=30)) == (set(), set())
    for gid in timed:
        assert kinds(api, gid).count("ClockExpired") == 1
        assert view.row(gid)["due"] is None  # expired under the claim policy: a player claims
    # bob accepts the waiting game: due at once, then its own deadline
    ok(post(api, f"/api/games/{waiting}/accept", "bob"))
    assert loads.check(datetime.now(UTC)) == (set(), {waiting})
    # a claim ends a game: out of the view
    services.lifecycle.clock = lambda: last_out + timedelta(seconds=1)
    ok(post(api, f"/api/games/{timed[1]}/claim", "bob"))
    assert loads.check(datetime.now(UTC) + timedelta(hours=1)) == (set(), set())
    assert timed[1] not in {r["game"] for r in view.every()}


def test_a_vacation_moves_the_deadline_and_a_warning_waits_for_its_end(
    api: ApiHelper, monkeypatch: pytest.MonkeyPatch
) -> None:
    services = svc(api)
    # low from the start (48 hours' warning on a one-day clock)
    gid = started(api, clock={"kind": "per-move", "days": 1, "vacation_days": 3, "low_hours": 48})
    _, expiry = deadlines(services, gid)
    ok(post(api, f"/api/games/{gid}/vacation", "alice", {"days": 1}))  # before the worker looked
    game = services.games.get(gid)
    [(start, back)] = game.clock["sides"]["red"]["vacations"]
    back_at = datetime.fromtimestamp(back, UTC)
    loads = Loads(services, monkeypatch)
    now = datetime.now(UTC)
    assert loads.check(now) == (set(), {gid})  # on vacation: no warning yet
    assert loads.check(back_at - timedelta(seconds=1)) == (set(), set())
    assert loads.check(back_at + timedelta(seconds=1)) == ({gid}, {gid})  # back: the warning
    assert kinds(api, gid)[-1] == "ClockLow"
    out = expiry + timedelta(days=1)  # a day of vacation charged nothing
    assert loads.check(out - timedelta(seconds=1)) == (set(), set())
    assert loads.check(out + timedelta(seconds=1)) == ({gid}, {gid})
    assert kinds(api, gid)[-1] == "ClockExpired"
    assert loads.check(out + timedelta(days=10)) == (set(), set())


def arbiter_club(api: ApiHelper) -> str:
    club = ok(post(api, "/api/clubs", "ann", {"name": "Hex Club"}), 201)  # ann: its arbiter
    for name in ("alice", "bob"):
        api.user(name)
        api.admit(f"/api/clubs/{club['id']}/members", {"username": name}, "ann")
    return str(club["id"])


def claims_by_loading_every_game(services: Any, user: str) -> list[str]:
    """The arbiters' queue as it was found before the view: every running timed game loaded."""
    who = services.users.by_name(user)
    found = []
    for row in services.index.every(GameQuery(everything=True, status="active", timed=True)):
        game = services.games.get(row["id"])
        if game.claim_pending is not None and services.lifecycle.may_decide_claim(game, who):
            found.append(row["id"])
    return found


def test_random_play_claims_and_the_view_equals_its_rebuild(api: ApiHelper) -> None:
    services = svc(api)
    lifecycle = services.lifecycle
    rnd = random.Random(27)
    club = arbiter_club(api)
    arbiter = {"kind": "per-move", "days": 1, "on_timeout": "arbiter", "vacation_days": 5}
    start = datetime.now(UTC)
    games: list[str] = []
    for n in range(14):
        clock = rnd.choice(
            [
                CLOCK | {"vacation_days": 3},
                arbiter,
                {"kind": "per-turn", "days": 2, "vacation_days": 3},
            ]
        )
        gid = invite(api, clock, **({"club": club} if rnd.random() < 0.6 else {}))
        games.append(gid)
        fate = rnd.random()
        if fate < 0.1:
            continue  # the invitation waits
        if fate < 0.2:
            ok(post(api, f"/api/games/{gid}/decline", "bob"))
            continue
        ok(post(api, f"/api/games/{gid}/accept", "bob"))
        if rnd.random() < 0.4:
            ok(api.command(gid, "alice", {"type": "end_phase"}), 201)
        if rnd.random() < 0.3:
            ok(post(api, f"/api/games/{gid}/vacation", "alice", {"days": rnd.randint(1, 2)}))
        if rnd.random() < 0.15:
            ok(post(api, f"/api/games/{gid}/resign", "bob"))
        lifecycle.check_clocks(start + timedelta(hours=n))
    # days later: red has run out in the games red still moves in; bob claims some
    late = start + timedelta(days=4)
    lifecycle.check_clocks(late)
    lifecycle.clock = lambda: late
    for gid in games:
        game = services.games.get(gid)
        if game.status == "active" and rnd.random() < 0.7:
            read = game.clock_at(late.timestamp())
            if read["sides"]["red"]["expired"]:
                ok(post(api, f"/api/games/{gid}/claim", "bob"))
    claimed = claims_by_loading_every_game(services, "ann")
    assert claimed, "the seed gives claims waiting for the arbiter"
    queue = ok(api.client.get("/api/games?claimed=true", headers=api.user("ann")))
    assert [g["id"] for g in queue] == claimed  # read your write: no worker ran
    assert ok(api.client.get("/api/games?claimed=true", headers=api.user("alice"))) == []
    site = ok(api.client.get("/api/games?claimed=true", headers=api.reader(None)))  # "referee"
    assert [g["id"] for g in site] == claims_by_loading_every_game(services, "referee") != []
    # the arbiter lets one go on: off the queue
    decision = f"/api/games/{claimed[0]}/claim/decision"
    ok(post(api, decision, "ann", {"decision": "continue"}))
    queue = ok(api.client.get("/api/games?claimed=true", headers=api.user("ann")))
    assert [g["id"] for g in queue] == claimed[1:] == claims_by_loading_every_game(services, "ann")
    lifecycle.check_clocks(late + timedelta(hours=1))
    # the view holds the timed games not over, and equals its rebuild (looked at once more)
    view = services.projections["clocks"].view
    live = view.every()
    assert {r["game"] for r in live} == {
        gid for gid in games if services.games.get(gid).status in ("active", "invited")
    }
    pending = [gid for gid in games if services.games.get(gid).claim_pending is not None]
    assert [r["game"] for r in live if r["claim"]] == sorted(pending)
    assert set(claimed[1:]) < set(pending)  # and some of no club, for a site arbiter
    services.projections.rebuild("clocks")
    assert all(r["due"] is not None for r in view.every())  # each due: its last event's time
    assert lifecycle.check_clocks(late + timedelta(hours=1)) == []
    assert view.every() == live
    assert services.projections["clocks"].status()["lag"] == 0
    assert len(live) > 5 and all(r["due"] is None or r["due"] > late.timestamp() for r in live)


def test_a_game_that_fails_to_load_is_left_a_minute_and_holds_up_no_other(
    api: ApiHelper, monkeypatch: pytest.MonkeyPatch
) -> None:
    services = svc(api)
    broken, fine = started(api), started(api)
    real = services.games.get

    def get(game_id: Any, *args: Any, **kwargs: Any) -> Any:
        if str(game_id) == broken:
            raise RuntimeError("a rules module that is not installed here")
        return real(game_id, *args, **kwargs)

    monkeypatch.setattr(services.games, "get", get)
    _, out = deadlines(services, fine)
    late = out + timedelta(seconds=1)  # both games ran out
    assert services.lifecycle.check_clocks(late) == [fine]  # the broken one first, by due
    loads = Loads(services, monkeypatch)
    assert loads.check(late + timedelta(seconds=59)) == (set(), set())
    assert loads.check(late + timedelta(seconds=61)) == (set(), {broken})  # tried again


def test_a_move_made_while_the_check_looks_wins_over_the_checks_deadline(
    api: ApiHelper, monkeypatch: pytest.MonkeyPatch
) -> None:
    services = svc(api)
    gid = started(api)
    view = services.projections["clocks"].view
    real = services.games.get
    raced: list[int] = []

    def get(game_id: Any, *args: Any, **kwargs: Any) -> Any:
        game = real(game_id, *args, **kwargs)
        if not raced:  # the check has read version v; a move lands and is projected meanwhile
            raced.append(game.version)
            ok(api.command(gid, "alice", {"type": "end_phase"}), 201)
            services.projections["clocks"].run()
        return game

    monkeypatch.setattr(services.games, "get", get)
    now = datetime.now(UTC) + timedelta(minutes=1)
    assert services.lifecycle.check_clocks(now) == []
    row = view.row(gid)
    assert raced and row["version"] > raced[0]  # the move's row, not the check's
    assert row["due"] <= now.timestamp() * 1e6  # still due: the next check looks again
    monkeypatch.setattr(services.games, "get", real)
    loads = Loads(services, monkeypatch)
    assert loads.check(now) == (set(), {gid})
    row = view.row(gid)
    assert row["version"] == services.games.get(gid).version and row["due"] > now.timestamp() * 1e6
