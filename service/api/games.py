"""Games: create, read (now or at any version, per side), legal actions, commands, events, dice."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from flask import Response, request
from flask.views import MethodView
from flask_smorest import Blueprint

from service.api import schemas
from service.api.auth import optional_user, require_user, services
from service.api.stream import game_plan, respond
from service.application.events import export_lines
from service.domain.errors import Invalid

blp = Blueprint(
    "games", __name__, url_prefix="/api/games", description="Games, commands and events"
)


@blp.route("")
class Games(MethodView):
    @blp.arguments(schemas.GameListArgs, location="query")
    @blp.response(200, schemas.GameSummary(many=True))
    def get(self, args: dict[str, Any]) -> list[dict[str, Any]]:
        """Games, newest first (``mine=true``: the caller's)."""
        svc = services()
        user = require_user() if args["mine"] else optional_user()
        rows = svc.index.games(
            user_id=str(user.id) if args["mine"] and user else None, status=args["status"]
        )
        for row in rows:
            row["sides"] = {side: svc.users.username(uid) for side, uid in row["sides"].items()}
            if args["mine"]:  # whose turn it is, for the caller's own (few) games
                game = svc.games.get(row["id"])
                row.update(
                    version=game.version,
                    disputes={d: dict(info) for d, info in game.disputes.items()},
                    paused_by=game.paused_by(),
                    active_sides=game.active_sides(),
                    phase=svc.games.system(game.system).phase(game.state),
                    status=game.status,
                )
        return rows

    @blp.arguments(schemas.GameCreate)
    @blp.response(201, schemas.GameOut)
    def post(self, body: dict[str, Any]) -> dict[str, Any]:
        """Create a game of a rules system's scenario, binding each side to a user."""
        user = require_user()
        games = services().games
        game = games.create(
            system=body["system"],
            scenario=body["scenario"],
            sides=body["sides"],
            options=body["options"],
            creator=user,
        )
        return games.view(game, games.viewer_side(game, user, None))


@blp.route("/<game_id>")
class GameResource(MethodView):
    @blp.arguments(schemas.GameArgs, location="query")
    @blp.response(200, schemas.GameOut)
    def get(self, args: dict[str, Any], game_id: str) -> dict[str, Any]:
        """The game as the caller's side sees it, now or at ``version``."""
        games = services().games
        game = games.get(game_id, version=args["version"])
        latest = game if args["version"] is None else games.get(game_id)
        viewer = games.viewer_side(latest, optional_user(), args["side"])
        return games.view(game, viewer)


@blp.route("/<game_id>/actions")
class Actions(MethodView):
    @blp.arguments(schemas.SideArgs, location="query")
    @blp.response(200, schemas.ActionsOut)
    def get(self, args: dict[str, Any], game_id: str) -> dict[str, Any]:
        """The commands the caller's side may send now (empty when it is not its turn)."""
        games = services().games
        game = games.get(game_id)
        side, actions = games.actions(game, require_user(), args["side"])
        return {"side": side, "version": game.version, **actions.as_dict()}


@blp.route("/<game_id>/preview")
class Preview(MethodView):
    @blp.arguments(schemas.PreviewIn)
    @blp.response(200)
    def post(self, body: dict[str, Any], game_id: str) -> dict[str, Any]:
        """What a command would meet before it is sent: for an attack, the odds column and every
        modifier with its rule, computed on what the caller's side may see.  Nothing is written."""
        games = services().games
        return games.preview(games.get(game_id), require_user(), body["command"], body["side"])


@blp.route("/<game_id>/commands")
class Commands(MethodView):
    @blp.arguments(schemas.CommandIn)
    @blp.response(201, schemas.ExecutedOut)
    def post(self, body: dict[str, Any], game_id: str) -> dict[str, Any]:
        """Submit a command decided on ``expected_version``: 409 if the game moved on, 403 if it is
        not the side's turn, 422 citing the rule if the rules refuse it."""
        games = services().games
        done = games.execute(
            game_id,
            require_user(),
            body["command"],
            expected_version=body["expected_version"],
            side=body["side"],
        )
        return {
            "version": done.game.version,
            "status": done.game.status,
            "events": done.events,
            "result": done.game.result,
        }


@blp.route("/<game_id>/entropy")
class Entropy(MethodView):
    @blp.arguments(schemas.EntropyIn)
    @blp.response(201, schemas.DiceOut)
    def post(self, body: dict[str, Any], game_id: str) -> dict[str, Any]:
        """Add the caller's own entropy to the dice (before the side's first roll)."""
        games = services().games
        game = games.add_entropy(game_id, require_user(), body["entropy"], body["side"])
        return games.view(game, None)["dice"]


@blp.route("/<game_id>/events")
class Events(MethodView):
    @blp.arguments(schemas.EventsArgs, location="query")
    @blp.response(200, schemas.EventPage)
    def get(self, args: dict[str, Any], game_id: str) -> dict[str, Any]:
        """Events after ``after``, at most ``limit``, as the caller's side may see them."""
        games = services().games
        viewer = games.viewer_side(games.get(game_id), optional_user(), args["side"])
        events = games.events(game_id, after=args["after"], limit=args["limit"], viewer=viewer)
        next_after = events[-1]["seq"] if len(events) == args["limit"] else None
        return {"events": events, "next_after": next_after}


@blp.route("/<game_id>/events.ndjson")
class Export(MethodView):
    @blp.response(200, content_type="application/x-ndjson")
    def get(self, game_id: str) -> Response:
        """Every event as NDJSON, one per line (withheld information stays withheld until the end)."""
        games = services().games
        game = games.get(game_id)
        viewer = games.viewer_side(game, optional_user(), request.args.get("side"))

        head = services().audit.anchored_head(game.id)  # before the events: a cut below shows

        def events() -> Iterator[dict[str, Any]]:
            after = 0
            while True:
                page = games.events(game_id, after=after, limit=500, viewer=viewer)
                yield from page
                if len(page) < 500:
                    return
                after = page[-1]["seq"]

        def lines() -> Iterator[str]:
            return export_lines(events(), head)

        headers = {"Content-Disposition": f'attachment; filename="game-{game.id}.ndjson"'}
        return Response(lines(), mimetype="application/x-ndjson", headers=headers)


@blp.route("/<game_id>/dice")
class Dice(MethodView):
    @blp.response(200)
    def get(self, game_id: str) -> dict[str, Any]:
        """Re-derive every recorded roll and say whether each matches (the seed is shown once the game
        has ended)."""
        games = services().games
        report = games.verify_dice(game_id)
        game = games.get(game_id)
        report["seed"] = game.seed
        return report


@blp.route("/<game_id>/stream")
class Stream(MethodView):
    def get(self, game_id: str) -> Response:
        """Server-sent events: a ``game`` event whenever the game's version changes."""
        games = services().games
        game = games.get(game_id)
        try:
            since = int(request.headers.get("Last-Event-ID") or request.args.get("since", "0"))
            window = float(request.args.get("window", "60"))
        except ValueError:
            raise Invalid("since and window must be numbers", {"since": ["a number"]}) from None
        if not 1 <= window <= 600:
            raise Invalid("window must be 1 to 600 seconds", {"window": ["1 to 600 seconds"]})
        return respond(game_plan(services(), game.id, since=since, window=window))
