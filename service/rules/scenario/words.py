"""A scenario document in an organiser's words: values as they read (``none``, ``yes``, ``3``),
the facts of a document keyed by what they are about (not by list index), the changes between
two documents one sentence each, and the place of a checked field (``hex J7``, ``unit 19-div``).

What a game's documents hold is the game's (``CustomScenarios``: the hex format's map and units in
:mod:`service.rules.scenario.documents`, Barcelona's table in inches in its own package); this
module is what they share.  Pure: documents in, words out."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from service.rules.scenario.placeholders import is_wrapper, unwrap

#: a document's facts: ``(kind, about, ...)`` -> the value (``("terrain", "J7")`` -> ``"forest"``)
Facts = dict[tuple[str, ...], Any]
#: one changed fact in words, or None to leave it unsaid (``(key, before, after)``)
Say = Callable[[tuple[str, ...], Any, Any], str | None]


def word(value: Any) -> str:
    if value is None or value == [] or value == {}:
        return "none"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, list):
        return ", ".join(word(v) for v in value)
    if isinstance(value, dict):
        return ", ".join(f"{k} {word(v)}" for k, v in value.items())
    return str(value)


def point(value: Any) -> str | None:
    """A point in inches (``[x, y]``) as ``(x, y)``."""
    if len(lst(value)) == 2:
        return f"({word(value[0])}, {word(value[1])})"
    return None if value is None else word(value)


def plain_doc(document: Mapping[str, Any]) -> dict[str, Any]:
    """The document with every placeholder wrapper replaced by its value."""
    return d(unwrap(dict(document))[0])


# A draft is read before its checks pass, so these three are what stands between a wrong shape
# (a list where an object belongs ...) and the words: a wrong part reads as empty.
def d(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def lst(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def dicts(value: Any) -> list[dict[str, Any]]:
    """The objects of a list (anything else in it is left out)."""
    return [item for item in lst(value) if isinstance(item, dict)]


def item_at(document: Mapping[str, Any], path: str, index: int) -> dict[str, Any]:
    """The plain object at ``path`` (``map.places``) ``[index]`` of a document, read along that
    path alone (a check report places each of its lines: unwrapping the whole document for each
    cost 85 ms on Merida's 135 lines); ``{}`` where there is none."""
    node: Any = document
    for part in path.split("."):
        node = d(_bare(node)).get(part)
    items = lst(_bare(node))
    return d(unwrap(items[index])[0]) if index < len(items) else {}


def _bare(value: Any) -> Any:
    while is_wrapper(value):
        value = value["value"]
    return value


def field_facts(document: Mapping[str, Any], owned: Sequence[str]) -> Facts:
    """The document's top-level fields other than ``owned`` (what the game's facts cover)."""
    return {("field", key): value for key, value in document.items() if key not in owned}


def changes(before: Facts, after: Facts, say: Say, rank: Sequence[str]) -> list[str]:
    """Every fact that differs, in ``rank``'s order of kinds then by key, said by ``say`` (a fact
    of the kind ``field`` is said ``name: old → new`` unless ``say`` says it)."""
    lines: list[str] = []
    order = list(rank)
    for key in sorted(set(before) | set(after), key=lambda k: (order.index(k[0]), *k[1:])):
        a, b = before.get(key), after.get(key)
        if a == b:
            continue
        line = say(key, a, b)
        if line is None and key[0] == "field":
            line = f"{key[1]}: {word(a)} → {word(b)}"
        if line is not None:
            lines.append(line)
    return lines


def added_or_changed(
    key: tuple[str, ...], anchor: str, a: Any, b: Any, before: Facts, after: Facts
) -> str | None:
    """A named thing's fact changing (``objective Hill at: (1, 2) → (3, 4)``), or the thing added
    or removed (said once, at its ``anchor`` fact): ``key`` is ``(kind, name, fact)``."""
    kind, name, fact = key[:3]
    present = ((kind, name, anchor) in before, (kind, name, anchor) in after)
    if present == (True, True):
        return f"{kind} {name} {fact}: {word(a)} → {word(b)}"
    if fact == anchor:
        return f"{kind} {name} {'added' if present[1] else 'removed'}: {word(b or a)}"
    return None


def field_place(field: str) -> str:
    """A field no game names more closely: ``field <path>``, or the whole ``scenario``."""
    return f"field {field}" if field else "scenario"
