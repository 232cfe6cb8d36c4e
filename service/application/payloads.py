"""Every event is checked against its declared payload type before it is committed.

An event log is forever: an event whose fields are not what its class declares (a ``created_by``
of ``null``, ``sides`` given as a list) is replayed by every view and every rebuild from then on,
and a view that cannot take it stops.  So :meth:`ArbiterStore.commit_at`
(``service.application.store``), the one way anything is saved, checks each new event here first,
and the record importer (``service.application.records``) checks each event of a record as it reads
it, naming the line.

The declaration is the event class itself: each domain event is a dataclass whose fields are
annotated (``created_by: str``, ``labels: dict[str, Any]``, ``origin: int | None``); a marshmallow
schema is derived from those annotations once per class (:func:`schema_of`), so there is no second
declaration to keep in step.  A rules event (``Game.Recorded``) must also be one its rules system
declares (``service.rules.declare.Events``)."""

from __future__ import annotations

import dataclasses
import functools
import types
import typing
from collections.abc import Callable, Container, Iterable, Mapping
from typing import Any
from uuid import UUID

from marshmallow import RAISE, Schema, ValidationError, fields

from service.domain.errors import Invalid


class Strict(fields.Field):
    """A value that is an instance of ``kinds`` exactly as Python holds it (no coercion: ``True``
    is not an ``int``, ``"1"`` is not a number)."""

    def __init__(self, *kinds: type, **kw: Any) -> None:
        super().__init__(**kw)
        self.kinds = kinds

    def _deserialize(self, value: Any, attr: Any, data: Any, **kwargs: Any) -> Any:
        if isinstance(value, bool) and bool not in self.kinds:
            raise ValidationError(f"not {self._named()}")
        if not isinstance(value, self.kinds):
            raise ValidationError(f"not {self._named()}")
        return value

    def _named(self) -> str:
        names = {
            str: "a text",
            int: "a whole number",
            float: "a number",
            bool: "true or false",
            UUID: "an id",
        }
        return " or ".join(names.get(k, f"a {k.__name__}") for k in self.kinds)


class Object(fields.Dict):
    """A JSON object (a Python dict, not any mapping-like value), its keys and values declared."""

    def _deserialize(self, value: Any, attr: Any, data: Any, **kwargs: Any) -> Any:
        if not isinstance(value, dict):
            raise ValidationError("not an object")
        return super()._deserialize(value, attr, data, **kwargs)


class Array(fields.List):
    """A JSON array (a Python list or tuple), each item declared."""

    def _deserialize(self, value: Any, attr: Any, data: Any, **kwargs: Any) -> Any:
        if not isinstance(value, (list, tuple)):
            raise ValidationError("not a list")
        return super()._deserialize(list(value), attr, data, **kwargs)


class Anything(fields.Raw):
    """``Any``: any value (JSON's, as the store's transcoder keeps it)."""


def field_of(annotation: Any, *, required: bool = True) -> fields.Field:
    """The marshmallow field of one annotation (``str``, ``int | None``, ``dict[str, Any]``,
    ``list[dict[str, Any]]`` ...)."""
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if origin in (typing.Union, types.UnionType):
        rest = [a for a in args if a is not type(None)]
        inner = field_of(rest[0] if len(rest) == 1 else Any, required=required)
        inner.allow_none = True
        return inner
    kw: dict[str, Any] = {"required": required, "allow_none": annotation is Any}
    if annotation is Any or annotation is object:
        return Anything(**kw)
    if origin in (dict, Mapping) or annotation in (dict, Mapping):
        key, value = args or (Any, Any)
        return Object(keys=field_of(key), values=field_of(value), **kw)
    if origin in (list, tuple, set, frozenset) or annotation in (list, tuple):
        item = args[0] if args else Any
        return Array(field_of(item), **kw)
    if annotation is float:
        return Strict(float, int, **kw)
    if isinstance(annotation, type):
        return Strict(annotation, **kw)
    return Anything(**kw)  # a form the derivation does not know: not checked, not refused


@functools.cache
def schema_of(cls: type) -> Schema:
    """The schema of an event class: one field per dataclass field, from its annotation; a field
    with a default may be absent.  Unknown fields are refused."""
    hints = typing.get_type_hints(cls)
    declared: dict[str, fields.Field] = {}
    for item in dataclasses.fields(cls):
        has_default = (
            item.default is not dataclasses.MISSING
            or item.default_factory is not dataclasses.MISSING
        )
        declared[item.name] = field_of(hints.get(item.name, Any), required=not has_default)
    return Schema.from_dict(declared, name=f"{cls.__qualname__}Payload")(unknown=RAISE)


def problems(event: Any) -> dict[str, list[str]]:
    """What is wrong with ``event``'s fields against its class's declaration: ``{field: reasons}``
    (empty: nothing).  An event that is not a dataclass declares nothing and is not checked."""
    return problems_of(type(event), vars(event))


def problems_of(cls: type, values: Mapping[str, Any]) -> dict[str, list[str]]:
    """What is wrong with ``values`` as the fields of an event of ``cls`` (:func:`problems`)."""
    if not dataclasses.is_dataclass(cls):
        return {}
    if conforms_of(cls)(values):  # the common case, decided without building messages
        return {}
    return flatten(schema_of(cls).validate(dict(values)))


# -- the same declaration as a predicate -------------------------------------------------------------
#: whether one value is what an annotation declares
Conforms = Callable[[Any], bool]


def _anything(value: Any) -> bool:
    return True


def _not_none(value: Any) -> bool:
    return value is not None


def value_conforms(annotation: Any) -> Conforms:
    """Whether a value is what ``annotation`` declares, exactly as :func:`field_of`'s field
    accepts it (a value it accepts passes; the schema words why another does not): the fast path
    of every commit, where a marshmallow load of each new event cost a third of a millisecond."""
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if origin in (typing.Union, types.UnionType):
        return _optional(args)
    if origin in (dict, Mapping) or annotation in (dict, Mapping):
        return _mapping(args)
    if origin in (list, tuple, set, frozenset) or annotation in (list, tuple):
        return _sequence(args)
    return _atom(annotation)


def _optional(args: tuple[Any, ...]) -> Conforms:
    rest = [a for a in args if a is not type(None)]
    inner = value_conforms(rest[0] if len(rest) == 1 else Any)
    return lambda value: value is None or inner(value)


def _mapping(args: tuple[Any, ...]) -> Conforms:
    key, item = args or (Any, Any)
    keys, values = value_conforms(key), value_conforms(item)
    return lambda value: (
        isinstance(value, dict) and all(keys(k) and values(v) for k, v in value.items())
    )


def _sequence(args: tuple[Any, ...]) -> Conforms:
    each = value_conforms(args[0] if args else Any)
    return lambda value: isinstance(value, (list, tuple)) and all(each(v) for v in value)


def _atom(annotation: Any) -> Conforms:
    if annotation is Any:
        return _anything
    if annotation is float:
        return lambda value: isinstance(value, (float, int)) and not isinstance(value, bool)
    if annotation is bool:
        return lambda value: isinstance(value, bool)
    if isinstance(annotation, type) and annotation is not object:
        if not issubclass(bool, annotation):  # str, dict ...: no bool is one, no need to ask
            return lambda value: isinstance(value, annotation)
        return lambda value: isinstance(value, annotation) and not isinstance(value, bool)
    return _not_none  # ``object``, or a form the derivation does not know: any value but null


@functools.cache
def conforms_of(cls: type) -> Callable[[Mapping[str, Any]], bool]:
    """Whether ``values`` are the fields of an event of ``cls`` as :func:`schema_of` declares
    them: every field without a default present, no other, each value what its annotation
    declares.  True only where the schema finds nothing wrong (tests/unit/application/test_payloads.py)."""
    hints = typing.get_type_hints(cls)
    checks: dict[str, Conforms] = {}
    required = set()
    for item in dataclasses.fields(cls):
        checks[item.name] = value_conforms(hints.get(item.name, Any))
        if item.default is dataclasses.MISSING and item.default_factory is dataclasses.MISSING:
            required.add(item.name)
    names = frozenset(checks)

    def conforms(values: Mapping[str, Any]) -> bool:
        keys = values.keys()
        if not required <= keys or not keys <= names:
            return False
        return all(checks[name](value) for name, value in values.items())

    return conforms


def flatten(messages: Any, prefix: str = "") -> dict[str, list[str]]:
    """marshmallow's nested messages as ``{"labels.club": [reasons]}``: a list index in brackets,
    a dict entry's ``key``/``value`` on its owner."""
    if not isinstance(messages, dict):
        return {prefix or "payload": [str(m) for m in messages]}
    out: dict[str, list[str]] = {}
    for key, value in messages.items():
        if isinstance(key, int):
            name = f"{prefix}[{key}]"
        elif key in ("key", "value") and prefix and isinstance(value, (list, dict)):
            name = prefix
        else:
            name = f"{prefix}.{key}" if prefix else str(key)
        for place, reasons in flatten(value, name).items():
            out.setdefault(place, []).extend(reasons)
    return out


class EventRefused(Invalid):
    """An event that would be committed is not what its type declares: nothing is written."""

    code = "event_refused"


def check(events: Iterable[Any], declared_kinds: Callable[[Any], Container[str] | None]) -> None:
    """Refuse (:class:`EventRefused`, naming the event and each bad field) the first of ``events``
    whose fields do not match its declaration, or whose ``kind`` is not in
    ``declared_kinds(event)`` (a rules event's: the types its rules system declares; None for an
    event that names no rules event)."""
    for event in events:
        found = problems(event)
        declared = None if found else declared_kinds(event)
        if declared is not None and event.kind not in declared:
            found = {"kind": [f"{event.kind!r} is not an event its rules declare"]}
        if found:
            version = getattr(event, "originator_version", "?")
            reasons = "; ".join(f"{k}: {', '.join(v)}" for k, v in sorted(found.items()))
            raise EventRefused(
                f"the event {type(event).__qualname__} (version {version}) is not what its type "
                f"declares: {reasons}",
                found,
            )
