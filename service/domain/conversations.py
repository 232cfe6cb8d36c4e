"""A game's conversation: the chat beside the game, and each player's private notebook.

**The conversation** (:class:`Conversation`) is an aggregate of its own, one per game (its id is
derived from the game's: :func:`conversation_id`), never an event of the game's rules log: a
game replays, exports and verifies exactly as before, and a message cannot change a game.  Its
events are hash-chained and sealed like a game's (``service.domain.chain``: each carries the
SHA-256 of the one before it and an HMAC of its own under the server key), so ``arbiter audit
verify`` checks a conversation as it checks a game (``service.application.audit``).

Who may write is the service's to say (the players, and a club game's arbiters); the aggregate
holds the limits on what is written: a message's size (:data:`TEXT_MAX`), a writer's rate
(:data:`RATE_MESSAGES` in :data:`RATE_SECONDS`) and the game's cap (:data:`MESSAGES_PER_GAME`).

**A notebook** (:class:`Notebook`) is one player's scratch for one game: a notepad and notes
pinned to hexes, read by its author alone unless they share the notepad.  It is an aggregate too
(so a backup, which copies the log, keeps it), capped in size and in how often it is changed."""

from __future__ import annotations

import math
import time
from collections.abc import Mapping
from datetime import datetime
from typing import Any, cast
from uuid import UUID, uuid5

from eventsourcing.domain import Aggregate

from service.domain.chain import GENESIS, event_hash
from service.domain.errors import Conflict, Invalid, LimitReached

#: the longest message, in characters
TEXT_MAX = 1000
#: a writer may post at most this many messages in any :data:`RATE_SECONDS` in one game
RATE_MESSAGES = 20
RATE_SECONDS = 60
#: the messages one game's conversation holds at most
MESSAGES_PER_GAME = 1000
#: a player is told of a message unless they wrote in the chat within this many seconds (they are
#: in it) or were told of an earlier one within them (that notice leads to the chat): one notice
#: per quiet quarter of an hour, not an e-mail per line of a live conversation
QUIET_SECONDS = 15 * 60
#: the longest reason an arbiter gives for hiding a message
REASON_MAX = 300
#: a notepad's longest text, a hex note's, the hex notes of one notebook, and the changes one
#: notebook takes in all (each is an event: the cap bounds its log)
NOTEPAD_MAX = 5000
HEX_NOTE_MAX = 280
HEX_NOTES_MAX = 100
NOTEBOOK_CHANGES_MAX = 2000
#: a hex's name as a note pins it (every shipped map names hexes like ``D3`` or ``1205``)
HEX_NAME_MAX = 12


def conversation_id(game_id: UUID | str) -> UUID:
    """The id of a game's conversation (one per game, derived: nothing to look up)."""
    return uuid5(UUID(str(game_id)), "conversation")


def notebook_id(game_id: UUID | str, user: str) -> UUID:
    """The id of ``user``'s notebook for a game."""
    return uuid5(UUID(str(game_id)), f"notebook:{user}")


def clean_text(text: Any, field: str, most: int, *, allow_empty: bool = False) -> str:
    """``text`` stripped of surrounding blanks, or a 400 naming ``field``."""
    if not isinstance(text, str):
        raise Invalid(f"{field} must be text", {field: ["not a string"]})
    text = text.strip()
    if not text and not allow_empty:
        raise Invalid(f"{field} is empty", {field: ["must not be empty"]})
    if len(text) > most:
        raise Invalid(
            f"{field} is too long: at most {most:,} characters",
            {field: [f"at most {most} characters"]},
        )
    return text


class Conversation(Aggregate):
    class Event(Aggregate.Event):
        prev_hash: str
        hash: str
        seal: str

        def apply(self, aggregate: Any) -> None:
            chat = cast(Conversation, aggregate)
            self.on(chat)
            chat.last_hash = self.hash

        def on(self, chat: Conversation) -> None:  # pragma: no cover - overridden
            pass

    class Opened(Event, Aggregate.Created):
        game: str
        #: the players' user ids (who is told of a message) and the game's club ('' : none)
        players: list[str]
        club: str
        title: str

        def on(self, chat: Conversation) -> None:
            chat.game = self.game
            chat.players = list(self.players)
            chat.club = self.club
            chat.title = self.title

    class Posted(Event):
        number: int
        author: str
        #: the author's name when they wrote (covered by the hash, like a game's names)
        name: str
        #: "player" or "arbiter"
        role: str
        text: str

        def on(self, chat: Conversation) -> None:
            now = self.timestamp.timestamp()
            chat.count = self.number
            chat.tell = set()
            for player in set(chat.players) - {self.author} - chat.muted:
                # quiet for them: neither writing in the chat (they read it) nor told of an
                # earlier message (that notice leads here) within the last quarter of an hour
                wrote = chat.recent.get(player, [-math.inf])[-1]
                if now - max(wrote, chat.told_at.get(player, -math.inf)) >= QUIET_SECONDS:
                    chat.told_at[player] = now
                    chat.tell.add(player)
            recent = chat.recent.setdefault(self.author, [])
            recent.append(now)
            del recent[:-RATE_MESSAGES]

    class Hidden(Event):
        number: int
        by: str
        name: str
        reason: str

        def on(self, chat: Conversation) -> None:
            chat.hidden[self.number] = self.reason

    class Muted(Event):
        user: str
        muted: bool

        def on(self, chat: Conversation) -> None:
            if self.muted:
                chat.muted.add(self.user)
            else:
                chat.muted.discard(self.user)

    game: str
    players: list[str]
    club: str
    title: str
    last_hash: str

    def __init__(self) -> None:  # the rest is set by Opened
        self.count = 0
        self.recent: dict[str, list[float]] = {}
        #: when each player was last told of a message, and whom the latest message tells
        self.told_at: dict[str, float] = {}
        self.tell: set[str] = set()
        self.hidden: dict[int, str] = {}
        self.muted: set[str] = set()

    # -- the hash chain (as a game's: ``service.domain.game.Game._record``) -----------------------
    @classmethod
    def open(
        cls,
        game_id: UUID | str,
        *,
        players: list[str],
        club: str,
        title: str,
        seal: Any,
    ) -> Conversation:
        cid = conversation_id(game_id)
        payload: dict[str, Any] = {
            "game": str(game_id),
            "players": sorted(players),
            "club": club,
            "title": title,
            "prev_hash": GENESIS,
        }
        timestamp = cls.Opened.create_timestamp()
        digest = event_hash(cid, cls.INITIAL_VERSION, "Conversation.Opened", timestamp, payload)
        return cls._create(
            cls.Opened, id=cid, timestamp=timestamp, hash=digest, seal=seal(digest), **payload
        )

    def _record(self, seal: Any, event_class: type[Conversation.Event], **payload: Any) -> None:
        payload["prev_hash"] = self.last_hash
        timestamp = event_class.create_timestamp()
        kind = event_class.__qualname__
        digest = event_hash(self.id, self.version + 1, kind, timestamp, payload)
        self.trigger_event(
            event_class, timestamp=timestamp, hash=digest, seal=seal(digest), **payload
        )

    # -- commands ---------------------------------------------------------------------------------
    def post(self, seal: Any, *, author: str, name: str, role: str, text: str) -> int:
        """Record a message (``text`` already checked for size); its number, from 1."""
        if self.count >= MESSAGES_PER_GAME:
            raise LimitReached(
                f"this game's chat holds at most {MESSAGES_PER_GAME:,} messages",
                {"text": [f"limit_reached: at most {MESSAGES_PER_GAME} messages in a game"]},
            )
        recent = self.recent.get(author, [])
        now = time.time()
        window = [t for t in recent if now - t < RATE_SECONDS]
        if len(window) >= RATE_MESSAGES:
            wait = int(RATE_SECONDS - (now - window[0])) + 1
            raise LimitReached(
                f"at most {RATE_MESSAGES} messages a minute in one game: wait {wait} s",
                {"text": [f"limit_reached: at most {RATE_MESSAGES} messages in {RATE_SECONDS} s"]},
            )
        self._record(
            seal, self.Posted, number=self.count + 1, author=author, name=name, role=role, text=text
        )
        return self.count

    def hide(self, seal: Any, *, number: int, by: str, name: str, reason: str) -> None:
        if not 1 <= number <= self.count:
            raise Invalid(f"no message {number}", {"message": ["no such message in this chat"]})
        if number in self.hidden:
            raise Conflict("this message is hidden already", {"message": ["hidden already"]})
        self._record(seal, self.Hidden, number=number, by=by, name=name, reason=reason)

    def mute(self, seal: Any, *, user: str, muted: bool) -> bool:
        """Mute or unmute the chat for ``user``; False when nothing changed (nothing recorded)."""
        if (user in self.muted) == muted:
            return False
        self._record(seal, self.Muted, user=user, muted=muted)
        return True


class Notebook(Aggregate):
    """One player's notes for one game: never shown to anyone else unless the notepad is shared."""

    class Started(Aggregate.Created):
        game: str
        user: str

        def apply(self, aggregate: Any) -> None:
            aggregate.game = self.game
            aggregate.user = self.user
            aggregate.text = ""
            aggregate.hexes = {}
            aggregate.shared = False
            aggregate.changes = 0
            aggregate.updated = self.timestamp.isoformat()

    class Written(Aggregate.Event):
        text: str

        def apply(self, aggregate: Any) -> None:
            aggregate.text = self.text
            _changed(aggregate, self.timestamp)

    class HexNoted(Aggregate.Event):
        hex: str
        text: str

        def apply(self, aggregate: Any) -> None:
            aggregate.hexes[self.hex] = self.text
            _changed(aggregate, self.timestamp)

    class HexCleared(Aggregate.Event):
        hex: str

        def apply(self, aggregate: Any) -> None:
            aggregate.hexes.pop(self.hex, None)
            _changed(aggregate, self.timestamp)

    class Shared(Aggregate.Event):
        shared: bool

        def apply(self, aggregate: Any) -> None:
            aggregate.shared = self.shared
            _changed(aggregate, self.timestamp)

    game: str
    user: str
    text: str
    hexes: dict[str, str]
    shared: bool
    changes: int
    updated: str

    def __init__(self) -> None:  # attributes are set by Started.apply
        pass

    @classmethod
    def start(cls, game_id: UUID | str, user: str) -> Notebook:
        return cls._create(cls.Started, id=notebook_id(game_id, user), game=str(game_id), user=user)

    def _room(self) -> None:
        if self.changes >= NOTEBOOK_CHANGES_MAX:
            raise LimitReached(
                f"a notebook takes at most {NOTEBOOK_CHANGES_MAX:,} changes",
                {"notes": [f"limit_reached: at most {NOTEBOOK_CHANGES_MAX} changes per game"]},
            )

    def write(self, text: str) -> bool:
        if text == self.text:
            return False
        self._room()
        self.trigger_event(self.Written, text=text)
        return True

    def note_hex(self, hex_name: str, text: str) -> None:
        if hex_name not in self.hexes and len(self.hexes) >= HEX_NOTES_MAX:
            raise LimitReached(
                f"at most {HEX_NOTES_MAX} hex notes in one game",
                {"hex": [f"limit_reached: at most {HEX_NOTES_MAX} hex notes per game"]},
            )
        if self.hexes.get(hex_name) == text:
            return
        self._room()
        self.trigger_event(self.HexNoted, hex=hex_name, text=text)

    def clear_hex(self, hex_name: str) -> bool:
        if hex_name not in self.hexes:
            return False
        self.trigger_event(self.HexCleared, hex=hex_name)
        return True

    def share(self, shared: bool) -> bool:
        if shared == self.shared:
            return False
        self._room()
        self.trigger_event(self.Shared, shared=shared)
        return True

    def as_dict(self) -> Mapping[str, Any]:
        return {
            "text": self.text,
            "hexes": [{"hex": h, "text": t} for h, t in sorted(self.hexes.items())],
            "shared": self.shared,
            "updated": self.updated,
        }


def _changed(notebook: Any, at: datetime) -> None:
    notebook.changes += 1
    notebook.updated = at.isoformat()
