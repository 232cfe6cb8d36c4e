"""The rules knowledge base as the game service sees it: lazily opened, club rulings from their view,
and the rulings that govern an event of a game.

Each host keeps its own index (``$ARBITER_VAR/index``), a cache: the club rulings' true store is
the log, read through the rulings view that every host shares.  A ruling made on this host is
indexed at once (:meth:`KnowledgeService.publish_ruling`); one made or withdrawn on another host
is brought in when this process next uses the knowledge base, at most ``sync_seconds`` later (a
read of the view's mark from the index of the rulings in force; the rulings themselves only when
it has changed)."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any
from uuid import UUID

from faq.errors import QueryError
from faq.model import ClubRuling as IndexedRuling
from faq.search import KnowledgeBase
from service.application.games import GameService
from service.application.store import ArbiterStore
from service.domain.errors import NotFound
from service.domain.rulings import ClubRuling
from service.rules.base import RulesEvent, RulesSystem
from service.rules.rulebook import rulebooks_of
from service.views.rulings import Ruling, RulingsView
from service.views.runner import ProjectionRunner

log = logging.getLogger(__name__)

#: at most this long between two looks at the rulings view (per process)
SYNC_SECONDS = 2.0


class KnowledgeService:
    def __init__(
        self,
        store: ArbiterStore,
        games: GameService,
        index_dir: Path,
        runner: ProjectionRunner | None = None,
    ) -> None:
        """``runner``: the persisted club rulings' view's (``projections.rulings``): the rulings
        in force, and those for an event, are read from it."""
        self.store = store
        self.runner = runner
        self.games = games
        self.index_dir = index_dir
        self._kb: KnowledgeBase | None = None
        self._lock = threading.Lock()
        self.sync_seconds = SYNC_SECONDS
        self._sync_lock = threading.Lock()
        self._next_sync = 0.0
        #: the rulings view's mark the index was last brought up to (None: not yet)
        self._synced: tuple[int, int] | None = None

    @property
    def kb(self) -> KnowledgeBase:
        """The knowledge base of the registry's games' rulebooks, built on first use (and rebuilt
        when the corpus or a rulebook's declaration changed), its club rulings those in force."""
        if self._kb is None:
            with self._lock:
                if self._kb is None:
                    self._kb = KnowledgeBase(
                        self.index_dir,
                        club_rulings=self._indexed_rulings,
                        rulebooks=rulebooks_of(self.games.registry),
                        titles=game_titles(self.games.registry),
                    )
        self._sync(self._kb)
        return self._kb

    def _sync(self, kb: KnowledgeBase) -> None:
        """Bring the index's club rulings up to the view's, at most every ``sync_seconds`` (one
        thread at a time; the others go on with the index as it is).  A store that cannot be read
        leaves the index as it is: the search goes on."""
        if self.runner is None or time.monotonic() < self._next_sync:
            return
        if not self._sync_lock.acquire(blocking=False):
            return
        try:
            self._next_sync = time.monotonic() + self.sync_seconds
            mark = self._view.mark()
            if mark != self._synced:
                added, removed = kb.sync_club_rulings(
                    self._indexed_rulings(), self._view.withdrawn()
                )
                if added or removed:
                    log.info("club rulings made elsewhere: %d indexed, %d dropped", added, removed)
                self._synced = mark
        except Exception as exc:  # noqa: BLE001 - the search never fails for the rulings' sake
            log.warning("the rules index's club rulings are not brought up to date now: %s", exc)
        finally:
            self._sync_lock.release()

    def close(self) -> None:
        if self._kb is not None:
            self._kb.close()

    # -- club rulings: the log is their store, the index a cache ----------------------------------------
    def club_rulings(self) -> list[Ruling]:
        """The rulings in force, in the order they were made (read from the rulings view)."""
        return self._view.in_force()

    @property
    def _view(self) -> RulingsView:
        view = self.runner.view if self.runner is not None else None
        assert isinstance(view, RulingsView), "this service was made without the rulings view"
        return view

    def _indexed_rulings(self) -> Iterator[IndexedRuling]:
        for ruling in self.club_rulings():
            yield indexed(ruling)

    def publish_ruling(self, ruling: ClubRuling) -> None:
        """Make a new club ruling searchable at once (every worker's searcher refreshes)."""
        self.kb.add_club_ruling(indexed(ruling))

    def withdraw_ruling(self, ruling: ClubRuling) -> None:
        self.kb.remove_club_ruling(str(ruling.id))

    # -- rulings for an event ---------------------------------------------------------------------------
    def for_event(self, game_id: UUID | str, seq: int, viewer: str | None) -> dict[str, Any]:
        """The game's own governing sections first, then FWtBT and club rulings ranked for the
        event, using its facts as the query.  Club rulings made for this event type come first."""
        game = self.games.get(game_id)
        if not 1 <= seq <= game.version:
            raise NotFound(f"no event {seq}", {"seq": [f"1 to {game.version}"]})
        events = self.games.events(game.id, after=seq - 1, limit=1, viewer=viewer)
        item = events[0]
        rules = self.games.system(game.system)
        kind = item["type"]
        governing = rules.governing(kind)
        facts: list[str] = []
        if item["kind"] == "Game.Recorded":
            before = self.games.get(game.id, version=seq - 1).state
            facts = rules.event_facts(
                RulesEvent(kind, item["payload"]["data"]), rules.view(before, viewer)
            )
        document = rules.document or game.system
        try:
            found = self.kb.for_event(
                document, governing.sections, governing.topics, facts, limit=8, event_type=kind
            )
        except QueryError:  # a system whose rulebook is not indexed (a test fixture): rulings only
            words = " ".join([*governing.topics, *facts])
            try:
                found = {
                    "governing": [],
                    "related": self.kb.search(words, limit=8, document="fwtbt-faq"),
                }
            except QueryError:
                found = {"governing": [], "related": []}
        title = game_titles([rules]).get(document)
        exact = [
            {
                **indexed_entry(r),
                "belongs_to": title,
                "why": f"a club ruling made for {kind} events",
            }
            for r in self._view.for_event(game.system, kind)
        ]
        seen = {e["id"] for e in exact}
        related = exact + [r for r in found["related"] if r.get("id") not in seen]
        return {
            "event": {"seq": seq, "type": kind, "kind": item["kind"], "facts": facts},
            "sections": list(governing.sections),
            "topics": list(governing.topics),
            "governing": found["governing"],
            "related": related,
            "note": None if related else found.get("note"),
        }


def game_titles(systems: Iterable[RulesSystem]) -> dict[str, str]:
    """Each game's short title by its rulebook's document, for the search's labels
    (``Closing the Merida Pocket - Extremadura, 1938`` -> ``Closing the Merida Pocket``)."""
    return {(s.document or s.name): s.title.split(" - ")[0].strip() for s in systems}


def indexed(ruling: ClubRuling | Ruling) -> IndexedRuling:
    return IndexedRuling(
        id=str(ruling.id),
        club=ruling.club,
        question=ruling.heading,
        answer=ruling.text,
        authority="Club ruling",
        date=ruling.made_on,
        heading=ruling.heading,
        rule_refs=tuple(ruling.rule_refs),
        applies_to=ruling.system,
        topics=tuple(ruling.event_types),
    )


def indexed_entry(ruling: ClubRuling | Ruling) -> dict[str, Any]:
    return {
        "id": f"club-ruling:{ruling.id}",
        "kind": "club-ruling",
        "document": f"club:{ruling.club}",
        "heading": ruling.heading,
        "rule_refs": list(ruling.rule_refs),
        "snippet": ruling.text[:240],
        "score": None,
        "scope": "club",
        "source": "Club ruling",
        "binding": True,  # a club's ruling for this game binds it (docs/knowledge-base.md)
        "belongs_to": None,
        "question": ruling.heading,
        "answers": [{"text": ruling.text, "authority": "Club ruling", "date": ruling.made_on}],
        "event_types": list(ruling.event_types),
        "game": ruling.game,
        "dispute": ruling.dispute,
    }
