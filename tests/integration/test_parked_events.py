"""A view never stops the site (issue 44, finding 1), on a real SQLite file and PostgreSQL: an event
a view cannot take -- a ``Game.Created`` whose ``created_by`` is null, put straight into the log as
a bad import once did -- is parked (recorded with its error in the store's database, the view's
position past it) and the view goes on; a write request still answers with its commit; ``/healthz``
says ``degraded`` naming the view and the event; ``arbiter projections status`` lists it;
``arbiter projections parked retry`` takes it after a fix, ``drop`` does without it; a rebuild
parks it too instead of crashing."""

from __future__ import annotations

import copy
import json
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from eventsourcing.persistence import OperationalError, Tracking
from flask import Flask

from service.api import health as health_api
from service.cli import main
from service.config import Config
from service.domain.game import Game
from service.views.games import GamesView as GamesTables
from tests.conftest import app_of
from tests.support.api import ApiHelper


@pytest.fixture
def app(store_config: Config, index_template: Path) -> Iterator[Flask]:
    with app_of(store_config, index_template) as application:
        yield application


@pytest.fixture
def api(app: Flask) -> ApiHelper:
    return ApiHelper(app.test_client())


@pytest.fixture
def cli(store_config: Config, monkeypatch: pytest.MonkeyPatch) -> CliRunner:
    """``arbiter`` on the test's store (the operator's commands, another process's objects)."""
    env = {
        "ARBITER_STORE": store_config.store,
        "ARBITER_VAR": str(store_config.var_dir),
        "ARBITER_SECRET_KEY": store_config.secret_key,
        "ARBITER_PLUGINS": ",".join(store_config.plugins),
        "POSTGRES_DBNAME": store_config.postgres_dbname,
    }
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    return CliRunner()


def svc(api: ApiHelper) -> Any:
    app: Any = api.client.application
    return app.extensions["arbiter"]


def ok(r: Any, status: int = 200) -> Any:
    assert r.status_code == status, (r.status_code, r.get_json())
    return r.get_json()


def new_game(api: ApiHelper, by: str = "ann") -> dict[str, Any]:
    body = {"system": "skirmish", "scenario": "meeting", "sides": {"red": by, "blue": by}}
    return ok(api.client.post("/api/games", json=body, headers=api.user(by)), 201)  # type: ignore[no-any-return]


def poison(api: ApiHelper, count: int = 1) -> list[tuple[str, int]]:
    """``count`` ``Game.Created`` events of new games whose ``created_by`` is null, put straight
    into the log (as the record import of finding 1 did): the games view cannot take them (NOT
    NULL).  Each one's game id and position."""
    services = svc(api)
    model = new_game(api, "zed")
    created = next(iter(services.store.events.get(uuid.UUID(model["id"]), lte=1)))
    made = []
    for _ in range(count):
        bad = copy.copy(created)
        game_id = uuid.uuid4()
        object.__setattr__(bad, "originator_id", game_id)
        object.__setattr__(bad, "created_by", None)
        assert isinstance(bad, Game.Created)
        services.store.recorder.insert_events([services.store.mapper.to_stored_event(bad)])
        made.append((str(game_id), services.store.recorder.max_notification_id()))
    return made


def listed(api: ApiHelper, user: str) -> list[str]:
    return [g["id"] for g in ok(api.client.get("/api/games?limit=100", headers=api.user(user)))]


def fix_the_view(monkeypatch: pytest.MonkeyPatch) -> None:
    """The fix an operator deploys: a game of no creator is stored as created by nobody."""
    add_game = GamesTables.add_game

    def fixed(self: Any, row: dict[str, Any], players: Any, tracking: Tracking) -> None:
        add_game(self, row | {"created_by": row["created_by"] or ""}, players, tracking)

    monkeypatch.setattr(GamesTables, "add_game", fixed)


def test_a_bad_event_is_parked_and_the_site_goes_on(api: ApiHelper, cli: CliRunner) -> None:
    services = svc(api)
    runner = services.projections["games"]
    before = new_game(api)
    [(bad, position)] = poison(api)
    # the next game: its commit is the answer (the view parks the bad event on the way to it)
    after = new_game(api)
    assert {before["id"], after["id"]} <= set(listed(api, "ann"))
    assert runner.position() == services.store.recorder.max_notification_id() > position
    assert runner.view.row(bad) is None
    [parked] = services.projections.parked()
    assert parked["view"] == "games" and parked["position"] == position
    assert parked["event"] == f"Game.Created of {bad}, version 1"
    assert parked["originator_id"] == bad and parked["tries"] == 1
    assert parked["error"].startswith("IntegrityError: ") and "created_by" in parked["error"]
    # the worker's step and a later write go on past it
    services.projections.run()
    api.work()
    third = new_game(api, "bob")
    assert third["id"] in listed(api, "bob")
    assert len(services.projections.parked()) == 1
    # /healthz names the view and the event
    health = ok(api.client.get("/healthz"))
    assert health["status"] == "degraded" and "views_behind" not in health
    assert health["views_parked"] == [
        {"view": "games", "position": position, "event": f"Game.Created of {bad}, version 1"}
    ]
    assert "views_parked_more" not in health
    # `arbiter projections status` lists it, in words and as JSON
    table = cli.invoke(main, ["projections", "status"])
    assert table.exit_code == 0, table.output
    assert "1 event(s) parked" in table.output
    assert f"games at position {position}: Game.Created of {bad}, version 1" in table.output
    assert "created_by" in table.output
    status = cli.invoke(main, ["projections", "status", "--json"])
    assert status.exit_code == 0, status.output
    views = {v["name"]: v for v in json.loads(status.output)}
    assert [e["position"] for e in views["games"]["parked"]] == [position]
    assert views["games"]["parked"][0]["error"] == parked["error"]
    assert all(not v["parked"] for name, v in views.items() if name != "games")


def test_retry_after_a_fix_and_drop(
    api: ApiHelper, cli: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    services = svc(api)
    runner = services.projections["games"]
    (first, one), (second, two) = poison(api, 2)
    services.projections.run()
    assert [e["position"] for e in services.projections.parked()] == [one, two]
    with monkeypatch.context() as patch:  # /healthz names the first, says there are more
        patch.setattr(health_api, "PARKED_SHOWN", 1)
        shown = ok(api.client.get("/healthz"))
    assert [e["position"] for e in shown["views_parked"]] == [one] and shown["views_parked_more"]
    # no fix yet: it stays parked, tried twice, exit 1
    again = cli.invoke(main, ["projections", "parked", "retry", "games", "--position", str(one)])
    assert again.exit_code == 1 and "still parked" in again.output, again.output
    assert "1 of 1 event(s) still parked" in again.output
    assert [e["tries"] for e in services.projections.parked()] == [2, 1]
    # nothing parked there: an error naming it, nothing changed
    wrong = cli.invoke(main, ["projections", "parked", "retry", "games", "--position", "1"])
    assert wrong.exit_code == 2 and "no event parked at position 1" in wrong.output
    unknown = cli.invoke(main, ["projections", "parked", "retry", "nonsense"])
    assert unknown.exit_code == 2 and "no view 'nonsense'" in unknown.output
    # after the fix: taken, no longer parked, the view's position where it was
    fix_the_view(monkeypatch)
    position = runner.position()
    taken = cli.invoke(main, ["projections", "parked", "retry", "games", "--position", str(one)])
    assert taken.exit_code == 0, taken.output
    assert f"games at position {one}: Game.Created of {first}, version 1 taken" in taken.output
    assert runner.view.row(first) is not None and runner.position() == position
    assert [e["position"] for e in services.projections.parked()] == [two]
    assert ok(api.client.get("/healthz"))["status"] == "degraded"
    # drop: a reason is required; the record keeps who and why; /healthz is ok again
    bare = cli.invoke(main, ["projections", "parked", "drop", "games", "--position", str(two)])
    assert bare.exit_code == 2 and "--reason" in bare.output
    assert len(services.projections.parked()) == 1
    dropped = cli.invoke(
        main,
        ["projections", "parked", "drop", "games", "--reason", "a forged import", "--by", "ops"],
    )
    assert dropped.exit_code == 0, dropped.output
    assert f"games at position {two}: Game.Created of {second}, version 1 dropped by ops" in (
        dropped.output
    )
    assert services.projections.parked() == [] and runner.view.row(second) is None
    health = ok(api.client.get("/healthz"))
    assert health["status"] == "ok" and "views_parked" not in health
    status = cli.invoke(main, ["projections", "status", "--json"])
    games = next(v for v in json.loads(status.output) if v["name"] == "games")
    assert games["parked"] == []
    assert [(e["position"], e["dropped_by"], e["reason"]) for e in games["dropped"]] == [
        (two, "ops", "a forged import")
    ]
    nothing = cli.invoke(main, ["projections", "parked", "retry"])
    assert nothing.exit_code == 0 and "nothing is parked" in nothing.output


def test_a_rebuild_parks_instead_of_crashing(
    api: ApiHelper, cli: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    services = svc(api)
    runner = services.projections["games"]
    new_game(api)
    (bad, position), (dropped, other) = poison(api, 2)
    rebuilt = cli.invoke(main, ["projections", "rebuild", "games"])
    assert rebuilt.exit_code == 0, rebuilt.output
    assert "games: rebuilt from" in rebuilt.output
    assert f"games at position {position}: Game.Created of {bad}, version 1 (parked" in (
        rebuilt.output
    )
    # parked under the live view's name, the view at the head
    assert [e["position"] for e in services.projections.parked()] == [position, other]
    assert runner.position() == runner.status()["head"]
    rows = runner.view.rows()
    assert runner.view.drop_parked(other, "ops", "forged", "2026-01-01T00:00:00+00:00") == 1
    new_game(api, "bob")
    # rebuilt again: parked again, the dropped one stays dropped
    services.projections.rebuild("games")
    assert [e["position"] for e in services.projections.parked()] == [position]
    assert [e["position"] for e in services.projections.parked(dropped=True)] == [other]
    assert runner.view.rows() == rows + 1
    # after the fix, a rebuild takes them: nothing parked
    fix_the_view(monkeypatch)
    services.projections.rebuild("games")
    assert services.projections.parked() == []
    assert runner.view.row(bad) is not None and runner.view.row(dropped) is not None
    assert services.projections.parked(dropped=True) == []
    assert ok(api.client.get("/healthz"))["status"] == "ok"


def test_a_handler_that_raises_parks_that_event_alone(
    api: ApiHelper, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A projection's own bug (a Python error, not the database's) for one event of a run: the
    run's other events are taken, that one parked."""
    services = svc(api)
    runner = services.projections["games"]
    ids = [new_game(api, name)["id"] for name in ("ann", "bob", "cat")]
    add_game = GamesTables.add_game

    def broken(self: Any, row: dict[str, Any], players: Any, tracking: Tracking) -> None:
        if row["id"] == ids[1]:
            raise KeyError("labels")
        add_game(self, row, players, tracking)

    monkeypatch.setattr(GamesTables, "add_game", broken)
    runner.view.drop()
    runner.view.create_table()
    assert runner.run() > 0
    assert [runner.view.row(i) is not None for i in ids] == [True, False, True]
    [parked] = services.projections.parked()
    assert parked["originator_id"] == ids[1] and parked["error"] == "KeyError: 'labels'"


def test_the_databases_trouble_is_not_parked_and_a_write_still_answers(
    api: ApiHelper, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A view that fails for the database (locked, gone) parks nothing -- the event is tried again
    -- and the write request that caught it up answers with its commit, not a 500."""
    services = svc(api)
    runner = services.projections["games"]
    new_game(api)
    position = runner.position()

    def locked(*_: Any) -> None:
        raise OperationalError("database is locked")

    with monkeypatch.context() as patch:
        patch.setattr(GamesTables, "add_game", locked)
        game = new_game(api, "bob")  # 201: the commit is the answer
        assert runner.position() == position and services.projections.parked() == []
        with pytest.raises(OperationalError):
            runner.run()
    api.work()  # the worker's step, once the database is back
    assert game["id"] in listed(api, "bob") and services.projections.parked() == []
