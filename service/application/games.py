"""Game commands and queries: get the aggregate, let it decide, save, publish."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any
from uuid import UUID

from eventsourcing.application import AggregateNotFoundError, LRUCache

from service.application.events import present_as, present_event
from service.application.ports import Broker
from service.application.readings import option_label, value_words
from service.application.store import ArbiterStore
from service.application.store import game_channel as game_channel  # the channel SSE follows
from service.application.users import UserService
from service.domain import dice as dice_mod
from service.domain.errors import (
    DomainError,
    Forbidden,
    Invalid,
    NotFound,
    StaleVersion,
    Unprocessable,
)
from service.domain.game import DiceSeed, Game, copy_json, seed_vault_id
from service.domain.imports import GameImport, import_id
from service.domain.systems import GamePorts
from service.domain.users import User
from service.rules.actions import Actions
from service.rules.base import (
    InvalidCommand,
    RulesEvent,
    RulesSystem,
    RuleViolation,
    ScenarioError,
    State,
    plain_sentence,
    rule_words,
)
from service.rules.registry import Registry, UnknownSystem

#: games whose sides and labels a process keeps (about 1 KB each)
BINDINGS_CACHED = 10_000


@dataclass(frozen=True)
class Executed:
    """A command's outcome: the game's version, status and result once it was recorded, and its
    new events as its side sees them (``game``: the game as kept for the next command -- read
    at once, in the one thread that has it, or not at all)."""

    game: Game
    events: list[dict[str, Any]]
    version: int
    status: str
    result: dict[str, Any] | None


def game_uuid(game_id: UUID | str) -> UUID:
    """A game's id from a path or a body: a UUID, else the 404 of a game that does not exist."""
    try:
        return game_id if isinstance(game_id, UUID) else UUID(str(game_id))
    except ValueError:
        raise NotFound(f"no game {game_id}", {"game": ["not a game id"]}) from None


class GameService:
    def __init__(
        self, store: ArbiterStore, registry: Registry, users: UserService, broker: Broker
    ) -> None:
        self.store = store
        self.registry = registry
        self.users = users
        self.broker = broker
        self.ports = store.ports
        self._seeds: dict[UUID, str] = {}
        self._seeds_lock = threading.Lock()
        #: each game's sides and labels, fixed when it is created (:meth:`bindings`)
        self._bindings: LRUCache[UUID, tuple[dict[str, str], dict[str, Any]]] = LRUCache(
            BINDINGS_CACHED
        )
        #: each game's ports for presenting its events: this server's, or an imported game's
        #: (the salts its record gave for its sealed forms: ``service.domain.imports``)
        self._presenting: LRUCache[UUID, GamePorts] = LRUCache(BINDINGS_CACHED)

    # -- systems --------------------------------------------------------------------------------
    def system(self, name: str) -> RulesSystem:
        try:
            return self.registry.get(name)
        except UnknownSystem:
            raise NotFound(
                f"no rules system {name!r}",
                {"system": [f"unknown system; known: {', '.join(self.registry.names())}"]},
            ) from None

    # -- commands -------------------------------------------------------------------------------
    def create(
        self,
        *,
        system: str,
        scenario: str,
        sides: Mapping[str, str],
        creator: User,
        options: Mapping[str, Any] | None = None,
        labels: Mapping[str, Any] | None = None,
        seed: str | None = None,
        game_id: UUID | None = None,
        source: Any = None,
        invite: bool = False,
        keep: list[Any] | None = None,
    ) -> Game:
        """Create a game.  ``labels``: what the core keeps beside the rules (``club``, ``ladder``,
        ``rated``, ``takeback_policy`` never/casual/always, ``pause_on_dispute``).  ``seed`` and
        ``game_id`` fix the dice and the id (reproducible games: the fuzzer, golden games); by
        default the seed is fresh and secret and the id random.  ``source``: a club's scenario
        version (``service.application.scenarios.PinnedScenario``: ``info``, ``default_options()``,
        ``initial_state(options)``) in place of the system's own ``scenario``.  ``invite``: every
        named player other than the creator must accept before play starts (``Game.Invited``).
        ``keep``: the game and its dice seed are added to this list, not stored: the caller stores
        them with its own change, in one commit (a club event's round and its games)."""
        try:
            rules = self.registry.get(system)
        except UnknownSystem:
            raise Unprocessable(
                f"no rules system {system!r}",
                {"system": [f"unknown system; known: {', '.join(self.registry.names())}"]},
            ) from None
        if source is not None:  # the game pins the version: its name, number and hash
            scenario, labels = source.game_scenario, {**source.labels, **dict(labels or {})}
        info = source.info if source else {s.id: s for s in rules.scenarios()}.get(scenario)
        if info is None:
            raise Unprocessable(
                f"no scenario {scenario!r} in {system}",
                {
                    "scenario": [
                        f"unknown scenario; known: {', '.join(s.id for s in rules.scenarios())}"
                    ]
                },
            )
        bound, names = self._bind_sides(info.sides, sides, creator)
        defaults = source.default_options() if source else rules.default_options(scenario)
        merged = {**defaults, **dict(options or {})}
        try:
            initial = (
                source.initial_state(merged) if source else rules.initial_state(scenario, merged)
            )
        except ScenarioError as exc:
            raise Unprocessable(exc.message, exc.option_problems()) from None
        seed = seed or dice_mod.new_seed()
        game = Game.start(
            system=system,
            scenario=scenario,
            options=merged,
            sides=bound,
            created_by=str(creator.id),
            seed=seed,
            initial_state=initial,
            labels={"title": info.title, **dict(labels or {})},
            game_id=game_id,
            ports=self.ports,
            names=names,
        )
        if invite:  # the named players are asked first (service/application/lifecycle.py)
            game.invite(by=str(creator.id), ports=self.ports)
        vault = DiceSeed.for_game(game.id, seed)
        if keep is not None:  # stored by the caller, or not at all: its seed is read when needed
            keep += [game, vault]
            return game
        self.store.commit(game, vault)
        with self._seeds_lock:
            self._seeds[game.id] = seed
        return game

    def _bind_sides(
        self, scenario_sides: Sequence[str], sides: Mapping[str, str], creator: User
    ) -> tuple[dict[str, str], dict[str, str]]:
        """Each side's user id (``sides`` names users) and each player's name by id, the
        creator's included; 422 naming each side that does not fit the scenario."""
        problems: dict[str, list[str]] = {}
        for side in scenario_sides:
            if side not in sides:
                problems.setdefault(f"sides.{side}", []).append(
                    "every side must be bound to a user"
                )
        for side in sides:
            if side not in scenario_sides:
                problems.setdefault(f"sides.{side}", []).append(
                    f"not a side of this scenario ({', '.join(scenario_sides)})"
                )
        bound: dict[str, str] = {}
        names = {str(creator.id): creator.username}
        for side, username in sides.items():
            try:
                player = self.users.by_name(username)
                bound[side], names[str(player.id)] = str(player.id), player.username
            except NotFound:
                problems.setdefault(f"sides.{side}", []).append(f"unknown user {username!r}")
        if problems:
            raise Unprocessable("the sides do not fit the scenario", problems)
        return bound, names

    def execute(
        self,
        game_id: UUID | str,
        user: User,
        command: Mapping[str, Any],
        *,
        expected_version: int,
        side: str | None = None,
    ) -> Executed:
        gid = game_uuid(game_id)
        game = self.store.cached(gid, expected_version)
        if not isinstance(game, Game):  # not cached at that version: read (and fast-forward)
            return self._execute(self.get(gid), user, command, expected_version, side)
        try:
            return self._execute(game, user, command, expected_version, side)
        except DomainError:  # refused: the game taken from the cache goes back if unchanged
            self.store.put_back(game, expected_version)
            raise

    def _execute(
        self,
        game: Game,
        user: User,
        command: Mapping[str, Any],
        expected_version: int,
        side: str | None,
    ) -> Executed:
        if expected_version != game.version:
            raise StaleVersion(
                f"the game is at version {game.version}, not {expected_version}",
                {"expected_version": [f"stale: the game is at version {game.version}"]},
            )
        side = self.acting_side(game, user, side)
        rules = self.system(game.system)
        names = self._names(game)
        texts: list[str] = []

        def word(event: RulesEvent, state: State) -> None:  # each event as the side sees it
            texts.append(in_words(rules, rules.event_view(event, state, side), state))

        try:
            game.execute(
                side=side,
                user=str(user.id),
                command=command,
                seed=self.seed_of(game),
                ports=self.ports,
                witness=word,
            )
        except RuleViolation as exc:
            details = {"rule": [exc.rule]}
            if exc.field:
                details[f"command.{exc.field}"] = [exc.message]
            raise RuleRefused(exc.message, details, rule=exc.rule) from None
        except InvalidCommand as exc:
            raise Invalid(
                exc.message,
                {f"command.{k}": v for k, v in exc.details.items()} or {"command": [exc.message]},
            ) from None
        # what the answer tells, taken while the game is this request's alone: once committed
        # it is kept for the next command as it is (``handed_over``), not copied
        version, status, result = game.version, game.status, copy_json(game.result)
        pending = self.store.commit(
            game,
            decided_at=expected_version,
            conflict=StaleVersion(
                "another command was recorded first; reload and decide again",
                {"expected_version": ["stale: the game moved on"]},
            ),
            handed_over=True,
        )
        told = self._as_told(pending, names, iter(texts))
        return Executed(game, told, version=version, status=status, result=result)

    @staticmethod
    def _as_told(pending: list[Any], names: Any, texts: Iterator[str]) -> list[dict[str, Any]]:
        """A command's new events as its side sees them, each rules event in the words it was
        given as it was applied (``texts``, in order: :meth:`Game.execute`'s witness)."""
        told = []
        for event in pending:
            item = present_event(event, names)
            if isinstance(event, Game.Recorded):
                item["text"] = next(texts)
            told.append(item)
        return told

    def add_entropy(
        self, game_id: UUID | str, user: User, entropy: str, side: str | None = None
    ) -> Game:
        game = self.get(game_id)
        side = self.acting_side(game, user, side, must_be_active=False)
        game.add_entropy(side=side, user=str(user.id), entropy=entropy, ports=self.ports)
        self.store.commit(game, conflict=StaleVersion("the game moved on; try again"))
        return game

    # -- queries --------------------------------------------------------------------------------
    def bindings(self, game_id: UUID | str) -> tuple[dict[str, str], dict[str, Any]]:
        """The game's sides (side -> user id) and labels (club, public, ...): fixed when it is
        created, so read once from its ``Created`` event (by key) and kept, never fast-forwarded.
        What the read rule needs on every request (``service.application.access``)."""
        gid = game_uuid(game_id)
        try:
            return self._bindings.get(gid)
        except KeyError:
            pass
        first = list(self.store.events.get(gid, lte=Game.INITIAL_VERSION, limit=1))
        if not first or not isinstance(first[0], Game.Created):
            raise NotFound(f"no game {game_id}", {"game": ["unknown game"]})
        found = (dict(first[0].sides), copy_json(dict(first[0].labels)))
        self._bindings.put(gid, found)
        return found

    def presenting(self, game_id: UUID) -> GamePorts:
        """The ports to present ``game_id``'s events with: this server's, except that a game
        imported from another server's record shows each sealed event with the full form's salt
        the record gave (its commitments were made under the other server's key)."""
        try:
            return self._presenting.get(game_id)
        except KeyError:
            pass
        ports = self.ports
        try:
            self.bindings(game_id)  # no game (yet): nothing to keep
        except NotFound:
            return ports
        try:
            found: Any = self.store.repository.get(import_id(game_id))
        except AggregateNotFoundError:
            found = None
        if isinstance(found, GameImport) and found.salts:
            salts, own = dict(found.salts), self.ports.salt

            def salting(gid: Any, version: int, form: str) -> str:
                given = salts.get(str(version)) if str(gid) == str(game_id) else None
                if given is not None and form == "full":
                    return given
                return own(gid, version, form) if own is not None else ""

            ports = replace(self.ports, salt=salting)
        self._presenting.put(game_id, ports)
        return ports

    def get(self, game_id: UUID | str, version: int | None = None) -> Game:
        gid = game_uuid(game_id)
        if version is not None and version < 1:
            raise Invalid("version must be 1 or more", {"version": ["must be >= 1"]})
        try:
            game: Any = self.store.repository.get(gid, version=version)
        except AggregateNotFoundError:
            raise NotFound(f"no game {game_id}", {"game": ["unknown game"]}) from None
        if not isinstance(game, Game):
            raise NotFound(f"no game {game_id}", {"game": ["unknown game"]})
        if version is not None and game.version != version:
            raise NotFound(
                f"the game has no version {version}",
                {"version": [f"the game's latest version is {game.version}"]},
            )
        return game

    def summary(self, game_id: UUID | str) -> dict[str, Any]:
        """What a list of one's own games shows of each: its version, status, the sides to play,
        the phase, its disputes and what pauses it -- read from the latest game without copying
        it (:meth:`GameRepository.peek`)."""

        def read(game: Game) -> dict[str, Any]:
            return {
                "version": game.version,
                "disputes": disputes_shown(game),
                "paused_by": game.paused_by(),
                "active_sides": game.active_sides(),
                "phase": self.system(game.system).phase(game.state),
                "status": game.status,
            }

        try:
            found: dict[str, Any] = self.store.peek(game_uuid(game_id), read)
        except AggregateNotFoundError:
            raise NotFound(f"no game {game_id}", {"game": ["unknown game"]}) from None
        return found

    def viewer_side(self, game: Game, user: User | None, side: str | None) -> str | None:
        """The side whose view ``user`` gets: the asked one if theirs (any once the game has ended),
        else their only side, else None."""
        mine = game.side_of(str(user.id)) if user else []
        if side is not None:
            allowed = list(game.sides) if game.status == "ended" else mine
            return self._own_side(game, allowed, side, "you may only see your own side's view")
        return mine[0] if len(mine) == 1 else None

    def view(self, game: Game, viewer: str | None) -> dict[str, Any]:
        rules = self.system(game.system)
        names = self._names(game)
        state = game.state if game.status == "ended" else rules.view(game.state, viewer)
        return {
            "id": str(game.id),
            "system": game.system,
            "scenario": game.scenario,
            "title": game.labels.get("title", game.scenario),
            "version": game.version,
            "status": game.status,
            "sides": {side: names.get(uid, uid) for side, uid in game.sides.items()},
            "viewer_side": viewer,
            "active_sides": game.active_sides(),
            "phase": rules.phase(game.state),
            "result": game.result,
            # the options in force: as created, then each reading a verdict adopted
            "options": game.options_in_force(),
            "options_at_start": game.options,
            "readings": self._readings(game, names),
            "state": state,
            "counters": rules.drawing.counters(state) if rules.drawing else [],
            "dice": {
                "commitment": game.seed_commitment,
                "next_index": game.next_roll,
                "entropy_count": len(game.entropy),
                "seed": game.seed,
            },
            "takeback": game.takeback,
            "takeback_offer": game.takeback_offer(),
            "disputes": disputes_shown(game),
            "paused_by": game.paused_by(),
            **lifecycle_view(game, names),
            "labels": {k: v for k, v in game.labels.items() if k != "title"},
            "created_at": game.created_on.isoformat(),
            "updated_at": game.modified_on.isoformat(),
        }

    def _readings(self, game: Game, names: Mapping[str, str]) -> list[dict[str, Any]]:
        """Each reading a verdict adopted, in words: "From event 35, Strategic modifier: -2 is in
        force, decided by judge"."""
        out = []
        for dispute, info in game.disputes.items():
            adopted = info.get("adopted")
            if not adopted:
                continue
            uid = str(info.get("arbiter") or "")
            arbiter = names.get(uid) or (self.users.username(uid) if uid else "the arbiter")
            words = [f"{option_label(k)}: {value_words(v)}" for k, v in adopted["reading"].items()]
            if adopted.get("instead"):
                words.append("the command claimed instead")
            out.append(
                {
                    "dispute": dispute,
                    "from_seq": adopted["from_seq"],
                    "reading": adopted["reading"],
                    "text": f"From event {adopted['from_seq']}, {'; '.join(words)} "
                    f"{'is' if len(words) == 1 else 'are'} in force, decided by {arbiter}",
                }
            )
        return out

    def preview(
        self, game: Game, user: User, command: Mapping[str, Any], side: str | None
    ) -> dict[str, Any]:
        """What a command would meet (an attack's odds and modifiers), on the side's own view."""
        side = self.acting_side(game, user, side, must_be_active=False)
        rules = self.system(game.system)
        if rules.previews is None:
            raise Invalid(
                f"{rules.title} previews no command", {"command.type": ["no preview in this game"]}
            )
        try:
            return rules.previews.preview(copy_json(rules.view(game.state, side)), side, command)
        except RuleViolation as exc:
            raise RuleRefused(exc.message, {"rule": [exc.rule]}, rule=exc.rule) from None
        except InvalidCommand as exc:
            details = {f"command.{k}": v for k, v in exc.details.items()}
            raise Invalid(exc.message, details or {"command": [exc.message]}) from None

    def actions(self, game: Game, user: User, side: str | None) -> tuple[str, Actions]:
        """What the caller's side may do now, in the one action vocabulary (empty when it is not
        its turn)."""
        side = self.acting_side(game, user, side, must_be_active=False)
        if side not in game.active_sides():
            return side, Actions()
        return side, self.system(game.system).actions(game.state, side)

    def events(
        self,
        game_id: UUID | str,
        *,
        after: int = 0,
        limit: int = 100,
        viewer: str | None = None,
        full: bool = False,
    ) -> list[dict[str, Any]]:
        """Events ``after`` a version, as ``viewer`` may see them (``full`` for arbiters and audit)."""
        game = self.get(game_id)
        names = self._names(game)
        rules = self.system(game.system)
        stored = self.store.events.get(game.id, gt=after, limit=limit)
        shown_in_full = full or game.status == "ended" or not rules.hidden_information
        items = list(self._worded(game, rules, stored, after, viewer, names, shown_in_full))
        retracted = set(game.retracted)
        for item in items:
            item["retracted"] = item["seq"] in retracted
        return items

    def iter_all_events(self, game_id: UUID | str, *, page: int = 500) -> Iterator[dict[str, Any]]:
        """Every event of a game, in full, page by page (for export and audit)."""
        game = self.get(game_id)
        names = self._names(game)
        after = 0
        while True:
            batch = list(self.store.events.get(game.id, gt=after, limit=page))
            salting = self.presenting(game.id).salt
            for event in batch:
                yield present_event(event, names, salting=salting)
            if len(batch) < page:
                return
            after = batch[-1].originator_version

    def seed_of(self, game: Game) -> str:
        return self.seed_of_id(game.id)

    def seed_of_id(self, game_id: UUID) -> str:
        with self._seeds_lock:
            seed = self._seeds.get(game_id)
        if seed is None:
            vault: DiceSeed = self.store.repository.get(seed_vault_id(game_id))
            seed = vault.seed
            with self._seeds_lock:
                self._seeds[game_id] = seed
        return seed

    def verify_dice(self, game_id: UUID | str) -> dict[str, Any]:
        """Re-derive every recorded roll from the seed (server-side: the seed never leaves)."""
        game = self.get(game_id)
        seed = self.seed_of(game)
        rolls = [
            dice_mod.RecordedRoll(
                r["index"], r["sides"], r["value"], r["entropy"], r.get("purpose", "")
            )
            for event in self.store.events.get(game.id)
            if isinstance(event, Game.DiceRolled)
            for r in event.rolls
        ]
        report = dice_mod.verify(seed, game.seed_commitment, str(game.id), rolls).as_dict()
        report["game"] = str(game.id)
        report["commitment"] = game.seed_commitment
        report["seed_revealed"] = game.seed is not None
        return report

    # -- helpers --------------------------------------------------------------------------------
    def acting_side(
        self, game: Game, user: User, side: str | None, must_be_active: bool = True
    ) -> str:
        """The side ``user`` acts for: the named one if theirs, else the only one of theirs that may
        act now (any of theirs unless ``must_be_active``), else their only side."""
        mine = game.side_of(str(user.id))
        if not mine:
            raise Forbidden(
                "you are not a player of this game", {"side": ["you play no side of this game"]}
            )
        if side is not None:
            return self._own_side(game, mine, side, f"{side} is bound to another user")
        if must_be_active:
            active = game.active_sides()
            candidates = [s for s in mine if s in active]
        else:
            candidates = mine
        if len(candidates) == 1:
            return candidates[0]
        if len(mine) == 1:
            return mine[0]
        raise Invalid("say which side you act for", {"side": [f"you play {', '.join(mine)}"]})

    @staticmethod
    def _own_side(game: Game, mine: list[str], side: str, refusal: str) -> str:
        """``side`` if it is a side of the game and one of ``mine`` (else 422: a side the game
        does not have, or 403 ``refusal``)."""
        if side not in game.sides:
            raise Unprocessable(
                f"no side {side!r}", {"side": [f"unknown side; sides: {', '.join(game.sides)}"]}
            )
        if side not in mine:
            raise Forbidden(f"you do not play {side}", {"side": [refusal]})
        return side

    def _names(self, game: Game) -> dict[str, str]:
        """The players' and the creator's names: this server's users', else (a game imported from
        another server, whose players are not users here) the names its log recorded."""
        names = {
            uid: self.users.username(uid) for uid in set(game.sides.values()) | {game.created_by}
        }
        unknown = [uid for uid, name in names.items() if name == uid]
        if unknown:
            recorded = self.recorded_names(game.id)
            names.update({uid: recorded[uid] for uid in unknown if uid in recorded})
        return names

    def recorded_names(self, game_id: UUID) -> dict[str, str]:
        """The names the game's ``Created`` event recorded (user id -> name)."""
        first = list(self.store.events.get(game_id, lte=Game.INITIAL_VERSION, limit=1))
        if not first or not isinstance(first[0], Game.Created):
            return {}
        return dict(getattr(first[0], "names", None) or {})

    def _worded(
        self,
        game: Game,
        rules: RulesSystem,
        stored: Any,
        after: int,
        viewer: str | None,
        names: dict[str, str],
        in_full: bool,
    ) -> Iterator[dict[str, Any]]:
        """Each stored event as ``viewer`` may see it (all of it when ``in_full``), a rules event
        with its sentence worded from the state before it (units by printed name)."""
        start = copy_json(self.get(game.id, version=after).state) if after >= 1 else None
        ports = self.presenting(game.id)
        for event, state in with_states_before(rules, stored, start):
            item = present_as(
                event,
                state,
                names=names,
                rules=rules,
                ports=ports,
                viewer=viewer,
                in_full=in_full,
            )  # the reader's form, with what verifies it (service.application.events)
            if isinstance(event, Game.Recorded) and state is not None:
                payload = item["payload"]
                shown = RulesEvent(payload["kind"], copy_json(payload["data"]))
                item["text"] = in_words(rules, shown, state)
            yield item


def disputes_shown(game: Game) -> dict[str, dict[str, Any]]:
    """A game's disputes as its readers see them: not who ruled (a user id, named in the log's
    words elsewhere) nor the digest of the what-if a verdict was decided on."""
    return {
        d: {k: v for k, v in info.items() if k not in ("arbiter", "basis")}
        for d, info in game.disputes.items()
    }


def lifecycle_view(game: Game, names: Mapping[str, str]) -> dict[str, Any]:
    """A game's invitation, pending draw offer and clock as a reader sees them (names, not ids)."""
    invitation = None
    if game.invitation is not None:
        invitation = {
            "pending": [names.get(u, u) for u in game.invitation["pending"]],
            "accepted": [names.get(u, u) for u in game.invitation["accepted"]],
            "declined": names.get(game.invitation.get("declined") or "", None),
        }
    offer = game.draw_offer
    claim = game.claim_pending
    clock = game.clock_at(time.time())
    if clock is not None:
        clock["running"] = [side for side, c in clock["sides"].items() if c["running"]]
    return {
        "invitation": invitation,
        "draw_offer": {"side": offer["side"], "by": names.get(offer["user"], "")}
        if offer
        else None,
        "clock": clock,
        "claim": {
            "side": claim["side"],
            "by": names.get(claim["user"], ""),
            "against": claim["against"],
        }
        if claim
        else None,
    }


class RuleRefused(Unprocessable):
    """A command broke a rule; ``rule`` cites it."""

    code = "rule_violation"

    def __init__(self, message: str, details: Mapping[str, list[str]], rule: str) -> None:
        super().__init__(f"{message} ({rule_words(rule)})", details)
        self.rule = rule


def with_states_before(
    rules: RulesSystem, stored: Iterable[Any], state: State | None
) -> Iterator[tuple[Any, State | None]]:
    """Each stored game event with the rules state just before it (``state``: the state before the
    first one, ``None`` when unknown until a Created or Retracted event sets it).  A Created or
    Retracted event is paired with the state it sets; the state is replayed, never re-judged."""
    for event in stored:
        if isinstance(event, Game.Created):
            state = copy_json(event.initial_state)
        elif isinstance(event, Game.Retracted):
            state = copy_json(event.restored_state)
        yield event, state
        if isinstance(event, Game.Recorded) and state is not None:
            state = rules.apply(state, RulesEvent(event.kind, copy_json(event.data)))


def states_before(
    rules: RulesSystem, stored: Iterable[Any], state: State
) -> Iterator[tuple[Any, State]]:
    """:func:`with_states_before` from a known state (a copy is the caller's): never None."""
    for event, before in with_states_before(rules, stored, state):
        assert before is not None
        yield event, before


def in_words(rules: RulesSystem, event: RulesEvent, state_before: State | None) -> str:
    """The rules module's sentence for an event, worded from the state before it (as the viewer
    may see it: a redacted event may lack what a sentence needs, and then its plain form stands)."""
    try:
        return rules.describe(event, state_before)
    except (KeyError, TypeError, ValueError, IndexError):
        return plain_sentence(event)
