"""The machinery of an overturn: the plan of the commands it touches (read back from the
disputed event), the alternative it weighs, the remedy (what is retracted and the state play
resumes from), the disputed command decided again and the later commands rebased.

:class:`Remedies` is a part of :class:`service.application.disputes.DisputeService` (which
records verdicts with it) and of the what-if (``service.application.what_if``, which runs it on
a copy of the game with dice that never draw the game's seed)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from service.application.games import GameService
from service.application.store import ArbiterStore
from service.domain.errors import Conflict, DomainError
from service.domain.game import Game, ServerDice, copy_json
from service.domain.reused_dice import ReusedDice
from service.rules.base import InvalidCommand, RulesEvent, RuleViolation, rule_words

#: the events read at a time looking back for the command that caused a disputed event
PLAN_PAGE = 64


@dataclass(frozen=True)
class Plan:
    """The commands an overturn of event ``seq`` touches: the command that caused it (``start``,
    ``command``, its live events ``own``), the later live events and commands, and the rules
    state just before ``start`` (``before``: read once; copy it before changing it)."""

    seq: int
    start: int
    command: Game.CommandAccepted | None
    own: list[Any]
    later_events: list[Any]
    later: list[Game.CommandAccepted]
    ended: bool
    before: dict[str, Any]

    def state_before(self, rules: Any, seq: int) -> dict[str, Any]:
        """A copy of the state just before event ``seq`` of the disputed command: ``before``
        with the command's own rules events ahead of ``seq`` applied (nothing read again)."""
        return replayed(rules, self.before, [e for e in self.own if e.originator_version < seq])


def replayed(rules: Any, state: Mapping[str, Any], events: Iterable[Any]) -> dict[str, Any]:
    """A copy of ``state`` with the rules events among ``events`` applied, in order."""
    out = copy_json(dict(state))
    for event in events:
        if isinstance(event, Game.Recorded):
            out = rules.apply(out, RulesEvent(event.kind, copy_json(event.data)))
    return out


@dataclass(frozen=True)
class Alternative:
    """What should have happened: the game options of another reading, and/or another command."""

    reading: dict[str, Any]
    instead: dict[str, Any] | None


class DiceChoice(Protocol):
    """The dice a verdict's re-decisions roll: the seed of the game's own dice, the fresh dice
    of the re-decided command (after its recorded ones) and the dice of each later command."""

    def seed(self) -> str: ...

    def fresh(self, server: ServerDice) -> Any: ...

    def later(self, command: Game.CommandAccepted) -> Callable[[ServerDice], Any] | None: ...


class SeededDice:
    """A verdict applied: a die not recorded before is the game's next seeded die."""

    def __init__(self, seed: Callable[[], str]) -> None:
        self._seed = seed

    def seed(self) -> str:
        return self._seed()

    def fresh(self, server: ServerDice) -> Any:
        return server

    def later(self, command: Game.CommandAccepted) -> None:
        return None


def recorded_rolls(events: Iterable[Any]) -> list[dict[str, Any]]:
    """The dice recorded among ``events`` (rolled or reused), in order, each with the seq of the
    event that first recorded it."""
    out: list[dict[str, Any]] = []
    for event in events:
        if isinstance(event, Game.DiceRolled):
            out.extend({**r, "seq": event.originator_version} for r in event.rolls)
        elif isinstance(event, Game.DiceReused):
            out.extend({**r, "seq": r.get("from_seq")} for r in event.rolls)
    return out


class Remedies:
    """The plan, the remedy and the rebase of an overturn, on the service's store and games."""

    store: ArbiterStore
    games: GameService
    ports: Any

    def plan(self, game: Game, seq: int) -> Plan:
        """The commands an overturn of event ``seq`` touches, read from the game's log up to
        ``game.version`` (a game read at an earlier version plans as it stood then): from the
        command that caused ``seq`` on, found reading back from ``seq`` a page at a time -- never
        the whole log."""
        skip = set(game.retracted) | set(game.bookkeeping)
        command = self._causing_command(game, seq, skip)
        start = command.originator_version if command is not None else seq
        live = [
            e
            for e in self.store.events.get(game.id, gt=start - 1, lte=game.version)
            if e.originator_version not in skip
        ]
        after = [e for e in live if e.originator_version > seq]
        following = next(
            (e.originator_version for e in after if isinstance(e, Game.CommandAccepted)), None
        )
        own = [
            e
            for e in live
            if e.originator_version >= start
            and (following is None or e.originator_version < following)
        ]
        later_events = [
            e for e in after if following is not None and e.originator_version >= following
        ]
        return Plan(
            seq=seq,
            start=start,
            command=command,
            own=own,
            later_events=later_events,
            later=[e for e in later_events if isinstance(e, Game.CommandAccepted)],
            ended=any(isinstance(e, Game.Ended) for e in after),
            before=self.games.get(game.id, version=start - 1).state,
        )

    def _causing_command(self, game: Game, seq: int, skip: set[int]) -> Game.CommandAccepted | None:
        """The live command that caused event ``seq``: the last one at or before it, read back a
        page at a time (None: no command precedes it)."""
        upper = seq
        while upper >= 1:
            page = list(self.store.events.get(game.id, lte=upper, desc=True, limit=PLAN_PAGE))
            command = next(
                (
                    e
                    for e in page
                    if isinstance(e, Game.CommandAccepted) and e.originator_version not in skip
                ),
                None,
            )
            if command is not None or len(page) < PLAN_PAGE:
                return command
            upper = page[-1].originator_version - 1
        return None

    def _remedy(
        self, game: Game, plan: Plan, remedy: str, reading: Mapping[str, Any] | None
    ) -> tuple[list[int], dict[str, Any], list[Game.CommandAccepted]]:
        """What an overturn retracts, the state play resumes from, and (rebase) the later commands.

        * rewind: the whole command that caused event ``seq`` and everything after it; play resumes
          before that command, whose side acts again;
        * rebase: the disputed event alone (all of its command when the command itself is disputed)
          and every later command's events; the corrected state is the state before the disputed
          event with the rest of its command applied, and the later commands are re-decided on it;
        * rebase with an alternative (``reading``: the options it sets, None: no alternative):
          the whole command and everything after it; play resumes before that command with the
          reading in force, and the command is re-decided first (:meth:`_redecide`)."""
        seq, start = plan.seq, plan.start
        if plan.ended:
            raise Conflict(
                "the game has ended and its seed is public: nothing is rewound or re-decided",
                {"remedy": ["the game has ended; uphold it and record a club ruling instead"]},
            )
        everything = [e.originator_version for e in plan.own + plan.later_events]
        if remedy == "rewind":
            return everything, copy_json(plan.before), []
        if reading is not None:
            restored = copy_json(plan.before)
            restored["options"] = {**(restored.get("options") or {}), **copy_json(dict(reading))}
            return everything, restored, plan.later
        if seq == start:  # the command itself is disputed: none of it stands
            return everything, copy_json(plan.before), plan.later
        rules = self.games.system(game.system)
        corrected = replayed(
            rules, plan.before, [e for e in plan.own if e.originator_version != seq]
        )  # the rest of its command applied
        retract = [seq, *(e.originator_version for e in plan.later_events)]
        return retract, corrected, plan.later

    def overturn(
        self,
        game: Game,
        dispute: str,
        *,
        arbiter: str,
        verdict: str,
        remedy: str | None,
        citations: list[dict[str, Any]],
        note: str,
        club_ruling: str | None,
        alternative: Alternative | None,
        what_if: str | None,
        dice: DiceChoice,
        plan: Plan | None = None,
    ) -> dict[str, Any]:
        """Record a verdict on ``game`` (not saved): the resolution, the what-if it was decided on
        (``what_if``: its digest, with ``alternative``), and for an overturn the retraction and
        the rebase.  The one machinery of a verdict applied and of a what-if (run on a copy,
        with ``dice`` that never draw the game's seed).  Returns the re-decided command's
        outcome (``redecided``) and the rebase report."""
        info = game.disputes[dispute]
        plan = plan or self.plan(game, info["seq"])
        adopt = alternative is not None and verdict == "overturned" and remedy == "rebase"
        restored: dict[str, Any] | None = None
        retract: list[int] = []
        later: list[Game.CommandAccepted] = []
        if verdict == "overturned" and remedy in ("rewind", "rebase"):
            reading = alternative.reading if adopt and alternative is not None else None
            retract, restored, later = self._remedy(game, plan, remedy, reading)
        basis = None
        if what_if is not None:
            basis = {
                "what_if": what_if,
                "reading": copy_json(alternative.reading) if alternative else {},
                "instead": copy_json(alternative.instead) if alternative else None,
                "from_seq": plan.start,
                "adopted": adopt,
            }
        game.resolve_dispute(
            dispute=dispute,
            arbiter=arbiter,
            verdict=verdict,
            remedy=remedy,
            citations=citations,
            note=note,
            club_ruling=club_ruling,
            ports=self.ports,
            retract=retract,
            restored_state=restored,
            basis=basis,
        )
        redecided = None
        if adopt and alternative is not None and plan.command is not None:
            redecided = self._redecide(game, plan, alternative, dice)
        report = (
            self._rebase(game, dispute, later, dice)
            if remedy == "rebase" and verdict == "overturned"
            else []
        )
        return {"redecided": redecided, "report": report}

    def _redecide(
        self, game: Game, plan: Plan, alternative: Alternative, dice: DiceChoice
    ) -> dict[str, Any]:
        """Decide the disputed command again (or the command claimed ``instead``) with the dice
        its resolution recorded, by purpose and in order; a die it never rolled is ``dice.fresh``."""
        command = plan.command
        assert command is not None
        recorded = recorded_rolls(plan.own)
        seen: list[ReusedDice] = []

        def rolling(server: ServerDice) -> ReusedDice:
            seen.append(ReusedDice(recorded, dice.fresh(server)))
            return seen[-1]

        first = game.version + 1
        entry: dict[str, Any] = {"origin": plan.start, "first": first, "refused": None}
        try:
            game.execute(
                side=command.side,
                user=command.user,
                command=alternative.instead or command.command,
                seed=dice.seed(),
                ports=self.ports,
                origin=plan.start,
                dice=rolling,
            )
        except RuleViolation as exc:
            entry["refused"] = {"reason": exc.message, "rule": exc.rule}
        except (InvalidCommand, DomainError) as exc:
            entry["refused"] = {"reason": exc.message, "rule": None}
        entry["last"] = game.version
        entry["trail"] = seen[-1].trail if seen else []
        entry["state"] = copy_json(game.state)
        return entry

    def _rebase(
        self,
        game: Game,
        dispute: str,
        later: list[Game.CommandAccepted],
        dice: DiceChoice,
    ) -> list[dict[str, Any]]:
        report = []
        for command in later:
            entry: dict[str, Any] = {
                "origin": command.originator_version,
                "side": command.side,
                "user": self.games.users.username(command.user),
                "command": command.command.get("type"),
            }
            first = game.version + 1
            try:
                game.execute(
                    side=command.side,
                    user=command.user,
                    command=command.command,
                    seed=dice.seed(),
                    ports=self.ports,
                    origin=command.originator_version,
                    dice=dice.later(command),
                )
            except RuleViolation as exc:
                entry.update(
                    status="dropped",
                    reason=f"{exc.message} ({rule_words(exc.rule)})",
                    rule=exc.rule,
                )
            except (InvalidCommand, DomainError) as exc:
                entry.update(status="dropped", reason=exc.message)
            else:
                rolled = any(
                    isinstance(e, (Game.DiceRolled, Game.DiceReused))
                    and e.originator_version >= first
                    for e in game.pending_events
                )
                entry["status"] = "re-rolled" if rolled else "kept"
                entry["seqs"] = [first, game.version]
            report.append(entry)
        game.finish_rebase(dispute=dispute, report=report, ports=self.ports)
        return report
