"""Standings and rating history: a projection of the notification log, rebuildable from scratch.

Each process follows the shared log (only the topics below), so every worker sees every ladder's
results.  Reading (:meth:`LadderFeed.catch_up`, what requests call) only projects: GETs never
write.  The worker's step (:meth:`LadderFeed.record_results`: ``arbiter worker``, or the thread of
``arbiter serve``) also records what the log calls for: the ladder result of a ladder game that
ended (``Game.Ended``), keyed by the game's id, so whichever worker gets there first records it and
the others' attempts are refused by the store; campaign games are scored the same way.  An ended
game waits in ``_pending`` until its result (``LadderResult.Recorded``, ``Campaign.StepScored``)
is read, so a process that never records holds only the games the worker has not reached yet.
After each catch-up the changed rows go to the live leaderboard (a Redis sorted set, when
configured) and a notice goes to the ``ladder:<id>`` channel of the broker."""

from __future__ import annotations

import logging
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from eventsourcing.persistence import IntegrityError
from eventsourcing.utils import get_topic

from service.application.ports import Broker
from service.application.store import ArbiterStore
from service.application.users import UserService
from service.domain.campaigns import Campaign
from service.domain.errors import DomainError
from service.domain.game import Game
from service.domain.ladders import Challenge, Ladder, LadderResult, ResultReport
from service.domain.ratings.table import RatingTable, ranked

log = logging.getLogger(__name__)
BATCH = 2000
DAY = 86400.0
RECENT = 20
#: ladders whose changed rows exceed this are rewritten whole in the leaderboard
REPLACE_ABOVE = 200

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
        Game.Created,
        Game.Ended,
    )
)


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

    def top(self, ladder_id: str, offset: int, limit: int) -> list[dict[str, Any]] | None:
        """Rows ``offset``.. in rank order, or None when the board is missing.  Raises ConnectionError."""
        ...


@dataclass
class LadderState:
    id: str
    club_id: str
    name: str
    system: str
    scenario: str | None
    settings: dict[str, Any]
    created_by: str
    created_at: str
    table: RatingTable
    players: set[str] = field(default_factory=set)
    left: set[str] = field(default_factory=set)
    challenges: dict[str, dict[str, Any]] = field(default_factory=dict)
    reports: dict[str, dict[str, Any]] = field(default_factory=dict)
    recent: deque[dict[str, Any]] = field(default_factory=lambda: deque(maxlen=RECENT))
    position: int = 0
    replace: bool = True


def table_for(settings: dict[str, Any], epoch: float) -> RatingTable:
    return RatingTable(
        epoch=epoch,
        period_seconds=settings["rating_period_days"] * DAY,
        tau=settings["tau"],
        apply_sides=settings["side_adjustment"],
    )


class LadderFeed:
    def __init__(
        self,
        store: ArbiterStore,
        users: UserService,
        broker: Broker,
        leaderboard: Leaderboard | None = None,
    ) -> None:
        self.store = store
        self.users = users
        self.broker = broker
        self.leaderboard = leaderboard
        #: called with (campaign id, step, game id, result) when a campaign game ends
        self.on_campaign_game_ended: Callable[[str, int, str, dict[str, Any]], None] | None = None
        self._lock = threading.RLock()
        self._last = 0.0
        self._names: dict[str, str] = {}
        self._reset()

    def _reset(self) -> None:
        self.position = 0
        self.ladders: dict[str, LadderState] = {}
        self.links: dict[str, tuple[str, str, Any]] = {}  # game -> (kind, owner id, detail)
        self._steps: dict[tuple[str, int], str] = {}  # (campaign id, step) -> its game
        self._recorded: set[str] = set()  # games whose ladder result is recorded
        self._pending: dict[str, tuple[dict[str, Any], Any]] = {}
        self._changed: set[str] = set()
        self._handlers: dict[type, Callable[[Any], None]] = {
            Ladder.Created: self._ladder_created,
            Ladder.SettingsChanged: self._settings_changed,
            Ladder.PlayerJoined: self._player_joined,
            Ladder.PlayerLeft: self._player_left,
            Challenge.Issued: self._challenge_issued,
            Challenge.Accepted: self._challenge_accepted,
            Challenge.Declined: self._challenge_closed,
            Challenge.Forfeited: self._challenge_closed,
            ResultReport.Reported: self._reported,
            ResultReport.Confirmed: self._report_closed,
            ResultReport.Rejected: self._report_closed,
            LadderResult.Recorded: self._result,
            Campaign.StepStarted: self._campaign_step,
            Campaign.StepScored: self._campaign_scored,
            Game.Created: self._game_created,
            Game.Ended: self._game_ended,
        }

    # -- following the log --------------------------------------------------------------------------
    def catch_up(self, progress: Callable[[int, int], None] | None = None) -> None:
        """Project every new notification (a read: it records nothing)."""
        with self._lock:
            self._follow(progress)
            self._flush()
            self._last = time.monotonic()

    def record_results(self, progress: Callable[[int, int], None] | None = None) -> None:
        """Project every new notification and record the results of ended ladder and campaign
        games (the worker's step; never a GET's)."""
        with self._lock:
            while True:
                self._follow(progress)
                if not self._pending:
                    break
                self._record_pending()
            self._flush()
            self._last = time.monotonic()

    def catch_up_if_due(self, max_age: float = 0.5) -> None:
        if time.monotonic() - self._last >= max_age:
            self.catch_up()

    def rebuild(self, progress: Callable[[int, int], None] | None = None) -> int:
        """Forget everything and replay the log from the start, recording any result still due
        (``arbiter ladders rebuild``); returns the number of results."""
        with self._lock:
            self._reset()
            self.record_results(progress)
            return sum(state.table.results for state in self.ladders.values())

    def _follow(self, progress: Callable[[int, int], None] | None) -> None:
        recorder, mapper = self.store.recorder, self.store.mapper
        total = (recorder.max_notification_id() or 0) if progress else 0
        while True:
            batch = recorder.select_notifications(
                start=self.position, limit=BATCH, topics=TOPICS, inclusive_of_start=False
            )
            for note in batch:
                event = mapper.to_domain_event(note)
                self.position = note.id
                self._handlers[type(event)](event)
            if progress:
                progress(self.position if len(batch) == BATCH else total, total)
            if len(batch) < BATCH:
                return

    def _record_pending(self) -> None:
        pending, self._pending = self._pending, {}
        for game_id, (result, timestamp) in pending.items():
            kind, owner, detail = self.links[game_id]
            try:
                if kind == "ladder" and game_id not in self._recorded:
                    scenario, sides = detail
                    record = LadderResult.record(
                        ladder_id=owner,
                        scenario=scenario,
                        sides=sides,
                        winner=result.get("winner"),
                        level=result.get("level"),
                        source="game",
                        source_id=game_id,
                        timestamp=timestamp,
                    )
                    self.store.save(record)
                elif kind == "campaign" and self.on_campaign_game_ended is not None:
                    self.on_campaign_game_ended(owner, detail, game_id, result)
            except IntegrityError:
                pass  # another worker recorded it first
            except DomainError as exc:
                log.warning("the result of game %s was not recorded: %s", game_id, exc.message)

    # -- projection -------------------------------------------------------------------------------
    def _ladder_created(self, e: Any) -> None:
        lid = str(e.originator_id)
        self.ladders[lid] = LadderState(
            id=lid,
            club_id=e.club_id,
            name=e.name,
            system=e.system,
            scenario=e.scenario,
            settings=dict(e.settings),
            created_by=e.created_by,
            created_at=e.timestamp.isoformat(),
            table=table_for(e.settings, e.timestamp.timestamp()),
        )
        self._touch(lid)

    def _settings_changed(self, e: Any) -> None:
        state = self.ladders[str(e.originator_id)]
        state.settings = dict(e.settings)
        state.table.configure(
            period_seconds=e.settings["rating_period_days"] * DAY,
            tau=e.settings["tau"],
            apply_sides=e.settings["side_adjustment"],
        )
        self._touch(state.id)

    def _player_joined(self, e: Any) -> None:
        state = self.ladders[str(e.originator_id)]
        state.players.add(e.user)
        state.left.discard(e.user)
        state.table.join(e.user)
        state.replace = True
        self._touch(state.id)

    def _player_left(self, e: Any) -> None:
        state = self.ladders[str(e.originator_id)]
        state.players.discard(e.user)
        state.left.add(e.user)
        state.replace = True
        self._touch(state.id)

    def _challenge_issued(self, e: Any) -> None:
        state = self.ladders[e.ladder_id]
        state.challenges[str(e.originator_id)] = {
            "id": str(e.originator_id),
            "ladder": e.ladder_id,
            "challenger": e.challenger,
            "opponent": e.opponent,
            "scenario": e.scenario,
            "challenger_side": e.challenger_side,
            "options": dict(e.options),
            "deadline": e.deadline,
            "status": "open",
            "game": None,
            "sides": {},
            "issued_at": e.timestamp.isoformat(),
        }
        self._touch(state.id, quiet=True)

    def _challenge_accepted(self, e: Any) -> None:
        challenge = self._challenge(e)
        challenge.update(status="accepted", game=e.game_id, sides=dict(e.sides))
        self.links[e.game_id] = ("ladder", challenge["ladder"], (challenge["scenario"], e.sides))

    def _game_created(self, e: Any) -> None:
        """A ladder game made by invitation (service/application/lifecycle.py), not a challenge."""
        ladder = e.labels.get("ladder")
        if ladder in self.ladders and str(e.originator_id) not in self.links:
            self.links[str(e.originator_id)] = ("ladder", ladder, (e.scenario, dict(e.sides)))

    def _challenge_closed(self, e: Any) -> None:
        kind = "declined" if isinstance(e, Challenge.Declined) else "forfeited"
        self._challenge(e)["status"] = kind

    def _challenge(self, e: Any) -> dict[str, Any]:
        for state in self.ladders.values():
            found = state.challenges.get(str(e.originator_id))
            if found is not None:
                self._touch(state.id, quiet=True)
                return found
        raise KeyError(e.originator_id)

    def _reported(self, e: Any) -> None:
        state = self.ladders[e.ladder_id]
        state.reports[str(e.originator_id)] = {
            "id": str(e.originator_id),
            "ladder": e.ladder_id,
            "reporter": e.reporter,
            "opponent": e.opponent,
            "scenario": e.scenario,
            "sides": dict(e.sides),
            "winner": e.winner,
            "level": e.level,
            "status": "reported",
            "reported_at": e.timestamp.isoformat(),
        }
        self._touch(state.id, quiet=True)

    def _report_closed(self, e: Any) -> None:
        for state in self.ladders.values():
            report = state.reports.get(str(e.originator_id))
            if report is not None:
                confirmed = isinstance(e, ResultReport.Confirmed)
                report["status"] = "confirmed" if confirmed else "rejected"
                self._touch(state.id, quiet=True)
                return

    def _result(self, e: Any) -> None:
        state = self.ladders[e.ladder_id]
        state.table.record(
            e.timestamp.timestamp(),
            e.sides,
            e.winner,
            e.scenario,
            learn_sides=e.source != "forfeit",
        )
        if e.source == "game":
            self._recorded.add(e.source_id)
            self._pending.pop(e.source_id, None)
        state.recent.append(
            {
                "id": str(e.originator_id),
                "scenario": e.scenario,
                "sides": dict(e.sides),
                "winner": e.winner,
                "level": e.level,
                "source": e.source,
                "source_id": e.source_id,
                "at": e.timestamp.isoformat(),
            }
        )
        self._touch(state.id)

    def _campaign_step(self, e: Any) -> None:
        self.links[e.game_id] = ("campaign", str(e.originator_id), e.step)
        self._steps[(str(e.originator_id), e.step)] = e.game_id

    def _campaign_scored(self, e: Any) -> None:
        game = self._steps.pop((str(e.originator_id), e.step), None)
        if game is not None:
            self._pending.pop(game, None)

    def _game_ended(self, e: Any) -> None:
        gid = str(e.originator_id)
        if gid in self.links:
            self._pending[gid] = (dict(e.result), e.timestamp)

    def _touch(self, ladder_id: str, quiet: bool = False) -> None:
        state = self.ladders[ladder_id]
        state.position = self.position
        if not quiet:
            self._changed.add(ladder_id)

    # -- output: the leaderboard and the broker ---------------------------------------------------
    def _flush(self) -> None:
        changed, self._changed = self._changed, set()
        for lid in changed:
            state = self.ladders[lid]
            users = state.table.refresh()
            everyone = self.rows(state)
            replace = state.replace or len(users) > REPLACE_ABOVE
            rows = everyone if replace else [r for r in everyone if r["user"] in users]
            if self._write(state, rows, replace) is None:  # the board is missing: Redis lost it
                self._write(state, everyone, True)
            state.replace = False
            top = ranked(everyone)[:10]
            self.broker.publish(
                ladder_channel(lid),
                {
                    "ladder": lid,
                    "position": state.position,
                    "results": state.table.results,
                    "changed": sorted(r["username"] for r in rows)[:50],
                    "top": top,
                },
            )

    def _write(self, state: LadderState, rows: list[dict[str, Any]], replace: bool) -> bool | None:
        if self.leaderboard is None:
            return True
        try:
            return self.leaderboard.write(state.id, rows, state.position, replace=replace)
        except ConnectionError as exc:
            state.replace = True  # write it whole once Redis is back
            log.warning("leaderboard of ladder %s not updated: %s", state.id, exc)
            return True

    def republish(self, ladder_id: str) -> None:
        """Write a ladder's board whole (after Redis lost it), from the projection."""
        with self._lock:
            state = self.ladders[ladder_id]
            self._write(state, self.rows(state), True)

    # -- queries ----------------------------------------------------------------------------------
    def rows(self, state: LadderState) -> list[dict[str, Any]]:
        """Every current player's row (unranked)."""
        table = state.table
        table.refresh()
        return [
            table.row(uid) | {"username": self._name(uid)}
            for uid in table.players
            if uid not in state.left
        ]

    def _name(self, uid: str) -> str:
        name = self._names.get(uid)
        if name is None:
            name = self._names[uid] = self.users.username(uid)
        return name

    def standings(self, state: LadderState) -> list[dict[str, Any]]:
        """Every current player in rank order (the order of the Redis board)."""
        with self._lock:
            rows = self.rows(state)
        return ranked(rows)

    def ladder(self, ladder_id: str) -> LadderState | None:
        """The projected ladder, catching up once if this worker has not seen it yet."""
        state = self.ladders.get(ladder_id)
        if state is None:
            self.catch_up()
            state = self.ladders.get(ladder_id)
        return state

    def ladder_of_game(self, game_id: str) -> LadderState | None:
        link = self.links.get(game_id)
        if link is None:
            self.catch_up()
            link = self.links.get(game_id)
        if link is None or link[0] != "ladder":
            return None
        return self.ladders[link[1]]
