"""Club events (tournaments): round robins and Swiss events of one scenario, with sides balanced,
scoring, tie-breaks and a round deadline.  See docs/events.md."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from flask.views import MethodView
from marshmallow import Schema, fields, validate

from service.api.auth import optional_user, require_user, services
from service.api.blueprint import Blueprint
from service.api.paging import next_page
from service.api.schemas import JsonInteger, PageFields, Strict
from service.domain.game import ADJUDICATIONS
from service.domain.tournaments import FORMATS, MAX_ROUND_DAYS, MAX_ROUNDS

blp = Blueprint("events", __name__, url_prefix="/api", description="Club events (tournaments)")


class EventScoringIn(Strict):
    win = JsonInteger(validate=validate.Range(min=0, max=100))
    draw = JsonInteger(validate=validate.Range(min=0, max=100))
    loss = JsonInteger(validate=validate.Range(min=0, max=100))
    bye = JsonInteger(validate=validate.Range(min=0, max=100))


class ClubEventCreate(Strict):
    name = fields.String(required=True, validate=validate.Length(min=1, max=80))
    format = fields.String(required=True, validate=validate.OneOf(FORMATS))
    system = fields.String(required=True, validate=validate.Length(min=1, max=40))
    scenario = fields.String(required=True, validate=validate.Length(min=1, max=80))
    options = fields.Dict(keys=fields.String(), load_default=dict)
    rounds = JsonInteger(load_default=None, validate=validate.Range(min=1, max=MAX_ROUNDS))
    double = fields.Boolean(load_default=False)
    clock = fields.Dict(load_default=None, allow_none=True)
    round_days = JsonInteger(load_default=7, validate=validate.Range(min=1, max=MAX_ROUND_DAYS))
    scoring = fields.Nested(EventScoringIn, load_default=dict)
    ladder = fields.String(
        load_default=None,
        allow_none=True,
        metadata={
            "description": "a ladder of the club (same system and scenario) that rates the games"
        },
    )


class EventPlayerIn(Strict):
    username = fields.String(required=True, validate=validate.Length(min=1, max=32))


class EventResultIn(Strict):
    game = fields.String(required=True, validate=validate.Length(min=1, max=64))
    winner = fields.String(required=True, allow_none=True, metadata={"description": "a side"})
    kind = fields.String(required=True, validate=validate.OneOf(ADJUDICATIONS))
    note = fields.String(load_default="", validate=validate.Length(max=500))


class EventRoundIn(Strict):
    results = fields.List(
        fields.Nested(EventResultIn), load_default=list, validate=validate.Length(max=64)
    )


class ClubEventOut(Schema):
    id = fields.String()
    club = fields.String()
    club_name = fields.String()
    name = fields.String()
    status = fields.String()
    format = fields.String()
    system = fields.String()
    scenario = fields.String()
    sides = fields.List(fields.String())
    options = fields.Dict()
    clock = fields.Dict(allow_none=True)
    rounds_total = fields.Integer(allow_none=True)
    double = fields.Boolean()
    round_days = fields.Integer()
    scoring = fields.Dict()
    ladder = fields.String(allow_none=True)
    players = fields.List(fields.String())
    rounds = fields.List(fields.Dict())
    standings = fields.List(fields.Dict())
    viewer = fields.Dict()


class ClubEventSummary(Schema):
    id = fields.String()
    club = fields.String()
    name = fields.String()
    format = fields.String()
    status = fields.String()


class ClubEventsArgs(PageFields, Strict):
    pass


def _out(event: Any) -> dict[str, Any]:
    """The event as the view has it (a writing request's: brought up to its write first)."""
    return services().tournaments.view(str(event.id), optional_user())


@blp.route("/clubs/<club>/events")
class ClubEvents(MethodView):
    @blp.arguments(ClubEventsArgs, location="query")
    @blp.response(200, ClubEventSummary(many=True))
    def get(
        self, args: dict[str, Any], club: str
    ) -> tuple[list[dict[str, Any]], int, dict[str, str]]:
        """The club's events, oldest first, a page of ``limit`` (default 50, at most 100);
        ``X-Next-Cursor`` (and ``Link``) names the next page, passed back as ``after``."""
        rows, key = services().tournaments.of_club(club, limit=args["limit"], after=args["after"])
        path = f"/api/clubs/{quote(club, safe='')}/events"
        return rows, 200, next_page(path, args, key) if key is not None else {}

    @blp.arguments(ClubEventCreate)
    @blp.response(201, ClubEventOut)
    def post(self, body: dict[str, Any], club: str) -> dict[str, Any]:
        """Create an event (club admins): ``round_robin`` (``double``: each pair plays both
        sides) or ``swiss`` (``rounds``), of one scenario, with its options, clock, a round's days
        and its scoring (default win 2, draw 1, loss 0; a bye scores a win unless set)."""
        return _out(services().tournaments.create(club, require_user(), body))


@blp.route("/events/<event_id>")
class EventResource(MethodView):
    @blp.response(200, ClubEventOut)
    def get(self, event_id: str) -> dict[str, Any]:
        """The event: its status, rounds (each game's sides, state and result; the bye; the
        deadline) and standings in rank order with Buchholz, Sonneborn-Berger and side counts."""
        return services().tournaments.view(event_id, optional_user())


@blp.route("/events/<event_id>/join")
class Join(MethodView):
    @blp.response(201, ClubEventOut)
    def post(self, event_id: str) -> dict[str, Any]:
        """Join the event (a member of its club, before it starts)."""
        return _out(services().tournaments.join(event_id, require_user()))


@blp.route("/events/<event_id>/players")
class Players(MethodView):
    @blp.arguments(EventPlayerIn)
    @blp.response(201, ClubEventOut)
    def post(self, body: dict[str, Any], event_id: str) -> dict[str, Any]:
        """Add a member of the club as a player (club admins, before the start)."""
        return _out(services().tournaments.invite(event_id, require_user(), body["username"]))


@blp.route("/events/<event_id>/players/<username>")
class Player(MethodView):
    @blp.response(200, ClubEventOut)
    def delete(self, event_id: str, username: str) -> dict[str, Any]:
        """Remove a player before the start (a club admin; or the player, leaving)."""
        return _out(services().tournaments.remove(event_id, require_user(), username))


@blp.route("/events/<event_id>/start")
class Start(MethodView):
    @blp.response(201, ClubEventOut)
    def post(self, event_id: str) -> dict[str, Any]:
        """Start the event (club admins): a round robin's rounds are all released, a Swiss's
        first; each game is a club game its two players accept."""
        return _out(services().tournaments.start(event_id, require_user()))


@blp.route("/events/<event_id>/rounds")
class Rounds(MethodView):
    @blp.arguments(EventRoundIn)
    @blp.response(201, ClubEventOut)
    def post(self, body: dict[str, Any], event_id: str) -> dict[str, Any]:
        """Release the next Swiss round (club admins): refused while the current round has
        unfinished games, unless ``results`` gives theirs (forfeits or adjudications)."""
        tournaments = services().tournaments
        return _out(tournaments.next_round(event_id, require_user(), body["results"]))


@blp.route("/events/<event_id>/results")
class Results(MethodView):
    @blp.arguments(EventResultIn)
    @blp.response(201, ClubEventOut)
    def post(self, body: dict[str, Any], event_id: str) -> dict[str, Any]:
        """The club's arbiter records the result of a game unfinished at its round's deadline
        (``forfeit`` or ``adjudication``; ``winner``: a side, or null for a draw)."""
        return _out(services().tournaments.record_result(event_id, require_user(), body))
