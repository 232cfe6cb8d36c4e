"""The chat beside a game, and each player's notes (``service.application.chat``; docs/chat-and-notes.md).

Every route is under ``/api/games/<game_id>``: a caller who may not read the game is answered the
game's 404 before the view runs (``auth.install_game_access``); one who reads the game but not its
chat (a spectator) is answered 403."""

from __future__ import annotations

from typing import Any

from flask import Response, request
from flask.views import MethodView
from marshmallow import fields, validate

from service.api.auth import optional_user, require_user, services
from service.api.blueprint import Blueprint
from service.api.paging import next_page
from service.api.schemas import Lenient, Strict, page_cursor, text_field
from service.api.stream import Note, Plan, respond
from service.application.chat import chat_channel
from service.domain import conversations as conv
from service.domain.errors import Invalid

blp = Blueprint("chat", __name__, url_prefix="/api/games", description="Chat and notes")


class ChatArgs(Lenient):
    limit = fields.Integer(
        load_default=50,
        validate=validate.Range(min=1, max=100),
        metadata={"description": "messages per page (at most 100)"},
    )
    after = page_cursor(int)


class MessageIn(Strict):
    text = text_field(
        conv.TEXT_MAX,
        required=True,
        metadata={"description": f"the message: 1 to {conv.TEXT_MAX} characters, not blank"},
    )


class HideIn(Strict):
    reason = text_field(
        conv.REASON_MAX,
        required=True,
        metadata={"description": f"why, shown to the players: 1 to {conv.REASON_MAX} characters"},
    )


class MuteIn(Strict):
    muted = fields.Boolean(required=True, truthy={True}, falsy={False})


class NotesIn(Strict):
    text = text_field(
        conv.NOTEPAD_MAX,
        blank=True,
        required=True,
        metadata={"description": f"the notepad: at most {conv.NOTEPAD_MAX} chars"},
    )


class HexNoteIn(Strict):
    text = text_field(
        conv.HEX_NOTE_MAX,
        required=True,
        metadata={"description": f"the note: 1 to {conv.HEX_NOTE_MAX} characters, not blank"},
    )


class ShareIn(Strict):
    shared = fields.Boolean(load_default=True, truthy={True}, falsy={False})


@blp.route("/<game_id>/chat")
class Chat(MethodView):
    @blp.arguments(ChatArgs, location="query")
    @blp.response(200)
    def get(self, args: dict[str, Any], game_id: str) -> tuple[dict[str, Any], int, dict[str, str]]:
        """The game's chat, oldest first, a page of ``limit`` messages (default 50, at most 100)
        after the cursor ``after`` (``X-Next-Cursor`` and ``Link`` name the next page), with
        whether the caller muted it and the limits.  Its players and, in a club game, the club's
        arbiters read it; any other reader of the game is answered 403."""
        after = args["after"][0] if args["after"] else None
        page, key = services().chat.page(game_id, optional_user(), limit=args["limit"], after=after)
        page["next"] = None
        headers: dict[str, str] = {}
        if key is not None:
            headers = next_page(f"/api/games/{game_id}/chat", args, (key,))
            page["next"] = headers["X-Next-Cursor"]
        return page, 200, headers

    @blp.arguments(MessageIn)
    @blp.response(201)
    def post(self, body: dict[str, Any], game_id: str) -> dict[str, Any]:
        """Write to the game's chat (its players; a club game's arbiters).  At most
        ``text_max`` characters (400 naming ``text``), ``per_minute`` messages a minute each and
        ``per_game`` in the game (409 ``limit_reached``)."""
        return services().chat.post(game_id, require_user(), body["text"])


@blp.route("/<game_id>/chat/<int:number>/hide")
class Hide(MethodView):
    @blp.arguments(HideIn)
    @blp.response(200)
    def post(self, body: dict[str, Any], game_id: str, number: int) -> dict[str, Any]:
        """Hide a message, with the reason the players read in its place (the arbiters of the
        game's club who do not play it; the site's arbiters in a game of no club)."""
        return services().chat.hide(game_id, require_user(), number, body["reason"])


@blp.route("/<game_id>/chat/mute")
class Mute(MethodView):
    @blp.arguments(MuteIn)
    @blp.response(200)
    def put(self, body: dict[str, Any], game_id: str) -> dict[str, Any]:
        """Mute (or unmute) this game's chat for yourself: no notice of its messages."""
        return services().chat.mute(game_id, require_user(), body["muted"])


@blp.route("/<game_id>/chat/stream")
class ChatStream(MethodView):
    def get(self, game_id: str) -> Response:
        """Server-sent events: a ``chat`` event (``{"game", "number"}``) whenever a message is
        written or hidden (fetch the page after your last message to read it)."""
        svc = services()
        svc.chat.page(game_id, optional_user(), limit=1)  # 403 for a reader of the game only
        try:
            window = float(request.args.get("window", "60"))
        except ValueError:
            raise Invalid("window must be a number", {"window": ["a number"]}) from None
        if not 1 <= window <= 600:
            raise Invalid("window must be 1 to 600 seconds", {"window": ["1 to 600 seconds"]})
        counter = iter(range(1, 1 << 62))

        def position(note: Note) -> int:
            return next(counter)  # every note is news (a hiding repeats a number)

        return respond(
            Plan(
                broker=svc.broker,
                channel=chat_channel(game_id),
                kind="chat",
                since=0,
                window=window,
                position=position,
                idle=lambda degraded: None,
            )
        )


@blp.route("/<game_id>/notes")
class Notes(MethodView):
    @blp.response(200)
    def get(self, game_id: str) -> dict[str, Any]:
        """Your notebook for this game: the notepad and your hex notes (yours alone)."""
        return services().chat.notes(game_id, optional_user())

    @blp.arguments(NotesIn)
    @blp.response(200)
    def put(self, body: dict[str, Any], game_id: str) -> dict[str, Any]:
        """Replace your notepad's text (empty clears it)."""
        return services().chat.write_notes(game_id, require_user(), body["text"])


@blp.route("/<game_id>/notes/share")
class Share(MethodView):
    @blp.arguments(ShareIn)
    @blp.response(200)
    def post(self, body: dict[str, Any], game_id: str) -> dict[str, Any]:
        """Share your notepad (``{"shared": false}``: stop sharing): the game's readers read it
        once the game is over (``GET .../notes/shared``).  Hex notes are never shared."""
        return services().chat.share(game_id, require_user(), body["shared"])


@blp.route("/<game_id>/notes/shared")
class Shared(MethodView):
    @blp.response(200)
    def get(self, game_id: str) -> dict[str, Any]:
        """The notepads the players shared, once the game is over (``shown``: false before)."""
        return services().chat.shared_notes(game_id, optional_user())


@blp.route("/<game_id>/notes/hexes/<hex_name>")
class HexNote(MethodView):
    @blp.arguments(HexNoteIn)
    @blp.response(200)
    def put(self, body: dict[str, Any], game_id: str, hex_name: str) -> dict[str, Any]:
        """Pin a note to a hex (replacing the one there), seen by you alone."""
        return services().chat.note_hex(game_id, require_user(), hex_name, body["text"])

    @blp.response(200)
    def delete(self, game_id: str, hex_name: str) -> dict[str, Any]:
        """Remove your note from a hex (404 naming ``hex`` when there is none)."""
        return services().chat.clear_hex(game_id, require_user(), hex_name)
