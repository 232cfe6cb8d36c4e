"""The service behind ``/api/me/notifications``, preferences, unsubscribe links and webhooks: it
reads what :class:`service.application.notifications.NotificationProcess` derived (the notices'
view) and records what a user or a club admin changes."""

from __future__ import annotations

import hashlib
import hmac
import secrets
import threading
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any
from uuid import UUID, uuid4

from eventsourcing.application import AggregateNotFoundError

from service.application.store import ArbiterStore
from service.domain.digests import same_secret
from service.domain.errors import Forbidden, Invalid, LimitReached, NotFound
from service.domain.notifications import (
    KIND_WORDS,
    KINDS,
    Inbox,
    Preferences,
    Resolve,
    Webhook,
    WebhookIndex,
    default_preferences,
    inbox_id,
    preferences_id,
    validate_kinds,
    validate_webhook_url,
)
from service.views.notices import NoticesView

if TYPE_CHECKING:
    from service.application.notifications import NotificationProcess


def unsubscribe_token(secret: str, user: str, kind: str) -> str:
    message = f"unsubscribe:{user}:{kind}".encode()
    return hmac.new(secret.encode(), message, hashlib.sha256).hexdigest()[:32]


def webhooks_of(store: ArbiterStore, owner_kind: str, owner: str) -> list[Any]:
    """The webhooks registered for an owner: an index aggregate lists their ids."""
    try:
        index: Any = store.repository.get(WebhookIndex.id_for(owner_kind, owner))
    except AggregateNotFoundError:
        return []
    hooks: list[Any] = []
    for hid in index.hooks:
        try:
            hooks.append(store.repository.get(UUID(hid)))
        except AggregateNotFoundError:
            continue
    return hooks


class NotificationService:
    """What ``/api/me/notifications``, preferences and webhooks do."""

    def __init__(
        self,
        store: ArbiterStore,
        process: NotificationProcess,
        *,
        clubs: Any,
        secret: str,
        allow_private: bool,
        resolve: Resolve,
        webhooks_per: Mapping[str, int] | None = None,
    ) -> None:
        self.store = store
        self.process = process
        #: webhooks one owner ("user", "club") may hold (README: ARBITER_WEBHOOKS_PER_*)
        self.webhooks_per = {"user": 10, "club": 20, **(webhooks_per or {})}
        self.clubs = clubs
        self.secret = secret
        self.allow_private = allow_private
        #: a webhook host's addresses (the DNS look-up, ``service.adapters.addresses``)
        self.resolve = resolve
        self._lock = threading.Lock()

    # -- notices ------------------------------------------------------------------------------------
    @property
    def _notices(self) -> NoticesView:
        view = self.process.views["notices"].view
        assert isinstance(view, NoticesView)
        return view

    def listing(
        self,
        user: str,
        *,
        unread_only: bool = False,
        limit: int = 50,
        after: tuple[int, str] | None = None,
    ) -> dict[str, Any]:
        """``user``'s notices newest first, a page of ``limit`` after the key ``after`` (kinds
        turned off for the web left out), how many are unread and how many in all, and the key
        of the next page (``next``, None after the last); read from the notices' view by index."""
        prefs = self.preferences(user)
        kinds = [k for k in KINDS if prefs.get(k, {}).get("web", True)]
        inbox = self._aggregate(inbox_id(user))
        unread_since = (inbox.read_before, list(inbox.read)) if inbox is not None else (None, [])
        view = self._notices
        rows = view.page(
            user,
            kinds,
            limit=limit + 1,
            after=after,
            unread_since=unread_since if unread_only else None,
        )
        more = len(rows) > limit
        rows = rows[:limit]
        keys = [row.pop("key") for row in rows]
        for row in rows:
            row["read"] = inbox is not None and inbox.is_read(row["id"], row["created"])
        following = keys[-1] if more else None
        return {
            "notifications": rows,
            "unread": view.count(user, kinds, unread_since),
            "total": view.count(user, kinds),
            "next": following,
        }

    def mark_read(self, user: str, ids: list[str] | None, everything: bool) -> int:
        view = self._notices
        if not everything:
            if not ids:
                raise Invalid("nothing to mark", {"ids": ["a list of notification ids, or all"]})
            known = set(view.has_notices(user, ids))
            unknown = [i for i in ids if i not in known]
            if unknown:
                raise NotFound("no such notification", {"ids": [f"not yours: {unknown[0]}"]})
        inbox = self._aggregate(inbox_id(user)) or Inbox.open(user)
        if everything:
            newest = view.newest(user) or datetime.now(UTC)
            inbox.trigger_event(Inbox.ReadAll, before=newest)
        else:
            inbox.trigger_event(Inbox.Read, ids=sorted(set(ids or [])))
        self.store.commit(inbox)
        return int(self.listing(user, limit=1)["unread"])

    # -- preferences --------------------------------------------------------------------------------
    def preferences(self, user: str) -> dict[str, dict[str, bool]]:
        prefs = self._aggregate(preferences_id(user))
        return prefs.settings if prefs is not None else default_preferences()

    def set_preferences(self, user: str, settings: Any) -> dict[str, dict[str, bool]]:
        prefs = self._aggregate(preferences_id(user), fresh=True) or Preferences.start(user)
        prefs.change(settings)
        self.store.commit(prefs)
        return prefs.settings

    def check_unsubscribe(self, user: str, kind: str, token: str) -> str:
        """What a signed unsubscribe link stops (in words), if it is valid; it changes nothing."""
        if kind not in KINDS:
            raise Invalid("unknown kind", {"kind": [f"one of {', '.join(KINDS)}"]})
        expected = unsubscribe_token(self.secret, user, kind)
        if not same_secret(expected, token or ""):
            raise Forbidden("this unsubscribe link is not valid", {"token": ["not valid"]})
        return KIND_WORDS[kind]

    def unsubscribe(self, user: str, kind: str, token: str) -> str:
        words = self.check_unsubscribe(user, kind, token)
        self.set_preferences(user, {kind: {"email": False}})
        return words

    # -- webhooks -----------------------------------------------------------------------------------
    def register_webhook(
        self, owner_kind: str, owner: str, by: str, url: str, secret: str | None, kinds: Any
    ) -> tuple[Webhook, str]:
        url = validate_webhook_url(url, allow_private=self.allow_private, resolve=self.resolve)
        kinds = validate_kinds(kinds if kinds is not None else [])
        if secret is not None and not 16 <= len(secret) <= 200:
            raise Invalid("invalid secret", {"secret": ["16 to 200 characters"]})
        secret = secret or secrets.token_urlsafe(24)
        hook = Webhook._create(
            Webhook.Registered,
            id=uuid4(),
            owner_kind=owner_kind,
            owner=owner,
            url=url,
            secret=secret,
            kinds=kinds,
            created_by=by,
        )
        with self._lock:
            index = self._aggregate(WebhookIndex.id_for(owner_kind, owner), fresh=True)
            if index is None:
                index = WebhookIndex._create(
                    WebhookIndex.Started,
                    id=WebhookIndex.id_for(owner_kind, owner),
                    owner_kind=owner_kind,
                    owner=owner,
                )
            most = self.webhooks_per[owner_kind]
            if len(index.hooks) >= most:
                whose = "you hold" if owner_kind == "user" else "a club holds"
                raise LimitReached(
                    "too many webhooks",
                    {"url": [f"{whose} at most {most} webhooks: remove one to add another"]},
                )
            index.trigger_event(WebhookIndex.Added, hook=str(hook.id))
            self.store.commit(hook, index)
        return hook, secret

    def webhooks(self, owner_kind: str, owner: str) -> list[Webhook]:
        return [h for h in webhooks_of(self.store, owner_kind, owner) if not h.removed]

    def webhook(self, owner_kind: str, owner: str, hook_id: str) -> Webhook:
        for hook in self.webhooks(owner_kind, owner):
            if hook.id.hex == hook_id.replace("-", "") or str(hook.id) == hook_id:
                return hook
        raise NotFound("no such webhook", {"webhook": [f"no webhook {hook_id} here"]})

    def remove_webhook(self, owner_kind: str, owner: str, hook_id: str, by: str) -> None:
        hook = self.webhook(owner_kind, owner, hook_id)
        fresh: Any = self.store.repository.get(hook.id)
        fresh.trigger_event(Webhook.Removed, by=by)
        with self._lock:
            index: Any = self.store.repository.get(WebhookIndex.id_for(owner_kind, owner))
            index.trigger_event(WebhookIndex.Dropped, hook=str(hook.id))
            self.store.commit(fresh, index)

    def deliveries(
        self,
        owner_kind: str,
        owner: str,
        hook_id: str,
        *,
        limit: int = 50,
        after: tuple[int, str] | None = None,
    ) -> tuple[list[dict[str, Any]], tuple[int, str] | None]:
        """A page of the webhook's deliveries, newest first, after the key ``after``, with every
        attempt; and the key of the next page (None after the last)."""
        hook = self.webhook(owner_kind, owner, hook_id)
        rows = self._notices.deliveries(str(hook.id), limit + 1, after)
        more = len(rows) > limit
        rows = rows[:limit]
        keys = [row.pop("key") for row in rows]
        return rows, (keys[-1] if more else None)

    def club_admin(self, club_id: str, user: Any) -> str:
        """The club's id if ``user`` may manage its webhooks (a club admin or a site admin)."""
        club = self.clubs.get(club_id)
        if "admin" in getattr(user, "roles", []) or "admin" in club.members.get(str(user.id), ()):
            return str(club.id)
        raise Forbidden(
            "only the club's admins manage its webhooks", {"club": ["you are not its admin"]}
        )

    def _aggregate(self, aggregate_id: UUID, *, fresh: bool = False) -> Any:
        try:
            return self.store.repository.get(aggregate_id, deepcopy_from_cache=fresh)
        except AggregateNotFoundError:
            return None
