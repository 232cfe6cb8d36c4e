"""Who may rule on a game's disputes, and settling a dispute by both players' agreement."""

from __future__ import annotations

from typing import Any

from flask.views import MethodView
from marshmallow import Schema, fields, validate

from service.api.auth import optional_user, require_user, services
from service.api.blueprint import Blueprint
from service.api.schemas import Strict
from service.application.dispute_agreement import DisputeAgreements

blp = Blueprint(
    "agreements",
    __name__,
    url_prefix="/api/games",
    description="Who rules on a game's disputes; settling one by agreement",
)


def agreements() -> DisputeAgreements:
    return services().agreements  # made by the bootstrap


class ProposalIn(Strict):
    verdict = fields.String(required=True, validate=validate.OneOf(["upheld", "overturned"]))
    note = fields.String(load_default="", validate=validate.Length(max=4000))
    side = fields.String(load_default=None)


class AcceptIn(Strict):
    side = fields.String(load_default=None)


class ClubRef(Schema):
    id = fields.String()
    name = fields.String()


class ArbitersOut(Schema):
    club = fields.Nested(ClubRef, allow_none=True, metadata={"description": "the game's club"})
    arbiters = fields.List(
        fields.String(), metadata={"description": "the club's arbiters who play no side (20)"}
    )
    arbiter_count = fields.Integer(metadata={"description": "how many of them"})
    site_arbiters = fields.Boolean(
        metadata={"description": "a game of no club: the site's arbiters rule on its disputes"}
    )
    viewer_may_appoint = fields.Boolean(
        metadata={"description": "the caller is an admin of the club: may appoint arbiters"}
    )
    agreement = fields.Boolean(
        metadata={"description": "the players may settle a dispute by agreeing on a verdict"}
    )


class AgreementOut(Schema):
    dispute = fields.String()
    status = fields.String(metadata={"description": "open, or the agreed verdict"})
    proposal = fields.Dict(
        allow_none=True, metadata={"description": "the verdict proposed: side, verdict, note"}
    )
    agreed = fields.Boolean()
    version = fields.Integer()


def _out(game: Any, dispute: str) -> dict[str, Any]:
    info = game.disputes[dispute]
    return {
        "dispute": dispute,
        "status": info["status"],
        "proposal": info.get("proposal"),
        "agreed": bool(info.get("agreed")),
        "version": game.version,
    }


@blp.route("/<game_id>/arbiters")
class Arbiters(MethodView):
    @blp.response(200, ArbitersOut)
    def get(self, game_id: str) -> dict[str, Any]:
        """Who may rule on the game's disputes (a player never rules on their own game): its
        club's arbiters, or for a game of no club the site's; and whether the players may settle
        one by agreement instead."""
        return agreements().who_rules(game_id, optional_user())


@blp.route("/<game_id>/disputes/<dispute>/proposal")
class Proposal(MethodView):
    @blp.arguments(ProposalIn)
    @blp.response(201, AgreementOut)
    def post(self, body: dict[str, Any], game_id: str, dispute: str) -> dict[str, Any]:
        """Propose to settle an open dispute without an arbiter: ``upheld`` (the event stands) or
        ``overturned`` (it was wrong; nothing is retracted).  The other side's player accepts it
        (``…/agreement``) or proposes another."""
        game = agreements().propose(
            game_id,
            require_user(),
            dispute=dispute,
            verdict=body["verdict"],
            note=body["note"],
            side=body["side"],
        )
        return _out(game, dispute)


@blp.route("/<game_id>/disputes/<dispute>/agreement")
class Agreement(MethodView):
    @blp.arguments(AcceptIn)
    @blp.response(201, AgreementOut)
    def post(self, body: dict[str, Any], game_id: str, dispute: str) -> dict[str, Any]:
        """Accept the other side's proposed verdict: the dispute is resolved with it and no
        remedy, recorded as agreed by both players."""
        game = agreements().accept(game_id, require_user(), dispute=dispute, side=body["side"])
        return _out(game, dispute)
