"""A property of the record import (issue 44): random payloads of each declared game event type,
put into a finished game's record (the chain recomputed, so only the payload is wrong), are either
refused with a 4xx and nothing written, or stored and digested by every persisted view.

``ARBITER_IMPORT_CASES`` sets how many cases (default 1,000: about 30 s in-process on SQLite)."""

from __future__ import annotations

import dataclasses
import os
import time
import types
import typing
from collections.abc import Iterator
from typing import Any
from uuid import UUID

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from service.api.errors import STATUS
from service.bootstrap import build_services
from service.domain.errors import DomainError
from service.domain.game import Game
from tests.conftest import make_config
from tests.support.games import alice_and_bob
from tests.support.records import rechained

CASES = int(os.environ.get("ARBITER_IMPORT_CASES", "1000"))
#: an event line's fields outside its payload, and the envelope the store sets
OUTSIDE = {"originator_id", "originator_version", "timestamp", "originator_topic"}
OUTSIDE |= {"prev_hash", "hash", "seal", "sealed"}
KINDS = sorted(
    (f"Game.{name}", cls)
    for name, cls in vars(Game).items()
    if isinstance(cls, type) and issubclass(cls, Game.Event) and cls is not Game.Event
)

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3)
    ),
    max_leaves=8,
)


def typed(annotation: Any) -> st.SearchStrategy[Any]:
    """Values of ``annotation`` (what the event declares), to reach past the type check."""
    origin, args = typing.get_origin(annotation), typing.get_args(annotation)
    if origin in (typing.Union, types.UnionType):
        return st.one_of(*[typed(a) for a in args])
    if annotation is type(None):
        return st.none()
    if origin is dict or annotation is dict:
        return st.dictionaries(
            st.text(max_size=6), typed(args[1]) if args else json_values, max_size=3
        )
    if origin is list or annotation is list:
        return st.lists(typed(args[0]) if args else json_values, max_size=3)
    return {
        str: st.text(max_size=8),
        int: st.integers(-3, 40),
        bool: st.booleans(),
        float: st.floats(allow_nan=False, allow_infinity=False),
    }.get(annotation, json_values)


@st.composite
def payloads(draw: Any, cls: type) -> dict[str, Any]:
    hints = typing.get_type_hints(cls)
    out = {}
    for item in dataclasses.fields(cls):
        if item.name not in OUTSIDE:
            out[item.name] = draw(st.one_of(typed(hints[item.name]), json_values))
    return out


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Any, str]]:
    """A server on a SQLite file, and the record of a game alice resigned at once (no dice: it
    imports again under any id)."""
    svc = build_services(make_config(tmp_path_factory.mktemp("import-property")))
    alice, _bob, game = alice_and_bob(svc)
    svc.lifecycle.resign(game.id, alice, "red")
    try:
        yield svc, "".join(svc.records.lines(game.id, full=True))
    finally:
        svc.close()


@st.composite
def forgeries(draw: Any, text: str) -> tuple[str, str]:
    """``text`` with one event of a random declared kind: an event of that kind in the record
    with some of its fields random, or a new one with a random payload before the game ends."""
    kind, cls = draw(st.sampled_from(KINDS))
    payload = draw(payloads(cls))

    def change(items: list[dict[str, Any]]) -> None:
        same = [i for i in items if i["kind"] == kind]
        if same and draw(st.booleans()):
            target = draw(st.sampled_from(same))
            if payload:  # one field another value (of its type or any)
                name = draw(st.sampled_from(sorted(payload)))
                target["payload"] = dict(target["payload"], **{name: payload[name]})
            return
        new = dict(items[-2], kind=kind, type=kind.replace(".", ""), payload=payload)
        new.pop("sealed", None)
        items.insert(len(items) - 1, new)
        for seq, item in enumerate(items, start=1):
            item["seq"] = seq

    return kind, rechained(text, change)


@pytest.mark.slow(
    "Hypothesis imports random payloads of every event type and runs every view over them"
)
def test_a_random_payload_is_refused_whole_or_digested_by_every_view(
    server: tuple[Any, str],
) -> None:
    svc, text = server
    seen: dict[str, int] = {"refused": 0, "stored": 0}
    started = time.monotonic()

    @settings(
        max_examples=CASES, deadline=None, database=None, suppress_health_check=list(HealthCheck)
    )
    @given(st.data())
    def case(data: Any) -> None:
        kind, forged = data.draw(forgeries(text))
        game = UUID(forged.split('[Game "', 1)[1].split('"', 1)[0])
        try:
            svc.records.import_text(forged, by="operator")
        except DomainError as exc:
            assert STATUS.get(type(exc)) or any(isinstance(exc, k) for k in STATUS), exc
            assert not list(svc.store.events.get(game, limit=1)), f"{kind}: written, yet refused"
            seen["refused"] += 1
            return
        seen["stored"] += 1
        svc.projections.run()
        for view in svc.projections.status(count_rows=False):
            assert view["lag"] == 0, (kind, view)

    case()
    took = time.monotonic() - started
    print(f"\n{CASES} import cases in {took:.1f} s: {seen}")
    assert seen["refused"] and seen["stored"]
