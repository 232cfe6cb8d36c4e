"""Open games (seeks): open one, list the open ones (the persisted ``seeks`` view, a page at a time),
join one, cancel one.

Read-your-writes: a request that opened, joined or cancelled a seek returns only once the view has
passed that command's notification id (``ArbiterStore.on_commit``, ``Projections.seen``): the
view's runner processes up to its own event if the worker has not got there yet (the worker may
not run at all: ``arbiter worker`` stopped, or a test), else waits (bounded) for whichever runner
holds the stretch.  Processing it in the request rather than only waiting keeps the answer fast
whatever the worker's interval, and it is the writing request's own cost; GET requests only read
the view and never write."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any
from uuid import uuid4

from service.application.lifecycle import LifecycleService
from service.application.scenarios import ScenarioLibrary
from service.application.store import ArbiterStore
from service.domain.errors import Conflict, Forbidden, LimitReached, NotFound, Unprocessable
from service.domain.seeks import OPEN, Seek
from service.domain.users import User
from service.views.runner import ProjectionRunner
from service.views.seeks import Key, SeeksView

#: a page of open games holds at most this many (``GET /api/seeks?limit=``)
PAGE_MAX = 100


class SeekService:
    def __init__(
        self,
        store: ArbiterStore,
        lifecycle: LifecycleService,
        runner: ProjectionRunner,
        scenarios: ScenarioLibrary | None = None,
    ) -> None:
        self.store = store
        self.lifecycle = lifecycle
        self.runner = runner
        self.scenarios = scenarios or ScenarioLibrary(
            store, lifecycle.games.registry, lifecycle.clubs
        )

    @property
    def _view(self) -> SeeksView:
        view = self.runner.view
        assert isinstance(view, SeeksView)
        return view

    def open(
        self,
        by: User,
        *,
        system: str,
        scenario: str,
        scenario_version: int | None = None,
        side: str | None = None,
        options: Mapping[str, Any] | None = None,
        club: str | None = None,
        clock: Mapping[str, Any] | None = None,
        public: bool = False,
    ) -> Seek:
        """``scenario``: a system's own or a club scenario ``by`` may read (``scenario_version``,
        default its latest): the open game pins that version and its game starts from it."""
        self.lifecycle.games.system(system)  # an unknown system is a 422 naming ``system``
        most = self.lifecycle.quotas.seeks_per_user
        if self._view.open_count(str(by.id)) >= most:
            raise LimitReached(
                f"you have {most} open games",
                {"seek": [f"at most {most} of your open games wait at once: withdraw one"]},
            )
        choice = self.scenarios.choose(system, scenario, scenario_version, by)
        scenario, info = choice.name, choice.info
        if len(info.sides) != 2:
            raise Unprocessable(
                "an open game has two sides", {"scenario": [f"{len(info.sides)} sides"]}
            )
        side = side or info.sides[0]
        if side not in info.sides:
            raise Unprocessable(f"no side {side!r}", {"side": [f"one of {', '.join(info.sides)}"]})
        choice.check_options(self.lifecycle.games.system(system), options or {})
        # the labels are checked now (club membership, clock), as the game will carry them
        labels = self.lifecycle.labels_for(
            by,
            [str(by.id)],
            system=system,
            scenario=scenario,
            club=club,
            clock=clock,
            public=public,
        )
        seek = Seek.open(
            by=str(by.id),
            system=system,
            scenario=scenario,
            side=side,
            options=options or {},
            labels=labels,
            club=labels.get("club"),
        )
        self.store.commit(seek, conflict=Conflict("try again"))
        return seek

    def join(self, seek_id: str, user: User) -> tuple[Seek, Any]:
        seek = self._get(seek_id)
        seek.check_join(str(user.id), str(user.id) in self._members(seek.club))
        if not self.scenarios.may_play(seek.scenario, user):
            raise Forbidden(
                "this open game plays a club's scenario you may not read",
                {"seek": ["its scenario is not shared with you"]},
            )
        choice = self.scenarios.chosen(seek.system, seek.scenario)
        sides = choice.info.sides
        names = self.lifecycle.users.username
        bound = {s: names(seek.by) if s == seek.side else user.username for s in sides}
        seeker = self.lifecycle.users.get(seek.by)
        game_id = uuid4()
        # the seek is claimed first (one joiner wins the race), then its game is made with the id
        # the claim recorded
        seek.join(str(user.id), str(game_id))
        self.store.commit(seek, conflict=Conflict("someone joined first", {"seek": ["taken"]}))
        game = self.lifecycle.games.create(
            system=seek.system,
            scenario=seek.scenario,
            sides=bound,
            creator=seeker,
            options=seek.options,
            labels=seek.labels,
            game_id=game_id,
            source=choice.source,  # a club scenario's version: the game pins it
        )
        return seek, game

    def cancel(self, seek_id: str, user: User) -> Seek:
        seek = self._get(seek_id)
        seek.cancel(str(user.id))
        self.store.commit(seek, conflict=Conflict("it changed meanwhile; try again"))
        return seek

    def page(
        self, user: User | None, *, limit: int = 50, after: Key | None = None, status: str = OPEN
    ) -> tuple[list[dict[str, Any]], Key | None]:
        """A page of open games, newest first (by ``(created, id)``), after the key ``after``;
        those restricted to a club only for its members, those of a club scenario only for who
        may play it.  Returns the rows and the key to the next page (None: this was the last).

        The view is read ``limit`` rows at a time until ``limit`` visible ones are found; the next
        page starts after the last row returned, so no row is skipped or repeated."""
        limit = max(1, min(limit, PAGE_MAX))
        found: list[dict[str, Any]] = []
        cursor = after
        clubs: dict[str, bool] = {}
        while len(found) < limit:
            rows = self._view.select_page(status, limit, cursor)
            for row in rows:
                if self._visible(row, user, clubs):
                    found.append(row)
                    if len(found) == limit:
                        return found, (row["created"], row["id"])
            if len(rows) < limit:
                break
            cursor = (rows[-1]["created"], rows[-1]["id"])
        return found, None

    def _visible(self, row: dict[str, Any], user: User | None, clubs: dict[str, bool]) -> bool:
        club = row["club"]
        if club is not None:
            if club not in clubs:
                clubs[club] = user is not None and str(user.id) in self._members(club)
            if not clubs[club]:
                return False
        return self.scenarios.may_play(row["scenario"], user)

    def view(self, seek: Seek) -> dict[str, Any]:
        return self._present(
            {
                "id": str(seek.id),
                "by": seek.by,
                "system": seek.system,
                "scenario": seek.scenario,
                "side": seek.side,
                "club": seek.club,
                "clock": seek.labels.get("clock"),
                "options": dict(seek.options),
                "status": seek.status,
                "game": seek.game_id,
                "opened_at": seek.created_on.isoformat(),
            }
        )

    def _present(self, row: dict[str, Any]) -> dict[str, Any]:
        club = None
        if row["club"]:
            try:
                club = self.lifecycle.clubs.get(row["club"]).name
            except NotFound:
                club = None
        try:
            title = self.scenarios.title_of(row["system"], row["scenario"])
        except NotFound:
            title = row["scenario"]
        return row | {
            "by": self.lifecycle.users.username(row["by"]),
            "club_name": club,
            "title": title,
        }

    def present(self, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return [self._present(r) for r in rows]

    def _members(self, club: str | None) -> set[str]:
        return set() if club is None else set(self.lifecycle.clubs.get(club).members)

    def _get(self, seek_id: str) -> Seek:
        return self.store.get_as(seek_id, Seek, "seek", "open game")
