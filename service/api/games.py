"""Games: create, read (now or at any version, per side), legal actions, commands, events, dice."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from flask import Response, request
from flask.views import MethodView

from service.api import schemas
from service.api.auth import optional_user, require_user, services
from service.api.blueprint import Blueprint
from service.api.compression import gzip_json
from service.api.paging import next_page
from service.api.scenarios import MAP_IMAGE, MapImageArgs, game_source, image_response
from service.api.stream import game_plan, respond
from service.api.systems import drawing_of
from service.application.events import export_lines
from service.domain.errors import Forbidden, Invalid, NotFound
from service.views.games import GameQuery

blp = Blueprint(
    "games", __name__, url_prefix="/api/games", description="Games, commands and events"
)
blp.after_request(gzip_json)  # large JSON (action lists, event pages) goes gzipped


@blp.route("")
class Games(MethodView):
    @blp.arguments(schemas.GameListArgs, location="query")
    @blp.response(200, schemas.GameSummary(many=True))
    def get(self, args: dict[str, Any]) -> tuple[list[dict[str, Any]], int, dict[str, str]]:
        """Games the caller may read, newest first, a page of ``limit`` (default 50, at most
        100): their own, their clubs' and public ones (a visitor: public ones only);
        ``mine=true``: the caller's own; narrowed by ``status``, ``system``, ``club`` (its id or
        name) and ``public``.  When there are more, the response's ``X-Next-Cursor`` header (and
        its ``Link: <...>; rel="next"``) names the next page: pass it back as ``after``.
        ``invited=true`` (the invitations waiting for the caller) and ``claimed=true`` (claims on
        time the caller may decide) are single lists of at most 100."""
        svc = services()
        wants_user = args["mine"] or args["invited"] or args["claimed"]
        user = require_user() if wants_user else optional_user()
        headers: dict[str, str] = {}
        if args["invited"] and user is not None:  # the invitations waiting for the caller
            rows = svc.lifecycle.invitations(user)
        elif args["claimed"] and user is not None:  # claims on time the caller may decide
            rows = svc.lifecycle.claims(user)
        else:
            reader = svc.index.reader(user)  # private unless public (docs)
            query = GameQuery(
                reader=reader,
                player=reader.user if args["mine"] else None,
                status=args["status"],
                system=args["system"],
                club=str(svc.clubs.get(args["club"]).id) if args["club"] else None,
                public=args["public"],
            )
            rows, key = svc.index.page(query, limit=args["limit"], after=args["after"])
            if key is not None:
                headers = next_page("/api/games", args, key)
        for row in rows:
            row["sides"] = {side: svc.users.username(uid) for side, uid in row["sides"].items()}
            if args["mine"]:  # whose turn it is, for the caller's own (a page of) games
                row.update(svc.games.summary(row["id"]))
        return rows, 200, headers

    @blp.arguments(schemas.GameCreate)
    @blp.response(201, schemas.GameOut)
    def post(self, body: dict[str, Any]) -> dict[str, Any]:
        """Create a game of a rules system's scenario, binding each side to a user.  Naming any
        user but you makes an invitation (``status`` ``invited``): play starts when every named
        player has accepted (``…/accept``).  A game whose sides are all yours starts at once;
        ``"invite": false`` naming someone else is a 403 naming ``invite``."""
        user = require_user()
        svc = services()
        games = svc.games
        game = svc.lifecycle.create(
            system=body["system"],
            scenario=body["scenario"],
            sides=body["sides"],
            options=body["options"],
            creator=user,
            invite=body["invite"],
            club=body["club"],
            ladder=body["ladder"],
            clock=body["clock"],
            public=body["public"],
            takeback=body["takeback"],
            source=game_source(body),  # a club scenario's version (service/api/scenarios.py)
        )
        return games.view(game, games.viewer_side(game, user, None))


@blp.route("/<game:game_id>")
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


@blp.route("/<game_id>/board")
class GameBoard(MethodView):
    @blp.response(200)
    def get(self, game_id: str) -> Any:
        """The game's map as data for drawing (its scenario's, or the club scenario version it
        pinned), for whoever may read the game; ``placeholder_topics``: the scenario's placeholder
        data by topic (what a player should know is a stand-in)."""
        svc = services()
        game = svc.games.get(game_id)
        ref, at, version = game.scenario.partition("@")
        if at and version.isdigit():
            board = svc.scenarios.game_board(ref, int(version))
            scan = svc.scenario_images.pinned(ref, int(version))
            if scan is not None:  # the club's scan of its printed map, drawn under the hexes
                board["image"] = {**scan, "url": f"/api/games/{game_id}/map-image"}
            return board
        rules = svc.games.system(game.system)
        infos = [s for s in rules.scenarios() if s.id == game.scenario]
        topics = [dict(t) for info in infos for t in info.placeholder_topics]
        return {**drawing_of(rules).board(game.scenario), "placeholder_topics": topics}


@blp.route("/<game_id>/map-image")
class GameMapImage(MethodView):
    @blp.arguments(MapImageArgs(only=("width",)), location="query")
    @blp.doc(responses={"200": MAP_IMAGE})
    def get(self, args: dict[str, Any], game_id: str) -> Response:
        """The scan of the printed map the game's club scenario version pins (404 when it has
        none), no wider than ``width`` asks, for whoever may read the game."""
        svc = services()
        ref, at, version = svc.games.get(game_id).scenario.partition("@")
        if not (at and version.isdigit()):
            raise NotFound("no map image", {"image": ["this game's scenario has no map image"]})
        served = svc.scenario_images.game_image(ref, int(version), args.get("width"))
        return image_response(served)


@blp.route("/<game_id>/actions")
class Actions(MethodView):
    @blp.arguments(schemas.ActionsArgs, location="query")
    @blp.response(200, schemas.ActionsOut)
    def get(self, args: dict[str, Any], game_id: str) -> dict[str, Any]:
        """The commands the caller's side may send now (empty when it is not its turn).
        ``paths=tree``: a path choice whose paths form a tree comes as the tree (``paths``)."""
        games = services().games
        game = games.get(game_id)
        side, actions = games.actions(game, require_user(), args["side"])
        compact = args["paths"] == "tree"
        return {"side": side, "version": game.version, **actions.as_dict(compact)}


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
            "version": done.version,
            "status": done.status,
            "events": done.events,
            "result": done.result,
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


@blp.route("/import")
class Import(MethodView):
    @blp.arguments(schemas.RecordIn)
    @blp.response(201)
    def post(self, body: dict[str, Any]) -> dict[str, Any]:
        """Import a finished game's record from another server (site admins; the same as
        ``arbiter games import``, docs/game-record.md): stored under the game's own id once every
        line checks and the events replay to the state it names.  A refusal is a 400 naming the
        first bad line (``details.line``), and nothing is written; a game already here is a 409.
        The body is JSON within the input gate's 1 MiB: a longer record goes by the CLI."""
        user = require_user()
        if "admin" not in user.roles:
            raise Forbidden("only a site admin imports a game", {"record": ["site admins only"]})
        found: dict[str, Any] = services().records.import_text(body["record"], by=user.username)
        return found


@blp.route("/<game_id>/record")
class Record(MethodView):
    @blp.response(200, content_type="text/plain")
    def get(self, game_id: str) -> Response:
        """The open game record (docs/game-record.md): the game's headers, every event in words
        and as data, and its anchored head, as the caller may read them (what a side may not see
        stays withheld until the end, as in the NDJSON export); ``side`` as for the game."""
        svc = services()
        game = svc.games.get(game_id)
        viewer = svc.games.viewer_side(game, optional_user(), request.args.get("side"))
        text = "".join(svc.records.lines(game.id, viewer=viewer))
        headers = {"Content-Disposition": f'attachment; filename="game-{game.id}.record"'}
        return Response(text, mimetype="text/plain", headers=headers)


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


# -- the game's life: invitations, resignation, draws, claims on time, vacations ---------------------
def _as_caller(game: Any) -> dict[str, Any]:
    games = services().games
    return games.view(game, games.viewer_side(game, require_user(), None))


@blp.route("/<game_id>/accept")
class Accept(MethodView):
    @blp.response(200, schemas.GameOut)
    def post(self, game_id: str) -> dict[str, Any]:
        """Accept your invitation to this game; it starts when every invited player has accepted
        (403 naming ``user`` when the invitation is not yours, 409 when there is none)."""
        return _as_caller(services().lifecycle.accept(game_id, require_user()))


@blp.route("/<game_id>/decline")
class Decline(MethodView):
    @blp.response(200, schemas.GameOut)
    def post(self, game_id: str) -> dict[str, Any]:
        """Decline your invitation: the game never starts (no result, no rating)."""
        return _as_caller(services().lifecycle.decline(game_id, require_user()))


@blp.route("/<game_id>/resign")
class Resign(MethodView):
    @blp.arguments(schemas.SideIn)
    @blp.response(200, schemas.GameOut)
    def post(self, body: dict[str, Any], game_id: str) -> dict[str, Any]:
        """Resign: the game ends, your opponent wins (``result.reason`` ``resignation``) and the
        dice seed is revealed."""
        return _as_caller(services().lifecycle.resign(game_id, require_user(), body["side"]))


@blp.route("/<game_id>/draw")
class Draw(MethodView):
    @blp.arguments(schemas.DrawIn)
    @blp.response(200, schemas.GameOut)
    def post(self, body: dict[str, Any], game_id: str) -> dict[str, Any]:
        """Offer a draw, or accept or decline your opponent's offer (an accepted draw ends the game,
        ``result.reason`` ``agreement``).  Offering twice is a 409 naming ``draw``."""
        done = services().lifecycle.draw(game_id, require_user(), body["action"], body["side"])
        return _as_caller(done)


@blp.route("/<game_id>/claim")
class Claim(MethodView):
    @blp.arguments(schemas.SideIn)
    @blp.response(200, schemas.GameOut)
    def post(self, body: dict[str, Any], game_id: str) -> dict[str, Any]:
        """Claim the game from an opponent whose clock has run out: they lose on time."""
        return _as_caller(services().lifecycle.claim(game_id, require_user(), body["side"]))


@blp.route("/<game_id>/claim/decision")
class ClaimDecision(MethodView):
    @blp.arguments(schemas.ClaimDecisionIn)
    @blp.response(200, schemas.GameOut)
    def post(self, body: dict[str, Any], game_id: str) -> dict[str, Any]:
        """An arbiter decides a claim on time (the ``arbiter`` timeout policy): ``forfeit`` ends the
        game against the late side, ``continue`` gives it a whole allowance again."""
        svc = services()
        done = svc.lifecycle.decide_claim(game_id, require_user(), body["decision"], body["note"])
        return svc.games.view(done, None)


@blp.route("/<game_id>/vacation")
class Vacation(MethodView):
    @blp.arguments(schemas.VacationIn)
    @blp.response(200, schemas.GameOut)
    def post(self, body: dict[str, Any], game_id: str) -> dict[str, Any]:
        """Take ``days`` of vacation: your clock stands still for them (from the game's allowance)."""
        done = services().lifecycle.vacation(game_id, require_user(), body["days"], body["side"])
        return _as_caller(done)
