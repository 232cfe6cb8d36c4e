"""A follower of a rare topic reads each notification of the log at most once across its calls
(issue 27: it used to rescan everything since its last matching event on every call), on a real
SQLite file and PostgreSQL; and the events table is indexed by topic on both."""

from __future__ import annotations

from typing import Any

from eventsourcing.domain import Aggregate
from eventsourcing.utils import get_topic

from service.application.store import LogFollower
from service.bootstrap import build_ports, open_store
from service.config import Config


class Rare(Aggregate):
    class Happened(Aggregate.Created):
        pass


class Common(Aggregate):
    class Happened(Aggregate.Created):
        pass


def test_a_rare_topic_follower_reads_each_notification_at_most_once(store_config: Config) -> None:
    store = open_store(store_config, build_ports(store_config))
    try:
        ranges: list[tuple[int, int | None]] = []
        select = store.recorder.select_notifications

        def counting(start: Any, limit: int, stop: Any = None, **kw: Any) -> Any:
            ranges.append((start, stop))
            return select(start, limit, stop=stop, **kw)

        store.recorder.select_notifications = counting  # type: ignore[method-assign]
        follower = LogFollower(store, [get_topic(Rare.Happened)], batch=3)
        seen = []
        for round_ in range(6):
            store.save(*(Common() for _ in range(7)))
            if round_ % 3 == 0:
                store.save(Rare())
            seen += [type(e).__name__ for e in follower.new_events()]
            assert follower.position == store.recorder.max_notification_id()
        assert seen == ["Happened", "Happened"]
        # each call selects (start, stop]: together they never cover a notification twice
        covered: list[int] = []
        for start, stop in ranges:
            assert stop is not None
            covered += range(start + 1, stop + 1)
        assert len(covered) == len(set(covered)) and max(covered) == follower.position
        # nothing new: no select at all
        before = len(ranges)
        assert list(follower.new_events()) == []
        assert len(ranges) == before
    finally:
        store.close()


def test_the_events_are_indexed_by_topic(store_config: Config) -> None:
    store = open_store(store_config, build_ports(store_config))
    try:
        datastore: Any = store.recorder.datastore
        with datastore.transaction(commit=False) as curs:
            if store_config.store == "sqlite":
                curs.execute("SELECT name FROM sqlite_master WHERE type = 'index'")
            else:
                curs.execute("SELECT indexname AS name FROM pg_indexes")
            names = {row["name"] for row in curs.fetchall()}
        assert "stored_events_topic" in names or "arbiter_events_topic_idx" in names
    finally:
        store.close()
