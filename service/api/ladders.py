"""Ladders: settings, players, challenges, face-to-face reports, standings, history, live updates."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote
from uuid import UUID

from flask import Response, request
from flask.views import MethodView
from marshmallow import Schema, fields, validate

from service.api.auth import require_user, services
from service.api.blueprint import Blueprint
from service.api.paging import next_page
from service.api.schemas import (
    JsonInteger,
    Lenient,
    PageFields,
    ScenarioOptionOut,
    Strict,
    db_range,
    page_cursor,
)
from service.api.stream import Plan, respond
from service.application.services import Services
from service.application.standings import ladder_channel
from service.domain.errors import Invalid
from service.domain.ladders import RATING_SYSTEMS, TAKEBACKS

blp = Blueprint("ladders", __name__, url_prefix="/api", description="Ladders, ratings, challenges")


class Settings(Strict):
    rating_system = fields.String(validate=validate.OneOf(RATING_SYSTEMS))
    tau = fields.Float(validate=validate.Range(min=0.2, max=1.2))
    rating_period_days = JsonInteger(validate=validate.Range(min=1, max=365))
    takeback = fields.String(validate=validate.OneOf(TAKEBACKS))
    challenge_range = JsonInteger(validate=validate.Range(min=1, max=100))
    challenge_deadline_hours = JsonInteger(validate=validate.Range(min=1, max=1440))
    disputes_pause = fields.Boolean()
    side_adjustment = fields.Boolean()
    clock = fields.Dict(
        allow_none=True,
        metadata={"description": 'its games\' clock: {"kind": "per-turn"|"per-move", "days", ...}'},
    )
    options = fields.Dict(
        keys=fields.String(),
        metadata={"description": "game options every game of the ladder is created with"},
    )


class LadderCreate(Strict):
    name = fields.String(required=True, validate=validate.Length(min=1, max=80))
    system = fields.String(required=True, validate=validate.Length(min=1, max=40))
    scenario = fields.String(
        load_default=None,
        validate=validate.Length(min=1, max=80),
        metadata={"description": "a system's scenario or a club scenario's id (or ``id@N``)"},
    )
    scenario_version = fields.Integer(
        load_default=None,
        validate=validate.Range(min=1),
        metadata={"description": "a club scenario's version (default: its latest): pinned"},
    )
    settings = fields.Nested(Settings, load_default=dict)
    options = fields.Dict(
        keys=fields.String(),
        load_default=None,
        metadata={
            "description": "game options of every game of the ladder (the system's options; "
            'e.g. {"decisions": "automatic"} on Merida); they win over a challenge\'s'
        },
    )


class LadderOut(Schema):
    id = fields.String()
    club = fields.String()
    name = fields.String()
    system = fields.String()
    scenario = fields.String(allow_none=True)
    scenario_title = fields.String(allow_none=True)
    scenario_sides = fields.List(fields.String(), allow_none=True)
    scenario_options = fields.List(
        fields.Nested(ScenarioOptionOut),
        allow_none=True,
        metadata={"description": "the options a challenge may set (as a scenario's `options`)"},
    )
    settings = fields.Dict()
    players = fields.Integer()
    results = fields.Integer()
    period = fields.Integer()
    created_at = fields.String()
    recent_results = fields.List(fields.Dict())


class ChallengeIn(Strict):
    opponent = fields.String(required=True, validate=validate.Length(min=1, max=32))
    scenario = fields.String(load_default=None)
    side = fields.String(load_default=None, metadata={"description": "the challenger's side"})
    options = fields.Dict(keys=fields.String(), load_default=dict)


class ChallengeOut(Schema):
    id = fields.String()
    ladder = fields.String()
    challenger = fields.String()
    opponent = fields.String()
    scenario = fields.String()
    scenario_title = fields.String()
    challenger_side = fields.String(allow_none=True)
    options = fields.Dict(metadata={"description": "the game options the challenger chose"})
    deadline = fields.String()
    status = fields.String()
    game = fields.String(allow_none=True)
    sides = fields.Dict(keys=fields.String(), values=fields.String())
    issued_at = fields.String()


class ReasonIn(Strict):
    reason = fields.String(load_default="", validate=validate.Length(max=500))


class ReportIn(Strict):
    sides = fields.Dict(
        keys=fields.String(),
        values=fields.String(),
        required=True,
        metadata={"description": "side -> username"},
    )
    winner = fields.String(required=True, allow_none=True, metadata={"description": "null: draw"})
    level = fields.String(load_default=None, validate=validate.Length(min=1, max=40))
    scenario = fields.String(load_default=None)


class ReportOut(Schema):
    id = fields.String()
    ladder = fields.String()
    reporter = fields.String()
    opponent = fields.String()
    scenario = fields.String()
    scenario_title = fields.String()
    sides = fields.Dict(keys=fields.String(), values=fields.String())
    winner = fields.String(allow_none=True)
    level = fields.String()
    status = fields.String()
    reported_at = fields.String()


class ChallengeStatusArgs(PageFields, Lenient):
    status = fields.String(
        load_default=None, validate=validate.OneOf(["open", "accepted", "declined", "forfeited"])
    )
    after = page_cursor(str, int)


class ReportStatusArgs(PageFields, Lenient):
    status = fields.String(
        load_default=None, validate=validate.OneOf(["reported", "confirmed", "rejected"])
    )
    after = page_cursor(str, int)


class ClubLaddersArgs(PageFields, Strict):
    pass


class MyLaddersArgs(PageFields, Strict):
    after = page_cursor(str, UUID)


class PageArgs(Lenient):
    offset = fields.Integer(load_default=0, validate=db_range(0))
    limit = fields.Integer(load_default=100, validate=validate.Range(min=1, max=1000))


class Row(Schema):
    rank = fields.Integer()
    user = fields.String()
    username = fields.String()
    rating = fields.Float()
    rd = fields.Float()
    volatility = fields.Float()
    games = fields.Integer()
    wins = fields.Integer()
    draws = fields.Integer()
    losses = fields.Integer()


class StandingsOut(Schema):
    ladder = fields.String()
    source = fields.String(metadata={"description": "redis or projection"})
    standings = fields.List(fields.Nested(Row))


# -- ladders ----------------------------------------------------------------------------------------
@blp.route("/clubs/<club>/ladders")
class ClubLadders(MethodView):
    @blp.arguments(ClubLaddersArgs, location="query")
    @blp.response(200, LadderOut(many=True))
    def get(
        self, args: dict[str, Any], club: str
    ) -> tuple[list[dict[str, Any]], int, dict[str, str]]:
        """The club's ladders, oldest first, a page of ``limit`` (default 50, at most 100);
        ``X-Next-Cursor`` (and ``Link``) names the next page, passed back as ``after``."""
        rows, key = services().ladders.of_club_page(club, limit=args["limit"], after=args["after"])
        path = f"/api/clubs/{quote(club, safe='')}/ladders"
        return rows, 200, next_page(path, args, key) if key is not None else {}

    @blp.arguments(LadderCreate)
    @blp.response(201, LadderOut)
    def post(self, body: dict[str, Any], club: str) -> dict[str, Any]:
        """Create a ladder of one rules system or one scenario (club admins)."""
        ladders = services().ladders
        ladder = ladders.create(club, require_user(), **body)
        return ladders.view(str(ladder.id))


@blp.route("/me/ladders")
class MyLadders(MethodView):
    @blp.arguments(MyLaddersArgs, location="query")
    @blp.response(200)
    def get(self, args: dict[str, Any]) -> tuple[list[dict[str, Any]], int, dict[str, str]]:
        """The ladders the caller plays by name, each with its club's name and the caller's rank
        and rating (``me``), a page of ``limit`` (default 50, at most 100); ``X-Next-Cursor``
        (and ``Link``) names the next page, passed back as ``after``."""
        rows, key = services().ladders.of_player_page(
            require_user(), limit=args["limit"], after=args["after"]
        )
        return rows, 200, next_page("/api/me/ladders", args, key) if key is not None else {}


@blp.route("/ladders/<ladder_id>")
class LadderResource(MethodView):
    @blp.response(200, LadderOut)
    def get(self, ladder_id: str) -> dict[str, Any]:
        """A ladder, its settings and its latest results."""
        return services().ladders.view(ladder_id)


@blp.route("/ladders/<ladder_id>/settings")
class LadderSettings(MethodView):
    @blp.arguments(Settings)
    @blp.response(200, LadderOut)
    def patch(self, body: dict[str, Any], ladder_id: str) -> dict[str, Any]:
        """Change settings (club admins)."""
        ladders = services().ladders
        ladders.change_settings(ladder_id, require_user(), body)
        return ladders.view(ladder_id)


@blp.route("/ladders/<ladder_id>/players")
class LadderPlayers(MethodView):
    @blp.response(201, LadderOut)
    def post(self, ladder_id: str) -> dict[str, Any]:
        """Join the ladder (club members with the player role)."""
        ladders = services().ladders
        ladders.join(ladder_id, require_user())
        return ladders.view(ladder_id)

    @blp.response(200, LadderOut)
    def delete(self, ladder_id: str) -> dict[str, Any]:
        """Leave the ladder."""
        ladders = services().ladders
        ladders.leave(ladder_id, require_user())
        return ladders.view(ladder_id)


@blp.route("/ladders/<ladder_id>/standings")
class Standings(MethodView):
    @blp.arguments(PageArgs, location="query")
    @blp.response(200, StandingsOut)
    def get(self, args: dict[str, Any], ladder_id: str) -> dict[str, Any]:
        """The leaderboard, best first."""
        return services().ladders.standings(ladder_id, offset=args["offset"], limit=args["limit"])


@blp.route("/ladders/<ladder_id>/history/<username>")
class History(MethodView):
    @blp.response(200)
    def get(self, ladder_id: str, username: str) -> dict[str, Any]:
        """A player's rating at the end of each rating period played (then the provisional one)."""
        return {"user": username, "history": services().ladders.history(ladder_id, username)}


@blp.route("/ladders/<ladder_id>/sides")
class Sides(MethodView):
    @blp.response(200)
    def get(self, ladder_id: str) -> dict[str, Any]:
        """The side adjustment learned for each scenario (see docs/ladders.md)."""
        return services().ladders.side_adjustments(ladder_id)


# -- challenges -------------------------------------------------------------------------------------
@blp.route("/ladders/<ladder_id>/challenges")
class Challenges(MethodView):
    @blp.arguments(ChallengeStatusArgs, location="query")
    @blp.response(200, ChallengeOut(many=True))
    def get(
        self, args: dict[str, Any], ladder_id: str
    ) -> tuple[list[dict[str, Any]], int, dict[str, str]]:
        """Challenges (``status``: of that status), newest first, a page of ``limit`` (default
        50, at most 100); ``X-Next-Cursor`` (and ``Link``) names the next page, passed back as
        ``after``."""
        rows, key = services().ladders.challenges_page(
            ladder_id, args["status"], limit=args["limit"], after=args["after"]
        )
        path = f"/api/ladders/{quote(ladder_id, safe='')}/challenges"
        return rows, 200, next_page(path, args, key) if key is not None else {}

    @blp.arguments(ChallengeIn)
    @blp.response(201, ChallengeOut)
    def post(self, body: dict[str, Any], ladder_id: str) -> dict[str, Any]:
        """Challenge a player ranked within the ladder's range above you."""
        ladders = services().ladders
        challenge = ladders.challenge(
            ladder_id,
            require_user(),
            body["opponent"],
            scenario=body["scenario"],
            side=body["side"],
            options=body["options"],
        )
        return ladders.challenge_view(challenge)


@blp.route("/challenges/<challenge_id>/accept")
class Accept(MethodView):
    @blp.response(201, ChallengeOut)
    def post(self, challenge_id: str) -> dict[str, Any]:
        """Accept: the game is created; its id is in ``game``."""
        ladders = services().ladders
        challenge, _game = ladders.accept(challenge_id, require_user())
        return ladders.challenge_view(challenge)


@blp.route("/challenges/<challenge_id>/decline")
class Decline(MethodView):
    @blp.arguments(ReasonIn)
    @blp.response(200, ChallengeOut)
    def post(self, body: dict[str, Any], challenge_id: str) -> dict[str, Any]:
        """Decline before the deadline."""
        ladders = services().ladders
        return ladders.challenge_view(ladders.decline(challenge_id, require_user(), body["reason"]))


@blp.route("/challenges/<challenge_id>/forfeit")
class Forfeit(MethodView):
    @blp.response(200, ChallengeOut)
    def post(self, challenge_id: str) -> dict[str, Any]:
        """Claim the win of an unanswered challenge after its deadline (challenger or club admin)."""
        ladders = services().ladders
        return ladders.challenge_view(ladders.forfeit(challenge_id, require_user()))


# -- face-to-face results ---------------------------------------------------------------------------
@blp.route("/ladders/<ladder_id>/reports")
class Reports(MethodView):
    @blp.arguments(ReportStatusArgs, location="query")
    @blp.response(200, ReportOut(many=True))
    def get(
        self, args: dict[str, Any], ladder_id: str
    ) -> tuple[list[dict[str, Any]], int, dict[str, str]]:
        """Reported face-to-face results (``status``: of that status), newest first, a page of
        ``limit`` (default 50, at most 100); ``X-Next-Cursor`` (and ``Link``) names the next
        page, passed back as ``after``."""
        rows, key = services().ladders.reports_page(
            ladder_id, args["status"], limit=args["limit"], after=args["after"]
        )
        path = f"/api/ladders/{quote(ladder_id, safe='')}/reports"
        return rows, 200, next_page(path, args, key) if key is not None else {}

    @blp.arguments(ReportIn)
    @blp.response(201, ReportOut)
    def post(self, body: dict[str, Any], ladder_id: str) -> dict[str, Any]:
        """Report a face-to-face game you played; it counts once your opponent confirms it."""
        ladders = services().ladders
        report = ladders.report(ladder_id, require_user(), **body)
        return ladders.report_view(report)


@blp.route("/reports/<report_id>/confirm")
class Confirm(MethodView):
    @blp.response(200, ReportOut)
    def post(self, report_id: str) -> dict[str, Any]:
        """Confirm the result your opponent reported: it is rated."""
        ladders = services().ladders
        return ladders.report_view(ladders.confirm(report_id, require_user()))


@blp.route("/reports/<report_id>/reject")
class Reject(MethodView):
    @blp.arguments(ReasonIn)
    @blp.response(200, ReportOut)
    def post(self, body: dict[str, Any], report_id: str) -> dict[str, Any]:
        """Reject the result your opponent reported."""
        ladders = services().ladders
        return ladders.report_view(ladders.reject(report_id, require_user(), body["reason"]))


# -- live updates -----------------------------------------------------------------------------------
@blp.route("/ladders/<ladder_id>/stream")
class Stream(MethodView):
    def get(self, ladder_id: str) -> Response:
        """Server-sent events: a ``standings`` event whenever the ladder's standings change."""
        svc = services()
        svc.ladders.view(ladder_id)  # 404 for an unknown ladder
        try:
            window = float(request.args.get("window", "60"))
        except ValueError:
            raise Invalid("window must be a number", {"window": ["a number"]}) from None
        if not 1 <= window <= 600:
            raise Invalid("window must be 1 to 600 seconds", {"window": ["1 to 600 seconds"]})
        return respond(ladder_plan(svc, ladder_id, window=window))


def ladder_plan(svc: Services, ladder_id: str, *, window: float) -> Plan:
    """Standings notices from the broker for ``window`` seconds.  While idle the stream reads the
    ladder's row in the view (by key), so a change announced by a process whose notices do not
    reach this one is announced all the same (it records nothing); with the broker lost it polls."""
    feed = svc.ladders.feed
    row = feed.view.ladder_row(ladder_id)
    first = int(row["changed_at"]) if row is not None else 0
    last = {"seen": first}

    def idle(degraded: bool) -> dict[str, Any] | None:
        current = feed.view.ladder_row(ladder_id)
        if current is None or int(current["changed_at"]) <= last["seen"]:
            return None
        since, last["seen"] = last["seen"], int(current["changed_at"])
        return feed.notice(current, feed.named(feed.view.changed_rows(ladder_id, since)))

    return Plan(
        broker=svc.broker,
        channel=ladder_channel(ladder_id),
        kind="standings",
        since=first,
        window=window,
        position=lambda note: int(note.get("position", 0)),
        idle=idle,
        idle_when_live=True,  # reads the view, so a change announced anywhere reaches the stream
    )
