"""A game to test with, made through the services: alice (red) and bob (blue) in the skirmish
fixture's meeting scenario."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def alice_and_bob(
    svc: Any, *, options: Mapping[str, Any] | None = None, **labels: Any
) -> tuple[Any, Any, Any]:
    """alice and bob registered, and their game with ``options`` and ``labels``: the three."""
    alice = svc.users.register("alice", "correct horse")
    bob = svc.users.register("bob", "battery staple")
    game = svc.games.create(
        system="skirmish",
        scenario="meeting",
        sides={"red": "alice", "blue": "bob"},
        creator=alice,
        options=dict(options) if options else None,
        labels=labels,
    )
    return alice, bob, game
