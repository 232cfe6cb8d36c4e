"""The worker's side of the ladders: recording the results of ladder and campaign games that ended,
and announcing standings that changed -- both from the persisted ladders' view
(``service.views.ladders``), which holds every ladder's ratings, standings and history.

The worker's step (:meth:`LadderFeed.record_results`: ``arbiter worker``, or the thread of ``arbiter
serve``) brings the view up to the log, reads the games the view holds as ended and not yet
recorded (``pending``), and records each one's ladder result, keyed by the game's id, so whichever
worker gets there first records it and the others' attempts are refused by the store; campaign
games are scored the same way (``on_campaign_game_ended``).  Requests only read the view.

After a catch-up (the worker's, or a writing request's) the ladders whose standings changed since
this process last looked (the view keeps each ladder's ``changed_at`` and each row's position) go to
the live leaderboard (a Redis sorted set, when configured) and a notice goes to the ``ladder:<id>``
channel of the broker.  The board is guarded by that position, so a process behind never overwrites
a later board."""

from __future__ import annotations

import json
import logging
import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import Any, Protocol

from eventsourcing.persistence import IntegrityError, PersistenceError

from service.application.availability import StoreUnavailable
from service.application.ports import Broker
from service.application.store import ArbiterStore
from service.application.users import UserService
from service.domain.errors import DomainError
from service.domain.ladders import LadderResult
from service.views.catalog import Projections
from service.views.ladder_state import ROW, parse_time
from service.views.ladders import LaddersView

log = logging.getLogger(__name__)
#: ladders whose changed rows exceed this are rewritten whole in the leaderboard
REPLACE_ABOVE = 200
#: pending games recorded per round of the worker's step
PENDING_BATCH = 100
#: no board is longer (a whole board is read at once for Redis)
EVERYONE = 1_000_000_000
#: players' names kept (a bounded cache)
NAMES_CACHED = 10_000


def ladder_channel(ladder_id: str) -> str:
    return f"ladder:{ladder_id}"


class Leaderboard(Protocol):
    """The live leaderboard (service/adapters/leaderboard.py): rows keyed by the log position."""

    def write(
        self, ladder_id: str, rows: list[dict[str, Any]], position: int, *, replace: bool
    ) -> bool | None:
        """Store ``rows`` as of ``position``: True when written, False when the board already holds
        a later position, None when the board is missing (write it whole).  Raises ConnectionError."""
        ...

    def page(
        self, ladder_id: str, offset: int, limit: int
    ) -> tuple[int, list[dict[str, Any]]] | None:
        """The board's position and rows ``offset``.. in rank order, or None when the board is
        missing.  Raises ConnectionError."""
        ...


class LadderFeed:
    def __init__(
        self,
        store: ArbiterStore,
        projections: Projections,
        users: UserService,
        broker: Broker,
        leaderboard: Leaderboard | None = None,
    ) -> None:
        self.store = store
        self.projections = projections
        self.runner = projections["ladders"]
        self.users = users
        self.broker = broker
        self.leaderboard = leaderboard
        #: called with (campaign id, step, game id, result) when a campaign game ends
        self.on_campaign_game_ended: Callable[[str, int, str, dict[str, Any]], None] | None = None
        #: called with (event id, game id, result, end time) when a club event's game ends
        self.on_event_game_ended: Callable[[str, str, dict[str, Any], str], None] | None = None
        self._lock = threading.Lock()
        #: the view's changes this process has announced (those before it started, the process
        #: that made them did; a board left behind is rewritten when read, :meth:`board`)
        self._announced: int | None = None
        try:
            self._announced = self.view.last_change()
        except (StoreUnavailable, PersistenceError) as exc:  # the store is down as the worker
            # starts: it boots and serves 503s, and takes the baseline once the store is back
            log.warning("ladders' last change not read at start: %s", exc)
        #: ladders whose board a Redis outage left behind: written whole next time
        self._replace: set[str] = set()
        self._names: OrderedDict[str, str] = OrderedDict()

    @property
    def view(self) -> LaddersView:
        view = self.runner.view
        assert isinstance(view, LaddersView)
        return view

    # -- the worker's step ------------------------------------------------------------------------
    def catch_up(self) -> None:
        """Bring the view up to the log and announce what changed (a writer's: the worker's step
        or a writing request; never a GET's)."""
        self.runner.run()
        self.announce()

    def record_results(self) -> None:
        """Bring the view up to the log and record the results of the ladder and campaign games
        that ended (the worker's step, or a writing request's that needs them at once)."""
        self.runner.run()
        while True:
            pending = self.pending()
            if not pending:
                break
            self.record(pending)
            self.runner.run()
            tried = {row["game"] for row in pending}
            for row in self.pending():  # still pending: nothing could be recorded
                if row["game"] in tried:
                    self.view.drop_pending(row["game"])
        self.announce()

    def pending(self) -> list[dict[str, Any]]:
        """The games that ended and whose result is not recorded yet, as the view has them."""
        return self.view.pending_games(PENDING_BATCH)

    def record(self, games: list[dict[str, Any]]) -> None:
        for row in games:
            game_id, result = row["game"], json.loads(row["result"] or "{}")
            detail = json.loads(row["detail"])
            try:
                if row["kind"] == "ladder":
                    scenario, sides = detail
                    self.store.save(
                        LadderResult.record(
                            ladder_id=row["owner"],
                            scenario=scenario,
                            sides=sides,
                            winner=result.get("winner"),
                            level=result.get("level"),
                            source="game",
                            source_id=game_id,
                            timestamp=parse_time(row["ended_at"]),
                        )
                    )
                elif row["kind"] == "campaign" and self.on_campaign_game_ended is not None:
                    self.on_campaign_game_ended(row["owner"], int(detail), game_id, result)
                elif row["kind"] == "event" and self.on_event_game_ended is not None:
                    self.on_event_game_ended(row["owner"], game_id, result, row["ended_at"])
            except IntegrityError:
                pass  # another worker recorded it first
            except DomainError as exc:
                log.warning("the result of game %s was not recorded: %s", game_id, exc.message)

    def rebuild(self, progress: Callable[[int, int], None] | None = None) -> dict[str, int]:
        """``arbiter projections rebuild ladders``, then any result still due recorded; every
        board written whole.  Returns how many ladders and results the view holds."""
        self.projections.rebuild("ladders", progress)
        self.record_results()
        with self._lock:
            if self.leaderboard is not None:
                self._replace.update(str(ladder["id"]) for ladder in self.view.changed_ladders(0))
            self._announced = 0
        self.announce()
        return self.view.totals()

    # -- the leaderboard and the broker -----------------------------------------------------------
    def announce(self) -> None:
        """Write the boards of the ladders whose standings changed since this process last
        looked, and publish a notice of each on its channel."""
        with self._lock:
            if self._announced is None:  # not read at start (the store was down): nothing this
                self._announced = self.view.last_change()  # process made since is missed
            since = self._announced
            for ladder in self.view.changed_ladders(since):
                self._announce(ladder, since)
                self._announced = max(self._announced, int(ladder["changed_at"]))

    def _announce(self, ladder: dict[str, Any], since: int) -> None:
        lid, position = str(ladder["id"]), int(ladder["changed_at"])
        replace = int(ladder["replaced_at"]) > since or lid in self._replace
        rows = [] if replace else self.named(self.view.changed_rows(lid, since))
        replace = replace or len(rows) > REPLACE_ABOVE
        if replace:
            rows = self.everyone(lid)
        if self._write(lid, rows, position, replace) is None:  # missing: Redis lost it
            self._write(lid, self.everyone(lid), position, True)
        self.broker.publish(ladder_channel(lid), self.notice(ladder, rows))

    def notice(self, ladder: dict[str, Any], rows: list[dict[str, Any]]) -> dict[str, Any]:
        return {
            "ladder": str(ladder["id"]),
            "position": int(ladder["changed_at"]),
            "results": int(ladder["results"]),
            "changed": sorted(r["username"] for r in rows)[:50],
            "top": self.top(str(ladder["id"]), 0, 10),
        }

    def _write(
        self, ladder_id: str, rows: list[dict[str, Any]], position: int, replace: bool
    ) -> bool | None:
        if self.leaderboard is None:
            return True
        try:
            done = self.leaderboard.write(ladder_id, rows, position, replace=replace)
        except ConnectionError as exc:
            self._replace.add(ladder_id)  # write it whole once Redis is back
            log.warning("leaderboard of ladder %s not updated: %s", ladder_id, exc)
            return True
        if done is not None:
            self._replace.discard(ladder_id)
        return done

    def republish(self, ladder_id: str, position: int) -> None:
        """Write a ladder's board whole from the view (Redis lost it, or it is behind)."""
        self._write(ladder_id, self.everyone(ladder_id), position, True)

    # -- reading the view -------------------------------------------------------------------------
    def named(self, rows: list[dict[str, Any]], offset: int | None = None) -> list[dict[str, Any]]:
        """Rows of the view as the board holds them (with the player's name); ranked from
        ``offset + 1`` if given."""
        out = []
        for n, row in enumerate(rows):
            found = {key: row[key] for key in ROW} | {"username": self._name(row["user"])}
            if offset is not None:
                found["rank"] = offset + n + 1
            out.append(found)
        return out

    def _name(self, uid: str) -> str:
        """A player's name (a bounded cache: an id that is no user's is looked up once)."""
        name = self._names.get(uid)
        if name is None:
            if len(self._names) >= NAMES_CACHED:
                self._names.popitem(last=False)
            name = self._names[uid] = self.users.username(uid)
        return name

    def top(self, ladder_id: str, offset: int, limit: int) -> list[dict[str, Any]]:
        """Rows ``offset``.. of the board best first, ranked, from the view."""
        return self.named(self.view.standings(ladder_id, offset, limit), offset)

    def everyone(self, ladder_id: str) -> list[dict[str, Any]]:
        """Every row of the board (unranked): the whole board, for Redis."""
        return self.named(self.view.standings(ladder_id, 0, EVERYONE))

    def standings(self, ladder_id: str) -> list[dict[str, Any]]:
        """Every current player in rank order, from the view (the order of the Redis board)."""
        return [row | {"rank": n} for n, row in enumerate(self.everyone(ladder_id), start=1)]
