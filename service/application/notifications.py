"""Notifications: a process application that follows the store's log and derives, per event, what
each user is told (a :class:`Notice`) and what is to be delivered by e-mail and webhook (a
:class:`Delivery`); the book the API reads them from.  The service behind ``/api/me/...`` is
:mod:`service.application.notification_service`'s (importable from here too).

:class:`NotificationProcess` reads the main store's notification log from the position in its
tracking table (through :class:`~service.application.store.LogFollower`, the one reader of the log
in ``application``), and records each event's notices and deliveries atomically with that position
in eventsourcing's process recorder (in its own tables: ``notifications_*`` in PostgreSQL,
``notifications.sqlite`` beside the SQLite store).  A worker killed at any moment resumes where the
last recorded event left off; two workers processing the same event cannot both record it (the
tracking row and the derived ids are unique).  Ids derive from the source event, so a replay of
the log derives the same notices.  Sending is :mod:`service.application.worker`'s."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any
from uuid import UUID

from eventsourcing.application import AggregateNotFoundError, Application
from eventsourcing.persistence import ProcessRecorder, Tracking
from eventsourcing.utils import get_topic

from service.application.game_notices import NOTICES, Seen, side_words
from service.application.notification_service import (
    NotificationService,
    unsubscribe_token,
    webhooks_of,
)
from service.application.ports import Broker
from service.application.store import ArbiterStore, LogFollower
from service.domain.conversations import Conversation
from service.domain.game import Game
from service.domain.notifications import (
    Delivery,
    Notice,
    Webhook,
    default_preferences,
    delivery_id,
    notice_id,
    preferences_id,
)
from service.domain.push import PushSubscription, push_index_id
from service.views.kept_games import KeptGames

log = logging.getLogger(__name__)

GAME = "service.domain.game:Game."
#: the events notified about (the lifecycle ones are H17A's; a topic with no class yet is harmless)
GAME_EVENTS = (
    "Created",
    "Recorded",
    "Retracted",
    "TakebackRequested",
    "DisputeOpened",
    "DisputeResolved",
    "VerdictProposed",
    "VerdictAgreed",
    "Ended",
    "Invited",
    "InvitationAccepted",
    "InvitationDeclined",
    "DrawOffered",
    "DrawDeclined",
    "Resigned",
    "ClockExpired",
    "ClockLow",
    "Claimed",
)
CHALLENGE = "service.domain.ladders:Challenge.Issued"
#: a club's invitations and join requests: the invited user, the club's admins, the asker are told
CLUB = "service.domain.clubs:Club."
CLUB_EVENTS = ("MemberAdded", "Invited", "InvitationAnswered", "JoinRequested", "JoinAnswered")
CLUB_TOPICS = tuple(CLUB + name for name in CLUB_EVENTS)
#: a message in a game's chat: the other players are told, unless they muted that chat
CHAT = get_topic(Conversation.Posted)
#: a club event's new round (its players), a round's deadline near (its players still playing),
#: the event's end (every player)
TOURNAMENT = "service.domain.tournaments:Tournament."
TOURNAMENT_EVENTS = ("RoundReleased", "DeadlineNear", "Finished")
TOURNAMENT_TOPICS = tuple(TOURNAMENT + name for name in TOURNAMENT_EVENTS)
TOPICS = (
    tuple(GAME + name for name in GAME_EVENTS) + (CHALLENGE, *CLUB_TOPICS, CHAT) + TOURNAMENT_TOPICS
)
NOTIFIED = frozenset(TOPICS)
#: what the process follows: the events notified about and every other game event, which tells
#: nobody anything but keeps the games it keeps up to date from the log itself (a command's
#: acceptance and dice come before its ``Recorded``), with no read of the store between
FOLLOWED = TOPICS + tuple(
    sorted(
        topic
        for topic in (
            get_topic(cls)
            for cls in vars(Game).values()
            if isinstance(cls, type) and issubclass(cls, Game.Event) and cls is not Game.Event
        )
        if topic not in NOTIFIED
    )
)
#: an event older than this when first processed (a new worker on an old log) gets its notices
#: but no e-mail or webhook: nobody wants last year's "your turn" in their mailbox
STALE = timedelta(days=3)
#: events after which whose turn it is may have changed
TURN_EVENTS = {"Created", "Recorded", "Retracted", "InvitationAccepted"}
#: games the process keeps in memory at the version it last derived from (least recently used
#: out first); a game not kept is loaded once from the store (its snapshot and a replay)
GAMES_KEPT = 512


def user_channel(user: UUID | str) -> str:
    return f"user:{user}"


@dataclass
class Note:
    """What one source event tells: per user a sentence; ``public`` for a club's webhooks."""

    kind: str
    texts: dict[str, str]
    public: str
    game: str | None = None
    club: str | None = None
    url: str | None = None


@dataclass
class Derived:
    notes: list[Note] = field(default_factory=list)


class NotificationProcess(Application[UUID]):
    """Follows the main store (``arbiter``, :attr:`leader`) and records notices and deliveries.

    An eventsourcing ``Application`` whose recorder is the factory's process recorder (as the
    library's ``EventSourcedProjection`` has it): what an event derives is stored with the event's
    position in the leader's log (``Tracking``) through ``events.put(..., tracking=)``, in one
    transaction.  The log is read by the application's one reader of it,
    :class:`~service.application.store.LogFollower`; nothing of the library's pull machinery
    (``ProcessApplication``'s readers, policy or lock) is overridden or used."""

    name = "notifications"
    #: the events of the leader's log it reads
    topics: tuple[str, ...] = FOLLOWED
    #: events read from the log at a time
    pull_section_size = 200
    #: this process's persisted views (the notices'; ``bootstrap.open_process``), brought up to the
    #: notices just recorded before the users' pages are told of them
    views: Any = None

    def __init__(
        self,
        env: dict[str, str] | None = None,
        *,
        leader: ArbiterStore | None = None,
        names: Callable[[str], str] | None = None,
        broker: Broker | None = None,
        secret: str = "",
        public_url: str = "",
        replay: bool = False,
        games_kept: int = GAMES_KEPT,
    ) -> None:
        super().__init__(env)
        self.leader = leader
        self.names = names or (lambda uid: uid)
        self.broker = broker
        self.secret = secret
        self.public_url = public_url.rstrip("/")
        #: the way before issue 27, the benchmark's "before" and the tests' oracle: derive from the
        #: game loaded at each event's version (its snapshot and a replay), one transaction each
        self.replay = replay
        if replay:  # and following only the events notified about, each recorded on its own
            self.topics = TOPICS
        self._active: dict[str, tuple[int, set[str]]] = {}  # replay: game -> (version, active)
        #: the games derived from lately, each at the version of the last event derived from it
        self._games = KeptGames(self._leader_repository, games_kept)
        #: one pull at a time in this process (the worker's step; a test's own call)
        self._pulling = threading.Lock()

    def construct_recorder(self) -> ProcessRecorder:
        """eventsourcing's hook: the factory's process recorder, which records events together
        with a position in another application's log (``EventSourcedProjection``'s own)."""
        return self.factory.process_recorder()

    @property
    def position(self) -> int:
        """The position in the leader's log up to which every event has been processed."""
        assert self.recorder is not None and self.leader is not None
        recorder: Any = self.recorder
        return int(recorder.max_tracking_id(self.leader.name) or 0)

    # -- following the log --------------------------------------------------------------------------
    def catch_up(self, *, halt: Callable[[], bool] | None = None) -> int:
        """Process the leader's log from the recorded position to its head; how many events were
        processed.  ``halt`` is asked before each event: a worker told to stop returns after the
        event it is on instead of after the whole log (the next pull resumes from the position
        recorded with the last event processed).

        An event that tells nobody anything -- most moves -- records nothing itself: its position
        is recorded with the next event that does, or when the pull ends, one transaction for a
        run of them instead of one each.  Killed before, the process derives those events again,
        and again nothing.  A pull that fails records nothing more: its events are derived again.
        Another worker that recorded an event first makes this one's record an ``IntegrityError``
        (the tracking row is unique), raised to the caller."""
        if self.leader is None:
            return 0
        with self._pulling:
            follower = LogFollower(
                self.leader, self.topics, batch=self.pull_section_size, start=self.position
            )
            unrecorded: Tracking | None = None
            done = 0
            for note in follower.notes():
                if halt is not None and halt():
                    break
                tracking = Tracking(self.leader.name, note.id)
                recorded = self.process(self.leader.mapper.to_domain_event(note), tracking)
                unrecorded = None if recorded else tracking
                done += 1
            if unrecorded is not None:
                self.events.put([], tracking=unrecorded)
            return done

    def process(self, event: Any, tracking: Tracking) -> bool:
        """Derive ``event``'s notices and deliveries and record them with its position, in one
        transaction, then tell the users' open pages; whether anything was recorded (an event
        that tells nobody anything records nothing, except in ``replay``)."""
        published: list[tuple[str, dict[str, Any]]] = []
        derived = self.derive_events(event, published)
        if not derived and not self.replay:
            return False
        self.events.put(derived, tracking=tracking)
        if published and self.views is not None:
            self.views.run()  # a page told of a notice reads it at once
        if self.broker is not None:  # recorded: tell the users' open pages
            for channel, note in published:
                self.broker.publish(channel, dict(note, position=tracking.notification_id))
        return True

    def derive_events(
        self, domain_event: Any, published: list[tuple[str, dict[str, Any]]] | None = None
    ) -> list[Any]:
        """The notices' and deliveries' events ``domain_event`` makes (none for most moves);
        ``published``: each notice's user channel and what is said on it, appended."""
        if self.leader is None:
            return []
        try:
            derived = self.derive(domain_event)
        except AggregateNotFoundError:
            return []
        made: list[Any] = []
        source = f"{domain_event.originator_id}:{domain_event.originator_version}"
        deliver = datetime.now(UTC) - domain_event.timestamp <= STALE
        for note in derived.notes:
            for user, text in note.texts.items():
                nid = notice_id(source, user, note.kind)
                notice = Notice._create(
                    Notice.Created,
                    id=nid,
                    user=user,
                    kind=note.kind,
                    text=text,
                    game=note.game,
                    url=note.url,
                    source=source,
                )
                made.append(notice)
                made.extend(self._deliveries(nid, user, note, text) if deliver else ())
                if published is not None:
                    published.append((user_channel(user), {"notice": nid.hex}))
            for webhook in self._club_webhooks(note) if deliver else ():
                did = delivery_id(f"{source}:{note.kind}", "webhook", str(webhook.id))
                made.append(
                    self._delivery(did, "webhook", str(webhook.id), None, note, note.public, None)
                )
        return [event for aggregate in made for event in aggregate.collect_events()]

    # -- deliveries ---------------------------------------------------------------------------------
    def _deliveries(self, nid: UUID, user: str, note: Note, text: str) -> Iterable[Delivery]:
        assert self.leader is not None
        prefs = self._get(preferences_id(user))
        settings = prefs.settings if prefs is not None else default_preferences()
        wants_email = settings.get(note.kind, {}).get("email", True)
        account = self._get(UUID(user))
        email = getattr(account, "email", None)
        if email and wants_email:
            did = delivery_id(nid.hex, "email", email)
            yield self._delivery(did, "email", email, user, note, text, nid.hex)
        for hook in self._webhooks("user", user):
            if hook.wants(note.kind):
                did = delivery_id(nid.hex, "webhook", str(hook.id))
                yield self._delivery(did, "webhook", str(hook.id), user, note, text, nid.hex)
        if settings.get(note.kind, {}).get("push", True):  # to each device turned on
            for device in push_subscriptions_of(self.leader, user):
                did = delivery_id(nid.hex, "push", str(device.id))
                yield self._delivery(did, "push", str(device.id), user, note, text, nid.hex)

    def _delivery(
        self,
        did: UUID,
        channel: str,
        target: str,
        user: str | None,
        note: Note,
        text: str,
        notice: str | None,
    ) -> Delivery:
        subject = "Arbiter: " + (text if len(text) <= 90 else text[:89] + "…")
        return Delivery._create(
            Delivery.Created,
            id=did,
            channel=channel,
            target=target,
            user=user,
            kind=note.kind,
            text=text,
            subject=subject,
            game=note.game,
            url=f"{self.public_url}{note.url}" if note.url else None,
            notice=notice,
        )

    def _club_webhooks(self, note: Note) -> list[Webhook]:
        if not note.club:
            return []
        return [h for h in self._webhooks("club", note.club) if h.wants(note.kind)]

    def _webhooks(self, owner_kind: str, owner: str) -> list[Webhook]:
        assert self.leader is not None
        return [
            h
            for h in webhooks_of(self.leader, owner_kind, owner)
            if isinstance(h, Webhook) and not h.removed
        ]

    def _get(self, aggregate_id: UUID) -> Any:
        assert self.leader is not None
        try:
            return self.leader.repository.get(aggregate_id)
        except AggregateNotFoundError:
            return None

    # -- what each event tells ----------------------------------------------------------------------
    def derive(self, event: Any) -> Derived:
        assert self.leader is not None
        topic = get_topic(type(event))
        if topic == CHALLENGE:
            return self._challenge(event)
        if topic in CLUB_TOPICS:
            return self._club_event(topic[len(CLUB) :], event)
        if topic == CHAT:
            return self._chat(event)
        if topic in TOURNAMENT_TOPICS:
            return self._tournament(topic[len(TOURNAMENT) :], event)
        if topic not in NOTIFIED:  # a game event that tells nobody anything
            if not self.replay:
                self._follow(event)
            return Derived()
        name = topic[len(GAME) :]
        gid = str(event.originator_id)
        if self.replay:
            game: Any = self.leader.repository.get(
                event.originator_id, version=event.originator_version
            )
            before = None
        else:
            game, before = self._advance(event, name in TURN_EVENTS)
        title = f"“{game.labels.get('title', game.scenario)}”"
        url = f"/games/{gid}"
        club = self._club_of(game)
        players = {u for u in game.sides.values() if u}
        derived = Derived()

        told = NOTICES.get(name)
        if told is not None:
            seen = Seen(
                event=event,
                type=name,
                game=game,
                title=title,
                who=self.names(getattr(event, "user", "") or getattr(event, "by", "") or ""),
                players=players,
                others=players - {getattr(event, "user", None)},
                name=self.names,
                side_of=self._side_of,
                listed=self._list,
                result=self._result_words,
            )
            texts = {u: told.text(seen, u) for u in sorted(set(told.to(seen)))}
            if texts or club:
                derived.notes.append(Note(told.kind, texts, told.public(seen), gid, club, url))
        if name in TURN_EVENTS:
            self._turn(game, name, derived, title, url, club, before)
        return derived

    def _leader_repository(self) -> Any:
        assert self.leader is not None
        return self.leader.repository

    def _advance(self, event: Any, turn: bool) -> tuple[Any, set[str]]:
        """The event's game at the event's version, and who was to act before it (``turn``;
        else nobody), from the games kept (:class:`KeptGames`): never a replay per event,
        whatever the game's length."""
        before = set()
        if turn:
            game = self._games.before(event)
            before = self._active_users(game) if game is not None else set()
        return self._games.after(event), before

    def _follow(self, event: Any) -> None:
        """Apply an event that tells nobody anything to its game if the game is kept at the
        version before it (a game not kept is not loaded for it)."""
        self._games.follow(event)

    def _turn(
        self,
        game: Any,
        name: str,
        derived: Derived,
        title: str,
        url: str,
        club: str | None,
        before: set[str] | None,
    ) -> None:
        gid = str(game.id)
        after = self._active_users(game)
        if before is None:  # replay: who was to act is remembered, else loaded
            known = self._active.get(gid)
            if known is not None and known[0] == game.version - 1:
                before = known[1]
            elif game.version > 1:
                assert self.leader is not None
                previous: Any = self.leader.repository.get(game.id, version=game.version - 1)
                before = self._active_users(previous)
            else:
                before = set()
            self._active[gid] = (game.version, after)
        if name == "Created" and getattr(self._get(game.id), "invitation", None):
            return  # an invitation: nobody's turn until every player accepts
        fresh = after - before
        if not fresh:
            return
        texts = {
            u: f"Your turn in {title} ({', '.join(side_words(s) for s, b in game.sides.items() if b == u and s in game.active_sides())})."
            for u in sorted(fresh)
        }
        derived.notes.append(
            Note("turn", texts, f"Turn of {self._list(sorted(fresh))} in {title}.", gid, club, url)
        )

    def _active_users(self, game: Any) -> set[str]:
        if getattr(game, "status", "active") != "active":
            return set()
        try:
            sides = game.active_sides()
        except Exception:  # noqa: BLE001 - a game its rules cannot read tells nobody
            log.exception("active sides of game %s", game.id)
            return set()
        return {game.sides[s] for s in sides if game.sides.get(s)}

    def _challenge(self, event: Any) -> Derived:
        ladder = self._get(UUID(str(event.ladder_id)))
        name = f"“{getattr(ladder, 'name', 'the ladder')}”"
        club = str(getattr(ladder, "club_id", "") or "") or None
        who = self.names(event.challenger)
        text = f"{who} challenged you on the ladder {name}: accept or decline it."
        public = f"{who} challenged {self.names(event.opponent)} on the ladder {name}."
        url = f"/ladders/{event.ladder_id}"
        return Derived([Note("challenge", {event.opponent: text}, public, None, club, url)])

    def _chat(self, event: Any) -> Derived:
        """A chat message: the game's other players are told (in words, without the message:
        an arbiter may hide it later), except those who had muted that game's chat when it was
        written, who wrote in it within the last quarter of an hour, or who were told of an
        earlier message within it (``Conversation.tell``) -- read from the conversation at the
        message's version, so a replay of the log derives the same notices.  Never a club's
        webhooks: a game's chat is its players' own."""
        assert self.leader is not None
        try:
            chat: Any = self.leader.repository.get(
                event.originator_id, version=event.originator_version
            )
        except AggregateNotFoundError:
            return Derived()
        told = set(chat.tell)
        if not told:
            return Derived()
        title = f"“{chat.title}”"
        who = event.name
        role = " (arbiter)" if event.role == "arbiter" else ""
        text = f"{who}{role} wrote to you in the chat of {title}."
        url = f"/games/{chat.game}#chat"
        return Derived(
            [Note("chat", dict.fromkeys(sorted(told), text), text, chat.game, None, url)]
        )

    def _club_event(self, name: str, event: Any) -> Derived:
        """An invitation to a club (the invited user is told), its answer (the club's admins),
        a join request (the admins) and its answer (the one who asked)."""
        club: Any = self._get(event.originator_id)
        if club is None:
            return Derived()
        cid = str(event.originator_id)
        title = f"“{club.name}”"
        url = f"/clubs/{cid}"
        who = self.names(event.user)
        admins = sorted(u for u, roles in club.members.items() if "admin" in roles)
        if name == "MemberAdded":  # added by an admin at once, with no invitation
            roles = " and ".join(event.roles)
            text = f"{self.names(event.by)} added you to the club {title} as {roles}."
            texts, public = {event.user: text}, f"{who} joined {title}."
        elif name == "Invited":
            roles = " and ".join(event.roles)
            text = (
                f"{self.names(event.by)} invites you to join the club {title} as {roles}: "
                "accept or decline it on the club's page."
            )
            texts, public = {event.user: text}, f"{who} was invited to join {title}."
        elif name == "InvitationAnswered":
            verb = "accepted" if event.accept else "declined"
            public = f"{who} {verb} the invitation to join {title}."
            texts = {u: public for u in admins if u != event.user}
        elif name == "JoinRequested":
            public = f"{who} asks to join the club {title}."
            texts = {u: f"{public} Approve or refuse it on the club's page." for u in admins}
        else:  # JoinAnswered
            verb = "approved" if event.accept else "refused"
            text = f"{self.names(event.by)} {verb} your request to join the club {title}."
            texts, public = {event.user: text}, f"{who}'s request to join {title} was {verb}."
        return Derived([Note("club", texts, public, None, cid, url)])

    def _tournament(self, name: str, event: Any) -> Derived:
        """A club event's round released (each player told their game and side, or their bye),
        a round's deadline near (the players of its unfinished games), its end (every player)."""
        found: Any = self._get(event.originator_id)
        if found is None:
            return Derived()
        eid, title = str(event.originator_id), f"“{found.name}”"
        url, club = f"/events/{eid}", str(found.club_id)
        texts: dict[str, str] = {}
        if name == "RoundReleased":
            public = f"Round {event.number} of {title} is paired."
            for g in event.games:
                for me, them, side in (
                    (g["first"], g["second"], found.sides[0]),
                    (g["second"], g["first"], found.sides[1]),
                ):
                    texts[me] = (
                        f"Round {event.number} of {title}: you play {side_words(side)} against "
                        f"{self.names(them)}; the game has started. Deadline "
                        f"{event.deadline[:10]}."
                    )
            if event.bye:
                texts[event.bye] = f"Round {event.number} of {title}: you have the bye."
        elif name == "DeadlineNear":
            rnd = found.released[event.round - 1]
            public = f"The deadline of round {event.round} of {title} is near."
            for g in rnd["games"]:
                if g["result"] is None:
                    for uid in (g["first"], g["second"]):
                        texts[uid] = (
                            f"Round {event.round} of {title} ends {rnd['deadline'][:16]} UTC: "
                            "an unfinished game then goes to the club's arbiter."
                        )
        else:  # Finished
            rows = found.standings()
            top = self.names(rows[0]["player"]) if rows else ""
            public = f"{title} has ended: {top} wins." if top else f"{title} has ended."
            texts = {uid: public for uid in found.players}
        return Derived([Note("event", texts, public, None, club, url)])

    def _club_of(self, game: Any) -> str | None:
        club = getattr(game, "club", None) or game.labels.get("club")
        if club:
            return str(club)
        ladder = game.labels.get("ladder")
        if ladder:
            try:
                found = self._get(UUID(str(ladder)))
            except ValueError:
                return None
            return str(getattr(found, "club_id", "") or "") or None
        return None

    def _side_of(self, game: Any, user: str) -> str:
        sides = [side_words(s) for s, u in game.sides.items() if u == user]
        return ", ".join(sides) or "a player"

    def _list(self, users: Iterable[str]) -> str:
        return ", ".join(self.names(u) for u in users) or "nobody"

    def _result_words(self, game: Any, result: dict[str, Any]) -> str:
        winner = result.get("winner")
        if result.get("outcome") == "draw" or not winner:
            words = "a draw"
        else:
            player = game.sides.get(winner)
            words = f"{side_words(winner)} won" + (f" ({self.names(player)})" if player else "")
        reason = result.get("reason") or result.get("level")
        return f"{words}, {str(reason).replace('_', ' ')}" if reason else words


def push_subscriptions_of(store: ArbiterStore, user: str) -> list[PushSubscription]:
    """The user's push subscriptions still on, oldest first (their index lists their ids)."""
    try:
        index: Any = store.repository.get(push_index_id(user))
    except AggregateNotFoundError:
        return []
    found: list[PushSubscription] = []
    for sid in index.subscriptions:
        try:
            device: Any = store.repository.get(UUID(sid))
        except AggregateNotFoundError:
            continue
        if isinstance(device, PushSubscription) and not device.removed:
            found.append(device)
    return found


NOTICE_TOPICS = (
    get_topic(Notice.Created),
    get_topic(Delivery.Created),
    get_topic(Delivery.Claimed),
    get_topic(Delivery.Attempted),
    get_topic(Delivery.Sent),
)


#: the public names; the service behind ``/api/me/...`` (:mod:`notification_service`) is imported
#: from here too
__all__ = [
    "FOLLOWED",
    "GAME_EVENTS",
    "NOTICE_TOPICS",
    "TOPICS",
    "TURN_EVENTS",
    "Derived",
    "Note",
    "NotificationProcess",
    "NotificationService",
    "push_subscriptions_of",
    "unsubscribe_token",
    "user_channel",
    "webhooks_of",
]
