"""The eventsourcing Application that stores every aggregate of Arbiter, and its one way to save.

Every application service saves through :meth:`ArbiterStore.commit`: the aggregates' new events
are appended atomically (a lost race -- the store's uniqueness constraint -- becomes the caller's
409 and nothing is written), then what changed is published on the broker."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from copy import deepcopy
from dataclasses import dataclass
from typing import Any, TypeVar
from uuid import UUID

from eventsourcing.application import (
    AggregateNotFoundError,
    Application,
    LRUCache,
    Repository,
    project_aggregate,
)
from eventsourcing.domain import OriginatorVersionError
from eventsourcing.persistence import IntegrityError
from eventsourcing.utils import strtobool

from service.application import payloads
from service.application.ports import Broker
from service.domain.campaigns import Campaign
from service.domain.chain import GENESIS
from service.domain.conversations import Conversation
from service.domain.errors import DomainError, LogBehindHead, NotFound, StaleVersion
from service.domain.game import Game, Projector, chain_break, projector
from service.domain.systems import GamePorts

log = logging.getLogger(__name__)
T = TypeVar("T")
A = TypeVar("A")


def game_channel(game_id: UUID | str) -> str:
    return f"game:{game_id}"


def campaign_channel(campaign_id: str) -> str:
    return f"campaign:{campaign_id}"


def _game_news(game: Game, first: int) -> tuple[str, dict[str, Any]]:
    message = {
        "game": str(game.id),
        "version": game.version,
        "from": first,
        "to": game.version,
        "status": game.status,
    }
    return game_channel(game.id), message


def _campaign_news(campaign: Campaign, first: int) -> tuple[str, dict[str, Any]]:
    return campaign_channel(str(campaign.id)), {
        "campaign": str(campaign.id),
        "version": campaign.version,
    }


#: what is published when an aggregate of this type changes (the others publish nothing)
NEWS: dict[type, Callable[[Any, int], tuple[str, dict[str, Any]]]] = {
    Game: _game_news,
    Campaign: _campaign_news,
}


class KeyedLocks:
    """A lock per key, there only while someone holds or waits for it (so the map does not grow
    with every game ever read)."""

    def __init__(self) -> None:
        self._guard = threading.Lock()
        self._locks: dict[Any, list[Any]] = {}  # key -> [its lock, how many hold or wait]

    @contextmanager
    def hold(self, key: Any) -> Iterator[None]:
        with self._guard:
            entry = self._locks.setdefault(key, [threading.Lock(), 0])
            entry[1] += 1
        try:
            with entry[0]:
                yield
        finally:
            with self._guard:
                entry[1] -= 1
                if not entry[1]:
                    del self._locks[key]


class GameRepository(Repository):
    """A repository whose default projector is the games' (:func:`service.domain.game.projector`),
    with its own cache of the latest aggregates (:attr:`kept`, an eventsourcing ``LRUCache``).

    A kept aggregate is found, fast-forwarded, rebuilt and copied only under its key's lock
    (:attr:`locks`, the one :meth:`ArbiterStore.cached` takes a game out under).  eventsourcing's
    own cache (9.5) is left off: it looks the cache up before taking its lock and copies after
    releasing it, so a reader could find a game, a command take that same object out of the cache
    to decide on it, and the reader then fast-forward it in place while the command decided -- a
    command decided on version v stored after v + 1, both answered 201 (a lost update).  Only the
    library's public API is used: ``Repository.get`` (snapshot and events) on a miss, the event
    store's ``get`` to fast-forward."""

    def __init__(
        self,
        *args: Any,
        project: Projector,
        cache_maxsize: int | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(*args, cache_maxsize=None, **kwargs)
        self.project = project
        self.kept: LRUCache[Any, Any] | None = LRUCache(cache_maxsize) if cache_maxsize else None
        self.locks = KeyedLocks()

    def get(
        self,
        aggregate_id: Any,
        *,
        version: int | None = None,
        projector_func: Any = project_aggregate,
        fastforward_skipping: bool = False,
        deepcopy_from_cache: bool = True,
    ) -> Any:
        if projector_func is project_aggregate:
            projector_func = self.project
        if self.kept is None or version is not None:
            return super().get(aggregate_id, version=version, projector_func=projector_func)
        with self.locks.hold(aggregate_id):
            aggregate = self._latest(aggregate_id, projector_func)
            if deepcopy_from_cache and self.deepcopy_from_cache:
                return deepcopy(aggregate)
            return aggregate

    def peek(self, aggregate_id: Any, read: Callable[[Any], T]) -> T:
        """``read(aggregate)`` of the latest aggregate, under its lock and without the copy a
        :meth:`get` makes (a list of games reads a few fields of each: the copy of a large game's
        state was most of its cost).  ``read`` must not change the aggregate nor keep it."""
        if self.kept is None:
            return read(self.get(aggregate_id))
        with self.locks.hold(aggregate_id):
            return read(self._latest(aggregate_id, self.project))

    def _latest(self, aggregate_id: Any, projector_func: Any) -> Any:
        """The kept aggregate brought up to the store's last event, else rebuilt from the store
        and kept (call under the aggregate's lock).  A kept aggregate the store's events do not
        continue is dropped and rebuilt: a read answers what the store holds."""
        assert self.kept is not None
        try:
            cached = self.kept.get(aggregate_id)
        except KeyError:
            cached = None
        if cached is not None and not self.fastforward:
            return cached
        if cached is not None:
            new_events = self.event_store.get(originator_id=aggregate_id, gt=cached.version)
            try:
                aggregate = projector_func(cached, new_events)
            except OriginatorVersionError:
                log.warning("cached aggregate %s disagreed with the store; rebuilt", aggregate_id)
            else:
                if aggregate is None:
                    raise AggregateNotFoundError(aggregate_id)
                return aggregate
        aggregate = super().get(aggregate_id, projector_func=projector_func)
        self.kept.put(aggregate_id, aggregate)
        return aggregate


@dataclass(frozen=True)
class Rebuilt:
    """A game rebuilt here from events made elsewhere (an imported record's, checked and replayed
    with this server's rules: ``service.application.records``), to commit with
    :meth:`ArbiterStore.commit_at` like any aggregate: ``events`` are stored as they are, and
    ``aggregate`` holds them applied (none of them pending)."""

    aggregate: Any
    events: list[Any]


class ArbiterStore(Application):
    """One application, one event store: games, their dice seeds, users, clubs, ladders ...

    ``ports``: what games need of the rules and the seal; ``broker``: where changes are announced."""

    name = "arbiter"
    #: a game is snapshotted each time its version passes a multiple of this (0: never)
    snapshot_interval = 0
    #: where each game's signed head is anchored after a commit (``service.adapters.heads``)
    heads: Any = None
    #: called after each commit with the new events and the last one's notification id: the
    #: persisted views the events change catch up to it before the writing request answers
    #: (read-your-writes, ``projections.catalog.Projections.seen``)
    on_commit: Callable[[list[Any], int], None] | None = None

    def __init__(
        self,
        env: dict[str, str] | None = None,
        *,
        ports: GamePorts,
        broker: Broker | None = None,
        snapshot_interval: int | None = None,
    ) -> None:
        self.ports = ports
        self.broker = broker
        if snapshot_interval is not None:
            self.snapshot_interval = snapshot_interval
        super().__init__(env=env)

    def construct_repository(self) -> Repository:
        size = self.env.get(self.AGGREGATE_CACHE_MAXSIZE)
        return GameRepository(
            event_store=self.events,
            snapshot_store=self.snapshots,
            cache_maxsize=int(size) if size else None,
            fastforward=strtobool(self.env.get(self.AGGREGATE_CACHE_FASTFORWARD, "y")),
            fastforward_skipping=strtobool(
                self.env.get(self.AGGREGATE_CACHE_FASTFORWARD_SKIPPING, "n")
            ),
            deepcopy_from_cache=strtobool(self.env.get(self.DEEPCOPY_FROM_AGGREGATE_CACHE, "y")),
            project=projector(self.ports),
        )

    def get_as(
        self, aggregate_id: Any, kind: type[A], field: str, what: str, copy: bool = False
    ) -> A:
        """The aggregate ``aggregate_id`` if it is a ``kind``, else NotFound naming ``field`` (an
        id that is not a UUID, or another kind's, is as unknown as one never made)."""
        try:
            found: Any = self.repository.get(UUID(str(aggregate_id)), deepcopy_from_cache=copy)
        except (AggregateNotFoundError, ValueError):
            found = None
        if not isinstance(found, kind):
            raise NotFound(f"no {what} {aggregate_id}", {field: [f"unknown {what}"]})
        return found

    def commit(
        self,
        *aggregates: Any,
        conflict: DomainError | None = None,
        decided_at: int | None = None,
        handed_over: bool = False,
    ) -> list[Any]:
        """:meth:`commit_at`, returning the new events."""
        return self.commit_at(
            *aggregates, conflict=conflict, decided_at=decided_at, handed_over=handed_over
        )[0]

    def commit_at(
        self,
        *aggregates: Any,
        conflict: DomainError | None = None,
        decided_at: int | None = None,
        handed_over: bool = False,
    ) -> tuple[list[Any], int]:
        """Save ``aggregates`` atomically, then publish what changed; returns the new events.

        A lost race is ``conflict`` (default: a :class:`StaleVersion`), and nothing is written.
        ``decided_at``: the version the (one) aggregate's change was decided on, when the caller
        knows it (a game command's ``expected_version``).

        Whatever the cache did, changes are stored only where they were decided: each aggregate's
        new events must follow on from the version it was decided on, a game's events must each be
        hashed for the version they carry and chain from the game's anchored head; anything else
        is a lost race, refused (never renumbered).  The store's unique version refuses the rest.

        ``handed_over``: the caller reads nothing of a game it commits once this returns (a
        command's request, which took what it answers before the commit): the game is kept in
        the cache as it is, not copied (a copy of a large game's state cost a quarter of a
        millisecond per command).

        Returns the new events and the last one's notification id (0 if there were none): a
        request that must read its own write waits for a view to pass it."""
        lost = conflict or StaleVersion(
            "it changed meanwhile; reload and try again", {"version": ["changed meanwhile"]}
        )
        # each aggregate with its new events (its pending ones, or a rebuilt game's as given)
        items: list[tuple[Any, list[Any]]] = [
            (a.aggregate, list(a.events)) if isinstance(a, Rebuilt) else (a, list(a.pending_events))
            for a in aggregates
        ]
        self._check(items, decided_at, lost)
        news = [(a, a.version - len(new) + 1) for a, new in items]
        pending = [e for _, new in items for e in new]
        # what eventsourcing's ``save`` does here, by its public parts: the aggregates' pending
        # events collected (cleared), then put in the event store in one transaction.  Its
        # ``collect_events`` tells aggregates from events by runtime-``Protocol`` checks (12 µs a
        # command); nothing else of it applies (its snapshots and cache are off: ``_snapshot``,
        # ``GameRepository``)
        for a in aggregates:
            if not isinstance(a, Rebuilt):
                a.collect_events()
        self._announce(items)
        try:
            recordings = self.events.put(pending)
        except IntegrityError as refused:
            # a lost race, or a write past the stored stream's end (a database put back under a
            # cache that is ahead: the store's own check, see ``service.adapters``' recorders).
            # Either way no cached copy is trusted again: the next read rebuilds from the store
            if "does not follow" in str(refused):  # the recorders' words: not a routine race
                log.warning(
                    "the store refused a commit of %s: %s", _ids([a for a, _ in items]), refused
                )
            for aggregate, _ in items:
                self._drop(aggregate.id)
            raise lost from None
        position = max((r.notification.id for r in recordings), default=0)
        self._snapshot(news)
        self._committed(news, pending, copy=not handed_over)
        if self.on_commit is not None and pending:
            self.on_commit(pending, position)
        return pending, position

    def _check(
        self, items: list[tuple[Any, list[Any]]], decided_at: int | None, lost: DomainError
    ) -> None:
        """Refuse the commit unless each aggregate's new events are what their types declare
        (``payloads``: :class:`~service.application.payloads.EventRefused`) and continue the
        version they were decided on (``lost`` otherwise)."""
        for aggregate, new in items:
            payloads.check(new, self._declared_kinds(aggregate))
        for aggregate, new in items:
            problem = self._not_continuing(aggregate, new, decided_at)
            if problem is not None:
                log.warning("refused a commit of %s: %s", aggregate.id, problem)
                raise lost

    def _committed(self, news: list[tuple[Any, int]], pending: list[Any], *, copy: bool) -> None:
        """After a commit: each game's head anchored (a conversation's too), what changed
        announced on the broker, and each game kept for the next command -- last: a game kept as
        it is (not ``copy``) may be taken by another request at once."""
        for aggregate, first in news:
            if isinstance(aggregate, Game):
                self._anchor(aggregate, pending)
            elif isinstance(aggregate, Conversation) and self.heads is not None:
                # a conversation's head is anchored as a game's: a cut tail shows in the audit
                self.heads.anchor(str(aggregate.id), aggregate.version, aggregate.last_hash)
            announce = NEWS.get(type(aggregate))
            if announce is not None and self.broker is not None:
                self.broker.publish(*announce(aggregate, first))
        for aggregate, _ in news:
            if isinstance(aggregate, Game):
                self._keep(aggregate, copy=copy)

    def _declared_kinds(self, aggregate: Any) -> Callable[[Any], Any]:
        """For ``aggregate``'s events: the rules event types its rules system declares, for a
        ``Game.Recorded`` event (None for any other event, or a system this server does not run:
        then nothing is recorded of it)."""

        def declared(event: Any) -> Any:
            if not isinstance(event, Game.Recorded) or not isinstance(aggregate, Game):
                return None
            try:
                rules = self.ports.rules(aggregate.system)
            except Exception:  # noqa: BLE001 - no such system here: nothing to check against
                return None
            return getattr(rules, "events", None)

        return declared

    def _announce(self, items: list[tuple[Any, list[Any]]]) -> None:
        """Anchor a new game's (or conversation's) head at version 0 before its first events
        are stored.  The head is anchored after the store's commit, so a process stopped between
        the two leaves a log ahead of its head -- which the audit accepts as not yet anchored --
        and, without this, a new game's log with no head at all, which the audit must report as
        cut (a head deleted).  A head at 0 says "created, nothing anchored yet"; one whose game
        was never stored (stopped before the commit) is no orphan: nothing was acknowledged."""
        if self.heads is None:
            return
        for aggregate, new in items:
            if (
                new
                and new[0].originator_version == 1
                and isinstance(aggregate, (Game, Conversation))
            ):
                self.heads.anchor(str(aggregate.id), 0, GENESIS)

    def _anchor(self, game: Game, pending: list[Any]) -> None:
        """Anchor the game's head after a commit: forward only, except where the commit holds the
        operator's reconciliation of a log restored below its head (it resets the head)."""
        if self.heads is None:
            return
        if any(isinstance(e, Game.HeadReconciled) for e in pending):
            self.heads.reset(str(game.id), game.version, game.last_hash)
        else:
            self.heads.anchor(str(game.id), game.version, game.last_hash)

    def _not_continuing(
        self, aggregate: Any, pending: list[Any], decided_at: int | None
    ) -> str | None:
        """Why ``aggregate``'s new events (``pending``) do not continue the version (and, for a
        game, the hash) they were decided on, or None."""
        if not pending:
            return None
        first = pending[0].originator_version
        if [e.originator_version for e in pending] != list(range(first, first + len(pending))):
            return "its new events are not numbered one after another"
        if pending[-1].originator_version != aggregate.version:
            return "its new events do not end at its version"
        if decided_at is not None and first != decided_at + 1:
            return f"decided on version {decided_at}, its first new event is {first}"
        if not isinstance(aggregate, (Game, Conversation)):
            return None
        broken = chain_break(pending)
        if broken is not None or isinstance(aggregate, Conversation):
            return broken
        head = (self.heads.get(str(aggregate.id)) if self.heads is not None else None) or {}
        if head and int(head["version"]) >= first and not _reconciles(pending[0], head):
            if not self.recorder.select_events(aggregate.id, gt=first - 1, limit=1):
                log.error(
                    "game %s: the log ends at %s but its anchored head is %s (restored or rolled "
                    "back?): refused until `arbiter audit reconcile`",
                    aggregate.id,
                    first - 1,
                    head["version"],
                )
                raise LogBehindHead(
                    f"this game's log ends at {first - 1} but its anchored head is "
                    f"{head['version']}: the store was restored or rolled back, and nothing is "
                    "written to the game until an operator reconciles it",
                    {"game": ["its log is behind its anchored head"]},
                )
            return f"the anchored head is already at {head['version']}"
        if head.get("version") == first - 1 and head.get("hash") != pending[0].prev_hash:
            return f"event {first} does not chain from the anchored head {first - 1}"
        return None

    def peek(self, aggregate_id: Any, read: Callable[[Any], T]) -> T:
        """``read`` of the latest aggregate, not copied (:meth:`GameRepository.peek`)."""
        repository = self.repository
        assert isinstance(repository, GameRepository)
        return repository.peek(aggregate_id, read)

    # -- the cache a command starts from -------------------------------------------------------------
    def _keep(self, game: Game, *, copy: bool = True) -> None:
        """Put a copy of a game just saved in the repository's cache, unless the cache already
        holds a later version.  eventsourcing leaves the cache at the version it last read, so
        without this the next command on the game reads back the events it has just written."""
        with self._cache_lock(game.id) as cache:
            cached = self._in_cache(cache, game.id)
            if cache is not None and (cached is None or cached.version < game.version):
                cache.put(game.id, deepcopy(game) if copy else game)

    def _drop(self, aggregate_id: UUID) -> None:
        """Forget the repository's cached copy of an aggregate (if it holds one)."""
        with self._cache_lock(aggregate_id) as cache:
            self._in_cache(cache, aggregate_id, evict=True)

    def put_back(self, game: Game, version: int) -> None:
        """Return a game :meth:`cached` gave out whose command was refused before it changed
        anything (still at ``version``, nothing pending), so the next command does not rebuild it
        from the store; a game that has changed is dropped."""
        if game.version == version and not game.pending_events:
            self._keep(game, copy=False)

    def cached(self, aggregate_id: UUID, version: int) -> Any | None:
        """The cached aggregate, taken out of the cache, if the cache holds exactly ``version``,
        without reading the store; else None (read it with the repository, which fast-forwards).

        A command decided on ``version`` needs nothing newer: if another worker has appended
        meanwhile, its own append at ``version + 1`` is refused by the store's unique version,
        the same 409 as a stale ``expected_version``.  So a command skips the fast-forward read
        (one PostgreSQL round trip, ``make bench`` throughput) and stays as safe.

        Taken rather than copied: the command mutates it, and :meth:`commit` puts a copy of the
        saved game back (:meth:`_keep`); a command refused before it changed anything puts it
        back as it is (:meth:`put_back`).  A reader meanwhile misses the cache and reads the store."""
        with self._cache_lock(aggregate_id) as cache:
            cached = self._in_cache(cache, aggregate_id)
            if cached is None or cached.version != version:
                return None
            return self._in_cache(cache, aggregate_id, evict=True)

    @staticmethod
    def _in_cache(cache: Any, aggregate_id: UUID, *, evict: bool = False) -> Any | None:
        if cache is None:
            return None
        try:
            return cache.get(aggregate_id, evict=evict)
        except KeyError:
            return None

    @contextmanager
    def _cache_lock(self, aggregate_id: UUID) -> Iterator[Any]:
        """The repository's cache (None without one), held under the aggregate's lock: a kept
        aggregate is mutated in place only under it (:class:`GameRepository`)."""
        repository = self.repository
        assert isinstance(repository, GameRepository)
        if repository.kept is None:
            yield None
            return
        with repository.locks.hold(aggregate_id):
            yield repository.kept

    def _snapshot(self, saved: list[tuple[Any, int]]) -> None:
        """Snapshot each game just saved whose new events crossed a multiple of the interval, at
        its new version, from the aggregate in hand (not rebuilt from the store, as eventsourcing's
        own snapshotting would: a read of up to an interval's events and their replay, on the
        command's path).  A replay from the snapshot equals the live game (the fuzzer's snapshot
        replica checks it after every command)."""
        interval = self.snapshot_interval
        if not interval or self.snapshots is None:
            return
        for aggregate, first in saved:
            if isinstance(aggregate, Game) and first + (-first % interval) <= aggregate.version:
                self.snapshots.put([type(aggregate).Snapshot.take(aggregate)])


def _ids(aggregates: Sequence[Any]) -> str:
    return ", ".join(str(a.id) for a in aggregates)


def _reconciles(event: Any, head: Mapping[str, Any]) -> bool:
    """Whether ``event`` is the operator's reconciliation of exactly this anchored ``head``."""
    if not isinstance(event, Game.HeadReconciled):
        return False
    lost = event.lost_head
    return bool(lost.get("version") == head["version"] and lost.get("hash") == head["hash"])


class LogFollower:
    """Reads the shared notification log's ``topics`` on from where it stopped last: the one reader
    of the log in ``application`` (the notification process follows the log with one from its
    recorded position, ``arbiter audit verify --all`` reads every game's creation with one, once;
    the persisted views' runner, ``service.views.runner``, reads it the same way).

    Its position advances past the events that do not match as well: each call reads the log's
    head first and selects only up to it, and when the last batch ends short the position is that
    head.  So a follower of rare topics reads each notification at most once, not everything
    since its last matching event on every call.  (Ids up to the head read first are all
    committed: appends take the events table's lock, or SQLite's one writer, in id order.)"""

    def __init__(
        self, store: ArbiterStore, topics: Sequence[str], batch: int = 500, start: int = 0
    ) -> None:
        self.store = store
        self.topics = list(topics)
        self.batch = batch
        #: the position read up to: events after it are new (``start``: a follower's recorded one)
        self.position = start

    def new_events(self) -> Iterator[Any]:
        for note in self.notes():
            yield self.store.mapper.to_domain_event(note)

    def notes(self) -> Iterator[Any]:
        """The new notifications as stored (not decoded), a batch at a time."""
        head = self.store.recorder.max_notification_id() or 0
        while self.position < head:
            notes = self.store.recorder.select_notifications(
                start=self.position,
                limit=self.batch,
                stop=head,
                topics=self.topics,
                inclusive_of_start=False,
            )
            for note in notes:
                yield note
                self.position = note.id
            if len(notes) < self.batch:
                self.position = head
                return
