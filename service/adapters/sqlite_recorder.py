"""eventsourcing's SQLite application recorder, with an index on the events' topic.

eventsourcing's ``select_notifications(topics=...)`` filters ``stored_events`` by topic, which it
does not index: every follower of a few topics scanned (and the runners of projections scanned)
the whole log.  The index ``stored_events_topic`` covers ``(topic, rowid)`` -- SQLite appends the
rowid, the notification id, to every index -- and is created with the table when the store opens
(``CREATE INDEX IF NOT EXISTS``: an existing store gains it at its next open)."""

from __future__ import annotations

from eventsourcing.sqlite import SQLiteApplicationRecorder


class TopicIndexedSQLiteRecorder(SQLiteApplicationRecorder):
    def construct_create_table_statements(self) -> list[str]:
        table = self.events_table_name
        return [
            *super().construct_create_table_statements(),
            f"CREATE INDEX IF NOT EXISTS {table}_topic ON {table} (topic)",
        ]
