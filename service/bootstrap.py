"""The composition root's wiring: config -> store, rules registry, broker, services.

Used by ``create_app`` (HTTP) and by the CLI, so both see the same services."""

from __future__ import annotations

import os
import sys
from dataclasses import replace
from datetime import timedelta
from typing import Any

from service.adapters.addresses import resolve
from service.adapters.broker import InProcessBroker, RedisBroker
from service.adapters.heads import PostgresHeads, SqliteHeads
from service.adapters.leaderboard import RedisLeaderboard
from service.adapters.mail_outbox import MailOutbox
from service.adapters.push import PushSigner, contact_of
from service.adapters.redis_throttle import RedisThrottle
from service.adapters.smtp import Mailer
from service.adapters.webhooks import WebhookPoster
from service.application.access import GameAccess
from service.application.audit import AuditService
from service.application.availability import FACTORY as FAIL_FAST_FACTORY
from service.application.campaigns import CampaignService
from service.application.chat import ChatService
from service.application.clubs import ClubService
from service.application.dispute_agreement import DisputeAgreements
from service.application.disputes import DisputeService
from service.application.game_index import GameIndex
from service.application.games import GameService
from service.application.knowledge import KnowledgeService
from service.application.ladders import LadderService
from service.application.lifecycle import LifecycleService
from service.application.notifications import (
    NotificationProcess,
    NotificationService,
)
from service.application.password_resets import PER_ACCOUNT as RESET_PER_ACCOUNT
from service.application.password_resets import PER_ADDRESS as RESET_PER_ADDRESS
from service.application.password_resets import WINDOW as RESET_WINDOW
from service.application.password_resets import PasswordResets
from service.application.ports import Broker
from service.application.push import PushService
from service.application.quotas import QuotaService
from service.application.records import RecordService
from service.application.restoring import require_restored
from service.application.reviews import ReviewService
from service.application.scenario_images import ScenarioImages
from service.application.scenarios import ScenarioLibrary
from service.application.schema import migration_lock, require_tables, table_names
from service.application.seeks import SeekService
from service.application.services import Services
from service.application.standings import LadderFeed
from service.application.store import ArbiterStore
from service.application.throttle import SignInThrottle
from service.application.tournaments import TournamentService
from service.application.users import SIGNUP_WINDOW, UserService
from service.application.what_if import WhatIfService
from service.application.worker import DeliverySettings, Dispatcher, NotificationWorker
from service.config import Config
from service.domain import chain
from service.domain.draft_limits import DraftLimits
from service.domain.systems import GamePorts
from service.rules.base import RulesEvent
from service.rules.registry import Registry, build_registry
from service.views.catalog import NOTICE_VIEWS, Projections


def build_registry_for(config: Config) -> Registry:
    if config.plugins and os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())  # plug-ins named relative to the working directory
    return build_registry(config.plugins)


def build_ports(config: Config, registry: Registry | None = None) -> GamePorts:
    """What games need from outside the domain: the registry's rules and the server's seal."""
    registry = registry if registry is not None else build_registry_for(config)
    return GamePorts.of(registry.get, RulesEvent, chain.seal_key_from_secret(config.secret_key))


def build_throttle(config: Config, scope: str, *args: Any, **kwargs: Any) -> SignInThrottle | None:
    """A throttle counted in Redis for the whole site when ``REDIS_URL`` is set (every host and
    worker shares its counts), else None: the service's own, in its process's memory."""
    if not config.redis_url:
        return None
    return RedisThrottle(config.redis_url, scope, *args, **kwargs)


def build_broker(config: Config) -> Broker:
    return RedisBroker(config.redis_url) if config.redis_url else InProcessBroker()


def migrate(config: Config) -> list[str]:
    """``arbiter db migrate``: create the store's tables (events and snapshots) if they are
    missing, and return their names.  Idempotent, and concurrent runs take turns."""
    config = replace(config, snapshot_interval=config.snapshot_interval or 1)  # both tables
    with migration_lock(config):
        store = open_store(config, build_ports(config), create_tables=True)
        try:
            tables = table_names(store) + Projections(store, create_tables=True).tables()
        finally:
            store.close()
        process = open_process(config, create_tables=True)  # the notification worker's tables
        try:
            names = [process.recorder.events_table_name, *process.views.tables()]  # type: ignore[attr-defined]
            if config.store == "sqlite":  # its own file: eventsourcing's SQLite names are fixed
                file = config.sqlite_file.with_name("notifications.sqlite").name
                names = [f"{file}:{name}" for name in names]
            return list(dict.fromkeys([*tables, *names]))  # PostgreSQL: one parked_events
        finally:
            process.close()


def build_services(
    config: Config, *, snapshots: bool | None = None, restoring: bool = False
) -> Services:
    """Every service over the configured store.  A store a restore did not finish is refused
    (:class:`RestoreIncomplete`), except by the restore itself (``restoring``)."""
    registry = build_registry_for(config)
    seal_key = chain.seal_key_from_secret(config.secret_key)
    broker = build_broker(config)
    store = open_store(config, build_ports(config, registry), broker, snapshots=snapshots)
    try:
        # PostgreSQL tables come from `arbiter db migrate` only
        require_tables(store, config, views=Projections.TABLES)
        projections = Projections(store, create_tables=config.store == "sqlite")
        if not restoring:
            require_restored(store, config)  # never serve a half-restored store
    except Exception:
        store.close()
        raise
    store.heads = (  # anchored apart from the rows
        PostgresHeads(config.heads_url, seal_key)
        if config.heads_url
        else SqliteHeads(config.heads_file, seal_key)
    )
    outbox = (
        MailOutbox(Mailer(config.smtp_url, sender=config.smtp_from)) if config.smtp_url else None
    )
    users = UserService(
        store,
        throttle=build_throttle(config, "sign-in"),
        signups=build_throttle(
            config, "sign-up", per_address=config.signups_per_hour, window=SIGNUP_WINDOW
        ),
        token_lifetime=timedelta(days=config.token_days),
        auth_cache_seconds=config.auth_cache_seconds,
        tokens_per_user=config.tokens_per_user,
        outbox=outbox,
        public_url=config.public_url,
        tokens=projections["tokens"],
        signups_per_hour=config.signups_per_hour,
    )
    games = GameService(store, registry, users, broker)
    quotas = QuotaService(store, config.quotas())
    clubs = ClubService(store, users, projections["clubs"], quotas)
    board = RedisLeaderboard(config.redis_url) if config.redis_url else None
    feed = LadderFeed(store, projections, users, broker, board)
    knowledge = KnowledgeService(store, games, config.index_dir, projections["rulings"])
    disputes = DisputeService(
        store,
        games,
        knowledge=lambda: knowledge.kb,
        clubs=lambda: clubs,
        on_club_ruling=knowledge.publish_ruling,
        runner=projections["disputes"],
    )
    what_ifs = WhatIfService(disputes, games)
    disputes.what_ifs = what_ifs
    agreements = DisputeAgreements(disputes, clubs)
    audit = AuditService(store, games, seal_key, store.heads)
    index = GameIndex(projections["games"], clubs.clubs_of)
    store.on_commit = projections.seen  # read-your-writes
    limits = DraftLimits(config.draft_max_units, config.draft_max_hexes, config.draft_max_bytes)
    scenarios = ScenarioLibrary(store, registry, clubs, limits, projections["scenarios"], quotas)
    ladders = LadderService(store, users, clubs, games, feed, scenarios=scenarios)
    lifecycle = LifecycleService(
        store,
        games,
        users,
        clubs,
        ladders,
        index,
        projections["clocks"],
        quotas=config.quotas(),
    )
    process = open_process(config, store, names=users.username, broker=broker)
    notifications = NotificationService(
        store,
        process,
        clubs=clubs,
        secret=config.secret_key,
        allow_private=config.webhook_allow_private,
        resolve=resolve,
        webhooks_per={"user": config.webhooks_per_user, "club": config.webhooks_per_club},
    )
    svc = Services(
        config=config,
        store=store,
        registry=registry,
        broker=broker,
        users=users,
        games=games,
        index=index,
        clubs=clubs,
        ladders=ladders,
        campaigns=CampaignService(
            store, users, clubs, games, feed, broker, projections["campaigns"]
        ),
        knowledge=knowledge,
        disputes=disputes,
        what_ifs=what_ifs,
        agreements=agreements,
        audit=audit,
        scenarios=scenarios,
        lifecycle=lifecycle,
        seeks=SeekService(store, lifecycle, projections["seeks"], scenarios),
        access=GameAccess(games, clubs),
        projections=projections,
        reviews=ReviewService(games, projections["reviews"].view),  # type: ignore[arg-type]
        notifications=notifications,
    )
    svc.chat = ChatService(
        store,
        games,
        users,
        clubs,
        svc.access,
        projections["chat"],
        projections["notes"],
        broker,
    )
    svc.outbox = outbox
    svc.push = PushService(
        store,
        public_key=PushSigner(config.push_key(), "").public_key,
        allow_private=config.webhook_allow_private,
        resolve=resolve,
        per_user=config.push_per_user,
    )
    svc.records = RecordService(store, games, audit)
    svc.tournaments = TournamentService(
        store, users, clubs, games, lifecycle, feed, projections["tournaments"], ladders=ladders
    )
    svc.scenario_images = ScenarioImages(store, scenarios, decodes=config.image_decodes)
    svc.password_resets = PasswordResets(
        users,
        secret=config.secret_key,
        outbox=svc.outbox,
        public_url=config.public_url,
        lifetime=timedelta(minutes=config.reset_minutes),
        emails=projections["emails"],
        throttle=build_throttle(
            config, "password-reset", RESET_PER_ACCOUNT, RESET_PER_ADDRESS, RESET_WINDOW
        ),
    )
    if config.embedded_worker:  # `arbiter serve` / `make run`: one process does it all
        svc.worker = build_worker(svc, process=process)
        svc.worker.start()
    return svc


def build_worker(svc: Services, process: NotificationProcess | None = None) -> NotificationWorker:
    """The notification worker over ``svc``'s store (``arbiter worker``, or embedded): it also
    records clocks that ran out or run low (the lifecycle service's ``check_clocks``, when there
    is one) and the results of ladder and campaign games that ended (``ladders.record_results``:
    requests only read them)."""
    lifecycle = getattr(svc, "lifecycle", None)
    clocks = (
        getattr(lifecycle, "check_clocks", None)
        or getattr(lifecycle, "expire_clocks", None)
        or getattr(svc.games, "expire_clocks", None)
    )
    return notification_worker(
        svc.config,
        svc.store,
        names=svc.users.username,
        broker=svc.broker,
        process=process,
        clocks=clocks,
        projections=getattr(svc, "projections", None),
        results=_results_step(svc),
    )


def _results_step(svc: Services) -> Any:
    """The worker's results step: the ladder, campaign and club event games that ended, then the
    club events' round deadlines that come near."""
    record = getattr(getattr(svc, "ladders", None), "record_results", None)
    deadlines = getattr(getattr(svc, "tournaments", None), "check_deadlines", None)
    if deadlines is None:
        return record

    def step() -> None:
        if record is not None:
            record()
        deadlines()

    return step


def open_store(
    config: Config,
    ports: GamePorts,
    broker: Broker | None = None,
    *,
    snapshots: bool | None = None,
    create_tables: bool | None = None,
) -> ArbiterStore:
    """Open the configured store.  ``snapshots=False`` turns snapshotting off (benchmarks);
    ``create_tables``: see :meth:`Config.eventsourcing_env` (only ``arbiter db migrate`` creates
    PostgreSQL tables)."""
    interval = config.snapshot_interval if snapshots is not False else 0
    env = _eventsourcing_env(config, create_tables)
    if config.store == "postgres":  # appends commit in one round trip (see the module)
        env["APPLICATION_RECORDER_TOPIC"] = "service.adapters.postgres_recorder:OneTripRecorder"
    else:  # the events indexed by topic (see the module)
        env["APPLICATION_RECORDER_TOPIC"] = (
            "service.adapters.sqlite_recorder:TopicIndexedSQLiteRecorder"
        )
    if interval:
        env["IS_SNAPSHOTTING_ENABLED"] = "y"
    return ArbiterStore(env=env, ports=ports, broker=broker, snapshot_interval=interval)


def notifications_env(config: Config, *, create_tables: bool | None = None) -> dict[str, str]:
    """The process application's store: its own SQLite file beside the main one (eventsourcing's
    SQLite tables are not named per application), or ``notifications_*`` tables in PostgreSQL."""
    env = _eventsourcing_env(config, create_tables)
    env.pop("AGGREGATE_CACHE_MAXSIZE", None)  # deliveries are claimed: always read fresh
    if config.store == "sqlite":
        env["SQLITE_DBNAME"] = str(config.sqlite_file.with_name("notifications.sqlite"))
    else:  # a small pool beside the main store's: readers per request, the worker's senders
        env.update(POSTGRES_POOL_SIZE="1", POSTGRES_MAX_OVERFLOW=str(4 + config.delivery_threads))
    return env


def _eventsourcing_env(config: Config, create_tables: bool | None) -> dict[str, str]:
    """``config``'s eventsourcing settings, PostgreSQL's factory the one whose connections fail
    fast while the database is down (``availability.FailFastFactory``)."""
    env = config.eventsourcing_env(create_tables=create_tables)
    if config.store == "postgres":
        env["PERSISTENCE_MODULE"] = FAIL_FAST_FACTORY
    return env


def open_process(
    config: Config,
    store: Any = None,
    *,
    names: Any = None,
    broker: Any = None,
    create_tables: bool | None = None,
) -> NotificationProcess:
    """The notification process over ``config``'s store, with its persisted views
    (``NOTICE_VIEWS``: their tables made here on SQLite, by ``arbiter db migrate`` on PostgreSQL)."""
    process = NotificationProcess(
        notifications_env(config, create_tables=create_tables),
        leader=store,
        names=names,
        broker=broker,
        secret=config.secret_key,
        public_url=config.public_url,
        replay=config.notify_replay,
    )
    make = create_tables if create_tables is not None else config.store == "sqlite"
    process.views = Projections(process, create_tables=make, views=NOTICE_VIEWS)
    return process


def delivery_settings(config: Config) -> DeliverySettings:
    """The dispatcher's settings, from ``config``."""
    return DeliverySettings(
        lease=config.delivery_lease,
        backoff=config.delivery_backoff,
        attempts=config.delivery_attempts,
        threads=config.delivery_threads,
        per_target=config.delivery_per_target,
        per_owner=config.delivery_per_owner,
        allow_private=config.webhook_allow_private,
        public_url=config.public_url,
        secret_key=config.secret_key,
    )


def notification_worker(
    config: Config,
    store: Any,
    *,
    names: Any = None,
    broker: Any = None,
    process: NotificationProcess | None = None,
    mailer: Any = None,
    poster: Any = None,
    clocks: Any = None,
    projections: Any = None,
    results: Any = None,
) -> NotificationWorker:
    """A notification worker over ``store``: its process (``process``, else one opened over
    ``config``'s notification store) and its dispatcher with the SMTP sender
    (``ARBITER_SMTP_URL``; ``mailer`` in tests), the HTTP poster, the push signer and the DNS
    look-up its address checks use."""
    if process is None:
        process = open_process(config, store, names=names, broker=broker)
    else:  # one opened before (the app's): told the names and broker given here
        process.names = names if names is not None else process.names
        process.broker = broker if broker is not None else process.broker
    if mailer is None and config.smtp_url:
        mailer = Mailer(config.smtp_url, sender=config.smtp_from)
    signer = PushSigner(config.push_key(), contact_of(config.public_url, config.smtp_from))
    devices = PushService(
        store,
        public_key=signer.public_key,
        allow_private=config.webhook_allow_private,
        resolve=resolve,
        per_user=config.push_per_user,
    )
    dispatcher = Dispatcher(
        process,
        store,
        delivery_settings(config),
        mailer=mailer,
        poster=poster or WebhookPoster(),
        resolve=resolve,
        signer=signer,
        devices=devices,
    )
    return NotificationWorker(
        store,
        process,
        dispatcher,
        clocks=clocks,
        projections=projections,
        results=results,
    )
