"""The Game aggregate: a game's log of immutable events, whatever its rules system.

The aggregate knows nothing of hexes or of any game: it delegates every decision to the rules
system named at creation (``decide``) and rebuilds its state by applying the recorded rules events
(``apply``) -- no validation, no dice, no clock on replay.  It owns what every game shares: the
sides and the users bound to them, whose turn it is (asked of the rules), the dice (commitment,
players' entropy, roll indexes that are never reused), the hash chain and the end of the game.

It reaches its rules and the seal only through the :class:`~service.domain.systems.GamePorts`
given to each command method, and on replay through :func:`projector` (the store's): no globals.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, cast
from uuid import UUID, uuid4, uuid5

from eventsourcing.domain import Aggregate
from eventsourcing.domain import Snapshot as AggregateSnapshot

from service.domain import dice as dice_mod
from service.domain.chain import GENESIS, SEALED_FIELDS, event_hash, every_form, seal_forms
from service.domain.errors import (
    Conflict,
    Forbidden,
    Invalid,
    LimitReached,
    NotFound,
    Unprocessable,
)
from service.domain.systems import GamePorts, RulesPort

ACTIVE = "active"
ENDED = "ended"
INVITED = "invited"  # waiting for every named player to accept (service/application/lifecycle.py)
DECLINED = "declined"  # a named player said no: never started, no result
#: how an arbiter ends a game from outside play (a club event's round past its deadline)
ADJUDICATIONS = ("forfeit", "adjudication")
DAY = 86400.0
CLOCK_KINDS = ("per-turn", "per-move")
TIMEOUT_POLICIES = ("forfeit", "claim", "arbiter")
#: the verdicts a dispute's players may propose to each other in all (each is an event of the
#: game's log): one more is refused with 409 ``limit_reached`` -- past it, an arbiter rules
PROPOSALS_PER_DISPUTE = 10


_SCALARS = frozenset({str, int, float, bool, type(None)})


def copy_json(value: Any) -> Any:
    """A fast deep copy of JSON-compatible data (every dict and list copied, never shared; any
    other value kept as it is).  Plain dicts and lists are told by their exact type and scalars are
    taken without a call: twice as fast as the plain recursion, on every command's copies."""
    kind = type(value)
    if kind is dict:
        return {k: v if type(v) in _SCALARS else copy_json(v) for k, v in value.items()}
    if kind is list:
        return [v if type(v) in _SCALARS else copy_json(v) for v in value]
    if isinstance(value, dict):
        return {k: copy_json(v) for k, v in value.items()}
    if isinstance(value, list):
        return [copy_json(v) for v in value]
    return value


@dataclass(frozen=True)
class Roll:
    """A die drawn for a decision (satisfies the rules' DieRoll shape)."""

    index: int
    sides: int
    value: int
    purpose: str
    entropy: str

    def as_dict(self) -> dict[str, Any]:
        return {
            "index": self.index,
            "sides": self.sides,
            "value": self.value,
            "purpose": self.purpose,
            "entropy": self.entropy,
        }


class ServerDice:
    """The dice of one decision: derived from the secret seed, indexes continuing the game's."""

    def __init__(self, seed: str, game_id: UUID, start: int, entropy: str) -> None:
        self._seed = seed
        self._game_id = str(game_id)
        self._next = start
        self._entropy = entropy
        self.rolled: list[Roll] = []
        #: none: a re-decision's dice (``reused_dice.ReusedDice``) give recorded ones again
        self.reused: tuple[Any, ...] = ()

    def roll(self, sides: int = 6, purpose: str = "") -> Roll:
        value = dice_mod.derive_roll(self._seed, self._game_id, self._next, self._entropy, sides)
        roll = Roll(self._next, sides, value, purpose, self._entropy)
        self._next += 1
        self.rolled.append(roll)
        return roll


class Game(Aggregate):
    # -- events ---------------------------------------------------------------------------------
    class Event(Aggregate.Event):
        prev_hash: str
        hash: str
        seal: str
        #: commitments to each reader's form of the view-dependent fields (see
        #: ``service.domain.chain``); None when nothing is hidden.  Covered by ``hash``.
        sealed: dict[str, Any] | None

        #: bookkeeping events (entropy, takebacks, disputes, retractions) are never retracted
        bookkeeping = False

        def apply(self, aggregate: Any) -> None:
            game = cast(Game, aggregate)
            self.on(game)
            game.last_hash = self.hash
            if self.bookkeeping:
                game.bookkeeping.append(self.originator_version)

        def on(self, game: Game) -> None:  # pragma: no cover - overridden
            pass

    class Created(Event, Aggregate.Created):
        system: str
        scenario: str
        options: dict[str, Any]
        sides: dict[str, str]
        created_by: str
        seed_commitment: str
        initial_state: dict[str, Any]
        labels: dict[str, Any]
        #: user id -> name of the players and the creator, so that names shown are covered
        names: dict[str, str]

        def on(self, game: Game) -> None:
            game.system = self.system
            game.scenario = self.scenario
            game.options = copy_json(self.options)
            game.sides = dict(self.sides)
            game.created_by = self.created_by
            game.seed_commitment = self.seed_commitment
            game.labels = copy_json(self.labels)
            game.state = copy_json(self.initial_state)
            game.status = ACTIVE
            game.result = None
            game.seed = None
            game.entropy = []
            game.rolled_sides = []
            game.next_roll = 0
            game.last_hash = GENESIS
            game.moves = 0
            game.retracted = []
            game.tail = {"side": None, "commands": [], "cut": None}
            game.takeback = None
            game.disputes = {}
            game.bookkeeping = []
            game.invitation = None
            game.draw_offer = None
            game.clock = None
            game.claim_pending = None

    class EntropyAdded(Event):
        bookkeeping = True
        side: str
        user: str
        entropy: str

        def on(self, game: Game) -> None:
            game.entropy.append(f"{self.side}:{self.entropy}")

    class CommandAccepted(Event):
        """A command as its side sent it; the events it caused follow.  ``origin`` is the seq of the
        command it re-decides after a rebase, else None."""

        side: str
        user: str
        command: dict[str, Any]
        origin: int | None

        def on(self, game: Game) -> None:
            if game.tail["side"] != self.side:
                game.tail = {"side": self.side, "commands": [], "cut": None}
            game.tail["commands"].append(self.originator_version)
            game.takeback = None  # a pending takeback request lapses when anyone acts
            if game.draw_offer is not None and game.draw_offer["side"] != self.side:
                game.draw_offer = None  # an unanswered draw offer lapses when the opponent plays

    class DiceRolled(Event):
        side: str
        rolls: list[dict[str, Any]]

        def on(self, game: Game) -> None:
            game.next_roll = max(game.next_roll, max(r["index"] for r in self.rolls) + 1)
            if self.side not in game.rolled_sides:
                game.rolled_sides.append(self.side)
            game.tail["commands"] = []  # a command that rolled dice can never be taken back
            game.tail["cut"] = "dice"

    class DiceReused(Event):
        """Recorded dice given again to a re-decided command (a verdict that adopts a reading or
        another command re-decides the disputed command with the same luck): each roll keeps the
        index, entropy and value it was first recorded with, and names the event (``from_seq``)
        that recorded it; the audit checks each against that roll.  No new index is used."""

        side: str
        rolls: list[dict[str, Any]]

        def on(self, game: Game) -> None:
            game.tail["commands"] = []  # as a roll: a command that used dice is never taken back
            game.tail["cut"] = "dice"

    class Recorded(Event):
        """One rules event (``kind`` is its type, ``data`` its resolved facts).  Its effect on the
        state is the rules': :meth:`Game.absorb` applies it, live and on replay."""

        side: str
        user: str
        kind: str
        data: dict[str, Any]

        def on(self, game: Game) -> None:
            game.moves += 1

    class Ended(Event):
        result: dict[str, Any]
        seed: str

        def on(self, game: Game) -> None:
            game.status = ENDED
            game.result = copy_json(self.result)
            game.seed = self.seed
            game.draw_offer = None
            game.claim_pending = None

    class TakebackRequested(Event):
        bookkeeping = True
        request: str
        side: str
        user: str
        from_seq: int

        def on(self, game: Game) -> None:
            game.takeback = {"request": self.request, "side": self.side, "from_seq": self.from_seq}

    class TakebackAnswered(Event):
        bookkeeping = True
        request: str
        side: str
        user: str
        accepted: bool

        def on(self, game: Game) -> None:
            game.takeback = None

    class Retracted(Event):
        """Events ``seqs`` no longer count; play resumes from ``restored_state`` (the state before the
        first of them, a resolved fact so that replay reads nothing else)."""

        bookkeeping = True
        seqs: list[int]
        restored_state: dict[str, Any]
        reason: str
        ref: str

        def on(self, game: Game) -> None:
            game.retracted.extend(self.seqs)
            game.state = copy_json(self.restored_state)
            game.tail = {"side": None, "commands": [], "cut": None}
            game.takeback = None

    class ChainRepaired(Event):
        """The operator's signed account of breaks in this log that the server itself made (a lost
        race stored an event at another version than it was hashed for): each repair pins the
        broken event by its stored hash and the digest of its content, so the audit reads those
        breaks as explained -- and any later change to those events as tampering again.  History is
        never rewritten; the game's state is not touched."""

        bookkeeping = True
        reason: str
        by: str
        repairs: list[dict[str, Any]]

    class HeadReconciled(Event):
        """The operator's signed record that this game's log was restored or rolled back below
        its anchored head (``lost_head``: the head as it was anchored, signed): play goes on from
        the log as it is, and the head is anchored here again.  The lost events are not
        recovered; this says that they existed and why they are gone."""

        bookkeeping = True
        reason: str
        by: str
        lost_head: dict[str, Any]

    class DisputeOpened(Event):
        bookkeeping = True
        dispute: str
        seq: int
        side: str
        user: str
        claim: str
        citations: list[dict[str, Any]]

        def on(self, game: Game) -> None:
            game.disputes[self.dispute] = {"seq": self.seq, "side": self.side, "status": "open"}

    class DisputeAlternative(Event):
        """What the disputing player says should have happened instead: another reading of the
        rules (``reading``: game options and the values claimed) and/or another command
        (``instead``), for the what-if (``service.application.what_if``)."""

        bookkeeping = True
        dispute: str
        reading: dict[str, Any]
        instead: dict[str, Any] | None

        def on(self, game: Game) -> None:
            game.disputes[self.dispute]["reading"] = copy_json(self.reading)
            game.disputes[self.dispute]["instead"] = copy_json(self.instead)

    class VerdictBasis(Event):
        """The what-if a verdict was decided on: its digest (``what_if``), the alternative it
        showed (``reading``, ``instead``) and the command it re-decides (``from_seq``).  When the
        verdict adopts the alternative (``adopted``), the game's options hold ``reading`` from
        ``from_seq`` on (the Retracted event that follows restores the state with them)."""

        bookkeeping = True
        dispute: str
        what_if: str
        reading: dict[str, Any]
        instead: dict[str, Any] | None
        from_seq: int
        adopted: bool

        def on(self, game: Game) -> None:
            info = game.disputes[self.dispute]
            info["basis"] = self.what_if
            if self.adopted:
                info["adopted"] = {
                    "reading": copy_json(self.reading),
                    "instead": copy_json(self.instead),
                    "from_seq": self.from_seq,
                }

    class DisputeResolved(Event):
        bookkeeping = True
        dispute: str
        arbiter: str
        verdict: str
        remedy: str | None
        citations: list[dict[str, Any]]
        note: str
        club_ruling: str | None

        def on(self, game: Game) -> None:
            game.disputes[self.dispute]["status"] = self.verdict
            game.disputes[self.dispute]["arbiter"] = self.arbiter

    class VerdictProposed(Event):
        """A player proposes how to settle an open dispute between the players themselves, with
        no arbiter (``service.application.dispute_agreement``): the other side's player accepts
        it, or proposes another in its place."""

        bookkeeping = True
        dispute: str
        side: str
        user: str
        verdict: str
        note: str

        def on(self, game: Game) -> None:
            info = game.disputes[self.dispute]
            info["proposal"] = {"side": self.side, "verdict": self.verdict, "note": self.note}
            info["proposals"] = info.get("proposals", 0) + 1

    class VerdictAgreed(Event):
        """The other side's player accepted the proposed verdict: the dispute is resolved by both
        players' agreement (no remedy: nothing is retracted)."""

        bookkeeping = True
        dispute: str
        side: str
        user: str
        verdict: str
        proposed_by: str
        note: str

        def on(self, game: Game) -> None:
            info = game.disputes[self.dispute]
            info.pop("proposal", None)
            info["status"] = self.verdict
            info["agreed"] = True

    class Rebased(Event):
        """What a rebase did with each later command: kept, re-rolled or dropped."""

        bookkeeping = True
        dispute: str
        report: list[dict[str, Any]]

    # -- the game's life: invitations, resignation, draws, clocks (service/application/lifecycle.py)
    class Invited(Event):
        """The named players (user ids) who must accept before the game starts."""

        bookkeeping = True
        pending: list[str]
        by: str

        def on(self, game: Game) -> None:
            game.status = INVITED
            game.invitation = {"pending": list(self.pending), "accepted": [], "by": self.by}

    class InvitationAccepted(Event):
        bookkeeping = True
        user: str
        side: str

        def on(self, game: Game) -> None:
            invitation = copy_json(game.invitation or {"pending": [], "accepted": []})
            invitation["pending"] = [u for u in invitation["pending"] if u != self.user]
            invitation["accepted"].append(self.user)
            game.invitation = invitation
            if not invitation["pending"]:
                game.status = ACTIVE

    class InvitationDeclined(Event):
        bookkeeping = True
        user: str
        side: str

        def on(self, game: Game) -> None:
            invitation = copy_json(game.invitation or {"pending": [], "accepted": []})
            invitation["declined"] = self.user
            game.invitation = invitation
            game.status = DECLINED

    class Resigned(Event):
        bookkeeping = True
        side: str
        user: str

    class Adjudicated(Event):
        """A club's arbiter decided a game of a club event left unfinished at its round's
        deadline: ``kind`` forfeit or adjudication, ``winner`` a side or None (a draw), ``note``
        why.  ``Ended`` follows with that result."""

        bookkeeping = True
        arbiter: str
        kind: str
        winner: str | None
        note: str

    class DrawOffered(Event):
        bookkeeping = True
        side: str
        user: str

        def on(self, game: Game) -> None:
            game.draw_offer = {"side": self.side, "user": self.user}

    class DrawDeclined(Event):
        bookkeeping = True
        side: str
        user: str

        def on(self, game: Game) -> None:
            game.draw_offer = None

    class VacationTaken(Event):
        """``side``'s clock stands still for ``days`` from this event's time."""

        bookkeeping = True
        user: str
        side: str
        days: int

        def on(self, game: Game) -> None:
            clock = copy_json(game.clock)
            if clock is not None:
                start = self.timestamp.timestamp()
                entry = clock["sides"][self.side]
                entry["vacations"].append([start, start + self.days * DAY])
                entry["vacation_left"] -= self.days
                game.clock = clock

    class ClockExpired(Event):
        bookkeeping = True
        side: str

        def on(self, game: Game) -> None:
            clock = copy_json(game.clock)
            if clock is not None:
                clock["sides"][self.side]["expired"] = True
                game.clock = clock

    class ClockLow(Event):
        """``side``'s running clock dropped below its warning threshold (:func:`low_threshold`):
        recorded once per side per game turn (``per-turn``) or move (``per-move``)."""

        bookkeeping = True
        side: str

        def on(self, game: Game) -> None:
            clock = copy_json(game.clock)
            if clock is not None:
                clock["sides"][self.side]["low"] = True
                game.clock = clock

    class Claimed(Event):
        """``side`` (played by ``user``) claims the game from an opponent whose clock ran out.
        Under the ``arbiter`` policy the claim waits (the game paused) for an arbiter's
        :class:`ClaimDecided`; else ``Ended`` follows at once."""

        bookkeeping = True
        side: str
        user: str

        def on(self, game: Game) -> None:
            policy = (game.labels.get("clock") or {}).get("on_timeout", "claim")
            if policy == "arbiter":
                late = [
                    s for s, c in (game.clock or {"sides": {}})["sides"].items() if c["expired"]
                ]
                against = next((s for s in late if s != self.side), None)
                game.claim_pending = {"side": self.side, "user": self.user, "against": against}

    class ClaimDecided(Event):
        """An arbiter's decision on a claim on time: ``forfeit`` (``Ended`` follows) or ``continue``
        (the late side gets a whole allowance again and play goes on)."""

        bookkeeping = True
        arbiter: str
        decision: str
        note: str

        def on(self, game: Game) -> None:
            pending = game.claim_pending
            game.claim_pending = None
            clock = copy_json(game.clock)
            config = game.labels.get("clock") or {}
            if self.decision == "continue" and clock is not None and pending and pending["against"]:
                entry = clock["sides"][pending["against"]]
                entry["expired"] = False
                entry["low"] = False
                entry["remaining"] = float(config.get("days", 0)) * DAY
                game.clock = clock

    # -- attributes (set by Created.on) ------------------------------------------------------------
    system: str
    scenario: str
    options: dict[str, Any]
    sides: dict[str, str]
    created_by: str
    seed_commitment: str
    labels: dict[str, Any]
    state: dict[str, Any]
    status: str
    result: dict[str, Any] | None
    seed: str | None
    entropy: list[str]
    rolled_sides: list[str]
    next_roll: int
    last_hash: str
    moves: int
    retracted: list[int]
    tail: dict[str, Any]
    takeback: dict[str, Any] | None
    disputes: dict[str, dict[str, Any]]
    bookkeeping: list[int]
    #: the game's rules, to ask whose turn it is (:meth:`attach`; never stored nor snapshotted)
    _rules: RulesPort
    invitation: dict[str, Any] | None
    draw_offer: dict[str, Any] | None
    #: a claim on time waiting for an arbiter (the ``arbiter`` timeout policy)
    claim_pending: dict[str, Any] | None
    #: the correspondence clock, a projection of the events' times (:meth:`tick`), else None
    clock: dict[str, Any] | None

    #: the shape of a snapshot's state (docs/upgrades.md); a snapshot of an older shape is upcast
    class_version = 2

    @staticmethod
    def upcast_v1_v2(state: dict[str, Any]) -> None:
        """Snapshots taken before games had invitations, draw offers, correspondence clocks and
        claims on time (2026-11-23) lack those attributes: a game then had none of them."""
        for name in ("invitation", "draw_offer", "claim_pending", "clock"):
            state.setdefault(name, None)

    class Snapshot(AggregateSnapshot):
        @classmethod
        def take(cls, aggregate: Any) -> Any:
            snapshot = super().take(aggregate)
            snapshot.state.pop("_rules", None)
            return snapshot

    def __init__(self) -> None:  # all attributes are set by Created.on
        pass

    def __deepcopy__(self, memo: dict[int, Any]) -> Game:
        """A copy for a command (the repository copies cached aggregates): the attributes are JSON
        data, datetimes, a UUID and the (immutable) pending events, so a JSON copy is enough."""
        twin = object.__new__(type(self))
        twin.__dict__.update({k: copy_json(v) for k, v in self.__dict__.items()})
        return twin

    # -- commands ---------------------------------------------------------------------------------
    @classmethod
    def start(
        cls,
        *,
        system: str,
        scenario: str,
        options: Mapping[str, Any],
        sides: Mapping[str, str],
        created_by: str,
        seed: str,
        initial_state: dict[str, Any],
        ports: GamePorts,
        labels: Mapping[str, Any] | None = None,
        game_id: UUID | None = None,
        names: Mapping[str, str] | None = None,
    ) -> Game:
        game_id = game_id or uuid4()
        payload: dict[str, Any] = {
            "system": system,
            "scenario": scenario,
            "options": copy_json(dict(options)),
            "sides": dict(sides),
            "created_by": created_by,
            "seed_commitment": dice_mod.commitment(seed),
            "initial_state": copy_json(initial_state),
            "labels": copy_json(dict(labels or {})),
            "names": dict(names or {}),
            "prev_hash": GENESIS,
        }
        payload["sealed"] = _sealed(
            ports, system, game_id, cls.INITIAL_VERSION, "Game.Created", payload, None, list(sides)
        )
        timestamp = cls.Created.create_timestamp()
        digest = event_hash(game_id, cls.INITIAL_VERSION, "Game.Created", timestamp, payload)
        game = cls._create(
            cls.Created,
            id=game_id,
            timestamp=timestamp,
            hash=digest,
            seal=ports.seal(digest),
            **payload,
        )
        game.attach(ports)
        game.settle(game.pending_events[-1], ports)
        return game

    def _record(self, ports: GamePorts, event_class: type[Game.Event], **payload: Any) -> None:
        payload["prev_hash"] = self.last_hash
        timestamp = event_class.create_timestamp()
        kind = event_class.__qualname__
        payload["sealed"] = _sealed(
            ports,
            self.system,
            self.id,
            self.version + 1,
            kind,
            payload,
            self.state,
            list(self.sides),
        )
        digest = event_hash(self.id, self.version + 1, kind, timestamp, payload)
        self.trigger_event(
            event_class, timestamp=timestamp, hash=digest, seal=ports.seal(digest), **payload
        )
        self.settle(self.pending_events[-1], ports)

    # -- the one path of a game's state, live and on replay ---------------------------------------
    def settle(self, event: Any, ports: GamePorts) -> None:
        """What follows an event's own ``apply`` -- the same live (:meth:`_record`,
        :meth:`create`) and on replay (:func:`projector`), in the same order: a recorded rules
        event is absorbed with the game's rules, then the clock is ticked with the event's time."""
        if isinstance(event, Game.Recorded):
            self.absorb(ports, event.kind, event.data)
        if self.labels.get("clock"):
            if "_rules" not in self.__dict__:
                self.attach(ports)
            self.tick()

    # -- what the rules make of the recorded events (live and on replay) ---------------------------
    def absorb(self, ports: GamePorts, kind: str, data: Mapping[str, Any]) -> None:
        """Apply one recorded rules event to the state with the game's rules (on a copy of
        ``data``, so an ``apply`` that keeps a reference never corrupts the event), and note when it
        revealed hidden information: the commands before it can no longer be taken back."""
        rules = ports.rules(self.system)
        event = ports.rules_event(kind, copy_json(dict(data)))
        if rules.reveals(event):
            self.tail["commands"] = []
            self.tail["cut"] = "reveals"
        self.state = rules.apply(self.state, event)

    def attach(self, ports: GamePorts) -> None:
        """Give the game its rules to answer whose turn it is (:meth:`active_sides`); the store's
        projector attaches them to every game it rebuilds, :meth:`start` and :meth:`execute` too."""
        self._rules = ports.rules(self.system)

    def side_of(self, user: str) -> list[str]:
        return [side for side, bound in self.sides.items() if bound == user]

    def active_sides(self) -> list[str]:
        if self.status != ACTIVE:
            return []
        return list(self._rules.active_sides(self.state))

    def require_active(self) -> None:
        """409 unless the game is being played (not waiting for invitations, declined or ended)."""
        if self.status == INVITED:
            waiting = len((self.invitation or {}).get("pending", []))
            raise Conflict(
                "the game has not started: it waits for its invited players",
                {"game": [f"waiting for {waiting} invited player(s) to accept"]},
            )
        if self.status == DECLINED:
            raise Conflict(
                "the game never started: an invited player declined",
                {"game": ["the invitation was declined"]},
            )
        if self.status != ACTIVE:
            raise Conflict("the game is over", {"game": ["the game has ended"]})

    def check_may_act(self, side: str, user: str) -> None:
        self.require_active()
        if side not in self.sides:
            raise Unprocessable(
                f"no side {side!r} in this game", {"side": [f"unknown side {side!r}"]}
            )
        if self.sides[side] != user:
            raise Forbidden(
                f"you do not play {side}", {"side": [f"{side} is bound to another user"]}
            )
        paused_by = self.paused_by()
        if paused_by:
            raise Conflict(
                "the game is paused while a dispute is open",
                {"game": [f"paused by dispute {paused_by}"]},
            )
        if self.claim_pending is not None:
            raise Conflict(
                "the game is paused while an arbiter decides a claim on time",
                {"game": ["a claim on time waits for an arbiter"]},
            )
        active_sides = self.active_sides()
        if side not in active_sides:
            active = ", ".join(active_sides) or "nobody"
            raise Forbidden(
                f"it is not {side}'s turn or phase (now: {active})",
                {"side": [f"{side} may not act now; active: {active}"]},
            )

    def paused_by(self) -> str | None:
        """The open dispute that pauses the game, if disputes pause it (a ladder or scenario setting)."""
        if not self.labels.get("pause_on_dispute"):
            return None
        return next((d for d, info in self.disputes.items() if info["status"] == "open"), None)

    def execute(
        self,
        *,
        side: str,
        user: str,
        command: Mapping[str, Any],
        seed: str,
        ports: GamePorts,
        origin: int | None = None,
        witness: Callable[[Any, Any], None] | None = None,
        dice: Callable[[ServerDice], Any] | None = None,
    ) -> int:
        """Decide ``command`` for ``side`` and record it and what it causes.  Returns how many events.

        ``witness(event, state)`` is told each rules event with the state just before it, as the
        event is applied (so that a caller words the events without copying the state and applying
        them a second time); it must not change either.  ``dice(server_dice)``: the dice the
        decision rolls instead of the game's own (a re-decision's recorded dice first:
        :class:`~service.domain.reused_dice.ReusedDice`); its ``reused`` rolls are recorded as
        :class:`DiceReused`, its ``rolled`` ones as :class:`DiceRolled`."""
        self.attach(ports)
        self.check_may_act(side, user)
        rules = self._rules
        server_dice = ServerDice(
            seed, self.id, self.next_roll, dice_mod.entropy_digest(self.entropy)
        )
        rolling = dice(server_dice) if dice is not None else server_dice
        # the declaration's loaded fields, never the raw body: nothing outside the declared shape
        # is stored (an InvalidCommand naming the field otherwise)
        parsed = rules.parse_command(self.state, command)
        decided = rules.decide(self.state, side, parsed, rolling)
        before = self.version
        self._record(
            ports,
            self.CommandAccepted,
            side=side,
            user=user,
            command=copy_json(parsed),
            origin=origin,
        )
        if rolling.reused:
            self._record(
                ports, self.DiceReused, side=side, rolls=[r.record() for r in rolling.reused]
            )
        if rolling.rolled:
            self._record(
                ports, self.DiceRolled, side=side, rolls=[r.as_dict() for r in rolling.rolled]
            )
        for event in decided:
            data = copy_json(event.data)
            if witness is not None:  # the state before the event: it changes as it is settled
                witness(ports.rules_event(event.type, copy_json(data)), self.state)
            self._record(ports, self.Recorded, side=side, user=user, kind=event.type, data=data)
        outcome = rules.result(self.state)
        if outcome is not None:
            self._record(ports, self.Ended, result=copy_json(outcome), seed=seed)
        return self.version - before

    def add_entropy(self, *, side: str, user: str, entropy: str, ports: GamePorts) -> None:
        self.require_active()
        if self.sides.get(side) != user:
            raise Forbidden(
                f"you do not play {side}", {"side": [f"{side} is bound to another user"]}
            )
        if side in self.rolled_sides:
            raise Conflict(
                "entropy may only be added before the side's first roll",
                {"entropy": [f"{side} has already rolled"]},
            )
        if not 1 <= len(entropy) <= 256:
            raise Unprocessable(
                "entropy must be 1 to 256 characters", {"entropy": ["1 to 256 characters"]}
            )
        self._record(ports, self.EntropyAdded, side=side, user=user, entropy=entropy)

    def repair_chain(
        self, *, reason: str, by: str, repairs: list[dict[str, Any]], ports: GamePorts
    ) -> None:
        """Record the operator's explanation of the log's breaks (:class:`ChainRepaired`)."""
        if not reason.strip() or len(reason) > 2000:
            raise Unprocessable(
                "say why the log is repaired (1 to 2000 characters)",
                {"reason": ["1 to 2000 characters"]},
            )
        if not repairs:
            raise Unprocessable("nothing to repair", {"repairs": ["the log has no breaks"]})
        self._record(ports, self.ChainRepaired, reason=reason.strip(), by=by, repairs=repairs)

    def reconcile_head(
        self, *, reason: str, by: str, lost_head: Mapping[str, Any], ports: GamePorts
    ) -> None:
        """Record the operator's reconciliation of a log restored below its head
        (:class:`HeadReconciled`)."""
        if not reason.strip() or len(reason) > 2000:
            raise Unprocessable(
                "say why the log is behind its head (1 to 2000 characters)",
                {"reason": ["1 to 2000 characters"]},
            )
        self._record(
            ports, self.HeadReconciled, reason=reason.strip(), by=by, lost_head=dict(lost_head)
        )

    # -- invitations ---------------------------------------------------------------------------------
    def invite(self, *, by: str, ports: GamePorts) -> list[str]:
        """Right after creation: every named player but ``by`` must accept before play starts.
        Returns who must accept (nothing is recorded when nobody must)."""
        pending = list(dict.fromkeys(u for u in self.sides.values() if u != by))
        if pending:
            if self.version != self.INITIAL_VERSION:
                raise Conflict("only a new game invites", {"game": ["already under way"]})
            self._record(ports, self.Invited, pending=pending, by=by)
        return pending

    def _invited_side(self, user: str) -> str:
        if self.status != INVITED or self.invitation is None:
            raise Conflict(
                "there is no invitation to answer", {"game": [f"the game is {self.status}"]}
            )
        if user not in self.invitation["pending"]:
            mine = self.side_of(user)
            raise Forbidden(
                "this invitation is not yours to answer"
                if not mine
                else "you have already accepted this invitation",
                {"user": ["not invited to this game" if not mine else "already accepted"]},
            )
        return self.side_of(user)[0]

    def accept_invitation(self, *, user: str, ports: GamePorts) -> None:
        side = self._invited_side(user)
        self._record(ports, self.InvitationAccepted, user=user, side=side)

    def decline_invitation(self, *, user: str, ports: GamePorts) -> None:
        side = self._invited_side(user)
        self._record(ports, self.InvitationDeclined, user=user, side=side)

    # -- ending a game before its rules do ---------------------------------------------------------
    def _own_side(self, side: str, user: str) -> None:
        if side not in self.sides:
            raise Unprocessable(f"no side {side!r} in this game", {"side": ["unknown side"]})
        if self.sides[side] != user:
            raise Forbidden(
                f"you do not play {side}", {"side": [f"{side} is bound to another user"]}
            )

    def _others(self, side: str) -> list[str]:
        return [s for s in self.sides if s != side]

    def loss_of(self, side: str, reason: str) -> dict[str, Any]:
        """The result when ``side`` loses by ``reason`` (resignation, timeout, abandon), in the shape
        of the rules' own results so that ladders and campaigns take it as a played-out one."""
        others = self._others(side)
        winner = others[0] if len(others) == 1 else None
        return {
            "winner": winner,
            "outcome": "win" if winner else "loss",
            "level": reason,
            "reason": reason,
            "loser": side,
        }

    def resign(self, *, side: str, user: str, seed: str, ports: GamePorts) -> None:
        self.require_active()
        self._own_side(side, user)
        self._record(ports, self.Resigned, side=side, user=user)
        self._record(ports, self.Ended, result=self.loss_of(side, "resignation"), seed=seed)

    def adjudicate(
        self,
        *,
        arbiter: str,
        kind: str,
        winner: str | None,
        note: str,
        seed: str,
        ports: GamePorts,
    ) -> None:
        """End the game from outside play (a club event's arbiter, after the round's deadline):
        ``winner`` wins by ``kind`` (forfeit or adjudication), or a draw when None.  The game may
        still wait for its invitations (a player who never accepted forfeits it too)."""
        if self.status in (ENDED, DECLINED):
            raise Conflict("the game is over", {"game": ["it has ended already"]})
        if arbiter in self.sides.values():
            raise Forbidden(
                "a player of this game may not decide it", {"arbiter": ["plays this game"]}
            )
        if kind not in ADJUDICATIONS:
            raise Invalid("unknown kind of result", {"kind": [" or ".join(ADJUDICATIONS)]})
        if winner is not None and winner not in self.sides:
            raise Invalid(f"no side {winner!r}", {"winner": [", ".join(self.sides) + " or null"]})
        self._record(
            ports, self.Adjudicated, arbiter=arbiter, kind=kind, winner=winner, note=note[:500]
        )
        losers = self._others(winner) if winner is not None else []
        result: dict[str, Any] = {
            "winner": winner,
            "outcome": "win" if winner else "draw",
            "level": kind,
            "reason": kind,
        }
        if len(losers) == 1:
            result["loser"] = losers[0]
        self._record(ports, self.Ended, result=result, seed=seed)

    def offer_draw(self, *, side: str, user: str, ports: GamePorts) -> None:
        self.require_active()
        self._own_side(side, user)
        offer = self.draw_offer
        if offer is not None and offer["side"] == side:
            raise Conflict(
                "you have already offered a draw",
                {"draw": ["already offered; wait for the answer"]},
            )
        if offer is not None:
            raise Conflict(
                f"{offer['side']} has offered a draw: accept or decline it",
                {"draw": ["an offer from your opponent is pending; answer it"]},
            )
        self._record(ports, self.DrawOffered, side=side, user=user)

    def _draw_to_answer(self, side: str, user: str) -> None:
        self.require_active()
        self._own_side(side, user)
        offer = self.draw_offer
        if offer is None:
            raise Conflict("no draw offer is pending", {"draw": ["nothing to answer"]})
        if offer["side"] == side:
            raise Forbidden("only the opponent answers a draw offer", {"side": ["you offered it"]})

    def accept_draw(self, *, side: str, user: str, seed: str, ports: GamePorts) -> None:
        self._draw_to_answer(side, user)
        result = {"winner": None, "outcome": "draw", "level": "draw", "reason": "agreement"}
        self._record(ports, self.Ended, result=result, seed=seed)

    def decline_draw(self, *, side: str, user: str, ports: GamePorts) -> None:
        self._draw_to_answer(side, user)
        self._record(ports, self.DrawDeclined, side=side, user=user)

    # -- the correspondence clock: a projection of the events' times ----------------------------------
    def tick(self) -> None:
        """Charge the time since the previous event to the sides that were running, then start the
        clocks of the sides active now.  Called after every event is applied, live and on replay
        (:func:`projector`), with the event's own time: the same log gives the same clock."""
        config = self.labels.get("clock")
        if not config:
            return
        now = self.modified_on.timestamp()
        allowance = float(config["days"]) * DAY
        clock = copy_json(self.clock)
        if clock is None:
            clock = {
                "turn": None,
                "sides": {
                    side: {
                        "remaining": allowance,
                        "since": None,
                        "vacations": [],
                        "vacation_left": int(config.get("vacation_days", 0)),
                        "expired": False,
                        "low": False,
                    }
                    for side in self.sides
                },
            }
        for entry in clock["sides"].values():
            if entry["since"] is not None:
                entry["remaining"] -= running_time(entry, entry["since"], now)
        # who has the move (the rules), and whose clock runs: not while a dispute or a claim pauses
        active = self.active_sides()
        stopped = self.paused_by() is not None or self.claim_pending is not None
        running = [] if stopped else active
        moved_on = [side for side in active if side not in clock.get("active", [])]
        clock["active"] = active
        if config["kind"] == "per-turn":
            turn = (self._rules.phase(self.state) or {}).get("turn") if active else clock["turn"]
            if turn != clock["turn"] and clock["turn"] is not None:
                for entry in clock["sides"].values():
                    entry["remaining"] = allowance  # a new game turn: a whole allowance
                    entry["expired"] = False
                    entry["low"] = False
            clock["turn"] = turn
        for side, entry in clock["sides"].items():
            if side in moved_on and config["kind"] == "per-move":
                # a fresh allowance for each move (a pause resumes the same move): a side that ran
                # out and was not claimed against before it had the move again starts afresh
                entry["remaining"] = allowance
                entry["expired"] = False
                entry["low"] = False
            if side in running:
                entry["since"] = now
            else:
                entry["since"] = None
        self.clock = clock

    def clock_at(self, now: float) -> dict[str, Any] | None:
        """The clock read at ``now`` (seconds since the epoch): each side's remaining seconds, whether
        it runs, its vacation; None when the game has no clock."""
        config = self.labels.get("clock")
        if not config or self.clock is None:
            return None
        sides = {}
        for side, entry in self.clock["sides"].items():
            remaining = entry["remaining"]
            if entry["since"] is not None:
                remaining -= running_time(entry, entry["since"], now)
            on_vacation = any(start <= now < end for start, end in entry["vacations"])
            sides[side] = {
                "remaining_seconds": round(remaining, 1),
                "running": entry["since"] is not None and not on_vacation,
                "on_vacation": on_vacation,
                "vacation_until": max((end for _, end in entry["vacations"]), default=None)
                if on_vacation
                else None,
                "vacation_days_left": entry["vacation_left"],
                "expired": entry["expired"] or (entry["since"] is not None and remaining <= 0),
                "expiry_recorded": entry["expired"],
                "low": 0 < remaining < low_threshold(config),
                "low_recorded": bool(entry.get("low", False)),
            }
        return {"config": copy_json(config), "sides": sides}

    def take_vacation(self, *, side: str, user: str, days: int, ports: GamePorts) -> None:
        self.require_active()
        self._own_side(side, user)
        if self.clock is None:
            raise Conflict("this game has no clock", {"vacation": ["the game is not timed"]})
        left = self.clock["sides"][side]["vacation_left"]
        if isinstance(days, bool) or not isinstance(days, int) or days < 1:
            raise Unprocessable("vacation is a whole number of days", {"days": ["1 or more"]})
        if days > left:
            raise Unprocessable(f"only {left} vacation day(s) left", {"days": [f"at most {left}"]})
        self._record(ports, self.VacationTaken, user=user, side=side, days=days)

    def expire_clock(self, *, now: float, seed: str, ports: GamePorts) -> list[str]:
        """Record the expiry of every running clock that has run out at ``now`` (idempotent: an
        expiry is recorded once); with the ``forfeit`` policy the game ends at once."""
        read = self.clock_at(now)
        if read is None or self.status != ACTIVE:
            return []
        expired = [s for s, c in read["sides"].items() if c["expired"] and not c["expiry_recorded"]]
        for side in expired:
            self._record(ports, self.ClockExpired, side=side)
        if expired and read["config"].get("on_timeout", "claim") == "forfeit":
            self._record(ports, self.Ended, result=self.loss_of(expired[0], "timeout"), seed=seed)
        return expired

    def warn_low_clock(self, *, now: float, ports: GamePorts) -> list[str]:
        """Record ``ClockLow`` for every running clock that has dropped below its threshold
        (:func:`low_threshold`) at ``now`` and has not run out; idempotent: once per side per game
        turn or move (the flag is cleared with the fresh allowance, :meth:`tick`)."""
        read = self.clock_at(now)
        if read is None or self.status != ACTIVE:
            return []
        low = [
            side
            for side, c in read["sides"].items()
            if c["running"] and c["low"] and not c["low_recorded"] and not c["expired"]
        ]
        for side in low:
            self._record(ports, self.ClockLow, side=side)
        return low

    def clock_due(self, now: float) -> float | None:
        """When the clock checks must next look at this game (seconds since the epoch): the first
        moment, not before ``now``, at which :meth:`expire_clock` or :meth:`warn_low_clock` would
        record something if no other event came meanwhile -- a running clock's expiry or its
        low-clock warning, pushed on by its vacations (a warning waits for the vacation's end).
        None when neither ever would: no clock, the game not being played, no clock running (a
        pause for a dispute or a claim), or both already recorded.  Every event may change it."""
        config = self.labels.get("clock")
        if not config or self.clock is None or self.status != ACTIVE:
            return None
        threshold = low_threshold(config)
        found = []
        for entry in self.clock["sides"].values():
            if entry["since"] is None or entry["expired"]:
                continue  # not running, or its expiry recorded: no warning after it either
            found.append(charged_reach(entry, entry["remaining"], now, strict=False))
            if not entry.get("low", False):
                found.append(charged_reach(entry, entry["remaining"] - threshold, now, strict=True))
        return min((t for t in found if t is not None), default=None)

    def claim(self, *, side: str, user: str, now: float, seed: str, ports: GamePorts) -> str:
        """``side`` claims the game from an opponent whose clock has run out: the opponent loses
        on time.  Returns the side that lost."""
        self.require_active()
        self._own_side(side, user)
        if self.claim_pending is not None:
            raise Conflict("a claim already waits for an arbiter", {"claim": ["already claimed"]})
        read = self.clock_at(now)
        if read is None:
            raise Conflict("this game has no clock", {"claim": ["the game is not timed"]})
        late = [s for s, c in read["sides"].items() if s != side and c["expired"]]
        if not late:
            raise Conflict(
                "no opponent's clock has run out", {"claim": ["the opponent still has time"]}
            )
        if not read["sides"][late[0]]["expiry_recorded"]:
            self._record(ports, self.ClockExpired, side=late[0])
        self._record(ports, self.Claimed, side=side, user=user)
        if read["config"].get("on_timeout", "claim") != "arbiter":
            self._record(ports, self.Ended, result=self.loss_of(late[0], "timeout"), seed=seed)
        return late[0]

    def decide_claim(
        self, *, arbiter: str, decision: str, note: str, seed: str, ports: GamePorts
    ) -> None:
        """An arbiter (never a player of the game) decides a claim on time: ``forfeit`` ends the
        game against the late side, ``continue`` gives it a whole allowance again."""
        pending = self.claim_pending
        if pending is None:
            raise Conflict("no claim waits for a decision", {"claim": ["nothing to decide"]})
        if arbiter in self.sides.values():
            raise Forbidden(
                "a player of this game may not decide its claim", {"arbiter": ["plays this game"]}
            )
        if decision not in ("forfeit", "continue"):
            raise Invalid("decide forfeit or continue", {"decision": ["forfeit or continue"]})
        self._record(ports, self.ClaimDecided, arbiter=arbiter, decision=decision, note=note)
        if decision == "forfeit":
            loser = pending["against"]
            self._record(ports, self.Ended, result=self.loss_of(loser, "timeout"), seed=seed)

    # -- takebacks ---------------------------------------------------------------------------------
    @property
    def takeback_policy(self) -> str:
        """never, casual (not in a rated game) or always (the default)."""
        return str(self.labels.get("takeback_policy", "always"))

    def _takebacks_forbidden(self, policy: str) -> bool:
        return policy == "never" or (policy == "casual" and bool(self.labels.get("rated")))

    def takeback_offer(self) -> dict[str, Any] | None:
        """The side whose latest commands a take back may ask for now and their seqs, or None
        (no command since the other side acted, dice rolled or information revealed since, the
        game not under way, or its policy forbids take backs)."""
        if (
            self.status != "active"
            or self._takebacks_forbidden(self.takeback_policy)
            or not self.tail["commands"]
        ):
            return None
        return {"side": self.tail["side"], "seqs": list(self.tail["commands"])}

    def request_takeback(
        self, *, side: str, user: str, from_seq: int | None, ports: GamePorts
    ) -> str:
        """Ask to take back ``side``'s latest commands from ``from_seq`` (default: the last one).

        Allowed while no die has been rolled and no hidden information revealed by them, and the
        opponent has not acted since; the game's :attr:`takeback_policy` may forbid takebacks."""
        policy = self.takeback_policy
        if self._takebacks_forbidden(policy):
            raise Forbidden(
                "takebacks are not allowed in this game", {"takeback": [f"policy: {policy}"]}
            )
        self.require_active()
        if self.sides.get(side) != user:
            raise Forbidden(
                f"you do not play {side}", {"side": [f"{side} is bound to another user"]}
            )
        mine = self.tail["side"] == side
        commands = self.tail["commands"] if mine else []
        if not commands and mine and self.tail["cut"] == "dice":
            raise Conflict(
                "dice have been rolled since; no takeback", {"takeback": ["dice were rolled"]}
            )
        if not commands and mine and self.tail["cut"] == "reveals":
            raise Conflict(
                "hidden information has been revealed since; no takeback",
                {"takeback": ["hidden information was revealed"]},
            )
        if not commands:
            raise Conflict(
                "there is nothing of yours to take back: the opponent has acted since",
                {"takeback": ["no own command since the opponent last acted"]},
            )
        first = commands[-1] if from_seq is None else from_seq
        if first not in commands:
            raise Unprocessable(
                f"seq {first} is not one of your latest commands",
                {"from_seq": [f"one of {', '.join(map(str, commands))}"]},
            )
        if self.takeback is not None:
            raise Conflict(
                "a takeback request is already pending", {"takeback": ["already pending"]}
            )
        request = f"t{self.version + 1}"
        self._record(
            ports, self.TakebackRequested, request=request, side=side, user=user, from_seq=first
        )
        return request

    def answer_takeback(
        self,
        *,
        side: str,
        user: str,
        accept: bool,
        restored_state: Mapping[str, Any] | None,
        ports: GamePorts,
    ) -> None:
        """The opponent accepts (the commands are retracted) or declines."""
        pending = self.takeback
        if pending is None:
            raise Conflict("no takeback request is pending", {"takeback": ["nothing to answer"]})
        if self.sides.get(side) != user:
            raise Forbidden(
                f"you do not play {side}", {"side": [f"{side} is bound to another user"]}
            )
        if side == pending["side"]:
            raise Forbidden(
                "only the opponent answers a takeback request", {"side": ["you asked for it"]}
            )
        request = pending["request"]
        self._record(
            ports, self.TakebackAnswered, request=request, side=side, user=user, accepted=accept
        )
        if accept:
            if restored_state is None:
                raise ValueError("an accepted takeback needs the state to restore")
            skip = set(self.retracted) | set(self.bookkeeping)
            seqs = [s for s in range(pending["from_seq"], self.version) if s not in skip]
            self._record(
                ports,
                self.Retracted,
                seqs=seqs,
                restored_state=copy_json(dict(restored_state)),
                reason="takeback",
                ref=request,
            )

    # -- disputes ----------------------------------------------------------------------------------
    def open_dispute(
        self,
        *,
        side: str,
        user: str,
        seq: int,
        claim: str,
        citations: list[dict[str, Any]],
        ports: GamePorts,
        reading: Mapping[str, Any] | None = None,
        instead: Mapping[str, Any] | None = None,
    ) -> str:
        """Open a dispute of event ``seq``; ``reading`` (options and values) and ``instead`` (a
        command) name what the player says should have happened (checked by the application)."""
        if self.sides.get(side) != user:
            raise Forbidden(
                "only the players of a game dispute its events", {"side": ["not your side"]}
            )
        if not 1 < seq <= self.version:
            raise Unprocessable(f"no event {seq} to dispute", {"seq": [f"2 to {self.version}"]})
        if seq in self.retracted:
            raise Conflict(f"event {seq} is already retracted", {"seq": ["already retracted"]})
        if seq in self.bookkeeping:
            raise Unprocessable(
                f"event {seq} is bookkeeping (entropy, takeback, dispute), not a game event",
                {"seq": ["dispute a command or its effects"]},
            )
        if any(d["seq"] == seq and d["status"] == "open" for d in self.disputes.values()):
            raise Conflict(f"event {seq} is already under dispute", {"seq": ["a dispute is open"]})
        if not claim.strip():
            raise Unprocessable("say what is wrong", {"claim": ["required"]})
        dispute = f"d{self.version + 1}"
        self._record(
            ports,
            self.DisputeOpened,
            dispute=dispute,
            seq=seq,
            side=side,
            user=user,
            claim=claim,
            citations=copy_json(citations),
        )
        if reading or instead:
            self._record(
                ports,
                self.DisputeAlternative,
                dispute=dispute,
                reading=copy_json(dict(reading or {})),
                instead=copy_json(dict(instead)) if instead else None,
            )
        return dispute

    def propose_verdict(
        self, *, dispute: str, side: str, user: str, verdict: str, note: str, ports: GamePorts
    ) -> None:
        """A player of an open dispute's game proposes to settle it by agreement."""
        info = self._open_dispute_of(dispute, side, user)
        if verdict not in ("upheld", "overturned"):
            raise Unprocessable(
                "verdict must be upheld or overturned", {"verdict": ["upheld or overturned"]}
            )
        proposal = info.get("proposal")
        if proposal and proposal["side"] == side and proposal["verdict"] == verdict:
            raise Conflict("you proposed this verdict already", {"verdict": ["already proposed"]})
        if info.get("proposals", 0) >= PROPOSALS_PER_DISPUTE:
            raise LimitReached(
                f"a dispute takes at most {PROPOSALS_PER_DISPUTE} proposals: ask an arbiter",
                {"verdict": [f"{PROPOSALS_PER_DISPUTE} proposals made; no more"]},
            )
        self._record(
            ports,
            self.VerdictProposed,
            dispute=dispute,
            side=side,
            user=user,
            verdict=verdict,
            note=note,
        )

    def accept_verdict(self, *, dispute: str, side: str, user: str, ports: GamePorts) -> None:
        """The other side's player accepts the proposed verdict: the dispute is resolved."""
        info = self._open_dispute_of(dispute, side, user)
        proposal = info.get("proposal")
        if not proposal:
            raise Conflict("no verdict is proposed", {"dispute": ["nothing to accept yet"]})
        if proposal["side"] == side or self.sides.get(proposal["side"]) == user:
            raise Forbidden(
                "the other side's player accepts a proposal",
                {"side": ["you proposed it: the other side accepts it"]},
            )
        self._record(
            ports,
            self.VerdictAgreed,
            dispute=dispute,
            side=side,
            user=user,
            verdict=proposal["verdict"],
            proposed_by=self.sides.get(proposal["side"], ""),
            note=proposal["note"],
        )

    def _open_dispute_of(self, dispute: str, side: str, user: str) -> dict[str, Any]:
        if self.sides.get(side) != user:
            raise Forbidden("you do not play this side", {"side": ["not your side"]})
        info = self.disputes.get(dispute)
        if info is None:
            raise NotFound(f"no dispute {dispute} in this game", {"dispute": ["unknown dispute"]})
        if info["status"] != "open":
            raise Conflict("the dispute is already decided", {"dispute": ["already decided"]})
        return info

    def resolve_dispute(
        self,
        *,
        dispute: str,
        arbiter: str,
        verdict: str,
        remedy: str | None,
        citations: list[dict[str, Any]],
        note: str,
        club_ruling: str | None,
        ports: GamePorts,
        retract: list[int] | None = None,
        restored_state: Mapping[str, Any] | None = None,
        basis: Mapping[str, Any] | None = None,
    ) -> None:
        """Record the arbiter's decision; for an overturn also retract the events ``retract`` and
        resume from ``restored_state`` (the application works both out from the log: see
        ``service.application.disputes``).  A ``rebase`` goes on with :meth:`execute` (``origin``:
        the command re-decided) for each later command and ends with :meth:`finish_rebase`."""
        info = self.disputes.get(dispute)
        if info is None:
            raise Unprocessable(f"no dispute {dispute}", {"dispute": ["unknown dispute"]})
        if info["status"] != "open":
            raise Conflict(
                f"dispute {dispute} is already {info['status']}", {"dispute": ["already resolved"]}
            )
        if arbiter in self.sides.values():
            raise Forbidden(
                "a player of this game may not arbitrate it", {"arbiter": ["plays this game"]}
            )
        if verdict not in ("upheld", "overturned"):
            raise Unprocessable(
                "verdict must be upheld or overturned", {"verdict": ["upheld or overturned"]}
            )
        if verdict == "upheld" and remedy is not None:
            raise Unprocessable(
                "an upheld event needs no remedy", {"remedy": ["only when overturned"]}
            )
        if verdict == "overturned":
            if remedy not in ("rewind", "rebase"):
                raise Unprocessable("choose rewind or rebase", {"remedy": ["rewind or rebase"]})
            if self.status != ACTIVE:
                raise Conflict(
                    "the game has ended and its seed is public: it cannot be rewound",
                    {
                        "remedy": [
                            "the game has ended; record the decision as a club ruling instead"
                        ]
                    },
                )
        if not citations:
            raise Unprocessable(
                "cite the rules or rulings applied", {"citations": ["at least one"]}
            )
        self._record(
            ports,
            self.DisputeResolved,
            dispute=dispute,
            arbiter=arbiter,
            verdict=verdict,
            remedy=remedy,
            citations=copy_json(citations),
            note=note,
            club_ruling=club_ruling,
        )
        if basis is not None:  # the what-if it was decided on (and whether it is adopted)
            self._record(ports, self.VerdictBasis, dispute=dispute, **copy_json(dict(basis)))
        if verdict == "overturned":
            if restored_state is None or not retract:
                raise ValueError("an overturn needs the events to retract and the state to restore")
            skip = set(self.retracted) | set(self.bookkeeping)
            if info["seq"] not in retract or any(
                s in skip or not 1 < s < self.version for s in retract
            ):
                raise ValueError(
                    f"cannot retract {retract}: it must hold the disputed event and only live game events"
                )
            seqs = sorted(retract)
            self._record(
                ports,
                self.Retracted,
                seqs=seqs,
                restored_state=copy_json(dict(restored_state)),
                reason=f"dispute {remedy}",
                ref=dispute,
            )

    def options_in_force(self) -> dict[str, Any]:
        """The options the game was created with, then each reading a verdict adopted."""
        out = copy_json(self.options)
        for info in self.disputes.values():
            out.update(copy_json((info.get("adopted") or {}).get("reading") or {}))
        return out

    def finish_rebase(
        self, *, dispute: str, report: list[dict[str, Any]], ports: GamePorts
    ) -> None:
        self._record(ports, self.Rebased, dispute=dispute, report=copy_json(report))


def check_clock(value: Any, field: str = "clock") -> dict[str, Any]:
    """A correspondence clock's settings, checked: ``{"kind": "per-turn"|"per-move", "days": >0,
    "vacation_days": 0.., "on_timeout": "claim"|"forfeit"}``; every problem named by its field."""
    if not isinstance(value, Mapping):
        raise Invalid("the clock is an object", {field: ["an object with kind and days"]})
    problems: dict[str, list[str]] = {}
    known = ("kind", "days", "vacation_days", "on_timeout", "low_hours")
    for key in value:
        if key not in known:
            problems[f"{field}.{key}"] = [f"unknown; known: {', '.join(known)}"]
    kind = value.get("kind", "per-move")
    if kind not in CLOCK_KINDS:
        problems[f"{field}.kind"] = [f"one of {', '.join(CLOCK_KINDS)}"]
    days = value.get("days")
    if isinstance(days, bool) or not isinstance(days, int | float):
        problems[f"{field}.days"] = ["a number of days, more than 0"]
    elif not 0 < days <= 365:
        problems[f"{field}.days"] = [
            "more than 0 and at most 365 (a clock cannot hold negative time)"
        ]
    vacation = value.get("vacation_days", 0)
    if isinstance(vacation, bool) or not isinstance(vacation, int) or not 0 <= vacation <= 365:
        problems[f"{field}.vacation_days"] = ["a whole number of days, 0 to 365"]
    policy = value.get("on_timeout", "claim")
    if policy not in TIMEOUT_POLICIES:
        problems[f"{field}.on_timeout"] = [f"one of {', '.join(TIMEOUT_POLICIES)}"]
    low = value.get("low_hours")
    if low is not None and (
        isinstance(low, bool) or not isinstance(low, int | float) or not 0 < low <= 365 * 24
    ):
        problems[f"{field}.low_hours"] = ["a number of hours, more than 0"]
    if problems:
        raise Invalid("invalid clock", problems)
    checked = {"kind": kind, "days": days, "vacation_days": vacation, "on_timeout": policy}
    if low is not None:
        checked["low_hours"] = low
    return checked


def low_threshold(config: Mapping[str, Any]) -> float:
    """Seconds left below which a running clock is low (``Game.ClockLow``): the clock's
    ``low_hours`` if set, else 24 hours or a fifth of the allowance, whichever is smaller."""
    if config.get("low_hours") is not None:
        return float(config["low_hours"]) * 3600
    return min(DAY, float(config.get("days", 0)) * DAY / 5)


def running_time(entry: Mapping[str, Any], since: float, until: float) -> float:
    """Seconds from ``since`` to ``until`` that count against a clock: not those on vacation."""
    spent = max(0.0, until - since)
    for start, end in entry["vacations"]:
        spent -= max(0.0, min(end, until) - max(start, since))
    return max(0.0, spent)


def charged_reach(
    entry: Mapping[str, Any], target: float, now: float, *, strict: bool
) -> float | None:
    """The first moment ``t`` not before ``now`` (nor the clock's ``since``) at which the time
    charged to a running clock since its ``since`` (:func:`running_time`) reaches ``target``
    (``strict``: passes it, and off vacation -- a low warning, which is given only to a running
    clock); None if never.  The vacations' ends and starts cut time into stretches, each charged
    at one rate (1 off vacation, none on it), so the moment is found stretch by stretch."""
    since = float(entry["since"])
    vacations = [(float(a), float(b)) for a, b in entry["vacations"]]
    t = max(since, now)
    cuts = sorted({edge for span in vacations for edge in span if edge > t})
    for end in [*cuts, float("inf")]:
        covered = any(a <= t < b for a, b in vacations)
        charged = running_time(entry, since, t)
        if strict and covered:
            t = end
            continue  # a vacation: the warning waits for its end
        if charged > target or (charged == target and not strict):
            return t
        if not covered:  # charged at one second a second from t: the vacations' time is fixed
            away = sum(max(0.0, b - max(a, since)) for a, b in vacations if a <= t)
            reach = since + away + target  # the same whatever ``now`` it is reckoned from
            if reach < end:
                return reach
        t = end
    return None


def _sealed(
    ports: GamePorts,
    system: str,
    game_id: UUID,
    version: int,
    kind: str,
    payload: Mapping[str, Any],
    state_before: Any,
    sides: list[str],
) -> dict[str, Any] | None:
    """The commitments to every reader's form of an event of a hidden-information game whose
    fields a view may change (``service.domain.chain``); None otherwise or without a key."""
    names = SEALED_FIELDS.get(kind)
    rules = ports.rules(system)
    salting = ports.salt
    if not names or salting is None or not getattr(rules, "hidden_information", False):
        return None
    forms = every_form(
        rules,
        ports.rules_event,
        kind,
        {name: payload[name] for name in names},
        actor=payload.get("side"),
        state_before=state_before,
        sides=sides,
    )
    return seal_forms(forms, lambda form: salting(game_id, version, form))


Projector = Callable[[Any, Iterable[Any]], Any]


def chain_break(events: Sequence[Any]) -> str | None:
    """Why ``events`` (a game's new events, in order) are not a chain each hashed for the version it
    carries, or None.  An event's hash covers its version and its ``prev_hash``, so an event moved
    to another version than it was decided and hashed for (a lost race) is caught here."""
    previous: str | None = None
    for event in events:
        kind = type(event).__qualname__
        if previous is not None and event.prev_hash != previous:
            return f"event {event.originator_version} does not follow the one before it"
        fields = vars(event)
        if (
            event_hash(event.originator_id, event.originator_version, kind, event.timestamp, fields)
            != event.hash
        ):
            return f"event {event.originator_version} was hashed for another version or content"
        previous = event.hash
    return None


def projector(ports: GamePorts) -> Projector:
    """The store's projector: each event mutates its aggregate as usual; a game's rules events are
    then absorbed with its rules (:meth:`Game.absorb`) and the rules attached to the game, so a
    game is rebuilt -- from its events, a snapshot or a cached copy -- with the ports it is given."""

    def project(aggregate: Any, events: Iterable[Any]) -> Any:
        for event in events:
            aggregate = event.mutate(aggregate)
            if isinstance(event, Game.Event):
                aggregate.settle(event, ports)  # as live play settled it (Game._record)
        if isinstance(aggregate, Game):
            aggregate.attach(ports)
        return aggregate

    return project


def seed_vault_id(game_id: UUID) -> UUID:
    return uuid5(game_id, "dice-seed")


class DiceSeed(Aggregate):
    """The secret seed of a game's dice, kept apart from the game's own (exportable) log."""

    class Created(Aggregate.Created):
        game_id: UUID
        seed: str

        def apply(self, aggregate: Any) -> None:
            aggregate.game_id = self.game_id
            aggregate.seed = self.seed

    game_id: UUID
    seed: str

    def __init__(self) -> None:  # attributes are set by Created.apply
        pass

    @classmethod
    def for_game(cls, game_id: UUID, seed: str) -> DiceSeed:
        return cls._create(cls.Created, id=seed_vault_id(game_id), game_id=game_id, seed=seed)
