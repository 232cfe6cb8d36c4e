"""Takebacks, disputes, the arbiter's queue, audit and the rulings that govern an event."""

from __future__ import annotations

from typing import Any

from flask.views import MethodView
from marshmallow import fields, validate

from service.api.auth import optional_user, require_user, services
from service.api.blueprint import Blueprint
from service.api.paging import next_page
from service.api.schemas import JsonInteger, Lenient, PageFields, Strict, db_range
from service.domain.game import Game

blp = Blueprint(
    "disputes", __name__, url_prefix="/api", description="Takebacks, disputes, audit, rulings"
)


class TakebackIn(Strict):
    side = fields.String(load_default=None)
    from_seq = JsonInteger(load_default=None, validate=db_range(2))


class TakebackAnswerIn(Strict):
    accept = fields.Boolean(required=True)
    side = fields.String(load_default=None)


#: a claimed reading names at most this many options; an alternative command is at most this big
READING_MAX = 8


def _reading_field() -> fields.Dict:
    return fields.Dict(
        keys=fields.String(validate=validate.Length(min=1, max=60)),
        values=fields.Raw(allow_none=False),
        validate=validate.Length(max=READING_MAX),
        load_default=None,
        allow_none=True,
    )


def _instead_field() -> fields.Dict:
    return fields.Dict(keys=fields.String(), load_default=None, allow_none=True)


#: what the document says of a dispute's or verdict's citations (a rule no schema can state)
CITATIONS = (
    "ids of knowledge-base entries (as GET /api/rules/search gives them) of this game's rules: "
    "its rulebook, the FAQ or its club's rulings; any other id is refused (422, field citations)"
)


class DisputeIn(Strict):
    seq = JsonInteger(required=True, validate=db_range(2))
    claim = fields.String(required=True, validate=validate.Length(min=1, max=4000))
    citations = fields.List(
        fields.String(validate=validate.Length(min=1, max=200)),
        load_default=list,
        metadata={"description": CITATIONS},
    )
    side = fields.String(load_default=None)
    #: the reading the player says applies: ``{option: value}`` (options the game declares)
    reading = _reading_field()
    #: the command the player says was legal or should have been offered, on the state before
    instead = _instead_field()


class ClubRulingIn(Strict):
    heading = fields.String(required=True, validate=validate.Length(min=1, max=200))
    text = fields.String(required=True, validate=validate.Length(min=1, max=8000))
    rule_refs = fields.List(fields.String(validate=validate.Length(max=40)), load_default=list)
    event_types = fields.List(
        fields.String(validate=validate.Length(min=1, max=80)),
        required=True,
        validate=validate.Length(min=1),
    )
    #: the verdict's adopted reading becomes the default of the club's new games of this system
    default_reading = fields.Boolean(load_default=False)


class ResolutionIn(Strict):
    verdict = fields.String(required=True, validate=validate.OneOf(["upheld", "overturned"]))
    remedy = fields.String(
        load_default=None, allow_none=True, validate=validate.OneOf(["rewind", "rebase"])
    )
    citations = fields.List(
        fields.String(validate=validate.Length(min=1, max=200)),
        required=True,
        validate=validate.Length(min=1),
        metadata={"description": CITATIONS},
    )
    note = fields.String(load_default="", validate=validate.Length(max=4000))
    club_ruling = fields.Nested(ClubRulingIn, load_default=None, allow_none=True)
    #: the reading (and/or command) the verdict adopts; none: the dispute's own claim
    reading = _reading_field()
    instead = _instead_field()
    #: the digest of the what-if the arbiter decided on: refused (409) if it no longer holds
    what_if = fields.String(
        load_default=None, allow_none=True, validate=validate.Regexp(r"^[0-9a-f]{64}$")
    )


class DiffArgs(Lenient):
    from_ = fields.Integer(data_key="from", required=True, validate=db_range(1))
    to = fields.Integer(required=True, validate=db_range(1))
    side = fields.String(load_default=None)


class SideArgs(Lenient):
    side = fields.String(load_default=None)


def _status(game: Game) -> dict[str, Any]:
    return {"version": game.version, "status": game.status, "takeback": game.takeback}


@blp.route("/games/<game_id>/takebacks")
class Takebacks(MethodView):
    @blp.arguments(TakebackIn)
    @blp.response(201)
    def post(self, body: dict[str, Any], game_id: str) -> dict[str, Any]:
        """Ask to take back your latest commands (no dice rolled, nothing revealed, opponent idle)."""
        game = services().disputes.request_takeback(
            game_id, require_user(), side=body["side"], from_seq=body["from_seq"]
        )
        return _status(game)


@blp.route("/games/<game_id>/takebacks/answer")
class TakebackAnswer(MethodView):
    @blp.arguments(TakebackAnswerIn)
    @blp.response(200)
    def post(self, body: dict[str, Any], game_id: str) -> dict[str, Any]:
        """The opponent accepts (the commands are retracted by an appended event) or declines."""
        game = services().disputes.answer_takeback(
            game_id, require_user(), accept=body["accept"], side=body["side"]
        )
        return _status(game)


@blp.route("/games/<game_id>/disputes")
class Disputes(MethodView):
    @blp.response(200)
    def get(self, game_id: str) -> list[dict[str, Any]]:
        """Every dispute of the game with its claim, citations and resolution."""
        return services().disputes.of_game(game_id)

    @blp.arguments(DisputeIn)
    @blp.response(201)
    def post(self, body: dict[str, Any], game_id: str) -> dict[str, Any]:
        """Flag an event: a claim and the knowledge-base entries it cites."""
        game, dispute = services().disputes.open(
            game_id,
            require_user(),
            seq=body["seq"],
            claim=body["claim"],
            cite=body["citations"],
            side=body["side"],
            reading=body["reading"],
            instead=body["instead"],
        )
        return {"dispute": dispute, **_status(game), "paused": game.paused_by() == dispute}


@blp.route("/games/<game_id>/disputes/<dispute>/what-if")
class WhatIf(MethodView):
    @blp.response(200)
    def get(self, game_id: str, dispute: str) -> dict[str, Any]:
        """What the claim would change, never written to the log: the disputed command re-decided
        under the claimed reading (or as the command claimed instead) with the same dice, beside
        what was recorded, and what a rebase would do to every later command.  A player sees it
        as their side may; an arbiter in full.  ``digest`` is what a verdict records.  An ended
        game re-decides nothing: ``ended`` is then true, ``alternative`` null and ``digest`` null,
        and a verdict may uphold the event or make a club ruling."""
        return services().what_ifs.for_caller(game_id, require_user(), dispute)


@blp.route("/games/<game_id>/events/<int:seq>/readings")
class EventReadings(MethodView):
    @blp.response(200)
    def get(self, game_id: str, seq: int) -> list[dict[str, Any]]:
        """The readings of the rules that govern event ``seq``: each conflict its command's
        events link to that a game option settles, with the option's choices in words."""
        return services().what_ifs.readings(game_id, seq, optional_user())


@blp.route("/games/<game_id>/disputes/<dispute>/resolution")
class Resolution(MethodView):
    @blp.arguments(ResolutionIn)
    @blp.response(201)
    def post(self, body: dict[str, Any], game_id: str, dispute: str) -> dict[str, Any]:
        """An arbiter (never a player of the game) upholds or overturns, citing entries; an overturn
        rewinds or rebases; optionally the decision becomes a club ruling."""
        return services().disputes.resolve(
            game_id,
            require_user(),
            dispute=dispute,
            verdict=body["verdict"],
            remedy=body["remedy"],
            cite=body["citations"],
            note=body["note"],
            club_ruling=body["club_ruling"],
            reading=body["reading"],
            instead=body["instead"],
            what_if=body["what_if"],
        )


class QueueArgs(PageFields, Strict):
    pass


@blp.route("/disputes/queue")
class Queue(MethodView):
    @blp.arguments(QueueArgs, location="query")
    @blp.response(200)
    def get(self, args: dict[str, Any]) -> tuple[list[dict[str, Any]], int, dict[str, str]]:
        """The open disputes the caller may resolve, oldest first, a page of ``limit`` (default
        50, at most 100).  When there are more, the response's ``X-Next-Cursor`` header (and its
        ``Link: <...>; rel="next"``) names the next page: pass it back as ``after``."""
        rows, key = services().disputes.queue_page(
            require_user(), limit=args["limit"], after=args["after"]
        )
        headers = next_page("/api/disputes/queue", args, key) if key is not None else {}
        return rows, 200, headers


@blp.route("/games/<game_id>/audit")
class Audit(MethodView):
    @blp.response(200)
    def get(self, game_id: str) -> dict[str, Any]:
        """Recompute the hash chain, seals and dice over the stored events; the first bad event."""
        return services().audit.verify(game_id)


@blp.route("/games/<game_id>/audit/actions")
class AuditActions(MethodView):
    @blp.arguments(SideArgs, location="query")
    @blp.response(200)
    def get(self, args: dict[str, Any], game_id: str) -> list[dict[str, Any]]:
        """Who did what and when (commands with their effects in words, and every bookkeeping event)."""
        svc = services()
        viewer = svc.games.viewer_side(svc.games.get(game_id), optional_user(), None)
        return svc.audit.actions(game_id, args["side"], viewer=viewer)


@blp.route("/games/<game_id>/audit/diff")
class AuditDiff(MethodView):
    @blp.arguments(DiffArgs, location="query")
    @blp.response(200)
    def get(self, args: dict[str, Any], game_id: str) -> dict[str, Any]:
        """The difference between the states at two versions, as the caller's side sees them."""
        svc = services()
        viewer = svc.games.viewer_side(svc.games.get(game_id), optional_user(), args["side"])
        return svc.audit.diff(game_id, args["from_"], args["to"], viewer)


@blp.route("/games/<game_id>/events/<int:seq>/rulings")
class EventRulings(MethodView):
    @blp.arguments(SideArgs, location="query")
    @blp.response(200)
    def get(self, args: dict[str, Any], game_id: str, seq: int) -> dict[str, Any]:
        """The game's own governing rule sections, then FWtBT and club rulings for this event."""
        svc = services()
        viewer = svc.games.viewer_side(svc.games.get(game_id), optional_user(), args["side"])
        return svc.knowledge.for_event(game_id, seq, viewer)
