"""A map image's bytes, kept content-addressed in the event store: one aggregate per SHA-256 (its
id is derived from the hash), created once by one event holding the bytes (base64).

Kept in the store, not in files, so a PostgreSQL deployment shares it between workers and
``arbiter backup`` carries it with the rest of the log.  Who may see it is decided by the club
scenarios that name it (``map.image.sha256``): it has no reader of its own."""

from __future__ import annotations

import base64
from typing import Any
from uuid import NAMESPACE_URL, UUID, uuid5

from eventsourcing.domain import Aggregate

IMAGES_NAMESPACE = uuid5(NAMESPACE_URL, "https://arbiter.invalid/map-images")


def stored_size(data: bytes) -> int:
    """The bytes an image's ``data`` takes in its event (base64): what quotas count."""
    return 4 * ((len(data) + 2) // 3)


def image_id(sha256: str) -> UUID:
    return uuid5(IMAGES_NAMESPACE, "sha256:" + sha256)


class MapImage(Aggregate):
    class Stored(Aggregate.Created):
        sha256: str
        media_type: str
        width: int
        height: int
        data: str  # base64 of the bytes
        by: str

        def apply(self, aggregate: Any) -> None:
            aggregate.sha256 = self.sha256
            aggregate.media_type = self.media_type
            aggregate.width, aggregate.height = self.width, self.height

    sha256: str
    media_type: str
    width: int
    height: int

    def __init__(self) -> None:  # set by Stored
        pass

    @classmethod
    def store(
        cls, sha256: str, media_type: str, width: int, height: int, data: bytes, by: str
    ) -> Any:
        return cls._create(
            cls.Stored,
            id=image_id(sha256),
            sha256=sha256,
            media_type=media_type,
            width=width,
            height=height,
            data=base64.b64encode(data).decode("ascii"),
            by=by,
        )
