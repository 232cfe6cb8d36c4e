"""The tokens' view: each user's bearer tokens and web sessions that may still be live (never their
secrets), kept by :class:`TokensProjection` from the tokens' events and the users' password
changes.  It answers "which tokens of this user are live now", by key, for the tokens listing and
the cap on live tokens per user (``ARBITER_TOKENS_PER_USER``).

A row goes when its token is revoked, when its user's password changes (the tokens issued under an
earlier password are signed out), and when its user is issued a token after it expired: each
event's own time decides, so a rebuild from the log holds the same rows.  A token that expired
since, or that was issued under a password changed meanwhile (a sign-in that raced the change), is
left out when read (:meth:`TokensView.live`).

In SQLite and PostgreSQL (:mod:`.base`): table ``tokens`` (tracking ``tokens_tracking``), a user's
tokens read by its index, newest first."""

from __future__ import annotations

from datetime import datetime
from functools import singledispatchmethod
from typing import Any

from eventsourcing.persistence import Tracking
from eventsourcing.projection import Projection
from eventsourcing.utils import get_topic

from service.domain.users import ApiToken, User
from service.views.base import SqlView, Table, micros, moment


def maybe_moment(value: int | None) -> datetime | None:
    return None if value is None else moment(value)


class TokensView(SqlView):
    """The ``tokens`` table; each write records its tracking in the same transaction."""

    TABLES = (
        Table(
            "tokens",
            "id TEXT PRIMARY KEY, user_id TEXT NOT NULL, label TEXT NOT NULL, "
            "created BIGINT NOT NULL, last_used BIGINT, expires BIGINT NOT NULL, "
            "generation INTEGER NOT NULL",
            indexes=(("by_user", "user_id, created, id"),),
        ),
    )

    def live(self, user: str, now: datetime, generation: int) -> list[dict[str, Any]]:
        """``user``'s live tokens at ``now`` (``generation``: the user's password generation):
        id, label, created, last used, expires -- newest first."""
        return [
            {
                "id": row["id"],
                "label": row["label"],
                "created": maybe_moment(row["created"]),
                "last_used": maybe_moment(row["last_used"]),
                "expires": maybe_moment(row["expires"]),
            }
            for row in self.select_live(user, micros(now), generation)
        ]

    def issued(self, row: dict[str, Any], tracking: Tracking) -> None:
        """Add a token (``row``: id, user_id, label, created, expires, generation; times in
        microseconds), nothing if it is there; and drop the user's tokens expired by
        ``created``."""
        self.write(
            tracking,
            (
                "DELETE FROM {tokens} WHERE user_id = %s AND expires <= %s",
                [row["user_id"], row["created"]],
            ),
            (
                "INSERT INTO {tokens} (id, user_id, label, created, expires, generation) "
                "VALUES (%s, %s, %s, %s, %s, %s) ON CONFLICT (id) DO NOTHING",
                [
                    row["id"],
                    row["user_id"],
                    row["label"],
                    row["created"],
                    row["expires"],
                    row["generation"],
                ],
            ),
        )

    def used(self, token: str, at: int, tracking: Tracking) -> None:
        self.write(tracking, ("UPDATE {tokens} SET last_used = %s WHERE id = %s", [at, token]))

    def revoked(self, token: str, tracking: Tracking) -> None:
        self.write(tracking, ("DELETE FROM {tokens} WHERE id = %s", [token]))

    def password_changed(self, user: str, generation: int, tracking: Tracking) -> None:
        """Drop ``user``'s tokens issued under a password generation before ``generation``."""
        self.write(
            tracking,
            ("DELETE FROM {tokens} WHERE user_id = %s AND generation < %s", [user, generation]),
        )

    def select_live(self, user: str, now: int, generation: int) -> list[dict[str, Any]]:
        """``user``'s rows that expire after ``now`` and were issued under ``generation`` (or
        later), newest first."""
        return self.query(
            "SELECT id, label, created, last_used, expires FROM {tokens} "
            "WHERE user_id = %s AND expires > %s AND generation >= %s "
            "ORDER BY created DESC, id DESC",
            [user, now, generation],
        )


class TokensProjection(Projection[TokensView]):
    name = "tokens"
    topics = tuple(
        get_topic(cls)
        for cls in (ApiToken.Issued, ApiToken.Used, ApiToken.Revoked, User.PasswordChanged)
    )

    @singledispatchmethod
    def process_event(self, domain_event: Any, tracking: Tracking) -> None:
        self.view.insert_tracking(tracking)  # not a topic of this view: only the position

    @process_event.register
    def _(self, event: ApiToken.Issued, tracking: Tracking) -> None:
        row = {
            "id": event.originator_id.hex,
            "user_id": event.user_id,
            "label": event.label,
            "created": micros(event.timestamp),
            "expires": micros(event.expires),
            "generation": event.generation,
        }
        self.view.issued(row, tracking)

    @process_event.register
    def _(self, event: ApiToken.Used, tracking: Tracking) -> None:
        self.view.used(event.originator_id.hex, micros(event.timestamp), tracking)

    @process_event.register
    def _(self, event: ApiToken.Revoked, tracking: Tracking) -> None:
        self.view.revoked(event.originator_id.hex, tracking)

    @process_event.register
    def _(self, event: User.PasswordChanged, tracking: Tracking) -> None:
        self.view.password_changed(str(event.originator_id), event.generation, tracking)
