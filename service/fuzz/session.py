"""A fuzz session (``arbiter fuzz``), replaying an exported game, and golden games.

Golden game files (``tests/golden/games/<system>-seed<K>.ndjson``), one JSON object a line:

* ``{"golden": {"system", "scenario", "options", "seed"}}`` -- what to create (the seed fixes the
  game id and the dice, see :func:`service.fuzz.runner.identity`);
* ``{"side", "command", "events": [digest...]}`` -- each command and the digests of the events it
  recorded (:func:`service.fuzz.runner.event_digest`);
* ``{"final": {"version", "status", "result", "state"}}`` -- the end, with the state's digest.
"""

from __future__ import annotations

import json
import random
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from service.fuzz.checks import crash
from service.fuzz.player import RandomPlayer, Script
from service.fuzz.runner import Expected, GameOutcome, GameRun, Harness, choose_scenario


@dataclass
class Report:
    outcomes: list[GameOutcome] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def failures(self) -> list[GameOutcome]:
        return [o for o in self.outcomes if o.failed]

    @property
    def bound(self) -> list[GameOutcome]:
        return [o for o in self.outcomes if o.status == "bound" and not o.failed]

    def summary(self) -> str:
        commands = sum(o.commands for o in self.outcomes)
        line = (
            f"{len(self.outcomes)} games, {commands} commands, {self.seconds:.1f} s, "
            f"{len(self.failures)} failures"
        )
        return line + (f" ({len(self.bound)} hit the command limit)" if self.bound else "")


def play_random(
    harness: Harness,
    system: str,
    seed: int,
    max_commands: int,
    out_dir: Path | None = None,
    *,
    checked: bool = True,
) -> GameOutcome:
    """Play fuzz game ``seed`` of ``system`` (its export is written to ``out_dir`` on failure);
    ``checked`` false plays the same game without the fuzzer's checks after each command."""
    rng = random.Random(f"{system}:{seed}")
    outcome = GameOutcome(system, seed)
    run = GameRun(harness, outcome, RandomPlayer(rng), max_commands, checked=checked)
    _guarded(run, choose_scenario(run.rules, rng), None)
    if outcome.failed and out_dir is not None and outcome.game_id:
        outcome.file = str(run.export(out_dir))
    return outcome


def _guarded(run: GameRun, scenario: str, options: Mapping[str, Any] | None) -> None:
    """Start and play ``run``; a crash anywhere (the service, the rules) is a failure, not an abort."""
    try:
        run.start(scenario, options)
        if not run.outcome.failed:
            run.play()
    except Exception as exc:  # noqa: BLE001 - whatever breaks is the finding
        run.outcome.problems.append(f"crashed: {crash(exc)}")


def fuzz(
    systems: Sequence[str],
    games: int,
    seed: int,
    *,
    max_commands: int = 500,
    out_dir: Path | None = None,
    plugins: Sequence[str] = (),
    record_dir: Path | None = None,
    progress: Callable[[GameOutcome], None] | None = None,
) -> Report:
    """Play ``games`` games of each system, game ``i`` with seed ``seed + i``."""
    report = Report()
    started = time.monotonic()
    harness = Harness(plugins, systems=systems)
    try:
        for system in systems or harness.registry.names():
            if system not in harness.registry:
                reason = harness.broken.get(system, "is not a known rules system")
                report.outcomes.append(GameOutcome(system, seed, problems=[f"{system} {reason}"]))
                continue
            for index in range(games):
                outcome = play_random(harness, system, seed + index, max_commands, out_dir)
                report.outcomes.append(outcome)
                if record_dir is not None and outcome.status == "ended" and not outcome.failed:
                    write_golden(record_dir, outcome)
                if progress is not None and (outcome.failed or outcome.status == "bound"):
                    progress(outcome)
    finally:
        harness.close()
    report.seconds = time.monotonic() - started
    return report


# -- replaying an export ----------------------------------------------------------------------------


def read_export(path: Path) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The created game and its commands (in order, without retracted ones) of an events export."""
    created: dict[str, Any] = {}
    moves: list[dict[str, Any]] = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        item = json.loads(line)
        if item["kind"] == "Game.Created":
            created = item["payload"]
        elif item["kind"] == "Game.CommandAccepted" and not item.get("retracted"):
            moves.append({"side": item["payload"]["side"], "command": item["payload"]["command"]})
    if not created or "fuzz" not in created.get("labels", {}):
        raise ValueError(f"{path} is not the export of a fuzz game (no labels.fuzz.seed)")
    return created, moves


def replay_export(path: Path, plugins: Sequence[str] = ()) -> GameOutcome:
    """Play an exported fuzz game again, command by command, with every check."""
    created, moves = read_export(path)
    return replay_moves(
        created["system"],
        int(created["labels"]["fuzz"]["seed"]),
        created["scenario"],
        created["options"],
        moves,
        plugins,
    )


def replay_moves(
    system: str,
    seed: int,
    scenario: str,
    options: Mapping[str, Any] | None,
    moves: Iterable[Mapping[str, Any]],
    plugins: Sequence[str] = (),
    expected: Expected | None = None,
    checked: bool = True,
) -> GameOutcome:
    moves = list(moves)
    harness = Harness(plugins, systems=[system])
    try:
        outcome = GameOutcome(system, seed)
        run = GameRun(harness, outcome, Script(moves), len(moves) + 1, expected, checked)
        _guarded(run, scenario, options)
        return outcome
    finally:
        harness.close()


# -- golden games -----------------------------------------------------------------------------------


def golden_path(directory: Path, system: str, seed: int) -> Path:
    return directory / f"{system}-seed{seed}.ndjson"


def write_golden(
    directory: Path, outcome: GameOutcome, options: Mapping[str, Any] | None = None
) -> Path:
    """Record a played game as a golden file."""
    directory.mkdir(parents=True, exist_ok=True)
    path = golden_path(directory, outcome.system, outcome.seed)
    head = {"system": outcome.system, "scenario": outcome.scenario, "seed": outcome.seed}
    lines = [{"golden": {**head, "options": dict(options or {})}}, *outcome.moves]
    lines.append({"final": outcome.final})
    path.write_text("".join(json.dumps(x, sort_keys=True) + "\n" for x in lines), encoding="utf-8")
    return path


def read_golden(path: Path) -> tuple[dict[str, Any], list[dict[str, Any]], Expected]:
    items = [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines() if x.strip()]
    head, moves, final = items[0]["golden"], items[1:-1], items[-1]["final"]
    return head, moves, Expected([m["events"] for m in moves], final)


def check_golden(path: Path, plugins: Sequence[str] = (), *, checked: bool = True) -> GameOutcome:
    """Replay a golden game: every command must record the same events, the end the same state
    (and, ``checked``, every check of the fuzzer after each command)."""
    head, moves, expected = read_golden(path)
    return replay_moves(
        head["system"],
        int(head["seed"]),
        head["scenario"],
        head.get("options") or None,
        moves,
        plugins,
        expected,
        checked,
    )
