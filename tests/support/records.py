"""Games played at random through the services, for the open game record's tests."""

from __future__ import annotations

import json
import random
from typing import Any

from service.application.games import RuleRefused
from service.fuzz.player import RandomPlayer

#: every shipped system, with the scenario and options a record test plays (each hides something
#: where the game can: Backbone's limited intelligence, Barcelona's written orders)
GAMES: dict[str, tuple[str, dict[str, Any]]] = {
    "merida": ("merida-1938", {}),
    "backbone": ("scenario-1", {"limited_intelligence": True}),
    "bizkaya": ("", {}),
    "barcelona": ("", {}),
}


def play_at_random(
    svc: Any, system: str, seed: int, *, commands: int = 30, end: bool = True
) -> str:
    """A game of ``system`` played at random (the fuzzer's player) for up to ``commands``
    commands, then resigned by the side to move if it has not ended (``end``): its id."""
    rules = svc.registry.get(system)
    scenario, options = GAMES[system]
    scenario = scenario or sorted(s.id for s in rules.scenarios())[0]
    info = {s.id: s for s in rules.scenarios()}[scenario]
    seats = {}
    for i, side in enumerate(info.sides):
        name = f"{system}-player-{i}"
        try:
            seats[side] = svc.users.by_name(name)
        except Exception:  # noqa: BLE001 - not registered yet
            seats[side] = svc.users.register(name, "correct horse battery")
    first = seats[info.sides[0]]
    game = svc.games.create(
        system=system,
        scenario=scenario,
        sides={side: user.username for side, user in seats.items()},
        creator=first,
        options=options,
    )
    player = RandomPlayer(random.Random(seed))
    sent = 0

    def actions_of(side: str) -> Any:
        return svc.games.actions(svc.games.get(game.id), seats[side], side)[1]

    while sent < commands and game.status != "ended":
        move = player.next(game.active_sides(), actions_of)
        if move is None:
            break
        try:
            executed = svc.games.execute(
                game.id,
                seats[move.side],
                move.command,
                expected_version=game.version,
                side=move.side,
            )
        except RuleRefused:
            continue
        game = executed.game
        sent += 1
    if end and game.status != "ended":
        side = (game.active_sides() or list(info.sides))[0]
        game = svc.lifecycle.resign(game.id, seats[side], side)
    return str(game.id)


def rechained(text: str, change: Any = None, game: str | None = None) -> str:
    """``text`` (a full record) under the game id ``game`` (a new one if None), ``change(items)``
    made to its event lines (dicts) first, every hash recomputed, each header the events fix
    written again and the head moved to match: what a forger who knows the recipe writes.  (The
    dice derive from the id: a game that rolled none stays importable under another.)"""
    from datetime import datetime
    from uuid import uuid4

    from service.application.records import derived_headers
    from service.domain.chain import event_hash
    from service.domain.record import data, dumps

    game = game or str(uuid4())
    lines = text.split("\n")
    at = [i for i, line in enumerate(lines) if line.startswith('{"')]
    items = [json.loads(lines[i]) for i in at[:-1]]
    for item in items:
        item["game"] = game
    if change is not None:
        change(items)
    previous = "0" * 64
    for i, item in zip(at, items, strict=False):
        item["prev_hash"] = previous
        covered = dict(item["payload"], prev_hash=previous)
        if "sealed" in item:
            covered["sealed"] = item["sealed"]
        item["hash"] = previous = event_hash(
            game, item["seq"], item["kind"], datetime.fromisoformat(item["at"]), covered
        )
        lines[i] = data(item)
    lines[at[-1]] = data({"head": {"game": game, "version": len(items), "hash": previous}})
    try:
        fixed = derived_headers(items)
    except (AttributeError, TypeError, ValueError):  # the change broke what headers read
        fixed = {"Game": game}
    for n, line in enumerate(lines):
        tag = line[1:].split(" ", 1)[0] if line.startswith("[") else None
        if tag in fixed and tag != "ScenarioHash":
            lines[n] = f"[{tag} {dumps(fixed[tag])}]"
    return "\n".join(lines)
