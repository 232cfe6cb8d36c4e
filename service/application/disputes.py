"""Takebacks, disputes and their remedies (rewind, rebase), and club rulings made from them.

Nothing is ever deleted: a takeback or an overturn appends a ``Retracted`` event that restores the
state before the retracted events; a rebase then re-decides the later commands on that state (the
machinery of an overturn is :mod:`service.application.dispute_remedies`'s)."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Mapping
from typing import Any, Protocol
from uuid import UUID

from faq.model import FAQ_DOCUMENT, FAQ_GAME
from service.application.dispute_remedies import (
    Alternative,
    Plan,
    Remedies,
    SeededDice,
    recorded_rolls,
    replayed,
)
from service.application.games import GameService, in_words
from service.application.readings import option_specs, option_value_ok, option_value_words
from service.application.store import ArbiterStore
from service.domain.chain import canonical_json
from service.domain.errors import (
    Conflict,
    Forbidden,
    NotFound,
    StaleVersion,
    Unprocessable,
)
from service.domain.game import Game, copy_json
from service.domain.rulings import ClubRuling
from service.domain.users import User
from service.rules.base import InvalidCommand, RulesEvent
from service.rules.rulebook import rulebooks_of
from service.views.disputes import DisputesView, Key
from service.views.runner import ProjectionRunner


class KnowledgePort(Protocol):
    """What disputes need of the knowledge base (faq.search.KnowledgeBase satisfies it)."""

    def get(self, entry_id: str) -> dict[str, Any]: ...


class WhatIfPort(Protocol):
    def basis(
        self, game: Game, dispute: str, alternative: Alternative | None, plan: Plan
    ) -> str | None: ...


class ClubRoles(Protocol):
    def has_role(self, club_id: str, user_id: str, role: str) -> bool: ...

    def clubs_of(self, user_id: str) -> tuple[str, ...]: ...

    def adopted_reading(self, ref: str, by: str, system: str, reading: dict[str, Any]) -> Any: ...


#: an arbiter's queue holds at most this many a page (``GET /api/disputes/queue?limit=``)
PAGE_MAX = 100


def entry_hash(entry: Mapping[str, Any]) -> str:
    """The hash of an entry's text at the moment it is cited."""
    return hashlib.sha256(canonical_json(entry).encode("utf-8")).hexdigest()


class DisputeService(Remedies):
    """Takebacks, disputes and verdicts; an overturn's plan, remedy and rebase are
    :class:`Remedies`'s."""

    def __init__(
        self,
        store: ArbiterStore,
        games: GameService,
        knowledge: Callable[[], KnowledgePort | None],
        clubs: Callable[[], ClubRoles | None] = lambda: None,
        on_club_ruling: Callable[[ClubRuling], None] = lambda ruling: None,
        runner: ProjectionRunner | None = None,
    ) -> None:
        """``runner``: the persisted disputes view's (``projections.disputes``): an arbiter's
        queue is read from it, a page at a time."""
        self.store = store
        self.ports = store.ports
        self.games = games
        self._knowledge = knowledge
        self._clubs = clubs
        self._on_club_ruling = on_club_ruling
        self.runner = runner
        #: the what-if service (``service.application.what_if``), set by the bootstrap: a
        #: verdict records the digest of the what-if it was decided on
        self.what_ifs: WhatIfPort | None = None

    # -- takebacks ---------------------------------------------------------------------------------
    def request_takeback(
        self, game_id: UUID | str, user: User, *, side: str | None, from_seq: int | None
    ) -> Game:
        game = self.games.get(game_id)
        side = self.games.acting_side(game, user, side, must_be_active=False)
        game.request_takeback(side=side, user=str(user.id), from_seq=from_seq, ports=self.ports)
        return self.save(game)

    def answer_takeback(
        self, game_id: UUID | str, user: User, *, accept: bool, side: str | None
    ) -> Game:
        game = self.games.get(game_id)
        side = self.games.acting_side(game, user, side, must_be_active=False)
        restored = None
        if accept and game.takeback is not None:
            restored = self.games.get(game.id, version=game.takeback["from_seq"] - 1).state
        game.answer_takeback(
            side=side, user=str(user.id), accept=accept, restored_state=restored, ports=self.ports
        )
        return self.save(game)

    # -- disputes ----------------------------------------------------------------------------------
    def open(
        self,
        game_id: UUID | str,
        user: User,
        *,
        seq: int,
        claim: str,
        cite: Iterable[str],
        side: str | None,
        reading: Mapping[str, Any] | None = None,
        instead: Mapping[str, Any] | None = None,
    ) -> tuple[Game, str]:
        """``reading`` (game options and the values claimed) and ``instead`` (a command) say what
        should have happened: checked here against the game's options and the command's shape."""
        game = self.games.get(game_id)
        mine = game.side_of(str(user.id))
        if not mine:
            raise Forbidden(
                "only the players of a game dispute its events", {"game": ["you play no side"]}
            )
        side = side or mine[0]
        if side not in mine:
            raise Forbidden(f"you do not play {side}", {"side": ["not your side"]})
        citations = self._citations(cite, required=False, game=game)
        if 1 < seq <= game.version and (reading or instead):
            self._check_alternative(game, self.plan(game, seq), reading or {}, instead)
        dispute = game.open_dispute(
            side=side,
            user=str(user.id),
            seq=seq,
            claim=claim,
            citations=citations,
            ports=self.ports,
            reading=reading,
            instead=instead,
        )
        return self.save(game), dispute

    def resolve(
        self,
        game_id: UUID | str,
        arbiter: User,
        *,
        dispute: str,
        verdict: str,
        remedy: str | None,
        cite: Iterable[str],
        note: str = "",
        club_ruling: Mapping[str, Any] | None = None,
        reading: Mapping[str, Any] | None = None,
        instead: Mapping[str, Any] | None = None,
        what_if: str | None = None,
    ) -> dict[str, Any]:
        """``reading``/``instead``: the alternative the verdict adopts (a rebase then re-decides
        the disputed command under it with the same dice); none given: the dispute's own claim,
        if it named one.  ``what_if``: the digest of the what-if the arbiter looked at; when it
        no longer matches, nothing is written (409)."""
        game = self.games.get(game_id)
        self._check_arbiter(game, arbiter)
        info = _open_dispute(game, dispute)
        explicit = reading is not None or instead is not None
        if explicit and verdict == "overturned" and remedy != "rebase":
            raise Unprocessable(
                "a reading or another command is adopted by a rebase",
                {"remedy": ["rebase, to adopt the alternative"]},
            )
        citations = self._citations(cite, required=True, game=game)
        self._check_binding(game, citations)
        ruling = (
            self._club_ruling(game, arbiter, dispute, club_ruling, citations)
            if club_ruling
            else None
        )
        plan = self.plan(game, info["seq"])
        alternative = self.alternative_of(game, dispute, reading, instead, plan=plan)
        adopt = alternative is not None and verdict == "overturned" and remedy == "rebase"
        club = self._club_default(
            game, arbiter, club_ruling, alternative.reading if adopt and alternative else None
        )
        evidence = self._what_if_basis(game, dispute, alternative, plan, what_if)
        applied = self.overturn(
            game,
            dispute,
            arbiter=str(arbiter.id),
            verdict=verdict,
            remedy=remedy,
            citations=citations,
            note=note,
            club_ruling=str(ruling.id) if ruling else None,
            alternative=alternative,
            what_if=evidence,
            dice=SeededDice(lambda: self.games.seed_of(game)),
            plan=plan,
        )
        report = applied["report"]
        self.save(game, *([ruling] if ruling else []), *([club] if club else []))
        if ruling is not None:
            self._on_club_ruling(ruling)
        return {
            "dispute": dispute,
            "verdict": verdict,
            "remedy": remedy,
            "version": game.version,
            "report": report,
            "club_ruling": str(ruling.id) if ruling else None,
            "citations": citations,
        }

    def _what_if_basis(
        self,
        game: Game,
        dispute: str,
        alternative: Alternative | None,
        plan: Plan,
        shown: str | None,
    ) -> str | None:
        """The digest of the what-if a verdict is decided on (None without a what-if service);
        409 when the what-if the arbiter was ``shown`` no longer matches it."""
        evidence = self.what_ifs.basis(game, dispute, alternative, plan) if self.what_ifs else None
        if shown is not None and (evidence is None or evidence != shown):
            raise Conflict(
                "the what-if changed since it was shown: look at it again before deciding",
                {"what_if": ["does not match the what-if of the game as it stands"]},
            )
        return evidence

    def queue(self, arbiter: User) -> list[dict[str, Any]]:
        """The first page of the open disputes this user may resolve, oldest first."""
        return self.queue_page(arbiter, limit=PAGE_MAX)[0]

    def queue_page(
        self, arbiter: User, *, limit: int = 50, after: Key | None = None
    ) -> tuple[list[dict[str, Any]], Key | None]:
        """A page of the open disputes ``arbiter`` may resolve, oldest first, after the key
        ``after``, and the key to the next page (None: this was the last).  Read from the
        disputes view by the clubs ``arbiter`` arbitrates; each row's game is loaded to leave
        out the games ``arbiter`` plays (and to say the event in words)."""
        limit = max(1, min(limit, PAGE_MAX))
        view = self._view
        scope = self._arbitrated(arbiter)
        chosen: list[tuple[dict[str, Any], Game]] = []
        while len(chosen) <= limit:
            rows = view.select_open(scope, limit + 1, after)
            for item in rows:
                game = self.games.get(item["game"])
                open_ = game.disputes.get(item["dispute"], {}).get("status") == "open"
                if open_ and self.may_arbitrate(game, arbiter):
                    chosen.append((item, game))
                if len(chosen) > limit:
                    break
            if len(rows) <= limit or len(chosen) > limit:
                break
            after = rows[-1]["key"]
        next_key = chosen[limit - 1][0]["key"] if len(chosen) > limit else None
        out = []
        for item, game in chosen[:limit]:
            item.pop("key")
            out.append(
                item
                | {
                    "title": game.labels.get("title", game.scenario),
                    "system": game.system,
                    "by": self.games.users.username(game.sides[item["side"]]),
                    "paused": game.paused_by() == item["dispute"],
                    "event": self._event_in_words(game, item["seq"]),
                }
            )
        return out, next_key

    def _arbitrated(self, user: User) -> tuple[str, ...] | None:
        """The clubs whose games' disputes ``user`` may resolve (``''``: the games of no club,
        for a site arbiter); ``None``: any (no clubs service: a site arbiter rules them all)."""
        site = "arbiter" in getattr(user, "roles", [])
        clubs = self._clubs()
        if clubs is None:
            return None if site else ()
        uid = str(user.id)
        mine = tuple(c for c in clubs.clubs_of(uid) if clubs.has_role(c, uid, "arbiter"))
        return mine + (("",) if site else ())

    @property
    def _view(self) -> DisputesView:
        view = self.runner.view if self.runner is not None else None
        assert isinstance(view, DisputesView), "this service was made without the disputes view"
        return view

    def of_game(self, game_id: UUID | str) -> list[dict[str, Any]]:
        """Every dispute of a game with its claim, citations and resolution (and rebase report)."""
        game = self.games.get(game_id)
        name = self.games.users.username
        out: dict[str, dict[str, Any]] = {}
        for event in self.store.events.get(game.id):
            if isinstance(event, Game.DisputeOpened):
                out[event.dispute] = {
                    "dispute": event.dispute,
                    "seq": event.seq,
                    "side": event.side,
                    "by": name(event.user),
                    "claim": event.claim,
                    "citations": event.citations,
                    "opened_at": event.timestamp.isoformat(),
                    "status": "open",
                    "resolution": None,
                }
            elif isinstance(event, Game.DisputeResolved):
                out[event.dispute]["status"] = event.verdict
                out[event.dispute]["resolution"] = {
                    "arbiter": name(event.arbiter),
                    "verdict": event.verdict,
                    "remedy": event.remedy,
                    "citations": event.citations,
                    "note": event.note,
                    "club_ruling": event.club_ruling,
                    "at": event.timestamp.isoformat(),
                    "seq": event.originator_version,
                }
            elif isinstance(event, Game.Rebased):
                out[event.dispute]["resolution"]["report"] = event.report
            elif isinstance(event, Game.VerdictAgreed):  # settled by the players' agreement
                out[event.dispute]["status"] = event.verdict
                out[event.dispute]["resolution"] = {
                    "arbiter": None,
                    "agreed_by": [name(event.proposed_by), name(event.user)],
                    "verdict": event.verdict,
                    "remedy": None,
                    "citations": [],
                    "note": event.note,
                    "club_ruling": None,
                    "at": event.timestamp.isoformat(),
                    "seq": event.originator_version,
                }
        return list(out.values())

    def _event_in_words(self, game: Game, seq: int) -> dict[str, Any]:
        event = next(iter(self.store.events.get(game.id, gt=seq - 1, lte=seq)))
        rules = self.games.system(game.system)
        if isinstance(event, Game.Recorded):
            before = self.games.get(game.id, version=seq - 1).state
            text = in_words(rules, RulesEvent(event.kind, copy_json(event.data)), before)
            return {"seq": seq, "type": event.kind, "text": text, "side": event.side}
        kind = type(event).__name__
        return {"seq": seq, "type": kind, "text": kind, "side": getattr(event, "side", None)}

    def may_arbitrate(self, game: Game, user: User) -> bool:
        if str(user.id) in game.sides.values():
            return False
        club = game.labels.get("club")
        clubs = self._clubs()
        if club and clubs is not None:
            return clubs.has_role(str(club), str(user.id), "arbiter")
        return "arbiter" in getattr(user, "roles", [])

    # -- alternatives: another reading, another command --------------------------------------------
    def alternative_of(
        self,
        game: Game,
        dispute: str,
        reading: Mapping[str, Any] | None = None,
        instead: Mapping[str, Any] | None = None,
        plan: Plan | None = None,
    ) -> Alternative | None:
        """The alternative a verdict (or a what-if) weighs: the one given (checked, on ``plan``
        or the dispute's own), else the one the dispute claimed, else None (an overturn then
        removes the disputed event)."""
        info = game.disputes[dispute]
        if reading is None and instead is None:
            reading, instead = info.get("reading") or {}, info.get("instead")
        else:
            plan = plan or self.plan(game, info["seq"])
            self._check_alternative(game, plan, reading or {}, instead)
        if not reading and not instead:
            return None
        return Alternative(copy_json(dict(reading or {})), copy_json(dict(instead or {})) or None)

    def _check_alternative(
        self, game: Game, plan: Plan, reading: Mapping[str, Any], instead: Mapping[str, Any] | None
    ) -> None:
        """422 naming ``reading.<option>`` or ``instead.<field>`` unless each option is one the
        game declares, with one of its values, and ``instead`` is a command of the declared
        shape on the state before the disputed command."""
        rules = self.games.system(game.system)
        specs = option_specs(rules, game.scenario)
        problems: dict[str, list[str]] = {}
        for name, value in reading.items():
            spec = specs.get(name)
            if spec is None:
                known = ", ".join(sorted(specs)) or "none"
                problems[f"reading.{name}"] = [f"not an option of this game (its options: {known})"]
            elif not option_value_ok(spec, value):
                problems[f"reading.{name}"] = [option_value_words(spec)]
        if instead is not None:
            if plan.command is None:
                problems["instead"] = ["the disputed event has no command to replace"]
            else:
                try:
                    rules.parse_command(plan.before, dict(instead))
                except InvalidCommand as exc:
                    for key, reasons in (exc.details or {"": [exc.message]}).items():
                        problems[f"instead.{key}" if key else "instead"] = list(reasons)
        if problems:
            raise Unprocessable("the alternative is not one this game can decide", problems)

    # -- helpers -----------------------------------------------------------------------------------
    def _check_arbiter(self, game: Game, user: User) -> None:
        if str(user.id) in game.sides.values():
            raise Forbidden(
                "a player of this game may not arbitrate it", {"arbiter": ["you play this game"]}
            )
        if not self.may_arbitrate(game, user):
            raise Forbidden(
                "only an arbiter resolves disputes", {"arbiter": ["you are not an arbiter here"]}
            )

    def _citations(
        self, cite: Iterable[str], required: bool, game: Game | None = None
    ) -> list[dict[str, Any]]:
        """The cited entries as stored with a dispute.  A dispute cites its own game's rulebook;
        another game's rulebook sections are refused (FWtBT and club rulings stay citable)."""
        ids = [c for c in cite if isinstance(c, str) and c.strip()]
        if required and not ids:
            raise Unprocessable(
                "cite the rules or rulings applied", {"citations": ["at least one entry id"]}
            )
        if not ids:
            return []
        knowledge = self._knowledge()
        if knowledge is None:
            raise Unprocessable(
                "the rules knowledge base is not available", {"citations": ["unavailable"]}
            )
        out: list[dict[str, Any]] = []
        problems: dict[str, list[str]] = {}
        for entry_id in ids:
            try:
                entry = knowledge.get(entry_id)
            except (KeyError, LookupError, ValueError):
                problems.setdefault("citations", []).append(f"unknown entry {entry_id}")
                continue
            other = self._other_rulebook(game, entry)
            if other:
                problems.setdefault("citations", []).append(
                    f"{entry.get('heading') or entry_id} is from {other}, another game's "
                    "rulebook: cite this game's rulebook, a club ruling or a FWtBT ruling"
                )
                continue
            out.append(
                {
                    "id": entry_id,
                    "heading": entry.get("heading", ""),
                    "document": entry.get("document", ""),
                    "text_hash": entry_hash(entry),
                    **self._weight(game, entry),
                }
            )
        if problems:
            raise Unprocessable(
                "every cited entry must exist and belong to this game's rules", problems
            )
        # the game's own rules and the club's rulings first, then another game's (persuasive)
        return sorted(out, key=lambda c: not c["binding"])

    def _weight(self, game: Game | None, entry: Mapping[str, Any]) -> dict[str, Any]:
        """Whether a cited entry binds this game (``binding``), the title of the game it belongs
        to (``belongs_to``) and a label in words (``source``).  Another game's rulings -- the
        FWtBT FAQ's, a club's ruling for another game -- are persuasive, never binding."""
        title = self._title(game.system) if game is not None else None
        here = f" in {title}" if title else ""
        document = str(entry.get("document", ""))
        if document == FAQ_DOCUMENT:
            return {
                "binding": False,
                "belongs_to": FAQ_GAME,
                "source": f"{FAQ_GAME} FAQ — another game's ruling: persuasive, not binding{here}",
            }
        if entry.get("kind") == "club-ruling":
            applies = entry.get("applies_to")
            own = (None, "any", *((game.system, self._document(game)) if game else ()))
            if applies in own:
                return {"binding": True, "belongs_to": title, "source": "Club ruling"}
            other = self._title(str(applies))
            return {
                "binding": False,
                "belongs_to": other,
                "source": f"Club ruling for {other} (another game): persuasive, not binding{here}",
            }
        return {"binding": True, "belongs_to": title, "source": f"{title or document} rulebook"}

    def _check_binding(self, game: Game, citations: list[dict[str, Any]]) -> None:
        """A verdict stands on this game's rules: one that cites only another game's rulings
        (persuasive, not binding) must also cite one of this game's sections -- when the game
        has a rulebook to cite."""
        if not citations or any(c["binding"] for c in citations):
            return
        rules = self.games.system(game.system)
        if not rulebooks_of([rules]):
            return  # a game without a rulebook: nothing of its own to cite
        others = sorted({str(c["belongs_to"]) for c in citations})
        title = self._title(game.system)
        raise Unprocessable(
            "a verdict must cite this game's rules",
            {
                "citations": [
                    f"cites only rulings of another game ({', '.join(others)}), which are "
                    f"persuasive, not binding in {title}: cite one of {title}'s sections too"
                ]
            },
        )

    def _document(self, game: Game) -> str:
        rules = self.games.system(game.system)
        return str(rules.document or game.system)

    def _title(self, name: str) -> str:
        """A game's short title in words, by its system or rulebook document name."""
        for system in self.games.registry:
            if name in (system.name, system.document):
                return system.title.split(" - ")[0].strip() or system.name
        return name

    def _other_rulebook(self, game: Game | None, entry: Mapping[str, Any]) -> str | None:
        """The title of the other game whose rulebook ``entry`` belongs to, else ``None``."""
        if game is None or entry.get("kind") not in ("rule", "conflict"):
            return None
        document = str(entry.get("document", ""))
        rules = self.games.system(game.system)
        if document in ("", rules.document or game.system) or not rulebooks_of([rules]):
            return None  # its own rulebook, or a game without one (nothing else to cite)
        for system in self.games.registry:
            if (system.document or system.name) == document:
                return system.title.split(" - ")[0].strip() or document
        return document

    def _club_default(
        self,
        game: Game,
        arbiter: User,
        club_ruling: Mapping[str, Any] | None,
        adopted: Mapping[str, Any] | None,
    ) -> Any:
        """The club, its new games' default reading changed, when the verdict's club ruling asks
        (``club_ruling.default_reading``): only for a verdict that adopts a reading (``adopted``),
        in a club game.  422 naming ``club_ruling.default_reading`` otherwise."""
        if not club_ruling or not club_ruling.get("default_reading"):
            return None
        field = "club_ruling.default_reading"
        if not adopted:
            raise Unprocessable(
                "only a verdict that adopts a reading can make it the club's default",
                {field: ["overturn by a rebase under a claimed reading"]},
            )
        club = game.labels.get("club")
        clubs = self._clubs()
        if not club or clubs is None:
            raise Unprocessable(
                "a game of no club has no club default to set", {field: ["not a club game"]}
            )
        return clubs.adopted_reading(str(club), str(arbiter.id), game.system, dict(adopted))

    def _club_ruling(
        self,
        game: Game,
        arbiter: User,
        dispute: str,
        spec: Mapping[str, Any],
        citations: list[dict[str, Any]],
    ) -> ClubRuling:
        refs = spec.get("rule_refs") or []
        types = spec.get("event_types") or []
        if not isinstance(refs, list) or not isinstance(types, list):
            raise Unprocessable(
                "rule_refs and event_types are lists", {"club_ruling": ["lists expected"]}
            )
        return ClubRuling.make(
            club=str(game.labels.get("club") or "site"),
            system=game.system,
            heading=str(spec.get("heading") or ""),
            text=str(spec.get("text") or ""),
            rule_refs=[str(r) for r in refs],
            event_types=[str(t) for t in types],
            game=str(game.id),
            dispute=dispute,
            arbiter=str(arbiter.id),
            citations=citations,
        )

    def save(self, game: Game, *others: Any) -> Game:
        """Commit ``game`` (and ``others``); a game that moved on meanwhile is a 409."""
        conflict = StaleVersion("the game moved on; try again", {"game": ["changed meanwhile"]})
        self.store.commit(game, *others, conflict=conflict)
        return game


def _open_dispute(game: Game, dispute: str) -> dict[str, Any]:
    """The dispute ``dispute`` of ``game``: 404 when there is none, 409 when it is resolved."""
    info = game.disputes.get(dispute)
    if info is None:
        raise NotFound(f"no dispute {dispute} in this game", {"dispute": ["unknown dispute"]})
    if info["status"] != "open":
        raise Conflict(
            f"this dispute is already {info['status']}", {"dispute": ["already resolved"]}
        )
    return info


#: the public names; the what-if imports the moved ones (now :mod:`dispute_remedies`'s) from here
__all__ = [
    "Alternative",
    "DisputeService",
    "Plan",
    "entry_hash",
    "recorded_rolls",
    "replayed",
]
