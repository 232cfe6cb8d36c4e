"""The store's persisted views, each with its runner: opened over the store's own database (the
SQLite file or the PostgreSQL database), run by the worker, shown and rebuilt by
``arbiter projections``."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from eventsourcing.utils import get_topic

from service.views.base import PARKED, View, on_datastore
from service.views.campaigns import CampaignsProjection, CampaignsView
from service.views.chat import ChatProjection, ChatView, NotesProjection, NotesView
from service.views.clocks import ClocksProjection, ClocksView
from service.views.clubs import ClubsProjection, ClubsView
from service.views.disputes import DisputesProjection, DisputesView
from service.views.emails import EmailsProjection, EmailsView
from service.views.games import GamesProjection, GamesView
from service.views.ladders import LaddersProjection, LaddersView
from service.views.notices import NoticesProjection, NoticesView
from service.views.reviews import ReviewsProjection, ReviewsView
from service.views.rulings import RulingsProjection, RulingsView
from service.views.runner import PER_TRANSACTION, ProjectionRunner
from service.views.scenarios import ScenariosProjection, ScenariosView
from service.views.seeks import SeeksProjection, SeeksView
from service.views.tokens import TokensProjection, TokensView
from service.views.tournaments import TournamentsProjection, TournamentsView

#: each view: its projection, and its view (its tables and queries)
VIEWS: dict[str, tuple[type[Any], type[Any]]] = {
    "seeks": (SeeksProjection, SeeksView),
    "games": (GamesProjection, GamesView),
    "clubs": (ClubsProjection, ClubsView),
    "clocks": (ClocksProjection, ClocksView),
    "tokens": (TokensProjection, TokensView),
    "emails": (EmailsProjection, EmailsView),
    "scenarios": (ScenariosProjection, ScenariosView),
    "campaigns": (CampaignsProjection, CampaignsView),
    "disputes": (DisputesProjection, DisputesView),
    "rulings": (RulingsProjection, RulingsView),
    "ladders": (LaddersProjection, LaddersView),
    "chat": (ChatProjection, ChatView),
    "notes": (NotesProjection, NotesView),
    "tournaments": (TournamentsProjection, TournamentsView),
    "reviews": (ReviewsProjection, ReviewsView),
}
#: the views of the notification process's log, in its store
NOTICE_VIEWS: dict[str, tuple[type[Any], type[Any]]] = {
    "notices": (NoticesProjection, NoticesView),
}

Progress = Callable[[int, int], None]
log = logging.getLogger(__name__)


class Projections:
    """The views of one store (``runners``, by name): the main store's (``VIEWS``) or the
    notification process's (``NOTICE_VIEWS``)."""

    #: the views' tables, the main store's and the notification process's (checked at start on
    #: PostgreSQL, where both live in one database: made by ``arbiter db migrate``)
    TABLES = (
        *(
            t.name
            for views in (VIEWS, NOTICE_VIEWS)
            for _, tables in views.values()
            for t in tables.TABLES
        ),
        PARKED.name,
    )

    def __init__(
        self,
        store: Any,
        *,
        create_tables: bool,
        views: dict[str, tuple[type[Any], type[Any]]] = VIEWS,
    ) -> None:
        self.store = store
        self.views = views
        self.runners: dict[str, ProjectionRunner] = {}
        for name in views:
            view = self._view(name)
            if create_tables:
                view.create_table()
            self.runners[name] = ProjectionRunner(store, self._projection(name, view))
        #: each runner with the topics a writing request brings it up to (:meth:`seen`): made once,
        #: not on every commit
        self._seen_by = [
            (runner, frozenset(getattr(runner.projection, "seen_topics", runner.projection.topics)))
            for runner in self.runners.values()
        ]

    def _view(self, name: str, **options: Any) -> View:
        datastore = self.store.recorder.datastore
        view: View = on_datastore(self.views[name][1], datastore)(datastore, **options)
        return view

    def _projection(self, name: str, view: View) -> Any:
        """The view's projection; one that reads the store's games (the reviews': the state
        before each rules event) is given the store."""
        projection = self.views[name][0](view)
        if hasattr(projection, "attach"):
            projection.attach(self.store)
        return projection

    def __getitem__(self, name: str) -> ProjectionRunner:
        return self.runners[name]

    def tables(self) -> list[str]:
        views = [name for r in self.runners.values() for name in r.view.names.values()]
        return [*views, PARKED.name]

    def seen(self, events: list[Any], position: int, timeout: float = 2.0) -> None:
        """Read-your-writes: the views that ``events`` (just committed, the last at notification
        ``position``) change are brought to ``position`` before the writing request answers --
        processed here if the worker has not got there, else waited for (bounded).  The others
        are left to the worker.  A view the worker alone reads for most of its topics names the
        ones a request reads as its ``seen_topics`` (the clocks view: claims on time).

        The commit is the request's answer: a view that fails here (an event it cannot take is
        parked by its runner; the database's trouble is logged) never makes it an error -- the
        view is left to the worker, and ``/healthz`` tells."""
        topics = {get_topic(type(event)) for event in events}
        for runner, wanted in self._seen_by:
            if not wanted.isdisjoint(topics):
                try:
                    runner.catch_up(position, timeout)
                except Exception:  # noqa: BLE001 - the write is committed: it is the answer
                    log.exception("view %s did not catch up to %s", runner.name, position)

    def run(self, *, lazy: bool = False) -> int:
        """Bring every view up to the log's head; how many events.  ``lazy`` (the worker's step):
        a view with nothing of its topics lately stays up to ``runner.LAZY_GAP`` behind."""
        return sum(runner.run(lazy=lazy) for runner in self.runners.values())

    def status(
        self, *, count_rows: bool = True, parked_limit: int | None = None
    ) -> list[dict[str, Any]]:
        """Each view's :meth:`ProjectionRunner.status` and its ``parked`` events (of the views'
        first ``parked_limit``, by view and position, when given: ``/healthz``'s)."""
        rows = self._parked_rows(limit=parked_limit)
        return [
            runner.status(count_rows=count_rows) | {"parked": runner.parked(rows)}
            for runner in self.runners.values()
        ]

    def _parked_rows(
        self, *, dropped: bool = False, limit: int | None = None
    ) -> list[dict[str, Any]]:
        """The events parked by these views, read once for all of them."""
        runner = next(iter(self.runners.values()), None)
        if runner is None:
            return []
        mine = [r.view.table for r in self.runners.values()]
        return runner.view.parked(mine, dropped=dropped, limit=limit)

    def parked(self, name: str | None = None, *, dropped: bool = False) -> list[dict[str, Any]]:
        """The events parked by view ``name`` (default: every view), by view and position
        (``dropped``: those an operator dropped)."""
        rows = self._parked_rows(dropped=dropped)
        runners = [self.runners[name]] if name else list(self.runners.values())
        return [event for runner in runners for event in runner.parked(rows)]

    def rebuild(self, name: str, progress: Progress | None = None) -> int:
        """Rebuild a view from the log while the server runs: into new tables
        (each ``<table>_rebuild``, no secondary index yet), in batches each its own transaction --
        the live view is read and maintained meanwhile -- then swapped in, in one transaction
        that drops the live tables, renames the new ones and indexes them.  The swapped-in view
        is where the rebuild stopped (its own tracking, renamed with it): the worker carries it
        on from there, as after any pause.  An event the rebuild cannot take is parked (as the
        live view's, once swapped in), never a reason to stop.  Returns how many events were
        processed."""
        live = self.runners[name].view
        fresh = self._view(name, suffix="_rebuild", indexed=False)
        fresh.drop()  # a rebuild that stopped half way
        fresh.create_table()
        # a view that writes a ladder's whole state once per transaction rebuilds in longer
        # ones (the live view keeps the runner's short transactions)
        per_transaction = getattr(fresh, "REBUILD_PER_TRANSACTION", PER_TRANSACTION)
        runner = ProjectionRunner(
            self.store,
            self._projection(name, fresh),
            batch=max(1000, per_transaction),
            per_transaction=per_transaction,
        )
        done = runner.run(progress=progress)
        fresh.replace(live)  # with the events the rebuild parked, under the live view's name
        return done
