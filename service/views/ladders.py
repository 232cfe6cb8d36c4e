"""The ladders' view: each ladder (its settings and its rating table's state), its standings rows,
challenges, reports, results and each player's rating history, and the games of ladders and
campaigns and club events (a game that ended waits ``pending`` until its result is recorded) -- kept by
:class:`LaddersProjection` from the ladder, challenge, report, result, campaign-step and game events.

The ratings are :class:`~service.domain.ratings.table.RatingTable`'s own computation: a ladder's
table is stored whole (JSON) in its row, read by key when an event of the ladder comes, changed, and
written back with the standings rows it changed and the history points its closed periods made, in
the projection's transaction.  Within one run of events (a runner's transaction,
:meth:`LaddersView.batch`) a ladder is read and written once; nothing is kept in memory across
transactions.  Requests read the rows by key: a page of standings through the index of
``(ladder, shown, score, user)``, the results newest first by the keyset ``seq``.

In SQLite and PostgreSQL (:mod:`.base`): the tables are declared in :mod:`.ladder_tables`, the
ladder as a run of events changes it in :mod:`.ladder_state`.  A page of standings is read through
the index ``(ladder, shown, score, user_id)`` best first (an offset into it, at most
``STANDINGS_PAGE_MAX`` rows); a player's rank is a count over that index; the results newest first
by the keyset ``(ladder, seq)``; the pending games by ``(state, position)``."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from functools import singledispatchmethod
from typing import Any

from eventsourcing.persistence import Tracking
from eventsourcing.projection import Projection
from eventsourcing.utils import get_topic

from service.domain.campaigns import Campaign
from service.domain.game import Game
from service.domain.ladders import Challenge, Ladder, LadderResult, ResultReport
from service.domain.tournaments import Tournament
from service.views.base import SqlView
from service.views.ladder_state import DAY, LadderState, table_for
from service.views.ladder_tables import (
    BOARD,
    BOARD_NAMES,
    INSERT_POINT,
    INSERT_RESULT,
    LADDER_COLUMNS,
    LADDER_TABLES,
    STANDING_COLUMNS,
    UPSERT_STANDING,
)


class LaddersView(SqlView):
    """The ladders' tables.  A ladder being changed is read once per run of events
    (:meth:`ladder_state`) and written at its end (:meth:`flush`, which the dialect's
    ``batch`` calls before it commits)."""

    TABLES = LADDER_TABLES

    # -- the run's ladders (this thread's) ------------------------------------------------------------
    def _scratch(self) -> threading.local:
        local: threading.local | None = self.__dict__.get("_run")
        if local is None:
            local = self.__dict__.setdefault("_run", threading.local())
        return local

    def _dirty(self) -> dict[str, LadderState]:
        found: dict[str, LadderState] | None = getattr(self._scratch(), "ladders", None)
        if found is None:
            found = self._scratch().ladders = {}
        return found

    def forget_run(self) -> None:
        """Drop what the run read (its transaction ended: committed, or rolled back)."""
        self._scratch().ladders = {}

    def ladder_state(self, ladder_id: str) -> LadderState | None:
        """The ladder as this run has it (read by key the first time)."""
        dirty = self._dirty()
        state = dirty.get(ladder_id)
        if state is None:
            row = self.ladder_row(ladder_id, state=True)
            if row is None:
                return None
            state = dirty[ladder_id] = LadderState.of_row(row)
        return state

    def new_ladder(self, state: LadderState, tracking: Tracking) -> None:
        self._dirty()[state.id] = state
        self.insert_ladder(state, tracking)

    def flush(self) -> None:
        """Write every ladder the run changed: its row (and table), its changed standings rows and
        the history points of the periods it closed."""
        dirty = self._dirty()
        for state in dirty.values():
            rows, points = state.changes()
            self.save_ladder(state, rows, points)
            state.marks, state.results = {}, []
        dirty.clear()

    #: events per transaction of a rebuild (each writes the ladders it changed once)
    REBUILD_PER_TRANSACTION = 2000

    # -- a run of events: the ladders it changed are written before it commits -------------------------
    @contextmanager
    def batch(self, *, tracked: bool = True) -> Iterator[None]:
        local = self._local()
        if getattr(local, "cursor", None) is not None:
            yield  # already in one: the outer run writes them
            return
        local.first, local.last = None, None
        try:
            with super().batch(tracked=tracked):
                yield
                self.flush()
                if local.last is not None:
                    super()._track(local.cursor, local.last)
        finally:
            local.first = local.last = None
            self.forget_run()

    def _track(self, cursor: Any, tracking: Tracking) -> None:
        """In a run of events, the position is recorded for its first event (another runner that
        went first is refused at once) and its last (before the run commits), not for each."""
        local = self._local()
        if getattr(local, "cursor", None) is None:
            super()._track(cursor, tracking)
        elif local.first is None:
            super()._track(cursor, tracking)
            local.first = tracking
        else:
            local.last = tracking

    def sql(self, text: str) -> str:
        """:meth:`SqlView.sql`, each statement's text made once (the view has a few)."""
        made: dict[str, str] | None = self.__dict__.get("_made")
        if made is None:
            made = self.__dict__.setdefault("_made", {})
        found = made.get(text)
        if found is None:
            found = made[text] = super().sql(text)
        return found

    def _many(self, text: str, rows: list[list[Any]]) -> None:
        if not rows:
            return
        with self._in_batch_or(commit=True) as cursor:
            cursor.executemany(self.sql(text), rows)

    # -- writes -----------------------------------------------------------------------------------------
    def insert_ladder(self, state: LadderState, tracking: Tracking) -> None:
        """Add the ladder's row (nothing if it is there)."""
        self.write(
            tracking,
            (
                "INSERT INTO {ladders} (id, club, name, system, scenario, settings, created_by, "
                "created_at, created, results, period, players, state, sides, position, "
                "changed_at, replaced_at) VALUES "
                "(%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s) "
                "ON CONFLICT (id) DO NOTHING",
                [
                    state.id,
                    state.club_id,
                    state.name,
                    state.system,
                    state.scenario,
                    json.dumps(state.settings),
                    state.created_by,
                    state.created_at,
                    state.created,
                    0,
                    0,
                    0,
                    state.blob(),
                    "{}",
                    state.position,
                    state.changed_at,
                    state.replaced_at,
                ],
            ),
        )

    def save_ladder(
        self,
        state: LadderState,
        rows: list[dict[str, Any]],
        points: list[tuple[str, dict[str, Any]]],
    ) -> None:
        """Write the ladder's row, ``rows`` (its changed standings), ``points`` (new history:
        (user, point)) and its new results (``state.results``) -- in the run's transaction,
        whose tracking its events recorded."""
        table = state.table
        sides = {name: s.as_dict() for name, s in table.sides.scenarios.items()}
        with self._in_batch_or(commit=True) as cursor:
            cursor.execute(
                self.sql(
                    "UPDATE {ladders} SET settings = %s, results = %s, period = %s, players = %s, "
                    "state = %s, sides = %s, position = %s, changed_at = %s, replaced_at = %s "
                    "WHERE id = %s"
                ),
                [
                    json.dumps(state.settings),
                    table.results,
                    table.period,
                    len(state.members),
                    state.blob(),
                    json.dumps(sides),
                    state.position,
                    state.changed_at,
                    state.replaced_at,
                    state.id,
                ],
            )
        self._many(
            UPSERT_STANDING,
            [[state.id, *(row[c] for c in STANDING_COLUMNS), row["position"]] for row in rows],
        )
        self._many(INSERT_RESULT, state.results)
        self._many(
            INSERT_POINT,
            [
                [state.id, uid, p["period"], p["rating"], p["rd"], p["volatility"]]
                for uid, p in points
            ],
        )

    def drop_pending(self, game_id: str) -> None:
        """A pending game whose result cannot be recorded: no longer pending (the worker's)."""
        self.execute(
            "UPDATE {ladder_games} SET state = 'dropped' WHERE game = %s AND state = 'pending'",
            [game_id],
        )

    # -- reads ------------------------------------------------------------------------------------------
    def ladder_row(self, ladder_id: str, *, state: bool = False) -> dict[str, Any] | None:
        """The ladder's row (with its table's state if ``state``), or None."""
        columns = LADDER_COLUMNS + (", state" if state else "")
        return self.query_one(f"SELECT {columns} FROM {{ladders}} WHERE id = %s", [ladder_id])

    def ladders_of_club(
        self, club: str, limit: int, after: tuple[int, str] | None
    ) -> list[dict[str, Any]]:
        """Up to ``limit`` of the club's ladders, oldest first (by ``(created, id)``), after the
        key ``after``."""
        where, params = "club = %s", [club]
        if after is not None:
            where += " AND (created > %s OR (created = %s AND id > %s))"
            params += [after[0], after[0], after[1]]  # type: ignore[list-item]
        return self.query(
            f"SELECT {LADDER_COLUMNS} FROM {{ladders}} WHERE {where} ORDER BY created, id LIMIT %s",
            [*params, limit],
        )

    def ladders_of_member(
        self, user: str, limit: int, after: tuple[str, str] | None
    ) -> list[dict[str, Any]]:
        """Up to ``limit`` of the ladders ``user`` plays (joined, not left) by name (``name_key``:
        the name in lower case, as the store lowers it; then the id), after the key ``after``;
        each with ``user``'s row on its board and rank (``mine``: None when not on it)."""
        columns = ", ".join(f"l.{c.strip()}" for c in LADDER_COLUMNS.split(","))
        board = ", ".join(f"s.{c.strip()}" for c in BOARD.split(",")[1:])  # not the ladder
        # the rank: how many are above on the board (the board's index), for a row on it
        rank = (
            "CASE WHEN s.shown = 1 THEN 1 + (SELECT COUNT(*) FROM {ladder_standings} o "
            "WHERE o.ladder = s.ladder AND o.shown = 1 AND (o.score > s.score OR "
            "(o.score = s.score AND o.user_id > s.user_id))) END AS rank"
        )
        where, params = "s.user_id = %s AND s.member = 1", [user]
        if after is not None:
            where += (
                " AND (LOWER(l.name) {bytewise} > %s OR "
                "(LOWER(l.name) {bytewise} = %s AND l.id > %s))"
            )
            params += [after[0], after[0], after[1]]
        found = self.query(
            f"SELECT {columns}, LOWER(l.name) {{bytewise}} AS name_key, s.shown, {board}, {rank} "
            "FROM {ladder_standings} s JOIN {ladders} l ON l.id = s.ladder "
            f"WHERE {where} ORDER BY name_key, l.id LIMIT %s",
            [*params, limit],
        )
        out = []
        for row in found:
            mine = {k: row.pop(k) for k in [*BOARD_NAMES, "rank", "shown"] if k != "ladder"}
            shown = int(mine.pop("shown"))
            out.append(row | {"mine": mine | {"ladder": row["id"]} if shown else None})
        return out

    def standings(self, ladder_id: str, offset: int, limit: int) -> list[dict[str, Any]]:
        """Rows ``offset`` .. ``offset + limit`` of the board, best first (no names)."""
        return self.query(
            f"SELECT {BOARD} FROM {{ladder_standings}} WHERE ladder = %s AND shown = 1 "
            "ORDER BY score DESC, user_id DESC LIMIT %s OFFSET %s",
            [ladder_id, limit, offset],
        )

    def standing_of(self, ladder_id: str, user: str) -> dict[str, Any] | None:
        """``user``'s row on the board with its rank, or None when not on it."""
        row = self.query_one(
            f"SELECT {BOARD} FROM {{ladder_standings}} WHERE ladder = %s AND user_id = %s "
            "AND shown = 1",
            [ladder_id, user],
        )
        if row is None:
            return None
        above = self.query_one(
            "SELECT COUNT(*) AS n FROM {ladder_standings} WHERE ladder = %s AND shown = 1 "
            "AND (score > %s OR (score = %s AND user_id > %s))",
            [ladder_id, row["score"], row["score"], user],
        )
        return row | {"rank": int(above["n"] if above else 0) + 1}

    def player_row(self, ladder_id: str, user: str) -> dict[str, Any] | None:
        """``user``'s row (rating, rd, volatility, provisional), on the board or not."""
        return self.query_one(
            "SELECT rating, rd, volatility, provisional FROM {ladder_standings} "
            "WHERE ladder = %s AND user_id = %s",
            [ladder_id, user],
        )

    def board_size(self, ladder_id: str) -> int:
        found = self.query_one(
            "SELECT COUNT(*) AS n FROM {ladder_standings} WHERE ladder = %s AND shown = 1",
            [ladder_id],
        )
        return int(found["n"]) if found else 0

    def changed_rows(self, ladder_id: str, since: int) -> list[dict[str, Any]]:
        """The board's rows changed after notification ``since`` (no names, unranked)."""
        return self.query(
            f"SELECT {BOARD} FROM {{ladder_standings}} WHERE ladder = %s AND position > %s "
            "AND shown = 1",
            [ladder_id, since],
        )

    def changed_ladders(self, since: int) -> list[dict[str, Any]]:
        """The ladders whose standings changed after notification ``since`` (id, changed_at,
        replaced_at, results), oldest change first."""
        return self.query(
            "SELECT id, changed_at, replaced_at, results FROM {ladders} WHERE changed_at > %s "
            "ORDER BY changed_at",
            [since],
        )

    def last_change(self) -> int:
        """The latest ``changed_at`` of any ladder (0 if none)."""
        found = self.query_one("SELECT MAX(changed_at) AS n FROM {ladders}", [])
        return int(found["n"] or 0) if found else 0

    def history(self, ladder_id: str, user: str) -> list[dict[str, Any]]:
        """``user``'s rating at the end of each period played (final points only)."""
        return self.query(
            "SELECT period, rating, rd, volatility FROM {ladder_history} WHERE ladder = %s "
            "AND user_id = %s ORDER BY period",
            [ladder_id, user],
        )

    def challenges(
        self, ladder_id: str, status: str | None, limit: int, after: tuple[str, int] | None
    ) -> list[dict[str, Any]]:
        """Up to ``limit`` challenges (``status``: of that status), newest first (by
        ``issued_at`` descending, then ``position``), after the key ``after``."""
        return self._newest("ladder_challenges", "issued_at", ladder_id, status, limit, after)

    def _newest(
        self,
        table: str,
        at: str,
        ladder_id: str,
        status: str | None,
        limit: int,
        after: tuple[str, int] | None,
    ) -> list[dict[str, Any]]:
        """A page of ``table``'s rows of a ladder newest first by ``(at DESC, position)`` (the
        table's ``listing`` and ``by_status`` indexes), after the key ``after``."""
        where, params = "ladder = %s", [ladder_id]
        if status is not None:
            where, params = where + " AND status = %s", [*params, status]
        if after is not None:
            where += f" AND ({at} < %s OR ({at} = %s AND position > %s))"
            params += [after[0], after[0], after[1]]  # type: ignore[list-item]
        return self.query(
            f"SELECT * FROM {{{table}}} WHERE {where} ORDER BY {at} DESC, position ASC LIMIT %s",
            [*params, limit],
        )

    def open_challenge_between(self, ladder_id: str, one: str, other: str) -> str | None:
        """The id of an open challenge between the two, if any."""
        found = self.query_one(
            "SELECT id FROM {ladder_challenges} WHERE ladder = %s AND status = 'open' AND "
            "((challenger = %s AND opponent = %s) OR (challenger = %s AND opponent = %s)) "
            "ORDER BY issued_at, position",
            [ladder_id, one, other, other, one],
        )
        return str(found["id"]) if found else None

    def reports(
        self, ladder_id: str, status: str | None, limit: int, after: tuple[str, int] | None
    ) -> list[dict[str, Any]]:
        """Up to ``limit`` reports (``status``: of that status), newest first (by
        ``reported_at`` descending, then ``position``), after the key ``after``."""
        return self._newest("ladder_reports", "reported_at", ladder_id, status, limit, after)

    def recent_results(self, ladder_id: str, limit: int) -> list[dict[str, Any]]:
        """The ladder's last ``limit`` results, newest first."""
        return self.query(
            "SELECT * FROM {ladder_results} WHERE ladder = %s ORDER BY seq DESC LIMIT %s",
            [ladder_id, limit],
        )

    def pending_games(self, limit: int) -> list[dict[str, Any]]:
        """Ladder and campaign games that ended and whose result is not recorded, oldest first."""
        return self.query(
            "SELECT * FROM {ladder_games} WHERE state = 'pending' ORDER BY position LIMIT %s",
            [limit],
        )

    def ladder_of_game(self, game_id: str) -> dict[str, Any] | None:
        """The row of the ladder a game belongs to, or None."""
        columns = ", ".join(f"l.{c.strip()}" for c in LADDER_COLUMNS.split(","))
        return self.query_one(
            f"SELECT {columns} FROM {{ladder_games}} g JOIN {{ladders}} l ON l.id = g.owner "
            "WHERE g.game = %s AND g.kind = 'ladder'",
            [game_id],
        )

    def totals(self) -> dict[str, int]:
        """How many ladders and results the view holds."""
        found = self.query_one(
            "SELECT COUNT(*) AS ladders, COALESCE(SUM(results), 0) AS results FROM {ladders}", []
        )
        return {k: int(v) for k, v in (found or {"ladders": 0, "results": 0}).items()}


def _sides(value: Any) -> dict[str, str]:
    return {str(k): str(v) for k, v in dict(value).items()}


TOPICS = tuple(
    get_topic(cls)
    for cls in (
        Ladder.Created,
        Ladder.SettingsChanged,
        Ladder.PlayerJoined,
        Ladder.PlayerLeft,
        Challenge.Issued,
        Challenge.Accepted,
        Challenge.Declined,
        Challenge.Forfeited,
        ResultReport.Reported,
        ResultReport.Confirmed,
        ResultReport.Rejected,
        LadderResult.Recorded,
        Campaign.StepStarted,
        Campaign.StepScored,
        Tournament.RoundReleased,
        Tournament.GameScored,
        Game.Created,
        Game.Ended,
    )
)
#: what a writing request reads back at once (read-your-writes): not the games' own events (every
#: game's creation and end), which only the worker's step needs (it records the results)
SEEN_TOPICS = tuple(t for t in TOPICS if not t.startswith(get_topic(Game) + "."))


class LaddersProjection(Projection[LaddersView]):
    name = "ladders"
    topics = TOPICS
    seen_topics = SEEN_TOPICS

    @singledispatchmethod
    def process_event(self, domain_event: Any, tracking: Tracking) -> None:
        self.view.insert_tracking(tracking)  # not a topic of this view: only the position

    def _touch(self, state: LadderState, tracking: Tracking) -> None:
        state.position = state.changed_at = tracking.notification_id

    # -- ladders ------------------------------------------------------------------------------------
    @process_event.register
    def _(self, e: Ladder.Created, tracking: Tracking) -> None:
        with self.view.batch():
            lid = str(e.originator_id)
            if self.view.ladder_state(lid) is not None:
                self.view.insert_tracking(tracking)
                return
            state = LadderState(
                id=lid,
                club_id=e.club_id,
                name=e.name,
                system=e.system,
                scenario=e.scenario,
                settings=dict(e.settings),
                created_by=e.created_by,
                created_at=e.timestamp.isoformat(),
                created=tracking.notification_id,
                table=table_for(e.settings, e.timestamp.timestamp()),
            )
            self._touch(state, tracking)
            state.replaced_at = tracking.notification_id
            self.view.new_ladder(state, tracking)

    @process_event.register
    def _(self, e: Ladder.SettingsChanged, tracking: Tracking) -> None:
        with self.view.batch():
            state = self.view.ladder_state(str(e.originator_id))
            if state is not None:
                state.settings = dict(e.settings)
                state.table.configure(
                    period_seconds=e.settings["rating_period_days"] * DAY,
                    tau=e.settings["tau"],
                    apply_sides=e.settings["side_adjustment"],
                )
                self._touch(state, tracking)
            self.view.insert_tracking(tracking)

    @process_event.register
    def _(self, e: Ladder.PlayerJoined, tracking: Tracking) -> None:
        with self.view.batch():
            state = self.view.ladder_state(str(e.originator_id))
            if state is not None:
                state.members.add(e.user)
                state.left.discard(e.user)
                state.table.join(e.user)
                state.marks[e.user] = tracking.notification_id
                self._touch(state, tracking)
                state.replaced_at = tracking.notification_id
            self.view.insert_tracking(tracking)

    @process_event.register
    def _(self, e: Ladder.PlayerLeft, tracking: Tracking) -> None:
        with self.view.batch():
            state = self.view.ladder_state(str(e.originator_id))
            if state is not None:
                state.members.discard(e.user)
                state.left.add(e.user)
                state.marks[e.user] = tracking.notification_id
                self._touch(state, tracking)
                state.replaced_at = tracking.notification_id
            self.view.insert_tracking(tracking)

    # -- challenges ---------------------------------------------------------------------------------
    @process_event.register
    def _(self, e: Challenge.Issued, tracking: Tracking) -> None:
        self.view.write(
            tracking,
            (
                "INSERT INTO {ladder_challenges} (id, ladder, challenger, opponent, scenario, "
                "challenger_side, options, deadline, status, game, sides, issued_at, "
                "position) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s) "
                "ON CONFLICT (id) DO NOTHING",
                [
                    str(e.originator_id),
                    e.ladder_id,
                    e.challenger,
                    e.opponent,
                    e.scenario,
                    e.challenger_side,
                    json.dumps(dict(e.options)),
                    e.deadline,
                    "open",
                    None,
                    "{}",
                    e.timestamp.isoformat(),
                    tracking.notification_id,
                ],
            ),
        )

    @process_event.register
    def _(self, e: Challenge.Accepted, tracking: Tracking) -> None:
        cid = str(e.originator_id)
        found = self.view.query_one(
            "SELECT ladder, scenario FROM {ladder_challenges} WHERE id = %s", [cid]
        )
        if found is None:
            self.view.insert_tracking(tracking)
            return
        detail = json.dumps([found["scenario"], _sides(e.sides)])
        self.view.write(
            tracking,
            (
                "UPDATE {ladder_challenges} SET status = %s, game = %s, sides = %s WHERE id = %s",
                ["accepted", e.game_id, json.dumps(_sides(e.sides)), cid],
            ),
            (  # the challenge's scenario and sides replace those of the game's creation
                "INSERT INTO {ladder_games} (game, kind, owner, step, detail, state, position) "
                "VALUES (%s, %s, %s, %s, %s, %s, %s) ON CONFLICT (game) DO UPDATE SET "
                "kind = excluded.kind, owner = excluded.owner, detail = excluded.detail",
                [e.game_id, "ladder", found["ladder"], None, detail, "open", 0],
            ),
        )

    @process_event.register
    def _(self, e: Challenge.Declined, tracking: Tracking) -> None:
        self._challenge_closed(str(e.originator_id), "declined", tracking)

    @process_event.register
    def _(self, e: Challenge.Forfeited, tracking: Tracking) -> None:
        self._challenge_closed(str(e.originator_id), "forfeited", tracking)

    def _challenge_closed(self, cid: str, status: str, tracking: Tracking) -> None:
        self.view.write(
            tracking,
            ("UPDATE {ladder_challenges} SET status = %s WHERE id = %s", [status, cid]),
        )

    # -- face-to-face reports -----------------------------------------------------------------------
    @process_event.register
    def _(self, e: ResultReport.Reported, tracking: Tracking) -> None:
        self.view.write(
            tracking,
            (
                "INSERT INTO {ladder_reports} (id, ladder, reporter, opponent, scenario, sides, "
                "winner, level, status, reported_at, position) "
                "VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s) ON CONFLICT (id) DO NOTHING",
                [
                    str(e.originator_id),
                    e.ladder_id,
                    e.reporter,
                    e.opponent,
                    e.scenario,
                    json.dumps(_sides(e.sides)),
                    e.winner,
                    e.level,
                    "reported",
                    e.timestamp.isoformat(),
                    tracking.notification_id,
                ],
            ),
        )

    @process_event.register
    def _(self, e: ResultReport.Confirmed, tracking: Tracking) -> None:
        self._report_closed(str(e.originator_id), "confirmed", tracking)

    @process_event.register
    def _(self, e: ResultReport.Rejected, tracking: Tracking) -> None:
        self._report_closed(str(e.originator_id), "rejected", tracking)

    def _report_closed(self, rid: str, status: str, tracking: Tracking) -> None:
        self.view.write(
            tracking, ("UPDATE {ladder_reports} SET status = %s WHERE id = %s", [status, rid])
        )

    # -- results ------------------------------------------------------------------------------------
    @process_event.register
    def _(self, e: LadderResult.Recorded, tracking: Tracking) -> None:
        with self.view.batch():
            state = self.view.ladder_state(e.ladder_id)
            if state is None:
                self.view.insert_tracking(tracking)
                return
            at = tracking.notification_id
            if state.table.period_of(e.timestamp.timestamp()) > state.table.period:
                # the open period closes: every player's row changes (their deviation grows)
                state.marks.update(dict.fromkeys(state.table.players, at))
            state.marks.update(dict.fromkeys(e.sides.values(), at))
            state.table.record(
                e.timestamp.timestamp(),
                e.sides,
                e.winner,
                e.scenario,
                learn_sides=e.source != "forfeit",
            )
            self._touch(state, tracking)
            state.results.append(
                [
                    e.ladder_id,
                    state.table.results,
                    str(e.originator_id),
                    e.scenario,
                    json.dumps(_sides(e.sides)),
                    e.winner,
                    e.level,
                    e.source,
                    e.source_id,
                    e.timestamp.isoformat(),
                ]
            )
            if e.source == "game":  # the game's result is recorded: no longer pending (a club
                # event's game waits for the event's own record: Tournament.GameScored)
                self.view.write(
                    tracking,
                    (
                        "UPDATE {ladder_games} SET state = 'done' WHERE game = %s "
                        "AND kind <> 'event'",
                        [e.source_id],
                    ),
                )
            else:
                self.view.insert_tracking(tracking)

    # -- the games of ladders and campaigns ---------------------------------------------------------
    @process_event.register
    def _(self, e: Game.Created, tracking: Tracking) -> None:
        """A ladder game made by invitation (service/application/lifecycle.py), not a challenge."""
        ladder = e.labels.get("ladder")
        if not isinstance(ladder, str) or self.view.ladder_row(ladder) is None:
            self.view.insert_tracking(tracking)
            return
        detail = json.dumps([e.scenario, _sides(e.sides)])
        self.view.write(
            tracking,
            (
                "INSERT INTO {ladder_games} (game, kind, owner, step, detail, state, position) "
                "VALUES (%s, %s, %s, %s, %s, %s, %s) ON CONFLICT (game) DO NOTHING",
                [str(e.originator_id), "ladder", ladder, None, detail, "open", 0],
            ),
        )

    @process_event.register
    def _(self, e: Campaign.StepStarted, tracking: Tracking) -> None:
        self.view.write(
            tracking,
            (
                "INSERT INTO {ladder_games} (game, kind, owner, step, detail, state, position) "
                "VALUES (%s, %s, %s, %s, %s, %s, %s) ON CONFLICT (game) DO UPDATE SET "
                "kind = excluded.kind, owner = excluded.owner, step = excluded.step, "
                "detail = excluded.detail",
                [
                    e.game_id,
                    "campaign",
                    str(e.originator_id),
                    e.step,
                    json.dumps(e.step),
                    "open",
                    0,
                ],
            ),
        )

    @process_event.register
    def _(self, e: Campaign.StepScored, tracking: Tracking) -> None:
        self.view.write(
            tracking,
            (
                "UPDATE {ladder_games} SET state = 'done' WHERE kind = 'campaign' AND owner = %s "
                "AND step = %s",
                [str(e.originator_id), e.step],
            ),
        )

    @process_event.register
    def _(self, e: Tournament.RoundReleased, tracking: Tracking) -> None:
        """A club event's round: its games wait for their end like a campaign's."""
        self.view.write(
            tracking,
            *(
                (
                    "INSERT INTO {ladder_games} (game, kind, owner, step, detail, state, position) "
                    "VALUES (%s, %s, %s, %s, %s, %s, %s) ON CONFLICT (game) DO NOTHING",
                    [g["game"], "event", str(e.originator_id), e.number, "{}", "open", 0],
                )
                for g in e.games
            ),
        )

    @process_event.register
    def _(self, e: Tournament.GameScored, tracking: Tracking) -> None:
        self.view.write(
            tracking,
            (
                "UPDATE {ladder_games} SET state = 'done' WHERE kind = 'event' AND game = %s",
                [e.game],
            ),
        )

    @process_event.register
    def _(self, e: Game.Ended, tracking: Tracking) -> None:
        self.view.write(
            tracking,
            (
                "UPDATE {ladder_games} SET state = 'pending', result = %s, ended_at = %s, "
                "position = %s WHERE game = %s AND state = 'open'",
                [
                    json.dumps(dict(e.result)),
                    e.timestamp.isoformat(),
                    tracking.notification_id,
                    str(e.originator_id),
                ],
            ),
        )
