"""Chat beside the game and each player's notes (``service.domain.conversations``).

**Who reads and writes a game's chat.**  Its players; in a club game, the club's arbiters who do
not play it (as disputes: ``DisputeService.may_arbitrate``); in a game of no club, the site's
arbiters (who rule on its disputes).  Nobody else, whatever they may read of the game: a reader
of the game who may not read its chat (a club member watching, anyone on a public game) is
answered 403; anyone who may not read the game at all gets the game's own 404, so a private
game's existence is not confirmed (``service.application.access``).

Arbiters hide a message with a reason (the hiding is an event of the conversation): players then
read ``hidden by the arbiter: <reason>`` in its place, arbiters still read what was written.

**Notes.**  A player's notebook is theirs alone: only its author reads it, during the game and
after.  A notepad its author shares is read by every reader of the game once the game is over
(the hex notes are never shared)."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any
from uuid import UUID

from eventsourcing.application import AggregateNotFoundError

from service.application.access import GameAccess
from service.application.clubs import ClubService
from service.application.games import GameService, game_uuid
from service.application.ports import Broker
from service.application.store import ArbiterStore
from service.application.users import UserService
from service.domain import conversations as conv
from service.domain.conversations import Conversation, Notebook, conversation_id, notebook_id
from service.domain.errors import Forbidden, Invalid, NotFound, StaleVersion
from service.domain.game import ENDED
from service.domain.users import User
from service.views.base import cut_page, page_limit
from service.views.chat import ChatView, NotesView
from service.views.runner import ProjectionRunner

PLAYER, ARBITER = "player", "arbiter"
#: how many times a write that lost a race to another write of the same chat is tried again
RETRIES = 3
HEX_NAME = re.compile(rf"^[A-Za-z0-9][A-Za-z0-9._-]{{0,{conv.HEX_NAME_MAX - 1}}}$")
HIDDEN = "hidden by the arbiter: "


def chat_channel(game_id: UUID | str) -> str:
    """Where a game's new messages are announced (the game page's chat stream)."""
    return f"chat:{game_id}"


#: the limits, as the API documents them (``GET .../chat`` and ``GET .../notes`` answer them)
CHAT_LIMITS = {
    "text_max": conv.TEXT_MAX,
    "per_minute": conv.RATE_MESSAGES,
    "per_game": conv.MESSAGES_PER_GAME,
    "reason_max": conv.REASON_MAX,
}
NOTES_LIMITS = {
    "notepad_max": conv.NOTEPAD_MAX,
    "hex_note_max": conv.HEX_NOTE_MAX,
    "hex_notes": conv.HEX_NOTES_MAX,
    "changes": conv.NOTEBOOK_CHANGES_MAX,
}


class ChatService:
    def __init__(
        self,
        store: ArbiterStore,
        games: GameService,
        users: UserService,
        clubs: ClubService,
        access: GameAccess,
        chat: ProjectionRunner,
        notes: ProjectionRunner,
        broker: Broker | None = None,
    ) -> None:
        self.store = store
        self.games = games
        self.users = users
        self.clubs = clubs
        self.access = access
        self.chat_runner = chat
        self.notes_runner = notes
        self.broker = broker

    @property
    def _chat(self) -> ChatView:
        view = self.chat_runner.view
        assert isinstance(view, ChatView)
        return view

    @property
    def _notes(self) -> NotesView:
        view = self.notes_runner.view
        assert isinstance(view, NotesView)
        return view

    # -- who -------------------------------------------------------------------------------------
    def club_of(self, labels: dict[str, Any]) -> str:
        """The game's club ('' none): its own, or its ladder's."""
        club = labels.get("club")
        if club:
            return str(club)
        ladder = labels.get("ladder")
        if ladder:
            try:
                found: Any = self.store.repository.get(UUID(str(ladder)))
            except (AggregateNotFoundError, ValueError):
                return ""
            return str(getattr(found, "club_id", "") or "")
        return ""

    def role(self, game_id: UUID | str, user: User | None) -> str | None:
        """``player``, ``arbiter`` or None: what ``user`` is in the game's chat (the game's 404
        when they may not read the game)."""
        self.access.require(game_id, user)
        if user is None:
            return None
        sides, labels = self.games.bindings(game_id)
        uid = str(user.id)
        if uid in sides.values():
            return PLAYER
        club = self.club_of(labels)
        if club:
            return ARBITER if self.clubs.has_role(club, uid, "arbiter") else None
        return ARBITER if "arbiter" in getattr(user, "roles", []) else None

    def _reader(self, game_id: UUID | str, user: User | None, doing: str) -> str:
        role = self.role(game_id, user)
        if role is None:
            raise Forbidden(
                f"only the game's players (and, in a club game, the club's arbiters) {doing}",
                {"chat": [f"you are not a player of this game: only its players {doing}"]},
            )
        return role

    # -- reading ---------------------------------------------------------------------------------
    def page(
        self, game_id: UUID | str, user: User | None, *, limit: int = 50, after: int | None = None
    ) -> tuple[dict[str, Any], int | None]:
        """A page of the game's chat, oldest first, after message number ``after``, and the
        number the next page starts after (None: this is the last)."""
        role = self._reader(game_id, user, "read its chat")
        assert user is not None
        cid = str(conversation_id(game_uuid(game_id)))
        limit = page_limit(limit)
        rows = self._chat.select_messages(cid, limit + 1, after)
        rows, key = cut_page(rows, limit, lambda r: int(r["number"]))
        uid = str(user.id)
        return {
            "messages": [self._shown(r, role, uid) for r in rows],
            "muted": self._chat.is_muted(cid, uid),
            "role": role,
            "may_hide": role == ARBITER,
            "limits": CHAT_LIMITS,
        }, key

    @staticmethod
    def _shown(row: dict[str, Any], role: str, uid: str) -> dict[str, Any]:
        hidden = row.get("hidden_reason") is not None
        out: dict[str, Any] = {
            "number": int(row["number"]),
            "author": row["name"],
            "role": row["role"],
            "at": row["at"],
            "mine": row["author"] == uid,
            "hidden": hidden,
            "text": row["text"],
        }
        if hidden:
            out["hidden_by"] = row["hidden_by"]
            out["hidden_reason"] = row["hidden_reason"]
            if role != ARBITER:
                out["text"] = HIDDEN + row["hidden_reason"]
        return out

    # -- writing ---------------------------------------------------------------------------------
    def post(self, game_id: UUID | str, user: User, text: Any) -> dict[str, Any]:
        text = conv.clean_text(text, "text", conv.TEXT_MAX)
        role = self._reader(game_id, user, "write in its chat")
        name = self.users.username(str(user.id))

        def write(chat: Conversation) -> int:
            return chat.post(
                self.store.ports.seal, author=str(user.id), name=name, role=role, text=text
            )

        number = self._change(game_id, write)
        cid = str(conversation_id(game_uuid(game_id)))
        if self.broker is not None:
            self.broker.publish(chat_channel(game_id), {"game": str(game_id), "number": number})
        (row,) = self._chat.select_messages(cid, 1, number - 1)
        return self._shown(row, role, str(user.id))

    def hide(self, game_id: UUID | str, user: User, number: int, reason: Any) -> dict[str, Any]:
        reason = conv.clean_text(reason, "reason", conv.REASON_MAX)
        role = self._reader(game_id, user, "read its chat")
        if role != ARBITER:
            raise Forbidden(
                "only an arbiter of this game's club hides a message",
                {"chat": ["you are not an arbiter of this game"]},
            )
        name = self.users.username(str(user.id))
        self._change(
            game_id,
            lambda chat: chat.hide(
                self.store.ports.seal, number=number, by=str(user.id), name=name, reason=reason
            ),
            must_exist=True,
        )
        cid = str(conversation_id(game_uuid(game_id)))
        if self.broker is not None:
            self.broker.publish(chat_channel(game_id), {"game": str(game_id), "number": number})
        (row,) = self._chat.select_messages(cid, 1, number - 1)
        return self._shown(row, role, str(user.id))

    def mute(self, game_id: UUID | str, user: User, muted: bool) -> dict[str, Any]:
        self._reader(game_id, user, "mute its chat")
        self._change(
            game_id, lambda chat: chat.mute(self.store.ports.seal, user=str(user.id), muted=muted)
        )
        return {"muted": muted}

    def _change(
        self, game_id: UUID | str, change: Callable[[Conversation], Any], must_exist: bool = False
    ) -> Any:
        """Apply ``change`` to the game's conversation (opened on its first write) and commit it;
        a lost race with another write to the same chat is tried again."""
        gid = game_uuid(game_id)
        for attempt in range(RETRIES):
            chat = self._conversation(gid, must_exist)
            version = chat.version - len(chat.pending_events)
            out = change(chat)
            if not chat.pending_events:
                return out
            try:
                self.store.commit(chat, decided_at=version)
            except StaleVersion:
                if attempt == RETRIES - 1:
                    raise
                continue
            return out
        raise AssertionError("unreachable")  # pragma: no cover

    def _conversation(self, gid: UUID, must_exist: bool) -> Conversation:
        try:
            found: Any = self.store.repository.get(conversation_id(gid))
        except AggregateNotFoundError:
            if must_exist:
                raise Invalid(
                    "no such message", {"message": ["this chat has no messages"]}
                ) from None
            game = self.games.get(gid)
            sides, labels = self.games.bindings(gid)
            return Conversation.open(
                gid,
                players=sorted({u for u in sides.values() if u}),
                club=self.club_of(labels),
                title=str(game.labels.get("title") or game.scenario),
                seal=self.store.ports.seal,
            )
        assert isinstance(found, Conversation)
        return found

    # -- notes -----------------------------------------------------------------------------------
    def _player(self, game_id: UUID | str, user: User | None) -> str:
        self.access.require(game_id, user)
        if user is None:
            raise Forbidden(
                "only a player of this game keeps notes in it", {"notes": ["sign in first"]}
            )
        sides, _ = self.games.bindings(game_id)
        if str(user.id) not in sides.values():
            raise Forbidden(
                "only a player of this game keeps notes in it",
                {"notes": ["you are not a player of this game"]},
            )
        return str(user.id)

    def notes(self, game_id: UUID | str, user: User | None) -> dict[str, Any]:
        """The caller's own notebook for the game (empty until they write)."""
        uid = self._player(game_id, user)
        found = self._notes.notebook(str(notebook_id(game_uuid(game_id), uid)))
        mine = found or {"text": "", "shared": False, "updated": None, "hexes": []}
        return dict(mine, limits=NOTES_LIMITS)

    def write_notes(self, game_id: UUID | str, user: User, text: Any) -> dict[str, Any]:
        text = conv.clean_text(text, "text", conv.NOTEPAD_MAX, allow_empty=True)
        uid = self._player(game_id, user)
        self._notebook(game_id, uid, lambda book: book.write(text))
        return self.notes(game_id, user)

    def note_hex(self, game_id: UUID | str, user: User, hex_name: str, text: Any) -> dict[str, Any]:
        hex_name = self._hex(hex_name)
        text = conv.clean_text(text, "text", conv.HEX_NOTE_MAX)
        uid = self._player(game_id, user)
        self._notebook(game_id, uid, lambda book: book.note_hex(hex_name, text))
        return self.notes(game_id, user)

    def clear_hex(self, game_id: UUID | str, user: User, hex_name: str) -> dict[str, Any]:
        hex_name = self._hex(hex_name)
        uid = self._player(game_id, user)

        def clear(book: Notebook) -> None:
            if not book.clear_hex(hex_name):
                raise NotFound(f"no note on hex {hex_name}", {"hex": ["no note on this hex"]})

        self._notebook(game_id, uid, clear)
        return self.notes(game_id, user)

    def share(self, game_id: UUID | str, user: User, shared: bool) -> dict[str, Any]:
        uid = self._player(game_id, user)
        self._notebook(game_id, uid, lambda book: book.share(shared))
        return self.notes(game_id, user)

    def shared_notes(self, game_id: UUID | str, user: User | None) -> dict[str, Any]:
        """The notepads the players shared, for every reader of the game once it is over."""
        self.access.require(game_id, user)
        gid = game_uuid(game_id)
        over = self.games.get(gid).status == ENDED
        sides, _ = self.games.bindings(gid)
        rows = self._notes.shared_of(str(gid)) if over else []
        return {
            "shown": over,
            "notes": [
                {
                    "author": self.users.username(r["author"]),
                    "sides": sorted(s for s, u in sides.items() if u == r["author"]),
                    "text": r["text"],
                    "updated": r["updated"] or None,
                }
                for r in rows
            ],
        }

    @staticmethod
    def _hex(hex_name: str) -> str:
        if not HEX_NAME.match(hex_name or ""):
            raise Invalid(
                f"not a hex: {hex_name[:20]!r}",
                {"hex": [f"a hex's name: letters and digits, at most {conv.HEX_NAME_MAX}"]},
            )
        return hex_name

    def _notebook(self, game_id: UUID | str, uid: str, change: Callable[[Notebook], Any]) -> None:
        gid = game_uuid(game_id)
        for attempt in range(RETRIES):
            try:
                found: Any = self.store.repository.get(notebook_id(gid, uid))
            except AggregateNotFoundError:
                found = Notebook.start(gid, uid)
            version = found.version - len(found.pending_events)
            change(found)
            if len(found.pending_events) <= (1 if version == 0 else 0):
                return  # nothing changed: nothing written (not even the notebook's start)
            try:
                self.store.commit(found, decided_at=version)
            except StaleVersion:
                if attempt == RETRIES - 1:
                    raise
                continue
            return
