"""What Arbiter relies on inside eventsourcing beyond its documented API, named in one place
(issue 45): each attribute below is used by the module named beside it, and this test fails on
an upgrade that moves one, before anything else does.  The pin in pyproject.toml
(``eventsourcing[postgres]>=9.5,<9.6``) is for these: a minor release may change any of them."""

from __future__ import annotations

import inspect
from importlib.metadata import version

from eventsourcing.domain import Aggregate
from eventsourcing.postgres import PostgresDatastore, PostgresTrackingRecorder
from eventsourcing.sqlite import SQLiteDatastore, SQLiteTrackingRecorder
from eventsourcing.system import ProcessApplication


def test_the_pinned_minor_release_is_installed() -> None:
    assert version("eventsourcing").split(".")[:2] == ["9", "5"]


def test_a_rebuilt_aggregates_events_are_set_as_its_pending_events() -> None:
    # service/application/records.py: an imported record's game, rebuilt with this server's
    # rules, is stored through the repository's save with its events set as pending
    class Thing(Aggregate):
        pass

    thing = Thing()
    assert isinstance(thing._pending_events, list) and len(thing._pending_events) == 1


def test_the_postgres_datastore_is_rebuilt_with_the_settings_it_was_made_with() -> None:
    # service/application/availability.py (fail_fast): the factory's datastore is replaced by a
    # FailFastDatastore made with the same settings, read from these attributes, and assigned to
    # ``factory.datastore``
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
    finally:
        made.close()


def test_the_tracking_recorders_statements_are_attributes_a_view_may_rebind() -> None:
    # service/views/base.py: a view's tracking rows go in its own table -- on SQLite
    # through the recorder's two statements, rebound to that table; on PostgreSQL through the
    # recorder's own ``tracking_table_name``, its rows written with its insert statement
    sqlite = SQLiteTrackingRecorder(SQLiteDatastore(":memory:"))
    assert sqlite.insert_tracking_statement and sqlite.select_max_tracking_id_statement
    assert "tracking_table_name" in inspect.signature(PostgresTrackingRecorder.__init__).parameters
    assert "self.insert_tracking_statement" in inspect.getsource(PostgresTrackingRecorder)


def test_the_process_application_pulls_through_the_hooks_the_notification_process_overrides() -> (
    None
):
    # service/application/notifications.py: NotificationProcess overrides pull_and_process (to
    # stop between events) and processing_lock (re-entrant: the process's own process_event
    # derives under it, then calls eventsourcing's, which takes it), and pulls through these steps
    for name in (
        "pull_and_process",
        "pull_notifications",
        "filter_received_notifications",
        "convert_notifications",
        "process_event",
    ):
        assert callable(getattr(ProcessApplication, name, None)), name
    assert "self.processing_lock" in inspect.getsource(ProcessApplication.process_event)
