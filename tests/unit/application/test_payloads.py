"""The payload check's fast path (issue 52): an event is checked against its declared type on every
commit, first by a predicate derived from the same annotations as the marshmallow schema; only an
event the predicate does not pass is loaded by the schema, which words what is wrong.  The
predicate must never pass what the schema refuses (else a bad event would be stored), and must
pass what real play records (else the fast path is never taken)."""

from __future__ import annotations

import dataclasses
import importlib
import pkgutil
import typing
from datetime import UTC, datetime
from typing import Any
from uuid import UUID, uuid4

from eventsourcing.domain import DomainEvent
from hypothesis import given, settings
from hypothesis import strategies as st
from marshmallow import ValidationError

import service.domain
from service.application.payloads import conforms_of, field_of, problems, schema_of, value_conforms
from service.domain.game import Game
from tests.unit.application.conftest import SHOT, World

ATOMS: list[Any] = [str, int, float, bool, UUID, datetime, Any, object]


def annotation_forms() -> st.SearchStrategy[Any]:
    """Annotations of the forms the events use: atoms, optionals, dicts, lists and tuples."""
    return st.recursive(
        st.sampled_from(ATOMS),
        lambda inner: st.one_of(
            inner.map(lambda a: typing.Union.__getitem__((a, type(None)))),
            st.tuples(st.sampled_from([str, int]), inner).map(dict.__class_getitem__),
            inner.map(list.__class_getitem__),
            inner.map(lambda a: tuple.__class_getitem__((a, ...))),
            st.just(dict),
            st.just(list),
        ),
        max_leaves=4,
    )


def values() -> st.SearchStrategy[Any]:
    """Values of JSON's types and the few others events hold, nested, often of the wrong kind."""
    atoms = st.one_of(
        st.none(),
        st.booleans(),
        st.integers(-5, 5),
        st.floats(allow_nan=True),
        st.text(max_size=3),
        st.just(uuid4()),
        st.just(datetime(2026, 12, 3, tzinfo=UTC)),
    )
    return st.recursive(
        atoms,
        lambda inner: st.one_of(
            st.lists(inner, max_size=3),
            st.lists(inner, max_size=3).map(tuple),
            st.dictionaries(st.one_of(st.text(max_size=2), st.integers(0, 3)), inner, max_size=3),
        ),
        max_leaves=4,
    )


def accepted(annotation: Any, value: Any) -> bool:
    try:
        field_of(annotation).deserialize(value)
    except ValidationError:
        return False
    return True


@settings(max_examples=800, deadline=None)
@given(annotation=annotation_forms(), value=values())
def test_the_predicate_passes_a_value_exactly_when_the_schemas_field_accepts_it(
    annotation: Any, value: Any
) -> None:
    assert value_conforms(annotation)(value) == accepted(annotation, value), (annotation, value)


def event_classes() -> list[type]:
    found: set[type] = set()
    for module in pkgutil.walk_packages(service.domain.__path__, "service.domain."):
        for member in vars(importlib.import_module(module.name)).values():
            stack = [member]
            while stack:
                item = stack.pop()
                if isinstance(item, type) and item.__module__.startswith("service.domain"):
                    if issubclass(item, DomainEvent) and dataclasses.is_dataclass(item):
                        found.add(item)
                    stack.extend(v for v in vars(item).values() if isinstance(v, type))
    return sorted(found, key=lambda c: f"{c.__module__}.{c.__qualname__}")


EVENT_CLASSES = event_classes()


def test_every_event_class_of_the_domain_is_found() -> None:
    assert Game.Recorded in EVENT_CLASSES and len(EVENT_CLASSES) > 50


@settings(max_examples=150, deadline=None)
@given(data=st.data())
def test_an_events_fields_pass_only_where_the_schema_finds_nothing_wrong(
    data: st.DataObject,
) -> None:
    cls = data.draw(st.sampled_from(EVENT_CLASSES), label="event class")
    fields = [f.name for f in dataclasses.fields(cls)]
    chosen = data.draw(st.lists(st.sampled_from(fields), unique=True), label="fields")
    extra = data.draw(st.lists(st.sampled_from(["extra", "other"]), unique=True, max_size=1))
    given_values = {name: data.draw(values(), label=name) for name in chosen + extra}
    assert conforms_of(cls)(given_values) == (schema_of(cls).validate(dict(given_values)) == {}), (
        given_values
    )


def test_the_events_of_real_play_take_the_fast_path(world: World) -> None:
    game = world.start()
    world.games.add_entropy(game.id, world.bob, "blue's own noise")
    world.play(game, world.alice, {"type": "step", "distance": 1})
    world.play(game, world.alice, SHOT)
    events = [*world.store.events.get(game.id), *world.store.events.get(world.alice.id)]
    assert {type(e).__qualname__ for e in events} >= {
        "Game.Created",
        "Game.EntropyAdded",
        "Game.CommandAccepted",
        "Game.DiceRolled",
        "Game.Recorded",
    }
    for event in events:
        assert conforms_of(type(event))(vars(event)), event
        assert problems(event) == {}
