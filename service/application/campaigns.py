"""Campaigns: create, start each step's game (or score an off-line one), notes, standings.

A started step is scored by itself when its game ends: in the worker's step the ladder feed
reads the ended games from the ladders' view and calls ``game_ended`` (whichever worker gets there first; a second attempt finds
the step scored).  Reading a campaign records nothing (GETs never write); the organiser's own
commands score an ended step first, so the next step can start the moment the last game ends."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from service.application.clubs import ClubService
from service.application.games import GameService
from service.application.ports import Broker
from service.application.standings import LadderFeed
from service.application.store import ArbiterStore
from service.application.users import UserService
from service.domain.campaigns import STARTED, Campaign
from service.domain.errors import Conflict, Forbidden, StaleVersion, Unprocessable
from service.domain.game import Game
from service.domain.users import User
from service.views.base import cut_page, page_limit
from service.views.campaigns import CampaignsView
from service.views.runner import ProjectionRunner


class CampaignService:
    def __init__(
        self,
        store: ArbiterStore,
        users: UserService,
        clubs: ClubService,
        games: GameService,
        feed: LadderFeed,
        broker: Broker,
        runner: ProjectionRunner | None = None,
    ) -> None:
        """``runner``: the persisted campaigns view's (``projections.campaigns``): a club's
        campaigns are read from it."""
        self.store = store
        self.users = users
        self.clubs = clubs
        self.games = games
        self.feed = feed
        self.broker = broker
        feed.on_campaign_game_ended = self.game_ended
        self.runner = runner

    # -- commands -------------------------------------------------------------------------------
    def create(
        self,
        club: str,
        by: User,
        *,
        name: str,
        sides: Sequence[str],
        steps: Sequence[Mapping[str, Any]],
        scoring: Mapping[str, int],
    ) -> Campaign:
        found = self.clubs.require_role(club, by, "admin")
        problems: dict[str, list[str]] = {}
        for i, step in enumerate(steps):
            if step.get("system") and step.get("scenario"):
                rules = self.games.system(str(step["system"]))
                info = {s.id: s for s in rules.scenarios()}.get(str(step["scenario"]))
                if info is None:
                    problems[f"steps.{i}.scenario"] = [f"no scenario {step['scenario']!r}"]
                elif set(info.sides) != set(sides):
                    problems[f"steps.{i}.scenario"] = [
                        f"its sides ({', '.join(info.sides)}) are not the campaign's"
                    ]
        if problems:
            raise Unprocessable("the steps do not fit the campaign", problems)
        campaign = Campaign.create(
            club_id=str(found.id),
            name=name,
            sides=sides,
            steps=steps,
            scoring=scoring,
            organiser=str(by.id),
        )
        return self._save(campaign)

    def start_step(
        self,
        campaign_id: str,
        by: User,
        step: int,
        sides: Mapping[str, str],
        options: Mapping[str, Any] | None = None,
    ) -> tuple[Campaign, Game]:
        """Create the step's game (side -> username) through the game service."""
        campaign = self._organised(campaign_id, by)
        spec = campaign.check_start(step, sides)  # order and sides, before any game exists
        game = self.games.create(
            system=spec["system"],
            scenario=spec["scenario"],
            sides=sides,
            creator=by,
            options=options,
            labels={"club": campaign.club_id},  # read by the club, ruled by its arbiters
        )
        bound = {side: str(self.users.by_name(name).id) for side, name in sides.items()}
        campaign.start_step(step, str(game.id), bound)
        return self._save(campaign), game

    def score_step(
        self,
        campaign_id: str,
        by: User,
        step: int,
        *,
        sides: Mapping[str, str],
        winner: str | None,
        level: str,
    ) -> Campaign:
        """Score an off-line step (side -> username) with its victory level."""
        campaign = self._organised(campaign_id, by)
        bound = {side: str(self.users.by_name(name).id) for side, name in sides.items()}
        campaign.score_step(step, sides=bound, winner=winner, level=level, source="report")
        return self._save(campaign)

    def add_note(self, campaign_id: str, by: User, step: int, text: str) -> Campaign:
        campaign = self._organised(campaign_id, by)
        campaign.add_note(step, text, str(by.id))
        return self._save(campaign)

    def game_ended(self, campaign_id: str, step: int, game_id: str, result: dict[str, Any]) -> None:
        campaign = self._get(campaign_id, copy=True)
        spec = campaign.steps[step]
        if spec["status"] != STARTED or spec["game_id"] != game_id:
            return  # already scored (by this or another worker)
        campaign.score_step(
            step,
            sides=spec["sides"],
            winner=result.get("winner"),
            level=str(result.get("level") or ("victory" if result.get("winner") else "draw")),
            source="game",
        )
        try:
            self.store.commit(campaign)
        except StaleVersion:
            return  # a second worker's attempt fails here: the first one scored the step

    # -- queries --------------------------------------------------------------------------------
    def get(self, campaign_id: str) -> Campaign:
        return self._get(campaign_id)  # a read: the worker's step scores a game that ended

    def view(self, campaign: Campaign) -> dict[str, Any]:
        name = self.users.username
        standings = campaign.standings()
        return {
            "id": str(campaign.id),
            "club": campaign.club_id,
            "name": campaign.name,
            "organiser": name(campaign.organiser),
            "sides": campaign.sides,
            "scoring": campaign.scoring,
            "next_step": campaign.next_step(),
            "steps": [
                step | {"index": i, "sides": {s: name(u) for s, u in step["sides"].items()}}
                for i, step in enumerate(campaign.steps)
            ],
            "standings": {
                "sides": standings["sides"],
                "players": [row | {"username": name(row["user"])} for row in standings["players"]],
            },
        }

    def of_club(
        self, club: str, *, limit: int = 50, after: tuple[int, str] | None = None
    ) -> tuple[list[dict[str, str]], tuple[int, str] | None]:
        """A page of the club's campaigns, oldest first, after the key ``after`` (``(position,
        id)``); and the key to the next page (None: this was the last)."""
        cid, limit = str(self.clubs.get(club).id), page_limit(limit)
        view = self.runner.view if self.runner is not None else None
        assert isinstance(view, CampaignsView), "this service was made without the campaigns view"
        rows, key = cut_page(view.of_club(cid, limit + 1, after), limit, lambda r: r["key"])
        return [{k: r[k] for k in ("id", "club", "name")} for r in rows], key

    # -- helpers --------------------------------------------------------------------------------
    def _organised(self, campaign_id: str, by: User) -> Campaign:
        """The campaign for its organiser (or a club admin) to change, with every step whose game
        has ended scored first: the next step can start the moment the last game ends (a
        writing request, so it may record what the worker has not yet)."""
        self.feed.record_results()
        campaign = self._get(campaign_id, copy=True)
        if str(by.id) != campaign.organiser and not self.clubs.has_role(
            campaign.club_id, by.id, "admin"
        ):
            raise Forbidden(
                "only the organiser or a club admin", {"campaign": ["not your campaign"]}
            )
        return campaign

    def _get(self, campaign_id: str, copy: bool = False) -> Campaign:
        return self.store.get_as(campaign_id, Campaign, "campaign", "campaign", copy=copy)

    def _save(self, campaign: Campaign) -> Campaign:
        self.store.commit(campaign, conflict=Conflict("the campaign changed meanwhile; try again"))
        return campaign
