"""What Arbiter relies on in eventsourcing beyond its plainest API, named in one place (issue 45):
each use below is the module's named beside it, and this test fails on an upgrade that moves
one, before anything else does.  One library internal is still used, because 9.5 offers no hook
for it: the PostgreSQL factory makes its datastore inline, so ``availability.FailFastFactory``
(chosen by the documented ``PERSISTENCE_MODULE`` setting) replaces its own with a
``FailFastDatastore`` made with the same settings (read from the one made).  The pin in
pyproject.toml (``eventsourcing[postgres]>=9.5,<9.6``) is for these: a minor release may change
any of them."""

from __future__ import annotations

import inspect
from importlib.metadata import version
from uuid import UUID

import pytest
from eventsourcing.application import Application
from eventsourcing.domain import Aggregate
from eventsourcing.persistence import IntegrityError, ProcessRecorder, Tracking, TrackingRecorder
from eventsourcing.postgres import PostgresDatastore
from eventsourcing.sqlite import SQLiteDatastore


def test_the_pinned_minor_release_is_installed() -> None:
    assert version("eventsourcing").split(".")[:2] == ["9", "5"]


def test_the_store_puts_the_events_it_collected_from_aggregates_and_as_given() -> None:
    # service/application/store.py (commit_at): the store does what ``Application.save`` does
    # with its public parts -- each aggregate's ``collect_events`` (which clears its pending
    # events) and one ``events.put`` of them, an imported record's events (``Rebuilt``) put as
    # they are beside them -- and returns the put's recordings (their notification ids)
    app: Application[UUID] = Application({"PERSISTENCE_MODULE": "eventsourcing.popo"})
    made = Aggregate()
    imported = made.collect_events()
    assert made.pending_events == []
    other = Aggregate()
    recordings = app.events.put([*imported, *other.collect_events()])
    assert [r.notification.id for r in recordings] == [1, 2]
    assert app.repository.get(made.id).version == 1
    assert app.repository.get(other.id).version == 1


def test_the_postgres_datastore_is_rebuilt_with_the_settings_it_was_made_with() -> None:
    # service/application/availability.py (FailFastFactory): the factory's own datastore is
    # replaced by a FailFastDatastore made with the same settings, read from these attributes
    made = PostgresDatastore(dbname="x", host="127.0.0.1", port="5432", user="u", password="p")
    try:
        for name in (
            "pool",
            "idle_in_transaction_session_timeout",
            "pre_ping",
            "lock_timeout",
            "schema",
            "pool_open_timeout",
            "single_row_tracking",
            "originator_id_type",
            "enable_db_functions",
        ):
            assert hasattr(made, name), name
        for name in (
            "kwargs",
            "timeout",
            "min_size",
            "max_size",
            "max_waiting",
            "max_lifetime",
            "get_password_func",
            "reconnect_timeout",
        ):
            assert hasattr(made.pool, name), f"pool.{name}"
        taken = set(inspect.signature(PostgresDatastore.__init__).parameters)
        assert {"connect_timeout", "pool_size", "max_overflow", "conn_max_age"} <= taken
        # FailFastDatastore registers the composite types itself on the first connection that
        # succeeds when the database was down at start (``register_type_adapters`` deferred)
        for name in ("db_type_names", "psycopg_type_adapters", "psycopg_python_types"):
            assert hasattr(made, name), name
        assert callable(made.register_type_adapters) and callable(made.get_connection)
    finally:
        made.close()


def test_the_datastores_give_the_views_their_transactions() -> None:
    # service/views/base.py: a view is eventsourcing's TrackingRecorder interface implemented over
    # the store's datastore -- its own tables and tracking statements, in the datastore's
    # ``transaction(commit=...)``, whose cursor takes the dialect's parameters and gives rows by
    # column name.  (The library's SQLite tracking recorder names its table ``tracking`` whatever
    # the recorder: it cannot hold one per view, hence no library recorder under a view.)
    assert {"insert_tracking", "max_tracking_id"} <= TrackingRecorder.__abstractmethods__
    datastore = SQLiteDatastore(":memory:")
    with datastore.transaction(commit=True) as cursor:
        cursor.execute("CREATE TABLE t (a TEXT)")
        cursor.execute("INSERT INTO t VALUES (?) RETURNING a", ["x"])
        assert cursor.fetchone()["a"] == "x"
    assert "commit" in inspect.signature(PostgresDatastore.transaction).parameters


def test_a_process_recorder_stores_events_with_a_position_through_the_event_store() -> None:
    # service/application/notifications.py: the notification process is a plain Application whose
    # construct_recorder() gives the factory's process recorder (as EventSourcedProjection does),
    # and records what an event derives with that event's position through
    # ``events.put(events, tracking=...)``: one transaction, and a position recorded twice refused
    class Recording(Application[UUID]):
        def construct_recorder(self) -> ProcessRecorder:
            return self.factory.process_recorder()

    app = Recording({"PERSISTENCE_MODULE": "eventsourcing.popo"})
    thing = Aggregate()
    app.events.put(thing.collect_events(), tracking=Tracking("arbiter", 7))
    assert app.recorder.max_tracking_id("arbiter") == 7  # type: ignore[attr-defined]
    assert app.repository.get(thing.id).version == 1
    with pytest.raises(IntegrityError):  # another worker recorded that position first
        app.events.put([], tracking=Tracking("arbiter", 7))
