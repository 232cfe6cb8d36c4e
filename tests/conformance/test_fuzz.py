"""The fuzzer: a short run of every system (what CI runs; ``make fuzz`` runs a long one), and the
proof that each of its checks catches what it is meant to (the Duel of tests/fixtures/duel broken on
purpose, toy_broken.py)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from service.fuzz import session
from service.fuzz.runner import Harness, load_registry
from tests.conformance.test_conformance import PLUGINS

pytestmark = pytest.mark.slow("random legal games of every system with every check of the fuzzer")

BROKEN_PLUGIN = "tests.conformance.toy_broken"
#: the CI budget: a few short games per system (about 60 s in all)
GAMES, MAX_COMMANDS = 1, 120


@pytest.mark.parametrize("system", sorted(load_registry(plugins=PLUGINS)[0].names()))
def test_a_short_fuzz_of_each_system_finds_nothing(system: str, tmp_path: Path) -> None:
    report = session.fuzz(
        [system], GAMES, 1, max_commands=MAX_COMMANDS, out_dir=tmp_path, plugins=PLUGINS
    )
    assert [o.line() for o in report.failures] == []
    assert sum(o.commands for o in report.outcomes) > 0


def test_the_merida_armored_train_enters_in_a_fuzz_game_on_the_shipped_scenario() -> None:
    """Closing the Merida Pocket, Reinforcements: "Turn 7: Armored train, ..."; rule 5: "Armored
    train movement: unlimited movement along the rail line". With no rail on the shipped map the
    train was refused at every entry hex and never entered, silently; on the shipped placeholder
    rail line a random legal game places it on turn 7 and runs it along the line."""
    harness = Harness(PLUGINS, systems=["merida"])
    try:
        # seed 1 places the train at command 239 and first runs it along the rail at 300 (the
        # fuzzer's checks after each command are the short fuzz's: the game played is the same)
        outcome = session.play_random(harness, "merida", 1, 310, checked=False)
    finally:
        harness.close()
    assert outcome.problems == []
    commands = [m["command"] for m in outcome.moves]
    placed = [c for c in commands if c["type"] == "place_reinforcement"]
    assert {"type": "place_reinforcement", "unit": "r-armored-train", "hex": "AD26"} in placed
    train_moves = [c for c in commands if c["type"] == "move" and c["units"] == ["r-armored-train"]]
    assert train_moves and all(c["mode"] == "rail" for c in train_moves)


@pytest.mark.parametrize("system", ["backbone", "duel"])
def test_a_game_played_without_the_checks_is_the_game_played_with_them(system: str) -> None:
    """The checks choose nothing: the tests that only need a played game skip them."""
    played = []
    for checked in (True, False):
        harness = Harness(PLUGINS, systems=[system])
        try:
            played.append(session.play_random(harness, system, 3, 60, checked=checked))
        finally:
            harness.close()
    assert played[0].problems == played[1].problems == []
    assert played[0].moves == played[1].moves and played[0].final == played[1].final
    assert len(played[0].moves) > 20


@pytest.fixture(scope="module")
def broken() -> Iterator[Harness]:
    harness = Harness([BROKEN_PLUGIN], systems=["none"])
    yield harness
    harness.close()


@pytest.mark.parametrize(
    ("system", "found"),
    [
        ("duel-mutates", "decide mutated its input"),
        ("duel-undeclared", "'Shouted' is not an event its rules declare"),  # refused at commit
        ("duel-leaks", "card is shown (4)"),
        ("duel-refuses", "but decide refused it: no one steps today"),
        ("duel-stuck", "must act but has no template"),
        ("duel-drifts", "replay differs from live play"),
    ],
)
def test_each_check_catches_its_case(broken: Harness, system: str, found: str) -> None:
    outcomes = [session.play_random(broken, system, seed, 300) for seed in (1, 2, 3)]
    assert all(any(found in p for p in o.problems) for o in outcomes), [o.line() for o in outcomes]


def test_a_failing_game_is_exported_and_its_export_replays_the_failure(tmp_path: Path) -> None:
    report = session.fuzz(["duel-drifts"], 1, 5, out_dir=tmp_path, plugins=[BROKEN_PLUGIN])
    (failure,) = report.failures
    assert failure.file is not None
    lines = [json.loads(x) for x in Path(failure.file).read_text().splitlines()]
    assert lines[0]["kind"] == "Game.Created" and lines[0]["payload"]["labels"]["fuzz"]["seed"] == 5
    again = session.replay_export(Path(failure.file), [BROKEN_PLUGIN])
    assert again.problems[0].split(":")[0] == failure.problems[0].split(":")[0]


def test_the_same_seed_plays_the_same_game() -> None:
    first = session.fuzz(["duel"], 2, 3, plugins=PLUGINS)
    second = session.fuzz(["duel"], 2, 3, plugins=PLUGINS)
    assert [o.final for o in first.outcomes] == [o.final for o in second.outcomes]
    assert [o.moves for o in first.outcomes] == [o.moves for o in second.outcomes]


def test_the_cli_prints_the_summary_and_exits_1_on_a_failure(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from service.cli import main

    monkeypatch.setenv("ARBITER_PLUGINS", ",".join([*PLUGINS, BROKEN_PLUGIN]))
    args = ["fuzz", "--games", "3", "--seed", "1", "--out", str(tmp_path)]
    ok = CliRunner().invoke(main, [*args, "--system", "duel"])
    assert ok.exit_code == 0, ok.output
    assert ok.output.strip().endswith("0 failures") and ok.output.startswith("3 games, ")
    bad = CliRunner().invoke(main, [*args, "--system", "duel-mutates"])
    assert bad.exit_code == 1
    assert "3 failures" in bad.output and "FAIL duel-mutates seed 1" in bad.output
    assert sorted(p.name for p in tmp_path.iterdir())[0] == "duel-mutates-seed1.ndjson"


def test_a_game_that_hits_the_command_limit_is_no_failure() -> None:
    report = session.fuzz(["duel"], 1, 1, max_commands=3, plugins=PLUGINS)
    assert report.failures == [] and len(report.bound) == 1
    assert "1 hit the command limit" in report.summary()
