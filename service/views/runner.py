"""The pull runner of a projection: reads the store's notification log from the view's tracking
position and has the projection process each event of its topics.

eventsourcing's ``ProjectionRunner`` subscribes to the application recorder, which SQLite's does
not support in eventsourcing 9.5 (``subscribe`` raises ``NotImplementedError``); this runner pulls,
the same way on both backends, and is called by the worker's step (and by a request that has to
read its own write, :meth:`ProjectionRunner.catch_up`).

Each event's view write and its tracking row are one transaction (the view's methods do both), so
a view never holds an event without its position nor a position without the event.  The log's head
is read first and the selection stops at it: when a batch ends short, no event of the projection's
topics lies between the last one processed and that head, and the position is set to the head --
a view of rare topics never reads the same stretch of log twice.  Two runners on one view (two
workers, or a worker and a request) cannot both record a position: the loser's transaction is
refused by the tracking row (``IntegrityError``) and rolls back; it re-reads the position.

An event the view cannot take is parked, never left to stop the view: when a run of events fails
for anything but the database itself (locked, unreachable: :data:`TRANSIENT`, tried again next
time), its events are processed again one at a time, and the one that fails is recorded with its
error in the store's parked events (``service.views.base.PARKED``) in one transaction with
the view's position past it; the view goes on with the next.  ``/healthz`` says ``degraded`` while
one is parked, ``arbiter projections status`` lists them, and ``arbiter projections parked retry``
(:meth:`ProjectionRunner.retry`) or ``drop`` deal with them after a fix."""

from __future__ import annotations

import logging
import threading
import time
from datetime import UTC, datetime
from typing import Any

from eventsourcing.persistence import (
    IntegrityError,
    InterfaceError,
    InternalError,
    OperationalError,
    Tracking,
)

from service.domain.errors import StoreUnavailable
from service.views.base import View

log = logging.getLogger(__name__)
#: events a view processes in one transaction: short, so that a SQLite view's writes (in the store's
#: own file) hold the file's one writer for a moment only, and the commands' commits go between
PER_TRANSACTION = 50
#: how far behind the head a view with nothing of its topics may stay in the worker's step (well
#: under ``ARBITER_VIEW_LAG_LIMIT``'s 1,000, so /healthz never calls it behind for that)
LAZY_GAP = 200
#: what is the database's trouble, not the event's: never parked, the run stops and is tried again
TRANSIENT = (OperationalError, InterfaceError, InternalError, StoreUnavailable)
#: the longest error text a park record keeps
ERROR_MAX = 2000


def describe(row: dict[str, Any]) -> str:
    """A parked event in words: its kind, the aggregate and its version."""
    kind = str(row["topic"]).rpartition(":")[2]
    return f"{kind} of {row['originator_id']}, version {row['originator_version']}"


def error_text(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}"[:ERROR_MAX]


def now() -> str:
    return datetime.now(UTC).isoformat()


class ProjectionRunner:
    def __init__(
        self,
        store: Any,
        projection: Any,
        *,
        batch: int = 500,
        per_transaction: int = PER_TRANSACTION,
    ) -> None:
        self.store = store
        self.projection = projection
        self.batch = batch
        self.per_transaction = per_transaction
        self._running = threading.Lock()

    @property
    def name(self) -> str:
        return str(self.projection.name)

    @property
    def view(self) -> View:
        view: View = self.projection.view
        return view

    def position(self) -> int:
        return self.view.max_tracking_id(self.store.name) or 0

    def run(self, upto: int | None = None, progress: Any = None, *, lazy: bool = False) -> int:
        """Process the log from the view's position up to ``upto`` (default: the head read now);
        returns how many events were processed.  ``progress(position, head)`` after each batch.
        ``lazy`` (the worker's step): a view with nothing of its topics since its position moves
        on to the head only once it is :data:`LAZY_GAP` behind -- on SQLite each move is a write
        of the store's one writer, which a command's commit waits for, and the worker's step came
        round every half second for every view."""
        head = self.store.recorder.max_notification_id() or 0
        if upto is not None:
            head = min(head, upto)
        done = 0
        while True:
            position = self.position()
            if position >= head:
                return done
            try:
                found = self._batch(position, head, lazy=lazy)
                if found is None:  # lazily left behind the head: nothing more to do now
                    return done
                done += found
            except IntegrityError:  # another runner recorded this stretch first
                if self.position() == position:
                    raise  # not another runner: a real conflict, the worker logs it
                log.debug("view %s: another runner went first", self.name)
            if progress is not None:
                progress(self.position(), head)

    def _batch(self, position: int, head: int, *, lazy: bool = False) -> int | None:
        notes = self.store.recorder.select_notifications(
            start=position,
            limit=self.batch,
            stop=head,
            topics=self.projection.topics,
            inclusive_of_start=False,
        )
        step = self.per_transaction
        for start in range(0, len(notes), step):
            run = notes[start : start + step]
            try:
                self._take(run)
            except TRANSIENT:
                raise
            except Exception as exc:
                if self.position() >= run[0].id:  # another runner recorded the stretch first
                    raise self._went_first(run[0].id) from exc
                for note in run:  # the one that failed is parked, the others taken
                    self._take_or_park(note)
        if len(notes) < self.batch and (not notes or notes[-1].id < head):
            # nothing else of these topics up to the head: the position moves on to it (lazily:
            # once far enough behind that reading the stretch again would cost)
            last = notes[-1].id if notes else position
            if not lazy or head - last >= LAZY_GAP:
                self.view.insert_tracking(Tracking(self.store.name, head))
            elif not notes:
                return None  # nothing done, the position left where it is
        return len(notes)

    def _take(self, notes: list[Any]) -> None:
        """Process ``notes`` in one transaction (their rows and the last position)."""
        # decoded before the transaction opens: on SQLite the view writes in the store's own
        # file, whose one writer a command's commit waits for -- it is held for the rows only,
        # not for decoding the events too
        events = [
            (self.store.mapper.to_domain_event(note), Tracking(self.store.name, note.id))
            for note in notes
        ]
        prepare = getattr(self.projection, "prepare", None)
        if prepare is not None:  # its slow part, outside the transaction (the reviews')
            prepare([event for event, _ in events])
        with self.view.batch():  # a run of events, their rows and last position, at once
            for event, tracking in events:
                self.projection.process_event(event, tracking)

    def _take_or_park(self, note: Any) -> None:
        """Process the event of ``note``, or park it if the view cannot take it."""
        try:
            self._take([note])
        except TRANSIENT:
            raise
        except Exception as exc:
            if self.position() >= note.id:
                raise self._went_first(note.id) from exc
            error = error_text(exc)
            log.error("view %s parked event %s (%s): %s", self.name, note.id, note.topic, error)
            event = {
                "topic": note.topic,
                "originator_id": str(note.originator_id),
                "originator_version": int(note.originator_version),
            }
            self.view.park(Tracking(self.store.name, note.id), event, error, now())

    def _went_first(self, position: int) -> IntegrityError:
        return IntegrityError(f"view {self.name}: position {position} is already recorded")

    def parked(self, rows: list[dict[str, Any]] | None = None) -> list[dict[str, Any]]:
        """This view's parked events (of ``rows``, the database's, when read already): each
        its ``position``, the event (``topic``, ``originator_id``, ``originator_version``, in
        words ``event``), ``error``, ``parked_at``, ``tries`` (and, dropped, who, when, why)."""
        rows = self.view.parked() if rows is None else rows
        return [
            {
                "view": self.name,
                "position": int(row["notification_id"]),
                "event": describe(row),
                **{k: row[k] for k in ("topic", "originator_id", "originator_version")},
                "error": row["error"],
                "parked_at": row["parked_at"],
                "tries": int(row["tries"]),
                **(
                    {k: row[k] for k in ("dropped_at", "dropped_by", "reason")}
                    if row["dropped_at"]
                    else {}
                ),
            }
            for row in rows
            if row["view_name"] == self.view.table
        ]

    def retry(self, position: int) -> str | None:
        """Apply the parked event at ``position`` through the view again (the view's position
        stays where it is, past it): None when the view took it (its park record removed, in
        the same transaction), else the error (recorded, the event stays parked)."""
        notes = self.store.recorder.select_notifications(
            start=position, limit=1, stop=position, topics=self.projection.topics
        )
        try:
            if not notes or notes[0].id != position:
                raise LookupError(f"no event of this view's at position {position} in the log")
            event = self.store.mapper.to_domain_event(notes[0])
            prepare = getattr(self.projection, "prepare", None)
            if prepare is not None:
                prepare([event])
            with self.view.batch(tracked=False):
                self.projection.process_event(event, Tracking(self.store.name, position))
                self.view.unpark(position)
        except TRANSIENT:
            raise
        except Exception as exc:
            error = error_text(exc)
            self.view.still_parked(position, error, now())
            return error
        log.info("view %s took parked event %s", self.name, position)
        return None

    def drop(self, position: int, by: str, reason: str) -> bool:
        """Drop the parked event at ``position``: the view does without it; the record keeps
        who dropped it and why.  Whether it was parked."""
        return self.view.drop_parked(position, by, reason, now()) > 0

    def catch_up(self, notification_id: int, timeout: float = 2.0) -> bool:
        """Bring the view to ``notification_id`` (a command's own write) for read-your-writes:
        process up to it here if the worker has not, then wait (bounded) for whichever runner is
        at it; returns whether the view got there.  Only a writing request calls this."""
        deadline = time.monotonic() + timeout
        while self.position() < notification_id:
            # one runner per view in this process; the other requests wait for it (with 96
            # sign-outs at once, each running the view itself took PostgreSQL's pool: 503s)
            if self._running.acquire(blocking=False):
                try:
                    self.run(upto=notification_id)
                finally:
                    self._running.release()
            if self.position() >= notification_id:
                return True
            if time.monotonic() > deadline:
                log.warning("view %s did not reach %s in %ss", self.name, notification_id, timeout)
                return False
            time.sleep(0.02)
        return True

    def status(self, *, count_rows: bool = True) -> dict[str, Any]:
        """The view's position, the log's head, the lag and (``count_rows``) its rows."""
        head = self.store.recorder.max_notification_id() or 0
        position = self.position()
        found = {
            "name": self.name,
            "position": position,
            "head": head,
            "lag": max(0, head - position),
        }
        return found | ({"rows": self.view.rows()} if count_rows else {})
