"""The Game aggregate: a game's log of immutable events, whatever its rules system.

The aggregate knows nothing of hexes or of any game: it delegates every decision to the rules
system named at creation (``decide``) and rebuilds its state by applying the recorded rules events
(``apply``) -- no validation, no dice, no clock on replay.  It owns what every game shares: the
sides and the users bound to them, whose turn it is (asked of the rules), the dice (commitment,
players' entropy, roll indexes that are never reused), the hash chain and the end of the game.

It reaches its rules and the seal only through the :class:`~service.domain.systems.GamePorts`
given to each command method, and on replay through :func:`projector` (the store's): no globals.

Here are its state, its events (their topics, ``service.domain.game:Game.*``, are stored) and
their recording; what each command checks and records is decided by pure modules
(``game_data.Steps``): ``game_play``, ``game_lifecycle`` (invitations, draws, resignation),
``game_clock``, ``game_takebacks`` and ``game_disputes``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any, cast
from uuid import UUID, uuid4, uuid5

from eventsourcing.domain import Aggregate
from eventsourcing.domain import Snapshot as AggregateSnapshot

from service.domain import game_clock, game_data, game_play
from service.domain import game_disputes as disputes
from service.domain import game_lifecycle as lifecycle
from service.domain import game_takebacks as takebacks

# the names marked F401 are not used here: other modules import them from here, where they were
from service.domain.dice import Roll, ServerDice  # noqa: F401
from service.domain.game_chain import chain_break, stamp  # noqa: F401
from service.domain.game_clock import DAY, check_clock, low_threshold  # noqa: F401
from service.domain.game_data import ACTIVE, DECLINED, ENDED, INVITED, Steps, T, copy_json
from service.domain.game_lifecycle import ADJUDICATIONS  # noqa: F401
from service.domain.systems import GamePorts, RulesPort


class Game(Aggregate):
    # -- events ------------------------------------------------------------------------------------
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
            for name, value in game_data.created_attributes(self).items():
                setattr(game, name, value)

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
            disputes.with_basis(
                info, self.what_if, self.adopted, self.reading, self.instead, self.from_seq
            )

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
            game.invitation = lifecycle.accepted(game.invitation, self.user)
            if not game.invitation["pending"]:
                game.status = ACTIVE

    class InvitationDeclined(Event):
        bookkeeping = True
        user: str
        side: str

        def on(self, game: Game) -> None:
            game.invitation = lifecycle.declined(game.invitation, self.user)
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
            start = self.timestamp.timestamp()
            game.clock = game_clock.with_vacation(game.clock, self.side, start, self.days)

    class ClockExpired(Event):
        bookkeeping = True
        side: str

        def on(self, game: Game) -> None:
            game.clock = game_clock.with_flag(game.clock, self.side, "expired")

    class ClockLow(Event):
        """``side``'s running clock dropped below its warning threshold (:func:`low_threshold`):
        recorded once per side per game turn (``per-turn``) or move (``per-move``)."""

        bookkeeping = True
        side: str

        def on(self, game: Game) -> None:
            game.clock = game_clock.with_flag(game.clock, self.side, "low")

    class Claimed(Event):
        """``side`` (played by ``user``) claims the game from an opponent whose clock ran out.
        Under the ``arbiter`` policy the claim waits (the game paused) for an arbiter's
        :class:`ClaimDecided`; else ``Ended`` follows at once."""

        bookkeeping = True
        side: str
        user: str

        def on(self, game: Game) -> None:
            game.claim_pending = game_clock.pending_claim(game, self.side, self.user)

    class ClaimDecided(Event):
        """An arbiter's decision on a claim on time: ``forfeit`` (``Ended`` follows) or ``continue``
        (the late side gets a whole allowance again and play goes on)."""

        bookkeeping = True
        arbiter: str
        decision: str
        note: str

        def on(self, game: Game) -> None:
            game.clock = game_clock.continued(game, self.decision)
            game.claim_pending = None

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

    # -- recording events --------------------------------------------------------------------------
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
        payload = game_data.created_payload(
            system, scenario, options, sides, created_by, seed, initial_state, labels, names
        )
        timestamp = cls.Created.create_timestamp()
        version, kind = cls.INITIAL_VERSION, "Game.Created"
        chained = stamp(ports, system, game_id, version, kind, timestamp, payload, None, sides)
        game = cls._create(cls.Created, id=game_id, timestamp=timestamp, **chained, **payload)
        game.attach(ports)
        game.settle(game.pending_events[-1], ports)
        return game

    def _record(self, ports: GamePorts, event_class: type[Game.Event], **payload: Any) -> None:
        payload["prev_hash"] = self.last_hash
        timestamp = event_class.create_timestamp()
        kind, version, state = event_class.__qualname__, self.version + 1, self.state
        chained = stamp(
            ports, self.system, self.id, version, kind, timestamp, payload, state, self.sides
        )
        self.trigger_event(event_class, timestamp=timestamp, **chained, **payload)
        self.settle(self.pending_events[-1], ports)

    def _play(self, ports: GamePorts, steps: Steps[T]) -> T:
        """Record each event a command decides (``game_data.Steps``), each settled before the
        command goes on, and return what the command returns."""
        while True:
            try:
                event_class, payload = next(steps)
            except StopIteration as done:
                return cast(T, done.value)
            self._record(ports, event_class, **payload)

    # -- the one path of a game's state, live and on replay ----------------------------------------
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

    def absorb(self, ports: GamePorts, kind: str, data: Mapping[str, Any]) -> None:
        """Apply one recorded rules event to the state (``game_play.absorb``)."""
        game_play.absorb(self, ports, kind, data)

    def attach(self, ports: GamePorts) -> None:
        """Give the game its rules to answer whose turn it is (:meth:`active_sides`); the store's
        projector attaches them to every game it rebuilds, :meth:`start` and :meth:`execute` too."""
        self._rules = ports.rules(self.system)

    def tick(self) -> None:
        """The clock after the latest event (``game_clock.ticked``), live and on replay."""
        if self.labels.get("clock"):
            self.clock = game_clock.ticked(self)

    # -- play --------------------------------------------------------------------------------------
    def side_of(self, user: str) -> list[str]:
        return [side for side, bound in self.sides.items() if bound == user]

    def active_sides(self) -> list[str]:
        if self.status != ACTIVE:
            return []
        return list(self._rules.active_sides(self.state))

    def require_active(self) -> None:
        """409 unless the game is being played (not waiting for invitations, declined or ended)."""
        game_play.require_active(self)

    def check_may_act(self, side: str, user: str) -> None:
        game_play.check_may_act(self, side, user)

    def paused_by(self) -> str | None:
        """The open dispute that pauses the game, if disputes pause it (a ladder or scenario setting)."""
        return disputes.paused_by(self)

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
        """Decide ``command`` for ``side``, record what it causes; returns how many events."""
        self.attach(ports)
        before = self.version
        decided = game_play.execute(self, ports, side, user, command, seed, origin, witness, dice)
        self._play(ports, decided)
        return self.version - before

    def add_entropy(self, *, side: str, user: str, entropy: str, ports: GamePorts) -> None:
        self._play(ports, game_play.add_entropy(self, side, user, entropy))

    def repair_chain(
        self, *, reason: str, by: str, repairs: list[dict[str, Any]], ports: GamePorts
    ) -> None:
        self._play(ports, game_play.repair_chain(self, reason, by, repairs))

    def reconcile_head(
        self, *, reason: str, by: str, lost_head: Mapping[str, Any], ports: GamePorts
    ) -> None:
        self._play(ports, game_play.reconcile_head(self, reason, by, lost_head))

    # -- invitations, and ending a game before its rules do (``game_lifecycle``) -------------------
    def invite(self, *, by: str, ports: GamePorts) -> list[str]:
        """Right after creation; returns who must accept before play starts."""
        return self._play(ports, lifecycle.invite(self, by))

    def accept_invitation(self, *, user: str, ports: GamePorts) -> None:
        self._play(ports, lifecycle.accept_invitation(self, user))

    def decline_invitation(self, *, user: str, ports: GamePorts) -> None:
        self._play(ports, lifecycle.decline_invitation(self, user))

    def loss_of(self, side: str, reason: str) -> dict[str, Any]:
        return lifecycle.loss_of(self, side, reason)

    def resign(self, *, side: str, user: str, seed: str, ports: GamePorts) -> None:
        self._play(ports, lifecycle.resign(self, side, user, seed))

    def adjudicate(
        self, *, arbiter: str, kind: str, winner: str | None, note: str, seed: str, ports: GamePorts
    ) -> None:
        self._play(ports, lifecycle.adjudicate(self, arbiter, kind, winner, note, seed))

    def offer_draw(self, *, side: str, user: str, ports: GamePorts) -> None:
        self._play(ports, lifecycle.offer_draw(self, side, user))

    def accept_draw(self, *, side: str, user: str, seed: str, ports: GamePorts) -> None:
        self._play(ports, lifecycle.accept_draw(self, side, user, seed))

    def decline_draw(self, *, side: str, user: str, ports: GamePorts) -> None:
        self._play(ports, lifecycle.decline_draw(self, side, user))

    # -- the correspondence clock (``game_clock``) -------------------------------------------------
    def clock_at(self, now: float) -> dict[str, Any] | None:
        """The clock read at ``now`` (seconds since the epoch); None when the game has none."""
        return game_clock.read(self, now)

    def clock_due(self, now: float) -> float | None:
        """When the clock checks must next look at this game (``game_clock.due``), or None."""
        return game_clock.due(self, now)

    def take_vacation(self, *, side: str, user: str, days: int, ports: GamePorts) -> None:
        self._play(ports, game_clock.take_vacation(self, side, user, days))

    def expire_clock(self, *, now: float, seed: str, ports: GamePorts) -> list[str]:
        return self._play(ports, game_clock.expire_clock(self, now, seed))

    def warn_low_clock(self, *, now: float, ports: GamePorts) -> list[str]:
        return self._play(ports, game_clock.warn_low_clock(self, now))

    def claim(self, *, side: str, user: str, now: float, seed: str, ports: GamePorts) -> str:
        """Returns the side that lost on time."""
        return self._play(ports, game_clock.claim(self, side, user, now, seed))

    def decide_claim(
        self, *, arbiter: str, decision: str, note: str, seed: str, ports: GamePorts
    ) -> None:
        self._play(ports, game_clock.decide_claim(self, arbiter, decision, note, seed))

    # -- takebacks (``game_takebacks``) ------------------------------------------------------------
    @property
    def takeback_policy(self) -> str:
        return takebacks.policy(self)

    def takeback_offer(self) -> dict[str, Any] | None:
        return takebacks.offer(self)

    def request_takeback(
        self, *, side: str, user: str, from_seq: int | None, ports: GamePorts
    ) -> str:
        return self._play(ports, takebacks.request_takeback(self, side, user, from_seq))

    def answer_takeback(
        self,
        *,
        side: str,
        user: str,
        accept: bool,
        restored_state: Mapping[str, Any] | None,
        ports: GamePorts,
    ) -> None:
        answer = takebacks.answer_takeback(self, side, user, accept, restored_state)
        self._play(ports, answer)

    # -- disputes (``game_disputes``) --------------------------------------------------------------
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
        opened = disputes.open_dispute(self, side, user, seq, claim, citations, reading, instead)
        return self._play(ports, opened)

    def propose_verdict(
        self, *, dispute: str, side: str, user: str, verdict: str, note: str, ports: GamePorts
    ) -> None:
        self._play(ports, disputes.propose_verdict(self, dispute, side, user, verdict, note))

    def accept_verdict(self, *, dispute: str, side: str, user: str, ports: GamePorts) -> None:
        self._play(ports, disputes.accept_verdict(self, dispute, side, user))

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
        ruling = disputes.ruling(
            self, dispute, arbiter, verdict, remedy, citations, note, club_ruling
        )
        self._play(ports, disputes.resolve_dispute(self, ruling, retract, restored_state, basis))

    def options_in_force(self) -> dict[str, Any]:
        return disputes.options_in_force(self)

    def finish_rebase(
        self, *, dispute: str, report: list[dict[str, Any]], ports: GamePorts
    ) -> None:
        self._play(ports, disputes.finish_rebase(self, dispute, report))


Projector = Callable[[Any, Iterable[Any]], Any]


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
