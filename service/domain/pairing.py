"""Pairing and scoring of club events (tournaments): pure functions over players' ids, results and
side counts, with no store and no clock.

Sides.  An event's scenario has two sides; ``FIRST`` and ``SECOND`` index them (``sides[0]``,
``sides[1]``).  *Side balance*: after every round each player's count of games on each side differs
by at most one wherever the pairing allows it.  In a pairing the first side goes to the player who
has played it least; when both have played it equally often, to the one who played the second side
more; when that ties too, to the one whose latest game was on the second side; and when that ties
too (both fresh, or both last on the same side), to the higher-ranked player in odd rounds and the
lower-ranked in even rounds.  That order is deterministic: the same history always gives the same
sides.

Round robin (``round_robin``).  The circle method: player 0 stays, the others turn one place each
round; a player facing the empty seat (an odd number of players) sits out with no bye score.  Sides
follow the rule above round by round.  A double round robin plays the cycle twice, the second time
with every game's sides swapped, so each pair plays both sides.

Swiss (``swiss``).  Players are ranked by points, then by their seed (the order they joined);
with an odd number the lowest-ranked player who has had no bye gets it (scored as the event says;
a second bye only when the others cannot be paired otherwise).
The highest-ranked unpaired player is paired first, with candidates in this order: the same score
first (the "fold": the top half of a score group meets the bottom half, so in a group of ``k`` the
candidate ``k // 2`` places down comes first), then the nearest scores.  No pair meets twice; when
the simple fold leads to a dead end the search backtracks (depth first; a round's whole search,
every bye and both passes, is bounded by ``STEPS`` nodes).  Side
balance is first a hard constraint (two players who both must have the same side are not paired);
only if no pairing exists with it is it relaxed (a pairing that breaks the balance is still
better than none).  Should the bounded search run out before it can say, Edmonds' maximum weight
matching (networkx) over the pairs that have not met decides: a pairing of everyone if one exists,
with the most pairs whose sides can stay balanced, then the nearest scores.  No pairing without a
rematch: :class:`PairingImpossible`.

Scoring and tie-breaks.  Points per result as the event sets them (default win 2, draw 1, loss 0:
any victory level counts as a win); a bye scores ``bye`` (default: a win).  Buchholz: the sum of the
opponents' points (a bye adds nothing).  Sonneborn-Berger: the sum over games of the opponent's
points times the share of the game's points won (1 for a win, draw/win for a draw, 0 for a loss).
Ranking: points, then (Swiss) Buchholz, then Sonneborn-Berger, then the points scored in the games
among the players still tied, then the seed."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

FIRST, SECOND = 0, 1
#: nodes a Swiss round's search may visit (a pairing of 64 players takes far fewer) before the
#: exact matching decides
STEPS = 20_000


class PairingImpossible(Exception):
    """No pairing satisfies the constraints (no rematch)."""


@dataclass(frozen=True)
class Pairing:
    """One game of a round: ``first`` plays the event's first side, ``second`` the second."""

    first: str
    second: str


@dataclass(frozen=True)
class Round:
    pairings: list[Pairing]
    bye: str | None = None


@dataclass
class History:
    """What pairing needs to know of the rounds played: each player's sides in order (``FIRST`` or
    ``SECOND``), the pairs that met, who had a bye."""

    sides: dict[str, list[int]] = field(default_factory=dict)
    met: set[frozenset[str]] = field(default_factory=set)
    byes: set[str] = field(default_factory=set)

    def count(self, player: str, side: int) -> int:
        return sum(1 for s in self.sides.get(player, ()) if s == side)

    def balance(self, player: str) -> int:
        """First-side games minus second-side games."""
        return self.count(player, FIRST) - self.count(player, SECOND)

    def add(self, rnd: Round) -> None:
        for p in rnd.pairings:
            self.sides.setdefault(p.first, []).append(FIRST)
            self.sides.setdefault(p.second, []).append(SECOND)
            self.met.add(frozenset((p.first, p.second)))
        if rnd.bye is not None:
            self.byes.add(rnd.bye)


def assign_sides(a: str, b: str, history: History, round_number: int) -> Pairing:
    """The pairing of ``a`` (ranked higher) and ``b`` with sides by the rule in the module's text."""
    ba, bb = history.balance(a), history.balance(b)
    if ba != bb:
        return Pairing(a, b) if ba < bb else Pairing(b, a)
    fa, fb = history.count(a, FIRST), history.count(b, FIRST)
    if fa != fb:
        return Pairing(a, b) if fa < fb else Pairing(b, a)
    la, lb = history.sides.get(a, [])[-1:], history.sides.get(b, [])[-1:]
    if la != lb and la and lb:
        return Pairing(a, b) if la == [SECOND] else Pairing(b, a)
    return Pairing(a, b) if round_number % 2 == 1 else Pairing(b, a)


# -- round robin ------------------------------------------------------------------------------------
def round_robin(players: Sequence[str], *, double: bool = False) -> list[Round]:
    """Every round of a round robin of ``players`` (in seed order), by the circle method."""
    if len(players) < 2:
        raise PairingImpossible("a round robin needs two players or more")
    seats: list[str | None] = list(players)
    if len(seats) % 2:  # the empty seat stays: whoever faces it sits out
        seats.insert(0, None)
    n = len(seats)
    history = History()
    rounds: list[Round] = []
    for r in range(n - 1):
        pairings, idle = [], None
        for i in range(n // 2):
            a, b = seats[i], seats[n - 1 - i]
            if a is None or b is None:
                idle = a if b is None else b
                continue
            # the player who stays alternates, round by round; elsewhere the left seat plays
            # first at odd tables and the right seat at even ones
            left_first = r % 2 == 0 if i == 0 else i % 2 == 1
            first = a if left_first else b
            pairings.append(Pairing(first, b if first == a else a))
        rnd = Round(pairings, None)
        history.add(rnd)
        rounds.append(Round(pairings, idle))
        seats = [seats[0], seats[-1], *seats[1:-1]]  # turn everyone but the first
    if double:
        # the return games, last round first: each player's count of each side stays within one
        rounds += [
            Round([Pairing(p.second, p.first) for p in rnd.pairings], rnd.bye)
            for rnd in reversed(rounds)
        ]
    # a player sitting out in a round robin has no bye score: ``bye`` names who sits out
    return rounds


# -- Swiss ------------------------------------------------------------------------------------------
def swiss_round(
    ranked: Sequence[str],
    points: Mapping[str, float],
    history: History,
    round_number: int,
) -> Round:
    """The next Swiss round of ``ranked`` (best first) given their ``points`` and ``history``."""
    if len(ranked) < 2:
        raise PairingImpossible("a Swiss round needs two players or more")
    order = list(ranked)
    budget = [STEPS]  # shared by every attempt: a round's search is bounded as a whole
    groups = _bye_groups(order, history)
    found = _searched_round(order, groups, points, history, budget)
    if found is None and budget[0] < 0:
        # the search ran out before it could say: Edmonds' matching decides
        found = _matched_round(order, groups, points, history)
    if found is None:
        raise PairingImpossible("every pairing of the players repeats a game already played")
    pairs, bye = found
    return Round([assign_sides(a, b, history, round_number) for a, b in pairs], bye)


#: a round's pairs (each ``(a, b)`` before sides are assigned) and who sits out (None: nobody)
_Found = tuple[list[tuple[str, str]], str | None]


def _bye_groups(order: list[str], history: History) -> list[list[str | None]]:
    """Who may sit out, in the order tried: the lowest-ranked without a bye first; a second bye
    only when no pairing of the others exists otherwise (nobody when the players are even)."""
    if not len(order) % 2:
        return [[None]]
    return [
        [p for p in reversed(order) if p not in history.byes],
        [p for p in reversed(order) if p in history.byes],
    ]


def _searched_round(
    order: list[str],
    groups: list[list[str | None]],
    points: Mapping[str, float],
    history: History,
    budget: list[int],
) -> _Found | None:
    """The first pairing the bounded search finds: balanced sides first, then any."""
    for group in groups:
        for strict in (True, False):
            for bye in group:
                rest = [p for p in order if p != bye]
                found = _pair(rest, points, history, strict, budget)
                if found is not None:
                    return found, bye
    return None


def _matched_round(
    order: list[str],
    groups: list[list[str | None]],
    points: Mapping[str, float],
    history: History,
) -> _Found | None:
    """Edmonds' matching, group by group of byes: of a group's byes, the one whose matching keeps
    the most pairs balanced (the first, the lowest ranked, on a tie): a bye decides who can meet
    whom."""
    for group in groups:
        best: tuple[int, str | None, list[tuple[str, str]]] | None = None
        for bye in group:
            found = _matched([p for p in order if p != bye], points, history)
            if found is not None:
                kept = sum(_balanced(a, b, history) for a, b in found)
                if best is None or kept > best[0]:
                    best = (kept, bye, found)
        if best is not None:
            return best[2], best[1]
    return None


def _balanced(p: str, q: str, history: History) -> bool:
    """Can ``p`` and ``q`` meet with both sides' counts kept within one?"""
    mp, mq = _must(history, p), _must(history, q)
    return mp is None or mp != mq


def _matched(
    order: list[str], points: Mapping[str, float], history: History
) -> list[tuple[str, str]] | None:
    """A pairing of every one of ``order`` with no rematch, if one exists (networkx's maximum
    weight matching, Edmonds' blossom algorithm, over the pairs that have not met): of those, the
    one with the most pairs whose sides can stay balanced, then the nearest scores; None when
    every pairing repeats a game."""
    import networkx as nx

    graph = nx.Graph()
    graph.add_nodes_from(order)
    top = max((abs(v) for v in points.values()), default=0) * 2 + 1
    # a balanced pair outweighs any sum of nearness: the most balanced pairs first, then scores
    heavy = (top + 1) * (len(order) // 2 + 1)
    for i, p in enumerate(order):
        for q in order[i + 1 :]:
            if frozenset((p, q)) in history.met:
                continue
            near = top - abs(points.get(p, 0) - points.get(q, 0))
            graph.add_edge(p, q, weight=heavy * _balanced(p, q, history) + near)
    matching = nx.max_weight_matching(graph, maxcardinality=True)
    if 2 * len(matching) != len(order):
        return None
    rank = {p: i for i, p in enumerate(order)}
    pairs = [(a, b) if rank[a] < rank[b] else (b, a) for a, b in matching]
    return sorted(pairs, key=lambda pair: rank[pair[0]])


def _must(history: History, player: str) -> int | None:
    """The side ``player`` must have next for the balance to hold (None: either)."""
    balance = history.balance(player)
    if balance > 0:
        return SECOND
    if balance < 0:
        return FIRST
    return None


def _pair(
    order: list[str],
    points: Mapping[str, float],
    history: History,
    strict: bool,
    budget: list[int],
) -> list[tuple[str, str]] | None:
    rank = {p: i for i, p in enumerate(order)}

    def candidates(p: str, free: list[str]) -> list[str]:
        others = [q for q in free if q != p]
        group = [q for q in others if points.get(q, 0) == points.get(p, 0)]
        fold = (len(group) + 1) // 2 - 1  # p is the top of its group: its fold partner

        def key(q: str) -> tuple[float, int, int]:
            same = points.get(q, 0) == points.get(p, 0)
            place = group.index(q) if same else 0
            return (
                abs(points.get(p, 0) - points.get(q, 0)),
                abs(place - fold) if same else 0,
                rank[q],
            )

        return sorted(others, key=key)

    def ok(p: str, q: str) -> bool:
        if frozenset((p, q)) in history.met:
            return False
        return not strict or _balanced(p, q, history)

    def search(free: list[str]) -> list[tuple[str, str]] | None:
        if not free:
            return []
        budget[0] -= 1
        if budget[0] < 0:
            return None
        p = free[0]
        for q in candidates(p, free):
            if not ok(p, q):
                continue
            rest = [x for x in free if x not in (p, q)]
            found = search(rest)
            if found is not None:
                return [(p, q), *found]
        return None

    return search(list(order))


# -- scoring ----------------------------------------------------------------------------------------
DEFAULT_SCORING = {"win": 2, "draw": 1, "loss": 0}


def game_points(scoring: Mapping[str, float], winner: int | None) -> tuple[float, float]:
    """Points of the first and second player for a game won by side ``winner`` (None: drawn)."""
    if winner is None:
        return scoring["draw"], scoring["draw"]
    if winner == FIRST:
        return scoring["win"], scoring["loss"]
    return scoring["loss"], scoring["win"]


@dataclass(frozen=True)
class Played:
    """A scored game: who played each side, and the winning side (None: a draw)."""

    first: str
    second: str
    winner: int | None


def _blank(p: str) -> dict[str, Any]:
    return {"player": p, "wins": 0, "draws": 0, "losses": 0, "byes": 0, "sides": [0, 0]}


def _tally(
    players: Sequence[str],
    games: Sequence[Played],
    byes: Sequence[str],
    scoring: Mapping[str, float],
    paired: Sequence[tuple[str, str]] | None,
) -> tuple[dict[str, dict[str, Any]], dict[str, float]]:
    """Every player's row (wins, draws, losses, byes, sides) and points, before tie-breaks."""
    pts = dict.fromkeys(players, 0.0)
    rows: dict[str, dict[str, Any]] = {p: _blank(p) for p in players}
    bye_points = float(scoring.get("bye", scoring["win"]))
    for g in games:
        a, b = game_points(scoring, g.winner)
        pts[g.first] = pts.get(g.first, 0) + a
        pts[g.second] = pts.get(g.second, 0) + b
        for who, side in ((g.first, FIRST), (g.second, SECOND)):
            row = rows.setdefault(who, _blank(who))
            if g.winner is None:
                row["draws"] += 1
            else:
                row["wins" if g.winner == side else "losses"] += 1
    for first, second in paired if paired is not None else [(g.first, g.second) for g in games]:
        rows.setdefault(first, _blank(first))["sides"][FIRST] += 1
        rows.setdefault(second, _blank(second))["sides"][SECOND] += 1
    for p in byes:
        pts[p] = pts.get(p, 0) + bye_points
        rows[p]["byes"] += 1
    return rows, pts


def _add_tiebreaks(
    rows: dict[str, dict[str, Any]],
    pts: dict[str, float],
    games: Sequence[Played],
    scoring: Mapping[str, float],
    *,
    swiss: bool,
) -> None:
    """Each row's ``points``, ``buchholz`` (Swiss; else None) and ``sonneborn_berger``."""
    win = float(scoring["win"]) or 1.0
    for p, row in rows.items():
        buchholz = sb = 0.0
        for g in games:
            if p not in (g.first, g.second):
                continue
            mine, side = (g.second, FIRST) if g.first == p else (g.first, SECOND)
            share = (
                1.0 if g.winner == side else 0.0 if g.winner is not None else scoring["draw"] / win
            )
            buchholz += pts[mine]
            sb += share * pts[mine]
        row["points"] = pts[p]
        row["buchholz"] = buchholz if swiss else None
        row["sonneborn_berger"] = sb


def _among_tied(
    tied: list[str],
    games: Sequence[Played],
    scoring: Mapping[str, float],
    seed: Mapping[str, int],
) -> list[str]:
    """Players tied on points and tie-breaks, ordered by the points of their games with each
    other (then their seed)."""
    if len(tied) < 2:
        return tied
    among = set(tied)
    mini = dict.fromkeys(tied, 0.0)
    for g in games:
        if g.first in among and g.second in among:
            a, b = game_points(scoring, g.winner)
            mini[g.first] += a
            mini[g.second] += b
    return sorted(tied, key=lambda p: (-mini[p], seed.get(p, len(seed))))


def standings(
    players: Sequence[str],
    games: Sequence[Played],
    byes: Sequence[str],
    scoring: Mapping[str, float],
    *,
    swiss: bool,
    paired: Sequence[tuple[str, str]] | None = None,
) -> list[dict[str, Any]]:
    """Every player's row, in rank order: ``player``, ``points``, ``buchholz`` (Swiss; else None),
    ``sonneborn_berger``, ``sides`` ([first count, second count] of the games ``paired`` -- every
    game released, scored or not, as ``(first, second)``; by default the scored ones), ``wins``,
    ``draws``, ``losses``, ``byes``, ``rank``."""
    seed = {p: i for i, p in enumerate(players)}
    rows, pts = _tally(players, games, byes, scoring, paired)
    _add_tiebreaks(rows, pts, games, scoring, swiss=swiss)

    def primary(p: str) -> tuple[float, ...]:
        row = rows[p]
        return (-row["points"], -(row["buchholz"] or 0), -row["sonneborn_berger"])

    ordered = sorted(rows, key=lambda p: (primary(p), seed.get(p, len(seed))))
    # among players still tied on those, the points scored in their games with each other
    out: list[str] = []
    i = 0
    while i < len(ordered):
        j = i
        while j < len(ordered) and primary(ordered[j]) == primary(ordered[i]):
            j += 1
        out += _among_tied(ordered[i:j], games, scoring, seed)
        i = j
    return [rows[p] | {"rank": n} for n, p in enumerate(out, start=1)]
