"""What each side may see: the orders a side writes stay hidden from the other side (and the
public) until the end of the turn reveals them."""

from __future__ import annotations

import copy

from service.rules.base import State


def view(state: State, side: str | None) -> State:
    seen = copy.deepcopy(state)
    for other in seen["sides"]:
        if other == side:
            continue
        seen["written"][other] = (
            {"hidden": len(seen["written"][other])} if seen["written"][other] else {}
        )
        for uid, order in seen["orders"][other].items():
            if not order.get("revealed"):
                seen["orders"][other][uid] = {"hidden": True, "turn": order.get("turn")}
    return seen
