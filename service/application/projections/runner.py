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
refused by the tracking row (``IntegrityError``) and rolls back; it re-reads the position."""

from __future__ import annotations

import logging
import threading
import time
from typing import Any

from eventsourcing.persistence import IntegrityError, Tracking

from service.application.projections.view import View

log = logging.getLogger(__name__)
#: events a view processes in one transaction: short, so that a SQLite view's writes (in the store's
#: own file) hold the file's one writer for a moment only, and the commands' commits go between
PER_TRANSACTION = 50
#: how far behind the head a view with nothing of its topics may stay in the worker's step (well
#: under ``ARBITER_VIEW_LAG_LIMIT``'s 1,000, so /healthz never calls it behind for that)
LAZY_GAP = 200


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
            # decoded before the transaction opens: on SQLite the view writes in the store's
            # own file, whose one writer a command's commit waits for -- it is held for the
            # rows only, not for decoding the events too
            events = [
                (self.store.mapper.to_domain_event(note), Tracking(self.store.name, note.id))
                for note in notes[start : start + step]
            ]
            prepare = getattr(self.projection, "prepare", None)
            if prepare is not None:  # its slow part, outside the transaction (the reviews')
                prepare([event for event, _ in events])
            with self.view.batch():  # a run of events, their rows and last position, at once
                for event, tracking in events:
                    self.projection.process_event(event, tracking)
        if len(notes) < self.batch and (not notes or notes[-1].id < head):
            # nothing else of these topics up to the head: the position moves on to it (lazily:
            # once far enough behind that reading the stretch again would cost)
            last = notes[-1].id if notes else position
            if not lazy or head - last >= LAZY_GAP:
                self.view.insert_tracking(Tracking(self.store.name, head))
            elif not notes:
                return None  # nothing done, the position left where it is
        return len(notes)

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
