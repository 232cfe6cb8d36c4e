"""What a game's events tell its players, declared per event type (issue 45: a table, as
``service/rules/declare.py`` declares commands, instead of a chain of branches).

Each entry says the notice's kind, who is told, the sentence each of them reads and the public
sentence a club's webhooks get.  Whose turn it is next is told apart (``NotificationProcess._turn``):
it depends on the game before the event as well as after it."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from service.domain.game import low_threshold


def side_words(side: str) -> str:
    return side.replace("_", " ").replace("-", " ").title()


@dataclass
class Seen:
    """A game event as the notices read it: the game with the event applied, its title in quotes,
    the acting user's name (``who``), the game's players and those other than the actor."""

    event: Any
    #: the event's class name ("ClockExpired")
    type: str
    game: Any
    title: str
    who: str
    players: set[str]
    others: set[str]
    #: a user's name from their id
    name: Callable[[str], str]
    #: the side(s) a user plays in the game, in words
    side_of: Callable[[Any, str], str]
    #: users' names joined
    listed: Callable[[Iterable[str]], str]
    #: a result in words
    result: Callable[[Any, dict[str, Any]], str]


@dataclass(frozen=True)
class Told:
    """An event's notice: its ``kind``, the users told (``to``), the sentence each reads
    (``text``) and the public sentence (``public``)."""

    kind: str
    to: Callable[[Seen], Iterable[str]]
    text: Callable[[Seen, str], str]
    public: Callable[[Seen], str]


def _others(s: Seen) -> Iterable[str]:
    return s.others


def _players(s: Seen) -> Iterable[str]:
    return s.players


def _to_others(kind: str, text: Callable[[Seen], str], public: Callable[[Seen], str]) -> Told:
    """A notice to the players other than the actor, each reading the same ``text``."""
    return Told(kind, _others, lambda s, _u: text(s), public)


def _to_players(kind: str, text: Callable[[Seen], str]) -> Told:
    """A notice to every player, the public sentence the same as theirs."""
    return Told(kind, _players, lambda s, _u: text(s), text)


def _answered(verb: str) -> Told:
    return _to_others(
        "invitation",
        lambda s: f"{s.who} {verb} the invitation to {s.title} ({side_words(s.event.side)}).",
        lambda s: f"{s.who} {verb} the invitation to {s.title}.",
    )


def _agreement(s: Seen) -> str:
    return "the event stands" if s.event.verdict == "upheld" else "the event was wrong"


# -- the clock ---------------------------------------------------------------------------------------
def _clock_state(s: Seen) -> str:
    if s.type == "ClockExpired":
        return "ran out"
    hours = low_threshold(s.game.labels.get("clock") or {}) / 3600
    return f"is running low: less than {hours:g} hours left"


def _clock_owner(s: Seen) -> str | None:
    owner = s.game.sides.get(s.event.side)
    return str(owner) if owner else None


def _clock_to(s: Seen) -> Iterable[str]:
    """A clock run out: every player (the opponent may claim); running low: only its owner."""
    if s.type == "ClockExpired":
        return s.players
    owner = _clock_owner(s)
    return {owner} if owner else set()


def _clock_text(s: Seen, user: str) -> str:
    if user == _clock_owner(s):
        return f"Your clock in {s.title} {_clock_state(s)}."
    return _clock_public(s)


def _clock_public(s: Seen) -> str:
    return f"{side_words(s.event.side)}'s clock in {s.title} {_clock_state(s)}."


_CLOCK = Told("clock", _clock_to, _clock_text, _clock_public)

#: each notified game event by its class name
NOTICES: dict[str, Told] = {
    "Invited": Told(
        "invitation",
        lambda s: s.event.pending,
        lambda s, u: (
            f"{s.name(s.event.by)} invites you to play {s.title} as {s.side_of(s.game, u)}."
        ),
        lambda s: (
            f"{s.name(s.event.by)} invited {s.listed(list(s.event.pending))} to play {s.title}."
        ),
    ),
    "InvitationAccepted": _answered("accepted"),
    "InvitationDeclined": _answered("declined"),
    "TakebackRequested": _to_others(
        "takeback",
        lambda s: f"{s.who} asks to take back a move in {s.title}: accept or refuse it.",
        lambda s: f"{s.who} asked to take back a move in {s.title}.",
    ),
    "DisputeOpened": _to_others(
        "dispute",
        lambda s: f"{s.who} opened a dispute in {s.title}: an arbiter will decide it.",
        lambda s: f"{s.who} opened a dispute in {s.title}.",
    ),
    "DisputeResolved": _to_players(
        "dispute",
        lambda s: (
            f"{s.name(s.event.arbiter)} decided the dispute in {s.title}: "
            f"{str(s.event.verdict).replace('_', ' ')}."
        ),
    ),
    "VerdictProposed": _to_others(
        "dispute",
        lambda s: (
            f"{s.who} proposes to settle the dispute in {s.title} by agreement: {_agreement(s)}. "
            "Accept it or propose another on the game page."
        ),
        lambda s: f"{s.who} proposed to settle a dispute in {s.title} by agreement.",
    ),
    "VerdictAgreed": Told(
        "dispute",
        _players,
        lambda s, _u: f"Both players agreed on the dispute in {s.title}: {s.event.verdict}.",
        lambda s: f"Both players agreed on a dispute in {s.title}: {s.event.verdict}.",
    ),
    "DrawOffered": _to_others(
        "draw",
        lambda s: f"{s.who} offers a draw in {s.title}: accept or decline it.",
        lambda s: f"{s.who} offered a draw in {s.title}.",
    ),
    "DrawDeclined": _to_others(
        "draw",
        lambda s: f"{s.who} declined the draw offered in {s.title}.",
        lambda s: f"{s.who} declined a draw in {s.title}.",
    ),
    "Resigned": _to_others(
        "ended",
        lambda s: f"{s.who} resigned {s.title}.",
        lambda s: f"{s.who} ({side_words(s.event.side)}) resigned {s.title}.",
    ),
    "Claimed": _to_others(
        "clock",
        lambda s: f"{s.who} claims {s.title}: your clock ran out.",
        lambda s: f"{s.who} claimed {s.title} on time.",
    ),
    "ClockExpired": _CLOCK,
    "ClockLow": _CLOCK,
    "Ended": _to_players(
        "ended", lambda s: f"{s.title} ended: {s.result(s.game, s.event.result)}."
    ),
}
