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
``(ladder, shown, score, user)``, the results newest first by the keyset ``seq``."""

from __future__ import annotations

import json
import threading
from abc import abstractmethod
from dataclasses import dataclass, field
from datetime import datetime
from functools import singledispatchmethod
from typing import Any

from eventsourcing.persistence import Tracking
from eventsourcing.projection import Projection
from eventsourcing.utils import get_topic

from service.application.projections.view import View
from service.domain.campaigns import Campaign
from service.domain.game import Game
from service.domain.ladders import Challenge, Ladder, LadderResult, ResultReport
from service.domain.ratings.table import RatingTable, rank_score
from service.domain.tournaments import Tournament

DAY = 86400.0
#: the results a ladder's page shows (``recent_results``)
RECENT = 20
#: a page of results holds at most this many (:meth:`LaddersView.results`)
#: a page of standings holds at most this many (``GET /api/ladders/<id>/standings?limit=``)
STANDINGS_PAGE_MAX = 1000

#: the columns of a standings row as the API shows it
ROW = ("user", "rating", "rd", "volatility", "games", "wins", "draws", "losses")


def table_for(settings: dict[str, Any], epoch: float) -> RatingTable:
    return RatingTable(
        epoch=epoch,
        period_seconds=settings["rating_period_days"] * DAY,
        tau=settings["tau"],
        apply_sides=settings["side_adjustment"],
    )


@dataclass
class LadderState:
    """A ladder as a run of events changes it: its row, its rating table and players (joined,
    ``members``; who left, ``left``), what changed (written at the end of the run)."""

    id: str
    club_id: str
    name: str
    system: str
    scenario: str | None
    settings: dict[str, Any]
    created_by: str
    created_at: str
    created: int
    table: RatingTable
    members: set[str] = field(default_factory=set)
    left: set[str] = field(default_factory=set)
    #: the notification ids of its last event, its last change of standings, its last change of
    #: who is on the board (a join or a leave: the live board is then written whole)
    position: int = 0
    changed_at: int = 0
    replaced_at: int = 0
    #: the players whose row the run changed, each with the notification id of its last change
    marks: dict[str, int] = field(default_factory=dict)
    #: the results of the run (rows of ``ladder_results``), written with the ladder
    results: list[list[Any]] = field(default_factory=list)

    def blob(self) -> str:
        return json.dumps(
            {
                "table": self.table.to_dict(),
                "members": sorted(self.members),
                "left": sorted(self.left),
            },
            separators=(",", ":"),
        )

    @classmethod
    def of_row(cls, row: dict[str, Any]) -> LadderState:
        data = json.loads(row["state"])
        return cls(
            id=row["id"],
            club_id=row["club"],
            name=row["name"],
            system=row["system"],
            scenario=row["scenario"],
            settings=json.loads(row["settings"]),
            created_by=row["created_by"],
            created_at=row["created_at"],
            created=int(row["created"]),
            table=RatingTable.from_dict(data["table"]),
            members=set(data["members"]),
            left=set(data["left"]),
            position=int(row["position"]),
            changed_at=int(row["changed_at"]),
            replaced_at=int(row["replaced_at"]),
        )


class LaddersView(View):
    """The ladders' tables.  A ladder being changed is read once per run of events
    (:meth:`ladder_state`) and written at its end (:meth:`flush`, which the dialect's
    ``batch`` calls before it commits)."""

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
            table = state.table
            users = table.refresh() | set(state.marks)
            points = []
            for uid, player in table.players.items():
                for point in player.history:
                    points.append((uid, point))
                player.history = []  # stored as rows, not in the table's state
            rows = []
            for uid in sorted(users):
                if uid in table.players:
                    row = table.row(uid)
                    rows.append(
                        row
                        | {
                            "provisional": int(table.is_active(uid)),
                            "shown": int(uid not in state.left),
                            "member": int(uid in state.members),
                            "score": rank_score(row["rating"], row["rd"]),
                            "position": state.marks.get(uid, state.changed_at),
                        }
                    )
            self.save_ladder(state, rows, points)
            state.marks, state.results = {}, []
        dirty.clear()

    # -- writes -------------------------------------------------------------------------------------
    @abstractmethod
    def insert_ladder(self, state: LadderState, tracking: Tracking) -> None:
        """Add the ladder's row (nothing if it is there)."""

    @abstractmethod
    def save_ladder(
        self,
        state: LadderState,
        rows: list[dict[str, Any]],
        points: list[tuple[str, dict[str, Any]]],
    ) -> None:
        """Write the ladder's row, ``rows`` (its changed standings), ``points`` (new history:
        (user, point)) and its new results (``state.results``) -- in the run's transaction,
        whose tracking its events recorded."""

    @abstractmethod
    def write(self, tracking: Tracking, *statements: tuple[str, Any]) -> None:
        """Run ``statements`` (the view's SQL, tables as ``{name}``, parameters as ``%s``) and
        record ``tracking``, in one transaction (the run's, in one)."""

    @abstractmethod
    def query_one(self, text: str, params: list[Any]) -> dict[str, Any] | None:
        """The first row of a query of the view's SQL, or None."""

    # -- reads --------------------------------------------------------------------------------------
    @abstractmethod
    def ladder_row(self, ladder_id: str, *, state: bool = False) -> dict[str, Any] | None:
        """The ladder's row (with its table's state if ``state``), or None."""

    @abstractmethod
    def ladders_of_club(
        self, club: str, limit: int, after: tuple[int, str] | None
    ) -> list[dict[str, Any]]:
        """Up to ``limit`` of the club's ladders, oldest first (by ``(created, id)``), after the
        key ``after``."""

    @abstractmethod
    def ladders_of_member(
        self, user: str, limit: int, after: tuple[str, str] | None
    ) -> list[dict[str, Any]]:
        """Up to ``limit`` of the ladders ``user`` plays (joined, not left) by name (``name_key``:
        the name in lower case, as the store lowers it; then the id), after the key ``after``;
        each with ``user``'s row on its board and rank (``mine``: None when not on it)."""

    @abstractmethod
    def standings(self, ladder_id: str, offset: int, limit: int) -> list[dict[str, Any]]:
        """Rows ``offset`` .. ``offset + limit`` of the board, best first (no names)."""

    @abstractmethod
    def standing_of(self, ladder_id: str, user: str) -> dict[str, Any] | None:
        """``user``'s row on the board with its rank, or None when not on it."""

    @abstractmethod
    def player_row(self, ladder_id: str, user: str) -> dict[str, Any] | None:
        """``user``'s row (rating, rd, volatility, provisional), on the board or not."""

    @abstractmethod
    def board_size(self, ladder_id: str) -> int: ...

    @abstractmethod
    def changed_rows(self, ladder_id: str, since: int) -> list[dict[str, Any]]:
        """The board's rows changed after notification ``since`` (no names, unranked)."""

    @abstractmethod
    def changed_ladders(self, since: int) -> list[dict[str, Any]]:
        """The ladders whose standings changed after notification ``since`` (id, changed_at,
        replaced_at, results), oldest change first."""

    @abstractmethod
    def last_change(self) -> int:
        """The latest ``changed_at`` of any ladder (0 if none)."""

    @abstractmethod
    def history(self, ladder_id: str, user: str) -> list[dict[str, Any]]:
        """``user``'s rating at the end of each period played (final points only)."""

    @abstractmethod
    def challenges(
        self, ladder_id: str, status: str | None, limit: int, after: tuple[str, int] | None
    ) -> list[dict[str, Any]]:
        """Up to ``limit`` challenges (``status``: of that status), newest first (by
        ``issued_at`` descending, then ``position``), after the key ``after``."""

    @abstractmethod
    def open_challenge_between(self, ladder_id: str, one: str, other: str) -> str | None:
        """The id of an open challenge between the two, if any."""

    @abstractmethod
    def reports(
        self, ladder_id: str, status: str | None, limit: int, after: tuple[str, int] | None
    ) -> list[dict[str, Any]]:
        """Up to ``limit`` reports (``status``: of that status), newest first (by
        ``reported_at`` descending, then ``position``), after the key ``after``."""

    @abstractmethod
    def recent_results(self, ladder_id: str, limit: int) -> list[dict[str, Any]]:
        """The ladder's last ``limit`` results, newest first."""

    @abstractmethod
    def pending_games(self, limit: int) -> list[dict[str, Any]]:
        """Ladder and campaign games that ended and whose result is not recorded, oldest first."""

    @abstractmethod
    def drop_pending(self, game_id: str) -> None:
        """A pending game whose result cannot be recorded: no longer pending (the worker's)."""

    @abstractmethod
    def ladder_of_game(self, game_id: str) -> dict[str, Any] | None:
        """The row of the ladder a game belongs to, or None."""

    @abstractmethod
    def totals(self) -> dict[str, int]:
        """How many ladders and results the view holds."""


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


def parse_time(text: str) -> datetime:
    return datetime.fromisoformat(text)
