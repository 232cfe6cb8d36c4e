"""A club's scenario: an aggregate whose events record each edit as a fact at its place.

It starts from a built-in scenario's document (or a blank map, or another club's published
version: a fork), is edited by typed changes (:data:`CHANGE_KINDS`, each naming its hex, hexside,
unit or field), and is published as numbered versions, each with the SHA-256 of its canonical JSON.
Its sharing is ``private`` (its club only), ``shared`` (every club) or ``public`` (everyone).

The document is the scenario format's JSON (docs/scenario-format.md), placeholders and all: a
change that sets a value wrapped as a placeholder replaces the wrapper (the club entered the real
value); ``confirm`` unwraps a value the club checked and found right.  Pure: no I/O; the checks of
the rules are given to :meth:`ClubScenario.publish` by the application.
"""

from __future__ import annotations

import copy
import hashlib
import json
import re
from collections.abc import Mapping, Sequence
from typing import Any

from eventsourcing.domain import Aggregate

from service.domain.draft_limits import DraftLimits
from service.domain.errors import Conflict, Forbidden, Invalid, Unprocessable

SHARING = ("private", "shared", "public")
TITLE = re.compile(r"^\S.{0,98}\S$|^\S$")

Doc = dict[str, Any]
Change = dict[str, Any]


def canonical(document: Mapping[str, Any]) -> str:
    """The canonical JSON of a document: keys sorted, no spaces, UTF-8 as is."""
    return json.dumps(document, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def content_hash(document: Mapping[str, Any]) -> str:
    return "sha256:" + hashlib.sha256(canonical(document).encode("utf-8")).hexdigest()


# -- placeholder-aware paths ---------------------------------------------------------------------
def is_wrapper(value: Any) -> bool:
    return (
        isinstance(value, dict)
        and "placeholder" in value
        and "value" in value
        and set(value) <= {"placeholder", "value", "note"}
    )


def plain(value: Any) -> Any:
    """``value`` with every placeholder wrapper replaced by its value."""
    while is_wrapper(value):
        value = value["value"]
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [plain(v) for v in value]
    return value


def inside(value: Any) -> Any:
    """The container a (possibly wrapped) value holds."""
    while is_wrapper(value):
        value = value["value"]
    return value


def parse_path(path: str) -> list[str | int]:
    """``units[3].values.attack`` -> ``["units", 3, "values", "attack"]``."""
    parts: list[str | int] = []
    for token in re.findall(r"[^.\[\]]+|\[\d+\]", path):
        parts.append(int(token[1:-1]) if token.startswith("[") else token)
    if not parts:
        raise ValueError("empty path")
    return parts


def _container(doc: Doc, parts: Sequence[str | int], create: bool = True) -> Any:
    node: Any = doc
    for part in parts:
        node = inside(node)
        if isinstance(part, int):
            if not isinstance(node, list) or not 0 <= part < len(node):
                raise KeyError(part)
            node = node[part]
        else:
            if not isinstance(node, dict):
                raise KeyError(part)
            if part not in node:
                if not create:
                    raise KeyError(part)
                node[part] = {}
            node = node[part]
    return inside(node)


def set_at(doc: Doc, path: Sequence[str | int], value: Any) -> None:
    """Set ``value`` at ``path``; a wrapper standing there is replaced (no longer a placeholder)."""
    parent = _container(doc, path[:-1])
    last = path[-1]
    if isinstance(last, int):
        if not isinstance(parent, list) or not 0 <= last < len(parent):
            raise KeyError(last)
    elif not isinstance(parent, dict):
        raise KeyError(last)
    parent[last] = value


def delete_at(doc: Doc, path: Sequence[str | int]) -> None:
    parent = _container(doc, path[:-1], create=False)
    if isinstance(parent, dict):
        parent.pop(path[-1], None)


def get_at(doc: Doc, path: Sequence[str | int]) -> Any:
    node: Any = doc
    for part in path:
        node = inside(node)
        node = node[part]
    return node


# -- the changes -----------------------------------------------------------------------------------
#: each change kind and the field naming its place
CHANGE_KINDS = {
    "terrain": "hex",  # {"hex", "terrain"}: paint a hex
    "hex_features": "hex",  # {"hex", "features": [...]}: towns, cities ...; [] removes
    "hexside": "hexes",  # {"hexes": [a, b], "features": [...]}: river, road ...; [] removes
    "place": "name",  # {"name", "hex", "place_kind", "values"}: add or change a named place
    "place_removed": "name",
    "unit_added": "unit",  # {"unit": {...}}: a counter (its "id" names it)
    "unit_edited": "unit",  # {"unit": id, "field": "values.attack" | "name" | ..., "value"}
    "unit_removed": "unit",  # {"unit": id}
    "setup": "unit",  # {"unit": id, "hex": hex | null}: move its set-up hex (null: none)
    "reinforcement": "unit",  # {"unit": id, "turn": n | null, "entry" | "hex"}: null removes
    # a table in inches (Barcelona): terrain pieces, deployment zones, entry points, objectives
    "piece": "id",  # {"id", "name", "rect": [x, y, w, h] | "polygon": [[x, y], ...], "effects"}
    "piece_removed": "id",
    "zone": "side",  # {"side", "rect": [x, y, w, h]}: a side's deployment zone
    "entry_point": "side",  # {"side", "point": [x, y]}
    "objective": "name",  # {"name", "point": [x, y], "values": {"vp": 2}}
    "objective_removed": "name",
    "field": "path",  # {"path": "turns" | "title" | "map.bounds" | ..., "value"}
    "confirm": "path",  # {"path"}: the placeholder there is right as it stands
}
UNIT_FIELDS = ("side", "type", "name", "steps", "hex", "notes")


def _units(doc: Doc) -> list[Any]:
    return _list(doc, ["units"], "units")


def _unit_index(doc: Doc, uid: Any, where: str) -> int:
    for index, unit in enumerate(_units(doc)):
        if isinstance(inside(unit), dict) and plain(inside(unit).get("id")) == uid:
            return index
    raise Unprocessable(f"no unit {uid!r}", {where: [f"unknown unit {uid!r}"]})


def _named(items: list[Any], name: Any) -> int | None:
    for index, item in enumerate(items):
        if isinstance(inside(item), dict) and plain(inside(item).get("name")) == name:
            return index
    return None


def apply_change(doc: Doc, change: Mapping[str, Any], where: str = "change") -> None:
    """Apply one change to ``doc`` in place; a change that names nothing there is Unprocessable."""
    kind = change["kind"]
    try:
        _APPLY[kind](doc, dict(change), where)
    except (KeyError, IndexError, TypeError, AttributeError, ValueError) as exc:
        raise Unprocessable(
            f"the {kind} change does not fit the scenario", {where: [f"no such place: {exc}"]}
        ) from None


def _terrain(doc: Doc, c: Change, where: str) -> None:
    set_at(doc, ["map", "terrain", c["hex"]], c["terrain"])


def _hex_features(doc: Doc, c: Change, where: str) -> None:
    if c["features"]:
        set_at(doc, ["map", "hex_features", c["hex"]], list(c["features"]))
    else:
        delete_at(doc, ["map", "hex_features", c["hex"]])


def _list(doc: Doc, path: Sequence[str], where: str) -> list[Any]:
    """The list at ``path`` (inside any wrapper), made empty when absent."""
    parent = _container(doc, path[:-1])
    if parent.get(path[-1]) is None:
        parent[path[-1]] = []
    found = inside(parent[path[-1]])
    if not isinstance(found, list):
        raise Unprocessable(f"{'.'.join(path)} is not a list", {where: ["not a list there"]})
    return found


def _hexside(doc: Doc, c: Change, where: str) -> None:
    hexsides = _list(doc, ["map", "hexsides"], where)
    pair = set(c["hexes"])
    for index, item in enumerate(hexsides):
        if set(plain(inside(item).get("hexes", []))) == pair:
            if c["features"]:
                hexsides[index] = {"hexes": list(c["hexes"]), "features": list(c["features"])}
            else:
                del hexsides[index]
            return
    if c["features"]:
        hexsides.append({"hexes": list(c["hexes"]), "features": list(c["features"])})


def _place(doc: Doc, c: Change, where: str) -> None:
    places = _list(doc, ["map", "places"], where)
    item = {"name": c["name"], "hex": c["hex"], "kind": c.get("place_kind", "")}
    item["values"] = dict(c.get("values") or {})
    index = _named(places, c["name"])
    if index is None:
        places.append(item)
    else:
        places[index] = item


def _place_removed(doc: Doc, c: Change, where: str) -> None:
    places = _container(doc, ["map", "places"], create=False)
    index = _named(places, c["name"])
    if index is None:
        raise Unprocessable(f"no place {c['name']!r}", {f"{where}.name": ["unknown place"]})
    del places[index]


def _unit_added(doc: Doc, c: Change, where: str) -> None:
    _units(doc).append(copy.deepcopy(dict(c["unit"])))


def _unit_edited(doc: Doc, c: Change, where: str) -> None:
    index = _unit_index(doc, c["unit"], f"{where}.unit")
    field = c["field"]
    path: list[str | int] = ["units", index, *parse_path(field)]
    top = path[2]
    if top not in (*UNIT_FIELDS, "id", "values"):
        raise Unprocessable(
            f"no unit field {field!r}", {f"{where}.field": [f"one of {', '.join(UNIT_FIELDS)}"]}
        )
    if top == "values" and len(path) == 3:
        raise Unprocessable("which value?", {f"{where}.field": ["values.<name>"]})
    if c.get("value") is None:
        delete_at(doc, path)
    else:
        set_at(doc, path, c["value"])


def _unit_removed(doc: Doc, c: Change, where: str) -> None:
    """The unit and its arrival, if it had one."""
    del _units(doc)[_unit_index(doc, c["unit"], f"{where}.unit")]
    if doc.get("reinforcements") is not None:
        items = _list(doc, ["reinforcements"], where)
        items[:] = [r for r in items if plain(inside(r).get("unit")) != c["unit"]]


def _setup(doc: Doc, c: Change, where: str) -> None:
    _unit_edited(doc, {"unit": c["unit"], "field": "hex", "value": c.get("hex")}, where)


def _reinforcement(doc: Doc, c: Change, where: str) -> None:
    _unit_index(doc, c["unit"], f"{where}.unit")
    items = _list(doc, ["reinforcements"], where)
    items[:] = [r for r in items if plain(inside(r).get("unit")) != c["unit"]]
    if c.get("turn") is not None:
        item = {"turn": c["turn"], "unit": c["unit"]}
        item.update({k: c[k] for k in ("entry", "hex") if c.get(k) is not None})
        items.append(item)


def _by_key(items: list[Any], key: str, value: Any) -> int | None:
    for index, item in enumerate(items):
        if isinstance(inside(item), dict) and plain(inside(item).get(key)) == value:
            return index
    return None


def _put(items: list[Any], key: str, item: dict[str, Any]) -> None:
    """Replace the item with ``item``'s ``key``, or add it."""
    index = _by_key(items, key, item[key])
    if index is None:
        items.append(item)
    else:
        items[index] = item


def _take(items: list[Any], key: str, value: Any, where: str, what: str, reason: str) -> None:
    """Remove the item whose ``key`` is ``value``; 422 naming ``<where>.<key>`` if there is none."""
    index = _by_key(items, key, value)
    if index is None:
        raise Unprocessable(f"no {what} {value!r}", {f"{where}.{key}": [reason]})
    del items[index]


def _piece(doc: Doc, c: Change, where: str) -> None:
    areas = _list(doc, ["areas"], where)
    item: dict[str, Any] = {"id": c["id"], "name": c.get("name") or c["id"]}
    item["effects"] = list(c.get("effects") or [])
    for shape in ("rect", "polygon"):
        if c.get(shape) is not None:
            item[shape] = copy.deepcopy(c[shape])
    _put(areas, "id", item)


def _piece_removed(doc: Doc, c: Change, where: str) -> None:
    _take(_list(doc, ["areas"], where), "id", c["id"], where, "piece", "unknown piece")


def _zone(doc: Doc, c: Change, where: str) -> None:
    set_at(doc, ["deployment", c["side"]], {"rect": list(c["rect"])})


def _entry_point(doc: Doc, c: Change, where: str) -> None:
    set_at(doc, ["entries", c["side"]], list(c["point"]))


def _objective(doc: Doc, c: Change, where: str) -> None:
    objectives = _list(doc, ["objectives"], where)
    item = {"name": c["name"], "point": list(c["point"]), "values": dict(c.get("values") or {})}
    _put(objectives, "name", item)


def _objective_removed(doc: Doc, c: Change, where: str) -> None:
    _take(_list(doc, ["objectives"], where), "name", c["name"], where, "objective", "unknown")


def _field(doc: Doc, c: Change, where: str) -> None:
    path = parse_path(c["path"])
    if path[0] in ("format", "system"):
        raise Unprocessable(f"{path[0]} is fixed", {f"{where}.path": [f"{path[0]} is fixed"]})
    if c.get("value") is None:
        delete_at(doc, path)
    else:
        set_at(doc, path, c["value"])


def _confirm(doc: Doc, c: Change, where: str) -> None:
    path = parse_path(c["path"])
    found = get_at(doc, path)
    if not is_wrapper(found):
        raise Unprocessable("not a placeholder", {f"{where}.path": ["no placeholder there"]})
    set_at(doc, path, plain(found))


_APPLY = {
    "terrain": _terrain,
    "hex_features": _hex_features,
    "hexside": _hexside,
    "place": _place,
    "place_removed": _place_removed,
    "unit_added": _unit_added,
    "unit_edited": _unit_edited,
    "unit_removed": _unit_removed,
    "setup": _setup,
    "reinforcement": _reinforcement,
    "piece": _piece,
    "piece_removed": _piece_removed,
    "zone": _zone,
    "entry_point": _entry_point,
    "objective": _objective,
    "objective_removed": _objective_removed,
    "field": _field,
    "confirm": _confirm,
}


def applied(document: Doc, changes: Sequence[Mapping[str, Any]]) -> Doc:
    """A copy of ``document`` with ``changes`` applied in order."""
    doc = copy.deepcopy(document)
    for index, change in enumerate(changes):
        apply_change(doc, change, f"changes[{index}]")
    return doc


# -- the aggregate ---------------------------------------------------------------------------------
class ClubScenario(Aggregate):
    class Created(Aggregate.Created):
        club: str
        system: str
        base: str  # the built-in scenario it started from, or "blank"
        title: str
        document: dict[str, Any]
        by: str

        def apply(self, aggregate: Any) -> None:
            aggregate._start(self.club, self.system, self.base, self.title, self.document)

    class Forked(Aggregate.Created):
        club: str
        system: str
        base: str
        title: str
        document: dict[str, Any]
        by: str
        origin: str  # the scenario forked
        origin_version: int

        def apply(self, aggregate: Any) -> None:
            aggregate._start(self.club, self.system, self.base, self.title, self.document)
            aggregate.forked_from = {"scenario": self.origin, "version": self.origin_version}

    class Edited(Aggregate.Event):
        changes: list[dict[str, Any]]
        by: str

        def apply(self, aggregate: Any) -> None:
            aggregate.draft = applied(aggregate.draft, self.changes)
            aggregate.edits += len(self.changes)
            for change in self.changes:  # the map images it has named (a per-scenario limit)
                value = change.get("value")
                if change.get("path") == "map.image" and isinstance(value, dict):
                    known = list(getattr(aggregate, "images", []))
                    if value.get("sha256") not in known:
                        aggregate.images = [*known, value.get("sha256")]

    class Published(Aggregate.Event):
        number: int
        hash: str
        document: dict[str, Any]
        by: str
        note: str

        def apply(self, aggregate: Any) -> None:
            aggregate.versions.append(
                {
                    "version": self.number,
                    "hash": self.hash,
                    "document": self.document,
                    "by": self.by,
                    "note": self.note,
                    "at": self.timestamp.isoformat(),
                }
            )

    class SharingSet(Aggregate.Event):
        sharing: str
        by: str

        def apply(self, aggregate: Any) -> None:
            aggregate.sharing = self.sharing

    club: str
    system: str
    base: str
    title: str
    draft: Doc
    original: Doc
    versions: list[dict[str, Any]]
    sharing: str
    forked_from: dict[str, Any] | None
    edits: int

    def __init__(self) -> None:  # attributes are set by the Created/Forked event
        pass

    def _start(self, club: str, system: str, base: str, title: str, document: Doc) -> None:
        self.club, self.system, self.base, self.title = club, system, base, title
        self.draft = copy.deepcopy(document)
        self.original = copy.deepcopy(document)
        self.versions = []
        self.sharing = "private"
        self.forked_from = None
        self.edits = 0
        self.images: list[str] = []

    @staticmethod
    def _title(title: str) -> str:
        title = " ".join((title or "").split())
        if not TITLE.match(title):
            raise Invalid("invalid title", {"title": ["1 to 100 characters"]})
        return title

    @classmethod
    def create(
        cls,
        club: str,
        system: str,
        base: str,
        title: str,
        document: Doc,
        by: str,
        limits: DraftLimits | None = None,
    ) -> Any:
        doc = copy.deepcopy(document)
        title = cls._title(title)
        doc["title"] = title
        (limits or DraftLimits()).check(doc, len(canonical(doc).encode("utf-8")))
        return cls._create(
            cls.Created, club=club, system=system, base=base, title=title, document=doc, by=by
        )

    @classmethod
    def fork(cls, origin: ClubScenario, version: int, club: str, title: str, by: str) -> Any:
        if not origin.may_read_from_club(club):
            raise Forbidden("that scenario is not shared", {"scenario": ["private to its club"]})
        document = copy.deepcopy(origin.published(version)["document"])
        title = cls._title(title or origin.title)
        document["title"] = title
        return cls._create(
            cls.Forked,
            club=club,
            system=origin.system,
            base=origin.base,
            title=title,
            document=document,
            by=by,
            origin=str(origin.id),
            origin_version=version,
        )

    # -- queries ------------------------------------------------------------------------------------
    @property
    def latest(self) -> int:
        return self.versions[-1]["version"] if self.versions else 0

    def published(self, number: int | None) -> dict[str, Any]:
        """A published version (``None``: the latest); NotFound-like Unprocessable otherwise."""
        if not self.versions:
            raise Unprocessable("not published yet", {"scenario_version": ["no version yet"]})
        if number is None:
            return self.versions[-1]
        if not 1 <= number <= len(self.versions):
            raise Unprocessable(
                f"no version {number}",
                {"scenario_version": [f"published versions: 1..{len(self.versions)}"]},
            )
        return self.versions[number - 1]

    def may_read_from_club(self, club: str | None) -> bool:
        return club == self.club or self.sharing in ("shared", "public")

    # -- commands -------------------------------------------------------------------------------
    def edit(
        self, changes: Sequence[Mapping[str, Any]], by: str, limits: DraftLimits | None = None
    ) -> None:
        if not changes:
            raise Invalid("no change", {"changes": ["give at least one change"]})
        # refuses a change naming nothing, or a draft past the limits, before anything is kept
        draft = applied(self.draft, changes)
        (limits or DraftLimits()).check(draft, len(canonical(draft).encode("utf-8")))
        self.trigger_event(self.Edited, changes=[dict(c) for c in changes], by=by)

    def publish(self, problems: Sequence[Mapping[str, Any]], by: str, note: str = "") -> None:
        """Publish the draft as the next version, unless ``problems`` (the rules' checks of the
        draft, errors only) list any or nothing changed since the latest version."""
        if problems:
            first = problems[0]
            details: dict[str, list[str]] = {}
            for problem in problems:
                details.setdefault(problem["place"], []).append(problem["reason"])
            raise Unprocessable(
                f"the scenario has {len(problems)} error(s), nothing is published; first: "
                f"{first['place']}: {first['reason']}",
                details,
            )
        digest = content_hash(self.draft)
        if self.versions and self.versions[-1]["hash"] == digest:
            raise Conflict(
                "nothing changed since the last version",
                {"scenario": [f"version {self.latest} is the same"]},
            )
        self.trigger_event(
            self.Published,
            number=self.latest + 1,
            hash=digest,
            document=copy.deepcopy(self.draft),
            by=by,
            note=note,
        )

    def share(self, sharing: str, by: str) -> None:
        if sharing not in SHARING:
            raise Invalid("unknown sharing", {"sharing": [f"one of {', '.join(SHARING)}"]})
        if sharing != self.sharing:
            self.trigger_event(self.SharingSet, sharing=sharing, by=by)
