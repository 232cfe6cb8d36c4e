"""Where an imported game came from (``arbiter games import``, docs/game-record.md).

A game imported from another server's record keeps its id, events and hashes: its log is that
game's log.  What the importing server adds is kept here, apart from the game's own log: the
record's digest and head, who imported it and when, and the salts of its sealed forms (in a
hidden-information game the commitments were made under the first server's key, so this server
shows each sealed event with the salt the record gave, and the event verifies as it did there)."""

from __future__ import annotations

from typing import Any
from uuid import UUID, uuid5

from eventsourcing.domain import Aggregate


def import_id(game_id: UUID) -> UUID:
    return uuid5(game_id, "game-import")


class GameImport(Aggregate):
    class Created(Aggregate.Created):
        game_id: UUID
        #: the SHA-256 of the record as read, and its format version
        record_sha256: str
        format: int
        #: the head the record ended with (game, version, hash)
        source_head: dict[str, Any] | None
        #: seq (as text) -> the salt of the full form of that sealed event
        salts: dict[str, str]
        imported_by: str
        events: int

        def apply(self, aggregate: Any) -> None:
            for name in (
                "game_id",
                "record_sha256",
                "format",
                "source_head",
                "salts",
                "imported_by",
                "events",
            ):
                setattr(aggregate, name, getattr(self, name))

    game_id: UUID
    record_sha256: str
    format: int
    source_head: dict[str, Any] | None
    salts: dict[str, str]
    imported_by: str
    events: int

    def __init__(self) -> None:  # attributes are set by Created.apply
        pass

    @classmethod
    def record(
        cls,
        game_id: UUID,
        *,
        record_sha256: str,
        format: int,
        source_head: dict[str, Any] | None,
        salts: dict[str, str],
        imported_by: str,
        events: int,
    ) -> GameImport:
        return cls._create(
            cls.Created,
            id=import_id(game_id),
            game_id=game_id,
            record_sha256=record_sha256,
            format=format,
            source_head=source_head,
            salts=salts,
            imported_by=imported_by,
            events=events,
        )
