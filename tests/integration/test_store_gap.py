"""No gap can be stored (issue 53): an append is stored only right after its stream's last stored
version, checked by the store in the inserting transaction, whatever a cache believes.

Before, with every command through one host, a database put back to an earlier dump (the game's
rows 1-9) under a server holding the game at version 15 in its memory took the next command at
versions 16-17: rows 1-9 and 16-17, a gap the store accepted (the check ran against the cached
game, and the anchored head, at 15, agreed with it).  Now the store refuses the append, the command
answers 409, the cache drops the game, and the next read answers what the store holds."""

from __future__ import annotations

import sqlite3
import uuid
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest
from eventsourcing.persistence import IntegrityError, StoredEvent

from service.application.services import Services
from service.bootstrap import build_services, migrate
from service.domain.errors import Conflict, StaleVersion
from tests.conftest import make_config
from tests.support.services import PG, postgres_database

END = {"type": "end_phase"}
SIDES = {"red": "alice", "blue": "alice"}


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def svc(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Services]:
    if request.param == "sqlite":
        services = build_services(make_config(tmp_path))
        try:
            yield services
        finally:
            services.close()
        return
    with postgres_database() as dbname:
        config = make_config(tmp_path, store="postgres", postgres_dbname=dbname)
        migrate(config)
        services = build_services(config)
        try:
            yield services
        finally:
            services.close()


def put_back(svc: Services, stream: uuid.UUID, version: int) -> None:
    """The database as a dump taken when ``stream`` was at ``version`` would restore it: its later
    rows gone, behind the running services' back (another connection, nothing told)."""
    config = svc.config
    table = svc.store.recorder.events_table_name
    if config.store == "sqlite":
        with sqlite3.connect(config.sqlite_file) as conn:
            conn.execute(
                f"DELETE FROM {table} WHERE originator_id = ? AND originator_version > ?",  # noqa: S608
                (stream.hex, version),
            )
        return
    with psycopg.connect(
        dbname=config.postgres_dbname, host=str(PG["host"]), port=str(PG["port"]),
        user=str(PG["user"]), autocommit=True,
    ) as conn:  # fmt: skip
        conn.execute(
            f"DELETE FROM {table} WHERE originator_id = %s AND originator_version > %s",  # noqa: S608
            (stream, version),
        )


def versions(svc: Services, stream: uuid.UUID) -> list[int]:
    return [e.originator_version for e in svc.store.recorder.select_events(stream)]


def event(stream: uuid.UUID, version: int) -> StoredEvent:
    return StoredEvent(stream, version, "tests:Happened", b"{}")


def test_the_store_refuses_an_event_that_does_not_follow_its_streams_last(svc: Services) -> None:
    recorder = svc.store.recorder
    stream, other = uuid.uuid4(), uuid.uuid4()
    recorder.insert_events([event(stream, 1), event(stream, 2)])
    refused: list[list[StoredEvent]] = [
        [event(stream, 4)],  # past the end: a gap
        [event(stream, 3), event(stream, 5)],  # the first follows, the second does not
        [event(other, 2)],  # a stream starts at 1
        [event(other, 1), event(stream, 4)],  # one stream's append fails the whole batch
    ]
    for batch in refused:
        with pytest.raises(IntegrityError, match="does not follow the last stored version"):
            recorder.insert_events(batch)
        assert versions(svc, stream) == [1, 2] and versions(svc, other) == []  # nothing written
    # what follows on is stored, several streams in one batch as a restore writes them
    recorder.insert_events([event(stream, 3), event(other, 1), event(stream, 4), event(other, 2)])
    assert versions(svc, stream) == [1, 2, 3, 4] and versions(svc, other) == [1, 2]


def test_a_command_past_a_database_put_back_is_refused_and_the_cache_drops_the_game(
    svc: Services,
) -> None:
    alice = svc.users.register("alice", "correct horse")
    game = svc.games.create(system="skirmish", scenario="meeting", sides=SIDES, creator=alice)
    for _ in range(6):  # each command decided on the cached game
        game = svc.games.execute(game.id, alice, END, expected_version=game.version).game
    ahead, dumped = game.version, game.version - 4
    put_back(svc, game.id, dumped)

    with pytest.raises(StaleVersion):  # the cache says ``ahead``; the store ends at ``dumped``
        svc.games.execute(game.id, alice, END, expected_version=ahead)
    assert versions(svc, game.id) == list(range(1, dumped + 1))  # no gap: nothing written
    assert svc.games.get(game.id).version == dumped  # the next read answers what is stored


def test_after_a_refused_append_the_next_try_starts_from_what_is_stored(svc: Services) -> None:
    """Any aggregate, not only a game: a user kept in the cache at the version before the database
    was put back is dropped when the store refuses its append, so a second try is decided on what
    the store holds and goes through (kept, it would be refused again on every try)."""
    alice = svc.users.register("alice", "correct horse")
    for password in ("battery staple", "tr0ub4dor&3 horse"):
        svc.users.set_password("alice", password)
    ahead = svc.users.get(alice.id).version
    put_back(svc, alice.id, 1)

    with pytest.raises(Conflict):
        svc.users.set_password("alice", "purple monkey dishwasher")
    assert versions(svc, alice.id) == [1]
    svc.users.set_password("alice", "purple monkey dishwasher")
    assert versions(svc, alice.id) == [1, 2] and ahead > 2
