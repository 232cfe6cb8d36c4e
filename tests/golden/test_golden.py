"""Golden games: complete games recorded once by the fuzzer with fixed seeds (``games/``), replayed
command by command through the application service; every command must record the same events
(by digest) and the game must end in the same state, its log audited, its dice verified and the
game rebuilt from the log and from snapshots equal to the one played.  The first game of each
system is replayed with every check of the fuzzer after each command too; ``make fuzz``
(``ARBITER_FUZZ_SCALE`` above 1) checks every game so.  How to regenerate them: README.md beside
this file."""

from __future__ import annotations

from pathlib import Path

import pytest

from service.fuzz import session
from service.fuzz.runner import load_registry
from tests.support.scale import fuzz_scale

pytestmark = pytest.mark.slow(
    "replays each golden game command by command (the Merida games are some 300 commands), the first of each system with every check of the fuzzer"
)

GAMES = Path(__file__).parent / "games"
PLUGINS = ("tests.fixtures.skirmish", "tests.fixtures.duel")
FILES = sorted(GAMES.glob("*.ndjson"))


def every_check(path: Path) -> bool:
    """Whether ``path`` is replayed with every check of the fuzzer after each command: the first
    game of each system in ``make test``, every game in ``make fuzz``."""
    return path.stem.endswith("-seed1") or fuzz_scale() > 1


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_a_golden_game_replays_to_the_identical_state_and_hashes(path: Path) -> None:
    outcome = session.check_golden(path, PLUGINS, checked=every_check(path))
    assert outcome.problems == []
    assert outcome.status == "ended"


def test_a_game_replayed_without_the_checks_is_still_held_to_its_golden_record(
    tmp_path: Path,
) -> None:
    source = next(p for p in FILES if p.name.startswith("skirmish-seed2"))
    lines = source.read_text().splitlines()
    lines[-1] = lines[-1].replace('"version": ', '"version": 1', 1)
    changed = tmp_path / source.name
    changed.write_text("\n".join(lines) + "\n")
    outcome = session.check_golden(changed, PLUGINS, checked=False)
    assert outcome.problems[0].startswith("the game ends otherwise than the golden game")


def test_every_system_has_golden_games() -> None:
    registry, broken = load_registry(plugins=PLUGINS)
    recorded = {p.name.rsplit("-seed", 1)[0] for p in FILES}
    systems = set(registry.names()) | {name for name in broken if name not in PLUGINS}
    assert sorted(systems - recorded) == []


def test_a_changed_golden_game_is_caught(tmp_path: Path) -> None:
    source = next(p for p in FILES if p.name.startswith("duel-"))
    lines = source.read_text().splitlines()
    lines[1] = lines[1].replace('"events": ["', '"events": ["0', 1)
    changed = tmp_path / source.name
    changed.write_text("\n".join(lines) + "\n")
    outcome = session.check_golden(changed, PLUGINS)
    assert outcome.problems[0] == "command 1 gave other events than the golden game recorded"
