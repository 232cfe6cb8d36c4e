"""Open games (seeks): open one, list them, join one (the game starts at once), cancel yours."""

from __future__ import annotations

from typing import Any

from flask.views import MethodView

from service.api import schemas
from service.api.auth import optional_user, require_user, services
from service.api.blueprint import Blueprint
from service.api.paging import next_page

blp = Blueprint(
    "seeks", __name__, url_prefix="/api/seeks", description="Open games anyone may join"
)


@blp.route("")
class Seeks(MethodView):
    @blp.arguments(schemas.SeeksArgs, location="query")
    @blp.response(200, schemas.SeekOut(many=True))
    def get(self, args: dict[str, Any]) -> tuple[list[dict[str, Any]], int, dict[str, str]]:
        """The open games, newest first (those of a club only for its members), a page of
        ``limit`` (default 50, at most 100).  When there are more, the response's
        ``X-Next-Cursor`` header (and its ``Link: <...>; rel="next"``) names the next page: pass
        it back as ``after``."""
        seeks = services().seeks
        rows, key = seeks.page(optional_user(), limit=args["limit"], after=args["after"])
        headers = next_page("/api/seeks", args, key) if key is not None else {}
        return seeks.present(rows), 200, headers

    @blp.arguments(schemas.SeekCreate)
    @blp.response(201, schemas.SeekOut)
    def post(self, body: dict[str, Any]) -> dict[str, Any]:
        """Open a game of a two-sided scenario for anyone (or a club's members, ``club``) to join."""
        seeks = services().seeks
        seek = seeks.open(
            require_user(),
            system=body["system"],
            scenario=body["scenario"],
            scenario_version=body["scenario_version"],
            side=body["side"],
            options=body["options"],
            club=body["club"],
            clock=body["clock"],
            public=body["public"],
        )
        return seeks.view(seek)


@blp.route("/<seek_id>/join")
class Join(MethodView):
    @blp.response(201, schemas.GameOut)
    def post(self, seek_id: str) -> dict[str, Any]:
        """Join an open game: the game is created with you on the other side, active at once."""
        svc = services()
        user = require_user()
        _, game = svc.seeks.join(seek_id, user)
        return svc.games.view(game, svc.games.viewer_side(game, user, None))


@blp.route("/<seek_id>")
class SeekResource(MethodView):
    @blp.response(200, schemas.SeekOut)
    def delete(self, seek_id: str) -> dict[str, Any]:
        """Cancel your open game."""
        seeks = services().seeks
        return seeks.view(seeks.cancel(seek_id, require_user()))
