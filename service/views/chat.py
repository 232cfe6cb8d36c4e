"""The conversations' view and the notebooks' view (``service.domain.conversations``).

- ``chat``: every message of every game's conversation (its number, author, text, time, and the
  arbiter's hiding with its reason), read a page at a time by ``(game, number)``, and who muted
  which game's chat.  A page of a game's chat reads at most a page of rows, whatever its length.
- ``notes``: each player's notepad for a game (text, shared or not) and their hex notes, by key.

Neither is held in a worker's memory; ``arbiter projections rebuild chat`` (or ``notes``) builds
either from the log.

The conversations' and notebooks' views in SQLite
and PostgreSQL: tables ``chat_messages`` (a game's messages by ``(conversation, number)``, the
primary key: a page is one index range) and ``chat_mutes``; ``notes`` and ``note_hexes``."""

from __future__ import annotations

from functools import singledispatchmethod
from typing import Any

from eventsourcing.persistence import Tracking
from eventsourcing.projection import Projection
from eventsourcing.utils import get_topic

from service.domain.conversations import Conversation, Notebook
from service.views.base import SqlView, Table


class ChatView(SqlView):
    TABLES = (
        Table(
            "chat_messages",
            "conversation TEXT NOT NULL, number INTEGER NOT NULL, author TEXT NOT NULL, "
            "name TEXT NOT NULL, role TEXT NOT NULL, text TEXT NOT NULL, at TEXT NOT NULL, "
            "hidden_by TEXT, hidden_reason TEXT, PRIMARY KEY (conversation, number)",
        ),
        Table(
            "chat_mutes",
            "conversation TEXT NOT NULL, member TEXT NOT NULL, PRIMARY KEY (conversation, member)",
        ),
    )

    def add_message(self, row: dict[str, Any], tracking: Tracking) -> None:
        """A message (``row``: conversation, number, author, name, role, text, at); rows are
        keyed by the conversation's id, which is derived from its game's
        (``conversations.conversation_id``)."""
        self.write(
            tracking,
            (
                "INSERT INTO {chat_messages} (conversation, number, author, name, role, text, at) "
                "VALUES (%s, %s, %s, %s, %s, %s, %s) ON CONFLICT (conversation, number) DO NOTHING",
                [
                    row["conversation"],
                    row["number"],
                    row["author"],
                    row["name"],
                    row["role"],
                    row["text"],
                    row["at"],
                ],
            ),
        )

    def hide_message(
        self, conversation: str, number: int, by: str, reason: str, tracking: Tracking
    ) -> None:
        self.write(
            tracking,
            (
                "UPDATE {chat_messages} SET hidden_by = %s, hidden_reason = %s "
                "WHERE conversation = %s AND number = %s",
                [by, reason, conversation, number],
            ),
        )

    def set_muted(self, conversation: str, user: str, muted: bool, tracking: Tracking) -> None:
        if muted:
            statement = (
                "INSERT INTO {chat_mutes} (conversation, member) VALUES (%s, %s) "
                "ON CONFLICT (conversation, member) DO NOTHING"
            )
        else:
            statement = "DELETE FROM {chat_mutes} WHERE conversation = %s AND member = %s"
        self.write(tracking, (statement, [conversation, user]))

    def select_messages(
        self, conversation: str, limit: int, after: int | None
    ) -> list[dict[str, Any]]:
        """Up to ``limit`` messages of ``conversation`` after number ``after``, oldest first."""
        return self.query(
            "SELECT * FROM {chat_messages} WHERE conversation = %s AND number > %s "
            "ORDER BY number LIMIT %s",
            [conversation, after or 0, limit],
        )

    def is_muted(self, conversation: str, user: str) -> bool:
        found = self.query_one(
            "SELECT 1 AS one FROM {chat_mutes} WHERE conversation = %s AND member = %s",
            [conversation, user],
        )
        return found is not None


class ChatProjection(Projection[ChatView]):
    name = "chat"
    topics = tuple(
        get_topic(cls) for cls in (Conversation.Posted, Conversation.Hidden, Conversation.Muted)
    )

    @singledispatchmethod
    def process_event(self, domain_event: Any, tracking: Tracking) -> None:
        self.view.insert_tracking(tracking)  # not a topic of this view: only the position

    @process_event.register
    def _(self, event: Conversation.Posted, tracking: Tracking) -> None:
        row = {
            "conversation": str(event.originator_id),
            "number": event.number,
            "author": event.author,
            "name": event.name,
            "role": event.role,
            "text": event.text,
            "at": event.timestamp.isoformat(),
        }
        self.view.add_message(row, tracking)

    @process_event.register
    def _(self, event: Conversation.Hidden, tracking: Tracking) -> None:
        self.view.hide_message(
            str(event.originator_id), event.number, event.name, event.reason, tracking
        )

    @process_event.register
    def _(self, event: Conversation.Muted, tracking: Tracking) -> None:
        self.view.set_muted(str(event.originator_id), event.user, event.muted, tracking)


class NotesView(SqlView):
    TABLES = (
        Table(
            "notes",
            "notebook TEXT PRIMARY KEY, game TEXT NOT NULL, author TEXT NOT NULL, "
            "text TEXT NOT NULL, shared INTEGER NOT NULL, updated TEXT NOT NULL",
            indexes=(("shared", "game, shared"),),
        ),
        Table(
            "note_hexes",
            "notebook TEXT NOT NULL, hex TEXT NOT NULL, text TEXT NOT NULL, "
            "PRIMARY KEY (notebook, hex)",
        ),
    )

    def start(self, notebook: str, game: str, user: str, tracking: Tracking) -> None:
        self.write(
            tracking,
            (
                "INSERT INTO {notes} (notebook, game, author, text, shared, updated) "
                "VALUES (%s, %s, %s, '', 0, '') ON CONFLICT (notebook) DO NOTHING",
                [notebook, game, user],
            ),
        )

    def set_text(self, notebook: str, text: str, at: str, tracking: Tracking) -> None:
        self.write(
            tracking,
            (
                "UPDATE {notes} SET text = %s, updated = %s WHERE notebook = %s",
                [text, at, notebook],
            ),
        )

    def note_hex(self, notebook: str, hex_name: str, text: str, tracking: Tracking) -> None:
        self.write(
            tracking,
            (
                "INSERT INTO {note_hexes} (notebook, hex, text) VALUES (%s, %s, %s) "
                "ON CONFLICT (notebook, hex) DO UPDATE SET text = excluded.text",
                [notebook, hex_name, text],
            ),
        )

    def clear_hex(self, notebook: str, hex_name: str, tracking: Tracking) -> None:
        self.write(
            tracking,
            ("DELETE FROM {note_hexes} WHERE notebook = %s AND hex = %s", [notebook, hex_name]),
        )

    def share(self, notebook: str, shared: bool, tracking: Tracking) -> None:
        self.write(
            tracking,
            ("UPDATE {notes} SET shared = %s WHERE notebook = %s", [int(shared), notebook]),
        )

    def notebook(self, notebook: str) -> dict[str, Any] | None:
        """The notebook's notepad (text, shared, updated) and its hex notes, or None."""
        found = self.query_one("SELECT * FROM {notes} WHERE notebook = %s", [notebook])
        if found is None:
            return None
        hexes = self.query(
            "SELECT hex, text FROM {note_hexes} WHERE notebook = %s ORDER BY hex", [notebook]
        )
        return {
            "text": found["text"],
            "shared": bool(found["shared"]),
            "updated": found["updated"] or None,
            "hexes": [{"hex": h["hex"], "text": h["text"]} for h in hexes],
        }

    def shared_of(self, game: str) -> list[dict[str, Any]]:
        """The notepads of ``game`` their authors shared (at most one per player)."""
        return self.query(
            "SELECT author, text, updated FROM {notes} WHERE game = %s AND shared = 1 "
            "ORDER BY author",
            [game],
        )


class NotesProjection(Projection[NotesView]):
    name = "notes"
    topics = tuple(
        get_topic(cls)
        for cls in (
            Notebook.Started,
            Notebook.Written,
            Notebook.HexNoted,
            Notebook.HexCleared,
            Notebook.Shared,
        )
    )

    @singledispatchmethod
    def process_event(self, domain_event: Any, tracking: Tracking) -> None:
        self.view.insert_tracking(tracking)

    @process_event.register
    def _(self, event: Notebook.Started, tracking: Tracking) -> None:
        self.view.start(str(event.originator_id), event.game, event.user, tracking)

    @process_event.register
    def _(self, event: Notebook.Written, tracking: Tracking) -> None:
        self.view.set_text(
            str(event.originator_id), event.text, event.timestamp.isoformat(), tracking
        )

    @process_event.register
    def _(self, event: Notebook.HexNoted, tracking: Tracking) -> None:
        self.view.note_hex(str(event.originator_id), event.hex, event.text, tracking)

    @process_event.register
    def _(self, event: Notebook.HexCleared, tracking: Tracking) -> None:
        self.view.clear_hex(str(event.originator_id), event.hex, tracking)

    @process_event.register
    def _(self, event: Notebook.Shared, tracking: Tracking) -> None:
        self.view.share(str(event.originator_id), event.shared, tracking)
