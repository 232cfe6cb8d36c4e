"""The Game aggregate: a game's log of immutable events, whatever its rules system.

The aggregate knows nothing of hexes or of any game: it delegates every decision to the rules
system named at creation (``decide``) and rebuilds its state by applying the recorded rules events
(``apply``) -- no validation, no dice, no clock on replay.  It owns what every game shares: the
sides and the users bound to them, whose turn it is (asked of the rules), the dice (commitment,
players' entropy, roll indexes that are never reused), the hash chain and the end of the game.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, cast
from uuid import UUID, uuid4, uuid5

from eventsourcing.domain import Aggregate

from service.domain import dice as dice_mod
from service.domain import systems
from service.domain.chain import GENESIS, event_hash
from service.domain.errors import Conflict, Forbidden, Unprocessable

ACTIVE = "active"
ENDED = "ended"


def copy_json(value: Any) -> Any:
    """A fast deep copy of JSON-compatible data."""
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

        def apply(self, aggregate: Any) -> None:
            game = cast(Game, aggregate)
            self.on(game)
            game.last_hash = self.hash

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

    class EntropyAdded(Event):
        side: str
        user: str
        entropy: str

        def on(self, game: Game) -> None:
            game.entropy.append(f"{self.side}:{self.entropy}")

    class DiceRolled(Event):
        side: str
        rolls: list[dict[str, Any]]

        def on(self, game: Game) -> None:
            game.next_roll = max(r["index"] for r in self.rolls) + 1
            if self.side not in game.rolled_sides:
                game.rolled_sides.append(self.side)

    class Recorded(Event):
        """One rules event (``kind`` is its type, ``data`` its resolved facts)."""

        side: str
        user: str
        kind: str
        data: dict[str, Any]

        def on(self, game: Game) -> None:
            rules = systems.system(game.system)
            event = systems.rules_event(self.kind, copy_json(self.data))
            game.state = rules.apply(game.state, event)
            game.moves += 1

    class Ended(Event):
        result: dict[str, Any]
        seed: str

        def on(self, game: Game) -> None:
            game.status = ENDED
            game.result = copy_json(self.result)
            game.seed = self.seed

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
        labels: Mapping[str, Any] | None = None,
        game_id: UUID | None = None,
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
            "prev_hash": GENESIS,
        }
        timestamp = cls.Created.create_timestamp()
        digest = event_hash(game_id, cls.INITIAL_VERSION, "Game.Created", timestamp, payload)
        return cls._create(cls.Created, id=game_id, timestamp=timestamp, hash=digest, **payload)

    def _record(self, event_class: type[Game.Event], **payload: Any) -> None:
        payload["prev_hash"] = self.last_hash
        timestamp = event_class.create_timestamp()
        kind = event_class.__qualname__
        digest = event_hash(self.id, self.version + 1, kind, timestamp, payload)
        self.trigger_event(event_class, timestamp=timestamp, hash=digest, **payload)

    def side_of(self, user: str) -> list[str]:
        return [side for side, bound in self.sides.items() if bound == user]

    def active_sides(self) -> list[str]:
        if self.status != ACTIVE:
            return []
        return list(systems.system(self.system).active_sides(self.state))

    def check_may_act(self, side: str, user: str) -> None:
        if self.status != ACTIVE:
            raise Conflict("the game is over", {"game": ["the game has ended"]})
        if side not in self.sides:
            raise Unprocessable(
                f"no side {side!r} in this game", {"side": [f"unknown side {side!r}"]}
            )
        if self.sides[side] != user:
            raise Forbidden(
                f"you do not play {side}", {"side": [f"{side} is bound to another user"]}
            )
        if side not in self.active_sides():
            active = ", ".join(self.active_sides()) or "nobody"
            raise Forbidden(
                f"it is not {side}'s turn or phase (now: {active})",
                {"side": [f"{side} may not act now; active: {active}"]},
            )

    def execute(self, *, side: str, user: str, command: Mapping[str, Any], seed: str) -> int:
        """Decide ``command`` for ``side`` and record what it causes.  Returns how many events."""
        self.check_may_act(side, user)
        rules = systems.system(self.system)
        server_dice = ServerDice(
            seed, self.id, self.next_roll, dice_mod.entropy_digest(self.entropy)
        )
        decided = rules.decide(self.state, side, command, server_dice)
        before = self.version
        if server_dice.rolled:
            self._record(
                self.DiceRolled, side=side, rolls=[r.as_dict() for r in server_dice.rolled]
            )
        for event in decided:
            self._record(
                self.Recorded, side=side, user=user, kind=event.type, data=copy_json(event.data)
            )
        outcome = rules.result(self.state)
        if outcome is not None:
            self._record(self.Ended, result=copy_json(outcome), seed=seed)
        return self.version - before

    def add_entropy(self, *, side: str, user: str, entropy: str) -> None:
        if self.status != ACTIVE:
            raise Conflict("the game is over", {"game": ["the game has ended"]})
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
        self._record(self.EntropyAdded, side=side, user=user, entropy=entropy)


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
