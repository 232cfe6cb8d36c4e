"""Ladders on SQLite and PostgreSQL, with and without Redis: results recorded once whichever worker
sees a game end, a rebuild from the events giving identical figures, the Redis leaderboard updated
as results land and rebuilt from the events when Redis loses it."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

import pytest

from service.adapters.leaderboard import RedisLeaderboard
from service.application.services import Services
from service.bootstrap import build_services
from service.config import Config
from service.domain.ladders import LadderResult
from service.domain.users import User
from tests.support.services import redis_url

NAMES = ("ann", "bob", "cat", "dan", "eve", "fay")


def setup_ladder(svc: Services) -> tuple[str, dict[str, User]]:
    users = {n: svc.users.register(n, "correct horse") for n in NAMES}
    club = svc.clubs.create("Wargamers", users["ann"])
    for name in NAMES[1:]:
        svc.clubs.add_member("Wargamers", users["ann"], name, ["player"])
    ladder = svc.ladders.create(
        str(club.id),
        users["ann"],
        name="Mill",
        system="skirmish",
        scenario="meeting",
        settings={"challenge_range": 5},
    )
    for user in users.values():
        svc.ladders.join(str(ladder.id), user)
    return str(ladder.id), users


def play(svc: Services, game_id: Any, red_wins: bool) -> None:
    game = svc.games.get(game_id)
    red, blue = (svc.users.get(game.sides[s]) for s in ("red", "blue"))
    if red_wins:
        move = {"type": "move", "unit": "r2", "path": ["D3", "D4"]}
        svc.games.execute(game_id, red, move, expected_version=game.version)
    for user in (red, red, blue, blue):
        version = svc.games.get(game_id).version
        svc.games.execute(game_id, user, {"type": "end_phase"}, expected_version=version)
    assert svc.games.get(game_id).status == "ended"


def ladder_game(
    svc: Services, lid: str, users: dict[str, User], red_wins: bool = True, record: bool = True
) -> str:
    """A challenge played to the end; ``record``: then the worker's step records its result
    (requests only read results)."""
    rows = svc.ladders.standings(lid)["standings"]
    challenger, opponent = rows[-1]["username"], rows[-2]["username"]
    challenge = svc.ladders.challenge(
        lid, users[challenger], opponent, side="red", options={"turns": 1}
    )
    _done, game = svc.ladders.accept(str(challenge.id), users[opponent])
    play(svc, game.id, red_wins)
    if record:
        svc.ladders.record_results()
    return str(game.id)


def report(
    svc: Services, lid: str, users: dict[str, User], red: str, blue: str, winner: str | None
) -> None:
    done = svc.ladders.report(lid, users[red], sides={"red": red, "blue": blue}, winner=winner)
    svc.ladders.confirm(str(done.id), users[blue])


def figures(svc: Services, lid: str) -> dict[str, Any]:
    return {
        "standings": svc.ladders.standings(lid, limit=1000)["standings"],
        "history": {n: svc.ladders.history(lid, n) for n in NAMES},
        "sides": svc.ladders.side_adjustments(lid),
    }


def test_a_game_end_is_recorded_once_by_whichever_worker_sees_it(store_config: Config) -> None:
    first = build_services(store_config)
    lid, users = setup_ladder(first)
    second = build_services(store_config)
    second.ladders.feed.catch_up()  # both processes share the store's ladders view
    game_id = ladder_game(first, lid, users, record=False)
    # reading records nothing: neither worker's standings have it until one of them records it
    for svc in (first, second):
        assert sum(r["games"] for r in svc.ladders.standings(lid)["standings"]) == 0
    # both workers read the view up to the game's end, then both try to record the result: the
    # second's attempt hits the result's id (the game's) and is refused by the store
    first.ladders.feed.catch_up()
    second.ladders.feed.catch_up()
    pending_first, pending_second = first.ladders.feed.pending(), second.ladders.feed.pending()
    assert [g["game"] for g in pending_first] == [g["game"] for g in pending_second] == [game_id]
    second.ladders.feed.record(pending_second)
    first.ladders.feed.record(pending_first)
    first.ladders.feed.catch_up()
    second.ladders.feed.catch_up()
    for svc in (first, second):
        rows = svc.ladders.standings(lid)["standings"]
        assert sum(r["games"] for r in rows) == 2
    records = [
        n
        for n in first.store.recorder.select_notifications(start=1, limit=1000)
        if n.topic.endswith("LadderResult.Recorded")
    ]
    assert len(records) == 1
    result = first.store.repository.get(records[0].originator_id)
    assert isinstance(result, LadderResult) and result.source_id == game_id
    first.close()
    second.close()


def test_rebuild_from_scratch_gives_identical_figures(store_config: Config) -> None:
    svc = build_services(store_config)
    lid, users = setup_ladder(svc)
    ladder_game(svc, lid, users, red_wins=True)
    ladder_game(svc, lid, users, red_wins=False)
    report(svc, lid, users, "ann", "bob", "red")
    report(svc, lid, users, "cat", "dan", None)
    svc.ladders.change_settings(lid, users["ann"], {"rating_period_days": 1})
    report(svc, lid, users, "eve", "fay", "blue")
    before = figures(svc, lid)
    assert sum(r["games"] for r in before["standings"]) == 10
    progress: list[tuple[int, int]] = []
    summary = svc.ladders.rebuild(lambda at, total: progress.append((at, total)))
    assert summary == {"ladders": 1, "results": 5}
    assert progress and progress[-1][0] == progress[-1][1]
    assert figures(svc, lid) == before
    svc.close()
    fresh = build_services(store_config)  # a new worker: the same figures from the same events
    assert figures(fresh, lid) == before
    fresh.close()


@pytest.fixture
def redis_config(tmp_path: Any) -> Config:
    from tests.conftest import make_config

    return make_config(tmp_path, redis_url=redis_url())


def test_the_redis_board_follows_results_and_is_rebuilt_when_lost(redis_config: Config) -> None:
    svc = build_services(redis_config)
    lid, users = setup_ladder(svc)
    board = svc.ladders.feed.leaderboard
    assert isinstance(board, RedisLeaderboard)
    report(svc, lid, users, "ann", "bob", "red")
    from_redis = svc.ladders.standings(lid)
    assert from_redis["source"] == "redis"
    assert from_redis["standings"][0]["username"] == "ann"
    assert from_redis["standings"] == svc.ladders.feed.standings(lid)
    report(svc, lid, users, "cat", "ann", "red")  # cat beats ann: the board moves
    top = board.top(lid, 0, 2)
    assert top is not None and [r["username"] for r in top] == ["cat", "ann"]
    expected = svc.ladders.standings(lid)["standings"]

    board.client.flushdb()  # Redis loses everything
    assert board.top(lid, 0, 10) is None
    again = svc.ladders.standings(lid)
    assert again["source"] == "redis" and again["standings"] == expected
    # a further result after the loss reaches the board too
    report(svc, lid, users, "dan", "eve", "blue")
    assert {r["username"] for r in board.top(lid, 0, 100) or []} == set(NAMES)
    assert board.top(lid, 0, 1)[0]["username"] == svc.ladders.feed.standings(lid)[0]["username"]  # type: ignore[index]
    svc.close()


def test_a_worker_behind_never_overwrites_a_later_board(redis_config: Config) -> None:
    svc = build_services(redis_config)
    lid, users = setup_ladder(svc)
    report(svc, lid, users, "ann", "bob", "red")
    board = svc.ladders.feed.leaderboard
    assert board is not None
    position = board.position(lid)  # type: ignore[attr-defined]
    stale = [{"user": "x", "username": "x", "rating": 9999.0, "rd": 1.0}]
    assert board.write(lid, stale, position - 1, replace=True) is False
    assert board.write(lid, stale, position, replace=False) is False
    assert "x" not in {r["user"] for r in board.top(lid, 0, 100) or []}
    board.forget(lid)  # type: ignore[attr-defined]
    assert board.write(lid, stale, position + 1, replace=False) is None  # missing: write it whole
    svc.close()


def test_without_redis_or_with_redis_down_the_projection_serves(redis_config: Config) -> None:
    down = replace(redis_config, redis_url="redis://127.0.0.1:6399/0")
    svc = build_services(down)
    lid, users = setup_ladder(svc)
    report(svc, lid, users, "ann", "bob", "red")  # the board cannot be written; the result stands
    got = svc.ladders.standings(lid)
    assert got["source"] == "projection" and got["standings"][0]["username"] == "ann"
    svc.close()
    plain = build_services(replace(redis_config, redis_url=None))
    assert plain.ladders.standings(lid)["source"] == "projection"
    assert plain.ladders.standings(lid)["standings"] == got["standings"]
    plain.close()


LADDER_TABLES = {
    "ladder_standings": "ladder, user_id",
    "ladder_history": "ladder, user_id, period",
    "ladder_challenges": "id",
    "ladder_reports": "id",
    "ladder_results": "ladder, seq",
    "ladder_games": "game",
}


def view_rows(svc: Services) -> dict[str, list[dict[str, Any]]]:
    """Every row of the ladders' view, table by table, in key order."""
    view = svc.projections["ladders"].view
    rows = {
        name: view.query(f"SELECT * FROM {{{name}}} ORDER BY {key}")  # type: ignore[attr-defined]
        for name, key in LADDER_TABLES.items()
    }
    ladders = view.query("SELECT * FROM {ladders} ORDER BY id")  # type: ignore[attr-defined]
    for row in ladders:  # the rating table's state compared as data, not as its JSON's spelling
        row["state"] = json.loads(row["state"])
    rows["ladders"] = ladders
    return rows


def test_the_view_rebuilt_from_the_log_equals_the_view_kept_as_events_came(
    store_config: Config,
) -> None:
    """Results of games, reports and a forfeit, players joining and leaving, challenges open,
    declined and accepted, a settings change: every row of the view kept
    incrementally (each writing request reading its write, the worker's steps) equals the rows of
    the view rebuilt from the log (``arbiter projections rebuild ladders``)."""
    svc = build_services(store_config)
    lid, users = setup_ladder(svc)
    ladder_game(svc, lid, users, red_wins=True)
    ladder_game(svc, lid, users, red_wins=False)
    report(svc, lid, users, "ann", "bob", "red")
    report(svc, lid, users, "cat", "dan", None)
    rejected = svc.ladders.report(
        lid, users["eve"], sides={"red": "eve", "blue": "fay"}, winner="red"
    )
    svc.ladders.reject(str(rejected.id), users["fay"], "not so")
    rows = svc.ladders.standings(lid)["standings"]
    low, above = rows[-1]["username"], rows[-2]["username"]
    declined = svc.ladders.challenge(lid, users[low], above, side="red")
    svc.ladders.decline(str(declined.id), users[above], "busy")
    svc.ladders.challenge(lid, users[low], above, side="blue")  # left open
    svc.ladders.change_settings(lid, users["ann"], {"rating_period_days": 1})
    svc.ladders.leave(lid, users["fay"])
    svc.ladders.record_results()
    svc.projections.run()  # the worker's step: the view up to the log
    kept = view_rows(svc)
    shown = figures(svc, lid)
    challenges = svc.ladders.challenges(lid)
    assert len(kept["ladder_results"]) == 4 and len(kept["ladder_challenges"]) == 4
    assert {c["status"] for c in challenges} == {"accepted", "declined", "open"}
    assert "fay" not in {r["username"] for r in shown["standings"]}

    assert svc.projections.rebuild("ladders") > 0
    assert view_rows(svc) == kept
    assert figures(svc, lid) == shown
    assert svc.ladders.challenges(lid) == challenges
    svc.close()


def test_a_new_worker_answers_from_the_view_without_reading_the_log(
    store_config: Config, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A new service over a store with ladder history answers every ladder read by key from the
    view: it reads no notification of the log, whatever the history."""
    svc = build_services(store_config)
    lid, users = setup_ladder(svc)
    ladder_game(svc, lid, users, red_wins=True)
    report(svc, lid, users, "ann", "bob", "red")
    expected = figures(svc, lid)
    view = svc.ladders.view(lid)
    svc.close()

    fresh = build_services(store_config)
    read: list[Any] = []
    original = fresh.store.recorder.select_notifications

    def select_notifications(*args: Any, **kwargs: Any) -> Any:
        read.append((args, kwargs))
        return original(*args, **kwargs)

    monkeypatch.setattr(fresh.store.recorder, "select_notifications", select_notifications)
    assert figures(fresh, lid) == expected
    assert fresh.ladders.view(lid) == view
    assert fresh.ladders.of_player(users["ann"])[0]["me"]["username"] == "ann"
    assert [c["status"] for c in fresh.ladders.challenges(lid)] == ["accepted"]
    assert fresh.ladders.of_club("Wargamers")[0]["results"] == 2
    assert read == []  # nothing of the log was read to answer
    fresh.close()
