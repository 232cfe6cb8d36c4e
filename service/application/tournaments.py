"""Club events (tournaments): create, players join or are invited, start, release Swiss rounds,
results from the games' ends and from the club's arbiter after a round's deadline, standings.

Each game of a round is a club game that starts when paired (``LifecycleService.create`` with
``paired``: the players joined the event to play its rounds, which is their consent), with the
event's scenario, options and clock, labelled with its event.  When it ends the worker's step records its result in the event (the ladders' view keeps
the event's games ``pending`` once ended, as a campaign's: ``LadderFeed.on_event_game_ended``);
an admin's writing command records what the worker has not yet.  GETs never write."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from contextlib import suppress
from datetime import datetime, timedelta
from typing import Any

from eventsourcing.persistence import IntegrityError

from service.application.clubs import ClubService
from service.application.games import GameService
from service.application.ladders import LadderService
from service.application.lifecycle import LifecycleService, utcnow
from service.application.standings import LadderFeed
from service.application.store import ArbiterStore
from service.application.users import UserService
from service.domain.errors import (
    Conflict,
    DomainError,
    Forbidden,
    Invalid,
    LimitReached,
    NotFound,
    StaleVersion,
    Unprocessable,
)
from service.domain.game import ADJUDICATIONS, DECLINED, check_clock
from service.domain.ladders import LadderResult
from service.domain.pairing import FIRST, SECOND, Round
from service.domain.tournaments import RUNNING_PER_CLUB, Tournament
from service.domain.users import User
from service.views.base import cut_page, page_limit
from service.views.runner import ProjectionRunner
from service.views.tournaments import TournamentsView

#: a round's players are warned this long before its deadline
WARN_BEFORE = timedelta(hours=24)
#: rounds warned per worker step
DUE_BATCH = 100


class TournamentService:
    def __init__(
        self,
        store: ArbiterStore,
        users: UserService,
        clubs: ClubService,
        games: GameService,
        lifecycle: LifecycleService,
        feed: LadderFeed,
        runner: ProjectionRunner,
        clock: Callable[[], datetime] = utcnow,
        ladders: LadderService | None = None,
    ) -> None:
        """``ladders``: the club's ladders, one of which may rate an event's games."""
        self.store = store
        self.users = users
        self.clubs = clubs
        self.games = games
        self.lifecycle = lifecycle
        self.feed = feed
        self.runner = runner
        self.clock = clock
        self.ladders = ladders
        feed.on_event_game_ended = self.game_ended

    @property
    def _view(self) -> TournamentsView:
        view = self.runner.view
        assert isinstance(view, TournamentsView)
        return view

    # -- commands ---------------------------------------------------------------------------------
    def create(self, club: str, by: User, spec: Mapping[str, Any]) -> Tournament:
        found = self.clubs.require_role(club, by, "admin")
        if self._view.running(str(found.id)) >= RUNNING_PER_CLUB:
            raise LimitReached(
                f"the club has {RUNNING_PER_CLUB} events not finished",
                {"club": [f"{RUNNING_PER_CLUB} events not finished: one must end first"]},
            )
        system, scenario = str(spec.get("system") or ""), str(spec.get("scenario") or "")
        try:
            rules = self.games.system(system)
        except DomainError:
            raise Unprocessable(f"no rules system {system!r}", {"system": ["unknown"]}) from None
        info = {s.id: s for s in rules.scenarios()}.get(scenario)
        if info is None:
            raise Unprocessable(
                f"no scenario {scenario!r} in {system}", {"scenario": ["unknown scenario"]}
            )
        clock = spec.get("clock")
        if clock is not None:
            clock = check_clock(clock)
        if self.ladders is not None:  # the games' options, checked as a ladder's are (400)
            try:
                self.ladders.check_ladder_options(
                    system, scenario, dict(spec.get("options") or {}), "options"
                )
            except Invalid as exc:
                raise Invalid("invalid game options", exc.details) from None
        ladder = self._fitting_ladder(spec.get("ladder"), str(found.id), system, scenario)
        event = Tournament.create(
            club_id=str(found.id),
            spec=spec,
            system=system,
            scenario=scenario,
            sides=list(info.sides),
            options=dict(spec.get("options") or {}),
            clock=clock,
            created_by=str(by.id),
            ladder=ladder,
        )
        return self._save(event)

    def join(self, event_id: str, by: User) -> Tournament:
        event = self._get(event_id, copy=True)
        if str(by.id) not in self.clubs.get(event.club_id).members:
            raise Forbidden("only a member of the club joins", {"event": ["not a club member"]})
        event.join(str(by.id), str(by.id))
        return self._save(event)

    def invite(self, event_id: str, by: User, username: str) -> Tournament:
        event = self._admin(event_id, by)
        user = self._user(username)
        if str(user.id) not in self.clubs.get(event.club_id).members:
            raise Unprocessable(
                "only a member of the club plays", {"username": [f"{username} is not a member"]}
            )
        event.join(str(user.id), str(by.id))
        return self._save(event)

    def remove(self, event_id: str, by: User, username: str) -> Tournament:
        event = self._get(event_id, copy=True)
        user = self._user(username)
        if user.id != by.id:  # a player leaves; an admin removes anyone
            event = self._admin(event_id, by)
        event.remove(str(user.id), str(by.id))
        return self._save(event)

    def start(self, event_id: str, by: User) -> Tournament:
        event = self._admin(event_id, by)
        total, rounds = event.plan_start()
        event.start(str(by.id), total)
        games: list[Any] = []
        for rnd in rounds:
            games += self._release(event, rnd, by)
        return self._save(event, *games)

    def next_round(
        self, event_id: str, by: User, results: Sequence[Mapping[str, Any]] = ()
    ) -> Tournament:
        """Release the next Swiss round; ``results`` (the admin's: forfeits or adjudications of
        the current round's unfinished games) are recorded first."""
        event = self._admin(event_id, by)
        ended: list[Any] = []
        for i, result in enumerate(results):
            ended += self._score(event, result, by, prefix=f"results.{i}.")
        rnd = event.plan_next_round()
        return self._save(event, *ended, *self._release(event, rnd, by))

    def record_result(self, event_id: str, by: User, result: Mapping[str, Any]) -> Tournament:
        """The club's arbiter records a result for a game unfinished at its round's deadline."""
        self.feed.record_results()
        event = self._get(event_id, copy=True)
        if not self.clubs.has_role(event.club_id, by.id, "arbiter"):
            raise Forbidden("only a club arbiter records a result", {"event": ["not an arbiter"]})
        number, _ = event.find_game(str(result.get("game")))
        deadline = datetime.fromisoformat(event.released[number - 1]["deadline"])
        if self.clock() < deadline:
            raise Conflict(
                "the round's deadline has not passed: the game is still being played",
                {"game": [f"deadline {deadline.isoformat()}"]},
            )
        return self._save(event, *self._score(event, result, by))

    def game_ended(
        self, event_id: str, game_id: str, result: dict[str, Any], ended_at: str | None = None
    ) -> None:
        """The worker's: a game of the event ended (its result: ``winner`` side or None).  A rated
        event's game is recorded in its ladder first (keyed by the game: once, whoever records
        it), then in the event -- a worker stopped between the two records the event's on its next
        step, the game staying pending until the event has it."""
        event = self._get(event_id, copy=True)
        try:
            _, game = event.find_game(game_id)
        except DomainError:
            return
        if game["result"] is not None:
            return
        winner = result.get("winner")
        index = event.sides.index(winner) if winner in event.sides else None
        if event.ladder:
            with suppress(IntegrityError):  # recorded already
                self.store.save(
                    LadderResult.record(
                        ladder_id=event.ladder,
                        scenario=event.scenario,
                        sides={
                            event.sides[FIRST]: game["first"],
                            event.sides[SECOND]: game["second"],
                        },
                        winner=event.sides[index] if index is not None else None,
                        level=result.get("level"),
                        source="game",
                        source_id=game_id,
                        timestamp=datetime.fromisoformat(ended_at) if ended_at else None,
                    )
                )
        event.score(game_id, index, "game", None)
        try:
            self.store.commit(event)
        except StaleVersion:
            return  # another worker got there first

    def check_deadlines(self, now: datetime | None = None) -> int:
        """The worker's step: warn the rounds whose deadline is within ``WARN_BEFORE`` and that
        still have unfinished games (``Tournament.DeadlineNear``, notified to their players)."""
        now = now or self.clock()
        self.runner.run()
        done = 0
        for row in self._view.due((now + WARN_BEFORE).isoformat(), DUE_BATCH):
            try:
                event = self._get(row["event"], copy=True)
                event.warn(int(row["number"]))
                self.store.commit(event)
                done += 1
            except (DomainError, StaleVersion):
                continue
        return done

    # -- queries ----------------------------------------------------------------------------------
    def get(self, event_id: str) -> Tournament:
        return self._get(event_id)

    def view(self, event_id: str, viewer: User | None = None) -> dict[str, Any]:
        """The event as its persisted view has it (``projections.tournaments``): settings, rounds
        with each game's sides, state and result, standings in rank order; and what ``viewer``
        may do.  Names, never ids, for players."""
        row = self._view.event_row(str(event_id))
        if row is None:
            raise NotFound(f"no event {event_id}", {"event": ["unknown"]})
        name = self.users.username
        detail = row["detail"]
        sides = detail["sides"]
        uid = str(viewer.id) if viewer else ""
        club = self.clubs.get(row["club"])
        players = self._view.players(row["id"])
        now = self.clock()
        rounds = []
        for rnd in self._view.rounds(row["id"]):
            games = []
            for g in rnd["games"]:
                scored = g["source"] is not None
                winner = g["winner"]
                games.append(
                    {
                        "game": g["game"],
                        "sides": {sides[FIRST]: name(g["first"]), sides[SECOND]: name(g["second"])},
                        "result": {
                            "winner": None if winner is None else sides[int(winner)],
                            "source": g["source"],
                        }
                        if scored
                        else None,
                        "state": "scored" if scored else "playing",
                    }
                )
            rounds.append(
                {
                    "number": int(rnd["number"]),
                    "games": games,
                    "bye": name(rnd["bye"]) if rnd["bye"] else None,
                    "deadline": rnd["deadline"],
                    "overdue": bool(
                        int(rnd["open_games"]) > 0
                        and now >= datetime.fromisoformat(rnd["deadline"])
                    ),
                }
            )
        return {
            "id": row["id"],
            "club": str(club.id),
            "club_name": club.name,
            "name": row["name"],
            "status": row["status"],
            "format": row["format"],
            "system": detail["system"],
            "scenario": detail["scenario"],
            "sides": sides,
            "options": detail["options"],
            "clock": detail["clock"],
            "rounds_total": row["rounds"],
            "double": detail["double"],
            "round_days": detail["round_days"],
            "scoring": detail["scoring"],
            "ladder": detail["ladder"],
            "players": [name(p) for p in players],
            "rounds": rounds,
            "standings": [
                {
                    "rank": r["rank"],
                    "player": name(r["player"]),
                    "points": r["points"],
                    "buchholz": r["buchholz"],
                    "sonneborn_berger": r["sonneborn_berger"],
                    "sides": {sides[FIRST]: r["sides"][0], sides[SECOND]: r["sides"][1]},
                    "wins": r["wins"],
                    "draws": r["draws"],
                    "losses": r["losses"],
                    "byes": r["byes"],
                }
                for r in self._view.standings(row["id"])
            ],
            "viewer": {
                "joined": uid in players,
                "member": uid in club.members,
                "admin": club.has_role(uid, "admin"),
                "arbiter": club.has_role(uid, "arbiter"),
            },
        }

    def of_club(
        self, club: str, *, limit: int = 50, after: tuple[int, str] | None = None
    ) -> tuple[list[dict[str, Any]], tuple[int, str] | None]:
        cid, limit = str(self.clubs.get(club).id), page_limit(limit)
        rows, key = cut_page(self._view.of_club(cid, limit + 1, after), limit, lambda r: r["key"])
        return [{k: v for k, v in r.items() if k != "key"} for r in rows], key

    # -- helpers ----------------------------------------------------------------------------------
    def _release(self, event: Tournament, rnd: Round, by: User) -> list[Any]:
        """The round released, and its games (with their dice seeds) for the caller to store
        with the event in one commit: an event that lost a race leaves no game behind."""
        number = len(event.released) + 1
        ids = []
        kept: list[Any] = []
        for p in rnd.pairings:
            game = self.lifecycle.create(
                creator=by,
                system=event.system,
                scenario=event.scenario,
                sides={
                    event.sides[FIRST]: self.users.username(p.first),
                    event.sides[SECOND]: self.users.username(p.second),
                },
                options=event.options,
                club=event.club_id,
                clock=event.clock,
                labels={"event": str(event.id), "title": f"{event.name}, round {number}"}
                | ({"rated": True} if event.ladder else {}),
                keep=kept,
                capped=False,  # the players joined the event: its rounds are theirs to play
                paired=True,  # and their joining is the consent: the game starts at once
            )
            ids.append(str(game.id))
        event.release(rnd, ids, str(by.id), self.clock())
        return kept

    def _score(
        self, event: Tournament, result: Mapping[str, Any], by: User, *, prefix: str = ""
    ) -> list[Any]:
        """Record a forfeit or an adjudication; problems name ``<prefix>game``, ``…winner``,
        ``…kind`` (``results.<i>.`` in a round's release).  Returns what is to be stored with
        the event, at once: the game ended with that result (``Game.Adjudicated``, then
        ``Ended``: no one plays on in a game the event has scored), and for a rated event the
        ladder's result."""
        kind = result.get("kind")
        if kind not in ADJUDICATIONS:
            raise Invalid("unknown kind of result", {f"{prefix}kind": [" or ".join(ADJUDICATIONS)]})
        winner = result.get("winner")
        if winner is not None and winner not in event.sides:
            raise Invalid(
                f"no side {winner!r}", {f"{prefix}winner": [f"{', '.join(event.sides)} or null"]}
            )
        index = None if winner is None else event.sides.index(winner)
        game_id, note = str(result.get("game")), str(result.get("note") or "")
        try:
            event.score(game_id, index, kind, str(by.id), note)
            ended = self._end_game(event, game_id, kind, winner, by, note)
        except DomainError as exc:
            exc.details = {f"{prefix}{k}": v for k, v in exc.details.items()}
            raise
        return ended

    def _end_game(
        self, event: Tournament, game_id: str, kind: str, winner: str | None, by: User, note: str
    ) -> list[Any]:
        """The event's game ended by the arbiter's result, and for a rated event the ladder's
        result of it (a game that never started, declined by a player, is only scored)."""
        game = self.games.get(game_id)
        if game.status == DECLINED:
            return []
        game.adjudicate(
            arbiter=str(by.id),
            kind=kind,
            winner=winner,
            note=note,
            seed=self.games.seed_of(game),
            ports=self.games.ports,
        )
        if not event.ladder:
            return [game]
        _, row = event.find_game(game_id)
        rated = LadderResult.record(
            ladder_id=event.ladder,
            scenario=event.scenario,
            sides={event.sides[FIRST]: row["first"], event.sides[SECOND]: row["second"]},
            winner=winner,
            level=kind,
            source="game",
            source_id=game_id,
            timestamp=self.clock(),
        )
        return [game, rated]

    def _fitting_ladder(
        self, ladder_id: Any, club_id: str, system: str, scenario: str
    ) -> str | None:
        """The club's ladder that is to rate the event's games, if it fits (422 naming ``ladder``
        otherwise): of the same club and system, and of this scenario or of any."""
        if ladder_id is None:
            return None
        if self.ladders is None:
            raise Unprocessable("no ladders here", {"ladder": ["unknown ladder"]})
        try:
            ladder = self.ladders.get(str(ladder_id))
        except (DomainError, ValueError):
            raise Unprocessable(f"no ladder {ladder_id}", {"ladder": ["unknown ladder"]}) from None
        if ladder.club_id != club_id:
            raise Unprocessable("the ladder is another club's", {"ladder": ["not this club's"]})
        if ladder.system != system or ladder.scenario not in (None, scenario):
            raise Unprocessable(
                "the ladder rates other games",
                {"ladder": [f"it plays {ladder.system} {ladder.scenario or '(any scenario)'}"]},
            )
        return str(ladder.id)

    def _user(self, username: str) -> User:
        try:
            return self.users.by_name(username)
        except NotFound:
            raise Unprocessable(f"no user {username!r}", {"username": ["unknown user"]}) from None

    def _admin(self, event_id: str, by: User) -> Tournament:
        """The event for a club admin to change, with the results of its ended games recorded
        first (a writing request: the next round can be released the moment the last ends)."""
        self.feed.record_results()
        event = self._get(event_id, copy=True)
        if not self.clubs.has_role(event.club_id, by.id, "admin"):
            raise Forbidden("only a club admin", {"event": ["not an admin of its club"]})
        return event

    def _get(self, event_id: str, copy: bool = False) -> Tournament:
        return self.store.get_as(event_id, Tournament, "event", "event", copy=copy)

    def _save(self, event: Tournament, *others: Any) -> Tournament:
        """The event, with ``others`` (games it ended, its ladder's results) in one commit."""
        self.store.commit(
            event,
            *others,
            conflict=Conflict(
                "the event changed meanwhile; try again", {"event": ["changed meanwhile; reload"]}
            ),
        )
        return event
