"""Play: who may act in a game and when (the checks every player's command passes), the decision
of a command by the game's rules, and the entropy and operator's records around it.

Pure: the checks read the game (:class:`~service.domain.game.Game`) and raise a domain error
naming what is wrong; the commands yield the events the game records (``game_data.Steps``)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from service.domain.dice import ServerDice, entropy_digest
from service.domain.errors import Conflict, Forbidden, Unprocessable
from service.domain.game_data import ACTIVE, DECLINED, INVITED, Steps, copy_json
from service.domain.systems import GamePorts

if TYPE_CHECKING:
    from service.domain.game import Game


def require_active(game: Game) -> None:
    """409 unless the game is being played (not waiting for invitations, declined or ended)."""
    if game.status == INVITED:
        waiting = len((game.invitation or {}).get("pending", []))
        raise Conflict(
            "the game has not started: it waits for its invited players",
            {
                "game": [
                    f"waiting for {waiting} invited player{'' if waiting == 1 else 's'} to accept"
                ]
            },
        )
    if game.status == DECLINED:
        raise Conflict(
            "the game never started: an invited player declined",
            {"game": ["the invitation was declined"]},
        )
    if game.status != ACTIVE:
        raise Conflict("the game is over", {"game": ["the game has ended"]})


def require_player(game: Game, side: str, user: str) -> None:
    """403 unless ``user`` plays ``side`` (a side the game lacks is nobody's)."""
    if game.sides.get(side) != user:
        raise Forbidden(f"you do not play {side}", {"side": [f"{side} is bound to another user"]})


def own_side(game: Game, side: str, user: str) -> None:
    """422 for a side the game lacks, 403 unless ``user`` plays ``side``."""
    if side not in game.sides:
        raise Unprocessable(f"no side {side!r} in this game", {"side": ["unknown side"]})
    require_player(game, side, user)


def check_may_act(game: Game, side: str, user: str) -> None:
    """``user`` may send a command for ``side`` now: the game is played, not paused (by a dispute
    or a claim on time waiting for an arbiter), and it is ``side``'s turn or phase."""
    require_active(game)
    if side not in game.sides:
        raise Unprocessable(f"no side {side!r} in this game", {"side": [f"unknown side {side!r}"]})
    require_player(game, side, user)
    paused_by = game.paused_by()
    if paused_by:
        raise Conflict(
            "the game is paused while a dispute is open",
            {"game": [f"paused by dispute {paused_by}"]},
        )
    if game.claim_pending is not None:
        raise Conflict(
            "the game is paused while an arbiter decides a claim on time",
            {"game": ["a claim on time waits for an arbiter"]},
        )
    active_sides = game.active_sides()
    if side not in active_sides:  # sides by name, as a player reads them ("Republican")
        name = side.replace("_", " ").capitalize()
        active = ", ".join(s.replace("_", " ").capitalize() for s in active_sides) or "nobody"
        raise Forbidden(
            f"it is not {name}'s turn or phase (now: {active})",
            {"side": [f"{name} may not act now; active: {active}"]},
        )


def absorb(game: Game, ports: GamePorts, kind: str, data: Mapping[str, Any]) -> None:
    """Apply one recorded rules event to the game's state with its rules (on a copy of ``data``,
    so an ``apply`` that keeps a reference never corrupts the event), and note when it revealed
    hidden information: the commands before it can no longer be taken back.  The one way a rules
    event changes the state, live and on replay (``Game.settle``)."""
    rules = ports.rules(game.system)
    event = ports.rules_event(kind, copy_json(dict(data)))
    if rules.reveals(event):
        game.tail["commands"] = []
        game.tail["cut"] = "reveals"
    game.state = rules.apply(game.state, event)


def execute(
    game: Game,
    ports: GamePorts,
    side: str,
    user: str,
    command: Mapping[str, Any],
    seed: str,
    origin: int | None,
    witness: Callable[[Any, Any], None] | None,
    dice: Callable[[ServerDice], Any] | None,
) -> Steps[None]:
    """The events of ``command`` decided by the game's rules for ``side`` (``Game.execute``): the
    command, the dice it used, the rules events it caused and the end of the game if it came.

    ``witness(event, state)`` is told each rules event with the state just before it, as the
    event is applied (so that a caller words the events without copying the state and applying
    them a second time); it must not change either.  ``dice(server_dice)``: the dice the
    decision rolls instead of the game's own (a re-decision's recorded dice first:
    :class:`~service.domain.reused_dice.ReusedDice`); its ``reused`` rolls are recorded as
    ``Game.DiceReused``, its ``rolled`` ones as ``Game.DiceRolled``."""
    check_may_act(game, side, user)
    rules = game._rules
    server_dice = ServerDice(seed, game.id, game.next_roll, entropy_digest(game.entropy))
    rolling = dice(server_dice) if dice is not None else server_dice
    # the declaration's loaded fields, never the raw body: nothing outside the declared shape
    # is stored (an InvalidCommand naming the field otherwise)
    parsed = rules.parse_command(game.state, command)
    decided = rules.decide(game.state, side, parsed, rolling)
    accepted = {"side": side, "user": user, "command": copy_json(parsed), "origin": origin}
    yield game.CommandAccepted, accepted
    if rolling.reused:
        yield game.DiceReused, {"side": side, "rolls": [r.record() for r in rolling.reused]}
    if rolling.rolled:
        yield game.DiceRolled, {"side": side, "rolls": [r.as_dict() for r in rolling.rolled]}
    for event in decided:
        data = copy_json(event.data)
        if witness is not None:  # the state before the event: it changes as it is settled
            witness(ports.rules_event(event.type, copy_json(data)), game.state)
        yield game.Recorded, {"side": side, "user": user, "kind": event.type, "data": data}
    outcome = rules.result(game.state)
    if outcome is not None:
        yield game.Ended, {"result": copy_json(outcome), "seed": seed}


def add_entropy(game: Game, side: str, user: str, entropy: str) -> Steps[None]:
    """A player adds entropy to its side's dice, only before that side's first roll."""
    require_active(game)
    require_player(game, side, user)
    if side in game.rolled_sides:
        raise Conflict(
            "entropy may only be added before the side's first roll",
            {"entropy": [f"{side} has already rolled"]},
        )
    if not 1 <= len(entropy) <= 256:
        raise Unprocessable(
            "entropy must be 1 to 256 characters", {"entropy": ["1 to 256 characters"]}
        )
    yield game.EntropyAdded, {"side": side, "user": user, "entropy": entropy}


def _reason(reason: str, message: str) -> str:
    """The operator's reason for a repair or a reconciliation, stripped: 1 to 2000 characters."""
    if not reason.strip() or len(reason) > 2000:
        raise Unprocessable(message, {"reason": ["1 to 2000 characters"]})
    return reason.strip()


def repair_chain(game: Game, reason: str, by: str, repairs: list[dict[str, Any]]) -> Steps[None]:
    """The operator's explanation of the log's breaks (``Game.ChainRepaired``)."""
    reason = _reason(reason, "say why the log is repaired (1 to 2000 characters)")
    if not repairs:
        raise Unprocessable("nothing to repair", {"repairs": ["the log has no breaks"]})
    yield game.ChainRepaired, {"reason": reason, "by": by, "repairs": repairs}


def reconcile_head(game: Game, reason: str, by: str, lost_head: Mapping[str, Any]) -> Steps[None]:
    """The operator's reconciliation of a log restored below its head (``Game.HeadReconciled``)."""
    reason = _reason(reason, "say why the log is behind its head (1 to 2000 characters)")
    yield game.HeadReconciled, {"reason": reason, "by": by, "lost_head": dict(lost_head)}
