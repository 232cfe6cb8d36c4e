"""The correspondence clock of a game: a projection of its events' times.

A game's clock (``Game.clock``, JSON data) holds for each side the seconds ``remaining`` when it
last stopped or started, ``since`` when it started running (None when it stands still), its
``vacations`` (``[start, end]`` in seconds since the epoch) and the days of vacation left, and
whether its expiry and its low-clock warning are recorded; ``active`` and ``turn`` remember who had
the move and the game turn at the last event.  Its settings are the game's ``labels["clock"]``
(:func:`check_clock`).

Pure: :class:`~service.domain.game.Game` delegates to these functions -- its ``tick`` after every
event, live and on replay, with the event's own time; its clock commands, which record the events
these checks allow; its clock events' ``apply``.  Nothing here reads the time: ``now`` is given."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from service.domain.errors import Conflict, Forbidden, Invalid, Unprocessable
from service.domain.game_data import ACTIVE, Steps, copy_json
from service.domain.game_lifecycle import loss_of
from service.domain.game_play import own_side, require_active

if TYPE_CHECKING:
    from service.domain.game import Game

DAY = 86400.0
CLOCK_KINDS = ("per-turn", "per-move")
TIMEOUT_POLICIES = ("forfeit", "claim", "arbiter")


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


# -- the projection: the clock after each event ----------------------------------------------------
def fresh_clock(config: Mapping[str, Any], sides: Mapping[str, str]) -> dict[str, Any]:
    """The clock at the game's first event: a whole allowance for each side, none running."""
    allowance = float(config["days"]) * DAY
    return {
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
            for side in sides
        },
    }


def _refill(entry: dict[str, Any], allowance: float) -> None:
    """A whole allowance again, its expiry and low warning forgotten."""
    entry["remaining"] = allowance
    entry["expired"] = False
    entry["low"] = False


def ticked(game: Game) -> dict[str, Any]:
    """The game's clock after its latest event (the game has a clock): the time since the previous
    event charged to the sides that were running, then the clocks of the sides active now started
    (a new game turn or move first gives a whole allowance)."""
    config = game.labels["clock"]
    now = game.modified_on.timestamp()
    allowance = float(config["days"]) * DAY
    clock = copy_json(game.clock)
    if clock is None:
        clock = fresh_clock(config, game.sides)
    for entry in clock["sides"].values():
        if entry["since"] is not None:
            entry["remaining"] -= running_time(entry, entry["since"], now)
    # who has the move (the rules), and whose clock runs: not while a dispute or a claim pauses
    active = game.active_sides()
    stopped = game.paused_by() is not None or game.claim_pending is not None
    running = [] if stopped else active
    moved_on = [side for side in active if side not in clock.get("active", [])]
    clock["active"] = active
    if config["kind"] == "per-turn":
        turn = (game._rules.phase(game.state) or {}).get("turn") if active else clock["turn"]
        if turn != clock["turn"] and clock["turn"] is not None:
            for entry in clock["sides"].values():
                _refill(entry, allowance)  # a new game turn: a whole allowance
        clock["turn"] = turn
    for side, entry in clock["sides"].items():
        if side in moved_on and config["kind"] == "per-move":
            # a fresh allowance for each move (a pause resumes the same move): a side that ran
            # out and was not claimed against before it had the move again starts afresh
            _refill(entry, allowance)
        entry["since"] = now if side in running else None
    return clock


# -- reading the clock -----------------------------------------------------------------------------
def read(game: Game, now: float) -> dict[str, Any] | None:
    """The clock read at ``now`` (seconds since the epoch): each side's remaining seconds, whether
    it runs, its vacation; None when the game has no clock."""
    config = game.labels.get("clock")
    if not config or game.clock is None:
        return None
    sides = {}
    for side, entry in game.clock["sides"].items():
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


def due(game: Game, now: float) -> float | None:
    """When the clock checks must next look at the game (seconds since the epoch): the first
    moment, not before ``now``, at which ``Game.expire_clock`` or ``Game.warn_low_clock`` would
    record something if no other event came meanwhile -- a running clock's expiry or its
    low-clock warning, pushed on by its vacations (a warning waits for the vacation's end).
    None when neither ever would: no clock, the game not being played, no clock running (a
    pause for a dispute or a claim), or both already recorded.  Every event may change it."""
    config = game.labels.get("clock")
    if not config or game.clock is None or game.status != ACTIVE:
        return None
    threshold = low_threshold(config)
    found = []
    for entry in game.clock["sides"].values():
        if entry["since"] is None or entry["expired"]:
            continue  # not running, or its expiry recorded: no warning after it either
        found.append(charged_reach(entry, entry["remaining"], now, strict=False))
        if not entry.get("low", False):
            found.append(charged_reach(entry, entry["remaining"] - threshold, now, strict=True))
    return min((t for t in found if t is not None), default=None)


def expire_clock(game: Game, now: float, seed: str) -> Steps[list[str]]:
    """The expiry of every running clock that has run out at ``now`` (once: an expiry recorded is
    not recorded again); with the ``forfeit`` policy the game ends at once."""
    clock = read(game, now)
    if clock is None or game.status != ACTIVE:
        return []
    expired = [s for s, c in clock["sides"].items() if c["expired"] and not c["expiry_recorded"]]
    for side in expired:
        yield game.ClockExpired, {"side": side}
    if expired and clock["config"].get("on_timeout", "claim") == "forfeit":
        yield game.Ended, {"result": loss_of(game, expired[0], "timeout"), "seed": seed}
    return expired


def warn_low_clock(game: Game, now: float) -> Steps[list[str]]:
    """``ClockLow`` for every running clock below its threshold (:func:`low_threshold`) at ``now``
    that has not run out; once per side per game turn or move (the flag is cleared with the fresh
    allowance, :func:`ticked`)."""
    clock = read(game, now)
    if clock is None or game.status != ACTIVE:
        return []
    low = [
        side
        for side, c in clock["sides"].items()
        if c["running"] and c["low"] and not c["low_recorded"] and not c["expired"]
    ]
    for side in low:
        yield game.ClockLow, {"side": side}
    return low


# -- the players' and arbiters' commands -----------------------------------------------------------
def take_vacation(game: Game, side: str, user: str, days: int) -> Steps[None]:
    """``side``'s player takes ``days`` of its vacation left: its clock stands still meanwhile."""
    require_active(game)
    own_side(game, side, user)
    if game.clock is None:
        raise Conflict("this game has no clock", {"vacation": ["the game is not timed"]})
    left = game.clock["sides"][side]["vacation_left"]
    if isinstance(days, bool) or not isinstance(days, int) or days < 1:
        raise Unprocessable("vacation is a whole number of days", {"days": ["1 or more"]})
    if days > left:
        raise Unprocessable(f"only {left} vacation day(s) left", {"days": [f"at most {left}"]})
    yield game.VacationTaken, {"user": user, "side": side, "days": days}


def claim(game: Game, side: str, user: str, now: float, seed: str) -> Steps[str]:
    """``side`` claims the game from an opponent whose clock has run out at ``now``: the opponent
    loses on time, at once or when an arbiter decides so (the ``arbiter`` policy).  Returns the
    side that lost."""
    require_active(game)
    own_side(game, side, user)
    if game.claim_pending is not None:
        raise Conflict("a claim already waits for an arbiter", {"claim": ["already claimed"]})
    clock = read(game, now)
    if clock is None:
        raise Conflict("this game has no clock", {"claim": ["the game is not timed"]})
    late = [s for s, c in clock["sides"].items() if s != side and c["expired"]]
    if not late:
        raise Conflict(
            "no opponent's clock has run out", {"claim": ["the opponent still has time"]}
        )
    if not clock["sides"][late[0]]["expiry_recorded"]:
        yield game.ClockExpired, {"side": late[0]}
    yield game.Claimed, {"side": side, "user": user}
    if clock["config"].get("on_timeout", "claim") != "arbiter":
        yield game.Ended, {"result": loss_of(game, late[0], "timeout"), "seed": seed}
    return late[0]


def decide_claim(game: Game, arbiter: str, decision: str, note: str, seed: str) -> Steps[None]:
    """An arbiter (never a player of the game) decides a claim on time: ``forfeit`` ends the
    game against the late side, ``continue`` gives it a whole allowance again."""
    pending = game.claim_pending
    if pending is None:
        raise Conflict("no claim waits for a decision", {"claim": ["nothing to decide"]})
    if arbiter in game.sides.values():
        raise Forbidden(
            "a player of this game may not decide its claim", {"arbiter": ["plays this game"]}
        )
    if decision not in ("forfeit", "continue"):
        raise Invalid("decide forfeit or continue", {"decision": ["forfeit or continue"]})
    yield game.ClaimDecided, {"arbiter": arbiter, "decision": decision, "note": note}
    if decision == "forfeit":
        loser = pending["against"]
        yield game.Ended, {"result": loss_of(game, loser, "timeout"), "seed": seed}


# -- what the clock events do to the clock (their ``apply``) ---------------------------------------
def with_vacation(clock: Any, side: str, start: float, days: int) -> Any:
    """The clock (None when the game has none) with ``side`` on vacation for ``days`` from
    ``start``."""
    clock = copy_json(clock)
    if clock is not None:
        entry = clock["sides"][side]
        entry["vacations"].append([start, start + days * DAY])
        entry["vacation_left"] -= days
    return clock


def with_flag(clock: Any, side: str, flag: str) -> Any:
    """The clock (None when the game has none) with ``side``'s ``expired`` or ``low`` recorded."""
    clock = copy_json(clock)
    if clock is not None:
        clock["sides"][side][flag] = True
    return clock


def pending_claim(game: Game, side: str, user: str) -> dict[str, Any] | None:
    """The game's pending claim after ``side``'s claim: under the ``arbiter`` policy the claim
    waits, against the first other side whose expiry is recorded; else as it was."""
    if (game.labels.get("clock") or {}).get("on_timeout", "claim") != "arbiter":
        return game.claim_pending
    late = [s for s, c in (game.clock or {"sides": {}})["sides"].items() if c["expired"]]
    against = next((s for s in late if s != side), None)
    return {"side": side, "user": user, "against": against}


def continued(game: Game, decision: str) -> Any:
    """The clock after an arbiter's decision on the pending claim: on ``continue`` the late side
    gets a whole allowance again; else the clock as it is."""
    pending = game.claim_pending
    if decision != "continue" or game.clock is None or not pending or not pending["against"]:
        return game.clock
    clock = copy_json(game.clock)
    config = game.labels.get("clock") or {}
    _refill(clock["sides"][pending["against"]], float(config.get("days", 0)) * DAY)
    return clock
