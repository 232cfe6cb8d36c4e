"""A game's review (issue 31): the luck of each side measured from its dice, the game turn by turn
in words, the key moments, and each side's standing per turn -- and the after-action report made
of them (``service.application.report``).

The figures come from the persisted reviews view (``projections/reviews.py``); the story is the
log's own words, a page of events at a time, as the reader may see them (``GameService.events``:
the same redaction as the game page).  During the game a player sees their own side's luck only,
and a reader who plays no side sees none; once the game is over its readers see everything.  In a
game that hides information, the standing per turn shows a player only their own side's until the
end."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

from service.application.games import GameService, with_states_before
from service.application.report import board_svg, colours, report_html, report_markdown
from service.domain.errors import Invalid
from service.domain.game import Game, copy_json
from service.domain.users import User
from service.rules.base import RulesEvent, RulesSystem
from service.rules.luck import RollValue, side_figure
from service.views.reviews import ReviewsView

#: the most events a page of the timeline holds
TIMELINE_MAX = 200
#: the most rolls of a side a page of the review lists (the figure counts them all)
ROLLS_MAX = 500
#: moments of each kind (losses, victory points, luck) the review marks
MOMENTS_PER_KIND = 3
#: a token of a roll's purpose that may be a unit's id ("morale check of n-2-i-navarra (13)")
UNIT_TOKEN = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.:-]*[A-Za-z0-9]")
#: boards the report draws (at its largest moments)
BOARDS = 3


class ReviewService:
    def __init__(self, games: GameService, view: ReviewsView) -> None:
        self.games = games
        self.view = view

    # -- what a reader may see --------------------------------------------------------------------
    def sides_shown(self, game: Game, viewer: str | None, user: User | None) -> list[str]:
        """The sides whose luck the reader sees: all once the game is over, else the player's
        own (``viewer``, or every side they play), none for a reader who plays no side."""
        if game.status == "ended":
            return list(game.sides)
        if user is None:
            return []
        mine = game.side_of(str(user.id))
        if viewer is not None:
            return [viewer] if viewer in mine else []
        return [s for s in game.sides if s in mine]

    # -- the review --------------------------------------------------------------------------------
    def review(
        self,
        game_id: str,
        user: User | None,
        side: str | None = None,
        *,
        after: int = 0,
        limit: int = TIMELINE_MAX,
        rolls_after: int = -1,
        rolls_limit: int = ROLLS_MAX,
    ) -> dict[str, Any]:
        if not 1 <= limit <= TIMELINE_MAX:
            raise Invalid("limit out of range", {"limit": [f"between 1 and {TIMELINE_MAX}"]})
        if after < 0:
            raise Invalid("after out of range", {"after": ["0 or more (an event's seq)"]})
        if not 1 <= rolls_limit <= ROLLS_MAX:
            raise Invalid(
                "rolls_limit out of range", {"rolls_limit": [f"between 1 and {ROLLS_MAX}"]}
            )
        game = self.games.get(game_id)
        viewer = self.games.viewer_side(game, user, side)
        shown = self.sides_shown(game, viewer, user)
        row = self.view.game(str(game.id)) or {}
        rolls = self._every_roll(game, self.view.rolls(str(game.id)))
        turns = self.view.turns(str(game.id))
        words = self._unit_words(game, viewer)
        luck = {s: self._luck(s, rolls, words) for s in shown}
        chart = self._chart(game, turns, shown)
        events = self.games.events(game.id, after=after, limit=limit, viewer=viewer)
        timeline = self._timeline(events, turns, int(row.get("turn") or 0))
        moments = self._moments(chart, luck)
        for figure in luck.values():  # each side's rolls a page at a time, by the die's index
            later = [r for r in figure["rolls"] if r["index"] > rolls_after]
            figure["rolls"] = later[:rolls_limit]
            more = len(later) > rolls_limit
            figure["rolls_next_after"] = figure["rolls"][-1]["index"] if more else None
        return {
            "game": str(game.id),
            "title": game.labels.get("title", game.scenario),
            "system": game.system,
            "system_title": self.games.system(game.system).title,
            "status": game.status,
            "version": game.version,
            "sides": {s: self.games.users.username(u) for s, u in game.sides.items()},
            "viewer_side": viewer,
            "result": game.result,
            "luck": luck,
            "chart": chart,
            "timeline": timeline,
            "next_after": events[-1]["seq"] if len(events) == limit else None,
            "moments": moments,
        }

    def profile_luck(self, games: list[Mapping[str, Any]], uid: str) -> dict[str, Any]:
        """A player's luck over ``games`` (rows of a profile's listing, already cut to what the
        reader may read): each ended game's figure for the sides they played, and the sums by
        unit.  Games not over are left out (their luck is their players' only)."""
        ended = {g["id"]: g for g in games if g.get("status") == "ended"}
        rows = []
        totals: dict[str, dict[str, Any]] = {}
        for found in self.view.figures(list(ended)):
            game = ended[found["game"]]
            if game["sides"].get(found["side"]) != uid or not found["measured"]:
                continue
            rows.append(
                {
                    "game": found["game"],
                    "title": game.get("title"),
                    "side": found["side"],
                    "figure": found["figure"],
                    "unit": found["unit"],
                    "p_at_least": found["p_at_least"],
                    "rolls": found["measured"],
                }
            )
            total = totals.setdefault(found["unit"], {"unit": found["unit"], "figure": 0.0})
            total["figure"] += found["figure"]
            total["games"] = total.get("games", 0) + 1
        return {"games": rows, "totals": sorted(totals.values(), key=lambda t: t["unit"])}

    def report(self, review: Mapping[str, Any], kind: str) -> str:
        """The after-action report of ``review`` (as its reader got it): ``html`` or ``md``."""
        game = self.games.get(review["game"])
        dice = self.games.verify_dice(game.id)
        if kind == "md":
            return report_markdown(review, dice)
        rules = self.games.system(game.system)
        palette = colours(list(game.sides), dict(rules.side_colours))
        return report_html(review, dice, self._boards(game, review, palette), palette)

    def _boards(
        self, game: Game, review: Mapping[str, Any], palette: Mapping[str, str]
    ) -> list[tuple[str, str]]:
        """The board just after the largest moments (at most :data:`BOARDS`), as the reader
        sees it then; none for a game whose drawing is not a hex map."""
        rules = self.games.system(game.system)
        if rules.drawing is None:
            return []
        try:
            board = rules.drawing.board(game.scenario.partition("@")[0])
        except Exception:  # a club scenario's map: drawn on the game page, not here
            return []
        moments = sorted(review.get("moments") or [], key=lambda m: -abs(float(m["size"])))
        out = []
        for moment in sorted(moments[:BOARDS], key=lambda m: m["seq"]):
            at = self.games.get(game.id, version=max(1, min(int(moment["seq"]), game.version)))
            state = (
                at.state if game.status == "ended" else rules.view(at.state, review["viewer_side"])
            )
            caption = f"Turn {moment['turn']}, after event {moment['seq']}: {moment['text']}"
            svg = board_svg(board, rules.drawing.counters(state), palette, caption)
            if svg:
                out.append((caption, svg))
        return out

    # -- parts ------------------------------------------------------------------------------------
    def _every_roll(self, game: Game, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """The view's rolls of ``game`` with what the view has not taken yet (its worker lags:
        a game resigned right after a roll is read before the roll reaches the view) measured now
        from the log: every roll the dice log holds is in the luck (issue 47).  The tail is read
        from the last roll the view holds (its measure may be missing too), from a state loaded
        at the version before it; a view that is up to date costs nothing."""
        known = {int(r["idx"]): r for r in rows}
        missing = any(i not in known for i in range(game.next_roll))
        last = known[max(known)] if known else None
        if not missing and (last is None or last["value"] is not None):
            return rows
        start = int(last["seq"]) if last is not None else 1
        rules = self.games.system(game.system)
        state = self.games.get(game.id, version=start - 1).state if start > 1 else None
        stored = self.games.store.events.get(game.id, gt=start - 1)
        out = {i: dict(r) for i, r in known.items()}
        retracted = set(game.retracted)
        for event, before in with_states_before(rules, stored, state):
            if isinstance(event, Game.DiceRolled):
                _add_rolls(out, event, _turn(rules, before))
            elif (
                isinstance(event, Game.Recorded)
                and before is not None
                and event.originator_version not in retracted
            ):
                _measure_rolls(out, rules, event, before)
        return [out[i] for i in sorted(out)]

    def _unit_words(self, game: Game, viewer: str | None) -> Callable[[str], str]:
        """A roll's recorded purpose in words: each unit id by its printed name (a unit the
        reader's view of the game does not show: "a unit"), never an id."""
        rules = self.games.system(game.system)
        units = (game.state or {}).get("units") or {}
        if game.status != "ended" and rules.hidden_information:
            seen = (rules.view(game.state, viewer) or {}).get("units") or {}
        else:
            seen = units
        if not isinstance(units, dict):
            return lambda text: text

        def word(match: re.Match[str]) -> str:
            token = match.group(0)
            if token not in units:
                return token
            unit = seen.get(token) if isinstance(seen, dict) else None
            return str((unit or {}).get("name") or "a unit")

        return lambda text: UNIT_TOKEN.sub(word, text)

    @staticmethod
    def _luck(
        side: str, rolls: list[dict[str, Any]], words: Callable[[str], str]
    ) -> dict[str, Any]:
        values: list[RollValue] = [r["value"] for r in rolls if r["value"] is not None]
        figure = side_figure(values, side)
        by_index = {r["index"]: r for r in figure["rolls"]}
        listed = []
        for row in rolls:
            measured = by_index.get(row["idx"])
            if measured is None and row["roller"] != side:
                continue  # another side's roll with no value: not this side's dice
            item: dict[str, Any] = {
                "seq": row["seq"],
                "index": row["idx"],
                "turn": row["turn"],
                "purpose": words(row["purpose"]),
                "die": row["die"],
                "faces": row["sides"],
                "rolled_by": row["roller"],
                "outcome": None,
                "expected": None,
                "luck": None,
                "what": "",
            }
            if measured is not None:
                item.update(
                    outcome=measured["outcome"],
                    expected=measured["expected"],
                    luck=round(float(measured["outcome"]) - float(measured["expected"]), 9),
                    what=measured["what"],
                )
            listed.append(item)
        valued = [r for r in listed if r["outcome"] is not None]
        unvalued = [r for r in listed if r["outcome"] is None]
        return {
            "figure": figure["figure"],
            "unit": figure["unit"] or None,
            "p_at_least": figure["p_at_least"],
            "measured": len(valued),
            "distribution_only": len(unvalued),
            "words": luck_words(
                side, figure["figure"], figure["unit"], figure["p_at_least"], valued
            ),
            "rolls": listed,
        }

    def _chart(self, game: Game, turns: list[dict[str, Any]], shown: list[str]) -> dict[str, Any]:
        """Each turn over: each side's victory points and losses (as the rules tally them)."""
        hidden = self.games.system(game.system).hidden_information and game.status != "ended"
        visible = list(game.sides) if not hidden else shown
        points = []
        for row in turns:
            tally = {s: v for s, v in row["tally"].items() if s in visible}
            points.append({"turn": row["turn"], "seq": row["seq"], "sides": tally})
        return {"turns": points, "sides": visible}

    @staticmethod
    def _timeline(
        events: list[dict[str, Any]], turns: list[dict[str, Any]], current: int
    ) -> list[dict[str, Any]]:
        """The page's events in words, each with its turn (the turn whose end it came before)."""
        ends = [(int(t["seq"]), int(t["turn"])) for t in turns]
        out = []
        for item in events:
            text = item.get("text")
            if not text or item.get("retracted"):
                continue
            seq = int(item["seq"])
            turn = next((t for end, t in ends if seq <= end), current)
            out.append(
                {"seq": seq, "turn": turn, "side": item.get("side"), "text": text, "at": item["at"]}
            )
        return out

    @staticmethod
    def _moments(chart: dict[str, Any], luck: dict[str, dict[str, Any]]) -> list[dict[str, Any]]:
        """The largest swings: losses and victory points from one turn to the next, and the
        luckiest and unluckiest single rolls (the reader's sides)."""
        found: list[dict[str, Any]] = []
        previous: dict[str, dict[str, float]] = {}
        for point in chart["turns"]:
            for side, values in point["sides"].items():
                before = previous.get(side, {})
                for key, kind in (("losses", "losses"), ("vp", "vp")):
                    if key not in values:
                        continue
                    start = 0.0 if key == "losses" else values[key]  # VP: the first turn's own
                    change = float(values[key]) - float(before.get(key, start))
                    if change:
                        found.append(
                            {
                                "kind": kind,
                                "turn": point["turn"],
                                "seq": point["seq"],
                                "side": side,
                                "size": change,
                                "text": _swing_words(kind, side, change, point["turn"]),
                            }
                        )
            previous = {s: dict(v) for s, v in point["sides"].items()}
        chosen: list[dict[str, Any]] = []
        for kind in ("losses", "vp"):
            of_kind = [m for m in found if m["kind"] == kind]
            of_kind.sort(key=lambda m: (-abs(m["size"]), m["seq"]))
            chosen += of_kind[:MOMENTS_PER_KIND]
        rolls = [
            r | {"side": side}
            for side, figure in luck.items()
            for r in figure["rolls"]
            if r["luck"] is not None and r["rolled_by"] == side
        ]
        rolls.sort(key=lambda r: (-abs(r["luck"]), r["seq"]))
        for r in rolls[:MOMENTS_PER_KIND]:
            chosen.append(
                {
                    "kind": "luck",
                    "turn": r["turn"],
                    "seq": r["seq"],
                    "side": r["side"],
                    "size": r["luck"],
                    "text": f"{_side(r['side'])} rolled {r['die']} ({r['what']}): "
                    f"{_signed(r['luck'])} against the average",
                }
            )
        chosen.sort(key=lambda m: (m["seq"], m["kind"]))
        return chosen


def luck_words(
    side: str, figure: float, unit: str, p_at_least: float, valued: list[dict[str, Any]]
) -> str:
    """``Republican dice were 1.8 units of losses luckier than average (12 rolls measured; 9% of
    games would do at least as well)``."""
    if not valued:
        return f"No {_side(side)} roll had a value to measure: the dice are reported as rolled."
    amount = abs(figure)
    if amount < 0.05:
        how = "exactly as lucky as average" if figure == 0 else "about as lucky as average"
        head = f"{_side(side)} dice were {how}"
    else:
        head = (
            f"{_side(side)} dice were {amount:.1f} {unit} "
            f"{'luckier' if figure > 0 else 'unluckier'} than average"
        )
    n = len(valued)
    chance = f"{p_at_least * 100:.0f}%" if p_at_least >= 0.01 else "under 1%"
    return (
        f"{head} ({n} roll{'s' if n != 1 else ''} measured; dice this good or better come up "
        f"{chance} of the time)."
    )


def _swing_words(kind: str, side: str, change: float, turn: int) -> str:
    if kind == "losses":
        return f"{_side(side)} losses rose by {_amount(change)} in turn {turn}"
    verb = "gained" if change > 0 else "lost"
    return f"{_side(side)} {verb} {_amount(abs(change))} victory point{'s' if abs(change) != 1 else ''} in turn {turn}"


def _side(side: str) -> str:
    return side.replace("_", " ").capitalize()


def _amount(value: float) -> str:
    return f"{value:g}"


def _signed(value: float) -> str:
    return f"{value:+.2f}"


def _turn(rules: RulesSystem, state: Any) -> int:
    """The game turn of ``state`` (0 before set-up), as the reviews' view records it."""
    try:
        turn = rules.phase(state).get("turn")
    except Exception:  # no phase to read (a state before set-up): turn 0
        return 0
    return int(turn) if isinstance(turn, int | float) else 0


def _add_rolls(out: dict[int, dict[str, Any]], event: Game.DiceRolled, turn: int) -> None:
    """The rolls of ``event`` not in ``out`` yet, each with no value until it is measured."""
    for roll in event.rolls:
        out.setdefault(
            int(roll["index"]),
            {
                "idx": int(roll["index"]),
                "seq": event.originator_version,
                "turn": turn,
                "roller": event.side,
                "purpose": str(roll.get("purpose") or ""),
                "die": int(roll["value"]),
                "sides": int(roll["sides"]),
                "value": None,
            },
        )


def _measure_rolls(
    out: dict[int, dict[str, Any]], rules: RulesSystem, event: Game.Recorded, before: Any
) -> None:
    """The value of each roll of ``out`` that ``event`` (applied to ``before``) measures, where
    the roll has none yet; nothing when the rules have no review."""
    if rules.review is None:
        return
    shown = RulesEvent(event.kind, copy_json(event.data))
    for value in rules.review.roll_values(shown, copy_json(before)):
        if value.index in out and out[value.index]["value"] is None:
            out[value.index]["value"] = value
