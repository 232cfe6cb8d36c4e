"""The e-mail addresses' view: each user's address, compared without case, kept by
:class:`EmailsProjection` from the users' changes of address.  It answers "which users gave this
address", by key, so that a password reset can be asked for by address.  One row per user at most
(a new address replaces the old; a removed one goes).

In SQLite and PostgreSQL (:mod:`.base`): table ``emails`` (tracking ``emails_tracking``), one row
per user with an address, the users of an address read by its index."""

from __future__ import annotations

from functools import singledispatchmethod
from typing import Any

from eventsourcing.persistence import Tracking
from eventsourcing.projection import Projection
from eventsourcing.utils import get_topic

from service.domain.users import User
from service.views.base import SqlView, Table


def address_key(address: str) -> str:
    """An address as the view compares it: without surrounding spaces, in lower case."""
    return address.strip().lower()


class EmailsView(SqlView):
    """The ``emails`` table; each write records its tracking in the same transaction."""

    TABLES = (
        Table(
            "emails",
            "user_id TEXT PRIMARY KEY, address TEXT NOT NULL",
            indexes=(("by_address", "address, user_id"),),
        ),
    )

    def users_of(self, address: str) -> list[str]:
        """The ids of the users whose address is ``address`` (without case), sorted."""
        return self.select_users(address_key(address))

    def set_address(self, user: str, address: str | None, tracking: Tracking) -> None:
        """``user``'s address is now ``address`` (a key: :func:`address_key`; None: none)."""
        if address is None:
            self.write(tracking, ("DELETE FROM {emails} WHERE user_id = %s", [user]))
            return
        self.write(
            tracking,
            (
                "INSERT INTO {emails} (user_id, address) VALUES (%s, %s) "
                "ON CONFLICT (user_id) DO UPDATE SET address = excluded.address",
                [user, address],
            ),
        )

    def select_users(self, key: str) -> list[str]:
        found = self.query(
            "SELECT user_id FROM {emails} WHERE address = %s ORDER BY user_id", [key]
        )
        return [row["user_id"] for row in found]


class EmailsProjection(Projection[EmailsView]):
    name = "emails"
    topics = (get_topic(User.EmailChanged),)

    @singledispatchmethod
    def process_event(self, domain_event: Any, tracking: Tracking) -> None:
        self.view.insert_tracking(tracking)  # not a topic of this view: only the position

    @process_event.register
    def _(self, event: User.EmailChanged, tracking: Tracking) -> None:
        address = address_key(event.email) if event.email else None
        self.view.set_address(str(event.originator_id), address or None, tracking)
