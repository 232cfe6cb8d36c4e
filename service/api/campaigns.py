"""Campaigns: ordered scenarios with a scoring table, organiser's notes, standings."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from flask.views import MethodView
from marshmallow import Schema, fields, validate

from service.api.auth import require_user, services
from service.api.blueprint import Blueprint
from service.api.paging import next_page
from service.api.schemas import JsonInteger, PageFields, Strict, Unique, text_field

blp = Blueprint("campaigns", __name__, url_prefix="/api", description="Campaigns")


class StepIn(Strict):
    title = text_field(120, required=True)
    system = fields.String(
        load_default=None, allow_none=False, validate=validate.Length(min=1, max=40)
    )
    scenario = fields.String(
        load_default=None, allow_none=False, validate=validate.Length(min=1, max=80)
    )

    #: a step names both its system and its scenario, or neither
    OPENAPI = {"dependentRequired": {"system": ["scenario"], "scenario": ["system"]}}


class CampaignCreate(Strict):
    name = text_field(80, required=True)
    sides = fields.List(
        fields.String(validate=validate.Length(min=1, max=40)),
        required=True,
        validate=[validate.Length(min=2), Unique()],
        metadata={"description": "two or more different side names", "uniqueItems": True},
    )
    steps = fields.List(
        fields.Nested(StepIn), required=True, validate=validate.Length(min=1, max=50)
    )
    scoring = fields.Dict(
        keys=fields.String(validate=validate.Length(min=1, max=40)),
        values=JsonInteger(validate=validate.Range(min=0, max=1000)),
        required=True,
        validate=validate.Length(min=1),
        metadata={"description": "victory level -> campaign points ('draw' for each side)"},
    )


class StartIn(Strict):
    sides = fields.Dict(keys=fields.String(), values=fields.String(), required=True)
    options = fields.Dict(keys=fields.String(), load_default=dict)


class ScoreIn(Strict):
    sides = fields.Dict(keys=fields.String(), values=fields.String(), required=True)
    winner = fields.String(required=True, allow_none=True)
    level = fields.String(required=True, validate=validate.Length(min=1, max=40))


class NoteIn(Strict):
    text = fields.String(required=True, validate=validate.Length(min=1, max=2000))


class CampaignOut(Schema):
    id = fields.String()
    club = fields.String()
    name = fields.String()
    organiser = fields.String()
    sides = fields.List(fields.String())
    scoring = fields.Dict()
    next_step = fields.Integer(allow_none=True)
    steps = fields.List(fields.Dict())
    standings = fields.Dict()
    game = fields.String(allow_none=True)


class CampaignSummary(Schema):
    id = fields.String()
    club = fields.String()
    name = fields.String()


class CampaignsArgs(PageFields, Strict):
    pass


@blp.route("/clubs/<club>/campaigns")
class ClubCampaigns(MethodView):
    @blp.arguments(CampaignsArgs, location="query")
    @blp.response(200, CampaignSummary(many=True))
    def get(
        self, args: dict[str, Any], club: str
    ) -> tuple[list[dict[str, str]], int, dict[str, str]]:
        """The club's campaigns, oldest first, a page of ``limit`` (default 50, at most 100);
        ``X-Next-Cursor`` (and ``Link``) names the next page, passed back as ``after``."""
        rows, key = services().campaigns.of_club(club, limit=args["limit"], after=args["after"])
        path = f"/api/clubs/{quote(club, safe='')}/campaigns"
        return rows, 200, next_page(path, args, key) if key is not None else {}

    @blp.arguments(CampaignCreate)
    @blp.response(201, CampaignOut)
    def post(self, body: dict[str, Any], club: str) -> dict[str, Any]:
        """Create a campaign (club admins; the creator organises it)."""
        campaigns = services().campaigns
        return campaigns.view(campaigns.create(club, require_user(), **body))


@blp.route("/campaigns/<campaign_id>")
class CampaignResource(MethodView):
    @blp.response(200, CampaignOut)
    def get(self, campaign_id: str) -> dict[str, Any]:
        """The campaign, its steps, notes and standings per side and per player."""
        campaigns = services().campaigns
        return campaigns.view(campaigns.get(campaign_id))


@blp.route("/campaigns/<campaign_id>/steps/<int:step>/start")
class Start(MethodView):
    @blp.arguments(StartIn)
    @blp.response(201, CampaignOut)
    def post(self, body: dict[str, Any], campaign_id: str, step: int) -> dict[str, Any]:
        """Start the step's game (side -> username); its end scores the step."""
        campaigns = services().campaigns
        campaign, game = campaigns.start_step(
            campaign_id, require_user(), step, body["sides"], body["options"]
        )
        return campaigns.view(campaign) | {"game": str(game.id)}


@blp.route("/campaigns/<campaign_id>/steps/<int:step>/result")
class Score(MethodView):
    @blp.arguments(ScoreIn)
    @blp.response(201, CampaignOut)
    def post(self, body: dict[str, Any], campaign_id: str, step: int) -> dict[str, Any]:
        """Score a step played off-line (organiser)."""
        campaigns = services().campaigns
        return campaigns.view(campaigns.score_step(campaign_id, require_user(), step, **body))


@blp.route("/campaigns/<campaign_id>/steps/<int:step>/notes")
class Notes(MethodView):
    @blp.arguments(NoteIn)
    @blp.response(201, CampaignOut)
    def post(self, body: dict[str, Any], campaign_id: str, step: int) -> dict[str, Any]:
        """Note an effect carried over from this step (organiser)."""
        campaigns = services().campaigns
        return campaigns.view(campaigns.add_note(campaign_id, require_user(), step, body["text"]))
