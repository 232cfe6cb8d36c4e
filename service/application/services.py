"""The application services of one process, built once by the composition root."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from service.application.access import GameAccess
from service.application.audit import AuditService
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
from service.application.ports import Broker
from service.application.reviews import ReviewService
from service.application.scenarios import ScenarioLibrary
from service.application.seeks import SeekService
from service.application.store import ArbiterStore
from service.application.users import UserService
from service.application.what_if import WhatIfService
from service.config import Config
from service.rules.registry import Registry
from service.views.catalog import Projections


@dataclass
class Services:
    config: Config
    store: ArbiterStore
    registry: Registry
    broker: Broker
    users: UserService
    games: GameService
    index: GameIndex
    clubs: ClubService
    ladders: LadderService
    campaigns: CampaignService
    knowledge: KnowledgeService
    disputes: DisputeService
    #: what a dispute's claim would change (``service.application.what_if``)
    what_ifs: WhatIfService
    #: who rules on a game's disputes, and settling one by agreement
    agreements: DisputeAgreements
    audit: AuditService
    scenarios: ScenarioLibrary
    lifecycle: LifecycleService
    seeks: SeekService
    #: who may read a game (``service.application.access``)
    access: GameAccess
    #: the persisted views and their runners (``service.views``)
    projections: Projections
    #: a game's review and after-action report (``service.application.reviews``)
    reviews: ReviewService

    #: the chat beside each game and each player's notes (``service.application.chat``)
    chat: ChatService = None  # type: ignore[assignment]

    #: (fields with defaults stay last) ``NotificationService`` and, when the notification
    #: worker runs in this process (``arbiter serve``), its ``NotificationWorker``
    notifications: Any = None
    #: web push: the VAPID public key and users' push subscriptions (``service.application.push``)
    push: Any = None
    worker: Any = None
    #: password reset links by e-mail (``service.application.password_resets``), and the outbox
    #: that sends them (None without ``ARBITER_SMTP_URL``)
    password_resets: Any = None
    outbox: Any = None
    #: the open game record: export and import (``service.application.records``)
    records: Any = None
    #: club events (``service.application.tournaments.TournamentService``)
    tournaments: Any = None
    #: club scenarios' map images (``service.application.scenario_images``)
    scenario_images: Any = None

    def close(self) -> None:
        if self.worker is not None:
            self.worker.stop()
        if self.outbox is not None:
            self.outbox.close()
        if self.notifications is not None:
            self.notifications.process.close()
        self.knowledge.close()
        if self.store.heads is not None:
            self.store.heads.close()
        self.store.close()
