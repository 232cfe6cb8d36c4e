"""A game started on a state a test builds (a small board), saved with its dice seed: the rules
tests' boards played through the service.  The players must exist; the first side's starts it."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from service.domain import dice
from service.domain.game import DiceSeed, Game


def start_on_board(
    svc: Any,
    state: dict[str, Any],
    sides: Mapping[str, str],
    *,
    title: str,
    system: str = "merida",
    scenario: str = "merida-1938",
    labels: Mapping[str, Any] | None = None,
) -> str:
    """A game of ``system`` from ``state`` between ``sides`` (side -> username); its id."""
    ids = {name: str(svc.users.by_name(name).id) for name in sides.values()}
    seed = dice.new_seed()
    game = Game.start(
        system=system,
        scenario=scenario,
        options={},
        initial_state=state,
        seed=seed,
        sides={side: ids[name] for side, name in sides.items()},
        created_by=ids[next(iter(sides.values()))],
        labels={"title": title, **(labels or {})},
        ports=svc.store.ports,
        names={uid: name for name, uid in ids.items()},  # the names its log shows, covered
    )
    svc.store.save(game, DiceSeed.for_game(game.id, seed))
    return str(game.id)
