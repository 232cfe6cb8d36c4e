"""What ``/api/push/key`` and ``/api/me/push-subscriptions`` do: the server's VAPID public key,
and a user's push subscriptions (one per browser where they turned notifications on), kept in the
main store (``service.domain.push``) so that every host and worker sees the same ones.  The
worker pushes to them (``service.application.worker``) and removes one the push service says is
gone (404 or 410)."""

from __future__ import annotations

import threading
from typing import Any
from uuid import UUID

from eventsourcing.application import AggregateNotFoundError

from service.application.notifications import push_subscriptions_of
from service.application.store import ArbiterStore
from service.domain.errors import LimitReached, NotFound, StaleVersion
from service.domain.notifications import Resolve
from service.domain.push import (
    PushIndex,
    PushSubscription,
    push_index_id,
    subscription_id,
    validate_subscription,
)

#: tries of a change to a user's index that lost a race with another host's
RETRIES = 5


class PushService:
    def __init__(
        self,
        store: ArbiterStore,
        *,
        public_key: str,
        allow_private: bool,
        resolve: Resolve,
        per_user: int = 10,
    ) -> None:
        self.store = store
        self.public_key = public_key
        self.allow_private = allow_private
        #: an endpoint host's addresses (the DNS look-up, ``service.adapters.addresses``)
        self.resolve = resolve
        #: subscriptions one user may hold (README: ARBITER_PUSH_PER_USER)
        self.per_user = per_user
        self._lock = threading.Lock()

    def subscribe(
        self, user: str, endpoint: str, p256dh: str, auth: str, expires: int | None
    ) -> tuple[PushSubscription, bool]:
        """Keep a browser's subscription for ``user``: (it, whether it is new).  The same endpoint
        again renews the one kept (new keys, or on again after it was removed); a new one past
        the cap is refused (409 ``limit_reached``), and nothing is written."""
        endpoint, p256dh, auth = validate_subscription(
            endpoint, p256dh, auth, allow_private=self.allow_private, resolve=self.resolve
        )
        sid = subscription_id(user, endpoint)
        for _ in range(RETRIES):
            with self._lock:
                try:
                    return self._subscribe(user, sid, endpoint, p256dh, auth, expires)
                except StaleVersion:
                    continue  # another host changed the index meanwhile: read it again
        raise StaleVersion("your devices changed meanwhile; try again", {"endpoint": ["busy"]})

    def _subscribe(
        self, user: str, sid: UUID, endpoint: str, p256dh: str, auth: str, expires: int | None
    ) -> tuple[PushSubscription, bool]:
        index = self._get(push_index_id(user)) or PushIndex._create(
            PushIndex.Started, id=push_index_id(user), user=user
        )
        held = [s for s in push_subscriptions_of(self.store, user) if s.id != sid]
        device = self._get(sid)
        if len(held) >= self.per_user:
            raise LimitReached(
                "too many devices",
                {
                    "endpoint": [
                        f"you hold at most {self.per_user} push subscriptions: turn "
                        "notifications off on a device you no longer use"
                    ]
                },
            )
        new = device is None or device.removed
        if device is None:
            device = PushSubscription._create(
                PushSubscription.Subscribed,
                id=sid,
                user=user,
                endpoint=endpoint,
                p256dh=p256dh,
                auth=auth,
                expires=expires,
            )
        elif device.removed or (device.p256dh, device.auth, device.expires) != (
            p256dh,
            auth,
            expires,
        ):
            device.trigger_event(
                PushSubscription.Renewed, p256dh=p256dh, auth=auth, expires=expires
            )
        changed = [device] if device.pending_events else []
        if str(sid) not in index.subscriptions:
            index.trigger_event(PushIndex.Added, subscription=str(sid))
        if index.pending_events:
            changed.append(index)
        if changed:
            self.store.commit(*changed)
        return device, new

    def subscriptions(
        self, user: str, *, limit: int = 50, after: tuple[int, Any] | None = None
    ) -> tuple[list[PushSubscription], tuple[int, UUID] | None]:
        """A page of ``user``'s subscriptions, oldest first, after the key ``after`` (its place
        in the list and its id), and the key of the next page (None after the last)."""
        found = push_subscriptions_of(self.store, user)
        start = 0
        if after is not None:
            ids = [str(s.id) for s in found]
            last = str(UUID(str(after[1])))
            start = ids.index(last) + 1 if last in ids else min(after[0], len(found))
        page = found[start : start + limit]
        more = start + limit < len(found)
        return page, ((start + len(page) - 1, page[-1].id) if more and page else None)

    def subscription(self, user: str, sub_id: str) -> PushSubscription:
        try:
            wanted = UUID(sub_id)
        except ValueError:
            wanted = None
        for device in push_subscriptions_of(self.store, user):
            if device.id == wanted:
                return device
        raise NotFound("no such push subscription", {"id": [f"none of yours is {sub_id}"]})

    def remove(self, user: str, sub_id: str, *, by: str | None, reason: str) -> None:
        """Turn one subscription off (the user; or the worker when its push service says it is
        gone): a ``Removed`` event, and its id dropped from the user's index."""
        device = self.subscription(user, sub_id)
        for _ in range(RETRIES):
            with self._lock:
                fresh: Any = self._get(device.id)
                if fresh is None or fresh.removed:
                    return
                fresh.trigger_event(PushSubscription.Removed, reason=reason, by=by)
                index: Any = self._get(push_index_id(user))
                changed = [fresh]
                if index is not None and str(device.id) in index.subscriptions:
                    index.trigger_event(PushIndex.Dropped, subscription=str(device.id))
                    changed.append(index)
                try:
                    self.store.commit(*changed)
                    return
                except StaleVersion:
                    continue
        raise StaleVersion("your devices changed meanwhile; try again", {"id": ["busy"]})

    def _get(self, aggregate_id: UUID) -> Any:
        try:
            return self.store.repository.get(aggregate_id, deepcopy_from_cache=True)
        except AggregateNotFoundError:
            return None
