"""Disputes: a player disputes an event of its game, and an arbiter decides (upheld, or
overturned with a remedy: rewind or rebase), or the players settle it by agreement.

A game's ``disputes`` maps each dispute's id to what its events said: the disputed ``seq``, the
``side``, its ``status`` (open, upheld or overturned), the alternative claimed (``reading``,
``instead``), a verdict's ``basis`` and what it ``adopted``, the pending ``proposal`` and how many
were made.  The application works out from the log what an overturn retracts and restores
(``service.application.disputes``).

Pure: each command checks the game (:class:`~service.domain.game.Game`), raising a domain error,
and yields the events the game records (``game_data.Steps``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from service.domain.errors import Conflict, Forbidden, LimitReached, NotFound, Unprocessable
from service.domain.game_data import ACTIVE, Steps, copy_json

if TYPE_CHECKING:
    from service.domain.game import Game

#: the verdicts a dispute's players may propose to each other in all (each is an event of the
#: game's log): one more is refused with 409 ``limit_reached`` -- past it, an arbiter rules
PROPOSALS_PER_DISPUTE = 10
VERDICTS = ("upheld", "overturned")


def paused_by(game: Game) -> str | None:
    """The open dispute that pauses the game, if disputes pause it (a ladder or scenario setting)."""
    if not game.labels.get("pause_on_dispute"):
        return None
    return next((d for d, info in game.disputes.items() if info["status"] == "open"), None)


def options_in_force(game: Game) -> dict[str, Any]:
    """The options the game was created with, then each reading a verdict adopted."""
    out = copy_json(game.options)
    for info in game.disputes.values():
        out.update(copy_json((info.get("adopted") or {}).get("reading") or {}))
    return out


# -- a player opens a dispute ----------------------------------------------------------------------
def open_dispute(
    game: Game,
    side: str,
    user: str,
    seq: int,
    claim: str,
    citations: list[dict[str, Any]],
    reading: Mapping[str, Any] | None,
    instead: Mapping[str, Any] | None,
) -> Steps[str]:
    """``side``'s player disputes event ``seq``, a live game event (not bookkeeping, not
    retracted) not under dispute already, saying what is wrong (``claim``) and what should have
    happened instead (``reading``, ``instead``: checked by the application).  Returns its id."""
    if game.sides.get(side) != user:
        raise Forbidden(
            "only the players of a game dispute its events", {"side": ["not your side"]}
        )
    if not 1 < seq <= game.version:
        raise Unprocessable(f"no event {seq} to dispute", {"seq": [f"2 to {game.version}"]})
    if seq in game.retracted:
        raise Conflict(f"event {seq} is already retracted", {"seq": ["already retracted"]})
    if seq in game.bookkeeping:
        raise Unprocessable(
            f"event {seq} is bookkeeping (entropy, takeback, dispute), not a game event",
            {"seq": ["dispute a command or its effects"]},
        )
    if any(d["seq"] == seq and d["status"] == "open" for d in game.disputes.values()):
        raise Conflict(f"event {seq} is already under dispute", {"seq": ["a dispute is open"]})
    if not claim.strip():
        raise Unprocessable("say what is wrong", {"claim": ["required"]})
    dispute = f"d{game.version + 1}"
    yield (
        game.DisputeOpened,
        {
            "dispute": dispute,
            "seq": seq,
            "side": side,
            "user": user,
            "claim": claim,
            "citations": copy_json(citations),
        },
    )
    if reading or instead:
        yield (
            game.DisputeAlternative,
            {
                "dispute": dispute,
                "reading": copy_json(dict(reading or {})),
                "instead": copy_json(dict(instead)) if instead else None,
            },
        )
    return dispute


# -- the players settle it by agreement ------------------------------------------------------------
def open_dispute_of(game: Game, dispute: str, side: str, user: str) -> dict[str, Any]:
    """The open dispute ``dispute`` of the game, which ``side``'s player may settle."""
    if game.sides.get(side) != user:
        raise Forbidden("you do not play this side", {"side": ["not your side"]})
    info = game.disputes.get(dispute)
    if info is None:
        raise NotFound(f"no dispute {dispute} in this game", {"dispute": ["unknown dispute"]})
    if info["status"] != "open":
        raise Conflict("the dispute is already decided", {"dispute": ["already decided"]})
    return info


def propose_verdict(
    game: Game, dispute: str, side: str, user: str, verdict: str, note: str
) -> Steps[None]:
    """``side``'s player proposes to settle the open dispute with ``verdict``: not the proposal it
    made last, and not past :data:`PROPOSALS_PER_DISPUTE`."""
    info = open_dispute_of(game, dispute, side, user)
    if verdict not in VERDICTS:
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
    proposed = {"dispute": dispute, "side": side, "user": user, "verdict": verdict, "note": note}
    yield game.VerdictProposed, proposed


def accept_verdict(game: Game, dispute: str, side: str, user: str) -> Steps[None]:
    """The other side's player accepts the proposed verdict: the dispute is resolved."""
    info = open_dispute_of(game, dispute, side, user)
    proposal = info.get("proposal")
    if not proposal:
        raise Conflict("no verdict is proposed", {"dispute": ["nothing to accept yet"]})
    if proposal["side"] == side or game.sides.get(proposal["side"]) == user:
        raise Forbidden(
            "the other side's player accepts a proposal",
            {"side": ["you proposed it: the other side accepts it"]},
        )
    yield (
        game.VerdictAgreed,
        {
            "dispute": dispute,
            "side": side,
            "user": user,
            "verdict": proposal["verdict"],
            "proposed_by": game.sides.get(proposal["side"], ""),
            "note": proposal["note"],
        },
    )


# -- an arbiter decides ----------------------------------------------------------------------------
def ruling(
    game: Game,
    dispute: str,
    arbiter: str,
    verdict: str,
    remedy: str | None,
    citations: list[dict[str, Any]],
    note: str,
    club_ruling: str | None,
) -> dict[str, Any]:
    """What ``Game.DisputeResolved`` holds of an arbiter's decision on the open dispute
    ``dispute``, checked: the arbiter plays no side; an upheld event needs no remedy, an
    overturned one rewind or rebase while the game is played; a verdict cites the rules or
    rulings applied."""
    _check_resolution(game, dispute, arbiter, verdict, remedy, citations)
    return {
        "dispute": dispute,
        "arbiter": arbiter,
        "verdict": verdict,
        "remedy": remedy,
        "citations": copy_json(citations),
        "note": note,
        "club_ruling": club_ruling,
    }


def resolve_dispute(
    game: Game,
    ruling: dict[str, Any],
    retract: list[int] | None,
    restored_state: Mapping[str, Any] | None,
    basis: Mapping[str, Any] | None,
) -> Steps[None]:
    """An arbiter's decision (its :func:`ruling`), the what-if it was decided on (``basis``), and
    for an overturn the events ``retract`` retracted and play resumed from ``restored_state`` (the
    application works both out from the log: see ``service.application.disputes``).  A
    ``rebase`` goes on with ``Game.execute`` (``origin``: the command re-decided) for each later
    command and ends with :func:`finish_rebase`."""
    dispute = ruling["dispute"]
    yield game.DisputeResolved, ruling
    if basis is not None:  # the what-if it was decided on (and whether it is adopted)
        yield game.VerdictBasis, {"dispute": dispute, **copy_json(dict(basis))}
    if ruling["verdict"] == "overturned":
        seqs = _retraction(game, game.disputes[dispute], retract, restored_state)
        yield (
            game.Retracted,
            {
                "seqs": seqs,
                "restored_state": copy_json(dict(restored_state or {})),
                "reason": f"dispute {ruling['remedy']}",
                "ref": dispute,
            },
        )


def finish_rebase(game: Game, dispute: str, report: list[dict[str, Any]]) -> Steps[None]:
    """What the rebase of an overturn did with each later command (``Game.Rebased``)."""
    yield game.Rebased, {"dispute": dispute, "report": copy_json(report)}


def _check_resolution(
    game: Game,
    dispute: str,
    arbiter: str,
    verdict: str,
    remedy: str | None,
    citations: list[dict[str, Any]],
) -> None:
    info = game.disputes.get(dispute)
    if info is None:
        raise Unprocessable(f"no dispute {dispute}", {"dispute": ["unknown dispute"]})
    if info["status"] != "open":
        raise Conflict(
            f"dispute {dispute} is already {info['status']}", {"dispute": ["already resolved"]}
        )
    if arbiter in game.sides.values():
        raise Forbidden(
            "a player of this game may not arbitrate it", {"arbiter": ["plays this game"]}
        )
    if verdict not in VERDICTS:
        raise Unprocessable(
            "verdict must be upheld or overturned", {"verdict": ["upheld or overturned"]}
        )
    if verdict == "upheld" and remedy is not None:
        raise Unprocessable("an upheld event needs no remedy", {"remedy": ["only when overturned"]})
    if verdict == "overturned":
        _check_remedy(game, remedy)
    if not citations:
        raise Unprocessable("cite the rules or rulings applied", {"citations": ["at least one"]})


def _check_remedy(game: Game, remedy: str | None) -> None:
    if remedy not in ("rewind", "rebase"):
        raise Unprocessable("choose rewind or rebase", {"remedy": ["rewind or rebase"]})
    if game.status != ACTIVE:
        raise Conflict(
            "the game has ended and its seed is public: it cannot be rewound",
            {"remedy": ["the game has ended; record the decision as a club ruling instead"]},
        )


def _retraction(
    game: Game,
    info: Mapping[str, Any],
    retract: list[int] | None,
    restored_state: Mapping[str, Any] | None,
) -> list[int]:
    """The seqs an overturn retracts, in order: ``retract`` holds the disputed event and only live
    game events (the application works them out; anything else is a bug)."""
    if restored_state is None or not retract:
        raise ValueError("an overturn needs the events to retract and the state to restore")
    skip = set(game.retracted) | set(game.bookkeeping)
    if info["seq"] not in retract or any(s in skip or not 1 < s < game.version for s in retract):
        raise ValueError(
            f"cannot retract {retract}: it must hold the disputed event and only live game events"
        )
    return sorted(retract)


# -- what the dispute events do to the game's disputes (their ``apply``) ---------------------------
def with_basis(
    info: dict[str, Any],
    what_if: str,
    adopted: bool,
    reading: Mapping[str, Any],
    instead: Mapping[str, Any] | None,
    from_seq: int,
) -> None:
    """Note the what-if a verdict was decided on, and the alternative it adopted if it did."""
    info["basis"] = what_if
    if adopted:
        info["adopted"] = {
            "reading": copy_json(reading),
            "instead": copy_json(instead),
            "from_seq": from_seq,
        }
