"""Random legal play through the application service, checking the rules contract's invariants.

A :class:`Harness` is a GameService on a temporary SQLite store (snapshots every few events) with
real dice; :class:`GameRun` plays one game in it -- each command chosen from the side's actions
(``GameService.actions``, what ``GET /api/games/<id>/actions`` answers), dry-run on a copy to check
``decide`` (pure, deterministic, never a 400 for a template-built command), sent through
``GameService.execute``, then every new event checked (declared, worded, governed, JSON, views) and
the live state compared with a replay of the recorded events.  After the game: the audit of the
stored log, the dice, and the state rebuilt from a snapshot and from the full log.

Game ``seed`` fixes everything: the random choices, the dice seed and the game id
(:func:`identity`), so ``arbiter fuzz --system S --games 1 --seed K`` plays game K again, and an
exported failing game (its fuzz seed is in its labels) replays with ``arbiter fuzz --replay FILE``.
"""

from __future__ import annotations

import hashlib
import importlib
import json
import random
import shutil
import tempfile
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any
from uuid import UUID, uuid5

from service.adapters.broker import InProcessBroker
from service.application.audit import AuditService
from service.application.games import Executed, GameService, RuleRefused
from service.application.users import UserService
from service.bootstrap import build_ports, open_store
from service.config import Config
from service.domain import chain
from service.domain import dice as dice_mod
from service.domain.errors import DomainError, NotFound
from service.domain.game import Game, ServerDice
from service.domain.users import User
from service.fuzz import checks
from service.fuzz.player import Chooser, Move
from service.rules.actions import Actions
from service.rules.base import RulesEvent, RulesSystem, State
from service.rules.registry import SHIPPED, Registry

NAMESPACE = UUID("5d1c7f0e-9a4b-4c1e-8f33-0a7e1f2b9c64")
SECRET = "arbiter-fuzz-secret"
PASSWORD = "fuzz-player-password"
#: how often the fuzzer also sends commands that must be refused (decide must leave the state alone)
REFUSALS_EVERY = 7


def identity(system: str, seed: int) -> tuple[UUID, str]:
    """The game id and dice seed of fuzz game ``seed`` of ``system`` (reproducible)."""
    dice_seed = hashlib.sha256(f"arbiter-fuzz|{system}|{seed}".encode()).hexdigest()
    return uuid5(NAMESPACE, f"{system}:{seed}"), dice_seed


def digest(value: Any) -> str:
    return hashlib.sha256(chain.canonical_json(value).encode("utf-8")).hexdigest()


def event_digest(item: Mapping[str, Any]) -> str:
    """A stored event's hash without what differs between runs (timestamp, chain, user)."""
    payload = {k: v for k, v in item["payload"].items() if k != "user"}
    return digest({"kind": item["kind"], "type": item["type"], "payload": payload})


@dataclass
class GameOutcome:
    """How one game went: ``status`` ended, bound (hit the command limit), stopped (a script ran
    out) or failed (``problems``)."""

    system: str
    seed: int
    scenario: str = ""
    game_id: str = ""
    commands: int = 0
    refused: int = 0
    status: str = "playing"
    problems: list[str] = field(default_factory=list)
    moves: list[dict[str, Any]] = field(default_factory=list)
    final: dict[str, Any] = field(default_factory=dict)
    file: str | None = None

    @property
    def failed(self) -> bool:
        return bool(self.problems)

    def line(self) -> str:
        where = f" -> {self.file}" if self.file else ""
        head = f"{self.system} seed {self.seed} ({self.scenario}, {self.commands} commands)"
        return f"{head}: {self.problems[0] if self.problems else self.status}{where}"


def load_registry(
    systems: Sequence[str] = (), plugins: Sequence[str] = ()
) -> tuple[Registry, dict[str, str]]:
    """The registry of ``systems`` (default: every shipped one) and the plug-ins, and why each
    system that does not load failed to (a game mid-migration is a finding, not a crash)."""
    registry, broken = Registry(), {}
    for name, target in SHIPPED:
        if systems and name not in systems:
            continue
        module_path, attr = target.split(":")
        try:
            registry.register(getattr(importlib.import_module(module_path), attr))
        except Exception as exc:  # noqa: BLE001 - reported per system
            broken[name] = f"does not load: {type(exc).__name__}: {exc}"
    for path in plugins:
        try:
            registry.load_plugin(path)
        except Exception as exc:  # noqa: BLE001
            broken[path] = f"does not load: {type(exc).__name__}: {exc}"
    return registry, broken


class Harness:
    """A GameService, its audit and two replicas of its store (one rebuilding from snapshots, one
    from the full log, neither cached) on a temporary SQLite file."""

    def __init__(
        self,
        plugins: Sequence[str] = (),
        workdir: Path | None = None,
        snapshot_interval: int = 5,
        systems: Sequence[str] = (),
    ) -> None:
        self._own = workdir is None
        self.workdir = (
            Path(tempfile.mkdtemp(prefix="arbiter-fuzz-")) if workdir is None else workdir
        )
        config = Config(
            store="sqlite",
            var_dir=self.workdir,
            sqlite_path=self.workdir / "fuzz.sqlite",
            plugins=tuple(plugins),
            secret_key=SECRET,
            snapshot_interval=snapshot_interval,
            cache_size=100,
            testing=True,
        )
        self.registry, self.broken = load_registry(systems, plugins)
        self.seal_key = chain.seal_key_from_secret(SECRET)
        ports = build_ports(config, self.registry)
        broker = InProcessBroker()
        self.store = open_store(config, ports, broker)
        self.users = UserService(self.store)
        self.games = GameService(self.store, self.registry, self.users, broker)
        self.audit = AuditService(self.store, self.games, self.seal_key)
        uncached = replace(config, cache_size=0)
        self.from_snapshots = open_store(uncached, ports)
        self.from_log = open_store(uncached, ports, snapshots=False)
        self._players: dict[str, User] = {}

    def player(self, index: int) -> User:
        name = f"fuzz-player-{index}"
        if name not in self._players:
            try:
                self._players[name] = self.users.by_name(name)
            except NotFound:
                self._players[name] = self.users.register(name, PASSWORD)
        return self._players[name]

    def close(self) -> None:
        for store in (self.from_log, self.from_snapshots, self.store):
            store.close()
        if self._own:
            shutil.rmtree(self.workdir, ignore_errors=True)


@dataclass
class Expected:
    """What a golden game must reproduce: each command's event digests and the final state."""

    moves: list[list[str]]
    final: dict[str, Any]


class GameRun:
    """One game played through the service with every check after every command, or (``checked``
    false) only what the service itself records: the events of each command (by digest, against
    a golden game's), then the audit, the dice and the rebuilt game at the end.  Either way the
    same game is played: the checks choose nothing."""

    def __init__(
        self,
        harness: Harness,
        outcome: GameOutcome,
        chooser: Chooser,
        max_commands: int,
        expected: Expected | None = None,
        checked: bool = True,
    ) -> None:
        self.h = harness
        self.checked = checked
        self.outcome = outcome
        self.chooser = chooser
        self.max_commands = max_commands
        self.expected = expected
        self.rules: RulesSystem = harness.registry.get(outcome.system)
        self.game: Game
        self.replayed: State = {}
        self.sides: list[str] = []
        self.seats: dict[str, User] = {}
        self.dice_seed = ""

    # -- the game ---------------------------------------------------------------------------------
    def start(self, scenario: str, options: Mapping[str, Any] | None = None) -> None:
        game_id, self.dice_seed = identity(self.outcome.system, self.outcome.seed)
        info = {s.id: s for s in self.rules.scenarios()}[scenario]
        self.sides = list(info.sides)
        self.seats = {side: self.h.player(i) for i, side in enumerate(self.sides)}
        self.game = self.h.games.create(
            system=self.outcome.system,
            scenario=scenario,
            sides={side: user.username for side, user in self.seats.items()},
            creator=self.seats[self.sides[0]],
            options=options,
            labels={"fuzz": {"seed": self.outcome.seed}},
            seed=self.dice_seed,
            game_id=game_id,
        )
        self.outcome.scenario, self.outcome.game_id = scenario, str(game_id)
        self.replayed = checks.copy_json(self.game.state)
        if self.checked:
            self._check(checks.json_problem(self.game.state, "the initial state"))
            self._check_all(checks.view_problems(self.rules, self.game.state, [*self.sides, None]))

    def play(self) -> GameOutcome:
        while self.outcome.status == "playing" and not self.outcome.failed:
            if self.outcome.commands + self.outcome.refused >= self.max_commands:
                self.outcome.status = "bound"
                break
            self.step()
        if not self.outcome.failed:
            self.finish()
        return self.outcome

    def step(self) -> None:
        active = self.game.active_sides()
        if not active:
            self._end_without_sides()
            return
        actions: dict[str, Actions] = {}

        def actions_of(side: str) -> Actions:
            if side not in actions:
                actions[side] = self._actions_of(side)
            return actions[side]

        if self.checked:
            for side in active:
                self._check_all(checks.actions_problems(side, actions_of(side)))
            if self.outcome.failed:
                return
        move = self.chooser.next(active, actions_of)
        if move is None:
            self.outcome.status = "stopped"
            return
        dry = None
        if self.checked:
            if self.outcome.commands % REFUSALS_EVERY == 0:
                self._check_refusals(move.side, actions_of(move.side))
            dry = self._dry_run(move)
        if not self.outcome.failed:
            self._send(move, dry)

    def _end_without_sides(self) -> None:
        if self.game.status == "ended":
            self.outcome.status = "ended"
        else:
            self.outcome.problems.append("no side may act but the game is not over")

    def _actions_of(self, side: str) -> Actions:
        _, actions = self.h.games.actions(self.game, self.seats[side], side)
        return actions

    # -- one command ------------------------------------------------------------------------------
    def _dice(self) -> ServerDice:
        entropy = dice_mod.entropy_digest(self.game.entropy)
        return ServerDice(self.dice_seed, self.game.id, self.game.next_roll, entropy)

    def _dry_run(self, move: Move) -> list[RulesEvent] | None:
        events, refusal, problems = checks.decide_pure(
            self.rules, self.game.state, move.side, move.command, self._dice()
        )
        self._check_all(problems)
        if move.template is not None:
            self._check(checks.refusal_problem(move.template, move.command, refusal))
        elif refusal is not None:
            self._check(f"the recorded command {move.command} is refused now: {refusal}")
        return events

    def _check_refusals(self, side: str, actions: Actions) -> None:
        state = self.game.state
        for who, command in checks.refused_variants(state, side, actions.templates, self.sides):
            self._check_all(checks.decide_pure(self.rules, state, who, command, self._dice())[2])

    def _send(self, move: Move, dry: list[RulesEvent] | None) -> None:
        before = self.game.version
        try:
            executed = self.h.games.execute(
                self.game.id,
                self.seats[move.side],
                move.command,
                expected_version=before,
                side=move.side,
            )
        except RuleRefused:
            self.outcome.refused += 1  # a some_of subset the dry run already judged
            return
        except DomainError as exc:
            self._check(f"the service refused {move.command}: {exc.message} {exc.details}")
            return
        self.outcome.commands += 1
        self.game = executed.game
        self._after(move, executed, dry)

    def _after(self, move: Move, executed: Executed, dry: list[RulesEvent] | None) -> None:
        recorded = [
            RulesEvent(e["type"], e["payload"]["data"])
            for e in executed.events
            if e["kind"] == "Game.Recorded"
        ]
        if self.checked:
            self._check_command(move, recorded, dry)
        digests = [event_digest(e) for e in executed.events]
        self.outcome.moves.append({"side": move.side, "command": move.command, "events": digests})
        self._check_expected(len(self.outcome.moves) - 1, digests)
        if self.game.status == "ended":
            self.outcome.status = "ended"

    def _check_command(
        self, move: Move, recorded: list[RulesEvent], dry: list[RulesEvent] | None
    ) -> None:
        if dry is not None and [e.as_dict() for e in dry] != [e.as_dict() for e in recorded]:
            self._check(f"decide is not deterministic: {move.command} decided differently twice")
        self._check_events(recorded)
        self._check(checks.json_problem(self.game.state, f"the state after {move.command}"))
        live = self.game.state
        if live != self.replayed:
            self._check(checks.replay_problem(live, self.replayed, f"after {move.command}"))
        self._check_all(checks.view_problems(self.rules, live, [*self.sides, None]))

    def _check_events(self, recorded: list[RulesEvent]) -> None:
        for event in recorded:
            before = self.replayed
            self._check_all(checks.event_problems(self.rules, event, before))
            self._check_all(
                checks.event_view_problems(self.rules, event, before, [*self.sides, None])
            )
            if event.type in self.rules.events:
                self.replayed = checks.replay(self.rules, before, [event])

    def _check_expected(self, index: int, digests: list[str]) -> None:
        if self.expected is None:
            return
        if index >= len(self.expected.moves) or self.expected.moves[index] != digests:
            self._check(f"command {index + 1} gave other events than the golden game recorded")

    # -- after the game -----------------------------------------------------------------------------
    def finish(self) -> None:
        audit = self.h.audit.verify(self.game.id)
        if not audit["ok"]:
            self._check(f"the audit of the log failed: {audit['first_bad']}")
        dice = self.h.games.verify_dice(self.game.id)
        if not dice["ok"]:
            self._check(f"the dice do not verify: {dice['mismatches'] or dice}")
        self._check_rebuilt()
        self.outcome.final = {
            "version": self.game.version,
            "status": self.game.status,
            "result": self.game.result,
            "state": digest(self.game.state),
        }
        if self.expected is not None and self.expected.final != self.outcome.final:
            self._check(
                f"the game ends otherwise than the golden game: {self.outcome.final} "
                f"instead of {self.expected.final}"
            )

    def _check_rebuilt(self) -> None:
        live = self.game
        for name, store in (
            ("the full log", self.h.from_log),
            ("a snapshot", self.h.from_snapshots),
        ):
            rebuilt: Any = store.repository.get(live.id)
            if (rebuilt.version, rebuilt.status, rebuilt.result) != (
                live.version,
                live.status,
                live.result,
            ):
                self._check(f"the game rebuilt from {name} is at another version or end")
            where = checks.first_difference(live.state, rebuilt.state)
            if where:
                self._check(f"the state rebuilt from {name} differs from live play: {where}")
            # and the rest of the game (clock, take-back tail, disputes ...): a snapshot is taken of
            # the game as played live, so live play and replay must agree on every attribute
            where = checks.first_difference(attributes(live), attributes(rebuilt))
            if where:
                self._check(f"the game rebuilt from {name} differs from live play: {where}")

    # -- problems -----------------------------------------------------------------------------------
    def _check(self, problem: str | None) -> None:
        if problem:
            self.outcome.problems.append(problem)

    def _check_all(self, problems: Iterator[str] | Sequence[str]) -> None:
        for problem in problems:
            self._check(problem)

    def export(self, out_dir: Path) -> Path:
        """The game's events export (NDJSON, as ``arbiter games export``), which replays it."""
        out_dir.mkdir(parents=True, exist_ok=True)
        path = out_dir / f"{self.outcome.system}-seed{self.outcome.seed}.ndjson"
        with path.open("w", encoding="utf-8") as fh:
            for item in self.h.games.iter_all_events(self.game.id):
                fh.write(json.dumps(item, sort_keys=True) + "\n")
        return path


def attributes(game: Any) -> dict[str, Any]:
    """A game's recorded attributes (not its attached rules nor its unsaved events)."""
    return {k: v for k, v in vars(game).items() if k not in ("_rules", "_pending_events")}


def choose_scenario(rules: RulesSystem, rng: random.Random) -> str:
    return rng.choice(sorted(s.id for s in rules.scenarios()))
