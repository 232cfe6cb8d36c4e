"""Errors the knowledge base raises."""

from __future__ import annotations


class QueryError(ValueError):
    """A search request the knowledge base refuses: ``field`` names the parameter, ``reason`` why."""

    def __init__(self, field: str, reason: str) -> None:
        super().__init__(f"{field}: {reason}")
        self.field = field
        self.reason = reason


class EntryNotFound(KeyError):
    """No entry has this id."""
