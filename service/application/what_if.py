"""What a disputed claim would change, never written to the log.

The disputed command is re-decided on the state before it under the claimed reading (and/or as
the command claimed ``instead``) with the die values its resolution recorded -- same purposes,
same order -- and every later command is re-decided as a rebase would: the very machinery of a
verdict (:meth:`DisputeService.overturn`), run on a copy of the game that is never saved.  A die
the alternative needs beyond the recorded ones is not drawn from the game's seed (its next values
are the next real rolls): it is shown as "would be rolled", with a public example value.

A verdict records the digest of the what-if it was decided on (``Game.VerdictBasis``); a
resolved dispute's what-if is recomputed from the log as it stood and checked against it."""

from __future__ import annotations

import copy
import hashlib
from collections.abc import Callable, Iterable, Mapping
from typing import Any
from uuid import UUID

from service.application.disputes import (
    Alternative,
    DisputeService,
    Plan,
    recorded_rolls,
    replayed,
)
from service.application.games import GameService, in_words, states_before
from service.application.readings import governing_readings, option_label, value_words
from service.domain.chain import canonical_json
from service.domain.errors import Conflict, Forbidden, NotFound
from service.domain.game import ACTIVE, Game, ServerDice, copy_json
from service.domain.reused_dice import ExampleDice, ReusedDice
from service.domain.users import User
from service.rules.base import RulesEvent, RulesSystem, State

#: the caller who sees every field (an arbiter): no side's view is applied
FULL = object()
#: the arbiter of a what-if: no user is ever bound to it
WHAT_IF = "what-if"
_NO_SEED = "00" * 32


class ExampleChoice:
    """A what-if's dice: recorded dice first; any other die an example, never the seed's."""

    def __init__(self, label: str, plan: Plan) -> None:
        self._label = label
        self._by_command = _commands_events(plan.later_events)

    def seed(self) -> str:
        return _NO_SEED

    def fresh(self, server: ServerDice) -> ExampleDice:
        return ExampleDice(self._label)

    def later(self, command: Game.CommandAccepted) -> Callable[[ServerDice], Any]:
        recorded = recorded_rolls(self._by_command.get(command.originator_version, []))
        label = f"{self._label}|{command.originator_version}"
        return lambda server: ReusedDice(recorded, ExampleDice(label))


def _commands_events(events: list[Any]) -> dict[int, list[Any]]:
    """``events`` (in order, from a command on) by the command they belong to."""
    out: dict[int, list[Any]] = {}
    owner: list[Any] | None = None
    for event in events:
        if isinstance(event, Game.CommandAccepted):
            owner = out.setdefault(event.originator_version, [])
        if owner is not None:
            owner.append(event)
    return out


class WhatIfService:
    def __init__(self, disputes: DisputeService, games: GameService) -> None:
        self.disputes = disputes
        self.games = games

    # -- the API ---------------------------------------------------------------------------------
    def for_caller(self, game_id: UUID | str, user: User, dispute: str) -> dict[str, Any]:
        """The what-if of ``dispute`` as ``user`` may see it: a player of the game in their
        side's view, an arbiter who may rule on it in full.  A resolved dispute's what-if is the
        one its verdict was decided on, recomputed from the log as it stood then."""
        game = self.games.get(game_id)
        info = game.disputes.get(dispute)
        if info is None:
            raise NotFound(f"no dispute {dispute} in this game", {"dispute": ["unknown dispute"]})
        mine = game.side_of(str(user.id))
        if mine:
            viewer: Any = info["side"] if info["side"] in mine else mine[0]
        elif self.disputes.may_arbitrate(game, user):
            viewer = FULL
        else:
            raise Forbidden(
                "only the game's players and its arbiters see a dispute's what-if",
                {"dispute": ["you neither play this game nor arbitrate it"]},
            )
        basis = info.get("basis")
        if game.status != ACTIVE and (info["status"] == "open" or basis is None):
            return self._as_recorded(game, dispute, viewer)
        at = game
        if info["status"] != "open":
            if basis is None:
                raise Conflict(
                    "this dispute was decided without a what-if",
                    {"dispute": ["resolved without a what-if (an ended game, or before what-ifs)"]},
                )
            at = self.games.get(game.id, version=self._resolved_at(game, dispute) - 1)
        if info["status"] == "open":
            alternative = self.disputes.alternative_of(at, dispute)
        else:
            alternative = self._decided_alternative(game, dispute)
        full, shown = self._compute(at, dispute, alternative, viewer)
        out = shown | {"digest": self.digest(full)}
        out["viewer"] = "arbiter" if viewer is FULL else viewer
        out["may_rule"] = viewer is FULL and info["status"] == "open"
        self._drawn(at, out)
        if info["status"] != "open":
            out["decided_on"] = {"digest": basis, "matches": basis == out["digest"]}
        return out

    def _as_recorded(self, game: Game, dispute: str, viewer: Any) -> dict[str, Any]:
        """An ended game's dispute: nothing is re-decided (its seed is public and its result
        stands), so its what-if is the disputed order as recorded, the board before and after,
        and whether the caller may rule -- uphold the event, or make a club ruling for later
        games."""
        info = game.disputes[dispute]
        rules = self.games.system(game.system)
        plan = self.disputes.plan(game, info["seq"])
        context = _Context(rules, None)
        out: dict[str, Any] = {
            "ended": True,
            "before": {"state": copy_json(plan.before)},
            "recorded": {
                # an ended game hides nothing from its players: every side sees it whole
                "events": context.events(plan.own, plan.before, FULL, with_seq=True),
                "state": replayed(rules, plan.before, plan.own),
            },
            "alternative": None,
            "dice": [],
            "differences": [],
            "later": [],
            "digest": None,
            "viewer": "arbiter" if viewer is FULL else viewer,
            "may_rule": viewer is FULL and info["status"] == "open",
        }
        self._drawn(game, out)
        return out

    def _drawn(self, game: Game, out: dict[str, Any]) -> None:
        """The counters of each board shown (before, as recorded, under the claim) and the hexes
        to frame: where the events happened and where the units that differ stand."""
        rules = self.games.system(game.system)
        drawing = rules.drawing
        focus: list[str] = []
        drawn = [part for part in ("before", "recorded", "alternative") if out[part] is not None]
        for part in drawn:
            state = out[part]["state"]
            out[part]["counters"] = drawing.counters(state) if drawing is not None else []
        for part in drawn[1:]:
            for event in out[part]["events"]:
                hexes = [event["data"].get("hex"), *(event["data"].get("path") or [])]
                focus.extend(h for h in hexes if isinstance(h, str))
        if out["alternative"] is None:
            out["focus"] = list(dict.fromkeys(focus))
            return
        rec, alt = _units(out["recorded"]["state"]), _units(out["alternative"]["state"])
        for uid in set(rec) | set(alt):
            if rec.get(uid) != alt.get(uid):
                for unit in (rec.get(uid), alt.get(uid)):
                    if unit and isinstance(unit.get("hex"), str):
                        focus.append(unit["hex"])
        out["focus"] = list(dict.fromkeys(focus))

    def readings(self, game_id: UUID | str, seq: int, user: User | None) -> list[dict[str, Any]]:
        """The readings that govern event ``seq`` (its command's events), as choices in words,
        found from the events and states as ``user``'s side may see them (a spectator's form for
        anyone else): what governs a hidden event is not told to whom it is hidden."""
        game = self.games.get(game_id)
        if not 1 < seq <= game.version:
            raise NotFound(f"no event {seq}", {"seq": [f"2 to {game.version}"]})
        viewer = self.games.viewer_side(game, user, None)
        rules = self.games.system(game.system)
        plan = self.disputes.plan(game, seq)
        seen = []
        for event, before in states_before(rules, plan.own, copy_json(plan.before)):
            if isinstance(event, Game.Recorded):
                shown = RulesEvent(event.kind, copy_json(event.data))
                if game.status != "ended":
                    shown, before = (
                        rules.event_view(shown, before, viewer),
                        rules.view(copy_json(before), viewer),
                    )
                seen.append((shown, before))
        options = plan.before.get("options") or {}
        return governing_readings(rules, game.scenario, options, seen)

    def basis(
        self, game: Game, dispute: str, alternative: Alternative | None, plan: Plan
    ) -> str | None:
        """The digest of the what-if a verdict on ``game`` as it stands is decided on, on the
        verdict's own ``plan`` (None: an ended game, whose verdict can only uphold or make a
        club ruling)."""
        if game.status != ACTIVE or plan.ended:
            return None
        full, _ = self._compute(game, dispute, alternative, FULL, plan)
        return self.digest(full)

    @staticmethod
    def digest(full: Mapping[str, Any]) -> str:
        return hashlib.sha256(canonical_json(full).encode("utf-8")).hexdigest()

    # -- the computation -------------------------------------------------------------------------
    def _compute(
        self,
        game: Game,
        dispute: str,
        alternative: Alternative | None,
        viewer: Any,
        plan: Plan | None = None,
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        """(the full form, the form ``viewer`` sees)."""
        info = game.disputes[dispute]
        plan = plan or self.disputes.plan(game, info["seq"])
        if game.status != ACTIVE or plan.ended:
            raise Conflict(
                "the game has ended: a verdict can uphold the event or make a club ruling, "
                "and there is nothing to re-decide",
                {"dispute": ["the game has ended"]},
            )
        rules = self.games.system(game.system)
        trial = copy.deepcopy(game)
        trial.attach(self.disputes.ports)
        trial.disputes[dispute]["status"] = "open"  # a resolved dispute: as it stood then
        applied = self.disputes.overturn(
            trial,
            dispute,
            arbiter=WHAT_IF,
            verdict="overturned",
            remedy="rebase",
            citations=[{"id": WHAT_IF}],
            note="",
            club_ruling=None,
            alternative=alternative,
            what_if=None,
            dice=ExampleChoice(f"{game.id}|{dispute}", plan),
            plan=plan,
        )
        made = list(trial.pending_events)
        before = plan.before
        recorded_after = replayed(rules, before, plan.own)
        restored = next(e for e in made if isinstance(e, Game.Retracted)).restored_state
        redecided = applied["redecided"]
        if redecided is not None:
            span = [
                e for e in made if redecided["first"] <= e.originator_version <= redecided["last"]
            ]
            alt_start, alt_after = restored, redecided["state"]
        else:  # the disputed event removed: the rest of its command stands (none of it when
            # the command itself is disputed)
            span = [e for e in plan.own if e.originator_version > info["seq"]]
            if info["seq"] == plan.start:
                span = []
            alt_start = plan.state_before(rules, info["seq"])
            alt_after = restored
        context = _Context(rules, redecided)
        forms = {}
        for form in (FULL,) if viewer is FULL else (FULL, viewer):
            forms[id(form)] = {
                "before": {"state": context.view(before, form)},
                "recorded": {
                    "events": context.events(plan.own, before, form, with_seq=True),
                    "state": context.view(recorded_after, form),
                },
                "alternative": {
                    "events": context.events(span, alt_start, form, with_seq=False),
                    "state": context.view(alt_after, form),
                    "refused": redecided["refused"] if redecided else None,
                    "reading": _reading_words(alternative),
                    "instead": alternative.instead if alternative else None,
                    "removed": redecided is None,
                },
                "dice": context.dice(),
                "differences": differences(
                    rules, context.view(recorded_after, form), context.view(alt_after, form)
                ),
                "later": context.later(applied["report"], plan, form, recorded_after),
            }
        full = forms[id(FULL)]
        return full, forms[id(viewer)]

    def _since(self, game: Game, dispute: str) -> Iterable[Any]:
        """The log from the dispute's opening on (its id names the version that opened it)."""
        opened = int(dispute[1:]) if dispute[1:].isdigit() else 0
        return self.disputes.store.events.get(game.id, gt=max(opened - 1, 0))

    def _resolved_at(self, game: Game, dispute: str) -> int:
        for event in self._since(game, dispute):
            if isinstance(event, Game.DisputeResolved) and event.dispute == dispute:
                return int(event.originator_version)
        raise NotFound("the dispute's resolution is not in the log", {"dispute": ["unresolved"]})

    def _decided_alternative(self, game: Game, dispute: str) -> Alternative | None:
        for event in self._since(game, dispute):
            if isinstance(event, Game.VerdictBasis) and event.dispute == dispute:
                if not event.reading and not event.instead:
                    return None
                return Alternative(copy_json(event.reading), copy_json(event.instead))
        return None


def _reading_words(alternative: Alternative | None) -> list[dict[str, Any]]:
    if alternative is None:
        return []
    return [
        {"option": k, "value": v, "words": f"{option_label(k)}: {value_words(v)}"}
        for k, v in alternative.reading.items()
    ]


class _Context:
    """Words and views for one what-if."""

    def __init__(self, rules: RulesSystem, redecided: Mapping[str, Any] | None) -> None:
        self.rules = rules
        self.redecided = redecided

    def view(self, state: State, form: Any) -> State:
        return copy_json(state) if form is FULL else self.rules.view(copy_json(state), form)

    def events(
        self, events: Iterable[Any], start: State, form: Any, *, with_seq: bool
    ) -> list[dict[str, Any]]:
        out = []
        for event, before in states_before(self.rules, events, copy_json(start)):
            if not isinstance(event, Game.Recorded):
                continue
            shown = RulesEvent(event.kind, copy_json(event.data))
            if form is not FULL:
                shown = self.rules.event_view(shown, before, form)
            item = {"text": in_words(self.rules, shown, before), "kind": shown.type,
                    "data": shown.data}  # fmt: skip
            out.append(({"seq": event.originator_version} if with_seq else {}) | item)
        return out

    def dice(self) -> list[dict[str, Any]]:
        trail = self.redecided["trail"] if self.redecided else []
        out = []
        for roll, reused in trail:
            item = {"purpose": roll.purpose, "sides": roll.sides, "reused": reused}
            if reused:
                item["value"] = roll.value
                item["text"] = f"{_purpose(roll.purpose)}: {roll.value}, the recorded die"
            else:
                item["value"] = None
                item["example"] = roll.value
                item["text"] = (
                    f"{_purpose(roll.purpose)}: would be rolled when the verdict is applied "
                    f"(worked out here with an example {roll.value})"
                )
            out.append(item)
        return out

    def later(
        self, report: list[dict[str, Any]], plan: Plan, form: Any, start: State
    ) -> list[dict[str, Any]]:
        texts = self._command_texts(plan, form, start)
        out = []
        for entry in report:
            status = entry["status"]
            reason = entry.get("reason") or ""
            if status == "re-rolled":
                reason = (
                    "it rolls its dice again when the verdict is applied; worked out here "
                    "with the dice it rolled"
                )
            elif status == "kept":
                reason = "decided the same way on the corrected game"
            out.append(
                {
                    "seq": entry["origin"],
                    "text": texts.get(entry["origin"]) or _command_words(entry.get("command")),
                    "by": entry.get("user"),
                    "outcome": status,
                    "reason": reason,
                    "rule": entry.get("rule"),
                }
            )
        return out

    def _command_texts(self, plan: Plan, form: Any, start: State) -> dict[int, str]:
        """Each later command in the words of its recorded effects (at most three), as ``form``
        sees them, worded from the states of the log as recorded."""
        texts: dict[int, list[str]] = {}
        owner: int | None = None
        for event, before in states_before(self.rules, plan.later_events, copy_json(start)):
            if isinstance(event, Game.CommandAccepted):
                owner = event.originator_version
                texts[owner] = []
            elif isinstance(event, Game.Recorded) and owner is not None:
                shown = RulesEvent(event.kind, copy_json(event.data))
                if form is not FULL:
                    shown = self.rules.event_view(shown, before, form)
                texts[owner].append(in_words(self.rules, shown, before))
        return {
            k: " ".join(_sentence(t) for t in v[:3]) + (" …" if len(v) > 3 else "")
            for k, v in texts.items()
            if v
        }


def _sentence(text: str) -> str:
    text = text.strip()
    return text if text.endswith((".", "!", "?")) else f"{text}."


def _command_words(kind: Any) -> str:
    return f"A {str(kind or 'command').replace('_', ' ')} order."


def _purpose(purpose: str) -> str:
    return (purpose or "a die").replace("_", " ").capitalize()


# -- differences in words --------------------------------------------------------------------------
def differences(rules: RulesSystem, recorded: State, alternative: State) -> list[str]:
    """Each unit whose fate, place or strength differs, and each other state field that differs,
    in printed names: ``"19 Div: eliminated instead of at Merida (H4)"``."""
    names_rec, names_alt = rules.names(recorded), rules.names(alternative)
    out: list[str] = []
    units_rec = _units(recorded)
    units_alt = _units(alternative)
    ids = set(units_rec) | set(units_alt)

    def unit(value: str) -> str | None:  # a unit's id by its printed name
        return str(names_alt.unit(value)) if value in ids else None

    for uid in sorted(set(units_rec) | set(units_alt), key=str):
        a, b = units_rec.get(uid), units_alt.get(uid)
        if a == b:
            continue
        name = names_alt.unit(uid) if b else names_rec.unit(uid)
        fate_a, fate_b = _fate(a, names_rec), _fate(b, names_alt)
        if fate_a != fate_b:
            out.append(f"{name}: {fate_b} instead of {fate_a}")
        if a is None or b is None:
            continue
        for key in sorted(set(a) | set(b)):
            if key in ("hex", "status") or a.get(key) == b.get(key):
                continue
            out.append(
                f"{name}: {_field(key)} {_plain(b.get(key))} instead of {_plain(a.get(key))}"
            )
    for key in sorted(set(recorded) | set(alternative), key=str):
        if key in ("units", "map", "data", "options") or recorded.get(key) == alternative.get(key):
            continue
        a, b = recorded.get(key), alternative.get(key)
        if _scalar(a) and _scalar(b):
            out.append(f"{_field(key).capitalize()}: {_plain(b)} instead of {_plain(a)}")
        else:
            out.append(f"{_field(key).capitalize()}: {_how(a, b, unit)}")
    return out


MOST_TOLD = 4  # parts of a field that differs told, then "and N more"


def _how(a: Any, b: Any, unit: Callable[[str], str | None]) -> str:
    """How two values of a state field differ, in words: each part that differs, by its path
    ("result D2 instead of A2; column 6-1 instead of 3-1"), a unit by its printed name."""
    parts = list(_leaves(a, b, ()))
    said = [
        " ".join([*(_field(p) for p in path), f"{_plain(y, unit)} instead of {_plain(x, unit)}"])
        for path, x, y in parts[:MOST_TOLD]
    ]
    more = len(parts) - MOST_TOLD
    return "; ".join(said) + (f"; and {more} more" if more > 0 else "")


def _leaves(a: Any, b: Any, path: tuple[str, ...]) -> Iterable[tuple[Any, Any, Any]]:
    """Each (path, recorded, alternative) where two values differ, down to their leaves."""
    if isinstance(a, dict) and isinstance(b, dict):
        for k in sorted(set(a) | set(b), key=str):
            if a.get(k) != b.get(k):
                yield from _leaves(a.get(k), b.get(k), (*path, str(k)))
    elif isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        for x, y in zip(a, b, strict=True):
            if x != y:
                yield from _leaves(x, y, path)
    else:
        yield path, a, b


def _units(state: State) -> dict[str, dict[str, Any]]:
    units = state.get("units") or {}
    if isinstance(units, list):
        return {str(u.get("id")): u for u in units if isinstance(u, dict)}
    return {str(k): v for k, v in units.items() if isinstance(v, dict)}


def _fate(unit: Mapping[str, Any] | None, names: Any) -> str:
    """Where a unit is, in words: at a hex (by its place's name), else its status."""
    if unit is None:
        return "not in the game"
    status = str(unit.get("status") or "map")
    where = unit.get("hex")
    if status == "map" and isinstance(where, str):
        return f"at {names.hex(where)}"
    if status == "map":
        return "on the board"
    return _plain(status)


def _field(key: str) -> str:
    return {"hex": "place", "values": "values", "steps": "steps"}.get(key, key.replace("_", " "))


def _scalar(value: Any) -> bool:
    return not isinstance(value, (dict, list))


def _plain(value: Any, unit: Callable[[str], str | None] | None = None) -> str:
    """A value in words; with ``unit``, a unit's id by its printed name."""
    if isinstance(value, str) and unit is not None and (named := unit(value)) is not None:
        return named
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, dict):
        told = (f"{_field(str(k))} {_plain(v, unit)}" for k, v in value.items())
        return ", ".join(told) or "none"
    if isinstance(value, list):
        return ", ".join(_plain(v, unit) for v in value) or "none"
    return str(value).replace("_", " ")
