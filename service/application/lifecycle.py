"""A game's life around its rules: who may start it (invitations, clubs, ladders), how it is paced
(correspondence clocks, vacations) and how it ends before its rules end it (resignation, draws
by agreement, claims on time).  Each step is a ``Game`` event (``service.domain.game``); the clock
is a projection of the events' times, so a replay gives the same clock and the same results."""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from typing import Any
from uuid import UUID

from service.application.clubs import ClubService
from service.application.game_index import GameIndex
from service.application.games import GameService
from service.application.ladders import LadderService
from service.application.store import ArbiterStore
from service.application.users import UserService
from service.domain.errors import (
    Forbidden,
    Invalid,
    LimitReached,
    NotFound,
    StaleVersion,
    Unprocessable,
)
from service.domain.game import ACTIVE, INVITED, Game, check_clock
from service.domain.quotas import Quotas
from service.domain.users import User
from service.views.clocks import PAGE, ClocksView, micros
from service.views.runner import ProjectionRunner

DRAW_ACTIONS = ("offer", "accept", "decline")
#: how long the clock checks leave a game they could not look at (it failed to load or save)
RETRY_SECONDS = 60

log = logging.getLogger(__name__)


def utcnow() -> datetime:
    return datetime.now(UTC)


class LifecycleService:
    def __init__(
        self,
        store: ArbiterStore,
        games: GameService,
        users: UserService,
        clubs: ClubService,
        ladders: LadderService,
        index: GameIndex,
        clocks: ProjectionRunner,
        clock: Callable[[], datetime] = utcnow,
        quotas: Quotas | None = None,
    ) -> None:
        self.store = store
        self.games = games
        self.users = users
        self.clubs = clubs
        self.ladders = ladders
        self.index = index
        #: the clocks view's runner (``projections.clocks``): the timed games by their next deadline
        self.clocks = clocks
        self.clock = clock
        self.quotas = quotas or Quotas()

    # -- creating ---------------------------------------------------------------------------------
    def labels_for(
        self,
        creator: User,
        players: list[str],
        *,
        system: str,
        scenario: str,
        club: str | None = None,
        ladder: str | None = None,
        clock: Mapping[str, Any] | None = None,
        public: bool = False,
        takeback: str | None = None,
    ) -> dict[str, Any]:
        """The labels of a new game: its club's or ladder's (whose arbiters and policies then apply),
        its clock (checked: 400 naming ``clock.<field>``) and whether spectators may list it.
        ``players``: the user ids bound to its sides."""
        labels: dict[str, Any] = {"public": bool(public)}
        house: tuple[dict[str, Any], Mapping[str, Any] | None] = ({}, None)
        if ladder is not None:
            house = self._ladder_labels(creator, players, ladder, system=system, scenario=scenario)
        elif club is not None:
            house = self._club_labels(creator, players, club)
        labels.update(house[0])
        if clock is None and house[1]:  # the ladder's or the club's clock, unless one is given
            clock = house[1]
        if takeback is not None:
            if takeback not in ("never", "casual", "always"):
                raise Invalid("unknown takeback policy", {"takeback": ["never, casual or always"]})
            if "takeback_policy" not in labels:  # a club's or a ladder's policy applies
                labels["takeback_policy"] = takeback
        if clock is not None:
            labels["clock"] = check_clock(clock)
        return labels

    def _ladder_labels(
        self, creator: User, players: list[str], ladder: str, *, system: str, scenario: str
    ) -> tuple[dict[str, Any], Mapping[str, Any] | None]:
        """A ladder game's labels (rated, the ladder's policies) and the ladder's clock; 422 when
        the game does not fit the ladder."""
        found = self.ladders.get(ladder)
        if str(creator.id) not in players:
            raise Unprocessable(
                "you create a ladder game you play in", {"sides": ["name yourself on a side"]}
            )
        if found.system != system:
            raise Unprocessable(
                f"the ladder plays {found.system}", {"ladder": [f"plays {found.system}"]}
            )
        if found.scenario not in (None, scenario):
            raise Unprocessable(
                "the ladder plays one scenario", {"scenario": [f"only {found.scenario}"]}
            )
        if len(set(players)) != 2:
            raise Unprocessable(
                "a ladder game is between two players", {"sides": ["two different players"]}
            )
        for uid in players:
            found.require_player(uid, "sides")
        settings = found.settings
        labels = {
            "club": found.club_id,
            "ladder": str(found.id),
            "rated": True,
            "takeback_policy": settings["takeback"],
            "pause_on_dispute": settings["disputes_pause"],
        }
        return labels, settings["clock"]

    def _club_labels(
        self, creator: User, players: list[str], club: str
    ) -> tuple[dict[str, Any], Mapping[str, Any] | None]:
        """A club game's labels (the club's policies) and the club's clock; 422 when a player is
        not a member."""
        try:
            found_club = self.clubs.get(club)
        except NotFound:
            raise Unprocessable(f"no club {club!r}", {"club": ["unknown club"]}) from None
        members = found_club.members
        if str(creator.id) not in members:
            raise Unprocessable(
                "only a member creates a club game", {"club": ["you are not a member"]}
            )
        strangers = [self.users.username(u) for u in players if u not in members]
        if strangers:
            raise Unprocessable(
                "every player of a club game is a member",
                {"sides": [f"not members of {found_club.name}: {', '.join(strangers)}"]},
            )
        policies = found_club.game_policies()
        labels = {
            "club": str(found_club.id),
            "pause_on_dispute": bool(policies["pause_on_dispute"]),
            "takeback_policy": policies["takeback"],
        }
        return labels, policies.get("clock")

    def create(
        self,
        *,
        creator: User,
        system: str,
        scenario: str,
        sides: Mapping[str, str],
        options: Mapping[str, Any] | None = None,
        club: str | None = None,
        ladder: str | None = None,
        clock: Mapping[str, Any] | None = None,
        public: bool = False,
        takeback: str | None = None,
        invite: bool = True,
        source: Any = None,
        labels: Mapping[str, Any] | None = None,
        keep: list[Any] | None = None,
        capped: bool = True,
        paired: bool = False,
    ) -> Game:
        """A new game.  Every named player but the creator must accept first (``Game.Invited``);
        a game whose sides are all the creator's starts at once.  Nobody is put into a game
        without consent: ``invite=False`` naming someone else is a 403 naming ``invite`` (games
        that start at once with several players, ladder challenges and joined seeks, are created
        by their own services after both players chose them).  ``labels``: more of the game's
        labels (a club event's game names its event).  ``keep``: stored by the caller, with its own
        change (:meth:`GameService.create`).  ``capped``: the creator's hot-seat games and
        invitations waiting are limited (:meth:`check_caps`; a club event's round is not: its
        players joined the event).  ``paired``: a club event's pairing, whose players joined the
        event to play its rounds -- the joining is their consent, so the game starts at once."""
        players = []
        for name in sides.values():
            try:
                players.append(str(self.users.by_name(name).id))
            except NotFound:
                players.append(name)  # GameService.create names the side and the unknown user
        others = any(uid != str(creator.id) for uid in players) and not paired
        if not invite and others:
            raise Forbidden(
                "a game that names other players starts only when they accept",
                {"invite": ["only the named players' acceptance starts the game"]},
            )
        invite = others
        if capped:
            self.check_caps(creator, [p for p in players if p != str(creator.id)])
        more = dict(labels or {})
        labels = self.labels_for(
            creator,
            players,
            system=system,
            scenario=scenario,
            club=club,
            ladder=ladder,
            clock=clock,
            public=public,
            takeback=takeback,
        )
        if ladder is not None:  # the ladder's game options win over the creator's
            options = self.ladders.game_options_named(self.ladders.get(ladder), scenario, options)
        elif labels.get("club"):  # the club's readings of the rules, unless chosen otherwise
            readings = self.clubs.get(str(labels["club"])).game_policies().get("readings") or {}
            club_default = readings.get(system) or {}
            if club_default:
                options = {**club_default, **dict(options or {})}
        extra = {"source": source} if source is not None else {}
        return self.games.create(
            system=system,
            scenario=scenario,
            sides=sides,
            creator=creator,
            options=options,
            labels=labels | more,
            invite=invite,
            keep=keep,
            **extra,
        )

    def check_caps(self, creator: User, others: list[str]) -> None:
        """Refuse (409 ``limit_reached`` naming ``sides``) a game past the creator's caps: with no
        other player, ``ARBITER_HOTSEAT_PER_USER`` hot-seat games in progress; else
        ``ARBITER_INVITATIONS_PER_USER`` of their invitations waiting, or
        ``ARBITER_INVITATIONS_PER_PAIR`` waiting for one of the named players.  Counted by key in
        the games view (a request sees its own earlier writes)."""
        uid, limits = str(creator.id), self.quotas
        if not others:
            most = limits.hotseat_per_user
            if self.index.created_count(uid, ACTIVE, solo=True) >= most:
                raise LimitReached(
                    f"you have {most} hot-seat games in progress",
                    {"sides": [f"at most {most} games of your own at once: end one first"]},
                )
            return
        most = limits.invitations_per_user
        if self.index.created_count(uid, INVITED) >= most:
            raise LimitReached(
                f"you have {most} invitations waiting",
                {"sides": [f"at most {most} of your invitations wait at once"]},
            )
        most = limits.invitations_per_pair
        for other in dict.fromkeys(others):
            if self.index.pending_from(uid, other) >= most:
                name = self.users.username(other)
                raise LimitReached(
                    f"{name} has {most} of your invitations waiting",
                    {"sides": [f"{name} has {most} of your invitations to answer already"]},
                )

    # -- invitations ------------------------------------------------------------------------------
    def accept(self, game_id: str | UUID, user: User) -> Game:
        game = self.games.get(game_id)
        game.accept_invitation(user=str(user.id), ports=self.games.ports)
        return self._save(game)

    def decline(self, game_id: str | UUID, user: User) -> Game:
        game = self.games.get(game_id)
        game.decline_invitation(user=str(user.id), ports=self.games.ports)
        return self._save(game)

    def invitations(self, user: User) -> list[dict[str, Any]]:
        """The games that wait for ``user``'s answer."""
        return self.index.invitations(user)

    # -- ending -----------------------------------------------------------------------------------
    def resign(self, game_id: str | UUID, user: User, side: str | None = None) -> Game:
        game = self.games.get(game_id)
        side = self.games.acting_side(game, user, side, must_be_active=False)
        game.resign(
            side=side, user=str(user.id), seed=self.games.seed_of(game), ports=self.games.ports
        )
        return self._save(game)

    def draw(self, game_id: str | UUID, user: User, action: str, side: str | None = None) -> Game:
        if action not in DRAW_ACTIONS:
            raise Invalid("unknown draw action", {"action": [", ".join(DRAW_ACTIONS)]})
        game = self.games.get(game_id)
        side = self.games.acting_side(game, user, side, must_be_active=False)
        ports, uid = self.games.ports, str(user.id)
        if action == "offer":
            game.offer_draw(side=side, user=uid, ports=ports)
        elif action == "accept":
            game.accept_draw(side=side, user=uid, seed=self.games.seed_of(game), ports=ports)
        else:
            game.decline_draw(side=side, user=uid, ports=ports)
        return self._save(game)

    def claim(self, game_id: str | UUID, user: User, side: str | None = None) -> Game:
        game = self.games.get(game_id)
        side = self.games.acting_side(game, user, side, must_be_active=False)
        game.claim(
            side=side,
            user=str(user.id),
            now=self.clock().timestamp(),
            seed=self.games.seed_of(game),
            ports=self.games.ports,
        )
        return self._save(game)

    def may_decide_claim(self, game: Game, user: User) -> bool:
        """A club arbiter of the game's club, else a site arbiter; never a player of the game."""
        if str(user.id) in game.sides.values():
            return False
        club = game.labels.get("club")
        if club:
            return self.clubs.has_role(str(club), str(user.id), "arbiter")
        return "arbiter" in getattr(user, "roles", [])

    def decide_claim(self, game_id: str | UUID, user: User, decision: str, note: str = "") -> Game:
        game = self.games.get(game_id)
        if not self.may_decide_claim(game, user) and str(user.id) not in game.sides.values():
            raise Forbidden(
                "only an arbiter of the game's club (or a site arbiter) decides a claim on time",
                {"arbiter": ["you are not an arbiter of this game"]},
            )
        game.decide_claim(
            arbiter=str(user.id),
            decision=decision,
            note=note,
            seed=self.games.seed_of(game),
            ports=self.games.ports,
        )
        return self._save(game)

    def claims(self, user: User) -> list[dict[str, Any]]:
        """The games whose claim on time waits for ``user``'s decision as an arbiter, newest first:
        the clocks view's claimed rows (few) of the clubs ``user`` arbitrates (of no club: a site
        arbiter), each game then loaded to be sure."""
        uid = str(user.id)
        site_arbiter = "arbiter" in getattr(user, "roles", [])
        arbitrates: dict[str, bool] = {}
        rows = []
        for claimed in self._clocks_view.claimed():
            club = claimed["club"]
            if club is None and not site_arbiter:
                continue
            if club is not None:
                if club not in arbitrates:
                    arbitrates[club] = self.clubs.has_role(club, uid, "arbiter")
                if not arbitrates[club]:
                    continue
            row = self.index.row(claimed["game"])
            game = self.games.get(claimed["game"])
            if row and game.claim_pending is not None and self.may_decide_claim(game, user):
                rows.append(row)
        return sorted(rows, key=lambda r: (r["created"], r["id"]), reverse=True)

    # -- clocks -----------------------------------------------------------------------------------
    def vacation(self, game_id: str | UUID, user: User, days: int, side: str | None = None) -> Game:
        game = self.games.get(game_id)
        side = self.games.acting_side(game, user, side, must_be_active=False)
        game.take_vacation(side=side, user=str(user.id), days=days, ports=self.games.ports)
        return self._save(game)

    def expire_clocks(self, now: datetime | None = None) -> list[str]:
        """Record ``Game.ClockExpired`` for every running clock that has run out (and end the game
        where the policy is ``forfeit``).  Idempotent: an expiry is recorded once.  Returns the ids
        of the games where something was recorded (``arbiter games expire-clocks``)."""
        return self._check(now or self.clock(), warn=False)

    def check_clocks(self, now: datetime | None = None) -> list[str]:
        """What the worker runs each round: record ``Game.ClockExpired`` for every running clock
        that has run out (:meth:`expire_clocks`' work, and the ``forfeit`` policy), then
        ``Game.ClockLow`` for every running clock below its threshold (``low_threshold``: 24 hours
        or a fifth of the allowance, whichever is smaller, or the clock's ``low_hours``), once per
        side per game turn or move.  Returns the ids of the games where something was recorded."""
        return self._check(now or self.clock(), warn=True)

    @property
    def _clocks_view(self) -> ClocksView:
        view = self.clocks.view
        assert isinstance(view, ClocksView)
        return view

    def _check(self, now: datetime, *, warn: bool) -> list[str]:
        """Look at the games due at ``now`` in the clocks view, and only those: bring the view up
        to the log (every game written to since is due at once), then a page at a time, earliest
        first, load each, record what ran out (``warn``: and what runs low), and write its next
        deadline (:meth:`Game.clock_due`) with the version it was computed at -- an event the view
        processes later makes the game due again.  This is the worker's write, never a GET's."""
        self.clocks.run()
        view = self._clocks_view
        moment, at = now.timestamp(), micros(now)
        touched: list[str] = []
        after: tuple[int, str] | None = None
        while True:
            rows = view.due(at, PAGE, after)
            for row in rows:
                game_id = row["game"]
                try:
                    game = self.games.get(game_id)
                    ports = self.games.ports
                    seed = self.games.seed_of(game)
                    expired = game.expire_clock(now=moment, seed=seed, ports=ports)
                    low = game.warn_low_clock(now=moment, ports=ports) if warn else []
                    if expired or low:
                        self._save(game)
                        touched.append(game_id)
                except StaleVersion:
                    continue  # someone moved meanwhile: their event makes it due again
                except Exception:  # noqa: BLE001 - one game's trouble never holds up the others
                    log.exception("checking the clock of game %s", game_id)
                    later = at + RETRY_SECONDS * 1_000_000
                    view.set_due(game_id, int(row["version"]), later)  # an event still wins
                    continue
                due = game.clock_due(moment)
                # just after the deadline (a low warning is for less than the threshold left),
                # and never again at this same moment
                next_at = None if due is None else max(int(due * 1_000_000) + 1, at + 1)
                view.set_due(game_id, game.version, next_at)
            if len(rows) < PAGE:
                return touched
            after = (int(rows[-1]["due"]), rows[-1]["game"])

    def _save(self, game: Game) -> Game:
        if not game.pending_events:
            return game
        self.store.commit(
            game,
            conflict=StaleVersion(
                "the game moved on meanwhile; reload and try again",
                {"game": ["changed meanwhile"]},
            ),
        )
        return game
