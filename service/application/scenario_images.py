"""A club scenario's map image as a service: upload (admins), serve (readers of the scenario),
calibrate (an ordinary ``field`` edit of ``map.image.calibration``), propose terrain (computes,
writes nothing) and accept a proposal (ordinary ``terrain`` and ``hexside`` edits).

The image is private like the scenario: every read goes through the scenario that names it
(:meth:`ScenarioLibrary.get`), and a published version pins it by the SHA-256 in its document.
See docs/scenario-library.md ("Map image")."""

from __future__ import annotations

import base64
import contextlib
import threading
from collections import OrderedDict
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from service.application.draft_images import StoredImage, image_of
from service.application.map_images import (
    HEXSIDE_FEATURES,
    MEDIA_TYPES,
    Calibration,
    calibrate,
    check_upload,
    grid_of,
    propose,
    resized,
    served_width,
)
from service.application.scenarios import ScenarioLibrary
from service.application.store import ArbiterStore
from service.domain.errors import Busy, Conflict, LimitReached, NotFound, Unprocessable
from service.domain.map_images import MapImage, stored_size
from service.domain.scenarios import ClubScenario, plain
from service.domain.users import User
from service.rules.kernel.grid import HexGrid

#: distinct images one scenario may have named over its life (each is kept in the store)
MAX_IMAGES_PER_SCENARIO = 10
#: the most example hexes (or hexsides) per terrain (or feature) of a proposal
MAX_EXAMPLES = 200
#: the resized images a worker keeps in memory, in bytes (a cache: each is made again if dropped)
CACHE_BYTES = 64 * 1024 * 1024
#: images a worker decodes at once by default (``ARBITER_IMAGE_DECODES``): each holds up to
#: MAX_PIXELS x 4 bytes (200 MB) while it is checked, resized or read
DECODES = 2
#: how long a request waits for a place to decode before it is answered 503, in seconds
DECODE_WAIT = 10.0


@dataclass(frozen=True)
class Served:
    data: bytes
    media_type: str
    sha256: str
    width: int


class _Sizes:
    """The resized images (by hash and width), least recently used dropped past ``limit``
    bytes."""

    def __init__(self, limit: int = CACHE_BYTES) -> None:
        self.limit = limit
        self.kept: OrderedDict[tuple[str, int], bytes] = OrderedDict()
        self.size = 0
        self.lock = threading.Lock()

    def get(self, key: tuple[str, int]) -> bytes | None:
        with self.lock:
            found = self.kept.get(key)
            if found is not None:
                self.kept.move_to_end(key)
            return found

    def put(self, key: tuple[str, int], data: bytes) -> None:
        if len(data) > self.limit:
            return
        with self.lock:
            if key in self.kept:
                return
            self.kept[key] = data
            self.size += len(data)
            while self.size > self.limit:
                _, dropped = self.kept.popitem(last=False)
                self.size -= len(dropped)


class ScenarioImages:
    def __init__(
        self,
        store: ArbiterStore,
        library: ScenarioLibrary,
        decodes: int = DECODES,
        wait: float = DECODE_WAIT,
    ) -> None:
        """``decodes``: images this worker decodes at once (an upload checked, a size made, a
        scan read for terrain); one more waits ``wait`` seconds for a place, then is answered
        503 with ``Retry-After``."""
        self.store = store
        self.library = library
        self.sizes = _Sizes()
        self.decodes = decodes
        self.wait = wait
        self._decoding = threading.BoundedSemaphore(decodes)
        #: what the store recorded of each image served (they never change: content-addressed)
        self._facts: OrderedDict[str, StoredImage] = OrderedDict()

    @contextlib.contextmanager
    def decoding(self) -> Iterator[None]:
        """A place to decode an image in, of :attr:`decodes`; 503 (:class:`Busy`) when none is
        free within :attr:`wait` seconds."""
        if not self._decoding.acquire(timeout=self.wait):
            raise Busy(
                "the server is decoding other map images; try again in a few seconds",
                {"image": [f"at most {self.decodes} images are decoded at once"]},
                retry_after=5,
            )
        try:
            yield
        finally:
            self._decoding.release()

    # -- the bytes -------------------------------------------------------------------------------
    def _stored(self, sha256: Any) -> StoredImage:
        """The image the store keeps (its bytes, and its media type and size as recorded when it
        was checked); 404 naming ``image`` when it keeps none by that name."""
        found = self.library.images.stored(sha256)
        if found is None or found.media_type not in MEDIA_TYPES:
            raise NotFound("the map image is not stored", {"image": ["no such image"]})
        return found

    def _bytes(self, sha256: str) -> bytes:
        return base64.b64decode(self._stored(sha256).data)

    def _has(self, sha256: str) -> bool:
        return self.library.images.stored(sha256) is not None

    def _facts_of(self, sha256: Any) -> StoredImage:
        """:meth:`_stored` without its bytes, remembered (a few thousand at most)."""
        key = str(sha256)
        found = self._facts.get(key)
        if found is None:
            stored = self._stored(sha256)
            found = StoredImage(stored.sha256, stored.media_type, stored.width, stored.height, "")
            self._facts[key] = found
            while len(self._facts) > 4096:
                self._facts.popitem(last=False)
        return found

    # -- commands -------------------------------------------------------------------------------
    def upload(self, ref: str, by: User, data: bytes, media_type: str) -> dict[str, Any]:
        """Check and keep the image; the draft's ``map.image`` names it (its calibration, made
        for another image, is dropped).  Answers the image's facts."""
        scenario = self.library._writable(ref, by)
        grid_of(plain(scenario.draft).get("map") or {})  # a table in inches has no hex grid
        checked = check_upload(data, media_type, self.decoding())
        sha = checked.sha256
        named = list(getattr(scenario, "images", []))
        if sha not in named and len(named) >= MAX_IMAGES_PER_SCENARIO:
            raise LimitReached(
                "this scenario has had its share of map images",
                {"image": [f"at most {MAX_IMAGES_PER_SCENARIO} images per scenario"]},
            )
        if not self._has(sha):
            stored = MapImage.store(
                sha, checked.media_type, checked.width, checked.height, checked.data, str(by.id)
            )
            # counted as kept in the log (base64), against the uploader's and the club's quotas
            held = self.library.quotas.store_bytes(
                str(by.id), scenario.club, stored_size(checked.data), sha
            )
            try:
                self.store.commit(
                    stored,
                    *held,
                    conflict=Conflict(
                        "another upload was kept meanwhile; try again",
                        {"image": ["another upload was kept meanwhile: try again"]},
                    ),
                )
            except Conflict:
                if not self._has(sha):  # a race on the quota, not the same bytes stored meanwhile
                    raise
        image = {
            "sha256": sha,
            "media_type": checked.media_type,
            "width": checked.width,
            "height": checked.height,
        }
        scenario.edit(
            [{"kind": "field", "path": "map.image", "value": image}],
            str(by.id),
            self.library.limits,
        )
        self.library._save(scenario)
        return {**image, "bytes": len(checked.data)}

    def calibrate(self, ref: str, by: User, points: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
        scenario = self.library._writable(ref, by)
        image, grid = self._draft_image(scenario)
        stored = self._draft_stored(image)
        fit = calibrate(grid, points, stored.width, stored.height)
        value = {
            "points": [
                {"hex": label, "x": float(p["x"]), "y": float(p["y"])}
                for (label, _), p in zip(fit.per_point, points, strict=True)
            ],
            **fit.to_json(),
        }
        scenario.edit(
            [{"kind": "field", "path": "map.image.calibration", "value": value}],
            str(by.id),
            self.library.limits,
        )
        self.library._save(scenario)
        return {"residual_px": fit.residual_px, **value}

    def propose(
        self,
        ref: str,
        by: User,
        hexes: Mapping[str, Sequence[str]],
        hexsides: Mapping[str, Sequence[Sequence[str]]],
    ) -> dict[str, Any]:
        """The proposal for the draft's calibrated image (writes nothing)."""
        scenario = self.library._writable(ref, by)
        image, grid = self._draft_image(scenario)
        if not isinstance(image.get("calibration"), dict):
            raise Unprocessable(
                "the map image is not calibrated",
                {"calibration": ["calibrate with 3 or more hexes first"]},
            )
        stored = self._draft_stored(image)
        try:
            fit = Calibration.from_json(image["calibration"])
        except (KeyError, IndexError, TypeError, ValueError):  # a draft stored before the checks
            raise Unprocessable(
                "the map image's calibration cannot be read",
                {"calibration": ["calibrate with 3 or more hexes again"]},
            ) from None
        terrains = self._terrains(scenario)
        hex_examples = self._hex_examples(grid, terrains, hexes)
        side_examples = self._side_examples(grid, hexsides)
        if not hex_examples and not side_examples:
            raise Unprocessable(
                "no examples", {"hexes": ["give example hexes or hexsides to read the map by"]}
            )
        with self.decoding():
            proposal = propose(
                base64.b64decode(stored.data), fit, grid, hex_examples, side_examples
            )
        return proposal.to_json()

    def accept(
        self,
        ref: str,
        by: User,
        hexes: Mapping[str, Any],
        hexsides: Sequence[Mapping[str, Any]],
    ) -> tuple[ClubScenario, int]:
        """Record the accepted part of a proposal as ordinary edits, one batch (one undo):
        ``terrain`` for each hex whose terrain changes, ``hexside`` for each hexside gaining a
        feature (its other features kept).  Returns the scenario and the number of changes."""
        scenario = self.library._writable(ref, by)
        grid = grid_of(plain(scenario.draft).get("map") or {})
        terrains = self._terrains(scenario)
        draft_map = plain(scenario.draft).get("map") or {}
        default = draft_map.get("default_terrain", "clear")
        painted = draft_map.get("terrain") or {}
        changes: list[dict[str, Any]] = []
        for label, item in hexes.items():
            terrain = item.get("terrain") if isinstance(item, Mapping) else item
            where = f"hexes.{label}"
            label = self._label(grid, label, where)
            if terrain not in terrains:
                raise Unprocessable(
                    f"unknown terrain {terrain!r}",
                    {where: [f"one of the map's terrain types: {', '.join(terrains)}"]},
                )
            if painted.get(label, default) != terrain:
                changes.append({"kind": "terrain", "hex": label, "terrain": terrain})
        existing = {
            frozenset(side.get("hexes") or []): list(side.get("features") or [])
            for side in draft_map.get("hexsides") or []
            if isinstance(side, dict)
        }
        gained: dict[frozenset[str], list[str]] = {}
        order: list[tuple[str, str]] = []
        for i, item in enumerate(hexsides):
            pair = self._pair(grid, item.get("between"), f"hexsides[{i}].between")
            feature = item.get("feature")
            self._feature(feature, i)
            feature = str(feature)
            key = frozenset(pair)
            if key not in gained:
                gained[key] = list(existing.get(key, []))
                order.append(pair)
            if feature not in gained[key]:
                gained[key].append(feature)
        for a, b in order:
            key = frozenset((a, b))
            if sorted(gained[key]) != sorted(existing.get(key, [])):
                changes.append({"kind": "hexside", "hexes": [a, b], "features": gained[key]})
        if changes:
            scenario.edit(changes, str(by.id), self.library.limits)
            self.library._save(scenario)
        return scenario, len(changes)

    # -- reads ----------------------------------------------------------------------------------
    def image(self, ref: str, user: User | None, version: int | None, width: int | None) -> Served:
        """The image a version names (``None``: the draft for the club's members, else the latest
        version), ``width`` px wide at most (see :func:`served_width`)."""
        scenario = self.library.get(ref, user)
        member = user is not None and self.library._member(scenario.club, user)
        if version is None and member:
            document = scenario.draft
        else:
            if not scenario.versions:
                raise NotFound("no map image", {"image": ["the scenario has no version yet"]})
            document = scenario.published(version)["document"]
        return self._serve(image_of(document), width)

    def pinned(self, ref: str, version: int) -> dict[str, Any] | None:
        """The image a published version pins, with its calibration (``None``: it has none, or
        it is not calibrated): what a game started from that version draws under its hexes.
        Read for whoever reads the game (the caller checked), like the version's map."""
        document = self.library._load(ref).published(version)["document"]
        image = image_of(document)
        if not isinstance(image, dict) or not isinstance(image.get("calibration"), dict):
            return None
        try:
            facts = self._facts_of(image.get("sha256"))
            affine = Calibration.from_json(image["calibration"]).affine
        except (NotFound, KeyError, IndexError, TypeError, ValueError):
            return None  # a version stored before the checks naming no image: drawn without
        return {
            "sha256": facts.sha256,
            "width": facts.width,
            "height": facts.height,
            "affine": [list(row) for row in affine],
        }

    def game_image(self, ref: str, version: int, width: int | None) -> Served:
        """The image a published version pins, for a game started from it."""
        document = self.library._load(ref).published(version)["document"]
        return self._serve(image_of(document), width)

    def _serve(self, image: Any, width: int | None) -> Served:
        """The image a document names, as the store recorded it when it was checked: its media
        type and width are the stored image's, never the document's (a draft may say anything
        about them, or name nothing stored: 404)."""
        if not isinstance(image, dict) or "sha256" not in image:
            raise NotFound("no map image", {"image": ["this scenario has no map image"]})
        facts = self._facts_of(image["sha256"])
        sha, media_type = facts.sha256, facts.media_type
        size = served_width(width, facts.width)
        found = self.sizes.get((sha, size))
        if found is None:
            original = self._bytes(sha)
            if size >= facts.width:
                found = original
            else:
                with self.decoding():
                    found = resized(original, media_type, size)
            self.sizes.put((sha, size), found)
        return Served(found, media_type, sha, size)

    # -- helpers --------------------------------------------------------------------------------
    def _draft_image(self, scenario: ClubScenario) -> tuple[dict[str, Any], HexGrid]:
        draft_map = plain(scenario.draft).get("map") or {}
        grid = grid_of(draft_map)
        image = draft_map.get("image")
        if not isinstance(image, dict) or "sha256" not in image:
            raise Unprocessable("the scenario has no map image", {"image": ["upload one first"]})
        return image, grid

    def _draft_stored(self, image: Mapping[str, Any]) -> StoredImage:
        """The stored image a draft's ``map.image`` names (its size as recorded, not as the draft
        says); 422 naming ``image`` when it names none (a draft stored before the checks)."""
        try:
            return self._stored(image.get("sha256"))
        except NotFound:
            raise Unprocessable(
                "the scenario's map image is not stored", {"image": ["upload the image again"]}
            ) from None

    @staticmethod
    def _terrains(scenario: ClubScenario) -> list[str]:
        types = (plain(scenario.draft).get("map") or {}).get("terrain_types") or []
        if not types:
            raise Unprocessable(
                "the map names no terrain types",
                {"map.terrain_types": ["list the terrain types the game's chart knows"]},
            )
        return [str(t) for t in types]

    @staticmethod
    def _label(grid: HexGrid, label: Any, where: str) -> str:
        if isinstance(label, str) and grid.in_bounds(label):
            return label
        raise Unprocessable(f"unknown hex {label!r}", {where: [f"no hex {label!r} on this map"]})

    def _pair(self, grid: HexGrid, pair: Any, where: str) -> tuple[str, str]:
        if not isinstance(pair, list | tuple) or len(pair) != 2:
            raise Unprocessable("a hexside is two hexes", {where: ["give [hex, hex]"]})
        a = self._label(grid, pair[0], where)
        b = self._label(grid, pair[1], where)
        if not grid.adjacent(a, b):
            raise Unprocessable(f"{a} and {b} are not adjacent", {where: ["not a hexside"]})
        return a, b

    @staticmethod
    def _feature(feature: Any, i: int) -> None:
        if feature not in HEXSIDE_FEATURES:
            raise Unprocessable(
                f"unknown hexside feature {feature!r}",
                {f"hexsides[{i}].feature": [f"one of {', '.join(HEXSIDE_FEATURES)}"]},
            )

    def _hex_examples(
        self, grid: HexGrid, terrains: list[str], hexes: Mapping[str, Sequence[str]]
    ) -> dict[str, list[str]]:
        out: dict[str, list[str]] = {}
        for terrain, labels in hexes.items():
            if terrain not in terrains:
                raise Unprocessable(
                    f"unknown terrain {terrain!r}",
                    {
                        f"hexes.{terrain}": [
                            f"one of the map's terrain types: {', '.join(terrains)}"
                        ]
                    },
                )
            if not labels or len(labels) > MAX_EXAMPLES:
                raise Unprocessable(
                    "examples", {f"hexes.{terrain}": [f"1 to {MAX_EXAMPLES} example hexes"]}
                )
            out[terrain] = [
                self._label(grid, label, f"hexes.{terrain}[{i}]") for i, label in enumerate(labels)
            ]
        if len(out) == 1:
            raise Unprocessable(
                "one terrain type is no choice",
                {"hexes": ["give examples of two or more terrain types"]},
            )
        return out

    def _side_examples(
        self, grid: HexGrid, hexsides: Mapping[str, Sequence[Sequence[str]]]
    ) -> dict[str, list[list[str]]]:
        out: dict[str, list[list[str]]] = {}
        for feature, pairs in hexsides.items():
            if feature not in HEXSIDE_FEATURES:
                raise Unprocessable(
                    f"unknown hexside feature {feature!r}",
                    {f"hexsides.{feature}": [f"one of {', '.join(HEXSIDE_FEATURES)}"]},
                )
            if not pairs or len(pairs) > MAX_EXAMPLES:
                raise Unprocessable(
                    "examples", {f"hexsides.{feature}": [f"1 to {MAX_EXAMPLES} example hexsides"]}
                )
            out[feature] = [
                list(self._pair(grid, pair, f"hexsides.{feature}[{i}]"))
                for i, pair in enumerate(pairs)
            ]
        return out
