"""The map image a club scenario's document names (``map.image``), held to the image the store
keeps (issue 44).

The bytes, their media type and their size are recorded once, when the upload is checked
(:class:`service.domain.map_images.MapImage`); a document only names them.  So a draft's
``map.image`` must name an image the scenario owns (uploaded to it, or named by the document it
started from: a fork's or an import's) by its SHA-256, and its ``media_type``, ``width`` and
``height`` must be that image's (an edit of ``map.image`` that leaves them out gets them filled
in); anything else is refused at the edit, naming the field, and nothing is written.  What is
served is the recorded media type, never a document's word (a draft stored before these checks
may still say anything).  See docs/scenario-library.md ("Map image")."""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from service.application.store import ArbiterStore
from service.domain.errors import Invalid, Unprocessable
from service.domain.map_images import image_id
from service.domain.scenarios import ClubScenario, applied, parse_path, plain
from service.rules.scenario.schema import MapImageSchema

SHA256 = re.compile(r"[0-9a-f]{64}")
#: what :class:`MapImage` records of an image, and a document repeats
FACTS = ("media_type", "width", "height")
FIELD = "map.image"


@dataclass(frozen=True)
class StoredImage:
    """An image as recorded when its upload was checked."""

    sha256: str
    media_type: str
    width: int
    height: int
    #: base64 of the bytes
    data: str


def image_of(document: Mapping[str, Any]) -> Any:
    """A document's ``map.image`` (whatever it holds), or None."""
    board = plain(document).get("map")
    return board.get("image") if isinstance(board, Mapping) else None


def owned(scenario: ClubScenario) -> set[str]:
    """The images a scenario owns: those uploaded to it (or named by an edit) and the one the
    document it started from names."""
    found = {str(sha) for sha in getattr(scenario, "images", []) if isinstance(sha, str)}
    first = image_of(getattr(scenario, "original", {}) or {})
    if isinstance(first, Mapping) and isinstance(first.get("sha256"), str):
        found.add(first["sha256"])
    return found


def _touches_image(change: Mapping[str, Any]) -> bool:
    """Whether ``change`` may set ``map.image`` (a ``field`` or ``confirm`` at ``map`` or under
    it); the other kinds write other parts of the map."""
    if change.get("kind") not in ("field", "confirm") or not isinstance(change.get("path"), str):
        return False
    try:
        path = parse_path(change["path"])
    except ValueError:
        return False
    return path[0] == "map" and (len(path) == 1 or path[1] == "image")


class DraftImages:
    def __init__(self, store: ArbiterStore) -> None:
        self.store = store

    def stored(self, sha256: Any) -> StoredImage | None:
        """The image the store keeps under ``sha256`` (None: not a SHA-256, or not stored)."""
        if not isinstance(sha256, str) or not SHA256.fullmatch(sha256):
            return None
        events = list(self.store.events.get(image_id(sha256), limit=1))
        if not events:
            return None
        event: Any = events[0]
        return StoredImage(
            sha256, str(event.media_type), int(event.width), int(event.height), str(event.data)
        )

    def checked_changes(
        self, scenario: ClubScenario, changes: Sequence[Mapping[str, Any]]
    ) -> list[dict[str, Any]]:
        """``changes`` for :meth:`ClubScenario.edit`, refused (naming ``map.image``) when they
        would leave the draft naming an image it does not own or saying other than the stored
        image does; a ``field`` edit of ``map.image`` gets the image's facts it leaves out."""
        out = [dict(c) for c in changes]
        if not any(_touches_image(c) for c in out):
            return out
        for change in out:
            value = change.get("value")
            if change.get("kind") != "field" or change.get("path") != FIELD:
                continue
            if isinstance(value, Mapping) and (found := self.stored(value.get("sha256"))):
                change["value"] = {**{key: getattr(found, key) for key in FACTS}, **value}
        before = image_of(scenario.draft)
        try:
            after = image_of(applied(scenario.draft, out))
        except Exception:  # noqa: BLE001 -- the edit itself says what is wrong with it
            return out
        if after is not None and after != before:
            self.check(after, owned(scenario))
        return out

    def check(self, image: Any, owned: Collection[str] | None, field: str = FIELD) -> StoredImage:
        """``image`` (a document's ``map.image``) as a stored image ``owned`` names (None: any
        stored image), saying what it says of it; else refused naming ``field``."""
        if not isinstance(image, Mapping):
            raise Invalid(
                "the map image is not an uploaded image",
                {field: ['an object: {"sha256", "media_type", "width", "height"}; upload first']},
            )
        sha = image.get("sha256")
        found = None
        if isinstance(sha, str) and SHA256.fullmatch(sha):
            found = self.stored(sha) if owned is None or sha in owned else None
            if found is None:
                raise Unprocessable(
                    "the map image is not one of this scenario's",
                    {f"{field}.sha256": [f"{sha[:12]}… is no image uploaded to this scenario"]},
                )
        problems = MapImageSchema().validate(dict(image))
        if problems or found is None:
            details = _flat(problems, field)
            first = next(iter(details))
            raise Invalid(f"invalid map image: {first}: {details[first][0]}", details)
        for key in FACTS:
            if image[key] != getattr(found, key):
                raise Invalid(
                    f"the map image's {key} is {getattr(found, key)}, not {image[key]}",
                    {f"{field}.{key}": [f"{getattr(found, key)}, as the image was checked"]},
                )
        return found


def _flat(messages: Any, prefix: str) -> dict[str, list[str]]:
    """marshmallow's nested messages as ``{"map.image.calibration.affine.0": [reasons]}``."""
    if isinstance(messages, Mapping):
        out: dict[str, list[str]] = {}
        for key, value in messages.items():
            out.update(_flat(value, f"{prefix}.{key}"))
        return out
    items = messages if isinstance(messages, list) else [messages]
    if all(isinstance(m, str) for m in items):
        return {prefix: list(items)}
    out = {}
    for item in items:
        out.update(_flat(item, prefix))
    return out
