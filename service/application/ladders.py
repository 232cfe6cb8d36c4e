"""Ladder commands and queries: settings, players, challenges, face-to-face reports, standings.

The queries read the persisted ladders' view (``service.views.ladders``) by key: a writing request
reads its own write (``Projections.seen``), the worker keeps the view up to the log, and no GET
writes anything."""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from typing import Any
from uuid import UUID

from service.application.clubs import ClubService
from service.application.games import GameService
from service.application.scenarios import ScenarioChoice, ScenarioLibrary
from service.application.standings import LadderFeed
from service.application.store import ArbiterStore
from service.application.users import UserService
from service.domain.errors import Conflict, DomainError, Invalid, NotFound, Unprocessable
from service.domain.game import Game
from service.domain.ladders import Challenge, Ladder, LadderResult, ResultReport
from service.domain.users import User
from service.rules.base import ScenarioError
from service.views.base import PAGE_MAX, cut_page, every_page, page_limit
from service.views.ladder_state import RECENT, STANDINGS_PAGE_MAX
from service.views.ladders import LaddersView


def utcnow() -> datetime:
    return datetime.now(UTC)


class LadderService:
    def __init__(
        self,
        store: ArbiterStore,
        users: UserService,
        clubs: ClubService,
        games: GameService,
        feed: LadderFeed,
        clock: Callable[[], datetime] = utcnow,
        scenarios: ScenarioLibrary | None = None,
    ) -> None:
        self.store = store
        self.users = users
        self.clubs = clubs
        self.games = games
        self.feed = feed
        self.clock = clock
        self.scenarios = scenarios or ScenarioLibrary(store, games.registry, clubs)

    # -- ladders ----------------------------------------------------------------------------------
    def create(
        self,
        club: str,
        by: User,
        *,
        name: str,
        system: str,
        scenario: str | None = None,
        scenario_version: int | None = None,
        settings: Mapping[str, Any] | None = None,
        options: Mapping[str, Any] | None = None,
    ) -> Ladder:
        """A new ladder.  ``scenario``: one scenario for every game, a system's own or a club
        scenario the creator may read (``scenario_version``, default its latest): the ladder pins
        that version (``<id>@<version>``) and its challenge games start from it.  ``options`` (or
        ``settings["options"]``): the game options every game of the ladder is created with,
        checked against the system (400 naming ``options.<name>``)."""
        found = self.clubs.require_role(club, by, "admin")
        if system not in self.games.registry.names():
            raise Unprocessable(
                f"no rules system {system!r}",
                {"system": [f"known: {', '.join(self.games.registry.names())}"]},
            )
        if scenario is None and scenario_version is not None:
            raise Unprocessable(
                "a version of which scenario?", {"scenario_version": ["give scenario too"]}
            )
        if scenario is not None:
            scenario = self._sided(
                self.scenarios.choose(system, scenario, scenario_version, by)
            ).name
        settings = dict(settings or {})
        if isinstance(settings.get("options"), Mapping):
            self.check_ladder_options(system, scenario, settings["options"], "settings.options")
        if options is not None:
            self.check_ladder_options(system, scenario, options, "options")
            settings["options"] = {**(settings.get("options") or {}), **options}
        ladder = Ladder.create(
            club_id=str(found.id),
            name=name,
            system=system,
            scenario=scenario,
            settings=settings,
            created_by=str(by.id),
        )
        return self._save(ladder)

    def change_settings(self, ladder_id: str, by: User, changes: Mapping[str, Any]) -> Ladder:
        ladder = self._get(ladder_id, Ladder, copy=True)
        self.clubs.require_role(ladder.club_id, by, "admin")
        if isinstance(changes.get("options"), Mapping):
            self.check_ladder_options(ladder.system, ladder.scenario, changes["options"], "options")
        ladder.change_settings(str(by.id), changes)
        return self._save(ladder)

    def check_ladder_options(
        self, system: str, scenario: str | None, options: Mapping[str, Any], field: str
    ) -> None:
        """A ladder's game options, checked against the system's ``default_options`` of its
        scenario (of every scenario a ladder of the whole system may play: an option known to
        none is unknown, a value any scenario knowing the option refuses is bad).  Problems are
        a 400 naming ``<field>.<name>``, nothing written."""
        rules = self.games.system(system)
        scenarios = [scenario] if scenario else [s.id for s in rules.scenarios()]
        problems: dict[str, list[str]] = {}
        known: set[str] = set()
        for sid in scenarios:
            choice = self.scenarios.chosen(system, sid)
            defaults = choice.default_options(rules)
            known |= set(defaults)
            mine = {k: v for k, v in options.items() if k in defaults}
            try:
                choice.initial_state(rules, {**defaults, **mine})
            except ScenarioError as exc:
                for place, reasons in exc.problems.items():
                    name = place.removeprefix("options.")
                    problems.setdefault(f"{field}.{name}", reasons)
        for name in options:
            if name not in known:
                problems[f"{field}.{name}"] = [
                    f"unknown option of {system}; known: {', '.join(sorted(known)) or 'none'}"
                ]
        if problems:
            raise Invalid("invalid ladder game options", problems)

    def game_options(
        self, ladder: Ladder, choice: ScenarioChoice, options: Mapping[str, Any] | None
    ) -> dict[str, Any]:
        """The options of a game of ``ladder`` in ``choice``'s scenario: the given ones, then the
        ladder's (those the scenario knows) over them -- the ladder's options win."""
        fixed = ladder.settings["options"]
        if not fixed:
            return dict(options or {})
        known = choice.default_options(self.games.system(ladder.system))
        return {**dict(options or {}), **{k: v for k, v in fixed.items() if k in known}}

    def game_options_named(
        self, ladder: Ladder, scenario: str, options: Mapping[str, Any] | None
    ) -> dict[str, Any]:
        """:meth:`game_options` for a game created with ``"ladder"`` naming its scenario; a
        scenario that cannot be resolved here is left for creating the game to refuse."""
        try:
            choice = self.scenarios.chosen(ladder.system, scenario)
        except (ScenarioError, DomainError):
            return dict(options or {})
        return self.game_options(ladder, choice, options)

    def join(self, ladder_id: str, user: User) -> Ladder:
        ladder = self._get(ladder_id, Ladder, copy=True)
        self.clubs.require_role(ladder.club_id, user, "player")
        ladder.join(str(user.id))
        return self._save(ladder)

    def leave(self, ladder_id: str, user: User) -> Ladder:
        ladder = self._get(ladder_id, Ladder, copy=True)
        ladder.leave(str(user.id))
        return self._save(ladder)

    def get(self, ladder_id: str) -> Ladder:
        return self._get(ladder_id, Ladder)

    @property
    def _view(self) -> LaddersView:
        return self.feed.view

    def of_club(self, club: str) -> list[dict[str, Any]]:
        """Every ladder of the club, oldest first (the operator's list: read a page at a time)."""
        return every_page(lambda after: self.of_club_page(club, limit=PAGE_MAX, after=after))

    def of_club_page(
        self, club: str, *, limit: int = 50, after: tuple[int, str] | None = None
    ) -> tuple[list[dict[str, Any]], tuple[int, str] | None]:
        """A page of the club's ladders, oldest first, after the key ``after`` (``(created,
        id)``); and the key to the next page (None: this was the last)."""
        cid, limit = str(self.clubs.get(club).id), page_limit(limit)
        rows, key = cut_page(
            self._view.ladders_of_club(cid, limit + 1, after),
            limit,
            lambda row: (int(row["created"]), str(row["id"])),
        )
        return [self.summary(row) for row in rows], key

    def of_player(self, user: User) -> list[dict[str, Any]]:
        """Every ladder ``user`` plays by name, each with the user's own standing."""
        return every_page(lambda after: self.of_player_page(user, limit=PAGE_MAX, after=after))

    def of_player_page(
        self, user: User, *, limit: int = 50, after: tuple[str, str] | None = None
    ) -> tuple[list[dict[str, Any]], tuple[str, str] | None]:
        """A page of the ladders ``user`` plays, by name, after the key ``after`` (``(name in
        lower case, id)``), each with its club's name and the user's own standing (rank, rating,
        deviation; None when not on the board); and the key to the next page (None: the last).
        One query of the view for the ladders and the user's rows and ranks, one for the clubs'
        names."""
        limit = page_limit(limit)
        rows, key = cut_page(
            self._view.ladders_of_member(str(user.id), limit + 1, after),
            limit,
            lambda row: (str(row["name_key"]), str(row["id"])),
        )
        clubs = self.clubs.names_of([row["club"] for row in rows])
        out = []
        for row in rows:
            mine = row["mine"]
            me = self.feed.named([mine])[0] | {"rank": int(mine["rank"])} if mine else None
            out.append(self.summary(row) | {"club_name": clubs.get(row["club"]), "me": me})
        return out, key

    def summary(self, row: dict[str, Any]) -> dict[str, Any]:
        return {
            "id": row["id"],
            "club": row["club"],
            "name": row["name"],
            "system": row["system"],
            "scenario": row["scenario"],
            **self._scenario_labels(row["system"], row["scenario"]),
            "settings": json.loads(row["settings"]),
            "players": int(row["players"]),
            "results": int(row["results"]),
            "period": int(row["period"]),
            "created_at": row["created_at"],
        }

    def view(self, ladder_id: str) -> dict[str, Any]:
        row = self._row(ladder_id)
        recent = self._view.recent_results(str(row["id"]), RECENT)
        return self.summary(row) | {"recent_results": [self._result_view(r) for r in recent]}

    # -- challenges -------------------------------------------------------------------------------
    def challenge(
        self,
        ladder_id: str,
        by: User,
        opponent: str,
        *,
        scenario: str | None = None,
        side: str | None = None,
        options: Mapping[str, Any] | None = None,
    ) -> Challenge:
        ladder = self.get(ladder_id)
        me, them = str(by.id), str(self.users.by_name(opponent).id)
        ladder.require_player(me, "ladder")
        ladder.require_player(them, "opponent")
        choice = self._choice(ladder, scenario, by)
        scenario, sides = choice.name, list(choice.info.sides)
        if side is not None and side not in sides:
            raise Unprocessable(f"no side {side!r}", {"side": [f"one of {', '.join(sides)}"]})
        options = self.game_options(ladder, choice, options)
        choice.check_options(self.games.system(ladder.system), options)
        row = self._row(ladder_id)
        self._check_range(row, me, them)
        other = self._view.open_challenge_between(str(row["id"]), me, them)
        if other is not None:
            raise Conflict(
                "an open challenge between you already exists",
                {"opponent": [f"challenge {other} is open"]},
            )
        challenge = Challenge.issue(
            ladder_id=str(ladder.id),
            challenger=me,
            opponent=them,
            scenario=scenario,
            challenger_side=side,
            options=options or {},
            now=self.clock(),
            hours=ladder.settings["challenge_deadline_hours"],
        )
        return self._save(challenge)

    def accept(self, challenge_id: str, by: User) -> tuple[Challenge, Game]:
        """Accept: the game is created (sides: the challenger's choice, else drawn at random)."""
        challenge = self._get(challenge_id, Challenge, copy=True)
        now = self.clock()
        challenge.check_answer(str(by.id), now)
        ladder = self.get(challenge.ladder_id)
        choice = self._sided(self.scenarios.chosen(ladder.system, challenge.scenario))
        sides = list(choice.info.sides)
        mine = challenge.challenger_side or random.SystemRandom().choice(sides)
        bound = {
            side: challenge.challenger if side == mine else challenge.opponent for side in sides
        }
        game = self.games.create(
            system=ladder.system,
            scenario=challenge.scenario,
            sides={side: self.users.username(uid) for side, uid in bound.items()},
            creator=by,
            options=self.game_options(ladder, choice, challenge.options),
            source=choice.source,  # a club scenario's version: the game pins it
            labels={
                "club": ladder.club_id,
                "ladder": str(ladder.id),
                "rated": True,
                "takeback_policy": ladder.settings["takeback"],
                "pause_on_dispute": ladder.settings["disputes_pause"],
                **({"clock": ladder.settings["clock"]} if ladder.settings["clock"] else {}),
            },
        )
        challenge.accept(str(by.id), str(game.id), bound, now)
        return self._save(challenge), game

    def decline(self, challenge_id: str, by: User, reason: str = "") -> Challenge:
        challenge = self._get(challenge_id, Challenge, copy=True)
        challenge.decline(str(by.id), reason, self.clock())
        return self._save(challenge)

    def forfeit(self, challenge_id: str, by: User) -> Challenge:
        """After the deadline the unanswered challenge is a win for the challenger."""
        challenge = self._get(challenge_id, Challenge, copy=True)
        ladder = self.get(challenge.ladder_id)
        is_admin = self.clubs.has_role(ladder.club_id, by.id, "admin")
        challenge.forfeit(str(by.id), self.clock(), is_admin=is_admin)
        sides = self._scenario_sides(ladder.system, challenge.scenario)
        mine = challenge.challenger_side or sides[0]
        bound = {
            side: challenge.challenger if side == mine else challenge.opponent for side in sides
        }
        result = LadderResult.record(
            ladder_id=challenge.ladder_id,
            scenario=challenge.scenario,
            sides=bound,
            winner=mine,
            level="forfeit",
            source="forfeit",
            source_id=str(challenge.id),
        )
        return self._save(challenge, result)

    def challenges(self, ladder_id: str, status: str | None = None) -> list[dict[str, Any]]:
        """Every challenge of the ladder, newest first (read a page at a time)."""
        return every_page(
            lambda after: self.challenges_page(ladder_id, status, limit=PAGE_MAX, after=after)
        )

    def challenges_page(
        self,
        ladder_id: str,
        status: str | None = None,
        *,
        limit: int = 50,
        after: tuple[str, int] | None = None,
    ) -> tuple[list[dict[str, Any]], tuple[str, int] | None]:
        """A page of the ladder's challenges (``status``: of that status), newest first, after
        the key ``after`` (``(issued_at, position)``); and the key to the next page (None: the
        last)."""
        system, limit = self._row(ladder_id)["system"], page_limit(limit)
        rows, key = cut_page(
            self._view.challenges(str(ladder_id), status, limit + 1, after),
            limit,
            lambda r: (str(r["issued_at"]), int(r["position"])),
        )
        found = [
            self._challenge_view(
                {
                    "id": r["id"],
                    "ladder": r["ladder"],
                    "challenger": r["challenger"],
                    "opponent": r["opponent"],
                    "scenario": r["scenario"],
                    "challenger_side": r["challenger_side"],
                    "options": json.loads(r["options"]),
                    "deadline": r["deadline"],
                    "status": r["status"],
                    "game": r["game"],
                    "sides": json.loads(r["sides"]),
                    "issued_at": r["issued_at"],
                },
                system,
            )
            for r in rows
        ]
        return found, key

    def challenge_view(self, challenge: Challenge) -> dict[str, Any]:
        return self._challenge_view(
            {
                "id": str(challenge.id),
                "ladder": challenge.ladder_id,
                "challenger": challenge.challenger,
                "opponent": challenge.opponent,
                "scenario": challenge.scenario,
                "challenger_side": challenge.challenger_side,
                "options": dict(challenge.options),
                "deadline": challenge.deadline,
                "status": challenge.status,
                "game": challenge.game_id,
                "sides": challenge.sides,
                "issued_at": challenge.created_on.isoformat(),
            }
        )

    def _challenge_view(self, row: dict[str, Any], system: str | None = None) -> dict[str, Any]:
        name = self.users.username
        title = (
            self.scenarios.title_of(system, row["scenario"])
            if system is not None
            else self._title(row["ladder"], row["scenario"])
        )
        return row | {
            "challenger": name(row["challenger"]),
            "opponent": name(row["opponent"]),
            "sides": {side: name(uid) for side, uid in row["sides"].items()},
            "scenario_title": title,
        }

    # -- face-to-face results ---------------------------------------------------------------------
    def report(
        self,
        ladder_id: str,
        by: User,
        *,
        sides: Mapping[str, str],
        winner: str | None,
        level: str | None = None,
        scenario: str | None = None,
    ) -> ResultReport:
        ladder = self.get(ladder_id)
        choice = self._choice(ladder, scenario, by)
        scenario, known = choice.name, list(choice.info.sides)
        if set(sides) != set(known):
            raise Unprocessable(
                "name a player for every side", {"sides": [f"exactly {', '.join(known)}"]}
            )
        bound = {side: str(self.users.by_name(name).id) for side, name in sides.items()}
        for uid in bound.values():
            ladder.require_player(uid, "sides")
        report = ResultReport.report(
            ladder_id=str(ladder.id),
            reporter=str(by.id),
            scenario=scenario,
            sides=bound,
            winner=winner,
            level=level,
        )
        return self._save(report)

    def confirm(self, report_id: str, by: User) -> ResultReport:
        report = self._get(report_id, ResultReport, copy=True)
        report.confirm(str(by.id))
        result = LadderResult.record(
            ladder_id=report.ladder_id,
            scenario=report.scenario,
            sides=report.sides,
            winner=report.winner,
            level=report.level,
            source="report",
            source_id=str(report.id),
        )
        return self._save(report, result)

    def reject(self, report_id: str, by: User, reason: str = "") -> ResultReport:
        report = self._get(report_id, ResultReport, copy=True)
        report.reject(str(by.id), reason)
        return self._save(report)

    def reports(self, ladder_id: str, status: str | None = None) -> list[dict[str, Any]]:
        """Every report of the ladder, newest first (read a page at a time)."""
        return every_page(
            lambda after: self.reports_page(ladder_id, status, limit=PAGE_MAX, after=after)
        )

    def reports_page(
        self,
        ladder_id: str,
        status: str | None = None,
        *,
        limit: int = 50,
        after: tuple[str, int] | None = None,
    ) -> tuple[list[dict[str, Any]], tuple[str, int] | None]:
        """A page of the ladder's face-to-face reports (``status``: of that status), newest
        first, after the key ``after`` (``(reported_at, position)``); and the key to the next
        page (None: the last)."""
        system, limit = self._row(ladder_id)["system"], page_limit(limit)
        name = self.users.username
        rows, key = cut_page(
            self._view.reports(str(ladder_id), status, limit + 1, after),
            limit,
            lambda r: (str(r["reported_at"]), int(r["position"])),
        )
        found = [
            {
                "id": r["id"],
                "ladder": r["ladder"],
                "reporter": name(r["reporter"]),
                "opponent": name(r["opponent"]),
                "scenario": r["scenario"],
                "sides": {s: name(u) for s, u in json.loads(r["sides"]).items()},
                "winner": r["winner"],
                "level": r["level"],
                "status": r["status"],
                "reported_at": r["reported_at"],
                "scenario_title": self.scenarios.title_of(system, r["scenario"]),
            }
            for r in rows
        ]
        return found, key

    def report_view(self, report: ResultReport) -> dict[str, Any]:
        name = self.users.username
        return {
            "id": str(report.id),
            "ladder": report.ladder_id,
            "reporter": name(report.reporter),
            "opponent": name(report.opponent),
            "scenario": report.scenario,
            "scenario_title": self._title(report.ladder_id, report.scenario),
            "sides": {s: name(u) for s, u in report.sides.items()},
            "winner": report.winner,
            "level": report.level,
            "status": report.status,
            "reported_at": report.created_on.isoformat(),
        }

    # -- standings ----------------------------------------------------------------------------------
    def standings(self, ladder_id: str, *, offset: int = 0, limit: int = 100) -> dict[str, Any]:
        """The leaderboard, best first, ``limit`` rows (at most ``STANDINGS_PAGE_MAX``, 1000)
        from ``offset``: from Redis when configured (written again from the view if Redis lost
        it or holds an older board), else from the view, read through its index."""
        row = self._row(ladder_id)
        lid, limit = str(row["id"]), max(1, min(limit, STANDINGS_PAGE_MAX))
        board = self.feed.leaderboard
        if board is not None:
            try:
                found = board.page(lid, offset, limit)
                if found is None or found[0] < int(row["changed_at"]):
                    # Redis lost the board, or no process has announced the last change yet
                    self.feed.republish(lid, int(row["changed_at"]))
                    found = board.page(lid, offset, limit)
                if found is not None:
                    return {"ladder": ladder_id, "source": "redis", "standings": found[1]}
            except ConnectionError:
                pass  # Redis is down: the view serves
        rows = self.feed.top(lid, offset, limit)
        return {"ladder": ladder_id, "source": "projection", "standings": rows}

    def history(self, ladder_id: str, username: str) -> list[dict[str, Any]]:
        """The player's rating at the end of each period played, then the provisional one."""
        uid = str(self.users.by_name(username).id)
        row = self._row(ladder_id)
        points = [
            {
                "period": int(p["period"]),
                "rating": p["rating"],
                "rd": p["rd"],
                "volatility": p["volatility"],
                "provisional": False,
            }
            for p in self._view.history(str(row["id"]), uid)
        ]
        mine = self._view.player_row(str(row["id"]), uid)  # on the board or not (left)
        if mine is not None and int(mine["provisional"]):
            points.append(
                {
                    "period": int(row["period"]),
                    "rating": mine["rating"],
                    "rd": mine["rd"],
                    "volatility": mine["volatility"],
                    "provisional": True,
                }
            )
        return points

    def side_adjustments(self, ladder_id: str) -> dict[str, Any]:
        row = self._row(ladder_id)
        scenarios = {
            name: s | {"title": self.scenarios.title_of(row["system"], name)}
            for name, s in json.loads(row["sides"]).items()
        }
        settings = json.loads(row["settings"])
        return {"applied": settings["side_adjustment"], "scenarios": scenarios}

    def record_results(self) -> None:
        """Record the results of ladder and campaign games that ended (the worker's step:
        :class:`~service.application.worker.NotificationWorker`); requests only read them."""
        self.feed.record_results()

    def rebuild(self, progress: Callable[[int, int], None] | None = None) -> dict[str, Any]:
        """Rebuild the ladders' view from the log (``arbiter projections rebuild ladders``),
        record any result still due, and write every Redis board whole."""
        return self.feed.rebuild(progress)

    def settings_for_game(self, game_id: str | UUID) -> dict[str, Any] | None:
        """The settings of the ladder a game belongs to (takeback, disputes_pause ...), else None."""
        row = self._view.ladder_of_game(str(game_id))
        return json.loads(row["settings"]) if row is not None else None

    # -- helpers ----------------------------------------------------------------------------------
    def _result_view(self, row: dict[str, Any]) -> dict[str, Any]:
        return {
            "id": row["id"],
            "scenario": row["scenario"],
            "sides": {s: self.users.username(u) for s, u in json.loads(row["sides"]).items()},
            "winner": row["winner"],
            "level": row["level"],
            "source": row["source"],
            "source_id": row["source_id"],
            "at": row["at"],
        }

    def _row(self, ladder_id: str | UUID) -> dict[str, Any]:
        """The ladder's row in the view (read by key), or a 404."""
        row = self._view.ladder_row(str(ladder_id))
        if row is None:
            raise NotFound(f"no ladder {ladder_id}", {"ladder": ["unknown ladder"]})
        return row

    def _choice(self, ladder: Ladder, scenario: str | None, by: User) -> ScenarioChoice:
        """The scenario a challenge or report plays: the ladder's own (pinned when it was made),
        else the one asked for, a system's own or a club scenario ``by`` may read."""
        if ladder.scenario is not None:
            pinned = self.scenarios.chosen(ladder.system, ladder.scenario)
            if scenario not in (None, ladder.scenario):
                raise Unprocessable(
                    "the ladder plays one scenario", {"scenario": [f"only {pinned.info.title}"]}
                )
            return self._sided(pinned)
        if not scenario:
            raise Unprocessable(
                "say which scenario", {"scenario": [f"a scenario of {ladder.system}"]}
            )
        return self._sided(self.scenarios.choose(ladder.system, scenario, None, by))

    @staticmethod
    def _sided(choice: ScenarioChoice) -> ScenarioChoice:
        if len(choice.info.sides) != 2:
            raise Unprocessable(
                "ladders rate two-sided scenarios",
                {"scenario": [f"{choice.info.title} has {len(choice.info.sides)} sides"]},
            )
        return choice

    def _title(self, ladder_id: str, scenario: str) -> str:
        row = self._view.ladder_row(str(ladder_id))
        return self.scenarios.title_of(row["system"], scenario) if row else scenario

    def _scenario_labels(self, system: str, scenario: str | None) -> dict[str, Any]:
        """How a person reads the ladder's scenario: its title (a club's with club and version),
        its sides and the options a challenge may set (``ScenarioInfo.options``)."""
        if scenario is None:
            return {"scenario_title": None, "scenario_sides": None, "scenario_options": None}
        try:
            info = self.scenarios.chosen(system, scenario).info
            sides: list[str] | None = list(info.sides)
            options: list[dict[str, Any]] | None = [dict(o) for o in info.options]
        except (NotFound, Unprocessable):
            sides = options = None
        return {
            "scenario_title": self.scenarios.title_of(system, scenario),
            "scenario_sides": sides,
            "scenario_options": options,
        }

    def _scenario_sides(self, system: str, scenario: str) -> list[str]:
        """The sides of a scenario stored on a challenge (a system's own or a pinned version)."""
        return list(self._sided(self.scenarios.chosen(system, scenario)).info.sides)

    def _check_range(self, row: dict[str, Any], me: str, them: str) -> None:
        lid = str(row["id"])
        reach = json.loads(row["settings"])["challenge_range"]
        found = [self._view.standing_of(lid, uid) for uid in (me, them)]
        size = self._view.board_size(lid) if None in found else 0
        mine, theirs = (int(r["rank"]) if r is not None else size + 1 for r in found)
        if not 0 < mine - theirs <= reach:
            raise Unprocessable(
                "out of challenge range",
                {
                    "opponent": [
                        f"ranked {theirs}, you are {mine}: challenge a player 1 to {reach} places above you"
                    ]
                },
            )

    def _get(self, aggregate_id: str | UUID, kind: type, *, copy: bool = False) -> Any:
        label = kind.__name__.lower().replace("resultreport", "report")
        return self.store.get_as(aggregate_id, kind, label, label, copy=copy)

    def _save(self, *aggregates: Any) -> Any:
        self.store.commit(
            *aggregates, conflict=Conflict("it changed meanwhile; reload and try again")
        )
        self.feed.announce()  # the view read the write (``Projections.seen``): boards, notices
        return aggregates[0]
