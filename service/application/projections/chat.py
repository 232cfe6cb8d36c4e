"""The conversations' view and the notebooks' view (``service.domain.conversations``).

- ``chat``: every message of every game's conversation (its number, author, text, time, and the
  arbiter's hiding with its reason), read a page at a time by ``(game, number)``, and who muted
  which game's chat.  A page of a game's chat reads at most a page of rows, whatever its length.
- ``notes``: each player's notepad for a game (text, shared or not) and their hex notes, by key.

Neither is held in a worker's memory; ``arbiter projections rebuild chat`` (or ``notes``) builds
either from the log."""

from __future__ import annotations

from abc import abstractmethod
from functools import singledispatchmethod
from typing import Any

from eventsourcing.persistence import Tracking
from eventsourcing.projection import Projection
from eventsourcing.utils import get_topic

from service.application.projections.view import View
from service.domain.conversations import Conversation, Notebook


class ChatView(View):
    @abstractmethod
    def add_message(self, row: dict[str, Any], tracking: Tracking) -> None:
        """A message (``row``: conversation, number, author, name, role, text, at); rows are
        keyed by the conversation's id, which is derived from its game's
        (``conversations.conversation_id``)."""

    @abstractmethod
    def hide_message(
        self, conversation: str, number: int, by: str, reason: str, tracking: Tracking
    ) -> None: ...

    @abstractmethod
    def set_muted(self, conversation: str, user: str, muted: bool, tracking: Tracking) -> None: ...

    @abstractmethod
    def select_messages(
        self, conversation: str, limit: int, after: int | None
    ) -> list[dict[str, Any]]:
        """Up to ``limit`` messages of ``conversation`` after number ``after``, oldest first."""

    @abstractmethod
    def is_muted(self, conversation: str, user: str) -> bool: ...


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


class NotesView(View):
    @abstractmethod
    def start(self, notebook: str, game: str, user: str, tracking: Tracking) -> None: ...

    @abstractmethod
    def set_text(self, notebook: str, text: str, at: str, tracking: Tracking) -> None: ...

    @abstractmethod
    def note_hex(self, notebook: str, hex_name: str, text: str, tracking: Tracking) -> None: ...

    @abstractmethod
    def clear_hex(self, notebook: str, hex_name: str, tracking: Tracking) -> None: ...

    @abstractmethod
    def share(self, notebook: str, shared: bool, tracking: Tracking) -> None: ...

    @abstractmethod
    def notebook(self, notebook: str) -> dict[str, Any] | None:
        """The notebook's notepad (text, shared, updated) and its hex notes, or None."""

    @abstractmethod
    def shared_of(self, game: str) -> list[dict[str, Any]]:
        """The notepads of ``game`` their authors shared (at most one per player)."""


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
