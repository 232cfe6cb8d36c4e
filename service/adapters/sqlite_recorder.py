"""eventsourcing's SQLite application recorder, with an index on the events' topic.

eventsourcing's ``select_notifications(topics=...)`` filters ``stored_events`` by topic, which it
does not index: every follower of a few topics scanned (and the runners of projections scanned)
the whole log.  The index ``stored_events_topic`` covers ``(topic, rowid)`` -- SQLite appends the
rowid, the notification id, to every index -- and is created with the table when the store opens
(``CREATE INDEX IF NOT EXISTS``: an existing store gains it at its next open).

An event is stored only right after its stream's last stored version (issue 53): the trigger
``stored_events_follows`` refuses, in the inserting transaction, an event whose stream does not
hold the version before it (a stream starts at 1).  A store put back to an earlier copy under a
server whose cache is ahead is then never continued past its end (a gap): the append fails as a
lost race does (``IntegrityError``), whatever any cache believed.  Created, like the index, at the
store's next open."""

from __future__ import annotations

from eventsourcing.sqlite import SQLiteApplicationRecorder

#: the trigger's refusal (SQLite's RAISE takes no values)
GAP = "an event does not follow the last stored version of its stream"


class TopicIndexedSQLiteRecorder(SQLiteApplicationRecorder):
    def construct_create_table_statements(self) -> list[str]:
        table = self.events_table_name
        return [
            *super().construct_create_table_statements(),
            f"CREATE INDEX IF NOT EXISTS {table}_topic ON {table} (topic)",
            f"CREATE TRIGGER IF NOT EXISTS {table}_follows BEFORE INSERT ON {table} "
            "WHEN NEW.originator_version <> 1 AND NOT EXISTS (SELECT 1 FROM "
            f"{table} WHERE originator_id = NEW.originator_id "
            "AND originator_version = NEW.originator_version - 1) "
            f"BEGIN SELECT RAISE(ABORT, '{GAP}'); END",
        ]
