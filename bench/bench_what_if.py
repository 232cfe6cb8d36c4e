"""A dispute's what-if (issue 28): milliseconds to work out what a claimed reading would change,
for a dispute with few and with many later commands -- each later command is decided again on a
copy, as a rebase would, so the cost grows with the commands after the disputed one, not with the
game's whole history.  Baseline in the same run: reading the game (``GameService.get``) and the
state before the disputed command, which every what-if does first.

A Merida fuzz game (seed fixed) on a temporary SQLite store; the claim is rule 5's reading of the
strategic-movement modifier.  ``python -m bench what_if``."""

from __future__ import annotations

import statistics
import time
from typing import Any

from service.application.disputes import DisputeService
from service.application.what_if import WhatIfService
from service.domain.game import Game
from service.fuzz import session
from service.fuzz.runner import Harness

SEED = 3
COMMANDS = 240
LATER = (5, 50, 150)
REPEATS = 3


class _Knowledge:
    def get(self, entry_id: str) -> dict[str, Any]:
        return {"id": entry_id, "kind": "rule", "document": "merida", "heading": entry_id}


def _ms(func: Any) -> float:
    times = []
    for _ in range(REPEATS):
        started = time.perf_counter()
        func()
        times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times)


def main() -> None:
    harness = Harness(systems=["merida"])
    try:
        outcome = session.play_random(harness, "merida", SEED, COMMANDS)
        game = harness.games.get(outcome.game_id)
        disputes = DisputeService(harness.store, harness.games, knowledge=_Knowledge)
        what_ifs = WhatIfService(disputes, harness.games)
        disputes.what_ifs = what_ifs
        commands = [
            e for e in harness.store.events.get(game.id) if isinstance(e, Game.CommandAccepted)
        ]
        arbiter = harness.users.register("bench-arbiter", "a long enough password 1")
        arbiter.grant("arbiter")
        harness.store.save(arbiter)
        side = next(iter(game.sides))
        player = harness.users.get(game.sides[side])
        print(f"a Merida game of {len(commands)} commands, {game.version} events ({game.status})")
        print(
            f"{'later commands':>15} {'what-if ms':>11} {'ms/later':>9} {'read ms':>8} {'ratio':>6}"
        )
        for later in LATER:
            if later >= len(commands):
                continue
            disputed = commands[-later - 1].originator_version + 1
            _, dispute = disputes.open(
                game.id,
                player,
                seq=disputed,
                claim="rule 5",
                cite=[],
                side=side,
                reading={"strategic_modifier": -2},
            )
            cost = _ms(lambda d=dispute: what_ifs.for_caller(game.id, arbiter, d))  # type: ignore[misc]
            read = _ms(
                lambda v=disputed - 1: (  # type: ignore[misc]
                    harness.games.get(game.id),
                    harness.games.get(game.id, version=v),
                )
            )
            print(
                f"{later:>15} {cost:>11.1f} {cost / later:>9.2f} {read:>8.1f} {cost / read:>6.1f}"
            )
    finally:
        harness.close()


if __name__ == "__main__":
    main()
