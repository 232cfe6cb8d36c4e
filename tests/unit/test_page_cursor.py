"""The keyset pages' cursor (``service.api.schemas.PageCursor``): a key of the default shape is
written as it always was (a cursor given before stays valid), a key with text (a name with spaces,
any character) travels as JSON, and a cursor of another shape or one this API did not give is
refused naming ``after``."""

from __future__ import annotations

import base64
from typing import Any
from uuid import UUID

import pytest
from marshmallow import Schema, ValidationError

from service.api.schemas import PageCursor, PageFields, page_cursor

ID = (
    "d62e3736-3017-47ea-87b7-e3466b7aaa38"  # fixed: test ids must be the same in every xdist worker
)


class ByName(PageFields):
    after = page_cursor(str, UUID)


class ByTime(PageFields):
    after = page_cursor(str, int)


class Library(PageFields):
    after = page_cursor(str, str, int)


def b64(raw: str) -> str:
    return base64.urlsafe_b64encode(raw.encode()).decode().rstrip("=")


def load(schema: Schema, cursor: str) -> Any:
    return schema.load({"after": cursor})["after"]


def test_the_default_shape_is_written_as_before() -> None:
    assert PageCursor.encode((123, ID)) == b64(f"123 {ID}")
    assert PageCursor.encode((123, UUID(ID))) == b64(f"123 {ID}")
    assert load(PageFields(), b64(f"123 {ID}")) == (123, ID)


@pytest.mark.parametrize(
    ("schema", "key"),
    [
        (ByName(), ("the mill club", ID)),
        (ByName(), ('ñandú — «club» "quoted" [1]', ID)),
        (ByName(), ("", ID)),
        (ByTime(), ("2024-05-01T10:00:00.123456+00:00", 42)),
        (Library(), ("merida", "a title, with spaces", 7)),
    ],
)
def test_a_key_with_text_goes_and_comes_back(schema: Schema, key: tuple[Any, ...]) -> None:
    cursor = PageCursor.encode(key)
    assert set(cursor) <= set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
    assert load(schema, cursor) == key


@pytest.mark.parametrize(
    ("schema", "cursor"),
    [
        (ByName(), PageCursor.encode((123, ID))),  # another list's cursor
        (PageFields(), PageCursor.encode(("name", ID))),
        (ByTime(), PageCursor.encode(("at", "not a number"))),
        (ByTime(), PageCursor.encode(("at", True))),
        (ByTime(), PageCursor.encode(("at", 1.5))),
        (ByTime(), PageCursor.encode(("at", 2**63))),
        (ByName(), PageCursor.encode(("name", "not-a-uuid"))),
        (ByName(), PageCursor.encode(("x" * 201, ID))),
        (Library(), PageCursor.encode(("merida", "title"))),
        (ByName(), b64('{"a": 1}')),
        (ByName(), b64("[" * 5000)),
        (ByName(), b64("[1, 2")),
        (ByName(), "%%%"),
        (ByName(), ""),
    ],
)
def test_a_cursor_of_another_shape_is_refused(schema: Schema, cursor: str) -> None:
    with pytest.raises(ValidationError) as refused:
        load(schema, cursor)
    assert "after" in refused.value.messages
