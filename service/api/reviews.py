"""A game's review and after-action report (issue 31): luck measured from the dice, the game turn
by turn in words, the key moments, the standing per turn (``service.application.reviews``)."""

from __future__ import annotations

from typing import Any

from flask import Response
from flask.views import MethodView
from marshmallow import fields, validate

from service.api.auth import optional_user, services
from service.api.blueprint import Blueprint
from service.api.schemas import Lenient, db_range
from service.application.report import CSP
from service.application.reviews import ROLLS_MAX, TIMELINE_MAX

blp = Blueprint(
    "reviews",
    __name__,
    url_prefix="/api/games",
    description="A game's review, luck measured from its dice, and its after-action report",
)


class ReviewArgs(Lenient):
    after = fields.Integer(load_default=0, validate=db_range(0))
    limit = fields.Integer(
        load_default=TIMELINE_MAX, validate=validate.Range(min=1, max=TIMELINE_MAX)
    )
    side = fields.String(load_default=None)
    rolls_after = fields.Integer(load_default=-1, validate=validate.Range(min=-1, max=2**31))
    rolls_limit = fields.Integer(
        load_default=ROLLS_MAX, validate=validate.Range(min=1, max=ROLLS_MAX)
    )


def _review(game_id: str, args: dict[str, Any]) -> dict[str, Any]:
    return services().reviews.review(
        game_id,
        optional_user(),
        args["side"],
        after=args["after"],
        limit=args["limit"],
        rolls_after=args["rolls_after"],
        rolls_limit=args["rolls_limit"],
    )


@blp.route("/<game_id>/review")
class Review(MethodView):
    @blp.arguments(ReviewArgs, location="query")
    @blp.response(200)
    def get(self, args: dict[str, Any], game_id: str) -> dict[str, Any]:
        """``{"luck": {side: {"figure", "unit", "p_at_least", "words", "rolls": [{"seq",
        "purpose", "die", "outcome", "expected", ...}]}}, "timeline": [...], "moments": [...],
        "chart": {...}}``: during the game a player sees their own side's luck only (a reader
        who plays no side, none); after the end, every side's.  ``timeline`` is a page of the
        log in words (``after``: an event's seq; ``next_after`` names the next page); each side's
        ``rolls`` are a page too (``rolls_after``: a die's index, ``rolls_limit`` up to 500;
        ``rolls_next_after`` names the next), the figure counting them all."""
        return _review(game_id, args)


@blp.route("/<game_id>/report.html")
class ReportHtml(MethodView):
    @blp.arguments(ReviewArgs, location="query")
    @blp.response(200, content_type="text/html")
    def get(self, args: dict[str, Any], game_id: str) -> Response:
        """The after-action report as one self-contained page (one stylesheet and SVG inline, no
        script), served with a Content-Security-Policy of its own that allows its stylesheet by
        its hash and nothing else."""
        review = _review(game_id, args)
        page = services().reviews.report(review, "html")
        return Response(page, mimetype="text/html", headers={"Content-Security-Policy": CSP})


@blp.route("/<game_id>/report.md")
class ReportMarkdown(MethodView):
    @blp.arguments(ReviewArgs, location="query")
    @blp.response(200, content_type="text/markdown")
    def get(self, args: dict[str, Any], game_id: str) -> Response:
        """The after-action report in Markdown."""
        review = _review(game_id, args)
        text = services().reviews.report(review, "md")
        return Response(text, mimetype="text/markdown")
