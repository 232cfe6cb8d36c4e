"""Keyset pages: the headers that name a list's next page."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from service.api.schemas import PageCursor


def next_page(path: str, args: dict[str, Any], key: tuple[Any, ...]) -> dict[str, str]:
    """``X-Next-Cursor`` and ``Link: <...>; rel="next"`` for the page after ``key``, keeping the
    request's own filters (``args``, as loaded)."""
    cursor = PageCursor.encode(key)
    kept: dict[str, Any] = {}
    for name, value in args.items():
        if name == "after" or value is None or (value is False and name != "public"):
            continue  # the cursor is replaced; flags at their default are left out
        kept[name] = str(value).lower() if isinstance(value, bool) else value
    query = urlencode({**kept, "after": cursor})
    return {"X-Next-Cursor": cursor, "Link": f'<{path}?{query}>; rel="next"'}
