"""A club's hex scenario document (docs/scenario-format.md) as the hex games know it: a blank map
to start from, the board drawn from a draft (errors and all), its facts and changes in words
(``J7: clear → mountain``, ``hexside J7/J8: none → river``, ``19 Div strength 4 → 5``) and where
a checked field is (``hex J7``, ``unit 19-div``).

The club scenario library keeps versions, permissions and edits; it reads a document only
through a game's ``CustomScenarios`` capability, which for the hex games is
:class:`service.rules.hexgame.HexCustomScenarios` over these functions."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from service.rules.base import ScenarioError
from service.rules.kernel.grid import HexGrid
from service.rules.kernel.layout import board_json
from service.rules.kernel.mapdata import MapData, Place
from service.rules.scenario.words import (
    Facts,
    changes,
    d,
    dicts,
    field_facts,
    field_place,
    item_at,
    lst,
    plain_doc,
    word,
)

#: the kinds of fact of a hex document, in the order its changes are said
RANK = ("field", "terrain", "features", "hexside", "place", "unit", "arrives")
#: what a unit's field is called in a sentence
UNIT_WORDS = {"hex": "set-up hex", "steps": "steps", "side": "side", "type": "type"}


def blank(system: str, spec: Mapping[str, Any]) -> dict[str, Any]:
    """A scenario of an empty map: ``spec`` gives ``bounds``, ``coordinates``, ``orientation``,
    ``offset``, ``sides``, ``terrain_types`` and ``turns`` (the checks report what is wrong)."""
    return {
        "format": "arbiter-scenario/1",
        "id": re.sub(r"[^a-z0-9_-]+", "-", str(spec.get("id") or "club-scenario").lower()),
        "system": system,
        "title": "",
        "sides": list(spec.get("sides") or []),
        "turns": spec.get("turns", 1),
        "map": {
            "coordinates": spec.get("coordinates", "letter-number"),
            "orientation": spec.get("orientation", "flat"),
            "offset": spec.get("offset", "odd"),
            "bounds": dict(spec.get("bounds") or {}),
            **({"terrain_types": list(spec["terrain_types"])} if spec.get("terrain_types") else {}),
            "default_terrain": spec.get("default_terrain", "clear"),
            "terrain": {},
        },
        "units": [],
    }


def board(document: Mapping[str, Any]) -> dict[str, Any]:
    """A hex map as data for drawing (``board_json``'s shape), errors and all: what lies off the
    map or names no hexside is left out (the checks report it at its place), so a draft is drawn
    while it is wrong.  ScenarioError naming ``map`` when its grid cannot be drawn."""
    m = d(plain_doc(document).get("map"))
    try:
        grid = HexGrid.from_dict(m)
        labels = set(grid.labels())
    except (KeyError, TypeError, ValueError) as exc:
        raise ScenarioError(
            "the map's grid is not right; it cannot be drawn", {"map": [str(exc)]}
        ) from None

    def on(label: Any) -> bool:
        return isinstance(label, str) and label in labels

    sides: dict[tuple[str, str], list[str]] = {}
    for side in lst(m.get("hexsides")):
        pair = lst(d(side).get("hexes"))
        if len(pair) == 2 and all(map(on, pair)) and grid.adjacent(pair[0], pair[1]):
            sides[(pair[0], pair[1])] = list(lst(side.get("features")))
    places = [
        Place(
            str(p.get("name")),
            p["hex"],
            str(p.get("kind", "")),
            d(p.get("values")),
            str(p.get("label") or ""),
            str(p.get("notes") or ""),
        )
        for p in dicts(m.get("places"))
        if on(p.get("hex"))
    ]
    mapdata = MapData(
        grid,
        default_terrain=str(m.get("default_terrain") or "clear"),
        terrain={h: t for h, t in d(m.get("terrain")).items() if on(h) and isinstance(t, str)},
        hex_features={h: list(lst(f)) for h, f in d(m.get("hex_features")).items() if on(h)},
        hexsides=sides,
        places=places,
    )
    return board_json(mapdata)


# -- facts and changes ----------------------------------------------------------------------------
def facts(document: Mapping[str, Any]) -> Facts:
    """Every fact of a hex document keyed by what it is about, not by list index."""
    doc = plain_doc(document)
    found = {
        **field_facts(doc, ("map", "units", "reinforcements")),
        **_map_facts(d(doc.get("map"))),
    }
    for unit in dicts(doc.get("units")):
        uid = str(unit.get("id"))
        found[("unit", uid, "")] = True
        for key, value in unit.items():
            if key == "values":
                for name, number in d(value).items():
                    found[("unit", uid, name)] = number
            elif key != "id":
                found[("unit", uid, key)] = value
    for item in dicts(doc.get("reinforcements")):
        where = item.get("entry") or item.get("hex")
        found[("arrives", str(item.get("unit")))] = f"turn {word(item.get('turn'))} at {where}"
    return found


def _map_facts(m: Mapping[str, Any]) -> Facts:
    found: Facts = {}
    default = m.get("default_terrain", "clear")
    for label, terrain in d(m.get("terrain")).items():
        if terrain != default:
            found[("terrain", label)] = terrain
    for label, features in d(m.get("hex_features")).items():
        found[("features", label)] = list(lst(features))
    for side in dicts(m.get("hexsides")):
        if len(lst(side.get("hexes"))) == 2:
            found[("hexside", "/".join(sorted(map(str, side["hexes"]))))] = side.get("features")
    for place in dicts(m.get("places")):
        for key in ("hex", "kind"):
            found[("place", str(place.get("name")), key)] = place.get(key)
        for key, value in d(place.get("values")).items():
            found[("place", str(place.get("name")), "values", key)] = value
    for key, value in m.items():
        if key not in ("terrain", "hex_features", "hexsides", "places", "image"):
            found[("field", f"map.{key}")] = value
    found.update(_image_facts(m.get("image")))
    return found


def _image_facts(image: Any) -> Facts:
    """The map image in words: which scan (its hash's start and size) and how it is fitted."""
    image = d(image)
    if not image:
        return {}
    found: Facts = {
        ("field", "map image"): f"{str(image.get('sha256'))[:12]}… "
        f"({word(image.get('width'))}×{word(image.get('height'))} px)"
    }
    fit = d(image.get("calibration"))
    if fit:
        points = ", ".join(str(p.get("hex")) for p in dicts(fit.get("points")))
        found[("field", "map image calibration")] = (
            f"on {points} (residual {word(fit.get('residual_px'))} px)"
        )
    return found


def changed(old: Mapping[str, Any], new: Mapping[str, Any]) -> list[str]:
    """The facts that differ between two hex documents, one sentence each, names not ids."""
    before, after = facts(old), facts(new)
    names = {**_unit_names(old), **_unit_names(new)}
    defaults = (_default_terrain(old), _default_terrain(new))

    def unit(uid: str) -> bool:
        return ("unit", uid, "") in before and ("unit", uid, "") in after

    def say(key: tuple[str, ...], a: Any, b: Any) -> str | None:
        kind = key[0]
        if kind == "terrain":
            return f"{key[1]}: {a or defaults[0]} → {b or defaults[1]}"
        if kind == "features":
            return f"{key[1]} features: {word(a)} → {word(b)}"
        if kind == "hexside":
            return f"hexside {key[1]}: {word(a)} → {word(b)}"
        if kind == "place":
            what = " ".join(key[2:]).replace("values ", "")
            return f"place {key[1]} {what}: {word(a)} → {word(b)}"
        name = names.get(key[1], key[1])
        if kind == "unit" and key[2] == "":
            return f"unit {name} {'added' if b else 'removed'}"
        if kind == "unit" and unit(key[1]):
            return f"{name} {UNIT_WORDS.get(key[2], key[2])} {word(a)} → {word(b)}"
        if kind == "arrives" and unit(key[1]):
            return f"{name} arrives: {word(a)} → {word(b)}"
        return None

    return changes(before, after, say, RANK)


def _default_terrain(document: Mapping[str, Any]) -> Any:
    return d(plain_doc(document).get("map")).get("default_terrain", "clear")


def _unit_names(document: Mapping[str, Any]) -> dict[str, str]:
    units = dicts(plain_doc(document).get("units"))
    return {str(u.get("id")): str(u.get("name") or u.get("id")) for u in units}


# -- places ---------------------------------------------------------------------------------------
LISTED = re.compile(r"^(map\.hexsides|map\.places|map\.entries|units|reinforcements)\[(\d+)\]")


def place_of(field: str, document: Mapping[str, Any]) -> str:
    """Where a check's field is, in an organiser's words: ``hex J7``, ``hexside J7/J8``, ``unit
    19-div``, ``place Merida``, ``entry Road``, ``reinforcement of 19-div``, else ``field
    <path>``."""
    match = re.match(r"^map\.(terrain|hex_features)\.([A-Za-z0-9,]+)", field)
    if match:
        return f"hex {match.group(2)}"
    match = LISTED.match(field)
    if match:
        what = match.group(1)
        said = _listed(what, item_at(document, what, int(match.group(2))))
        if said:
            return said
    return field_place(field)


def _listed(what: str, item: Mapping[str, Any]) -> str | None:
    if what == "map.hexsides" and len(lst(item.get("hexes"))) == 2:
        return "hexside " + "/".join(str(h) for h in item["hexes"])
    named = {"map.places": "place", "map.entries": "entry"}
    if what in named and item.get("name"):
        return f"{named[what]} {item['name']}"
    if what == "units" and item.get("id"):
        return f"unit {item['id']}"
    if what == "reinforcements" and item.get("unit"):
        return f"reinforcement of {item['unit']}"
    return None
