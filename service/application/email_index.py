"""A projection of the shared log: which users gave each e-mail address (compared without case),
so that a password reset can be asked for by address.  Every worker follows the same log, so each
sees every change of address; one entry per user at most (a new address replaces the old)."""

from __future__ import annotations

from typing import Any

from eventsourcing.utils import get_topic

from service.application.store import ArbiterStore, LogFollower
from service.domain.users import User


class EmailIndex:
    TOPICS = (get_topic(User.EmailChanged),)

    def __init__(self, store: ArbiterStore) -> None:
        self._log = LogFollower(store, self.TOPICS)
        self._address: dict[str, str] = {}  # user id -> address (lower case)
        self._users: dict[str, set[str]] = {}  # address (lower case) -> user ids

    def users_of(self, address: str) -> list[str]:
        """The ids of the users whose address is ``address``, sorted."""
        with self._log.lock:
            for event in self._log.new_events():
                self._project(event)
            return sorted(self._users.get(address.strip().lower(), ()))

    def _project(self, event: Any) -> None:
        uid = str(event.originator_id)
        old = self._address.pop(uid, None)
        if old is not None:
            holders = self._users.get(old, set())
            holders.discard(uid)
            if not holders:
                self._users.pop(old, None)
        if event.email:
            new = str(event.email).lower()
            self._address[uid] = new
            self._users.setdefault(new, set()).add(uid)
